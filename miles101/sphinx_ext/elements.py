"""Nodes the extension adds, and how HTML (and every other builder) writes them."""
from __future__ import annotations

from html import escape
from typing import Any, NamedTuple

from docutils import nodes


class value_node(nodes.General, nodes.Inline, nodes.Element):
    """A cited value: `text` shown, `tip` reachable by hover and keyboard focus."""


class Fact(NamedTuple):
    """One labelled fact about a flag: shown as code or text, optionally a link."""

    label: str
    text: str
    code: bool = False
    href: str | None = None

    def html(self) -> str:
        inner = f"<code>{escape(self.text)}</code>" if self.code else escape(self.text)
        return f'<a class="reference external" href="{escape(self.href)}">{inner}</a>' if self.href else inner


class flag_facts(nodes.General, nodes.Element):
    """A flag's extracted facts: one node (not a field list of dozens), written by each builder."""


def visit_facts_html(self: Any, node: flag_facts) -> None:
    rows = "".join(f"<dt>{escape(f.label)}</dt><dd>{f.html()}</dd>" for f in node["facts"])
    self.body.append(f'<dl class="m101-flag-facts">{rows}</dl>\n')
    raise nodes.SkipNode


def visit_facts_text(self: Any, node: flag_facts) -> None:
    self.add_text("; ".join(f"{f.label}: {f.text}" for f in node["facts"]))
    raise nodes.SkipNode


class m101_generated(nodes.General, nodes.Element):
    """A placeholder for a table built after every page is read (R.1 ... R.5)."""


def visit_value_html(self: Any, node: value_node) -> None:
    tip_id = node["tip_id"]
    classes = " ".join(["m101-value", f"m101-{node['kind']}", *node.get("classes", [])])
    source = node.get("source")
    label = f'<span class="m101-ref-tag">{escape(node.get("tag") or "")}</span> ' if source else ""
    where = f' <span class="m101-ref-source">({escape(source)})</span>' if source else ""
    self.body.append(
        f'<span class="{classes}" tabindex="0" aria-describedby="{tip_id}">{label}'
        f'<span class="m101-shown">{escape(node["text"])}</span>{where}'
        f'<span class="m101-tip" role="tooltip" id="{tip_id}">{escape(node["tip"])}</span></span>'
    )
    raise nodes.SkipNode


def visit_value_text(self: Any, node: value_node) -> None:
    source = node.get("source")
    self.add_text(f"{node['text']} ({node.get('tag')}: {source})" if source else node["text"])
    raise nodes.SkipNode


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


VALUE_VISITORS = {
    "html": (visit_value_html, None),
    "text": (visit_value_text, None),
    "latex": (skip, None),
    "man": (visit_value_text, None),
    "texinfo": (skip, None),
}


FACTS_VISITORS = {
    "html": (visit_facts_html, None),
    "text": (visit_facts_text, None),
    "latex": (skip, None),
    "man": (visit_facts_text, None),
    "texinfo": (skip, None),
}
