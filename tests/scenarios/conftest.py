"""The reader, replayed: a home directory, the stand-ins first on PATH, and a shell that runs a page's
commands where the page says (on the host, or in the container through `docker exec`).

Every stand-in behaviour a scenario triggers is recorded (capture/lab/rehearsal/standins/imitates.py);
a scenario fails on one that does not cite the Ray or Docker source or docs it imitates.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from capture.lab.rehearsal.sandbox import STANDINS
from capture.lab.rehearsal.standins.imitates import IMITATES
from miles101 import tools_archive

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "_ext" / "miles101" / "tools"


@dataclass
class Result:
    rc: int
    out: str
    err: str


class Reader:
    """One reader's machine: $HOME under tmp, the stand-ins' state beside it."""

    def __init__(self, tmp: Path) -> None:
        self.home, self.state = tmp / "home", tmp / "docker-state"
        self.home.mkdir()
        self.state.mkdir()
        python = tmp / "bin" / "python3"
        python.parent.mkdir()
        python.symlink_to(sys.executable)  # the stand-ins' `#!/usr/bin/env python3`, and the reader's python3
        self.imitated = tmp / "imitated.log"
        self.env = {"HOME": str(self.home), "PATH": os.pathsep.join([str(STANDINS), str(python.parent), "/usr/bin", "/bin"]),
                    "FAKE_DOCKER_STATE": str(self.state), "FAKE_SCENARIO": str(tmp / "scenario.json"),
                    "FAKE_IMITATED": str(self.imitated), "PYTHONPATH": f"{ROOT / '_ext'}{os.pathsep}{ROOT}",
                    "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}
        (tmp / "scenario.json").write_text("[]")

    def host(self, script: str, timeout: float = 60, env: dict[str, str] | None = None) -> Result:
        """Run a page's block in a bash shell on the host (``env`` added to the reader's environment)."""
        res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], env={**self.env, **(env or {})},
                             cwd=self.home,
                             capture_output=True, text=True, timeout=timeout)
        return Result(res.returncode, res.stdout, res.stderr)

    def container(self, script: str, timeout: float = 60) -> Result:
        """Run a page's block in the container, as typed into `docker exec -it miles bash`."""
        res = subprocess.run(["docker", "exec", "-it", "miles", "bash", "-c", script], env=self.env, cwd=self.home,
                             capture_output=True, text=True, timeout=timeout)
        return Result(res.returncode, res.stdout, res.stderr)

    def start(self, argv: list[str]) -> subprocess.Popen[str]:
        """A second terminal on the host (the watchdog)."""
        return subprocess.Popen(argv, env=self.env, cwd=self.home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)

    def download_tools(self) -> None:
        """Step 2's downloads: the book's tools, as served, into ~/miles-logs (the archive, and its four files
        loose, as `unzip miles101-tools.pyz` leaves them)."""
        logs = self.home / "miles-logs"
        logs.mkdir(exist_ok=True)
        (logs / tools_archive.NAME).write_bytes(tools_archive.archive_bytes())
        for name in tools_archive.TOOLS:
            shutil.copy(TOOLS / name, logs / name)

    def ray_state(self) -> Path:
        return self.state / "containers" / "miles" / "ray"

    def uncited(self) -> list[str]:
        used = set(self.imitated.read_text().split()) if self.imitated.exists() else set()
        return sorted(k for k in used if not IMITATES.get(k))


@pytest.fixture
def reader(tmp_path: Path):
    if not shutil.which("bash"):
        pytest.skip("bash is needed to run a page's commands")
    r = Reader(tmp_path)
    yield r
    assert not r.uncited(), f"stand-in behaviours without a citation in imitates.py: {r.uncited()}"
    subprocess.run(["docker", "stop", "miles"], env=r.env, capture_output=True)  # end what is left


ARCH = {"aarch64": "arm64", "x86_64": "amd64"}.get(platform.machine(), platform.machine())
