"""The docker commands the recorder runs: the run's container and its control verbs."""
from __future__ import annotations

from typing import Any

# The launch procedure lives in the reader's preflight (one stdlib-only file, section 1.1 serves it):
# the recorder runs exactly what the book tells the reader to run.
from miles101.tools.preflight import (LABEL, RAY_DASHBOARD, RUN_FLAGS, WORKDIR, docker, image_digest, leftovers,  # noqa: F401
                                   procedure, program, run_command, seed_args)


def container_name(run_id: str, seed: int | None, stamp: str) -> str:
    """A name the recorder can pause, stop and inspect."""
    return f"miles101-{run_id}-{'s' + str(seed) + '-' if seed is not None else ''}{stamp}".lower()


def commit_command(image: str) -> list[str]:
    """Reads the Miles commit inside the image."""
    return ["docker", "run", "--rm", "--entrypoint", "git", image, "-C", WORKDIR, "rev-parse", "HEAD"]


def inspect_state(name: str) -> dict[str, Any]:
    """ExitCode and OOMKilled of a stopped container ({} if docker cannot tell)."""
    res = docker("inspect", "--format", "{{.State.ExitCode}} {{.State.OOMKilled}}", name)
    parts = res.stdout.split()
    if res.returncode != 0 or len(parts) != 2:
        return {}
    return {"exit_code": int(parts[0]), "oom_killed": parts[1] == "true"}
