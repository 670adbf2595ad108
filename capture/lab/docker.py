"""The docker commands the recorder runs: the run's container and its control verbs."""
from __future__ import annotations

import os
import subprocess
from typing import Any

from capture.lab.runfile import option_values

# The flags Miles's install guide starts its image with (docs/getting-started/installation.md:17-21,
# docs/getting-started/quick-start.md:35-42): all GPUs, host IPC, 32 GB /dev/shm, unlimited locked
# memory, a 64 MiB stack, host networking (the watchdog reaches the engine's port on 127.0.0.1).
RUN_FLAGS = ["--gpus", "all", "--ipc=host", "--shm-size=32g", "--ulimit", "memlock=-1",
             "--ulimit", "stack=67108864", "--network=host"]
WORKDIR = "/root/miles"  # where the image clones Miles (docker/Dockerfile:238)


def container_name(run_id: str, seed: int | None, stamp: str) -> str:
    """A name the recorder can pause, stop and inspect."""
    return f"miles101-{run_id}-{'s' + str(seed) + '-' if seed is not None else ''}{stamp}".lower()


def seed_args(run: dict[str, Any], seed: int | None) -> list[str]:
    """--seed/--rollout-seed for this seed, unless the args already give them."""
    if seed is None:
        return []
    given = option_values(run["args"])
    return [a for flag in ("--seed", "--rollout-seed") if flag not in given for a in (flag, str(seed))]


def run_command(run: dict[str, Any], seed: int | None, name: str) -> list[str]:
    """The exact `docker run` argv of one seed of a run."""
    cmd = ["docker", "run", "--name", name, *RUN_FLAGS, "-w", WORKDIR]
    for key in sorted(run.get("env") or {}):
        cmd += ["-e", f"{key}={run['env'][key]}"]
    for m in run.get("mounts") or []:
        cmd += ["-v", f"{os.path.expanduser(m['host'])}:{m['container']}{':ro' if m.get('readonly') else ''}"]
    return cmd + [run["image"], *run["entry"], *run["args"], *seed_args(run, seed)]


def commit_command(image: str) -> list[str]:
    """Reads the Miles commit inside the image."""
    return ["docker", "run", "--rm", "--entrypoint", "git", image, "-C", WORKDIR, "rev-parse", "HEAD"]


def docker(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run one docker verb; never raises on a non-zero exit."""
    try:
        return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(["docker", *args], 127, "", str(e))


def image_digest(image: str) -> tuple[str | None, str]:
    """(repo digest, else image id; or None) and docker's error text."""
    res = docker("image", "inspect", "--format", "{{.Id}} {{join .RepoDigests \",\"}}", image)
    if res.returncode != 0:
        return None, (res.stderr or res.stdout).strip()
    image_id, _, digests = res.stdout.strip().partition(" ")
    return (digests.split(",")[0] if digests else image_id), ""


def inspect_state(name: str) -> dict[str, Any]:
    """ExitCode and OOMKilled of a stopped container ({} if docker cannot tell)."""
    res = docker("inspect", "--format", "{{.State.ExitCode}} {{.State.OOMKilled}}", name)
    parts = res.stdout.split()
    if res.returncode != 0 or len(parts) != 2:
        return {}
    return {"exit_code": int(parts[0]), "oom_killed": parts[1] == "true"}
