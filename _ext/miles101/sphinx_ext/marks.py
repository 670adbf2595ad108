"""The visible mark of a kind: the short tag, from the kinds table (`miles101.kinds`), that a cited setting or
value wears before it, so each kind reads differently on the page without hover."""
from __future__ import annotations

from html import escape
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ..kinds import BY_NAME


class kind_mark(nodes.Inline, nodes.TextElement):
    """The visible mark of a cited setting's kind (a flag default, a run file's setting): its tag from the kinds
    table, drawn by the web and the EPUB; the text editions leave it out (llms-full.txt names kinds in words)."""


def mark_of(kind: str) -> list[nodes.Node]:
    """The mark a cite of `kind` wears before it ([] for a kind with no tag: a GB10 measurement)."""
    tag = BY_NAME[kind].tag
    return [kind_mark(tag, tag, kind=kind)] if tag else []


def visit_mark_html(self: Any, node: kind_mark) -> None:
    self.body.append(f'<span class="m101-ref-tag m101-mark m101-mark-{node["kind"]}">{escape(node.astext())}</span> ')
    raise nodes.SkipNode


def skip_mark(self: Any, node: kind_mark) -> None:
    raise nodes.SkipNode


def setup_marks(app: Sphinx) -> None:
    app.add_node(kind_mark, html=(visit_mark_html, None),
                 **{name: (skip_mark, None) for name in ("text", "latex", "man", "texinfo")})
