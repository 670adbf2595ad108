"""`python3 capture/run.py --check [--strict]`: verify everything the manual's numbers rest on.

1. every capture file against its JSON Schema, finite numbers, each value in its unit's range;
2. every derived value recomputed from its raw data (computed.json, each recording's values.json),
   and each host's cross-check held against computed.json;
   1 and 2 are `miles101.validate`, the rules the build applies too;
3. every run file's command against the extracted flags;
4. every reference in the pages resolved against the data, without a Sphinx build, and the pages' numbers
   recomputed or held to their source (time products, `≈`, commands, words: `miles101.pagenumbers`);
5. manual.json's pin against the commit the capture read;
6. the fact-check record (capture/factcheck.json): known pages and classes, counts that add up;
7. the pending values.
Exit 1 when any check fails (with --strict, also on pending values and a pin mismatch).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from miles101.book import load_book
from miles101.crosscheck_results import uncovered_models, uncovered_note
from miles101.figurerules import book_figure_problems
from miles101.fit import fit_directive_problems
from miles101.flagrules import book_flag_block_problems
from miles101.data import Capture
from miles101.factcheck import factcheck_problems, load_factcheck
from miles101.markup import directive_option_problems, directive_options, listing_lines
from miles101.markup import page_problems as markup_page_problems
from miles101.pagenumbers import book_number_problems
from miles101.pages import scan_pages
from miles101.kinds import broken_sources
from miles101.problems import Problem, ProblemError, Subtype
from miles101.resolve import resolve
from miles101.rulefiles import doctor_blocks, missing_rules
from miles101.strict import decode, read_bytes
from miles101.intake import take_in

ROOT = Path(__file__).resolve().parent.parent
#: The web build's doctree folder (`dev.py docs`, tox -e docs). --check reads a cache only when told to
#: (`--cache DIR`, e.g. this folder): by default, and for any `--root`, it reads the capture afresh and unpickles
#: nothing. With `--cache`, every memo is keyed by the bytes and the code it answers for (miles101.intake) and
#: read as plain data (miles101.memo), so a warm check answers as a cold one.
BUILD_CACHE = "_build/doctrees"


@dataclass
class Report:
    """Findings by section; `failures` fail the check, `notes` never do."""

    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        self.failures.append(text)


def check_capture(root: Path, report: Report, cache_dir: Path | None = None) -> tuple[Capture, dict[str, int]]:
    """Schemas, finiteness, unit ranges and derived values: `miles101.validate`, the build's own rules.

    The capture is taken in once (`miles101.intake.take_in`: read, checked, modelled); the other
    checks read this capture. With `cache_dir`, the intake reuses what the same bytes and code gave
    (as a build does in its doctree dir); without it, as on the command line, every file is checked.
    """
    intake = take_in(root, cache_dir)
    capture, result = intake.capture, intake.validation
    for problem in intake.problems:
        report.fail(f"{problem} [manual.capture]")
    return capture, {"capture files validated": result.files, "computed values recomputed": result.computed,
                     "recordings re-derived": result.recordings,
                     "cross-checks held against computed.json": result.crosschecks}


def check_run_files(root: Path, report: Report) -> int:
    """How many run files were held against the extracted flags.

    The check itself is `miles101.intake.run_file_problems`, part of `check_capture`, so the build
    applies it too (a run file naming a flag Miles lacks fails both gates).
    """
    return len(sorted((root / "capture" / "runs").glob("*.yaml")))


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
        report.fail(f"{p} [{p.subtype}]")  # the build warns each; -W fails on it
    if book is None:
        return 0
    for problem in page_text_problems(root, book.page_files):
        report.fail(f"{problem} [{problem.subtype}]")
    pages = page_sources(root, book.page_files)
    for problem in [*book_figure_problems(pages, (book.data.get("plate") or {}).get("figure")),
                    *book_flag_block_problems(capture, pages),
                    *fit_directive_problems(capture, pages),
                    *book_number_problems(capture, root, pages)]:  # the build's rules (figurerules, flagrules, fit, pagenumbers)
        report.fail(f"{problem} [{problem.subtype}]")
    for problem in listing_problems(root, capture, book.page_files):
        report.fail(f"{problem} [{problem.subtype}]")
    refs = scan_pages(root, book.page_files)
    broken = broken_sources(capture)
    held: dict[str, int] = {}
    for ref, problem in page_problems(capture, refs):
        cause = broken.get(ref.kind)
        if cause:  # a follow-on of a broken capture file: counted under its root cause, not listed
            held[cause] = held.get(cause, 0) + 1
            continue
        report.fail(f"{ref.file}:{ref.line}: {problem} [{problem.subtype}]")
    for cause, count in held.items():
        report.fail(f"{cause}: {count} page reference(s) that need it were not checked, because it is broken "
                    f"(its own problems are listed above). Fix: repair {cause} first; they are checked again then.")
    note = uncovered_note(uncovered_models([r.key for r in refs if r.kind == "computed"],
                                           lambda m: capture.value("computed", f"params.{m}") is not None,
                                           capture.crosschecks))
    if note:  # a note, not a failure: these rows are held only by re-deriving models.json
        report.notes.append(note)
    return len(refs)  # every reference's own src, cited or not: miles101.validate.reference_src_problems


def page_text_problems(root: Path, files: list[str]) -> list[Problem]:
    """A page that is not a readable UTF-8 file, raw HTML, an open role, a bad option: each at its page and line."""
    out = []
    for rel in files:
        path = root / rel
        if not path.exists():
            continue  # load_book names a missing page
        try:
            restore = f"restore it from git (`git checkout -- {rel}`)"
            text = decode(read_bytes(path, rel, root, restore), rel, restore)
        except ProblemError as exc:
            out.append(replace(exc.problem, subtype=Subtype.MARKUP, where=exc.problem.location))
            continue
        out += markup_page_problems(text, rel)
        for line in doctor_blocks(text):  # a {log-doctor} needs its rule file (the build's rule too)
            missing = missing_rules(root, rel, line)
            if missing is not None:
                out.append(missing)
    return out


def page_sources(root: Path, files: list[str]) -> list[tuple[str, str]]:
    """(page file, text) of each readable page, in book order (an unreadable one is named by page_text_problems)."""
    pages = []
    for rel in files:
        try:
            pages.append((rel, (root / rel).read_bytes().decode("utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return pages


def listing_problems(root: Path, capture, files: list[str]) -> list[Problem]:
    """Each {listing} of a recorded run whose options its log cannot meet (the build's rule), at its page and line."""
    out = []
    for rel in files:
        try:
            text = (root / rel).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # named by page_text_problems
        for line, name, run_id, options in directive_options(text):
            if name != "listing" or run_id not in capture.recordings or directive_option_problems(name, options):
                continue
            _, why = listing_lines(root, run_id, options)
            if why:
                out.append(replace(why, where=f"{rel}:{line}"))
    return out


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


def check_factcheck(root: Path, capture: Capture, report: Report) -> tuple[int, int]:
    """The fact-check record beyond its schema: pages of the book, known classes, counts, Miles lines, and each
    universal claim still on its page. Returns (entries, universal claims held)."""
    book, _ = load_book(root / "manual.json", root)
    try:
        record = load_factcheck(root)
    except ValueError:
        return 0, 0  # not JSON: the schema check names the line
    # Without a book (manual.json or a page is broken, named above) no entry's page can be judged: not 98 echoes.
    pages = book.page_files if book is not None else None
    for problem in factcheck_problems(record, pages, capture):
        report.fail(f"{problem} [{problem.subtype}]")
    return len(record.checks), len(record.claims)


def pending_values(capture: Capture) -> list[str]:
    return [f"measured:{key}" for key in capture.value_keys("measured")
            if capture.value("measured", key).pending and not capture.value("measured", key).missing]


def underived_values(capture: Capture) -> list[str]:
    """Values a valid recording could not give (values.json's `missing`): the run is recorded, the number is not."""
    return [f"measured:{key}: {capture.value('measured', key).missing}" for key in capture.value_keys("measured")
            if capture.value("measured", key).missing]


def run_check(root: Path, strict: bool = False,
              cache_dir: Path | None = None) -> tuple[Report, dict[str, int | float]]:
    """Every check over the project under `root`; `cache_dir` is the intake's (`check_capture`), none by default."""
    started = time.perf_counter()
    report = Report()
    capture, found = check_capture(root, report, cache_dir)
    counts: dict[str, int | float] = dict(found)
    counts["run files checked"] = check_run_files(root, report)
    counts["page references resolved"] = check_pages(root, capture, report)
    counts["fact-check entries"], counts["universal claims held to their pages"] = check_factcheck(root, capture, report)
    check_pin(root, capture, report, strict)
    pending = pending_values(capture)
    counts["pending values"] = len(pending)
    if pending:
        line = f"pending: {len(pending)} declared value(s) have no valid recording yet (record them on a DGX Spark)."
        (report.fail if strict else report.notes.append)(line)
    underived = underived_values(capture)
    if underived:
        counts["values a recording could not give"] = len(underived)
        for line in underived:
            (report.fail if strict else report.notes.append)(
                f"{line} (the page shows it as not derivable; fix the cause and record the run again with --force).")
    counts["seconds"] = round(time.perf_counter() - started, 2)
    return report, counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="capture/run.py --check", description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="also fail on pending values and a pin mismatch")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project to check (default: this one)")
    parser.add_argument("--cache", type=Path, metavar="DIR",
                        help=f"take the capture in through the memos in DIR (the web build's is {BUILD_CACHE}); "
                             "without it nothing cached is read")
    parser.add_argument("--no-cache", action="store_true", help="read afresh (the default; kept for old scripts)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    cache = None if args.no_cache or args.cache is None else args.cache.resolve()
    if cache is not None and not cache.is_dir():
        parser.error(f"--cache {args.cache}: not a folder (name the build's doctree folder, e.g. {BUILD_CACHE}, "
                     "or leave --cache out to read afresh)")
    report, counts = run_check(root, args.strict, cache)
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
