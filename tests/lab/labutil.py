"""Helpers for the lab tests: stand-in docker and nvidia-smi on PATH, run files, scenarios."""
from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

FAST = ["--poll", "0.2", "--stall-after", "20", "--engine-failures", "2", "--probe-timeout", "1",
        "--heat-poll", "5", "--stop-timeout", "2", "--min-free-mem-gb", "0", "--min-free-disk-gb", "0",
        "--skip-smoke", "--arch", {"aarch64": "arm64", "x86_64": "amd64"}.get(platform.machine(), platform.machine())]


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


class Lab:
    """One test's sandbox: run files, capture/gpu, the stand-ins' state."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.runs, self.gpu, self.state, self.model = (tmp / "runs", tmp / "gpu", tmp / "state", tmp / "model")
        for d in (self.runs, self.gpu, self.state, self.model):
            d.mkdir(parents=True, exist_ok=True)
        self.scenario_path = tmp / "scenario.json"
        self.temps = tmp / "temps.txt"
        self.env = {**os.environ, "PATH": f"{HERE / 'standins'}{os.pathsep}{os.environ['PATH']}",
                    "FAKE_DOCKER_STATE": str(self.state), "FAKE_SCENARIO": str(self.scenario_path),
                    "FAKE_GPU_TEMPS": str(self.temps), "PYTHONUNBUFFERED": "1"}
        self.scenario([])

    def write_run(self, run: dict[str, Any]) -> Path:
        path = self.runs / f"{run['id']}.yaml"
        path.write_text(yaml.safe_dump(run, sort_keys=False))
        return path

    def scenario(self, actions: list[dict[str, Any]]) -> None:
        self.scenario_path.write_text(json.dumps(actions))

    def lines(self, lines: list[str], delay: float = 0.0) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for ln in lines:
            out.append({"line": ln})
            if delay:
                out.append({"sleep": delay})
        return out

    def argv(self, *ids: str, extra: list[str] | None = None) -> list[str]:
        return [sys.executable, str(ROOT / "capture" / "run.py"), "record", *ids, "--runs-dir", str(self.runs),
                "--gpu-dir", str(self.gpu), "--flags", str(HERE / "fixtures" / "flags.json"),
                "--metrics", str(HERE / "fixtures" / "metrics.json"), *FAST, *(extra or [])]

    def record(self, *ids: str, extra: list[str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*ids, extra=extra), env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def popen(self, *ids: str, extra: list[str] | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(self.argv(*ids, extra=extra), env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def calls(self) -> list[str]:
        path = self.state / "calls.log"
        return path.read_text().splitlines() if path.exists() else []

    def leftovers(self) -> list[str]:
        """Names of stand-in containers still running with the recorder's label."""
        res = subprocess.run(["docker", "ps", "--filter", "label=miles101.recorder", "--format", "{{.Names}}"],
                             env=self.env, capture_output=True, text=True, timeout=30)
        return res.stdout.split()

    def attempts(self) -> list[Path]:
        d = self.gpu / "_attempts"
        return sorted(p for p in d.iterdir()) if d.exists() else []

    def run_json(self, d: Path) -> dict[str, Any]:
        return json.loads((d / "run.json").read_text())

    def cleanup(self) -> None:
        pids = self.state / "engine.pids"
        containers = [p.read_text() for p in self.state.glob("*.pid")]
        for pid in (pids.read_text().split() if pids.exists() else []) + containers:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
