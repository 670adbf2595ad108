"""The docker commands the recorder runs: the run's container and its control verbs."""
from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any

from capture.lab.runfile import option_values  # noqa: F401  (preflight reads the args through dk.option_values)
from miles101 import runfiles
from miles101.runfiles import WORKDIR

# The flags Miles's install guide starts its image with (docs/getting-started/installation.md:17-21,
# docs/getting-started/quick-start.md:35-42): all GPUs, host IPC, 32 GB /dev/shm, unlimited locked
# memory, a 64 MiB stack, host networking (the watchdog reaches the engine's port on 127.0.0.1).
RUN_FLAGS = ["--gpus", "all", "--ipc=host", "--shm-size=32g", "--ulimit", "memlock=-1",
             "--ulimit", "stack=67108864", "--network=host"]
LABEL = "miles101.recorder"  # every container the recorder starts carries LABEL=<run id>


def container_name(run_id: str, seed: int | None, stamp: str) -> str:
    """A name the recorder can pause, stop and inspect."""
    return f"miles101-{run_id}-{'s' + str(seed) + '-' if seed is not None else ''}{stamp}".lower()


def procedure(run: dict[str, Any], seed: int | None) -> list[list[str]]:
    """The commands the reader runs inside the container, in order: the pages render the same argv.

    launch: ray-job (the default) is section 1.1's procedure, which follows Miles's launcher
    (miles/utils/external_utils/command_utils.py:183-188, 229-238): start Ray with the run's GPUs,
    then submit the entry as a Ray job that streams its log and exits non-zero if the job failed.
    Both commands come from miles101.runfiles, which {run-command} renders from too, so the recorder
    passes nothing the page does not show. launch: direct runs the entry as the container's command.
    """
    args = runfiles.miles_args(run, seed)
    if run.get("launch", "ray-job") == "direct":
        return [[*run["entry"], *args]]
    return [runfiles.ray_start(run), [*runfiles.job_submit(run, seed), *args]]


def run_command(run: dict[str, Any], seed: int | None, name: str) -> list[str]:
    """The exact `docker run` argv of one seed of a run: the procedure, labelled so a leftover is found."""
    cmd = ["docker", "run", "--name", name, "--label", f"{LABEL}={run['id']}", *RUN_FLAGS, "-w", WORKDIR]
    for key in sorted(run.get("env") or {}):
        cmd += ["-e", f"{key}={run['env'][key]}"]
    for m in run.get("mounts") or []:
        cmd += ["-v", f"{os.path.expanduser(m['host'])}:{m['container']}{':ro' if m.get('readonly') else ''}"]
    steps = procedure(run, seed)
    if len(steps) == 1:
        return cmd + [run["image"], *steps[0]]
    # A shell runs the steps, as the reader's `docker run ... /bin/bash` does (the image's entrypoint stays).
    return cmd + [run["image"], "bash", "-c", " && ".join(shlex.join(s) for s in steps)]


def leftovers() -> tuple[list[str], str]:
    """Running containers this recorder started (by label), and docker's error text if it cannot list them."""
    res = docker("ps", "--filter", f"label={LABEL}", "--format", "{{.Names}}", timeout=30)
    if res.returncode != 0:
        return [], (res.stderr or res.stdout).strip()[:160]
    return [n for n in res.stdout.split() if n], ""


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
