"""Folds: a closed `<details>` on the web, shown open in the EPUB and on paper (issue 61 item 2).

A fold is the book's own node, `fold`, whose first child is its title (`fold_title`):

- on the web (every HTML-family builder but the EPUB) it is written as a native
  `<details class="m101-fold"><summary>title</summary><div class="m101-fold-body">…</div></details>`:
  the browser makes the summary a keyboard-operable button that announces its state, with no script
  and no component stylesheet (miles101.css draws it);
- in the EPUB and LaTeX, and any other builder, `OpenFolds` replaces it with its title as a rubric
  (`m101-fold-heading`, keeping the title's ids) and its content: e-readers may not open a `<details>`,
  and paper cannot.

Pages write a fold as `{dropdown}` (sphinx-design's name, so no page changes): this module's directive
takes that name over and builds a `fold`. The "Values on this page" list folds the same way
(`miles101.sphinx_ext.values`). sphinx-design's stylesheet is then needed only where a page uses
its other components (`miles101.sphinx_ext.page_weight`).
"""
from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective


class fold(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A fold: its first child a `fold_title`, then its content; `open` shows it open on the web."""


class fold_title(nodes.General, nodes.TextElement):  # noqa: N801
    """The title of a fold: the `<summary>` on the web, a rubric elsewhere."""


def make_fold(title: list[nodes.Node], *, classes: list[str] | tuple[str, ...] = (), opened: bool = False, rawtitle: str = "") -> fold:
    """A fold with its title (inline nodes) and no content yet; append the content to it."""
    node = fold(classes=["m101-fold", *classes], open=opened)
    node += fold_title(rawtitle, "", *title)
    return node


class FoldDirective(SphinxDirective):
    """```{dropdown} Title``` (the name sphinx-design gave it): a fold with a title, closed unless `:open:`.

    The title is required: it is the fold's only name for a reader and for a screen reader. sphinx-design's
    other options (colour, icon, chevron, animation, `:name:`) are refused by docutils as unknown."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {"open": directives.flag, "class-container": directives.class_option}

    def run(self) -> list[nodes.Node]:
        title, messages = self.state.inline_text(self.arguments[0], self.lineno)
        node = make_fold(title, classes=self.options.get("class-container", []), opened="open" in self.options,
                         rawtitle=self.arguments[0])
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node, *messages]


# -- the web: a native <details> --------------------------------------------------------------------
def visit_fold(self: Any, node: fold) -> None:
    attributes = {"open": "open"} if node.get("open") else {}
    self.body.append(self.starttag(node, "details", **attributes))


def depart_fold(self: Any, node: fold) -> None:
    self.body.append("</div></details>\n")


def visit_fold_title(self: Any, node: fold_title) -> None:
    self.body.append(self.starttag(node, "summary", ""))


def depart_fold_title(self: Any, node: fold_title) -> None:
    self.body.append('</summary><div class="m101-fold-body">')


# -- elsewhere: open ------------------------------------------------------------------------------------
def opens_folds(builder_name: str, builder_format: str) -> bool:
    """Whether a builder shows folds open: every one but the web site's (an EPUB is HTML, but opened)."""
    return builder_format != "html" or builder_name.startswith("epub")


class OpenFolds(SphinxPostTransform):
    """EPUB, LaTeX and every builder but the web site's: a fold's title becomes a rubric, its content follows."""

    default_priority = 150

    def is_supported(self) -> bool:
        builder = self.env._builder_cls  # what SphinxPostTransform.is_supported reads
        return opens_folds(builder.name, builder.format)

    def run(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(fold)):
            title, *content = node.children
            heading = nodes.rubric(title.rawsource, "", *[c.deepcopy() for c in title.children],
                                   ids=list(title["ids"]) + list(node["ids"]), classes=["m101-fold-heading"])
            node.replace_self([heading, *(c.deepcopy() for c in content)])


def setup_folds(app: Sphinx) -> None:
    # HTML visitors alone: OpenFolds replaces every fold before any other writer runs (one left over
    # would stop that writer with Sphinx's unknown-node error, not vanish)
    app.add_node(fold, html=(visit_fold, depart_fold))
    app.add_node(fold_title, html=(visit_fold_title, depart_fold_title))
    app.add_directive("dropdown", FoldDirective, override=True)
    app.add_post_transform(OpenFolds)
