"""A sandbox for the recorder with stand-ins: docker, nvidia-smi (a GB10) and the engine first on PATH.

Lab tooling (shared/DESIGN.md §4): the rehearsal and the lab tests use it; it never writes into
the repository's capture/gpu/ (every path it uses lies under the directory it is given).
"""
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
STANDINS = HERE / "standins"
ROOT = HERE.parents[2]
ARCH = {"aarch64": "arm64", "x86_64": "amd64"}.get(platform.machine(), platform.machine())

# Recorder options that make a stand-in recording take seconds: quick polls, no slow smoke run,
# no free-memory or free-disk floor, this machine's architecture.
FAST = ["--poll", "0.2", "--stall-after", "20", "--engine-failures", "2", "--probe-timeout", "1",
        "--heat-poll", "5", "--stop-timeout", "2", "--min-free-mem-gb", "0", "--min-free-disk-gb", "0",
        "--skip-smoke", "--arch", ARCH]


class Sandbox:
    """Run files, a gpu dir and the stand-ins' state under one directory.

    `flags` and `metrics` are the extraction the recorder checks run files against; `runs` and
    `gpu` default to directories inside `tmp`.
    """

    def __init__(self, tmp: Path, flags: Path, metrics: Path, runs: Path | None = None,
                 gpu: Path | None = None, root: Path = ROOT) -> None:
        self.tmp, self.flags, self.metrics, self.root = tmp, flags, metrics, root
        self.runs, self.gpu = runs or tmp / "runs", gpu or tmp / "gpu"
        self.state, self.model = tmp / "state", tmp / "model"
        for d in (self.runs, self.gpu, self.state, self.model):
            d.mkdir(parents=True, exist_ok=True)
        self.scenario_path = tmp / "scenario.json"
        self.temps = tmp / "temps.txt"
        # The stand-ins (`#!/usr/bin/env python3`) run under this Python, not a version manager's shim.
        python = tmp / "bin" / "python3"
        python.parent.mkdir(exist_ok=True)
        if not python.exists():
            python.symlink_to(sys.executable)
        path = os.pathsep.join([str(STANDINS), str(python.parent), os.environ["PATH"]])
        self.env = {**os.environ, "PATH": path,
                    "FAKE_DOCKER_STATE": str(self.state), "FAKE_SCENARIO": str(self.scenario_path),
                    "FAKE_GPU_TEMPS": str(self.temps), "PYTHONUNBUFFERED": "1"}
        self.scenario([])

    def write_run(self, run: dict[str, Any]) -> Path:
        path = self.runs / f"{run['id']}.yaml"
        path.write_text(yaml.safe_dump(run, sort_keys=False))
        return path

    def scenario(self, actions: list[dict[str, Any]], path: Path | None = None) -> Path:
        """Write what the stand-in docker replays (see standins/docker); returns the file."""
        path = path or self.scenario_path
        path.write_text(json.dumps(actions))
        return path

    def lines(self, lines: list[str], delay: float = 0.0) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for ln in lines:
            out.append({"line": ln})
            if delay:
                out.append({"sleep": delay})
        return out

    def argv(self, *ids: str, extra: list[str] | None = None) -> list[str]:
        return [sys.executable, str(self.root / "capture" / "run.py"), "record", *ids, "--runs-dir", str(self.runs),
                "--gpu-dir", str(self.gpu), "--flags", str(self.flags), "--metrics", str(self.metrics),
                *FAST, *(extra or [])]

    def record(self, *ids: str, extra: list[str] | None = None, timeout: float = 30,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*ids, extra=extra), env={**self.env, **(env or {})}, capture_output=True,
                              text=True, timeout=timeout)

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
        """SIGKILL the stand-in engines and containers this sandbox started (by their recorded pids)."""
        pids = self.state / "engine.pids"
        containers = [p.read_text() for p in self.state.glob("*.pid")]
        for pid in (pids.read_text().split() if pids.exists() else []) + containers:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
