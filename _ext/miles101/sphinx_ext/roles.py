"""Inline roles: flag, default, metric, src, measured, computed, fact, reference, threshold, crosscheck, issue, run-arg.

Each role resolves while the page is read, records the content hash of what it cites
(so the page is read again exactly when that changes), and on anything unknown emits a
`manual.*` warning with the page, the line and the nearest known names.
"""
from __future__ import annotations

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.util.docutils import SphinxRole

from ..capture import Value, format_value
from ..problems import Problem, broken_sources
from ..resolve import Resolved, dependency, resolve
from ..text import record_command
from .domain import capture_of, domain_of
from .messages import warn_problem
from .elements import value_node



class ManualRole(SphinxRole):
    """Resolve the role's text with the core resolver; render the result or report the problem."""

    kind = ""

    def run(self) -> tuple[list[nodes.Node], list]:
        capture = capture_of(self.env)
        if self.kind != "issue":
            self.note(*dependency(self.kind, self.text))
        result = resolve(capture, self.kind, self.text)
        if isinstance(result, Problem):
            return self.problem(result)
        return self.render(result), []

    def render(self, result: Resolved) -> list[nodes.Node]:
        raise NotImplementedError

    def note(self, kind: str, key: str) -> None:
        domain_of(self.env).note_dep(self.env.docname, kind, key, capture_of(self.env).fingerprint_of(kind, key))

    def problem(self, problem: Problem) -> tuple[list[nodes.Node], list]:
        if self.kind not in broken_sources(capture_of(self.env)):  # else a follow-on: the broken file is named once
            warn_problem(problem, location=self.get_location())
        domain_of(self.env).note_problem(self.env.docname)
        node = nodes.inline(self.rawtext, self.text, classes=["m101-unresolved"])
        return [node], []


class FlagRole(ManualRole):
    """`{flag}` --name: the flag as code, linked to where it is documented."""

    kind = "flag"

    def render(self, result: Resolved) -> list[nodes.Node]:
        name, canonical = result.key, result.extra["canonical"]
        literal = nodes.literal(name, name, classes=["m101-flag"])
        ref = pending_xref(self.rawtext, literal, refdomain="m101", reftype="flag", reftarget=name,
                           refdoc=self.env.docname, refexplicit=True, m101_canonical=canonical)
        domain_of(self.env).note_cite(self.env.docname, "flag", canonical)
        return [ref]


class DefaultRole(ManualRole):
    """`{default}` --name: the flag's extracted default, as code (so prose never types it)."""

    kind = "default"

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [nodes.literal(self.rawtext, result.extra["text"], classes=["m101-default"])]


class MetricRole(ManualRole):
    """`{metric}` rollout/raw_reward: a metric key Miles logs, linked to R.2."""

    kind = "metric"

    def render(self, result: Resolved) -> list[nodes.Node]:
        key, target = result.key, result.extra["target"]
        literal = nodes.literal(key, key, classes=["m101-metric"])
        ref = pending_xref(self.rawtext, literal, refdomain="m101", reftype="metric", reftarget=target,
                           refdoc=self.env.docname, refexplicit=True)
        domain_of(self.env).note_cite(self.env.docname, "metric", target)
        return [ref]


class SrcRole(ManualRole):
    """`{src}` path[:line[-end]] or `text <path:line>`: a link into Miles at the captured commit."""

    kind = "src"

    def render(self, result: Resolved) -> list[nodes.Node]:
        text = result.extra["text"]
        child: nodes.Node = nodes.Text(text) if result.extra["explicit"] else nodes.literal(text, text)
        ref = nodes.reference(self.rawtext, "", child, refuri=result.extra["url"], classes=["m101-src"])
        domain_of(self.env).note_cite(self.env.docname, "src", result.key, line=result.value["start"])
        return [ref]


class IssueRole(ManualRole):
    """`{issue}` owner/repo#N: a link to the issue or pull request, collected for R.4."""

    kind = "issue"

    def render(self, result: Resolved) -> list[nodes.Node]:
        ref = nodes.reference(self.rawtext, result.key, refuri=result.extra["url"], classes=["m101-issue"])
        domain_of(self.env).note_cite(self.env.docname, "issue", result.key)
        return [ref]


#: The manual's hardware: recordings from anything else are labelled as such.
HOME_HARDWARE = "GB10"


def provenance_text(value: Value, hardware_home: str) -> str:
    """Where a value comes from, in one sentence: the tooltip and the page's list of values."""
    d = value.detail
    if value.kind == "measured":
        if value.missing:
            return (f"Not derivable: the run {d['run']!r} is recorded (on {d.get('hardware') or 'unknown hardware'}), "
                    f"but its recording gives no {d.get('statistic') or 'value'} of {d.get('source') or value.what}: "
                    f"{value.missing}. Record it again once the cause is fixed "
                    f"({record_command(d['run'])} --force); R.3 Lab notes lists the run.")
        if value.pending:
            return (f"Pending: the run {d['run']!r} has not been recorded on a DGX Spark yet. "
                    f"When it is, this shows the {d.get('statistic') or 'value'} of {d.get('source') or value.what}. "
                    f"To record it: {record_command(d['run'])} (on the Spark). "
                    "R.3 Lab notes lists every pending run.")
        hw = d.get("hardware") or "unknown hardware"
        label = "" if hardware_home in str(hw) else " (not the manual's hardware)"
        return (f"{value.what}: {d.get('statistic')} of {d.get('n')} samples, steps {d.get('steps') or 'all'}. "
                f"Run {d['run']} on {hw}{label}, Miles {str(d.get('commit'))[:9]}, image {d.get('image')}, {d.get('date')}.")
    if value.kind == "computed":
        return f"{value.what}. Computed by {d.get('formula')} from Miles's extracted data."
    if value.kind == "reference":
        where = f"measured on {d['hardware']}" if d.get("hardware") else "a rule, not a measurement"
        return (f"Public reference, not this manual's GB10 measurement. {value.what} "
                f"({d.get('label')}; {where}; {d.get('setting')}). "
                f"Source: {d.get('source_title') or d.get('source')}, {d.get('source')} (read {d.get('read')}).")
    if value.kind == "threshold":
        return (f"Our threshold: a cut-off this manual sets itself, not a published number and not a measurement. "
                f"{value.what} Why this number: {d.get('reasoning')} "
                f"Used by {d.get('label')}; {d.get('setting')}. Source: {d.get('source_title') or d.get('source')}, "
                f"{d.get('source')} (read {d.get('read')}).")
    if value.kind == "crosscheck":
        return (f"Cross-check on another GPU, not this manual's GB10 recording. {value.what}: read from PyTorch's "
                f"allocator on an {d['gpu']} (torch {d.get('torch')}, CUDA {d.get('cuda')}, transformers "
                f"{d.get('transformers')}), {d.get('date')}, one GPU, {d.get('tokens')} tokens per step, the model built "
                f"as Miles's FSDP backend builds it. {d.get('optimizer_note')} Program: python3 -m capture.crosscheck; "
                f"results: {d['file']}.").replace("  ", " ")
    return f"{value.what}. Source: {d.get('source')} (read {d.get('read')})."


class ValueRole(ManualRole):
    """`{measured}`, `{computed}`, `{fact}`, `{reference}`, `{threshold}`, `{crosscheck}`: key[:spec] → number and unit, with provenance."""

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [value_inline(self.env, result.value, result.extra["spec"], self.rawtext)]


def value_inline(env, value, spec: str = "", rawtext: str = "") -> value_node:
    """The inline node of a cited value (a pending badge until recorded), noted as a citation of the page.

    A public reference, our threshold or a cross-check carries its tag and source inline, beside the number.
    """
    doc = domain_of(env)
    tip_id = f"m101-tip-{len(doc.record(env.docname)['cites'])}"
    if value.missing:
        shown, classes = "not derivable", ["m101-pending", "m101-missing"]
    elif value.pending:
        shown, classes = "pending", ["m101-pending"]
    else:
        shown, classes = f"{format_value(value, spec)} {value.unit}".strip(), []
    doc.note_cite(env.docname, value.kind, value.key, shown=shown, tip_id=tip_id)
    source = tag = None
    d = value.detail
    if value.kind == "reference":
        tag, source = "public ref", f"{d['label']}, {d['hardware']}" if d.get("hardware") else d["label"]
    elif value.kind == "threshold":
        tag, source = "our threshold", d["label"]
    elif value.kind == "crosscheck":
        tag, source = "cross-check", f"{d['gpu']}, not a GB10"
    return value_node(rawtext, kind=value.kind, text=shown, tip=provenance_text(value, HOME_HARDWARE), tip_id=tip_id,
                      classes=classes, source=source, tag=tag, run=d.get("run") if value.kind == "measured" else None)


class MeasuredRole(ValueRole):
    kind = "measured"


class ComputedRole(ValueRole):
    kind = "computed"


class FactRole(ValueRole):
    kind = "fact"


class ReferenceRole(ValueRole):
    """`{reference}` key: someone else's number or a rule in code, labelled with its source and hardware."""

    kind = "reference"


class ThresholdRole(ValueRole):
    """`{threshold}` key: a cut-off this book sets itself, tagged as ours, with its reasoning on hover."""

    kind = "threshold"


class CrosscheckRole(ValueRole):
    """`{crosscheck}` host.model.field: our program's reading on another GPU, labelled with that GPU."""

    kind = "crosscheck"


class RunArgRole(ManualRole):
    """`{run-arg}` run-id --flag: the value a run file passes for a flag, so prose never retypes it."""

    kind = "run-arg"

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [nodes.inline(self.rawtext, result.value, classes=["m101-run-arg"])]


ROLES = {
    "flag": FlagRole(), "default": DefaultRole(), "metric": MetricRole(), "src": SrcRole(), "issue": IssueRole(),
    "measured": MeasuredRole(), "computed": ComputedRole(), "fact": FactRole(), "reference": ReferenceRole(),
    "threshold": ThresholdRole(), "crosscheck": CrosscheckRole(),
    "run-arg": RunArgRole(),
}


def setup_roles(app) -> None:
    for name, role in ROLES.items():
        app.add_role(name, role)
