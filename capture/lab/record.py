"""`python3 capture/run.py record <id>... [--dry-run] [--force]`: record runs on the GPU host."""
from __future__ import annotations

import argparse
import json
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema

from capture.lab import docker as dk
from capture.lab import host as hostinfo
from miles101.catalog import Catalog
from capture.lab.logparse import read_steps
from miles101.tools.preflight import Check, check_mounts, preflight, table
from capture.lab.progress import Progress
from miles101.runcheck import RunFileError, load_run
from capture.lab.session import Options, Outcome, Session, Stopped, why
from capture.lab.store import Attempt, is_valid, recover, recovery_problem, sweep_unfinished, utc_iso, utc_stamp
from miles101.strict import run_id_problem
from miles101.values import derive_values, log_problems

ROOT = Path(__file__).resolve().parents[2]
RECORDING_SCHEMA = ROOT / "_ext" / "miles101" / "schema" / "recording.schema.json"


def _raise_stopped(signum: int, _frame: object) -> None:
    raise Stopped(signum)


def handle_signals() -> None:
    """SIGTERM and SIGHUP stop the recording the way Ctrl-C does (container stopped, attempt kept)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise_stopped)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="capture/run.py record", description="Record runs on the GPU host.")
    ap.add_argument("ids", nargs="*", metavar="ID", help="run ids: capture/runs/<id>.yaml")
    ap.add_argument("--recover", action="store_true",
                    help="record nothing: finish or undo a commit a killed recorder left half done under --gpu-dir")
    ap.add_argument("--dry-run", action="store_true", help="print each docker command; run the static checks only")
    ap.add_argument("--force", action="store_true", help="replace a valid recording (the old one stays until the new one is valid)")
    ap.add_argument("--stop-leftovers", action="store_true",
                    help="stop containers an earlier recorder left running (found by their label) instead of refusing")
    ap.add_argument("--rederive", action="store_true",
                    help="record nothing: rewrite each valid recording's values.json from its steps.jsonl and run file")
    ap.add_argument("--skip-smoke", action="store_true",
                    help="skip the preflight's one-prompt generation and two-step train run (they take minutes)")
    ap.add_argument("--arch", default="arm64", help="the host architecture the runs are for (default arm64, the Spark)")
    ap.add_argument("--runs-dir", type=Path, default=ROOT / "capture" / "runs")
    ap.add_argument("--gpu-dir", type=Path, default=ROOT / "capture" / "gpu")
    ap.add_argument("--flags", type=Path, default=ROOT / "capture" / "miles" / "flags.json")
    ap.add_argument("--metrics", type=Path, default=ROOT / "capture" / "miles" / "metrics.json")
    ap.add_argument("--min-free-mem-gb", type=float, default=32.0, help="GiB of MemAvailable needed (default 32)")
    ap.add_argument("--min-free-disk-gb", type=float, default=20.0, help="GiB free under --gpu-dir needed (default 20)")
    d = Options()
    for name, value in vars(d).items():
        ap.add_argument("--" + name.replace("_", "-"), type=type(value), default=value,
                        help=f"watchdog / heat guard setting (default {value:g})")
    return ap.parse_args(argv)


def main(argv: list[str]) -> int:
    """Exit 0 all recorded (or dry run fine), 1 a check or a recording failed, 2 bad run files, 130 Ctrl-C."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # in its start-up (the run files, the catalog): nothing was started yet
        print("record: interrupted (Ctrl-C) while reading the run files: nothing was started or written",
              file=sys.stderr)
        return 130


def _main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.recover:
        return recover_main(args.gpu_dir)
    if not args.ids:
        print("record: name at least one run id (capture/runs/<id>.yaml), or pass --recover", file=sys.stderr)
        return 2
    bad = [why for why in map(run_id_problem, args.ids) if why]
    if bad:
        print("record: refused, nothing started:", *bad, sep="\n  ", file=sys.stderr)
        return 2
    if args.rederive:
        return rederive(args.ids, args.runs_dir, args.gpu_dir)
    try:
        catalog = Catalog.load(args.flags, args.metrics)
    except (FileNotFoundError, ValueError, KeyError) as e:
        print(f"record: {e}", file=sys.stderr)
        return 2
    runs, errors = [], []
    for run_id in args.ids:
        path = args.runs_dir / f"{run_id}.yaml"
        if not path.is_file():
            errors.append(f"{path}: no such run file")
            continue
        try:
            run = load_run(path, catalog)
            if run.get("not_recorded") and not args.dry_run:
                errors.append(f"{path}: not_recorded: {run['not_recorded']}")
                continue
            runs.append(run)
        except RunFileError as e:
            errors += e.errors
            if args.dry_run and e.run is not None:
                dry_run(e.run, e.errors)
    if args.dry_run:
        for run in runs:
            dry_run(run, [])
    if errors:
        print("record: refused, nothing started:", *errors, sep="\n  ", file=sys.stderr)
        return 2
    if args.dry_run:
        return 0
    opts = Options(**{k: getattr(args, k) for k in vars(Options())})
    handle_signals()
    try:
        for run in runs:
            rc = record(run, args, opts)
            if rc:
                return rc
    except KeyboardInterrupt as e:
        reason, rc = why(e)
        print(f"record: {reason}: stopped. Recordings committed before it stay; an unfinished attempt is moved to "
              f"{args.gpu_dir}/_attempts/ by the next `record`, and `python3 capture/run.py record --recover` "
              "finishes a commit it cut short", file=sys.stderr)
        return rc
    return 0


def recover_main(gpu_dir: Path) -> int:
    """`record --recover`: finish or undo half-done commits (store.recover); 0 when the directory is whole."""
    if not gpu_dir.is_dir():
        print(f"record --recover: {gpu_dir} does not exist; nothing to recover", file=sys.stderr)
        return 0
    try:
        done = recover(gpu_dir)
    except OSError as e:
        print(f"record --recover: {recovery_problem(e, gpu_dir)}", file=sys.stderr)
        return 1
    for line in done:
        print(f"record --recover: {line}", file=sys.stderr)
    if not done:
        print(f"record --recover: {gpu_dir} holds no half-done commit", file=sys.stderr)
    return 0


def rederive(ids: list[str], runs_dir: Path, gpu_dir: Path) -> int:
    """values.json again from steps.jsonl (what `--check` compares it with); 1 when a recording cannot be read."""
    import json

    import yaml

    from miles101.problems import ProblemError
    from miles101.strict import parse_yaml_bytes
    from miles101.validate import read_steps
    from miles101.values import derive_values

    rc = 0
    for run_id in ids:
        rec_dir, run_file = gpu_dir / run_id, runs_dir / f"{run_id}.yaml"
        try:
            run = parse_yaml_bytes(run_file.read_bytes(), str(run_file))
            if isinstance(run, dict) and run.get("base"):  # derive with the base filled in, as --check does
                from capture.lab.campaign import load_runs

                run = load_runs(runs_dir).get(run_id, run)
            rows, problems = read_steps((rec_dir / "steps.jsonl").read_bytes(), str(rec_dir / "steps.jsonl"))
            if problems:
                raise ProblemError(problems[0])
            values = derive_values(run, rows)
        except FileNotFoundError as exc:
            print(f"record --rederive: {exc.filename}: no such file; {run_id} has no recording to re-derive.",
                  file=sys.stderr)
            rc = 1
            continue
        except ProblemError as exc:
            print(f"record --rederive: {exc}", file=sys.stderr)
            rc = 1
            continue
        except (KeyError, TypeError, ValueError, yaml.YAMLError) as exc:
            print(f"record --rederive: {run_file}: cannot derive values ({exc}); fix the run file.", file=sys.stderr)
            rc = 1
            continue
        (rec_dir / "values.json").write_text(json.dumps(values, indent=1) + "\n", encoding="utf-8")
        print(f"record --rederive: {rec_dir / 'values.json'}: {len(values['values'])} value(s) from steps.jsonl")
    return rc


def dry_run(run: dict[str, Any], errors: list[str]) -> None:
    """The exact commands, the static checks' verdict, and what the host checks will look at."""
    verdict = "run file OK" if not errors else f"run file REFUSED ({len(errors)} problems, listed below)"
    print(f"# {run.get('id')}: {run.get('title')} ({run.get('steps')} steps, {len(run.get('values') or {})} values): {verdict}")
    try:
        run = dict(run, args=[str(a) for a in run["args"]])
        for seed in run.get("seeds") or [None]:
            name = dk.container_name(run["id"], seed, "<UTC stamp>")
            label = f"seed {seed}" if seed is not None else "the run"
            print(f"# {label}, inside the container (launch: {run.get('launch', 'ray-job')}), in order:")
            for step in dk.procedure(run, seed):
                print(shlex.join(step))
            print(f"# {label}, the container that runs them:")
            print(shlex.join(dk.run_command(run, seed, name)))
    except (KeyError, TypeError, AttributeError) as e:
        print(f"# cannot build the command: {e!r}")
        return
    for c in check_mounts(run):
        if not c.ok:
            print(f"# note: {c.message} (checked again at preflight)")


def record(run: dict[str, Any], args: argparse.Namespace, opts: Options) -> int:
    """Record every seed of one run; keep a failure under _attempts/."""
    gpu_dir: Path = args.gpu_dir
    dest = gpu_dir / run["id"]
    if is_valid(dest) and not args.force:
        print(f"record: {dest} is already a valid recording; pass --force to record it again", file=sys.stderr)
        return 1
    problem = unwritable(gpu_dir)
    if problem:
        print(f"record: {problem}", file=sys.stderr)
        return 1
    try:
        recovered = recover(gpu_dir)  # a commit a killed recorder left half done, finished first
    except OSError as e:  # as `--recover` says it: nothing is recorded over a directory it cannot make whole
        print(f"record: cannot finish an earlier commit first: {recovery_problem(e, gpu_dir)}", file=sys.stderr)
        return 1
    for line in recovered:
        print(f"record: {line}", file=sys.stderr)
    if is_valid(dest) and not args.force:
        print(f"record: {dest} is already a valid recording; pass --force to record it again", file=sys.stderr)
        return 1
    for moved in sweep_unfinished(gpu_dir, run["id"]):
        print(f"record: kept an unfinished earlier attempt as {moved}", file=sys.stderr)
    if not stop_leftovers(args.stop_leftovers):
        return 1
    t0 = time.monotonic()
    checks, digest = preflight(run, gpu_dir, args.min_free_mem_gb, args.min_free_disk_gb, args.arch,
                               smoke=not args.skip_smoke, lab=True)
    commit = None
    if all(c.ok for c in checks):
        res = dk.docker(*dk.commit_command(run["image"])[1:], timeout=120)
        commit = res.stdout.strip() if res.returncode == 0 else None
        checks.append(Check("miles commit", bool(commit), commit or f"cannot read it in the image: {res.stderr.strip()[:120]}"))
    print(table(checks, time.monotonic() - t0), file=sys.stderr)
    if not all(c.ok for c in checks):
        return 1
    seeds = list(run.get("seeds") or [None])
    stamp = utc_stamp()
    run_json: dict[str, Any] = {
        "schema": "run/1", "id": run["id"], "status": "failed",
        "command": dk.run_command(run, seeds[0], dk.container_name(run["id"], seeds[0], stamp)),
        "launch": run.get("launch", "ray-job"), "procedure": dk.procedure(run, seeds[0]),
        "image": run["image"], "image_digest": digest, "miles_commit": commit, "start": utc_iso(), "end": None,
        "exit_code": None, "steps_planned": run["steps"] * len(seeds), "steps_done": 0, "seeds": seeds,
        "containers": [], "events": [], "recorder": {k: v for k, v in vars(opts).items()},
    }
    attempt = Attempt(gpu_dir, run["id"], stamp, run_json)

    def event(kind: str, detail: str) -> None:
        attempt.run_json["events"].append({"t": utc_iso(), "kind": kind, "detail": detail})
        attempt.save_run()

    try:
        attempt.write_json("host.json", hostinfo.collect())
        outcome = record_seeds(run, seeds, stamp, attempt, opts, event)
        if outcome is not None:
            return finish_failed(attempt, outcome.reason, outcome.extra.get("rc", 1))
        steps = read_steps(attempt.dir / "steps.jsonl")
        values = derive_values(run, steps)
        attempt.write_json("values.json", values)
        attempt.run_json.update(end=utc_iso())
        log_lines = (attempt.dir / "log.txt").read_text(encoding="utf-8", errors="replace").split("\n")
        problems = log_problems(log_lines)
        if problems:
            attempt.run_json["log_problems"] = problems
            for p in problems:
                print(f"record: WARNING log.txt {p}: left out of every statistic", file=sys.stderr)
        for name, entry in values["values"].items():
            if "note" in entry:
                print(f"record: note: value {name} is the {entry['note']}", file=sys.stderr)
        if values.get("missing"):
            attempt.run_json["missing_values"] = values["missing"]
            for name, why in values["missing"].items():
                print(f"record: WARNING value {name} stays pending: {why}", file=sys.stderr)
        final = {k: v for k, v in attempt.run_json.items() if k != "reason"}
        problems = validate_recording(attempt.dir, dict(final, status="valid"))
        if problems:
            return finish_failed(attempt, "the recording does not match its schema: " + "; ".join(problems), 1)
    except KeyboardInterrupt as e:
        return finish_failed(attempt, *why(e))
    except OSError as e:
        return finish_failed(attempt, f"disk full or unwritable while finishing the recording: {e.strerror or e}", 1)
    where = attempt.commit()
    print(f"record: {run['id']} recorded as {where} ({attempt.run_json['steps_done']} steps)", file=sys.stderr)
    return 0


def record_seeds(run: dict[str, Any], seeds: list[Any], stamp: str, attempt: Attempt, opts: Options,
                 event: Any) -> Outcome | None:
    """Run each seed's container in turn; the first failure's Outcome, or None when all finished."""
    progress = Progress()
    attempt.run_json["pool"] = {"file": "pool.jsonl", "interval_s": opts.pool_poll, "source": "/proc/meminfo MemAvailable"}
    with open(attempt.dir / "log.txt", "ab") as log, open(attempt.dir / "steps.jsonl", "ab") as steps, \
            open(attempt.dir / "pool.jsonl", "ab") as pool:
        for seed in seeds:
            session = Session(run, seed, dk.container_name(run["id"], seed, stamp), log, steps, opts, event,
                              progress, utc_iso, pool)
            try:
                out = session.follow()
            except KeyboardInterrupt as e:
                dk.docker("kill", session.name)
                out = Outcome(False, why(e)[0], None, len(session.live.asm.finished), utc_iso(),
                              utc_iso(), session.name, session.cmd, kind="interrupt")
            rj = attempt.run_json
            rj["containers"].append({"seed": seed, "name": out.name, "command": out.command,
                                     "procedure": dk.procedure(run, seed), "start": out.start,
                                     "end": out.end, "exit_code": out.exit_code, "oom_killed": out.oom_killed,
                                     "steps_done": out.steps_done})
            rj.update(steps_done=rj["steps_done"] + out.steps_done, exit_code=out.exit_code, end=out.end)
            attempt.save_run()
            if not out.ok:
                return out
    return None


def unwritable(gpu_dir: Path) -> str | None:
    """Why recordings cannot be written under gpu_dir (with the fix), or None."""
    try:
        gpu_dir.mkdir(parents=True, exist_ok=True)
        (gpu_dir / "_attempts").mkdir(exist_ok=True)
        probe = gpu_dir / f".write-test-{utc_stamp()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        return (f"cannot write recordings under {gpu_dir}: {e.strerror or e}; make it writable "
                f"(ls -ld {shlex.quote(str(gpu_dir))}) or pass --gpu-dir DIR on a writable disk")
    return None


def stop_leftovers(stop: bool) -> bool:
    """Refuse (with the command) or stop containers an earlier recorder left running; True to go on."""
    names, _ = dk.leftovers()
    if not names:
        return True
    if not stop:
        print(f"record: {len(names)} container(s) from an earlier recording still run on the GPU: "
              f"{', '.join(names)}.\n        Stop them with `docker stop {' '.join(names)}`, or pass "
              f"--stop-leftovers", file=sys.stderr)
        return False
    for name in names:
        res = dk.docker("stop", "-t", "30", name, timeout=90)
        print(f"record: stopped the leftover container {name}" if res.returncode == 0 else
              f"record: could not stop {name}: {res.stderr.strip()[:160]}", file=sys.stderr)
    return not dk.leftovers()[0]


def finish_failed(attempt: Attempt, reason: str, rc: int) -> int:
    """Keep the attempt as failed and say where."""
    attempt.run_json.setdefault("end", None)
    attempt.run_json["end"] = attempt.run_json["end"] or utc_iso()
    where = attempt.fail(reason)
    print(f"record: FAILED {attempt.run_id}: {reason}\n        kept as {where} (never read as data)", file=sys.stderr)
    return rc


def validate_recording(directory: Path, run_json: dict[str, Any]) -> list[str]:
    """Problems of run.json (as it will be), host.json and values.json against recording.schema.json."""
    schema = json.loads(RECORDING_SCHEMA.read_text(encoding="utf-8"))
    problems = []
    docs = {"run": run_json}
    for name in ("host", "values"):
        docs[name] = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
    for name, doc in docs.items():
        validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]})
        problems += [f"{name}.json {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    return problems
