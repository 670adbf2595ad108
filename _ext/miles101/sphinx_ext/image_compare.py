"""```{compare-image-sample}```: what ``preflight.py --compare-image`` prints for an image of the book's commit.

The text is rendered at build time by the served tool's own ``compare`` and ``render`` over its BOOK
block (``miles101.book_miles.sample``), so the page's sample cannot drift from what the command prints.
The page reads again when ``tools/miles_tree.py`` changes. A build of the project itself checks that
BOOK still matches the capture, the run files and the pages, and warns (``manual.served_tool``) when
it does not, so a page the reader downloads the tool from cannot serve a stale book.
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from ..book_miles import ROOT, TOOL, book_side, sample
from ..problems import ProblemError, Subtype
from ..tools.miles_tree import BOOK
from .base import ManualDirective, warn


class CompareImageSampleDirective(ManualDirective):
    """```{compare-image-sample}``` (no argument, no content): a text block."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(TOOL))
        text = sample()
        node = nodes.literal_block(text, text, language="text")
        self.set_source_info(node)
        return [node]


DIRECTIVES = {"compare-image-sample": CompareImageSampleDirective}


def check_book(app: Sphinx) -> None:
    """Warn when the served BOOK differs from what this project's capture, run files and pages give.

    Only for the project the tool belongs to: a test's copy of another book has its own pages."""
    if Path(app.srcdir).resolve() != ROOT:
        return
    try:
        fresh = book_side(ROOT)
    except (OSError, ValueError, KeyError, ProblemError) as exc:  # the capture's and the book's own checks name the cause
        fresh = {"unreadable": str(exc)}
    if fresh != BOOK:
        warn(Subtype.SERVED_TOOL, f"{TOOL.relative_to(ROOT)}: its BOOK block (the book's side of "
             "`preflight.py --compare-image`) no longer matches capture/miles/, the run files or the pages.",
             fix="run `python3 -m miles101.book_miles --write` and commit the file")


def setup_image_compare(app: Sphinx) -> None:
    """Register the directive and the check of the served BOOK."""
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("builder-inited", check_book)
