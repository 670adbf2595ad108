"""Helpers for the lab tests: the lab's sandbox (capture/lab/rehearsal/) over the test flag list."""
from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path
from typing import Any, Callable

from capture.lab.rehearsal.sandbox import FAST, ROOT, STANDINS, Sandbox

HERE = Path(__file__).resolve().parent

__all__ = ["FAST", "HERE", "ROOT", "STANDINS", "Lab", "base_run", "in_process"]


def in_process(main: Callable[[list[str]], int], *args: str) -> subprocess.CompletedProcess[str]:
    """A command's `main(args)` run in this process, answered as `subprocess.run(..., capture_output=True,
    text=True)` answers (argparse's exit is its return code).

    For tests of what a tool prints, not of its start as a script: a process each costs a tenth of a
    second. A test that needs a timeout (input that could hang) keeps its subprocess.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as e:  # argparse: --help, or a usage error (already printed to stderr)
            rc = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            if isinstance(e.code, str):  # sys.exit("message"): Python prints it to stderr
                print(e.code, file=err)
    return subprocess.CompletedProcess(list(args), rc, out.getvalue(), err.getvalue())


def base_run(run_id: str, model_dir: Path, steps: int = 3) -> dict[str, Any]:
    """A small valid run file (test data)."""
    return {
        "id": run_id, "title": "Test run", "purpose": "Lab tests.", "sections": ["1.1"],
        "image": "radixark/miles:latest", "entry": ["python3", "train.py"],
        "args": ["--train-backend", "fsdp", "--colocate", "--rollout-batch-size", 8, "--num-rollout", steps,
                 "--lr", 1e-6, "--advantage-estimator", "grpo", "--sglang-mem-fraction-static", 0.4,
                 "--seed", 1234, "--rollout-seed", 42],
        "env": {"PYTHONUNBUFFERED": "1"},
        "mounts": [{"host": str(model_dir), "container": "/root/models/test"}],
        "steps": steps, "seeds": [1234],
        "values": {
            "reward": {"source": "rollout/raw_reward", "statistic": "median", "unit": "", "what": "Reward"},
            "step_time": {"source": "perf/step_time", "statistic": "median", "steps": "1-", "unit": "s", "what": "Step"},
            "interval": {"source": "lab/step_interval", "statistic": "max", "unit": "s", "what": "Interval"},
            "wake_mem": {"source": "memory/after_wake_up_model/used_GB", "statistic": "max", "unit": "GiB", "what": "Mem"},
            "final_eval": {"source": "eval/gsm8k", "statistic": "last", "unit": "", "what": "Eval"},
        },
    }


class Lab(Sandbox):
    """One test's sandbox, checking run files against the test flag and metric lists."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp, HERE / "fixtures" / "flags.json", HERE / "fixtures" / "metrics.json")
