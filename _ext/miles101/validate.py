"""Validate every capture file the book reads: the one implementation behind the build and `--check`.

Rules, each reported as a `Problem` (`manual.capture`) naming the file, the JSON path (or line) and the fix:

1. the file reads, through the one strict reader (`miles101.strict`): a regular file inside the
   project, UTF-8, valid JSON/YAML, no duplicate keys, bounded depth, digits and YAML aliases;
   a recording being written (`gpu/.tmp-*`) is no data; one whose commit was cut short is named
   with `record --recover`;
2. it matches its JSON Schema (_ext/miles101/schema/*, rules of the book shipped with the core);
3. every number is finite (a NaN or an inf is never published);
4. a value is inside its unit's range: no negative time, size or count; a fraction, share or
   probability within 0..1; a percentage within 0..100;
5. derived values equal their inputs: computed.json = miles101.derive.derive_all(models.json,
   flags.json); each recording's values.json = miles101.values.derive_values(run file, steps.jsonl);
6. each host's cross-check (crosscheck/results/*.json) agrees with computed.json
   (`miles101.crosscheck_results.crosscheck_problems`: parameter counts equal, held bytes within 2%);
7. each run file whose schema passed names only flags Miles has, with valid values
   (`miles101.runcheck`, the rules of `record`, run by `miles101.intake.run_file_problems`: it reads
   the run's `base` chain and the extraction through the intake's inputs), so a page never publishes a
   command Miles refuses;
8. a reference's low is not above its high; a steps.jsonl holds one row per step and seed.

The rules here are functions of the documents and bytes they are handed; the intake
(`miles101.intake.one_pass`) runs them in its one loop over the table of capture files, keeps each
answer in its memo (`memo.Answers`, keyed by the bytes a check reads and the code's digest) and reads every
file once, through its `Inputs`.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .capturefiles import fix_for, required, row_for
from .crosscheck_results import crosscheck_problems
from .derive import derive_all
from .kinds import REFERENCE_KINDS, broken_sources
from .problems import Problem, ProblemError, capture_problem, json_path
from .rulefiles import rule_problems
from .runfiles import BaseError, resolve_run
from .schemas import non_finite
from .series import rederive
from .strict import outside, parse_json_bytes, parse_yaml_bytes, read_bytes

# miles101.runcheck (and jsonschema with it), miles101.values (the run reader, statistics) and miles101.catalog are
# imported by the checks that use them, when a check runs: a build whose capture is unchanged answers every check
# from the cache and imports none of them.

#: Files that must exist for the book to be checked at all (rows of the table of capture files).
REQUIRED = required()
REDERIVE = "re-derive it with `python3 capture/run.py record {run} --rederive`, or restore it from git (`git checkout -- {file}`)"


# ---------------------------------------------------------------------------------- rules


def unit_range(unit: str) -> tuple[float | None, float | None, str] | None:
    """(low, high, what) the unit allows, or None when any number fits (nats, reward, ...)."""
    u = unit.strip().lower()
    first = u.split(" ")[0] if u else ""
    if u == "ratio" or u.startswith(("fraction", "share", "probability", "of ")):
        return 0.0, 1.0, f"a {unit or 'fraction'} lies within 0 and 1"
    if u.startswith("%"):
        return 0.0, 100.0, "a percentage lies within 0 and 100"
    if u == "" or first in {"s", "ms", "gb", "gib", "mb", "mib", "bytes", "tokens", "tok/s", "steps", "groups",
                            "norm", "gradient", "×", "correct"} or u.startswith(("ratio of", "ratio to")):
        return 0.0, None, f"a {unit or 'count'} is never negative"
    return None


def _range_problem(rel: str, path: tuple, number: Any, unit: str) -> Problem | None:
    rng = unit_range(unit)
    if rng is None or not isinstance(number, (int, float)) or isinstance(number, bool) or not math.isfinite(number):
        return None
    low, high, why = rng
    if (low is not None and number < low) or (high is not None and number > high):
        return capture_problem(f"{rel}:{json_path(path)}", f"{number!r} {unit} is out of range ({why}).",
                               "correct the number (or its unit) from its source.")
    return None


def value_records(rel: str, doc: Any) -> Iterable[tuple[tuple, dict]]:
    """(path, record) for each cited number's record in a parsed capture file."""
    row = row_for(rel)
    key = None if row is None else row.records  # the key whose records become values (the table's row)
    if not isinstance(doc, dict) or key is None or not isinstance(doc.get(key), dict):
        return
    for k, rec in doc[key].items():
        if isinstance(rec, dict):
            yield (key, k), rec


def _said(error: Any) -> str:
    """What a schema error says: jsonschema's message, or where it only says "not valid under any of the given
    schemas" (anyOf, oneOf) or names a pattern, the rule in the words of the schema's own description."""
    described = error.schema.get("description") if isinstance(error.schema, dict) else None
    if described and error.validator in ("anyOf", "oneOf"):
        return f"it needs {described}"
    if described and error.validator == "pattern":
        return f"{error.message[:200]}: it must be {described}"
    return error.message[:200]


def file_problems(rel: str, parse: Callable[[], Any], schema_errors: Callable[[Any], Iterable[Any]],
                  schema_name: str) -> list[Problem]:
    """Every problem of one capture file on its own: reading, schema (`schema_errors` of the document: jsonschema's
    errors), finiteness, unit range."""
    fix = fix_for(rel)
    try:
        doc = parse()
    except ProblemError as exc:
        return [exc.problem]
    problems: list[Problem] = []
    for path, number in non_finite(doc):
        problems.append(capture_problem(f"{rel}:{json_path(path)}", f"{number} is not a number a page can show.",
                                        f"put the real value there, or {fix}."))
    errors = sorted(schema_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors[:10]:
        found = json.dumps(error.instance, default=str)
        found = found if len(found) <= 60 else found[:57] + "..."
        problems.append(capture_problem(f"{rel}:{json_path(error.absolute_path)}",
                                        f"{_said(error)} (found {found}; schema {schema_name}).",
                                        f"change the value at {json_path(error.absolute_path)}, or {fix}."))
    if not errors:
        problems += rule_problems(rel, doc)  # the doctor's rule files: what their schema cannot say
    for path, rec in value_records(rel, doc):
        low, high = rec.get("low"), rec.get("high")
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (low, high)) and low > high:
            problems.append(capture_problem(f"{rel}:{json_path((*path, 'low'))}", f"low {low!r} is above high {high!r}; "
                                            "the page would print a range that runs backwards.",
                                            "swap them, or correct them from the source."))
        for field_name in ("value", "low", "high"):
            p = _range_problem(rel, (*path, field_name), rec.get(field_name), str(rec.get("unit", "")))
            if p:
                problems.append(p)
    return problems


def computed_problems(models_raw: bytes, flags_raw: bytes, computed_raw: bytes) -> list[Problem]:
    """computed.json must equal derive_all(models.json, flags.json), value for value."""
    rel = "capture/computed.json"
    fix = ("run `python3 capture/run.py --miles-src PATH` (it re-derives computed.json), or restore the file "
           "from git (`git checkout -- capture/computed.json capture/miles/models.json capture/miles/flags.json`)")
    try:
        models = parse_json_bytes(models_raw, "capture/miles/models.json", fix)
        flags = parse_json_bytes(flags_raw, "capture/miles/flags.json", fix)
        committed = parse_json_bytes(computed_raw, rel, fix)
        fresh = derive_all(models, flags)
    except ProblemError:
        return []  # the file's own check names it
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        return [capture_problem(rel, f"cannot be re-derived from models.json and flags.json ({type(exc).__name__}: {exc}).",
                                "fix the schema problems named for those files first.")]
    want = fresh.get("values", {})
    got = committed.get("values", {}) if isinstance(committed, dict) else {}
    got = got if isinstance(got, dict) else {}
    problems = []
    for key in sorted(set(want) | set(got)):
        where = f"{rel}:{json_path(('values', key))}"
        if key not in got:
            problems.append(capture_problem(where, f"{key} is missing.", f"{fix}."))
        elif key not in want:
            problems.append(capture_problem(where, f"{key} is not derived from the extraction (edited by hand?).",
                                            f"{fix}."))
        elif got[key] != want[key]:
            g = got[key].get("value") if isinstance(got[key], dict) else got[key]
            problems.append(capture_problem(where, f"{key} holds {g!r} but the derivation gives {want[key].get('value')!r} "
                                            "(edited by hand?).", f"{fix}."))
    return problems


#: The sections of a steps.jsonl row that hold Miles's metrics (miles101.tools.read_run.lookup reads them).
STEP_SECTIONS = ("rollout", "perf", "train", "eval", "memory", "lab")


def read_steps(raw: bytes, rel: str, lines: dict[tuple, int] | None = None) -> tuple[list[dict], list[Problem]]:
    """steps.jsonl rows; a line that is not a JSON object of numbers is named with its line number.

    `lines`, when given, is filled with (step, seed) → line number, for messages about a row.
    """
    rows, problems = [], []
    seen: dict[tuple, int] = {}
    fix = "restore the file from git, or record the run again."
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return [], [capture_problem(f"{rel}:{line}", "not UTF-8 text.", fix)]
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = parse_json_bytes(line.encode(), f"{rel}:{n}", fix.rstrip("."))
        except ProblemError as exc:
            problems.append(capture_problem(f"{rel}:{n}", exc.problem.message, fix))
            continue
        if not isinstance(row, dict) or not isinstance(row.get("step"), int) or isinstance(row.get("step"), bool):
            problems.append(capture_problem(f"{rel}:{n}", "a row must be an object with an integer \"step\".", fix))
            continue
        wrong = []
        for section in STEP_SECTIONS:
            part = row.get(section)
            if part is None:
                continue
            if not isinstance(part, dict):
                wrong.append(f"{section} is {type(part).__name__}, not an object")
                continue
            wrong += [f"{section}.{key} = {json.dumps(v)[:40]}" for key, v in part.items()
                      if not (v is None or isinstance(v, (int, float)))]
        if wrong:
            problems.append(capture_problem(f"{rel}:{n}", f"step {row['step']}: a metric must be a number "
                                            f"({'; '.join(wrong[:3])}).", fix))
            continue
        first = seen.setdefault((row["step"], json.dumps(row.get("seed"))), n)
        if first != n:  # a second row of one step would count twice in every median and mean
            problems.append(capture_problem(f"{rel}:{n}", f"step {row['step']} of seed {row.get('seed')!r} appears "
                                            f"twice (first at line {first}); each step has one row.",
                                            "keep one of the two rows, " + fix))
            continue
        if lines is not None:
            lines.setdefault((row["step"], row.get("seed")), n)
        rows.append(row)
    return rows, problems


def _left_out(entry: Any, rel: str, lines: dict[tuple, int]) -> str:
    """' (it leaves out steps.jsonl:N: step S of seed X: nan; ...)' for a derived value's excluded steps."""
    if not isinstance(entry, dict) or not entry.get("excluded"):
        return ""
    named = []
    for text in entry["excluded"]:
        m = re.match(r"step (\d+)(?: of seed (\S+))?:", text)
        seed: Any = None
        if m and m[2] is not None:
            seed = int(m[2]) if m[2].lstrip("-").isdigit() else m[2]
        line = lines.get((int(m[1]), seed)) if m else None
        named.append(f"{rel}:{line}: {text}" if line else text)
    return f" (it leaves out {'; '.join(named)})"


def recording_problems(run_id: str, run_json: bytes, run_yaml: bytes | None, steps: bytes | None,
                       values: bytes | None, bases: tuple[bytes, ...] = ()) -> list[Problem]:
    """A recording: valid status, a run file, readable steps, and values.json = derive_values(steps).

    `bases` are the run files of the run's `base` chain, so the run is read with its base filled in.
    """
    base = f"capture/gpu/{run_id}"
    try:
        status = parse_json_bytes(run_json, f"{base}/run.json", "restore it").get("status")
    except (ProblemError, AttributeError):
        return []  # named by the file's own check
    if status != "valid":
        return [capture_problem(f"{base}/run.json:$.status", f"run.json says {status!r}, but only a valid recording "
                                "belongs in capture/gpu/<id>/.", "move the attempt to capture/gpu/_attempts/.")]
    if run_yaml is None:
        return [capture_problem(f"{base}/run.json", f"no run file capture/runs/{run_id}.yaml declares this recording.",
                                f"restore capture/runs/{run_id}.yaml, or remove {base}/.")]
    if steps is None:
        return [capture_problem(f"{base}/steps.jsonl", "the file does not exist; values.json cannot be verified.",
                                f"restore it from git, or record the run again (`python3 capture/run.py record {run_id} --force`).")]
    if values is None:
        return [capture_problem(f"{base}/values.json", "the file does not exist.",
                                REDERIVE.format(run=run_id, file=f"{base}/values.json"))]
    lines: dict[tuple, int] = {}
    rows, problems = read_steps(steps, f"{base}/steps.jsonl", lines)
    if problems:
        return problems
    if not rows:
        return [capture_problem(f"{base}/steps.jsonl:1", "the file holds no step rows, but run.json says the recording "
                                "is valid.", f"restore it from git, or record the run again "
                                f"(`python3 capture/run.py record {run_id} --force`).")]
    try:
        run = parse_yaml_bytes(run_yaml, f"capture/runs/{run_id}.yaml")
        if bases and isinstance(run, dict):

            chain = [parse_yaml_bytes(b, f"capture/runs/{run_id}.yaml: base") for b in bases]
            raw = {r.get("id"): r for r in chain if isinstance(r, dict)}
            try:
                run = resolve_run(run_id, {**raw, run_id: run})
            except BaseError:
                return []  # named by the loader
        committed = parse_json_bytes(values, f"{base}/values.json", "restore it")
        from .values import derive_values  # with the run reader: only when a recording is checked afresh

        fresh = derive_values(run, rows)
    except ProblemError:
        return []  # named by the file's own check
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        return [capture_problem(f"{base}/values.json", f"cannot be re-derived from steps.jsonl ({type(exc).__name__}: {exc}).",
                                f"fix capture/runs/{run_id}.yaml and {base}/steps.jsonl first.")]
    got = committed.get("values", {}) if isinstance(committed, dict) else {}
    got = got if isinstance(got, dict) else {}
    for name in sorted(set(fresh["values"]) | set(got)):
        a, b = got.get(name), fresh["values"].get(name)
        if a != b:
            av = a.get("value") if isinstance(a, dict) else a
            problems.append(capture_problem(
                f"{base}/values.json:{json_path(('values', name))}",
                f"{name} is {av!r} but steps.jsonl gives {None if b is None else b.get('value')!r}"
                f"{_left_out(b, f'{base}/steps.jsonl', lines)} (edited by hand?).",
                REDERIVE.format(run=run_id, file=f"{base}/values.json") + "."))
    return problems


def crosscheck_file_problems(rel: str, results_raw: bytes, computed_raw: bytes) -> list[Problem]:
    """One host's cross-check results held against computed.json (the rule of `miles101.crosscheck_results`)."""
    fix = ("re-run `python3 capture/run.py crosscheck` on that host, or find why _ext/miles101/derive.py and the "
           "allocator disagree")
    try:
        results = parse_json_bytes(results_raw, rel, fix)
        computed = parse_json_bytes(computed_raw, "capture/computed.json", fix)
        if not isinstance(results, dict) or not isinstance(computed, dict):
            return []  # named by the files' own checks
        found = crosscheck_problems(results, computed)
    except ProblemError:
        return []  # named by the file's own check
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        return [capture_problem(rel, f"cannot be held against capture/computed.json ({type(exc).__name__}: {exc}).",
                                "fix the schema problems named for the two files first.")]
    return [capture_problem(f"{rel}:{json_path(path)}", f"{text}.", f"{fix}.") for path, text in found]


# ---------------------------------------------------------------------------------- driver


@dataclass
class Validation:
    """What validating capture/ found, with counts for `--check`'s summary."""
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    computed: int = 0  # values in computed.json, each compared with its derivation
    recordings: int = 0
    crosschecks: int = 0  # hosts' cross-check results held against computed.json
    cached: int = 0
    checked: int = 0


def _in_gpu_dot_dir(path: Path, cap: Path) -> bool:
    """A file under capture/gpu/.tmp-* or .old-*: a recording being written or committed, never data."""
    try:
        parts = path.relative_to(cap / "gpu").parts
    except ValueError:
        return False
    return bool(parts) and parts[0].startswith(".")


RECOVER = "python3 capture/run.py record --recover"


def interrupted_commits(cap: Path) -> list[Problem]:
    """A recorder stopped between the renames of a commit leaves `.old-*`, or a `.tmp-*` that says valid."""
    problems = []
    gpu = cap / "gpu"
    for path in sorted(gpu.glob(".old-*")) + sorted(gpu.glob(".tmp-*")):
        if path.name.startswith(".tmp-"):
        
            try:
                status = parse_json_bytes(read_bytes(path / "run.json", path.name, cap), path.name, "").get("status")
            except (ProblemError, AttributeError):
                status = None
            if status != "valid":
                continue  # a recording in progress, or a killed attempt: the recorder moves it to _attempts/
        if outside(path, cap):
            continue
        rel = path.relative_to(cap.parent).as_posix()
        problems.append(capture_problem(
            f"{rel}:1", "a recorder was stopped in the middle of committing a recording, so capture/gpu/ may hold the "
            "old recording, the new one or neither.",
            f"run `{RECOVER}` (it finishes the commit, or puts the old recording back); no recorder may be running"))
    return problems


def _series_excerpt_sum(root: Path, raw: bytes) -> tuple[str, ...]:
    """The sum of a series file's excerpt (part of its check's memo key), or () when it names none."""
    try:
        excerpt = json.loads(raw).get("excerpt")
    except (ValueError, AttributeError):
        return ()
    if not isinstance(excerpt, str):
        return ()
    try:
        return excerpt, hashlib.sha256((root / excerpt).read_bytes()).hexdigest()
    except OSError:
        return excerpt, "unreadable"


def series_problems(root: Path, rel: str, raw: bytes) -> list[Problem]:
    """A public series file must be what its excerpt of the public log gives, parsed again (`miles101.series`)."""
    doc = json.loads(raw)
    return [capture_problem(rel, f"{why}.", fix_for(rel) + ".") for why in rederive(root, rel, doc)]


def reference_src_problems(capture: Any) -> list[Problem]:
    """Every reference's own `src`, cited or not, must be a line range of a Miles file (both gates apply it)."""
    out = []
    value_keys = getattr(capture, "value_keys", None)
    if value_keys is None or "src" in broken_sources(capture):
        return []  # files.json cannot be read: named once, not once per reference
    for kind, key in [(kind, key) for kind in REFERENCE_KINDS.values() for key in value_keys(kind)]:
        value = capture.value(kind, key)
        src = value.detail.get("src")
        why = capture.src_spec_problem(src) if isinstance(src, str) and src else None
        if why:
            out.append(capture_problem(f"{value.detail['file']}:{json_path(('references', key, 'src'))}",
                                       f"reference {key}: {why}", "correct the src from Miles's source (AUTHORING.md)."))
    return out


def capture_problems(result: Validation, capture: Any) -> list[Problem]:
    """Validation problems plus the loader's own (a reference key defined twice ...), each once.

    `miles101.intake` validates before building the model: the builder reads files found clean as they are.
    """
    seen: set[str] = set()
    merged: list[Problem] = []
    for p in [*result.problems, *getattr(capture, "problems", []), *reference_src_problems(capture)]:
        key = f"{p.file}|{p.message}"
        if key in seen:
            continue
        seen.add(key)
        merged.append(p)
    return merged
