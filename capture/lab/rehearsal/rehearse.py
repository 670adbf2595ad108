"""`python3 capture/run.py rehearse`: the author's whole flow, here, with stand-ins, into a copy.

The campaign of `tox -e capture` (capture/lab/campaign.py) runs on a temporary copy of the project's
data (pages, manual.json, capture/ without gpu/): the stand-in docker replays, for each declared run,
the log Miles would write for its run file (capture/lab/rehearsal/runlog.py), nvidia-smi answers as
a GB10, the stand-in engine answers the watchdog; the real recorder records every run from that log
into the copy's capture/gpu/, then re-derives, `--check`s and builds the book from the copy.
Nothing reaches the project's capture/gpu/ (checked at the end).

Its last line is `rehearsal: N/M measured slots filled`; it fails unless N == M, naming each slot
that stays pending and why. The numbers in the copy are made up; the copy is deleted at the end
(`--keep DIR` keeps it).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from capture.lab.campaign import Setup, load_runs, run_campaign
from capture.lab.rehearsal.runlog import constant_keys, logged_keys, run_log
from capture.lab.rehearsal.sandbox import ARCH, FAST, ROOT, Sandbox
from miles101.runcheck import option_values

# The sandbox's quick recorder settings, with the watchdog's patience kept: on a busy CI machine a
# healthy replay must not be stopped for a slow probe or a slow stretch of lines.
TOLERANT = [*FAST, "--probe-timeout", "10", "--engine-failures", "5", "--stall-after", "600"]
COPIED = ["conf.py", "manual.json", "front.md", "package.json", "package-lock.json", "sections", "capture", "_ext", "_static"]


def copy_project(src: Path, dest: Path) -> None:
    """The project's pages and data, without recordings, caches or the lab's own code."""
    dest.mkdir(parents=True)
    for name in COPIED:
        path = src / name
        if path.is_dir():
            shutil.copytree(path, dest / name, ignore=shutil.ignore_patterns("__pycache__", "gpu", "*.pyc"))
        elif path.is_file():
            shutil.copy2(path, dest / name)
    if (src / "node_modules").exists():
        (dest / "node_modules").symlink_to((src / "node_modules").resolve())


def host_paths(run: dict[str, Any], home: Path) -> None:
    """Make the host paths a run file mounts (its model's config.json, its prompt data) under a stand-in home."""
    args = option_values([str(a) for a in run.get("args") or []])
    for mount in run.get("mounts") or []:
        host = Path(str(mount["host"]).replace("~", str(home), 1))
        host.mkdir(parents=True, exist_ok=True)
        for flag, need in (("--hf-checkpoint", "config.json"), ("--prompt-data", None)):
            for value in args.get(flag) or []:
                if value == mount["container"] or value.startswith(mount["container"].rstrip("/") + "/"):
                    target = host / value[len(mount["container"]):].lstrip("/")
                    if need:
                        (target / need).parent.mkdir(parents=True, exist_ok=True)
                        (target / need).write_text("{}\n")
                    elif not target.exists():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_text("")


def gpu_listing() -> list[str]:
    gpu = ROOT / "capture" / "gpu"
    return sorted(str(p.relative_to(gpu)) for p in gpu.rglob("*")) if gpu.exists() else []


def rehearse(tmp: Path, ids: list[str] | None, build: bool, project: Path = ROOT) -> int:
    """Run the campaign into a copy of `project` under tmp; its exit code (1 when capture/gpu/ changed)."""
    before = gpu_listing()
    book = tmp / "book"
    copy_project(project, book)
    miles = book / "capture" / "miles"
    box = Sandbox(tmp / "lab", miles / "flags.json", miles / "metrics.json", runs=book / "capture" / "runs",
                  gpu=book / "capture" / "gpu")
    home, scenarios = tmp / "home", tmp / "scenarios"
    scenarios.mkdir()
    logged: dict[str, set[str]] = {}
    constant: dict[str, dict[str, str]] = {}
    for run_id, run in load_runs(book / "capture" / "runs").items():
        if not run.get("args"):
            continue
        host_paths(run, home)
        lines = run_log(run)
        logged[run_id] = logged_keys(lines)
        constant[run_id] = constant_keys(run)
        box.scenario([{"engine": "start"}, *box.lines(lines)], scenarios / f"{run_id}.json")
    env = {**box.env, "HOME": str(home), "FAKE_SCENARIO": str(scenarios)}
    shared = ["--flags", str(miles / "flags.json"), "--metrics", str(miles / "metrics.json")]
    setup = Setup(book, env, record_args=[*shared, *TOLERANT],
                  preflight_args=[*shared, "--skip-smoke", "--arch", ARCH, "--min-free-mem-gb", "0",
                                  "--min-free-disk-gb", "0"],
                  label="rehearsal", build=build, ids=ids, logged=logged, constant=constant)
    try:
        rc = run_campaign(setup, tmp / "work")
    finally:
        box.cleanup()
    if gpu_listing() != before:
        print("rehearsal: FAILED: the project's capture/gpu/ changed during the rehearsal", file=sys.stderr)
        return 1
    return rc


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="capture/run.py rehearse", description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", metavar="ID", help="rehearse only these runs (the slots count every run)")
    ap.add_argument("--no-build", action="store_true", help="skip the book's build from the copy (the --check "
                    "of the copy still resolves every page reference)")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep the copy and the sandbox in DIR (must not exist)")
    ap.add_argument("--project", type=Path, default=ROOT, help=argparse.SUPPRESS)  # tests: another project to copy
    args = ap.parse_args(argv)
    if args.keep is not None:
        if args.keep.exists():
            ap.error(f"--keep {args.keep}: already exists; name a new directory")
        args.keep.mkdir(parents=True)
        return rehearse(args.keep.resolve(), args.ids or None, not args.no_build, args.project)
    with tempfile.TemporaryDirectory(prefix="miles101-rehearsal-") as tmp:
        return rehearse(Path(tmp), args.ids or None, not args.no_build, args.project)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
