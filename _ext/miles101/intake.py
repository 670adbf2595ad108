"""The intake: capture/ taken in once — one pass over the table of capture files — with every problem it has.

`take_in(root, cache_dir)` is the one call the build, `capture/run.py --check` and the lab make. It
makes one loop over the rows of `miles101.capturefiles.FILES`, in the table's order: each file of a
row is read once through the strict reader (`miles101.inputs.Inputs`), checked (its schema and its
own rules, then the row's rules over the other files it `reads`: `miles101.validate`'s pure rules,
each answer kept in one memo keyed from the row), and handed to the model's builder (`Builder`);
then the rules that need the whole model run (`validate.reference_src_problems`). A row whose
records are values (`CaptureFile.records`) needs no code here: `add_records` loads it from its row.

It follows sphinxcontrib-bibtex's shape (`bibfile.is_bibdata_outdated` / `process_bibdata`): one
function decides whether the cached model is still valid (`cached_model`), one builds it
(`Builder`). Validity is a content hash, never a file time: every memo (the model, each check's
answer, each parsed file) is keyed by the bytes it answers for and by `inputs.code_digest()`, the
source of every core module and schema, so a changed rule never meets an old answer.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import schemas
from .capturefiles import FILES, CaptureFile, fix_for, input_row, model_inputs, row_for
from .crosscheck_results import crosscheck_values
from .master_copy import master_copy_values
from .data import Capture, Value, index_flags, index_metrics
from .inputs import Inputs, memo_key
from .kinds import kind
from .memo import Answers, recall, remember
from .problems import Problem, ProblemError, capture_problem, json_path
from .runfiles import resolve_runs
from .schemas import usable
from .strict import parse_json_bytes, run_id_problem
from .validate import (REQUIRED, Validation, _in_gpu_dot_dir, _series_excerpt_sum,
                       capture_problems, computed_problems, crosscheck_file_problems, file_problems,
                       interrupted_commits, recording_problems, series_problems)

#: The files the model is built from, as globs under the project root: the cached model's key. A view of the
#: table of capture files: each row that feeds a kind (`miles101.capturefiles.model_inputs`), so a new kind's
#: file is in it, and the model reads no file without its row (`capturefiles.input_row`).
CAPTURE_INPUTS = tuple(f"capture/{f.glob}" for f in model_inputs())
#: The rows whose records become values as they stand (`CaptureFile.records`), each loaded by `add_records` alone:
#: those whose first kind is a value kind (a run's values.json is joined with its run file: `_measured`).
RECORD_ROWS = tuple(f for f in FILES if f.records and f.kinds and kind(f.kinds[0]).value)
#: The memos kept in the build's doctree dir.
MODEL_CACHE, CHECKS_CACHE, PARSED_CACHE = "m101-capture.pickle", "m101-capture-checks.pickle", "m101-capture-files.pickle"


@dataclass
class Intake:
    """The capture, every problem found in it (validation, model, rules over the model), and the counts."""
    capture: Capture
    problems: list[Problem] = field(default_factory=list)
    validation: Validation = field(default_factory=Validation)


def take_in(root: Path, cache_dir: Path | None = None) -> Intake:
    """Read, check and model capture/ under `root`; with `cache_dir`, reuse what the same bytes and code gave."""
    inputs = Inputs(root)
    sources = input_sums(inputs)
    key = model_key(inputs.code, sources) if cache_dir is not None else None
    capture = cached_model(cache_dir / MODEL_CACHE, key) if cache_dir is not None and key is not None else None
    if capture is None and cache_dir is not None:
        inputs.memo.update(recall(cache_dir / PARSED_CACHE, inputs.code, dict) or {})
    builder = Builder(root, inputs) if capture is None else None
    validation = one_pass(root, None if cache_dir is None else cache_dir / CHECKS_CACHE, inputs, builder)
    if builder is not None:
        capture = builder.model(sources)
        if cache_dir is not None:
            remember(cache_dir / MODEL_CACHE, key, capture)
            remember(cache_dir / PARSED_CACHE, inputs.code, inputs.memo)
    assert capture is not None
    capture.root = root
    capture.clean = {rel: sha for rel in sorted(inputs.clean) if (sha := inputs.sha(root / rel, fix_for(rel)))}
    return Intake(capture, capture_problems(validation, capture), validation)


def validate_capture(root: Path, cache_file: Path | None = None, inputs: Inputs | None = None) -> Validation:
    """The checks of capture/ under `root` alone (the pass without a model): every problem names its file, place, fix.

    A file found clean is noted in `inputs.clean`: a model's builder reads it as it is.
    """
    return one_pass(root, cache_file, inputs if inputs is not None else Inputs(root), None)


def one_pass(root: Path, cache_file: Path | None, inputs: Inputs, builder: Builder | None) -> Validation:
    """The one loop over the rows of the table: each row's files read, checked (`Checks.file`), the row's rules
    over the files it reads run (`ROW_RULES`), and the files handed to `builder` (None: checks alone)."""
    cap = root / "capture"
    checks = Checks(root, inputs, cache_file)
    for rel in REQUIRED:
        if not (cap / rel).exists() and not (cap / rel).is_symlink():
            checks.out.problems.append(capture_problem(f"capture/{rel}", "the file does not exist.",
                                                       fix_for(f"capture/{rel}") + "."))
    for row in FILES:
        paths = row_paths(cap, row)
        if row.schema is not None:
            for path in paths:
                checks.file(row, path)
        rule = ROW_RULES.get(row.glob)
        if rule is not None:
            for path in paths:
                rule(checks, path)
        if builder is not None:
            builder.take(row, paths)
    return checks.finish()


def row_paths(cap: Path, row: CaptureFile) -> list[Path]:
    """The files of a row under `cap`, sorted: a glob's matches (less a recording being written, `gpu/.tmp-*`), or
    the one file a row names when it is there (a dangling link included: its reader names it)."""
    if "*" not in row.glob:
        path = cap / row.glob
        return [path] if path.exists() or path.is_symlink() else []
    return [p for p in sorted(cap.glob(row.glob)) if not _in_gpu_dot_dir(p, cap)]


class Checks:
    """The checks of one pass and their memo: each file's own (`file`) and its row's rules (`ROW_RULES`), every
    answer keyed by the code, the check, the file and the files its row `reads`, kept in one memo file
    (`memo.Answers`); the counts `--check` prints."""

    def __init__(self, root: Path, inputs: Inputs, cache_file: Path | None) -> None:
        self.root, self.cap, self.inputs, self.out = root, root / "capture", inputs, Validation()
        self.store = Answers(cache_file, inputs.code)
        self.unreadable: set[str] = set()
        self.bases: dict[Path, Any] = {}  # each run file's `base`, read once (`_base_chain`)
        self.catalog: list[Any] = []  # the extraction as the lab reads it: loaded once, when a run file is checked

    def read(self, path: Path) -> bytes | None:
        """The file's bytes through the strict reader; None when absent (its own check names it) or unreadable."""
        rel = path.relative_to(self.root).as_posix()
        if not path.exists() and not path.is_symlink():
            return None
        try:
            return self.inputs.read(path, fix_for(rel))
        except ProblemError as exc:
            if rel not in self.unreadable:
                self.unreadable.add(rel)
                self.out.problems.append(exc.problem)
            return None

    def sum(self, path: Path) -> str | None:
        """What a memo key holds for a file: its bytes' sha256 (`read` named it when it does not read)."""
        return self.inputs.sha(path, fix_for(path.relative_to(self.root).as_posix())) if self.read(path) is not None \
            else None

    def reads(self, rel: str) -> list[Path]:
        """The other capture files the check of `rel` reads, as its row names them (`{run}`: a recording's run id)."""
        row = row_for(rel)
        run_id = rel.split("/")[2] if rel.startswith("capture/gpu/") else ""
        return [self.cap / r.format(run=run_id) for r in (row.reads if row is not None else ())]

    def key(self, check: str, rel: str, *more: str | None) -> str:
        """The memo key of one file's check: the file, the files its row reads, and `more` (a run's `base` chain ...)."""
        return memo_key(self.inputs.code, check, rel, self.sum(self.root / rel), *(self.sum(p) for p in self.reads(rel)),
                        *more)

    def run(self, memo: str, fn: Callable[[], list[Problem]]) -> list[Problem]:
        """The problems `fn` finds, from the memo when these bytes and this code were checked before."""
        hit = self.store.get(memo)
        if isinstance(hit, list) and all(isinstance(p, Problem) for p in hit):
            self.out.cached += 1
            return hit
        self.out.checked += 1
        got = fn()
        self.store.put(memo, got)
        return got

    def file(self, row: CaptureFile, path: Path) -> None:
        """One file on its own: read strictly, held against its row's schema and its own rules (`file_problems`)."""
        rel = path.relative_to(self.root).as_posix()
        if self.read(path) is None:
            return
        self.out.files += 1
        schema_name = row.schema
        assert schema_name is not None
        schema_text = (schemas.schema_dir() / schema_name).read_text(encoding="utf-8")
        shape = f"shape {rel}"  # the digest of the shape that last passed a number-blind schema, carried over
        passed = self.store.get(shape)

        def errors(doc: Any) -> list[Any]:
            return schemas.shape_errors(schema_name, schema_text, doc, passed,
                                        lambda digest: self.store.put(shape, digest))

        found = self.run(memo_key(self.inputs.code, "file", rel, schema_text, self.sum(path)),
                         lambda: file_problems(rel, lambda: self.inputs.parsed(path, fix_for(rel)), errors, schema_name))
        if not found:
            self.inputs.clean.add(rel)
        self.out.problems += found

    def finish(self) -> Validation:
        """The problems no row owns (a recorder stopped mid-commit), the memo saved: what the pass found."""
        self.out.problems += interrupted_commits(self.cap)
        self.store.save()
        return self.out


def _base_chain(runs_dir: Path, run_file: Path, inputs: Inputs,
                bases: dict[Path, Any] | None = None) -> tuple[Path, ...]:
    """The run files a run's `base` chain names, nearest first (a missing or cyclic one ends it).

    `bases` (path → its `base`), shared by one validation, reads each run file's document once."""
    chain: list[Path] = []
    seen: set[str] = set()
    path = run_file
    while _base_bytes(path, inputs) is not None:
        if bases is None or path not in bases:
            base = (_doc(inputs, path) or {}).get("base")
            if bases is not None:
                bases[path] = base
        else:
            base = bases[path]
        if not isinstance(base, str) or base in seen:
            break
        seen.add(base)
        path = runs_dir / f"{base}.yaml"
        if _base_bytes(path, inputs) is not None:
            chain.append(path)
    return tuple(chain)


def _doc(inputs: Inputs, path: Path) -> Any:
    """The run file's document as the intake parsed it, or None when it does not read or parse (named on its own)."""
    try:
        doc = inputs.parsed(path, fix_for(inputs.rel(path)))
    except ProblemError:
        return None
    return doc if isinstance(doc, dict) else None


def _base_bytes(path: Path, inputs: Inputs) -> bytes | None:
    """A base run file's bytes, or None when it is absent or not a regular file (its own check names it)."""
    return inputs.bytes_or_none(path, fix_for(inputs.rel(path))) if path.is_file() else None


def load_catalog(inputs: Inputs) -> Any:
    """The extraction's flags and metrics as the lab reads them, or None when either is broken (named on its own)."""
    from .catalog import Catalog  # only when a run file is checked afresh

    miles = inputs.root / "capture" / "miles"
    try:
        docs = [inputs.parsed(miles / name, fix_for(f"capture/miles/{name}")) for name in ("flags.json", "metrics.json")]
        return Catalog.from_docs(*docs, miles / "flags.json", miles / "metrics.json")
    except Exception:  # noqa: BLE001 - flags.json or metrics.json is broken: their own checks name the cause
        return None


def run_file_problems(inputs: Inputs, path: Path, catalog: Any = None) -> list[Problem]:
    """A run file whose schema passed, held against the extraction (the rules of `record`): unknown flags, values."""
    from .runcheck import SCHEMA as RUN_SCHEMA
    from .runcheck import RunFileError, load_run  # with jsonschema: only when a run file is checked afresh

    root = inputs.root
    rel = path.relative_to(root).as_posix()
    catalog = catalog if catalog is not None else load_catalog(inputs)
    # the intake checked its run files against schemas.schema_dir()'s run schema: the one `record` reads?
    same_schema = (schemas.schema_dir() / "run.schema.json").read_bytes() == RUN_SCHEMA.read_bytes()
    if catalog is None:
        return []
    try:
        load_run(path, catalog, lambda p: _doc(inputs, p) if _base_bytes(p, inputs) is not None else None,
                 lambda p: same_schema and inputs.rel(p) in inputs.clean)
    except RunFileError as exc:
        out = []
        bases: list[str] = []  # run files it builds on whose own problems stopped the check (named at each)
        for error in exc.errors:
            named, sep, _ = error.partition(": ")
            if sep and named != str(path) and Path(named).parent == path.parent and Path(named).suffix == ".yaml":
                bases += [] if Path(named).stem in bases else [Path(named).stem]
                continue
            text = error.split(": ", 1)[1] if error.startswith(str(path)) else error
            m = re.match(r"(args\[\d+\]|args|entry\[\d+\]|env/[^ :]+|mounts\[\d+\]/\w+|image|launch|values/[^ :]+|"
                         r"mounts|plate|id|steps)(?=[\s:])(?::? ?)(.*)", text, re.S)
            parts = re.split(r"[/\[\]]+", m[1].strip("]")) if m else []
            place = json_path(int(p) if p.isdigit() else p for p in parts)
            out.append(capture_problem(f"{rel}:{place}", (m[2] if m else text).rstrip(".") + ".",
                                       f"correct the run file ({'`python3 capture/run.py record ' + path.stem + ' --dry-run`'} "
                                       f"lists every problem; AUTHORING.md), or restore it from git (`git checkout -- {rel}`)"))
        for base in bases:
            base_rel = path.with_name(f"{base}.yaml").relative_to(root).as_posix()
            out.append(capture_problem(f"{rel}:{json_path(('base',))}", f"it builds on {base_rel}, whose own problems "
                                       "(named there) stop this run from being checked against the extraction.",
                                       f"correct {base_rel} first"))
        return out
    except Exception as exc:  # noqa: BLE001 - a run file must never crash the gates
        return [capture_problem(f"{rel}:1", f"cannot be checked ({type(exc).__name__}: {exc}).",
                                f"correct the run file (AUTHORING.md), or restore it from git (`git checkout -- {rel}`)")]
    return []


def _run_file_rule(checks: Checks, path: Path) -> None:
    """A run file whose schema passed, held against the extraction (`run_file_problems`)."""
    cap, inputs = checks.cap, checks.inputs
    if checks.read(cap / "miles" / "flags.json") is None or checks.read(cap / "miles" / "metrics.json") is None:
        return
    rel = path.relative_to(checks.root).as_posix()
    if checks.read(path) is None or rel not in inputs.clean:
        return  # its schema problems are named already
    chain = (checks.sum(base) for base in _base_chain(cap / "runs", path, inputs, checks.bases))

    def held() -> list[Problem]:
        if not checks.catalog:
            checks.catalog.append(load_catalog(inputs))
        return run_file_problems(inputs, path, checks.catalog[0]) if checks.catalog[0] is not None else []

    checks.out.problems += checks.run(checks.key("runfile", rel, *chain), held)


def _computed_rule(checks: Checks, path: Path) -> None:
    """computed.json against its derivation from models.json and flags.json (`validate.computed_problems`)."""
    models, flags, computed = (checks.read(checks.cap / p) for p in ("miles/models.json", "miles/flags.json",
                                                                     "computed.json"))
    if models is None or flags is None or computed is None:
        return
    try:  # how many values the derivation covers, for --check's summary
        checks.out.computed = len(parse_json_bytes(computed, "capture/computed.json", "").get("values") or {})
    except (ProblemError, AttributeError, TypeError):
        checks.out.computed = 0
    checks.out.problems += checks.run(checks.key("computed", "capture/computed.json"),
                                      lambda: computed_problems(models, flags, computed))


def _crosscheck_rule(checks: Checks, path: Path) -> None:
    """One host's cross-check results against computed.json (`validate.crosscheck_file_problems`)."""
    computed = checks.read(checks.cap / "computed.json")
    rel, results = path.relative_to(checks.root).as_posix(), checks.read(path)
    if computed is None or results is None or rel not in checks.inputs.clean:
        return  # its schema problems are named already
    checks.out.crosschecks += 1
    checks.out.problems += checks.run(checks.key("crosscheck", rel),
                                      lambda: crosscheck_file_problems(rel, results, computed))


def _series_rule(checks: Checks, path: Path) -> None:
    """A public series against its excerpt of the public log (`validate.series_problems`)."""
    rel, raw = path.relative_to(checks.root).as_posix(), checks.read(path)
    if raw is None or rel not in checks.inputs.clean:
        return  # its schema problems are named already
    checks.out.problems += checks.run(checks.key("series", rel, *_series_excerpt_sum(checks.root, raw)),
                                      lambda: series_problems(checks.root, rel, raw))


def _recording_rule(checks: Checks, path: Path) -> None:
    """A recording: its run file, steps and values.json re-derived (`validate.recording_problems`)."""
    root, run_id = checks.root, path.parent.name
    why = run_id_problem(run_id)
    if why:
        checks.out.problems.append(capture_problem(f"capture/gpu/{run_id}/run.json:1", f"the directory name {why}.",
                                                   "rename the directory to the run's id, or move it out of capture/gpu/"))
        return
    rel = path.relative_to(root).as_posix()
    paths = (path, *checks.reads(rel))  # its run file, steps.jsonl, values.json
    parts = tuple(checks.read(p) for p in paths)
    if any(p.relative_to(root).as_posix() in checks.unreadable for p in paths):
        return  # an unreadable part is the root cause, named once; nothing to re-derive
    chain = _base_chain(checks.cap / "runs", paths[1], checks.inputs, checks.bases)
    bases = tuple(checks.read(base) for base in chain)
    checks.out.recordings += 1
    checks.out.problems += checks.run(checks.key("recording", rel, *(checks.sum(base) for base in chain)),
                                      lambda: recording_problems(run_id, *parts, bases))


#: The rules of a row over the other files it reads (its `reads`), by the row's glob; each file's own schema and
#: rules are `Checks.file`'s.
ROW_RULES: dict[str, Callable[[Checks, Path], None]] = {
    "computed.json": _computed_rule,
    "crosscheck/results/*.json": _crosscheck_rule,
    "series/*.json": _series_rule,
    "runs/*.yaml": _run_file_rule,
    "gpu/*/run.json": _recording_rule,
}


def load_capture(root: Path) -> Capture:
    """The model alone (no cache): `take_in(root).capture`, for a caller that reports problems elsewhere."""
    return take_in(root).capture


def input_sums(inputs: Inputs) -> dict[str, str | None]:
    """Each input of the model (`CAPTURE_INPUTS`) → the sha256 of its bytes (None: missing), and "code" → the code
    digest: what the model is built from, its cache key's parts, kept on the model (`Capture.sources`)."""
    root = inputs.root
    sums: dict[str, str | None] = {"code": inputs.code.hex()}
    for pattern in CAPTURE_INPUTS:
        for path in sorted(root.glob(pattern)) or [root / pattern]:
            rel = path.relative_to(root).as_posix()
            sums[rel] = inputs.sha(path, fix_for(rel)) if path.is_file() else None
    return sums


def model_key(code: bytes, sources: dict[str, str | None]) -> str:
    """sha256 over the code (`code_digest`) and every input of the model (`input_sums`: path and bytes' sha256;
    a missing file counts)."""
    return memo_key(code, *(part for rel, sha in sources.items() for part in (rel, sha)))


def cached_model(cache_file: Path, key: str) -> Capture | None:
    """The model the last build kept, when it was built from these bytes by this code; else None (outdated)."""
    return recall(cache_file, key, Capture)


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


def add_records(row: CaptureFile, rel: str, doc: dict, values: dict[tuple[str, str], Value],
                problems: list[Problem]) -> None:
    """The values of one file of a record row (`RECORD_ROWS`): each record under `row.records` becomes a `Value`.

    Its kind is the row's first, or, where the row's kinds tell their records apart by a `kind` field
    (`Kind.record_kind`: a public reference and our threshold), the one that field names (the first's by
    default). A file of a glob row is named in each value's detail (`file`), and a key one of its files
    defines again under the row's kinds is a problem of that file.
    """
    by_field = {kind(k).record_kind: k for k in row.kinds if kind(k).record_kind}
    first = row.kinds[0]
    several = "*" in row.glob
    for key, rec in (doc.get(row.records) or {}).items():
        known = next((values[k, key] for k in (by_field.values() or (first,)) if (k, key) in values), None) \
            if several else None
        if known is not None:
            problems.append(capture_problem(rel, f"the {first} key {key!r} is also defined in {known.detail['file']}.",
                                            f"give each {first} one key, in one file."))
            continue
        name = by_field[rec.get("kind", kind(first).record_kind)] if by_field else first
        dropped = ("value", "unit", "what", "kind") if by_field else ("value", "unit", "what")
        detail = {k: v for k, v in rec.items() if k not in dropped}
        values[(name, key)] = Value(name, key, rec.get("value"), rec.get("unit", ""), rec.get("what", key),
                                    {**detail, "file": rel} if several else detail)


class Builder:
    """The model of capture/ under `root`, built file by file as the pass hands each row's files over (`take`),
    from the documents `inputs` parsed; problems collected, not raised.

    A row's files are checked before they are handed over: a file found clean (`inputs.clean`) is read as it
    is, any other less the records its schema refuses (`schemas.usable`). A row whose records are values
    (`RECORD_ROWS`) is loaded by `add_records`; the others by their taker (`TAKERS`, by the row's glob).
    """

    def __init__(self, root: Path, inputs: Inputs) -> None:
        self.root, self.cap, self.inputs = root, root / "capture", inputs
        self.problems: list[Problem] = []
        self.values: dict[tuple[str, str], Value] = {}
        self.docs: dict[Path, dict] = {}
        self.flags: tuple[dict, list] = ({}, [])
        self.metrics: tuple[dict, list] = ({}, [])
        self.flags_doc: dict = {}
        self.files: dict = {}
        self.runs: dict[str, dict] = {}
        self.run_jsons: list[Path] = []
        self.attempts: list[dict] = []
        self.crosschecks: dict[str, dict] = {}
        self.series: dict[str, dict] = {}

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def get(self, path: Path, default: Any) -> Any:
        """The file's document (a fresh copy), or `default` with its problem noted."""
        rel = self.rel(path)
        input_row(rel)  # a file the model reads has its row in the table, with the kinds it feeds
        try:
            return self.inputs.parsed(path, fix_for(rel))
        except ProblemError as exc:
            self.problems.append(exc.problem)
            return default

    def guarded(self, rel: str, fn: Callable[[], Any], default: Any) -> Any:
        """Run fn; records of the wrong shape (a schema failure) become a problem, never a traceback."""
        try:
            return fn()
        except (KeyError, TypeError, AttributeError, ValueError, IndexError, re.error) as exc:
            self.problems.append(capture_problem(rel, f"its records do not have the shape the book reads "
                                                 f"({type(exc).__name__}: {exc}).",
                                                 f"fix the schema problems named for {rel} (`python3 capture/run.py --check`)."))
            return default

    def clean(self, path: Path) -> bool:
        """miles101.validate found nothing wrong in the bytes just parsed from this file."""
        return self.rel(path) in self.inputs.clean

    def obj(self, path: Path) -> dict:
        """The file's object, less the records its schema refuses (miles101.validate reports them); once a build."""
        if path in self.docs:
            return self.docs[path]
        doc = self.get(path, {})
        if not isinstance(doc, dict):
            self.problems.append(capture_problem(self.rel(path), "the file does not hold a JSON object.",
                                                 "restore it from git or re-run `python3 capture/run.py`."))
            doc = {}
        self.docs[path] = doc = doc if self.clean(path) else usable(self.rel(path), doc)
        return doc

    def take(self, row: CaptureFile, paths: list[Path]) -> None:
        """A row's files, checked: the model takes what it holds (a file of its own is read even when missing)."""
        if not row.kinds:
            return  # the model reads no file that feeds no kind (`capturefiles.input_row`)
        paths = paths if "*" in row.glob else [self.cap / row.glob]
        if row in RECORD_ROWS:
            for path in paths:
                doc = self.obj(path)
                self.guarded(self.rel(path), lambda: add_records(row, self.rel(path), doc, self.values,  # noqa: B023
                                                                 self.problems), None)
        taker = TAKERS.get(row.glob)
        if taker is not None:
            taker(self, paths)

    def _flags(self, paths: list[Path]) -> None:
        self.flags_doc = doc = self.obj(paths[0])
        self.flags = self.guarded("capture/miles/flags.json", lambda: index_flags(doc), ({}, []))

    def _metrics(self, paths: list[Path]) -> None:
        doc = self.obj(paths[0])
        self.metrics = self.guarded("capture/miles/metrics.json", lambda: index_metrics(doc), ({}, []))

    def _files(self, paths: list[Path]) -> None:
        files = self.obj(paths[0]).get("files", {})
        self.files = files if isinstance(files, dict) else {}

    def _crosschecks(self, paths: list[Path]) -> None:
        computed = self.obj(self.cap / "computed.json").get("values", {})
        for path in paths:
            rel, doc = self.rel(path), self.obj(path)
            self.crosschecks[path.stem] = doc
            self.guarded(rel, lambda: self._add(crosscheck_values(Path(rel).stem, doc, computed)), None)  # noqa: B023

    def _master_copy(self, paths: list[Path]) -> None:  # what --no-keep-fp32-master costs
        for path in paths:
            rel, doc = self.rel(path), self.obj(path)
            self.guarded(rel, lambda: self._add(master_copy_values(Path(rel).stem, doc)), None)  # noqa: B023

    def _add(self, found: dict[str, tuple]) -> None:
        for key, (number, unit, what, detail) in found.items():
            self.values[("crosscheck", key)] = Value("crosscheck", key, number, unit, what, detail)

    def _series(self, paths: list[Path]) -> None:
        self.series = {path.stem: self.obj(path) for path in paths}

    def _runs(self, paths: list[Path]) -> None:
        for path in paths:
            run = self.get(path, None)
            if isinstance(run, dict):
                # a run file its schema refuses is not declared at all (miles101.validate names why)
                if self.clean(path) or usable(self.rel(path), copy.deepcopy(run)) == run:
                    self.runs[path.stem] = run

    def _recordings(self, paths: list[Path]) -> None:
        self.run_jsons = paths  # read once their host.json and values.json are checked (`model`)

    def _attempts(self, paths: list[Path]) -> None:
        for run_json in paths:
            att = self.get(run_json, None)
            if isinstance(att, dict):
                self.attempts.append({**att, "dir": run_json.parent.name})

    def model(self, sources: dict[str, str | None]) -> Capture:
        """The model, once every row is taken: runs with their bases filled in, recordings and measured values
        (`sources`: the inputs' `input_sums`)."""
        runs, base_errors = self.guarded("capture/runs", lambda: resolve_runs(self.runs), ({}, []))
        for message in base_errors:  # a run whose base cannot be filled in is not declared at all
            where, _, what = message.partition(": ")
            self.problems.append(capture_problem(where, what + ".", "fix `base`/`drop` there (AUTHORING.md, a run file)."))
        recordings: dict[str, dict] = {}
        for run_json in self.run_jsons:
            run_rec = self.get(run_json, None)
            if isinstance(run_rec, dict):
                run_rec = run_rec if self.clean(run_json) else usable(self.rel(run_json), run_rec)
            if isinstance(run_rec, dict) and run_rec.get("status") == "valid":
                rec_dir = run_json.parent
                host = self.obj(rec_dir / "host.json")
                values_doc = self.obj(rec_dir / "values.json")
                vals, missing = values_doc.get("values", {}), values_doc.get("missing", {})
                recordings[rec_dir.name] = {"run": run_rec, "host": host,
                                            "values": vals if isinstance(vals, dict) else {},
                                            "missing": missing if isinstance(missing, dict) else {}}
        measured = self.guarded("capture/gpu", lambda: _measured(runs, recordings), {})
        provenance = self.flags_doc.get("provenance", {})
        families = self.flags_doc.get("families", [])
        (flags, names), (metrics, patterns) = self.flags, self.metrics
        return Capture(
            root=self.root, provenance=provenance if isinstance(provenance, dict) else {}, flags=flags,
            flag_names=names, families=families if isinstance(families, list) else [], metrics=metrics,
            metric_patterns=patterns, files=self.files, values={**measured, **self.values}, runs=runs,
            recordings=recordings, attempts=self.attempts, problems=self.problems, crosschecks=self.crosschecks,
            series=self.series, sources=sources,
        )


#: How the model takes the files of a row that is not a `RECORD_ROWS` row, by the row's glob (a row that feeds a
#: kind and is in neither is read by another row's taker: a recording's host.json and values.json).
TAKERS: dict[str, Callable[[Builder, list[Path]], None]] = {
    "miles/flags.json": Builder._flags,
    "miles/metrics.json": Builder._metrics,
    "miles/files.json": Builder._files,
    "crosscheck/results/*.json": Builder._crosschecks,
    "crosscheck/master_copy/*.json": Builder._master_copy,
    "series/*.json": Builder._series,
    "runs/*.yaml": Builder._runs,
    "gpu/*/run.json": Builder._recordings,
    "gpu/_attempts/*/run.json": Builder._attempts,
}
