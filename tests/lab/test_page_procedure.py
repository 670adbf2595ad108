"""Section 1.1 shows the procedure the recorder runs: the same `ray start` and the same `ray job submit`.

The recorder's one definition is capture.lab.docker.procedure(); the page renders the run file's
arguments through {run-command} and types only the shell around them. This test holds that shell
to the procedure, so the page and the lab cannot drift apart.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from capture.lab.docker import procedure

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md"


def _run_command_options(text: str, run_id: str) -> dict[str, str]:
    """The YAML options of the page's first {run-command} block for run_id (the whole command)."""
    m = re.search(r"```\{run-command\} " + re.escape(run_id) + r"\n---\n(.*?)\n---\n```", text, re.S)
    assert m, f"1.1 has no {{run-command}} {run_id} block with options"
    return yaml.safe_load(m.group(1))


def test_page_ray_start_is_the_recorders() -> None:
    run = yaml.safe_load((ROOT / "capture/runs/first-grpo.yaml").read_text())
    start, _ = procedure(run, (run.get("seeds") or [None])[0])
    assert shlex.join(start) in PAGE.read_text(encoding="utf-8")


def test_page_job_submission_is_the_recorders() -> None:
    run = yaml.safe_load((ROOT / "capture/runs/first-grpo.yaml").read_text())
    _, submit = procedure(run, (run.get("seeds") or [None])[0])
    options = _run_command_options(PAGE.read_text(encoding="utf-8"), "first-grpo")
    shown = shlex.split(" ".join(line.strip() for line in options["prefix"].splitlines()) + " " + options["program"])
    # everything up to and including the program; the arguments come from the run file through the directive
    head = submit[: submit.index("--") + 1 + len(run["entry"])]
    assert shown == head
