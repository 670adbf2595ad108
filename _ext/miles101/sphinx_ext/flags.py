"""Flags and metrics: the names Miles has, linked to where the book documents them.

- `{flag}` --name: the flag as code, linked to the section that teaches it (else R.1);
- `{default}` --name: its extracted default, as code, so prose never types it;
- `{metric}` key: a metric key Miles logs, linked to its row on R.2;
- ```{flag} --name```: a flag's block: its extracted facts (one `flag_facts` node, written by every
  builder) and the author's text. A flag is documented on one page only (`check_flag_blocks`).
"""
from __future__ import annotations

import json
from html import escape
from typing import Any, NamedTuple

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..flagrules import ACROSS_FIX, ON_PAGE_FIX, documented_in, twice_on_page
from ..problems import Subtype
from ..resolve import Resolved
from .base import ManualDirective, ResolvedRole, add_markup, warn
from .domain import CITE, FLAG, Cite, capture_of, domain_of, flag_anchor
from .marks import mark_of


def code_link(role: ResolvedRole, reftype: str, text: str, target: str, cited: str, **attributes: Any) -> pending_xref:
    """`text` as code (class m101-<reftype>), linked to `target` in the m101 domain; the page cites `cited`."""
    literal = nodes.literal(text, text, classes=[f"m101-{reftype}"])
    return pending_xref(role.rawtext, literal, refdomain="m101", reftype=reftype, reftarget=target,
                        refdoc=role.env.docname, refexplicit=True, **attributes, **{CITE: Cite(reftype, cited)})


class FlagRole(ResolvedRole):
    """`{flag}` --name: the flag as code, linked to where it is documented."""

    kind = "flag"

    def render(self, result: Resolved) -> list[nodes.Node]:
        name, canonical = result.key, result.extra["canonical"]
        return [code_link(self, "flag", name, name, cited=canonical, m101_canonical=canonical)]


class DefaultRole(ResolvedRole):
    """`{default}` --name: the flag's extracted default, as code (so prose never types it)."""

    kind = "default"

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [*mark_of("default"), nodes.literal(self.rawtext, result.extra["text"], classes=["m101-default"])]


class MetricRole(ResolvedRole):
    """`{metric}` rollout/raw_reward: a metric key Miles logs, linked to R.2."""

    kind = "metric"

    def render(self, result: Resolved) -> list[nodes.Node]:
        target = result.extra["target"]
        return [code_link(self, "metric", result.key, target, cited=target)]


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


def _show(value: object) -> str:
    """A default as Python would print it: None stays None, strings stay bare."""
    return "None" if value is None else value if isinstance(value, str) and value else json.dumps(value)


def flag_fields(rec: dict, capture: Any) -> list[Fact]:
    """The facts of one flag record, each a `Fact(label, text, code, href)`."""
    where = Fact("Defined at", f"{rec['file']}:{rec['line']}", href=capture.src_url(rec["file"], rec["line"]))
    if rec.get("passthrough"):
        return [Fact("Passed through", f"to the engine's own option (prefix {rec['passthrough']})"), where]
    if rec.get("default_kind") == "computed":
        shown = f"computed: {rec.get('default_expr') or 'at run time'}"
    elif rec.get("required"):
        shown = "required"
    else:
        shown = _show(rec.get("default"))
    facts = [Fact("Default", shown, code=True)]
    if rec.get("type"):
        facts.append(Fact("Type", str(rec["type"])))
    if rec.get("action") and rec["action"] != "store":
        facts.append(Fact("Action", str(rec["action"])))
    if rec.get("choices"):
        facts.append(Fact("Choices", ", ".join(map(str, rec["choices"])), code=True))
    if rec.get("aliases"):
        facts.append(Fact("Also", ", ".join(rec["aliases"]), code=True))
    facts.append(Fact("Backend", rec.get("backend") or "both"))
    if rec.get("conditional"):
        facts.append(Fact("Only", rec["conditional"]))
    return [*facts, where]


class FlagDirective(ManualDirective):
    """```{flag} --name``` documents a flag: its extracted facts and the author's text."""

    has_content = True
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        result = self.resolved_argument("flag")
        if result is None:
            return []
        capture = capture_of(self.env)
        records, canonical = result.value, result.extra["canonical"]
        on_page = self.env.current_document.setdefault("m101_flag_blocks", set())  # this page's, while it is read
        if canonical in on_page:
            return self.problem(Subtype.DUPLICATE, twice_on_page(canonical), ON_PAGE_FIX)  # --check's rule too
        on_page.add(canonical)
        anchor = flag_anchor(canonical)
        box = nodes.container(classes=["m101-flag-block"], ids=[anchor],
                              **{FLAG: (canonical, anchor), CITE: Cite("flag", canonical, documented=True)})
        box += nodes.paragraph("", "", nodes.literal(canonical, canonical, classes=["m101-flag-name"]))
        for rec in records:
            box += flag_facts("", facts=flag_fields(rec, capture))
        self.state.nested_parse(self.content, self.content_offset, box)  # the text, after the facts (no wrapper)
        return [box]


def check_flag_blocks(app: Sphinx, env: BuildEnvironment) -> None:
    """A flag is documented in one section only; a second block is a warning on the second page."""
    for name, first, other in domain_of(env).duplicate_flags():
        warn(Subtype.DUPLICATE, documented_in(name, first), location=(other, None), fix=ACROSS_FIX)


# -- how each builder writes a flag's facts -----------------------------------------------------
def visit_facts_html(self: Any, node: flag_facts) -> None:
    rows = "".join(f"<dt>{escape(f.label)}</dt><dd>{f.html()}</dd>" for f in node["facts"])
    self.body.append(f'<dl class="m101-flag-facts">{rows}</dl>\n')
    raise nodes.SkipNode


def visit_facts_text(self: Any, node: flag_facts) -> None:
    self.new_state(0)
    self.add_text("; ".join(f"{f.label}: {f.text}" for f in node["facts"]))
    self.end_state()
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


FACTS_VISITORS = {
    "html": (visit_facts_html, None),
    "text": (visit_facts_text, None),
    "latex": (visit_facts_latex, None),
    "man": (visit_facts_man, None),
    "texinfo": (visit_facts_texinfo, None),
}

ROLES = {"flag": FlagRole(), "default": DefaultRole(), "metric": MetricRole()}
DIRECTIVES = {"flag": FlagDirective}


def setup_flags(app: Sphinx) -> None:
    add_markup(app, ROLES, DIRECTIVES)
    app.add_node(flag_facts, **FACTS_VISITORS)
    app.connect("env-check-consistency", check_flag_blocks)
