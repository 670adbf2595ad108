"""The captured data, loaded once per build: flags, metrics, files, computed values, facts, runs.

No Sphinx imports: `capture/run.py --check` uses this module too. Every lookup returns the
record a page cites, and `fingerprint` gives a content hash of that record, which is what
decides whether a page must be read again (timestamps are never trusted).
"""
from __future__ import annotations

import copy
import difflib
import gc
import hashlib
import json
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import miles101.derive

from . import schemas
from .crosscheck_results import crosscheck_values
from .kinds import BY_NAME, REFERENCE_KINDS, VALUE_KINDS
from .problems import Problem, ProblemError, capture_problem
from .runfiles import resolve_runs
from .schemas import schema_clean, usable
from .strict import parse_json_bytes, parse_yaml_bytes, read_bytes

GITHUB = "https://github.com/radixark/miles"


#: Each capture file parsed, by its path: (sha256 of its bytes, the parsed document pickled). A file
#: whose bytes did not change is unpickled (fresh objects, fast) instead of parsed again; kept beside
#: the capture's cache (`load_capture_cached`), so a changed value re-parses only its own file.
_PARSED: dict[str, tuple[str, bytes]] = {}


def _parsed(rel: str, raw: bytes, parse: Any) -> Any:

    digest = hashlib.sha256(raw).hexdigest()
    known = _PARSED.get(rel)
    if known is not None and known[0] == digest:
        return pickle.loads(known[1])
    doc = parse()  # a file that fails to parse raises, and is never remembered
    _PARSED[rel] = (digest, pickle.dumps(doc, pickle.HIGHEST_PROTOCOL))
    return doc


def _read_json(path: Path, root: Path) -> Any:
    """Strict JSON through the one reader (`miles101.strict`): a regular file in the project, UTF-8, bounded."""
    from .validate import fix_for  # validate imports this module's users (catalog): import at call time

    rel = path.relative_to(root).as_posix()
    fix = fix_for(rel)  # the remedy that fits this file, with its real path
    raw = read_bytes(path, rel, root, fix)
    return _parsed(rel, raw, lambda: parse_json_bytes(raw, rel, fix))


def _read_yaml(path: Path, root: Path) -> Any:
    rel = path.relative_to(root).as_posix()
    raw = read_bytes(path, rel, root, f"correct the run file, or restore it from git (`git checkout -- {rel}`)")
    return _parsed(rel, raw, lambda: parse_yaml_bytes(raw, rel))


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
    kind: str  # measured | computed | fact | reference | threshold | crosscheck
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
        elif kind in VALUE_KINDS:
            v = self.value(kind, key)
            rec = None if v is None else [v.value, v.unit, v.what, v.detail]
        elif kind == "pin":
            rec = self.provenance
        else:
            rec = None
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


def _measured(runs: dict[str, dict], recordings: dict[str, dict]) -> dict[tuple[str, str], Value]:
    values: dict[tuple[str, str], Value] = {}
    for run_id, run in runs.items():
        rec = recordings.get(run_id)
        got = (rec or {}).get("values", {})
        for name, decl in (run.get("values") or {}).items():
            hit = got.get(name)
            detail = {"run": run_id, "statistic": decl.get("statistic"), "steps": decl.get("steps"),
                      "source": decl.get("source"), "title": run.get("title", run_id)}
            if rec and hit is None:  # recorded, but this value could not be derived from the recording
                detail["missing"] = str((rec.get("missing") or {}).get(name)
                                        or f"values.json of the recording has no {name}")
                detail["hardware"] = rec["host"].get("gpu")
            if rec and hit is not None:
                detail.update({
                    "n": hit.get("n"), "statistic": hit.get("statistic", decl.get("statistic")),
                    "steps": hit.get("steps", decl.get("steps")), "hardware": rec["host"].get("gpu"),
                    "commit": rec["run"].get("miles_commit"), "image": rec["run"].get("image_digest")
                    or rec["run"].get("image"), "date": (rec["run"].get("end") or "")[:10],
                })
            values[("measured", f"{run_id}.{name}")] = Value(
                "measured", f"{run_id}.{name}", None if hit is None else hit.get("value"),
                (hit or decl).get("unit", decl.get("unit", "")), decl.get("what", name), detail,
            )
    return values


def load_capture(root: Path) -> Capture:
    """Load capture/ under `root` (the project). Problems are collected, not raised."""
    cap_dir = root / "capture"
    problems: list[Problem] = []

    def get(loader, path: Path, default: Any) -> Any:
        try:
            return loader(path, root)
        except ProblemError as exc:
            problems.append(exc.problem)
            return default

    def guarded(rel: str, fn, default: Any) -> Any:
        """Run fn; records of the wrong shape (a schema failure) become a problem, never a traceback."""
        try:
            return fn()
        except (KeyError, TypeError, AttributeError, ValueError, IndexError, re.error) as exc:
            problems.append(capture_problem(rel, f"its records do not have the shape the book reads "
                                            f"({type(exc).__name__}: {exc}).",
                                            f"fix the schema problems named for {rel} (`python3 capture/run.py --check`)."))
            return default

    def clean(path: Path) -> bool:
        """miles101.validate found nothing wrong in the bytes just parsed from this file."""
        rel = path.relative_to(root).as_posix()
        parsed = _PARSED.get(rel)  # (sha256 of the bytes, ...) of the file as `get` just read it
        return parsed is not None and schema_clean(rel, parsed[0])

    def obj(loader, path: Path) -> dict:
        """The file's object, less the records its schema refuses (miles101.validate reports them)."""
        doc = get(loader, path, {})
        if not isinstance(doc, dict):
            problems.append(capture_problem(path.relative_to(root).as_posix(), "the file does not hold a JSON object.",
                                            "restore it from git or re-run `python3 capture/run.py`."))
            return {}
        return doc if clean(path) else usable(path.relative_to(root).as_posix(), doc)

    flags_doc = obj(_read_json, cap_dir / "miles" / "flags.json")
    metrics_doc = obj(_read_json, cap_dir / "miles" / "metrics.json")
    files_doc = obj(_read_json, cap_dir / "miles" / "files.json")
    computed_doc = obj(_read_json, cap_dir / "computed.json")
    facts_doc = obj(_read_json, cap_dir / "facts.json")
    flags, names = guarded("capture/miles/flags.json", lambda: index_flags(flags_doc), ({}, []))
    metrics, patterns = guarded("capture/miles/metrics.json", lambda: index_metrics(metrics_doc), ({}, []))
    runs: dict[str, dict] = {}
    for path in sorted((cap_dir / "runs").glob("*.yaml")):
        run = get(_read_yaml, path, None)
        if isinstance(run, dict):
            # a run file its schema refuses is not declared at all (miles101.validate names why)
            if clean(path) or usable(path.relative_to(root).as_posix(), copy.deepcopy(run)) == run:
                runs[path.stem] = run

    runs, base_errors = guarded("capture/runs", lambda: resolve_runs(runs), ({}, []))
    for message in base_errors:  # a run whose base cannot be filled in is not declared at all
        where, _, what = message.partition(": ")
        problems.append(capture_problem(where, what + ".", "fix `base`/`drop` there (AUTHORING.md, a run file)."))
    recordings: dict[str, dict] = {}
    attempts: list[dict] = []
    gpu = cap_dir / "gpu"
    for run_json in sorted(gpu.glob("*/run.json")):
        if run_json.parent.name.startswith("."):
            continue  # .tmp-* / .old-*: a recording being written or committed (miles101.validate names a stuck one)
        run_rec = get(_read_json, run_json, None)
        if isinstance(run_rec, dict):
            run_rec = run_rec if clean(run_json) else usable(run_json.relative_to(root).as_posix(), run_rec)
        if isinstance(run_rec, dict) and run_rec.get("status") == "valid":
            rec_dir = run_json.parent
            host = obj(_read_json, rec_dir / "host.json")
            values_doc = obj(_read_json, rec_dir / "values.json")
            vals, missing = values_doc.get("values", {}), values_doc.get("missing", {})
            recordings[rec_dir.name] = {"run": run_rec, "host": host, "values": vals if isinstance(vals, dict) else {},
                                        "missing": missing if isinstance(missing, dict) else {}}
    for run_json in sorted((gpu / "_attempts").glob("*/run.json")):
        att = get(_read_json, run_json, None)
        if isinstance(att, dict):
            attempts.append({**att, "dir": run_json.parent.name})
    values = guarded("capture/gpu", lambda: _measured(runs, recordings), {})

    def add_references(doc: dict, rel: str) -> None:
        for key, rec in (doc.get("references") or {}).items():
            known = values.get(("reference", key)) or values.get(("threshold", key))
            if known is not None:
                problems.append(capture_problem(rel, f"the reference key {key!r} is also defined in "
                                                f"{known.detail['file']}.",
                                                "give each reference one key, in one file."))
                continue
            kind = REFERENCE_KINDS[rec.get("kind", "public")]
            detail = {k: v for k, v in rec.items() if k not in ("value", "unit", "what", "kind")}
            values[(kind, key)] = Value(kind, key, rec.get("value"), rec.get("unit", ""),
                                        rec.get("what", key), {**detail, "file": rel})

    for path in sorted((cap_dir / "references").glob("*.json")):
        rel = path.relative_to(root).as_posix()
        doc = obj(_read_json, path)
        guarded(rel, lambda: add_references(doc, rel), None)

    def add_crosschecks(doc: dict, rel: str) -> None:
        found = crosscheck_values(Path(rel).stem, doc, computed_doc.get("values", {}))
        for key, (number, unit, what, detail) in found.items():
            values[("crosscheck", key)] = Value("crosscheck", key, number, unit, what, detail)

    crosschecks: dict[str, dict] = {}
    for path in sorted((cap_dir / "crosscheck" / "results").glob("*.json")):
        rel = path.relative_to(root).as_posix()
        doc = crosschecks[path.stem] = obj(_read_json, path)
        guarded(rel, lambda: add_crosschecks(doc, rel), None)

    def add_values(kind: str, doc: dict) -> None:
        for key, rec in doc.items():
            detail = {k: v for k, v in rec.items() if k not in ("value", "unit", "what")}
            values[(kind, key)] = Value(kind, key, rec.get("value"), rec.get("unit", ""), rec.get("what", key), detail)

    guarded("capture/computed.json", lambda: add_values("computed", computed_doc.get("values", {})), None)
    guarded("capture/facts.json", lambda: add_values("fact", facts_doc.get("facts", {})), None)
    provenance = flags_doc.get("provenance", {})
    families = flags_doc.get("families", [])
    files = files_doc.get("files", {})
    return Capture(
        root=root, provenance=provenance if isinstance(provenance, dict) else {}, flags=flags, flag_names=names,
        families=families if isinstance(families, list) else [], metrics=metrics, metric_patterns=patterns,
        files=files if isinstance(files, dict) else {}, values=values, runs=runs, recordings=recordings,
        attempts=attempts, problems=problems, crosschecks=crosschecks,
    )


def format_number(number: float | int, spec: str = "") -> str:
    """A number with a Python format spec, or a readable default; ValueError when the spec does not fit."""
    if spec:
        return format(number, spec)
    if isinstance(number, float):
        return f"{number:.3g}" if abs(number) < 1000 else f"{number:,.0f}"
    if isinstance(number, int):
        return f"{number:,}"
    return str(number)


def format_value(value: Value, spec: str) -> str:
    """Format a value; a reference or threshold with a range or a bound reads "0.3–0.5", "≥ 0.7" or "≤ 0.2"."""
    if BY_NAME[value.kind].ranged and value.value is None:
        low, high = value.detail.get("low"), value.detail.get("high")
        if low is not None and high is not None:
            return f"{format_number(low, spec)}–{format_number(high, spec)}"
        return f"≥ {format_number(low, spec)}" if low is not None else f"≤ {format_number(high, spec)}"
    return format_number(value.value, spec)


# --------------------------------------------------------------------------- the capture, cached by content

#: The files `load_capture` reads, as globs under the project root.
CAPTURE_INPUTS = (
    "capture/miles/flags.json", "capture/miles/metrics.json", "capture/miles/files.json", "capture/computed.json",
    "capture/facts.json", "capture/runs/*.yaml", "capture/gpu/*/run.json", "capture/gpu/*/host.json",
    "capture/gpu/*/values.json", "capture/gpu/_attempts/*/run.json", "capture/references/*.json",
    "capture/crosscheck/results/*.json",
)


def shaping_code() -> list[Path]:
    """The code and schemas that shape a loaded capture: the core package (its Sphinx extension aside),
    the formulas it imports, and the JSON Schemas `miles101.validate` prunes refused records by."""
    core = Path(__file__).resolve().parent
    files = [p for p in sorted(core.rglob("*.py")) if "sphinx_ext" not in p.relative_to(core).parts]
    return [*files, Path(miles101.derive.__file__).resolve(), *sorted(schemas.schema_dir().glob("*.json"))]


def capture_digest(root: Path) -> str:
    """sha256 over every input of `load_capture` (path and bytes; a missing file counts) and `shaping_code`."""
    h = hashlib.sha256()
    for code in shaping_code():
        h.update(b"\0" + code.name.encode() + b"\0" + code.read_bytes())
    for pattern in CAPTURE_INPUTS:
        for path in sorted(root.glob(pattern)) or [root / pattern]:
            h.update(b"\0" + path.relative_to(root).as_posix().encode() + b"\0")
            try:  # a regular file only: a FIFO would block the build (the loader names it)
                h.update(path.read_bytes() if path.is_file() else b"\1missing")
            except OSError:
                h.update(b"\1missing")
    return h.hexdigest()


def load_capture_cached(root: Path, cache_file: Path | None) -> Capture:
    """`load_capture`, kept in a pickle (`cache_file`, in the build's doctree dir) keyed by `capture_digest`.

    A build whose capture is byte for byte the last one's unpickles it instead of parsing the JSON
    and YAML again; any change to an input (or to this code) loads it afresh.
    """
    key = capture_digest(root)
    files_cache = None if cache_file is None else cache_file.with_name(cache_file.stem + "-files.pickle")
    if cache_file is not None:
        collecting = gc.isenabled()
        gc.disable()  # thousands of small objects: in a build's large heap the collector would cost more than reading
        try:
            cached_key, loaded = pickle.loads(cache_file.read_bytes())
            if cached_key == key and isinstance(loaded, Capture):
                loaded.root = root
                return loaded
        except Exception:  # no cache yet, or one from another version: load afresh
            pass
        finally:
            if collecting:
                gc.enable()
    if files_cache is not None and not _PARSED:
        try:  # the files parsed by the last build: only the changed ones are parsed again
            _PARSED.update(pickle.loads(files_cache.read_bytes()))
        except Exception:
            pass
    loaded = load_capture(root)
    if cache_file is not None and files_cache is not None:
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            for path, data in ((cache_file, (key, loaded)), (files_cache, _PARSED)):
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))
                tmp.replace(path)
        except OSError:
            pass
    return loaded
