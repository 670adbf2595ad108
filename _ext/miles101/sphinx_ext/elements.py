"""Nodes the extension adds, and how every builder Sphinx ships writes them (html, latex, text, man, texinfo)."""
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
    self.new_state(0)
    self.add_text("; ".join(f"{f.label}: {f.text}" for f in node["facts"]))
    self.end_state()
    raise nodes.SkipNode


class m101_generated(nodes.General, nodes.Element):
    """A placeholder for a table built after every page is read (R.1 ... R.5)."""


def visit_value_html(self: Any, node: value_node) -> None:
    tip_id = node["tip_id"]
    classes = " ".join(["m101-value", f"m101-{node['kind']}", *node.get("classes", [])])
    source = node.get("source")
    label = f'<span class="m101-ref-tag">{escape(node.get("tag") or "")}</span> ' if source else ""
    where = f' <span class="m101-ref-source">({escape(source)})</span>' if source else ""
    if self.builder.name.startswith("epub"):
        # No tooltip in an e-book (a reader that drops the CSS would show it mid-sentence): the
        # page's closing list, "Values on this page", says where each value comes from.
        self.body.append(f'<span class="{classes}">{label}<span class="m101-shown">{escape(node["text"])}</span>'
                         f'{where}</span>')
        raise nodes.SkipNode
    self.body.append(
        f'<span class="{classes}" tabindex="0" aria-describedby="{tip_id}">{label}'
        f'<span class="m101-shown">{escape(node["text"])}</span>{where}'
        f'<span class="m101-tip" role="tooltip" id="{tip_id}">{escape(node["tip"])}</span></span>'
    )
    raise nodes.SkipNode


#: How the short tag of a value that is not ours reads in running text.
TAG_TEXT = {"public ref": "public reference", "our threshold": "our threshold"}


def value_text(node: value_node) -> str:
    """The value as plain text; someone else's number keeps its tag and source: "(public reference: …)"."""
    source, tag = node.get("source"), node.get("tag") or ""
    return f"{node['text']} ({TAG_TEXT.get(tag, tag)}: {source})" if source else node["text"]


def visit_value_text(self: Any, node: value_node) -> None:
    self.add_text(value_text(node))
    raise nodes.SkipNode


def visit_value_latex(self: Any, node: value_node) -> None:
    self.body.append(self.encode(value_text(node)))
    raise nodes.SkipNode


def visit_value_texinfo(self: Any, node: value_node) -> None:
    self.body.append(self.escape(value_text(node)))
    raise nodes.SkipNode


def visit_value_man(self: Any, node: value_node) -> None:
    self.visit_Text(nodes.Text(value_text(node)))  # the man writer's own escaping
    raise nodes.SkipNode


def visit_facts_latex(self: Any, node: flag_facts) -> None:
    items = []
    for f in node["facts"]:
        text = self.encode(f.text)
        text = rf"\sphinxcode{{\sphinxupquote{{{text}}}}}" if f.code else text
        if f.href:
            text = rf"\sphinxhref{{{self.encode_uri(f.href)}}}{{{text}}}"
        items.append(rf"\item[{{{self.encode(f.label)}}}] {text}")
    self.body.append("\n\\begin{description}\n" + "\n".join(items) + "\n\\end{description}\n")
    raise nodes.SkipNode


def visit_facts_texinfo(self: Any, node: flag_facts) -> None:
    items = []
    for f in node["facts"]:
        text = f"@code{{{self.escape_arg(f.text)}}}" if f.code else self.escape(f.text)
        if f.href:
            text = f"@uref{{{self.escape_arg(f.href)}, {text}}}"
        items.append(f"@item {self.escape_arg(f.label)}\n{text}")
    self.body.append("\n@table @asis\n" + "\n".join(items) + "\n@end table\n")
    raise nodes.SkipNode


def visit_facts_man(self: Any, node: flag_facts) -> None:
    self.body.append("\n.sp\n")
    self.visit_Text(nodes.Text("; ".join(f"{f.label}: {f.text}" for f in node["facts"])))
    self.body.append("\n")
    raise nodes.SkipNode


VALUE_VISITORS = {
    "html": (visit_value_html, None),
    "text": (visit_value_text, None),
    "latex": (visit_value_latex, None),
    "man": (visit_value_man, None),
    "texinfo": (visit_value_texinfo, None),
}


FACTS_VISITORS = {
    "html": (visit_facts_html, None),
    "text": (visit_facts_text, None),
    "latex": (visit_facts_latex, None),
    "man": (visit_facts_man, None),
    "texinfo": (visit_facts_texinfo, None),
}


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def setup_elements(app) -> None:
    app.add_node(value_node, **VALUE_VISITORS)
    app.add_node(flag_facts, **FACTS_VISITORS)
    app.add_node(m101_generated, **{b: (skip, None) for b in VALUE_VISITORS})  # replaced before writing
