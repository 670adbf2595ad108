"""```{compare-image-sample}```: what ``preflight.py --compare-image`` prints for an image of the book's commit.

The text is rendered at build time by the served tool's own ``compare`` and ``render`` over its BOOK
block (``miles101.book_miles.sample``), so the page's sample cannot drift from what the command prints.
The page reads again when ``tools/miles_tree.py`` changes. A build of the project itself checks that
BOOK still matches the capture, the run files and the pages, and warns (``manual.served_tool``) when
it does not, so a page the reader downloads the tool from cannot serve a stale book. The check's answer
is kept in the doctree dir for the bytes it read and the code (`miles101.memo`): a build whose inputs
are unchanged reads them, but neither renders BOOK again nor imports the served tool.
"""
from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from .. import book_miles
from ..book import SCHEMA_PATH, Book
from ..inputs import code_digest, memo_key
from ..memo import kept, memo_bytes
from ..problems import ProblemError, Subtype
from .base import ManualDirective, warn
from .loading import book_in_config

#: The answer of the last build's check of BOOK ("fresh" or "stale"), in the doctree dir.
CHECK_MEMO = "m101-served-book.pickle"


class CompareImageSampleDirective(ManualDirective):
    """```{compare-image-sample}``` (no argument, no content): a text block."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(book_miles.TOOL))
        text = book_miles.sample()
        node = nodes.literal_block(text, text, language="text")
        self.set_source_info(node)
        return [node]


DIRECTIVES = {"compare-image-sample": CompareImageSampleDirective}


def check_key(root: Path, book: Book) -> str:
    """What `book_miles.book_side` reads besides the loaded book, and the code: manual.json (and its schema), the
    book's pages, the extraction's flags and metrics, every run file (the served BOOK is in tools/miles_tree.py)."""
    runs = root / "capture" / "runs"
    names = sorted(n for n in (os.listdir(runs) if runs.is_dir() else []) if n.endswith(".yaml"))
    files = ["manual.json", *book.page_files, "capture/miles/flags.json", "capture/miles/metrics.json",
             *(f"capture/runs/{n}" for n in names)]
    return memo_key(code_digest(), "served-book", SCHEMA_PATH.read_bytes(),
                    *(part for rel in files for part in (rel, memo_bytes(root / rel))))


def served_verdict(root: Path, book: Book | None) -> str:
    """"fresh" when the served BOOK is what this project's capture, run files and pages give, else "stale"."""
    from ..tools.miles_tree import BOOK  # the served tool: only when its inputs or the code changed

    try:
        fresh = book_miles.book_side(root, book=book)
    except (OSError, ValueError, KeyError, ProblemError) as exc:  # the capture's and the book's own checks name the cause
        fresh = {"unreadable": str(exc)}
    return "fresh" if fresh == BOOK else "stale"


def check_book(app: Sphinx) -> None:
    """Warn when the served BOOK differs from what this project's capture, run files and pages give.

    Only for the project the tool belongs to: a test's copy of another book has its own pages."""
    root = book_miles.ROOT
    if Path(app.srcdir).resolve() != root:
        return
    book = book_in_config(app.config)  # the build's manual.json, when it is the project's (a conf may name another)
    if book is not None and (Path(app.confdir) / app.config.m101_book).resolve() != root / "manual.json":
        book = None  # book_side loads the project's own; no memo
    key = check_key(root, book) if book is not None else None
    if kept(Path(app.doctreedir) / CHECK_MEMO, key, lambda: served_verdict(root, book), str) == "stale":
        warn(Subtype.SERVED_TOOL, f"{book_miles.TOOL.relative_to(root)}: its BOOK block (the book's side of "
             "`preflight.py --compare-image`) no longer matches capture/miles/, the run files or the pages.",
             fix="run `python3 -m miles101.book_miles --write` and commit the file")


def setup_image_compare(app: Sphinx) -> None:
    """Register the directive and the check of the served BOOK."""
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("builder-inited", check_book)
