"""`python3 capture/run.py --check [--strict]`: verify everything the manual's numbers rest on.

1. every capture file against its JSON Schema, finite numbers, each value in its unit's range;
2. every derived value recomputed from its raw data (computed.json, each recording's values.json),
   and each host's cross-check held against computed.json;
   1 and 2 are `miles101.validate`, the rules the build applies too;
3. every run file's command against the extracted flags;
4. every reference in the pages resolved against the data, without a Sphinx build;
5. manual.json's pin against the commit the capture read;
6. the fact-check record (capture/factcheck.json): known pages and classes, counts that add up;
7. the pending values.
Exit 1 when any check fails (with --strict, also on pending values and a pin mismatch).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

from miles101.book import load_book
from miles101.capture import Capture, load_capture
from miles101.factcheck import factcheck_problems, load_factcheck
from miles101.pages import scan_pages
from miles101.problems import Problem
from miles101.resolve import resolve
from miles101.validate import capture_problems, validate_capture

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Report:
    """Findings by section; `failures` fail the check, `notes` never do."""

    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        self.failures.append(text)


def check_capture(root: Path, report: Report) -> tuple[Capture, dict[str, int]]:
    """Schemas, finiteness, unit ranges and derived values: `miles101.validate`, the build's own rules.

    Validated first, then loaded once (the loader skips the schema for the files found clean); the
    other checks read this capture.
    """
    result = validate_capture(root)
    capture = load_capture(root)
    problems = capture_problems(result, capture)
    for problem in problems:
        report.fail(f"{problem} [manual.capture]")
    return capture, {"capture files validated": result.files, "computed values recomputed": result.computed,
                     "recordings re-derived": result.recordings,
                     "cross-checks held against computed.json": result.crosschecks}


def check_run_files(root: Path, capture: Capture, report: Report) -> int:
    """Every run file's command must name real flags with valid values, and real metric keys."""
    from capture.lab.catalog import Catalog
    from capture.lab.runfile import RunFileError, load_run

    if not capture.flags:  # the build's index of flags.json, less what fails its schema
        report.fail("capture/miles/flags.json: no flags to check the run files against. "
                    "Fix: the problems named for capture/miles/flags.json first.")
        return 0
    catalog = Catalog.from_capture(capture)
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


def check_pages(root: Path, capture: Capture, report: Report) -> int:
    """Resolve every reference in every page of the book against the data (the build's resolver)."""
    book, problems = load_book(root / "manual.json", root)
    for p in problems:
        report.fail(f"{p} [manual.{p.subtype}]")  # the build warns each; -W fails on it
    if book is None:
        return 0
    refs = scan_pages(root, book.page_files)
    for ref, problem in page_problems(capture, refs):
        report.fail(f"{ref.file}:{ref.line}: {problem} [{problem.subtype}]")
    for kind in ("reference", "threshold"):  # every reference's and threshold's own src, cited or not
        for key in capture.value_keys(kind):
            src = capture.value(kind, key).detail.get("src")
            why = capture.src_spec_problem(src) if src else None
            if why:
                report.fail(f"{capture.value(kind, key).detail['file']}: {kind} {key}: {why}")
    return len(refs)


def check_pin(root: Path, capture: Capture, report: Report, strict: bool) -> None:
    """The pin in manual.json beside what the capture read; older captures say how to refresh."""
    book, _ = load_book(root / "manual.json", root)
    if book is None:
        return
    pin = book.data["pin"]
    read = capture.provenance
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


def check_factcheck(root: Path, capture: Capture, report: Report) -> int:
    """The fact-check record beyond its schema: pages of the book, known classes, counts, Miles lines."""
    book, _ = load_book(root / "manual.json", root)
    try:
        record = load_factcheck(root)
    except ValueError:
        return 0  # not JSON: the schema check names the line
    pages = book.page_files if book is not None else []
    for where, what, fix in factcheck_problems(record, pages, capture):
        report.fail(f"{where}: {what} Fix: {fix} [manual.capture]")
    return len(record.checks)


def pending_values(capture: Capture) -> list[str]:
    return [f"measured:{key}" for key in capture.value_keys("measured") if capture.value("measured", key).pending]


def run_check(root: Path, strict: bool = False) -> tuple[Report, dict[str, int | float]]:
    started = time.perf_counter()
    report = Report()
    capture, found = check_capture(root, report)
    counts: dict[str, int | float] = dict(found)
    counts["run files checked"] = check_run_files(root, capture, report)
    counts["page references resolved"] = check_pages(root, capture, report)
    counts["fact-check entries"] = check_factcheck(root, capture, report)
    check_pin(root, capture, report, strict)
    pending = pending_values(capture)
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
