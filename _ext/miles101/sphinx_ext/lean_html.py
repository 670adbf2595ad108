"""The same text in fewer elements, where an element shows nothing (issue 61: a page's DOM near plain Furo's).

- A role's one-word code (a flag, a metric, a flag default, a cited file and line: `LEAN_CODE`) is one
  `<code>` holding its text, not Sphinx's `<span class="pre">` inside it; the stylesheet gives that code what
  `span.pre` gives (no wrapping, no hyphens: miles101.css). Code of several words keeps Sphinx's spans.
- Highlighted code writes whitespace as text, not as `<span class="w">`: the colour Pygments gives a space
  shows nothing.
"""
from __future__ import annotations

from typing import Any

from docutils import nodes
from pygments.token import Text, Whitespace
from sphinx.application import Sphinx

#: The classes of the roles' code written lean (flags.py, values.py's list of values); a cited line's code sits in an
#: `m101-src` link (sources.py).
LEAN_CODE = frozenset({"m101-flag", "m101-flag-name", "m101-metric", "m101-default", "m101-value-source"})


def _lean(node: nodes.literal) -> bool:
    """One word of a role's code, where `span.pre` adds an element and nothing else."""
    text = node.astext()
    if not text or text.split() != [text]:
        return False
    parent = node.parent
    return bool(LEAN_CODE & set(node["classes"])) or (
        isinstance(parent, nodes.reference) and "m101-src" in parent["classes"])


def visit_literal(self: Any, node: nodes.literal) -> None:
    if "kbd" in node["classes"] or not _lean(node):
        type(self).visit_literal(self, node)
        return
    self.body.append(self.starttag(node, "code", "", CLASS="docutils literal notranslate")
                     + self.encode(node.astext()) + "</code>")
    raise nodes.SkipNode


def depart_literal(self: Any, node: nodes.literal) -> None:
    type(self).depart_literal(self, node)


def lean_formatter(base: type) -> type:
    """`base` (Pygments' HTML formatter), writing whitespace tokens as text."""

    class LeanHtmlFormatter(base):  # type: ignore[misc, valid-type]
        def format_unencoded(self, tokensource: Any, outfile: Any) -> None:
            super().format_unencoded(((Text if ttype in Whitespace else ttype, value) for ttype, value in tokensource),
                                     outfile)

    return LeanHtmlFormatter


def lean_highlighting(app: Sphinx) -> None:
    """The HTML builders' highlighter writes whitespace as text (its formatter, for this build only)."""
    highlighter = getattr(app.builder, "highlighter", None)
    if highlighter is not None and getattr(highlighter, "dest", "") == "html":
        highlighter.formatter = lean_formatter(highlighter.formatter)


def setup_lean_html(app: Sphinx) -> None:
    app.add_node(nodes.literal, override=True, html=(visit_literal, depart_literal))
    app.connect("builder-inited", lean_highlighting)
