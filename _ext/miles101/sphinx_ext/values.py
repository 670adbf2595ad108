"""Values: every number a page shows, cited from the capture with where it comes from.

- `{measured}`, `{computed}`, `{fact}`, `{reference}`, `{threshold}`, `{crosscheck}` key[:spec]: the
  number and its unit, a `value_node` whose provenance is reachable by hover and keyboard focus (a
  pending badge until its run is recorded). Someone else's number carries its tag and source inline.
  On the web a value is one link (two with a tag) to its entry in the page's list of values, its
  provenance sentence in `title`; `miles101.js` shows that sentence in one shared tip on hover and focus.
- the list that ends every page citing values ("Values on this page"), grouped by source;
- ```{crosscheck-table} host```: a host's cross-check beside the computed trainer state, labelled
  with its GPU; the page is read again when either changes.
"""
from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from ..crosscheck_results import uncovered_models
from ..kinds import BY_NAME, HOME_HARDWARE, VALUE_KINDS, format_value, provenance_text
from ..pages import scan_text
from ..problems import Subtype
from ..resolve import Resolved
from .base import ManualDirective, ResolvedRole, add_markup
from .domain import CITE, Cite, capture_of, domain_of, page_cites
from .folds import make_fold
from .repository import repository_url
from .runs import pending_runs


class value_node(nodes.General, nodes.Inline, nodes.Element):
    """A cited value: `text` shown; its `Cite` (under `CITE`) holds the provenance sentence and the id of
    its entry in "Values on this page"."""

class ValueRole(ResolvedRole):
    """The role of a kind of value (`{measured}`, `{computed}`, `{fact}`, `{reference}`, `{threshold}`,
    `{crosscheck}`: one for each value kind of `miles101.kinds`): key[:spec] → number and unit, with provenance.
    What tells the kinds apart (tag, inline source, the sentence on hover) is the kind's row."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [value_inline(result.value, result.extra["spec"], self.rawtext, result.extra["shown"])]


def value_inline(value, spec: str = "", rawtext: str = "", shown: str | None = None) -> value_node:
    """The inline node of a cited value (a pending badge until recorded), which the page cites.

    A public reference, our threshold or a cross-check carries its tag and source inline, beside the number.
    The id of its entry in the page's list comes once the page is parsed (`TipIds`). `shown`: the number as the
    resolver formatted it (`miles101.resolve`), so a cited value is formatted once; its provenance sentence is
    built once here, kept in its `Cite`, and read again by the list and the writers.
    """
    if value.missing:
        shown, classes = "not derivable", ["m101-pending", "m101-missing"]
    elif value.pending:
        shown, classes = "pending", ["m101-pending"]
    else:
        shown, classes = shown if shown is not None else f"{format_value(value, spec)} {value.unit}".strip(), []
    row, d = BY_NAME[value.kind], value.detail
    tag, source = row.tag, row.inline_source(d) if row.inline_source else None
    return value_node(rawtext, kind=value.kind, text=shown, classes=classes, source=source, tag=tag,
                      run=d.get("run") if value.kind == "measured" else None,
                      **{CITE: Cite(value.kind, value.key, shown=shown,
                                    provenance=provenance_text(value, HOME_HARDWARE))})


class TipIds(SphinxTransform):
    """Each value's link target: the id of its entry in "Values on this page", one per value the page cites
    (`m101-v-` and its place among the page's distinct values, in document order; a value cited twice links
    to one entry). Before the m101 domain collects the page's cites, at 850."""

    default_priority = 845

    def apply(self, **kwargs) -> None:
        ids: dict[tuple[str, str], str] = {}
        for node, cite in page_cites(self.document):
            if isinstance(node, value_node):
                tip_id = ids.setdefault((cite.kind, cite.key), f"m101-v-{len(ids)}")
                node[CITE] = replace(cite, tip_id=tip_id)


# -- the page's list of values -----------------------------------------------------------------
#: What a page cites that is not a value (a name or a link): every other kind is listed with its source.
NOT_VALUES = frozenset({"flag", "metric", "src", "issue"})


class ValuesOnPage(SphinxTransform):
    """End every page that cites values with a list of them and where each comes from."""

    default_priority = 880

    def apply(self, **kwargs) -> None:
        if not self.env.docname:
            return
        cites = [c for c in domain_of(self.env).record(self.env.docname)["cites"]
                 if c.kind not in NOT_VALUES]
        if not cites:
            return
        capture = capture_of(self.env)
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None:
            return
        section = nodes.section(ids=["values-on-this-page"], classes=["m101-values-list"])
        section += nodes.title("", "Values on this page")
        # The list folds (a closed <details> on the web, shown open in the EPUB and PDF: folds.OpenFolds),
        # so it does not lengthen the page a reader scrolls.
        fold = make_fold([nodes.Text("Each value on this page and where it comes from")], classes=["m101-values-fold"])
        section += fold
        # One entry per value, from the cite that carries its link target and provenance (a value cell of a
        # table cites its value without either).
        first: dict[tuple[str, str], Cite] = {}
        for cite in cites:
            had = first.get((cite.kind, cite.key))
            if had is None or (had.tip_id is None and cite.tip_id is not None):
                first[(cite.kind, cite.key)] = cite
        values = []
        for cite in first.values():
            value = capture.value(cite.kind, cite.key)
            if value is not None:
                values.append((cite, value))
        fold += pending_runs(capture, [v for _, v in values if v.kind == "measured" and v.pending],
                                repository_url(self.config))
        groups: dict[str, nodes.bullet_list] = {}
        for cite, value in values:  # one list per source: a run, a formula; the rest each name their own
            head, para = ledger_row(capture, cite, value)
            item = nodes.list_item("", para, ids=[cite.tip_id] if cite.tip_id else [])
            groups.setdefault(head, nodes.bullet_list()).append(item)
        for head, items in groups.items():
            fold += nodes.paragraph("", head, classes=["m101-values-source"])
            fold += items
        top += section


def _run_named(capture, run_id: str) -> str:
    """A run as a reader meets it: its id (what `record` takes) and its title from the run file."""
    title = (capture.runs.get(run_id) or {}).get("title")
    return f"{run_id} ({title})" if title else run_id


def ledger_row(capture, cite: Cite, value) -> tuple[str, nodes.paragraph]:
    """One row of "Values on this page" in reader words (no internal key), and the heading of its group. The row is
    Sphinx's compact paragraph: on the web its text sits in the list item itself (no <p>, one element a value)."""
    d, para = value.detail, addnodes.compact_paragraph()
    if value.kind == "measured" and (value.missing or value.pending):
        state = "recorded, not derivable from its recording" if value.missing else "pending"
        head = f"Measured by the run {_run_named(capture, d['run'])}, {state}:"
        para += nodes.Text(f"{value.what} — ")
        if value.missing:
            para += nodes.Text(f"{value.missing}.")
        else:
            para += nodes.Text(f"the {d.get('statistic') or 'value'} of ")
            para += nodes.literal("", d.get("source") or value.key, classes=["m101-value-source"])
            para += nodes.Text(".")
        return head, para
    if value.kind == "computed":
        para += nodes.Text(f"{value.what}: {cite.shown}.")
        return f"Computed from Miles's extracted data by this book's code ({d.get('formula')}):", para
    para += nodes.Text(f"{cite.shown} — {cite.provenance or provenance_text(value, HOME_HARDWARE)}")
    return "Other values, each with its source:", para


# -- a host's cross-check -------------------------------------------------------------------------
COLUMNS = (
    ("Model", None),
    ("Parameters (equal to computed)", "params"),
    ("Held after the step", "held"),
    ("Trainer state, computed", "computed"),
    ("Held ÷ computed", "held_ratio"),
    ("Peak, forward and backward", "peak"),
    ("… with checkpointing", "peak_ckpt"),
    ("Peak of the optimizer step", "step_peak"),
)
FORMATS = {"params": ",", "held": ".1f", "held_ratio": ".3f", "peak": ".1f", "peak_ckpt": ".1f", "step_peak": ".1f",
           "computed": ".1f"}


class CrosscheckTableDirective(ManualDirective):
    """```{crosscheck-table} host```: every cell a cited value of the host's results or computed.json."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        host = self.arguments[0].strip()
        capture = capture_of(self.env)
        keys = capture.value_keys("crosscheck")
        for key in keys:
            self.note("crosscheck", key)
        models = sorted({k.split(".", 1)[1].rsplit(".", 1)[0] for k in keys if k.startswith(host + ".")},
                        key=lambda m: capture.value("crosscheck", f"{host}.{m}.params").value)
        if not models:
            hosts = sorted({k.split(".", 1)[0] for k in keys})
            return self.problem(Subtype.UNKNOWN_VALUE, f"no cross-check results for host {host!r} (have: {', '.join(hosts) or 'none'}).",
                                "run `python3 -m capture.crosscheck` on that host (README: the cross-check).")
        first = capture.value("crosscheck", f"{host}.{models[0]}.params").detail
        intro = nodes.paragraph(classes=["m101-crosscheck-intro"])
        intro += nodes.strong("", f"Checked with PyTorch's allocator on an {first['gpu']}, not a GB10.")
        versions = ", ".join(f"{name} {first[name]}" for name in ("torch", "transformers") if first.get(name))
        days = sorted({str(capture.value("crosscheck", f"{host}.{m}.params").detail.get("date")) for m in models})
        intro += nodes.Text(f" {days[0] if len(days) == 1 else days[0] + ' to ' + days[-1]}, one GPU, {first.get('tokens')} tokens per step, {versions}; "
                            f"random weights in Miles's FSDP set-up; sizes in GiB. Data: {first['file']}, "
                            "made by python3 -m capture.crosscheck and held against capture/computed.json by --check.")
        table = nodes.table(classes=["m101-crosscheck-table"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        group.extend(nodes.colspec(colwidth=1) for _ in COLUMNS)
        head = nodes.thead()
        head += nodes.row("", *(nodes.entry("", nodes.paragraph("", title)) for title, _ in COLUMNS))
        group += head
        body = nodes.tbody()
        for model in models:
            row = nodes.row()
            row += nodes.entry("", nodes.paragraph("", "", nodes.literal("", model)))
            for _, field in COLUMNS[1:]:
                kind, key = (("computed", f"trainer_state.{model}") if field == "computed"
                             else ("crosscheck", f"{host}.{model}.{field}"))
                value = capture.value(kind, key)
                cell = nodes.paragraph()
                if value is not None:
                    self.note(kind, key)
                    spec = FORMATS[field]
                    # plain numbers: the heading carries the provenance once (a tooltip per cell would
                    # repeat it 77 times); the dependency above still re-reads the page on any change
                    shown = f"{format_value(value, spec)} {value.unit}".strip()
                    cell += nodes.inline(shown, shown, classes=["m101-value-cell"])  # a cited value, in every edition
                else:
                    cell += nodes.Text("—")
                row += nodes.entry("", cell)
            body += row
        group += body
        return [intro, table]


class CrosscheckUncoveredDirective(ManualDirective):
    """```{crosscheck-uncovered}```: one sentence naming the models this page cites computed values of that no
    cross-check covers (`miles101.crosscheck_results.uncovered_models`, the rule `--check`'s note applies)."""

    def run(self) -> list[nodes.Node]:
        capture = capture_of(self.env)
        source = self.state.document.current_source or ""
        try:
            with open(source, encoding="utf-8") as handle:
                refs = scan_text(handle.read(), self.env.docname)
        except OSError:
            refs = []
        for key in capture.value_keys("crosscheck"):
            self.note("crosscheck", key)  # the sentence changes with the results: re-read the page then
        models = uncovered_models([r.key for r in refs if r.kind == "computed"],
                                  lambda m: capture.value("computed", f"params.{m}") is not None,
                                  capture.crosschecks)
        para = nodes.paragraph(classes=["m101-crosscheck-uncovered"])
        if not models:
            para += nodes.Text("A cross-check covers the parameter count of every model whose computed values "
                               "this page cites.")
            return [para]
        para += nodes.Text("No cross-check covers ")
        for i, model in enumerate(models):
            if i:
                para += nodes.Text(" and " if i == len(models) - 1 else ", ")
            para += nodes.literal("", model)
        one = len(models) == 1
        para += nodes.Text(f": {'its numbers rest' if one else 'their numbers rest'} on the extraction from Miles "
                           "alone, and ")
        para += nodes.literal("", "--check")
        para += nodes.Text(f" names {'it' if one else 'them'} as not cross-checked.")
        return [para]


# -- how each builder writes a value ----------------------------------------------------------------
def visit_value_html(self: Any, node: value_node) -> None:
    """One element, two with a kind's tag: the tag, the number and its inline source as text, so the kind
    reads without colour and without the stylesheet. On the web it is a link to its entry in "Values on
    this page" with its provenance sentence as `title` (the browser's tip and the accessible description;
    `miles101.js` shows it on hover and keyboard focus in one shared tip)."""
    cite = node[CITE]
    classes = " ".join(["m101-value", f"m101-{node['kind']}", *node.get("classes", [])])
    source, tag = node.get("source"), node.get("tag")
    label = f'<span class="m101-ref-tag">{escape(tag)}</span> ' if tag else ""
    text = label + escape(node["text"]) + (f" ({escape(source)})" if source else "")
    if self.builder.name.startswith("epub"):
        # No tip in an e-book (a reader that drops the CSS would show it mid-sentence): the
        # page's closing list, "Values on this page", says where each value comes from.
        self.body.append(f'<span class="{classes}">{text}</span>')
        raise nodes.SkipNode
    self.body.append(f'<a class="{classes}" href="#{cite.tip_id}" title="{escape(cite.provenance or "")}">{text}</a>')
    raise nodes.SkipNode


#: How the short tag of a value that is not ours reads in running text (the kinds table's `tag_text`).
TAG_TEXT = {k.tag: k.tag_text for k in BY_NAME.values() if k.tag and k.tag_text}


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


VALUE_VISITORS = {
    "html": (visit_value_html, None),
    "text": (visit_value_text, None),
    "latex": (visit_value_latex, None),
    "man": (visit_value_man, None),
    "texinfo": (visit_value_texinfo, None),
}


#: One role for each kind of value in the kinds table: a new kind needs no line here.
ROLES = {kind: ValueRole(kind) for kind in VALUE_KINDS}
DIRECTIVES = {"crosscheck-table": CrosscheckTableDirective, "crosscheck-uncovered": CrosscheckUncoveredDirective}


def setup_values(app: Sphinx) -> None:
    add_markup(app, ROLES, DIRECTIVES)
    app.add_node(value_node, **VALUE_VISITORS)
    app.add_transform(TipIds)
    app.add_transform(ValuesOnPage)
