"""One resolver for every reference a page makes: `resolve(capture, kind, text) -> Resolved | Problem`.

The Sphinx roles and directives render what it returns; `capture/run.py --check` reports the
problems it returns for the same page text, so the build and the check cannot disagree.
`kind` is a role name (flag, default, metric, src, measured, computed, fact, reference, threshold,
crosscheck, issue, run-arg) or `run`
(the run a `{listing}` or `{run-command}` names); `text` is the role's text as written.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .data import Capture, Value, suggest
from .kinds import BY_NAME, VALUE_KINDS, format_value
from .pages import EXPLICIT, role_key
from .problems import Problem, Subtype

ISSUE = re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<n>[0-9]+)$")
SRC = re.compile(r"^(?P<path>[^:<>\s]+)(?::(?P<start>[0-9]+)(?:-(?P<end>[0-9]+))?)?$")
SRC_FIX = "check the path and lines at the captured commit (capture/miles/files.json)."


@dataclass(frozen=True)
class Resolved:
    """What a reference names: `key` is what it depends on (the dependency key), `value` the record."""

    kind: str
    key: str
    value: Any
    extra: dict[str, Any] = field(default_factory=dict)


def dependency(kind: str, text: str) -> tuple[str, str]:
    """(kind, key) whose content hash decides whether a page citing `kind:text` must be read again."""
    key = role_key(kind, text)
    if kind == "run-arg":
        return "run", key.partition(" ")[0]
    return kind, key


def resolve(capture: Capture, kind: str, text: str) -> Resolved | Problem:
    """Resolve one reference; never raises for bad page text."""
    return _RESOLVERS[kind](capture, text.strip())


def _flag(capture: Capture, name: str) -> Resolved | Problem:
    records = capture.flag(name)
    if not records:
        hint = suggest(name, capture.flag_names) or " (no similar flag)."
        return Problem(Subtype.UNKNOWN_FLAG,
                       f"Miles has no flag {name!r} at commit {capture.provenance.get('commit', '?')[:9]}.{hint}",
                       "use a flag from capture/miles/flags.json (R.1 lists them all) or re-run the extraction.")
    return Resolved("flag", name, records, {"canonical": records[0]["name"]})


def _default(capture: Capture, name: str) -> Resolved | Problem:
    records = capture.flag(name)
    if not records or records[0].get("passthrough"):
        return Problem(Subtype.UNKNOWN_FLAG, f"no extracted default for {name!r}.{suggest(name, capture.flag_names)}",
                       "name a Miles flag from capture/miles/flags.json.")
    defaults = {json.dumps(r.get("default")) for r in records if r.get("default_kind") != "computed"}
    if len(defaults) != 1 or records[0].get("default_kind") == "computed":
        return Problem(Subtype.BAD_REFERENCE, f"{name} has no single static default "
                       f"({', '.join(sorted(defaults)) or 'computed at run time'}).",
                       "describe the default in words, or cite the flag block.")
    value = records[0].get("default")
    return Resolved("default", name, value, {"text": value if isinstance(value, str) else json.dumps(value)})


def _metric(capture: Capture, key: str) -> Resolved | Problem:
    rec = capture.metric(key)
    if rec is None:
        hint = suggest(key, sorted(capture.metrics)) or " (no similar key)."
        return Problem(Subtype.UNKNOWN_METRIC, f"Miles logs no metric {key!r}.{hint}",
                       "use a key from capture/miles/metrics.json (R.2 lists them all).")
    return Resolved("metric", key, rec, {"target": key if rec.get("kind") != "pattern" else rec["key"]})


def _src(capture: Capture, text: str) -> Resolved | Problem:
    shown, target = text, text
    explicit = EXPLICIT.match(text)
    if explicit:
        shown, target = explicit["text"], explicit["target"]
    m = SRC.match(target.strip())
    if not m:
        return Problem(Subtype.BAD_REFERENCE, f"cannot read {text!r} as a Miles source reference.",
                       "write `path`, `path:line`, `path:start-end`, or `text <path:line>`.")
    path = m["path"]
    start = int(m["start"]) if m["start"] else None
    end = int(m["end"]) if m["end"] else start
    why = capture.src_problem(path, start, end)
    if why:
        return Problem(Subtype.UNKNOWN_SOURCE, why, SRC_FIX)
    return Resolved("src", path, {"path": path, "start": start, "end": end},
                    {"text": shown, "explicit": bool(explicit), "url": capture.src_url(path, start, end)})


def _issue(capture: Capture, text: str) -> Resolved | Problem:
    m = ISSUE.match(text)
    if not m:
        return Problem(Subtype.BAD_REFERENCE, f"cannot read {text!r} as an issue reference.",
                       "write owner/repo#N, e.g. radixark/miles#123.")
    return Resolved("issue", text, (m["repo"], int(m["n"])),
                    {"url": f"https://github.com/{m['repo']}/issues/{m['n']}"})


def _fits(spec: str, number: float | int) -> bool:
    """Whether a Python format spec formats `number`."""
    try:
        format(number, spec)
    except (ValueError, TypeError):
        return False
    return True


def _value(kind: str):
    def resolve_value(capture: Capture, text: str) -> Resolved | Problem:
        key, _, spec = text.partition(":")
        value: Value | None = capture.value(kind, key)
        if value is None:
            other = BY_NAME[kind].twin  # a record of capture/references/ is either kind: the other role is a clear error
            if other and capture.value(other, key) is not None:
                return Problem(Subtype.BAD_REFERENCE, f"{key!r} is {BY_NAME[other].words}, not {BY_NAME[kind].words}.",
                               f"cite it as {{{other}}}`{text}`, or change its \"kind\" in "
                               f"{capture.value(other, key).detail['file']}.")
            return Problem(Subtype.UNKNOWN_VALUE, f"no {kind} value {key!r}.{suggest(key, capture.value_keys(kind))}",
                           f"declare it in {BY_NAME[kind].home}.")
        if BY_NAME[kind].record_kind and value.detail.get("src"):
            why = capture.src_spec_problem(value.detail["src"])
            if why:
                return Problem(Subtype.UNKNOWN_SOURCE, f"reference {key!r} ({value.detail['file']}): {why}",
                               "fix its src at the captured commit.")
        if value.pending:  # the spec must fit the number the recording will give (a float or a count)
            if spec and not any(_fits(spec, n) for n in (1.0, 1)):
                return Problem(Subtype.BAD_FORMAT, f"format spec {spec!r} fits no number, so {key!r} could not be "
                                                   "shown once recorded.",
                               "use a Python format spec for numbers, e.g. .1f or ,.0f.")
            return Resolved(kind, key, value, {"shown": "pending", "spec": spec})
        try:
            shown = f"{format_value(value, spec)} {value.unit}".strip()
        except (ValueError, TypeError) as exc:
            return Problem(Subtype.BAD_FORMAT, f"format spec {spec!r} does not fit {key!r} ({exc}).",
                           "use a Python format spec for numbers, e.g. .1f or ,.0f.")
        return Resolved(kind, key, value, {"shown": shown, "spec": spec})
    return resolve_value


def _run(capture: Capture, run_id: str) -> Resolved | Problem:
    run = capture.runs.get(run_id)
    if run is None:
        return Problem(Subtype.UNKNOWN_VALUE, f"no run {run_id!r} is declared.{suggest(run_id, list(capture.runs))}",
                       "add capture/runs/<run>.yaml.")
    return Resolved("run", run_id, run, {"recording": capture.recordings.get(run_id)})


def _run_arg(capture: Capture, text: str) -> Resolved | Problem:
    run_id, _, flag = text.partition(" ")
    flag = flag.strip()
    if not flag.startswith("--"):
        return Problem(Subtype.BAD_REFERENCE, f"cannot read {text!r} as a run file's flag.",
                       "write {run-arg}`<run-id> --flag`, e.g. {run-arg}`first-grpo --num-rollout`.")
    shown, why = capture.run_arg(run_id, flag)
    if shown is None:
        return Problem(Subtype.UNKNOWN_VALUE, why, "name a flag that the run file passes with a value.")
    return Resolved("run-arg", text, shown, {"run": run_id, "flag": flag})


def _series(capture: Capture, series_id: str) -> Resolved | Problem:
    doc = capture.series.get(series_id)
    if not doc:
        return Problem(Subtype.UNKNOWN_VALUE, f"no public series {series_id!r}.{suggest(series_id, list(capture.series))}",
                       f"extract it into {BY_NAME['series'].home}.")
    return Resolved("series", series_id, doc, {"url": (doc.get("source") or {}).get("url")})


_RESOLVERS = {"flag": _flag, "default": _default, "metric": _metric, "src": _src, "issue": _issue, "run": _run, "run-arg": _run_arg,
              "series": _series,
              **{kind: _value(kind) for kind in VALUE_KINDS}}
KINDS = tuple(_RESOLVERS)
