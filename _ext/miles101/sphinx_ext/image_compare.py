"""```{compare-image-sample}```: what ``preflight.py --compare-image`` prints for an image of the book's commit.

The text is rendered at build time by the served tool's own ``compare`` and ``render`` over its BOOK
block (``miles101.book_miles.sample``), so the page's sample cannot drift from what the command prints.
The page reads again when ``tools/miles_tree.py`` changes.
"""
from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..book_miles import TOOL, sample
from .base import ManualDirective


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


def setup_image_compare(app: Sphinx) -> None:
    """Register the directive."""
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
