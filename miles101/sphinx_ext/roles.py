"""Inline roles: flag, metric, src, measured, computed, fact, issue.

Each role resolves while the page is read, records the content hash of what it cites
(so the page is read again exactly when that changes), and on anything unknown emits a
`manual.*` warning with the page, the line and the nearest known names.
"""
from __future__ import annotations

import json
import re

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.util.docutils import SphinxRole

from ..capture import Value, format_value, suggest
from ..text import record_command
from .domain import capture_of, domain_of
from .messages import warn
from .elements import value_node

ISSUE = re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<n>[0-9]+)$")
SRC = re.compile(r"^(?P<path>[^:<>\s]+)(?::(?P<start>[0-9]+)(?:-(?P<end>[0-9]+))?)?$")
EXPLICIT = re.compile(r"^(?P<text>.+?)\s*<(?P<target>[^<>]+)>$", re.S)


class ManualRole(SphinxRole):
    """Shared helpers: dependency notes and warnings that count as page problems."""

    def note(self, kind: str, key: str) -> None:
        domain_of(self.env).note_dep(self.env.docname, kind, key, capture_of(self.env).fingerprint_of(kind, key))

    def problem(self, subtype: str, message: str, fix: str) -> tuple[list[nodes.Node], list]:
        warn(subtype, message, location=self.get_location(), fix=fix)
        domain_of(self.env).note_problem(self.env.docname)
        node = nodes.inline(self.rawtext, self.text, classes=["m101-unresolved"])
        return [node], []


class FlagRole(ManualRole):
    """`{flag}` --name: the flag as code, linked to where it is documented."""

    def run(self) -> tuple[list[nodes.Node], list]:
        name = self.text.strip()
        capture = capture_of(self.env)
        self.note("flag", name)
        records = capture.flag(name)
        if not records:
            hint = suggest(name, capture.flag_names) or " (no similar flag)."
            return self.problem(
                "unknown_flag", f"Miles has no flag {name!r} at commit {capture.provenance.get('commit', '?')[:9]}.{hint}",
                "use a flag from capture/miles/flags.json (R.1 lists them all) or re-run the extraction.",
            )
        canonical = records[0]["name"]
        literal = nodes.literal(name, name, classes=["m101-flag"])
        ref = pending_xref(self.rawtext, literal, refdomain="m101", reftype="flag", reftarget=name,
                           refdoc=self.env.docname, refexplicit=True, m101_canonical=canonical)
        domain_of(self.env).note_cite(self.env.docname, "flag", canonical)
        return [ref], []


class DefaultRole(ManualRole):
    """`{default}` --name: the flag's extracted default, as code (so prose never types it)."""

    def run(self) -> tuple[list[nodes.Node], list]:
        name = self.text.strip()
        capture = capture_of(self.env)
        self.note("default", name)
        records = capture.flag(name)
        if not records or records[0].get("passthrough"):
            return self.problem("unknown_flag", f"no extracted default for {name!r}.{suggest(name, capture.flag_names)}",
                                "name a Miles flag from capture/miles/flags.json.")
        defaults = {json.dumps(r.get("default")) for r in records if r.get("default_kind") != "computed"}
        if len(defaults) != 1 or records[0].get("default_kind") == "computed":
            return self.problem("bad_reference", f"{name} has no single static default "
                                f"({', '.join(sorted(defaults)) or 'computed at run time'}).",
                                "describe the default in words, or cite the flag block.")
        value = records[0].get("default")
        text = json.dumps(value) if not isinstance(value, str) else value
        return [nodes.literal(self.rawtext, text, classes=["m101-default"])], []


class MetricRole(ManualRole):
    """`{metric}` rollout/raw_reward: a metric key Miles logs, linked to R.2."""

    def run(self) -> tuple[list[nodes.Node], list]:
        key = self.text.strip()
        capture = capture_of(self.env)
        self.note("metric", key)
        rec = capture.metric(key)
        if rec is None:
            hint = suggest(key, sorted(capture.metrics)) or " (no similar key)."
            return self.problem(
                "unknown_metric", f"Miles logs no metric {key!r}.{hint}",
                "use a key from capture/miles/metrics.json (R.2 lists them all).",
            )
        literal = nodes.literal(key, key, classes=["m101-metric"])
        target = key if rec.get("kind") != "pattern" else rec["key"]
        ref = pending_xref(self.rawtext, literal, refdomain="m101", reftype="metric", reftarget=target,
                           refdoc=self.env.docname, refexplicit=True)
        domain_of(self.env).note_cite(self.env.docname, "metric", target)
        return [ref], []


class SrcRole(ManualRole):
    """`{src}` path[:line[-end]] or `text <path:line>`: a link into Miles at the captured commit."""

    def run(self) -> tuple[list[nodes.Node], list]:
        text, target = self.text, self.text
        explicit = EXPLICIT.match(self.text)
        if explicit:
            text, target = explicit["text"], explicit["target"]
        m = SRC.match(target.strip())
        if not m:
            return self.problem("bad_reference", f"cannot read {self.text!r} as a Miles source reference.",
                                "write `path`, `path:line`, `path:start-end`, or `text <path:line>`.")
        path = m["path"]
        start = int(m["start"]) if m["start"] else None
        end = int(m["end"]) if m["end"] else start
        capture = capture_of(self.env)
        self.note("src", path)
        why = capture.src_problem(path, start, end)
        if why:
            return self.problem("unknown_source", why, "check the path and lines at the captured commit "
                                "(capture/miles/files.json).")
        url = capture.src_url(path, start, end)
        child: nodes.Node = nodes.literal(text, text) if not explicit else nodes.Text(text)
        ref = nodes.reference(self.rawtext, "", child, refuri=url, classes=["m101-src"])
        domain_of(self.env).note_cite(self.env.docname, "src", path, line=start)
        return [ref], []


class IssueRole(ManualRole):
    """`{issue}` owner/repo#N: a link to the issue or pull request, collected for R.4."""

    def run(self) -> tuple[list[nodes.Node], list]:
        m = ISSUE.match(self.text.strip())
        if not m:
            return self.problem("bad_reference", f"cannot read {self.text!r} as an issue reference.",
                                "write owner/repo#N, e.g. radixark/miles#123.")
        url = f"https://github.com/{m['repo']}/issues/{m['n']}"
        ref = nodes.reference(self.rawtext, self.text.strip(), refuri=url, classes=["m101-issue"])
        domain_of(self.env).note_cite(self.env.docname, "issue", self.text.strip())
        return [ref], []


#: The manual's hardware: recordings from anything else are labelled as such.
HOME_HARDWARE = "GB10"


def provenance_text(value: Value, hardware_home: str) -> str:
    """Where a value comes from, in one sentence: the tooltip and the page's list of values."""
    d = value.detail
    if value.kind == "measured":
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
    return f"{value.what}. Source: {d.get('source')} (read {d.get('read')})."


class ValueRole(ManualRole):
    """`{measured}`, `{computed}` and `{fact}`: key[:format spec] → number and unit, with provenance."""

    kind = "measured"

    def run(self) -> tuple[list[nodes.Node], list]:
        key, _, spec = self.text.strip().partition(":")
        capture = capture_of(self.env)
        self.note(self.kind, key)
        value = capture.value(self.kind, key)
        if value is None:
            where = {"measured": "a run file's values (capture/runs/<run>.yaml)",
                     "computed": "capture/computed.json", "fact": "capture/facts.json",
                     "reference": "a file of capture/references/"}[self.kind]
            return self.problem("unknown_value", f"no {self.kind} value {key!r}.{suggest(key, capture.value_keys(self.kind))}",
                                f"declare it in {where}.")
        if self.kind == "reference" and value.detail.get("src"):
            why = capture.src_spec_problem(value.detail["src"])
            if why:
                return self.problem("unknown_source", f"reference {key!r} ({value.detail['file']}): {why}",
                                    "fix its src at the captured commit.")
        try:
            node = value_inline(self.env, value, spec, self.rawtext)
        except (ValueError, TypeError) as exc:
            return self.problem("bad_format", f"format spec {spec!r} does not fit {key!r} ({exc}).",
                                "use a Python format spec for numbers, e.g. .1f or ,.0f.")
        return [node], []


def value_inline(env, value, spec: str = "", rawtext: str = "") -> value_node:
    """The inline node of a cited value (a pending badge until recorded), noted as a citation of the page."""
    doc = domain_of(env)
    tip_id = f"m101-tip-{len(doc.record(env.docname)['cites'])}"
    if value.pending:
        shown, classes = "pending", ["m101-pending"]
    else:
        shown, classes = f"{format_value(value, spec)} {value.unit}".strip(), []
    doc.note_cite(env.docname, value.kind, value.key, shown=shown, tip_id=tip_id)
    source = None
    if value.kind == "reference":
        d = value.detail
        source = f"{d['label']}, {d['hardware']}" if d.get("hardware") else d["label"]
    return value_node(rawtext, kind=value.kind, text=shown, tip=provenance_text(value, HOME_HARDWARE), tip_id=tip_id,
                      classes=classes, source=source)


class MeasuredRole(ValueRole):
    kind = "measured"


class ComputedRole(ValueRole):
    kind = "computed"


class FactRole(ValueRole):
    kind = "fact"


class ReferenceRole(ValueRole):
    """`{reference}` key: someone else's number or a rule in code, labelled with its source and hardware."""

    kind = "reference"


class RunArgRole(ManualRole):
    """`{run-arg}` run-id --flag: the value a run file passes for a flag, so prose never retypes it."""

    def run(self) -> tuple[list[nodes.Node], list]:
        run_id, _, flag = self.text.strip().partition(" ")
        flag = flag.strip()
        if not flag.startswith("--"):
            return self.problem("bad_reference", f"cannot read {self.text!r} as a run file's flag.",
                                "write {run-arg}`<run-id> --flag`, e.g. {run-arg}`first-grpo --num-rollout`.")
        capture = capture_of(self.env)
        self.note("run", run_id)
        shown, why = capture.run_arg(run_id, flag)
        if shown is None:
            return self.problem("unknown_value", why, "name a flag that the run file passes with a value.")
        return [nodes.inline(self.rawtext, shown, classes=["m101-run-arg"])], []


ROLES = {
    "flag": FlagRole(), "default": DefaultRole(), "metric": MetricRole(), "src": SrcRole(), "issue": IssueRole(),
    "measured": MeasuredRole(), "computed": ComputedRole(), "fact": FactRole(), "reference": ReferenceRole(),
    "run-arg": RunArgRole(),
}
