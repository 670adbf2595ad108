"""`python3 capture/run.py --check [--strict]`: verify everything the manual's numbers rest on.

1. every capture file against its JSON Schema;
2. every derived value recomputed from its raw data (computed.json, each recording's values.json);
3. every run file's command against the extracted flags;
4. every reference in the pages resolved against the data, without a Sphinx build;
5. manual.json's pin against the commit the capture read;
6. the pending values.
Exit 1 when any check fails (with --strict, also on pending values and a pin mismatch).
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

from miles101.book import load_book
from miles101.capture import load_capture
from miles101.pages import scan_pages
from miles101.problems import Problem
from miles101.resolve import resolve

ROOT = Path(__file__).resolve().parent.parent

SCHEMAS = {  # capture file (glob, relative to capture/) → schema file
    "miles/flags.json": "flags.schema.json",
    "miles/metrics.json": "metrics.schema.json",
    "miles/models.json": "models.schema.json",
    "miles/files.json": "files.schema.json",
    "computed.json": "computed.schema.json",
    "facts.json": "facts.schema.json",
    "references/*.json": "references.schema.json",
    "crosscheck/results/*.json": "crosscheck.schema.json",
    "runs/*.yaml": "run.schema.json",
    "gpu/*/run.json": "recording.schema.json",
    "gpu/*/host.json": "recording.schema.json",
    "gpu/*/values.json": "recording.schema.json",
}


@dataclass
class Report:
    """Findings by section; `failures` fail the check, `notes` never do."""

    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        self.failures.append(text)


def _load(path: Path) -> object:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text) if path.suffix == ".yaml" else json.loads(text)


def check_schemas(root: Path, report: Report) -> int:
    """Validate every capture file; a file that cannot be parsed is a failure with line and column."""
    cap, count = root / "capture", 0
    for pattern, schema_name in SCHEMAS.items():
        schema_path = cap / "schema" / schema_name
        if not schema_path.is_file():
            report.fail(f"capture/schema/{schema_name}: missing. Fix: restore it from git.")
            continue
        validator = jsonschema.Draft202012Validator(json.loads(schema_path.read_text(encoding="utf-8")))
        for path in sorted(cap.glob(pattern)):
            rel = path.relative_to(root).as_posix()
            count += 1
            try:
                doc = _load(path)
            except json.JSONDecodeError as exc:
                report.fail(f"{rel}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}); truncated? "
                            "Fix: restore it from git or re-run `python3 capture/run.py`.")
                continue
            except yaml.YAMLError as exc:
                report.fail(f"{rel}: invalid YAML ({exc}).")
                continue
            for error in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))[:5]:
                where = error.json_path
                report.fail(f"{rel}: {where}: {error.message} (schema {schema_name}).")
    return count


def check_computed(root: Path, report: Report) -> int:
    """computed.json must equal derive_all(models.json, flags.json), value for value."""
    from capture.derive import derive_all

    cap = root / "capture"
    try:
        models = json.loads((cap / "miles" / "models.json").read_text(encoding="utf-8"))
        flags = json.loads((cap / "miles" / "flags.json").read_text(encoding="utf-8"))
        committed = json.loads((cap / "computed.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        report.fail(f"capture/computed.json: cannot recompute ({exc}).")
        return 0
    fresh = derive_all(models, flags)
    want, got = fresh.get("values", {}), committed.get("values", {})
    for key in sorted(set(want) | set(got)):
        if key not in got:
            report.fail(f"capture/computed.json: {key} is missing. Fix: run `python3 capture/run.py`.")
        elif key not in want:
            report.fail(f"capture/computed.json: {key} is not derived from the extraction (edited by hand?). "
                        "Fix: run `python3 capture/run.py`.")
        elif got[key] != want[key]:
            report.fail(f"capture/computed.json: {key} holds {got[key].get('value')!r} but the derivation gives "
                        f"{want[key].get('value')!r} (edited by hand?). Fix: run `python3 capture/run.py`.")
    return len(want)


def check_recordings(root: Path, report: Report) -> int:
    """Each valid recording's values.json must equal derive_values(run file, steps.jsonl)."""
    from capture.lab.values import derive_values

    count = 0
    for run_json in sorted((root / "capture" / "gpu").glob("*/run.json")):
        rec_dir = run_json.parent
        rel = rec_dir.relative_to(root).as_posix()
        try:
            status = json.loads(run_json.read_text(encoding="utf-8")).get("status")
        except json.JSONDecodeError:
            continue  # reported by check_schemas
        if status != "valid":
            report.fail(f"{rel}: run.json says {status!r} but failed attempts belong in capture/gpu/_attempts/.")
            continue
        run_file = root / "capture" / "runs" / f"{rec_dir.name}.yaml"
        if not run_file.is_file():
            report.fail(f"{rel}: no run file capture/runs/{rec_dir.name}.yaml declares this recording.")
            continue
        run = yaml.safe_load(run_file.read_text(encoding="utf-8"))
        steps = [json.loads(line) for line in (rec_dir / "steps.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        fresh = derive_values(run, steps)
        committed = json.loads((rec_dir / "values.json").read_text(encoding="utf-8"))
        count += 1
        for name in sorted(set(fresh["values"]) | set(committed.get("values", {}))):
            a, b = committed.get("values", {}).get(name), fresh["values"].get(name)
            if a != b:
                report.fail(f"{rel}/values.json: {name} is {None if a is None else a.get('value')!r} but "
                            f"steps.jsonl gives {None if b is None else b.get('value')!r} (edited by hand?). "
                            f"Fix: re-derive with `python3 capture/run.py record {rec_dir.name} --rederive`"
                            " or restore the file.")
    return count


def check_crosschecks(root: Path, report: Report) -> int:
    """Each host's cross-check (capture/crosscheck/results/) against computed.json: counts equal, bytes within 2%."""
    from capture.crosscheck.verify import TOLERANCE, verify

    paths = sorted((root / "capture" / "crosscheck" / "results").glob("*.json"))
    try:
        computed = json.loads((root / "capture" / "computed.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0  # reported by check_schemas / check_computed
    for path in paths:
        rel = path.relative_to(root).as_posix()
        try:
            results = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # reported by check_schemas
        for problem in verify(results, computed, TOLERANCE):
            report.fail(f"{rel}: {problem}. Fix: re-run `python3 -m capture.crosscheck` on that host, or find "
                        "why capture/derive.py and the allocator disagree.")
    return len(paths)


def check_run_files(root: Path, report: Report) -> int:
    """Every run file's command must name real flags with valid values, and real metric keys."""
    from capture.lab.catalog import Catalog
    from capture.lab.runfile import RunFileError, load_run

    miles = root / "capture" / "miles"
    try:
        catalog = Catalog.load(miles / "flags.json", miles / "metrics.json")
    except (OSError, ValueError) as exc:
        report.fail(f"capture/miles: cannot load the flags to check run files ({exc}).")
        return 0
    paths = sorted((root / "capture" / "runs").glob("*.yaml"))
    for path in paths:
        try:
            load_run(path, catalog)
        except RunFileError as exc:
            for error in exc.errors:
                report.fail(error.replace(str(root) + "/", ""))
    return len(paths)


def page_problems(capture, refs) -> list[tuple]:
    """(ref, problem) for each reference the resolver cannot resolve: the problems the build warns about."""
    found = []
    for ref in refs:
        result = resolve(capture, ref.kind, ref.text)
        if isinstance(result, Problem):
            found.append((ref, result))
    return found


def check_pages(root: Path, report: Report) -> int:
    """Resolve every reference in every page of the book against the data (the build's resolver)."""
    book, problems = load_book(root / "manual.json", root)
    for p in problems:
        (report.fail if p.fatal else report.warnings.append)(str(p))
    if book is None:
        return 0
    capture = load_capture(root)
    for problem in capture.problems:
        report.fail(str(problem))
    refs = scan_pages(root, book.page_files)
    for ref, problem in page_problems(capture, refs):
        report.fail(f"{ref.file}:{ref.line}: {problem} [{problem.subtype}]")
    for key in capture.value_keys("reference"):  # every reference's own src, cited or not
        src = capture.value("reference", key).detail.get("src")
        why = capture.src_spec_problem(src) if src else None
        if why:
            report.fail(f"{capture.value('reference', key).detail['file']}: reference {key}: {why}")
    return len(refs)


def check_pin(root: Path, report: Report, strict: bool) -> None:
    """The pin in manual.json beside what the capture read; older captures say how to refresh."""
    book, _ = load_book(root / "manual.json", root)
    if book is None:
        return
    pin = book.data["pin"]
    read = load_capture(root).provenance
    commit = str(read.get("commit", ""))
    if commit.startswith(pin["commit"]):
        report.notes.append(f"pin: the capture read the pinned commit {pin['commit']}.")
        return
    text = (f"pin: manual.json pins {pin['subject']} {pin['commit']} ({pin['date']}), but the capture read "
            f"{commit[:10] or 'nothing'} ({read.get('commit_date', '?')}, from {read.get('read_from', '?')}).")
    if read.get("commit_date", "") < pin["date"]:
        text += (" The captured commit is older than the pin. Fix: on a host with the pinned image run "
                 "`tox -e capture` (or `python3 capture/run.py --image radixark/miles:latest`), or point "
                 "`--miles-src` at a checkout of the pinned commit.")
    (report.fail if strict else report.warnings.append)(text)


def pending_values(root: Path) -> list[str]:
    capture = load_capture(root)
    return [f"measured:{key}" for key in capture.value_keys("measured") if capture.value("measured", key).pending]


def run_check(root: Path, strict: bool = False) -> tuple[Report, dict[str, int | float]]:
    started = time.perf_counter()
    report = Report()
    counts: dict[str, int | float] = {
        "capture files validated": check_schemas(root, report),
        "computed values recomputed": check_computed(root, report),
        "recordings re-derived": check_recordings(root, report),
        "cross-checks held against computed.json": check_crosschecks(root, report),
        "run files checked": check_run_files(root, report),
        "page references resolved": check_pages(root, report),
    }
    check_pin(root, report, strict)
    pending = pending_values(root)
    counts["pending values"] = len(pending)
    if pending:
        line = f"pending: {len(pending)} declared value(s) have no valid recording yet (record them on a DGX Spark)."
        (report.fail if strict else report.notes.append)(line)
    counts["seconds"] = round(time.perf_counter() - started, 2)
    return report, counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="capture/run.py --check", description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="also fail on pending values and a pin mismatch")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project to check (default: this one)")
    args = parser.parse_args(argv)
    report, counts = run_check(args.root.resolve(), args.strict)
    for name, value in counts.items():
        print(f"  {name}: {value}")
    for text in report.notes:
        print(f"note: {text}")
    for text in report.warnings:
        print(f"warning: {text}")
    for text in report.failures:
        print(f"FAIL: {text}")
    verdict = "FAILED" if report.failures else "passed"
    print(f"check {verdict}: {len(report.failures)} failure(s), {len(report.warnings)} warning(s)"
          f"{' (strict)' if args.strict else ''}.")
    return 1 if report.failures else 0
