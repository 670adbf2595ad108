"""`python3 capture/run.py campaign`: the author's one command on the Spark (`tox -e capture` runs it).

In order: refresh the extraction (keeping the previous one to compare), print the drift report
(which pages cite what changed) and the run files against the refreshed extraction (by page and run:
a run whose flags the new Miles lacks or changed is refused unless `--accept-drift=` names each flag),
run the preflight, record every declared run without a valid recording (the front page's and Part 1's runs first, the longest last), re-derive every recording's
values, cross-check the trainer's bytes, `--check`, then build the book; at the end a summary.

Resumable: the state is capture/gpu/ itself. A valid recording is kept and skipped; an attempt a
killed recorder left behind (`.tmp-<id>-*`) is set aside under `_attempts/` by the recorder, and
named here with why. Ctrl-C once (or `touch capture/gpu/.stop-after-current`) stops after the run
in progress; Ctrl-C again stops that run now (the recorder keeps it as failed).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from capture.drift.runfiles import refused, run_file_report, text as run_file_text
from capture.lab.progress import clock
from capture.lab.quiet import Quiet, run_watched
from capture.lab.slots import render, slots, spark_exempt, tally
from capture.lab.store import UNFINISHED, is_valid
from miles101.inputs import Inputs
from miles101.intake import take_in
from miles101.problems import ProblemError
from miles101.strict import read_bytes
from miles101.runfiles import resolve_runs
from miles101.tools.read_run import diagnose as read_diagnose
from miles101.tools.read_run import groups_in_log, report_of

ROOT = Path(__file__).resolve().parents[2]
RUN_PY = ROOT / "capture" / "run.py"
STOP_FILE = ".stop-after-current"
# The public step-time reference used before any step is recorded: a GB10's first cycle
# (capture/references/part1-2.json), the only public step time on this hardware the book holds.
STEP_REFERENCE = "slime-gb10.first-cycle-time"


@dataclass
class Result:
    run_id: str
    state: str  # recorded | skipped | failed | refused | apart | not started
    detail: str = ""
    diagnosis: list[str] = field(default_factory=list)


# ---- the plan ---------------------------------------------------------------------------------

def load_runs(runs_dir: Path) -> dict[str, dict[str, Any]]:
    """Every run file, by id, with its `base` filled in where run files have bases (miles101.runfiles).

    Each file is read as the intake reads it (`miles101.inputs.Inputs`: the one strict reader). A file
    that does not read, or whose base cannot be filled in, is kept as written: `record` names why it
    refuses it.
    """
    out = {}
    inputs = Inputs(runs_dir)
    for path in sorted(runs_dir.glob("*.yaml")):
        try:
            run = inputs.parsed(path, "correct the run file (AUTHORING.md), or restore it from git")
        except ProblemError:
            run = None
        out[path.stem] = run if isinstance(run, dict) else {"id": path.stem, "steps": 0, "sections": []}
    resolved, _ = resolve_runs(out)  # run files with `base:` get their base filled in
    return {run_id: resolved.get(run_id, run) for run_id, run in out.items()}


def step_reference(root: Path) -> tuple[float, str]:
    """Seconds a step, and where that number comes from (a public reference, else a guess stated as one).

    The reference is read from the capture as the intake takes it in (`miles101.intake.take_in`).
    """
    capture = take_in(root).capture
    value = capture.value("reference", STEP_REFERENCE) or capture.value("threshold", STEP_REFERENCE)
    if value is not None and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
        return float(value.value), f"public reference {STEP_REFERENCE} ({value.detail.get('hardware', '?')})"
    return 60.0, "no public reference found: 60 s a step assumed"


#: The longest step time the estimate takes from a recording (a day): a larger one is no step Miles took.
MAX_STEP_SECONDS = 86_400.0


def step_seconds(value: Any) -> float | None:
    """A recorded step time as the estimate reads it: a finite number of seconds in (0, MAX_STEP_SECONDS];
    None for anything else (a boolean, a string, Infinity, 1e999, a 5000-digit integer)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return seconds if math.isfinite(seconds) and 0 < seconds <= MAX_STEP_SECONDS else None


def recorded_step_time(gpu_dir: Path, refused: list[str] | None = None) -> float | None:
    """The median wall time a step took in the recordings made so far (lab/step_interval), or None.

    A line that is not a JSON object, or whose step time is not a usable number (`step_seconds`), is left out;
    with `refused`, each is named there as file:line and why."""
    xs = []
    for steps in sorted(gpu_dir.glob("*/steps.jsonl")):
        try:
            text = read_bytes(steps, steps.name).decode("utf-8", errors="replace")
        except ProblemError as e:
            if refused is not None:
                refused.append(f"{steps}: {e.problem.message}")
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (ValueError, RecursionError) as e:  # a 5000-digit number is a ValueError too
                row = f"not JSON ({str(e)[:60]})"
            if not isinstance(row, dict) or not isinstance(row.get("lab", {}), dict):
                if refused is not None:
                    what = row if isinstance(row, str) else f"a JSON {type(row).__name__}, not an object of sections"
                    refused.append(f"{steps}:{number}: {what}: left out of the estimate")
                continue
            v = row.get("lab", {}).get("lab/step_interval")
            if v is None:
                continue
            seconds = step_seconds(v)
            if seconds is None:
                if refused is not None:
                    shown = str(v) if len(str(v)) <= 40 else f"{str(v)[:20]}... ({len(str(v))} characters)"
                    refused.append(f"{steps}:{number}: lab/step_interval {shown} is not a step time "
                                   f"(a number of seconds in (0, {MAX_STEP_SECONDS:g}]): left out of the estimate")
                continue
            xs.append(seconds)
    return statistics.median(xs) if xs else None


def planned_steps(run: dict[str, Any]) -> int:
    return int(run.get("steps") or 0) * len(run.get("seeds") or [None])


def order(runs: dict[str, dict[str, Any]]) -> list[str]:
    """The front page's and Part 1's runs first, then by length (steps × seeds), the longest last."""
    def key(run_id: str) -> tuple[int, int, str]:
        sections = runs[run_id].get("sections") or []
        early = any(s == "front" or str(s).startswith("1.") for s in sections)
        return (0 if early else 1, planned_steps(runs[run_id]), run_id)
    return sorted(runs, key=key)


def set_aside(gpu_dir: Path, run_id: str) -> list[str]:
    """What a resumed campaign does not keep for this run, with why (the recorder moves it to _attempts/)."""
    out = [f"{p.name}: {UNFINISHED}; the recorder keeps it under _attempts/ as failed"
           for p in sorted(gpu_dir.glob(f".tmp-{run_id}-*"))]
    dest = gpu_dir / run_id
    if dest.exists() and not is_valid(dest):
        out.append(f"{dest.name}/: its run.json does not say valid; it is recorded again")
    last = latest_attempt(gpu_dir, run_id)
    if last is not None:
        try:
            reason = json.loads((last / "run.json").read_text(encoding="utf-8")).get("reason") or "no reason kept"
        except (OSError, ValueError):
            reason = "its run.json cannot be read"
        out.append(f"_attempts/{last.name} (the last attempt, kept as failed: {reason}); it is recorded again")
    return out


# ---- the display ------------------------------------------------------------------------------

class Display:
    """rich's progress bars on a terminal, plain lines (one per change) otherwise."""

    def __init__(self, out: TextIO = sys.stderr, total_steps: int = 0, tty: bool | None = None,
                 label: str = "campaign") -> None:
        self.out, self.label = out, label
        self.tty = out.isatty() if tty is None else tty
        self.last = ""
        self.rich = None
        if self.tty:

            self.rich = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("{task.fields[note]}"),
                                 console=Console(file=out), transient=False)
            self.rich.start()
            self.all = self.rich.add_task("all runs", total=total_steps or None, note="")
            self.one = None

    def start_run(self, run_id: str, steps: int) -> None:
        if self.rich is not None:
            if self.one is not None:
                self.rich.remove_task(self.one)
            self.one = self.rich.add_task(run_id, total=steps or None, note="")
        else:
            self.print(f"{self.label}: recording {run_id} ({steps} steps)")

    def update(self, run_id: str, done: int, steps: int, done_all: int, elapsed: float, left: float,
               note: str) -> None:
        text = (f"{run_id}: step {done} of {steps}, elapsed {clock(elapsed)}, estimate left {clock(left)}"
                f"{' · ' + note if note else ''}")
        if self.rich is not None:
            self.rich.update(self.one, completed=done, note=f"left ≈ {clock(left)}{' · ' + note if note else ''}")
            self.rich.update(self.all, completed=done_all)
        elif text.split(", elapsed")[0] + note != self.last:
            self.last = text.split(", elapsed")[0] + note
            self.print(f"{self.label}: {text}")

    def print(self, text: str) -> None:
        if self.rich is not None:
            self.rich.console.print(text, markup=False, highlight=False)
        else:
            self.out.write(text + "\n")
            self.out.flush()

    def close(self) -> None:
        if self.rich is not None:
            self.rich.stop()


# ---- recording --------------------------------------------------------------------------------

def attempt_dir(gpu_dir: Path, run_id: str, since: float) -> Path | None:
    """The attempt the recorder is writing now (`.tmp-<id>-<stamp>`, made after `since`)."""
    found = [p for p in gpu_dir.glob(f".tmp-{run_id}-*") if p.stat().st_mtime >= since - 1]
    return max(found, key=lambda p: p.name) if found else None


def watch(attempt: Path | None) -> tuple[int, list[str]]:
    """Steps written so far and the heat guard's events, read from the attempt in progress."""
    if attempt is None:
        return 0, []
    try:
        rows = sum(1 for ln in (attempt / "steps.jsonl").read_text(errors="replace").splitlines() if ln.strip())
    except OSError:
        rows = 0
    try:
        events = json.loads((attempt / "run.json").read_text()).get("events", [])
    except (OSError, ValueError):
        events = []
    return rows, [e.get("detail", "") for e in events if e.get("kind") == "heat"]


class Stopper:
    """Ctrl-C once: stop after this run; twice: stop this run now (SIGINT to the recorder)."""

    def __init__(self, gpu_dir: Path, display: Display) -> None:
        self.gpu_dir, self.display = gpu_dir, display
        self.after_current = False
        self.child: subprocess.Popen[bytes] | None = None

    def __call__(self, _signum: int, _frame: object) -> None:
        if not self.after_current:
            self.after_current = True
            self.display.print(f"{self.display.label}: stopping after the run in progress (Ctrl-C again stops it now; "
                               "it is then kept as failed)")
        elif self.child is not None and self.child.poll() is None:
            self.child.send_signal(signal.SIGINT)

    def requested(self) -> bool:
        flag = self.gpu_dir / STOP_FILE
        if flag.exists():
            flag.unlink()
            self.after_current = True
            self.display.print(f"{self.display.label}: {STOP_FILE} found: stopping after the run in progress")
        return self.after_current


def record_one(run_id: str, run: dict[str, Any], argv: list[str], env: dict[str, str], gpu_dir: Path,
               display: Display, stopper: Stopper, per_step: float, done_before: int, total: int,
               out_file: Path) -> tuple[int, int]:
    """Run `record <id>` as a child, showing its progress; (exit code, steps it wrote)."""
    steps = planned_steps(run)
    display.start_run(run_id, steps)
    since = time.time()
    t0 = time.monotonic()
    with open(out_file, "wb") as out:
        child = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        stopper.child = child
        done, heat = 0, []
        quiet = Quiet(f"{display.label}: {run_id}", stop="Ctrl-C stops after this run, twice stops it now")
        while True:
            try:
                child.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            if child.poll() is not None:
                break
            seen, heat = watch(attempt_dir(gpu_dir, run_id, since))
            done = max(done, seen)
            elapsed = time.monotonic() - t0
            rate = elapsed / done if done else per_step
            left = rate * (steps - done) + per_step * (total - done_before - steps)
            note = f"heat guard: {heat[-1]}" if heat else ""
            display.update(run_id, done, steps, done_before + done, elapsed, left, note)
            silent = quiet.check((out_file.stat().st_size if out_file.exists() else 0, done))
            if silent:
                display.print(silent)  # no time limit: the recorder's watchdog stops a run that stalls
            stopper.requested()
        stopper.child = None
    try:  # the steps the recording holds, once it is in place
        done = int(json.loads((gpu_dir / run_id / "run.json").read_text()).get("steps_done", done))
    except (OSError, ValueError):
        pass
    return child.returncode, done


def diagnose(log: Path) -> list[str]:
    """The 7.1 entries read_run --diagnose names for a failed attempt's log."""

    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    _, _, report = report_of(lines, groups=groups_in_log(lines))  # as `read_run.py LOG --diagnose` does
    return [f"7.1 {m['section']} {m['title']} ({'line ' + str(m['line']) if m['line'] else 'step values'})"
            for m in read_diagnose(lines, report)]


def latest_attempt(gpu_dir: Path, run_id: str) -> Path | None:
    found = sorted((gpu_dir / "_attempts").glob(f"{run_id}-*"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def record_all(ids: list[str], runs: dict[str, dict[str, Any]], root: Path, gpu_dir: Path, record_args: list[str],
               env: dict[str, str], display: Display, work: Path) -> list[Result]:
    """Record each run in turn; skip valid recordings; stop on request; a failure does not stop the rest."""
    per_step, _ = step_reference(root)
    results: list[Result] = []
    stopper = Stopper(gpu_dir, display)
    old = signal.signal(signal.SIGINT, stopper)
    total = sum(planned_steps(runs[i]) for i in ids)
    done_all = 0
    told: set[str] = set()  # the refused step times already printed (each run re-reads every recording)
    try:
        for run_id in ids:
            if stopper.requested():
                results.append(Result(run_id, "not started", "stopped before it (run the same command to go on)"))
                continue
            refused_times: list[str] = []
            measured = recorded_step_time(gpu_dir, refused_times)
            for text in refused_times:
                if text not in told:
                    told.add(text)
                    display.print(f"{display.label}: {text}")
            argv = [sys.executable, str(RUN_PY), "record", run_id, "--runs-dir", str(root / "capture" / "runs"),
                    "--gpu-dir", str(gpu_dir), *record_args]
            out_file = work / f"{run_id}.out"
            rc, done = record_one(run_id, runs[run_id], argv, env, gpu_dir, display, stopper,
                                  measured or per_step, done_all, total, out_file)
            done_all += planned_steps(runs[run_id])
            if rc == 0 and is_valid(gpu_dir / run_id):
                results.append(Result(run_id, "recorded", f"{done} steps"))
                display.print(f"{display.label}: {run_id} recorded ({done} steps)")
                continue
            tail = out_file.read_text(errors="replace").strip().splitlines()[-3:]
            att = latest_attempt(gpu_dir, run_id)
            reason = ""
            if att is not None:
                try:
                    reason = json.loads((att / "run.json").read_text()).get("reason", "")
                except (OSError, ValueError):
                    pass
            res = Result(run_id, "failed", reason or " / ".join(tail) or f"record exited {rc}",
                         diagnose(att / "log.txt") if att is not None else [])
            results.append(res)
            display.print(f"{display.label}: {run_id} FAILED: {res.detail}" + (f" (kept as {att})" if att else ""))
    finally:
        signal.signal(signal.SIGINT, old)
    return results


# ---- the whole job ----------------------------------------------------------------------------

def summary(results: list[Result], root: Path, logged: dict[str, set[str]] | None = None,
            label: str = "campaign", constant: dict[str, dict[str, str]] | None = None) -> tuple[list[str], bool]:
    """The end summary: each run's outcome, then the slots; (lines, every counted slot filled)."""
    lines = [f"{label}: summary"]
    for r in results:
        lines.append(f"  {r.run_id}: {r.state}{' (' + r.detail + ')' if r.detail else ''}")
        lines += [f"      read_run --diagnose: {d}" for d in r.diagnosis]
        if r.state == "failed" and not r.diagnosis:
            lines.append("      read_run --diagnose: no 7.1 entry matches its log")
    found = slots(root, logged=logged, constant=constant)
    filled, total, _, _ = tally(found)
    return lines + render(found, label), filled == total


def plan(root: Path, gpu_dir: Path, only: list[str] | None, display: Display) -> tuple[list[str], list[Result]]:
    """The runs to record, in order, and those skipped (valid already, or not recorded on the Spark)."""
    runs = load_runs(root / "capture" / "runs")
    unknown = [i for i in only or [] if i not in runs]
    if unknown:
        raise SystemExit(f"campaign: no run file for {', '.join(unknown)} under {root / 'capture' / 'runs'}")
    todo, skipped = [], []
    for run_id in order(runs):
        why = spark_exempt(runs[run_id])
        if why:  # named whether or not it was asked for, so it is never silently missing
            skipped.append(Result(run_id, "apart", f"not recorded on the Spark: {why}"))
        elif only and run_id not in only:
            continue
        elif is_valid(gpu_dir / run_id):
            skipped.append(Result(run_id, "skipped", "already a valid recording"))
        else:
            for line in set_aside(gpu_dir, run_id):
                display.print(f"{display.label}: {run_id}: set aside {line}")
            todo.append(run_id)
    return todo, skipped


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="capture/run.py campaign", description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", metavar="ID", help="record only these runs (default: every declared run)")
    ap.add_argument("--no-record", action="store_true", help="refresh, check and build; record nothing")
    ap.add_argument("--no-extract", action="store_true", help="keep capture/miles as it is (no refresh, no drift report)")
    ap.add_argument("--no-crosscheck", action="store_true", help="skip the trainer's-bytes cross-check")
    ap.add_argument("--no-build", action="store_true", help="skip the book's build at the end")
    ap.add_argument("--image", default=os.environ.get("MILES_IMAGE", "radixark/miles:latest"))
    ap.add_argument("--host", default=os.environ.get("CROSSCHECK_HOST", "gb10"), help="the cross-check's host name")
    ap.add_argument("--miles-src", default=os.environ.get("MILES_SRC"), help="a Miles checkout (default: the image)")
    ap.add_argument("--skip-smoke", action="store_true", help="pass --skip-smoke to the preflight and the recorder")
    ap.add_argument("--accept-drift", action="append", default=[], metavar="FLAG[,FLAG...]",
                    help="record a run although the refreshed extraction lacks or changed these flags it passes "
                         "(each drifted flag must be named; without it such a run is refused); write it with = "
                         "since each flag starts with --: --accept-drift=--lr,--eps-clip")
    return ap.parse_args(argv)


@dataclass
class Setup:
    """Where a campaign works and how it calls the recorder (the rehearsal points it at a copy)."""

    root: Path  # the project whose capture/ and pages are used
    env: dict[str, str]
    record_args: list[str] = field(default_factory=list)  # extra arguments of record
    preflight_args: list[str] = field(default_factory=list)  # extra arguments of preflight
    label: str = "campaign"
    extract: list[str] | None = None  # the extraction's arguments; None: keep capture/miles
    crosscheck: list[str] | None = None  # the cross-check's arguments; None: skip it
    build: bool = True
    record: bool = True
    ids: list[str] | None = None
    logged: dict[str, set[str]] | None = None  # run → keys its log holds (the rehearsal knows)
    constant: dict[str, dict[str, str]] | None = None  # run → key Miles writes as a constant → why
    accept_drift: list[str] = field(default_factory=list)  # --accept-drift: flags whose drift may be recorded

    @property
    def gpu_dir(self) -> Path:
        return self.root / "capture" / "gpu"


def run_file_gate(setup: Setup, previous: Path, out: Display) -> dict[str, list[str]] | None:
    """Print the run files against the refreshed extraction (by page and run); the runs to refuse and why.

    None, the problem printed, when an extraction or a run file does not read (nothing can be held against it)."""
    try:
        report = run_file_report(previous, setup.root / "capture" / "miles", setup.root)
    except (ProblemError, ValueError) as exc:
        out.print(f"{setup.label}: the run files cannot be held against the refreshed extraction: {exc}")
        return None
    out.print(f"{setup.label}: the run files against the refreshed extraction (the previous one as the book):")
    for line in run_file_text(report, "the refreshed extraction").splitlines():
        out.print(f"  {line}")
    accepted = {f.strip() for arg in setup.accept_drift for f in arg.split(",") if f.strip()}
    return refused(report, accepted)


def hold_drifted(todo: list[str], refusals: dict[str, list[str]]) -> tuple[list[str], list[Result]]:
    """The runs still to record, and one refused Result per run whose flags drifted unaccepted."""
    held = [Result(i, "refused", f"the refreshed Miles lacks or changed {', '.join(refusals[i])}, which it passes: "
                                 f"update capture/runs/{i}.yaml and its pages, or pass --accept-drift="
                                 f"{','.join(refusals[i])}") for i in todo if i in refusals]
    return [i for i in todo if i not in refusals], held


def run_campaign(setup: Setup, work: Path) -> int:
    """Every step of the job, then the summary; 0 when all passed and every counted slot is filled."""
    py, label, root = sys.executable, setup.label, setup.root
    work.mkdir(parents=True, exist_ok=True)
    out = Display(sys.stdout, tty=False, label=label)
    rc = 0
    refusals: dict[str, list[str]] = {}

    def step(title: str, argv: list[str]) -> int:
        out.print(f"{label}: {title}: {' '.join(argv[2:] if argv[0] == py else argv)}")
        return run_watched(argv, f"{label}: {title}", out.print, env=setup.env, cwd=root)  # no limit; said when silent

    if setup.extract is not None:
        previous = work / "previous-miles"
        if (root / "capture" / "miles").is_dir():
            shutil.copytree(root / "capture" / "miles", previous)
        if step("refresh the extraction", [py, str(RUN_PY), *setup.extract, "--out", str(root / "capture")]):
            out.print(f"{label}: the extraction failed; nothing else is done")
            return 1
        if previous.is_dir():
            step("drift against the previous capture (which pages cite what changed)",
                 [py, str(RUN_PY), "diff", str(previous), str(root / "capture" / "miles"), "--pages-root", str(root)])
            gate = run_file_gate(setup, previous, out)
            if gate is None:
                out.print(f"{label}: no run is recorded before its flags are compared (the fix is above)")
                return 1
            refusals = gate
    else:
        out.print(f"{label}: extraction kept as it is (capture/miles)")
    todo, skipped = plan(root, setup.gpu_dir, setup.ids, out)
    todo, held = hold_drifted(todo, refusals)
    skipped += held
    dirs = ["--runs-dir", str(root / "capture" / "runs"), "--gpu-dir", str(setup.gpu_dir)]
    if todo and setup.record:
        if step("preflight", [py, str(RUN_PY), "preflight", todo[0], *dirs, *setup.preflight_args]):
            out.print(f"{label}: the preflight found a problem (its fix is above); every recording would fail")
            return 1
    results: list[Result] = []
    if setup.record and todo:
        runs = load_runs(root / "capture" / "runs")
        display = Display(total_steps=sum(planned_steps(runs[i]) for i in todo), label=label)
        display.print(f"{label}: to record, in order: {', '.join(todo)}")
        try:
            results = record_all(todo, runs, root, setup.gpu_dir, setup.record_args, setup.env, display, work)
        finally:
            display.close()
    else:
        results = [Result(i, "not started", "recording skipped") for i in todo]
    results = skipped + results
    kept = [r.run_id for r in results if r.state in ("recorded", "skipped")]
    if kept:
        rc |= bool(step("re-derive values", [py, str(RUN_PY), "record", "--rederive", *kept, *dirs]))
    if setup.crosscheck is not None:
        rc |= bool(step("cross-check", [py, str(RUN_PY), "crosscheck", *setup.crosscheck]))
    else:
        out.print(f"{label}: cross-check skipped")
    rc |= bool(step("check", [py, str(RUN_PY), "--check", "--root", str(root)]))
    if setup.build:
        rc |= bool(step("build", [py, "-m", "sphinx", "-b", "html", "-nW", "--keep-going", "-q", str(root),
                                  str(work / "html" if root != ROOT else root / "_build" / "html"),
                                  "-d", str(work / "doctrees" if root != ROOT else root / "_build" / "doctrees")]))
    lines, full = summary(results, root, setup.logged, label, setup.constant)
    for line in lines:
        out.print(line)
    if setup.record and any(r.state == "not started" for r in results):
        return 130
    return 1 if rc or any(r.state in ("failed", "refused") for r in results) or not full else 0


def main(argv: list[str]) -> int:
    """`capture/run.py campaign`: the job on this host, into capture/."""
    args = parse_args(argv)
    smoke = ["--skip-smoke"] if args.skip_smoke else []
    setup = Setup(ROOT, dict(os.environ), smoke, smoke, ids=args.ids or None, record=not args.no_record,
                  build=not args.no_build, accept_drift=args.accept_drift,
                  extract=None if args.no_extract else (["--miles-src", args.miles_src] if args.miles_src
                                                        else ["--image", args.image]),
                  crosscheck=None if args.no_crosscheck else ["--image", args.image, "--host", args.host])
    with tempfile.TemporaryDirectory(prefix="miles101-campaign-") as tmp:
        return run_campaign(setup, Path(tmp))
