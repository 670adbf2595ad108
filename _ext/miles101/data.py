"""The capture's model: flags, metrics, files, computed values, facts, runs, as pages cite them.

No Sphinx imports, and no reading: `miles101.intake` reads capture/ once, checks it and builds this
model; the build, `capture/run.py --check` and the lab call it. Every lookup returns the record a
page cites, and `fingerprint` gives a content hash of that record, which is what decides whether a
page must be read again (timestamps are never trusted).
"""
from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problem

GITHUB = "https://github.com/radixark/miles"


def suggest(name: str, known: list[str], n: int = 3) -> str:
    """A 'did you mean' clause for an unknown name, or ''."""
    close = difflib.get_close_matches(name, known, n=n, cutoff=0.6)
    return f" Did you mean {', '.join(close)}?" if close else ""


def fingerprint(obj: Any) -> str:
    """A short content hash of any JSON-able value."""
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]




@dataclass
class Value:
    """A number a page can cite: measured (maybe pending), computed, fact, a public reference, our threshold or a cross-check."""
    kind: str  # a value kind of the kinds table (miles101.kinds.VALUE_KINDS): measured, computed, fact, ...
    key: str
    value: float | int | None  # None = pending
    unit: str
    what: str
    detail: dict[str, Any] = field(default_factory=dict)  # provenance, statistic, source ...

    @property
    def pending(self) -> bool:
        """No number yet: the run is not recorded, or its recording could not give this value (`missing`)."""
        return self.kind == "measured" and self.value is None

    @property
    def missing(self) -> str | None:
        """Why a recorded run gives no number for this value (values.json's `missing`), or None."""
        return self.detail.get("missing") if self.pending else None


@dataclass
class Capture:
    """Everything under capture/ that pages may cite."""
    root: Path
    provenance: dict[str, Any]
    flags: dict[str, list[dict]]  # every option string (name and aliases) → its records
    flag_names: list[str]
    families: list[dict]
    metrics: dict[str, dict]
    metric_patterns: list[tuple[re.Pattern[str], dict]]
    files: dict[str, int]
    values: dict[tuple[str, str], Value]
    runs: dict[str, dict]
    recordings: dict[str, dict]
    attempts: list[dict]
    problems: list[Problem]
    #: Each host's cross-check results (capture/crosscheck/results/<host>.json), less what their schema refuses.
    crosschecks: dict[str, dict] = field(default_factory=dict)
    #: Public per-step series (capture/series/<id>.json, the `series` kind), less what their schema refuses.
    series: dict[str, dict] = field(default_factory=dict)
    #: What the model was built from (miles101.intake.input_sums): each input file's path → the sha256 of its bytes
    #: (None: missing), and "code" → the code digest. Empty for a model built otherwise.
    sources: dict[str, str | None] = field(default_factory=dict, repr=False, compare=False)
    #: The capture files the validation of this intake found clean: path → the sha256 of the bytes it checked (set by
    #: miles101.intake.take_in; a reader of such a file's same bytes needs no validator of its own).
    clean: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: fingerprint_of's answers: the capture never changes once loaded, so each is hashed once a build.
    _fingerprints: dict[tuple[str, str], str] = field(default_factory=dict, repr=False, compare=False)

    # -- lookups -----------------------------------------------------------------
    def flag(self, name: str) -> list[dict] | None:
        """The records of a Miles flag (by any of its option strings), or None."""
        if name in self.flags:
            return self.flags[name]
        family = self.family_of(name)
        if family is not None:
            return [{"name": name, "family": family["kind"], "file": family.get("file"),
                     "line": family.get("line"), "group": family["kind"], "passthrough": family["prefix"]}]
        return None

    def family_of(self, name: str) -> dict | None:
        """The passthrough family a `--sglang-*` style name belongs to, if Miles passes it through."""
        return passthrough_family(self.families, name)

    def metric(self, key: str) -> dict | None:
        if key in self.metrics:
            return self.metrics[key]
        for regex, rec in self.metric_patterns:
            if regex.fullmatch(key):
                return rec
        return None

    def value(self, kind: str, key: str) -> Value | None:
        return self.values.get((kind, key))

    def value_keys(self, kind: str) -> list[str]:
        return sorted(k for (kd, k) in self.values if kd == kind)

    def recorded(self, run_id: str) -> bool:
        """Whether the run has a valid recording under capture/gpu/."""
        return run_id in self.recordings

    def run_arg(self, run_id: str, flag: str) -> tuple[str | None, str]:
        """The value run file `run_id` passes for `flag`, or (None, why not)."""
        run = self.runs.get(run_id)
        if run is None:
            return None, f"no run {run_id!r} is declared.{suggest(run_id, list(self.runs))}"
        args = [str(a) for a in run.get("args") or []]
        for i, arg in enumerate(args):
            if arg == flag:
                if i + 1 < len(args) and not args[i + 1].startswith("--"):
                    return args[i + 1], ""
                return None, f"{flag} takes no value in capture/runs/{run_id}.yaml."
            if arg.startswith(flag + "="):
                return arg.partition("=")[2], ""
        return None, f"capture/runs/{run_id}.yaml does not pass {flag}.{suggest(flag, [a for a in args if a.startswith('--')])}"

    def src_problem(self, path: str, start: int | None = None, end: int | None = None) -> str | None:
        """Why `path[:start[-end]]` is not a line range of a Miles file at the captured commit, or None."""
        if path not in self.files:
            return f"Miles has no file {path!r}.{suggest(path, list(self.files))}"
        length, end = self.files[path], end if end is not None else start
        if start is not None and (start < 1 or end < start or end > length):
            span = f"{start}" if end == start else f"{start}-{end}"
            return f"{path} has {length} lines; {span} is not a range of them."
        return None

    def src_spec_problem(self, spec: str) -> str | None:
        """`src_problem` for a `path[:start[-end]]` string (a reference's `src`)."""
        path, _, lines = spec.partition(":")
        start, _, end = lines.partition("-")
        first = int(start) if start else None
        return self.src_problem(path, first, int(end) if end else first)

    def src_url(self, path: str, start: int | None = None, end: int | None = None) -> str:
        url = f"{GITHUB}/blob/{self.provenance.get('commit', 'main')}/{path}"
        if start:
            url += f"#L{start}" + (f"-L{end}" if end and end != start else "")
        return url

    def fingerprint_of(self, kind: str, key: str) -> str:
        """Content hash of what `kind:key` resolves to now ('missing' when it does not resolve)."""
        known = self._fingerprints.get((kind, key))
        if known is None:
            known = self._fingerprints[(kind, key)] = self._fingerprint_now(kind, key)
        return known

    def _fingerprint_now(self, kind: str, key: str) -> str:
        if kind == "flag":
            rec: Any = self.flag(key)
        elif kind == "default":
            flag = self.flag(key)
            rec = None if flag is None else [[r.get("default"), r.get("default_kind")] for r in flag]
        elif kind == "metric":
            rec = self.metric(key)
        elif kind == "src":
            rec = [self.provenance.get("commit"), self.files.get(key)]
        elif kind == "run":
            rec = [self.runs.get(key), self.recordings.get(key)]
        elif kind == "pin":
            rec = self.provenance
        elif kind == "series":
            rec = self.series.get(key)
        else:  # a value kind (measured, computed, ...): no other kind has values
            v = self.value(kind, key)
            rec = None if v is None else [v.value, v.unit, v.what, v.detail]
        return "missing" if rec is None else fingerprint(rec)


def passthrough_family(families: list[dict], name: str) -> dict | None:
    """The passthrough family `name` is a member of, or None: the one membership rule.

    The longest matching prefix first; a name Miles sets itself (`skipped`) is not passed
    through; a family with a `members` list holds only those (a non-member may still belong
    to a shorter prefix). The build, --check and the lab's run-file check all use this.
    """
    for fam in sorted(families, key=lambda f: -len(f["prefix"])):
        prefix = fam["prefix"]
        if not name.startswith(prefix):
            continue
        rest = name[len(prefix):].replace("_", "-")
        if rest in {s.replace("_", "-") for s in fam.get("skipped") or []}:
            return None  # Miles sets it itself: not passed through
        members = fam.get("members")
        if members is not None and rest not in {m.lstrip("-").replace("_", "-") for m in members}:
            continue
        return fam
    return None


def closest_family(families: list[dict], name: str) -> dict | None:
    """The family whose prefix `name` starts with (longest first), member or not: to explain a refusal."""
    return next((f for f in sorted(families, key=lambda f: -len(f["prefix"])) if name.startswith(f["prefix"])), None)


def index_flags(doc: dict) -> tuple[dict[str, list[dict]], list[str]]:
    """flags.json indexed: every option string (name and aliases) → its records, and the sorted option strings."""
    index: dict[str, list[dict]] = {}
    for rec in doc.get("flags", []):
        if not isinstance(rec, dict) or not isinstance(rec.get("name"), str):
            continue  # a record of the wrong shape: the schema check names it
        aliases = rec.get("aliases") if isinstance(rec.get("aliases"), list) else []
        for opt in [rec["name"], *(a for a in aliases if isinstance(a, str))]:
            index.setdefault(opt, []).append(rec)
    return index, sorted(index)


def index_metrics(doc: dict) -> tuple[dict[str, dict], list[tuple[re.Pattern[str], dict]]]:
    """metrics.json indexed: each literal key → its record, and each pattern (compiled) with its record."""
    metrics: dict[str, dict] = {}
    patterns: list[tuple[re.Pattern[str], dict]] = []
    for rec in doc.get("metrics", []):
        if rec.get("kind") == "pattern" and rec.get("regex"):
            patterns.append((re.compile(rec["regex"]), rec))
        else:
            metrics[str(rec["key"])] = rec
    return metrics, patterns
