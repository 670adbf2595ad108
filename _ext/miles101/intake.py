"""The intake: capture/ taken in once — read, checked, modelled — with every problem it has.

`take_in(root, cache_dir)` is the one call the build, `capture/run.py --check` and the lab make. It
reads each capture file once through the strict reader (`miles101.inputs.Inputs`), checks it against
its schema and the book's rules (`miles101.validate`), builds the model (`miles101.data.Capture`)
from what survives, runs the rules that need the model (`validate.reference_src_problems`), and
returns the capture with its problems together.

It follows sphinxcontrib-bibtex's shape (`bibfile.is_bibdata_outdated` / `process_bibdata`): one
function decides whether the cached model is still valid (`cached_model`), one builds it
(`build_model`). Validity is a content hash, never a file time: every memo (the model, each check's
answer, each parsed file) is keyed by the bytes it answers for and by `inputs.code_digest()`, the
source of every core module and schema, so a changed rule never meets an old answer.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .capturefiles import FILES, CaptureFile, fix_for, input_row, model_inputs
from .crosscheck_results import crosscheck_values
from .master_copy import FOLDER as MASTER_COPY_FOLDER, master_copy_values
from .data import Capture, Value, index_flags, index_metrics
from .inputs import Inputs, memo_key
from .kinds import kind
from .memo import recall, remember
from .problems import Problem, ProblemError, capture_problem
from .runfiles import resolve_runs
from .schemas import usable
from .validate import Validation, capture_problems, validate_capture

#: The files the model is built from, as globs under the project root: the cached model's key. A view of the
#: table of capture files: each row that feeds a kind (`miles101.capturefiles.model_inputs`), so a new kind's
#: file is in it, and the model reads no file without its row (`capturefiles.input_row`).
CAPTURE_INPUTS = tuple(f"capture/{f.glob}" for f in model_inputs())
#: The rows whose records become values as they stand (`CaptureFile.records`), each loaded by `add_records` alone:
#: those whose first kind is a value kind (a run's values.json is joined with its run file: `_measured`).
RECORD_ROWS = tuple(f for f in FILES if f.records and f.kinds and kind(f.kinds[0]).value)
#: The memos kept in the build's doctree dir.
MODEL_CACHE, CHECKS_CACHE, PARSED_CACHE = "m101-capture.pickle", "m101-capture-valid.json", "m101-capture-files.pickle"


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
    validation = validate_capture(root, None if cache_dir is None else cache_dir / CHECKS_CACHE, inputs)
    if capture is None:
        capture = build_model(root, inputs, sources)
        if cache_dir is not None:
            remember(cache_dir / MODEL_CACHE, key, capture)
            remember(cache_dir / PARSED_CACHE, inputs.code, inputs.memo)
    capture.root = root
    return Intake(capture, capture_problems(validation, capture), validation)


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


def build_model(root: Path, inputs: Inputs, sources: dict[str, str | None]) -> Capture:
    """The model of capture/ under `root`, from the documents `inputs` parsed (`sources`: their `input_sums`);
    problems collected, not raised.

    The validation ran first: a file it found clean (`inputs.clean`) is read as it is, any other
    less the records its schema refuses (`schemas.usable`).
    """
    cap_dir = root / "capture"
    problems: list[Problem] = []

    def get(path: Path, default: Any) -> Any:
        rel = path.relative_to(root).as_posix()
        input_row(rel)  # a file the model reads has its row in the table, with the kinds it feeds
        try:
            return inputs.parsed(path, fix_for(rel))
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
        return path.relative_to(root).as_posix() in inputs.clean

    docs: dict[Path, dict] = {}

    def obj(path: Path) -> dict:
        """The file's object, less the records its schema refuses (miles101.validate reports them); once a build."""
        if path in docs:
            return docs[path]
        doc = get(path, {})
        if not isinstance(doc, dict):
            problems.append(capture_problem(path.relative_to(root).as_posix(), "the file does not hold a JSON object.",
                                            "restore it from git or re-run `python3 capture/run.py`."))
            doc = {}
        docs[path] = doc = doc if clean(path) else usable(path.relative_to(root).as_posix(), doc)
        return doc

    flags_doc = obj(cap_dir / "miles" / "flags.json")
    metrics_doc = obj(cap_dir / "miles" / "metrics.json")
    files_doc = obj(cap_dir / "miles" / "files.json")
    computed_doc = obj(cap_dir / "computed.json")
    flags, names = guarded("capture/miles/flags.json", lambda: index_flags(flags_doc), ({}, []))
    metrics, patterns = guarded("capture/miles/metrics.json", lambda: index_metrics(metrics_doc), ({}, []))
    runs: dict[str, dict] = {}
    for path in sorted((cap_dir / "runs").glob("*.yaml")):
        run = get(path, None)
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
        run_rec = get(run_json, None)
        if isinstance(run_rec, dict):
            run_rec = run_rec if clean(run_json) else usable(run_json.relative_to(root).as_posix(), run_rec)
        if isinstance(run_rec, dict) and run_rec.get("status") == "valid":
            rec_dir = run_json.parent
            host = obj(rec_dir / "host.json")
            values_doc = obj(rec_dir / "values.json")
            vals, missing = values_doc.get("values", {}), values_doc.get("missing", {})
            recordings[rec_dir.name] = {"run": run_rec, "host": host, "values": vals if isinstance(vals, dict) else {},
                                        "missing": missing if isinstance(missing, dict) else {}}
    for run_json in sorted((gpu / "_attempts").glob("*/run.json")):
        att = get(run_json, None)
        if isinstance(att, dict):
            attempts.append({**att, "dir": run_json.parent.name})
    values = guarded("capture/gpu", lambda: _measured(runs, recordings), {})

    def add_crosschecks(doc: dict, rel: str) -> None:
        found = crosscheck_values(Path(rel).stem, doc, computed_doc.get("values", {}))
        for key, (number, unit, what, detail) in found.items():
            values[("crosscheck", key)] = Value("crosscheck", key, number, unit, what, detail)

    crosschecks: dict[str, dict] = {}
    for path in sorted((cap_dir / "crosscheck" / "results").glob("*.json")):
        rel = path.relative_to(root).as_posix()
        doc = crosschecks[path.stem] = obj(path)
        guarded(rel, lambda: add_crosschecks(doc, rel), None)

    series = {path.stem: obj(path) for path in sorted((cap_dir / "series").glob("*.json"))}

    def add_master_copy(doc: dict, rel: str) -> None:
        for key, (number, unit, what, detail) in master_copy_values(Path(rel).stem, doc).items():
            values[("crosscheck", key)] = Value("crosscheck", key, number, unit, what, detail)

    for path in sorted((cap_dir / MASTER_COPY_FOLDER).glob("*.json")):  # what --no-keep-fp32-master costs
        rel = path.relative_to(root).as_posix()
        master_doc = obj(path)
        guarded(rel, lambda: add_master_copy(master_doc, rel), None)

    for row in RECORD_ROWS:  # each kind whose records hold their own values: its row alone (no code here)
        # a file of its own is read even when missing or a dangling link (a problem its references follow on from)
        for path in sorted(cap_dir.glob(row.glob)) if "*" in row.glob else [cap_dir / row.glob]:
            rel = path.relative_to(root).as_posix()
            doc = obj(path)
            guarded(rel, lambda: add_records(row, rel, doc, values, problems), None)  # noqa: B023
    provenance = flags_doc.get("provenance", {})
    families = flags_doc.get("families", [])
    files = files_doc.get("files", {})
    return Capture(
        root=root, provenance=provenance if isinstance(provenance, dict) else {}, flags=flags, flag_names=names,
        families=families if isinstance(families, list) else [], metrics=metrics, metric_patterns=patterns,
        files=files if isinstance(files, dict) else {}, values=values, runs=runs, recordings=recordings,
        attempts=attempts, problems=problems, crosschecks=crosschecks, series=series, sources=sources,
    )
