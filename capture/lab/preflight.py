"""Checks before a recording starts; each failure says what to do."""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capture.lab.docker import docker, image_digest


@dataclass
class Check:
    """One preflight result."""

    name: str
    ok: bool
    message: str


def check_docker() -> Check:
    if shutil.which("docker") is None:
        return Check("docker", False, "docker is not on PATH: install Docker and the NVIDIA container toolkit")
    res = docker("version", "--format", "{{.Server.Version}}", timeout=30)
    if res.returncode != 0:
        return Check("docker", False, f"docker cannot reach its daemon ({res.stderr.strip()[:120]}): start it, "
                                      "or add your user to the docker group")
    return Check("docker", True, f"docker server {res.stdout.strip()}")


def check_image(image: str) -> tuple[Check, str | None]:
    digest, err = image_digest(image)
    if digest is None:
        return Check("image", False, f"image {image} is not present ({err[:120]}): run `docker pull {image}`"), None
    return Check("image", True, f"{image} is {digest}"), digest


def check_gpu() -> Check:
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Check("gpu", False, f"nvidia-smi failed ({e}): is the NVIDIA driver installed?")
    gpus = [ln for ln in out.stdout.splitlines() if ln.startswith("GPU ")]
    if out.returncode != 0 or not gpus:
        return Check("gpu", False, "nvidia-smi sees no GPU: check the driver (`nvidia-smi`)")
    return Check("gpu", True, gpus[0].strip())


def check_mounts(run: dict[str, Any]) -> list[Check]:
    out = []
    for m in run.get("mounts") or []:
        host = os.path.expanduser(m["host"])
        ok = os.path.exists(host)
        out.append(Check(f"mount {m['container']}", ok, f"{host} exists" if ok else
                         f"{host} does not exist: download it there or fix mounts in the run file"))
    return out


def check_memory(min_gib: float) -> Check:
    try:
        line = next(ln for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemAvailable:"))
        free = int(line.split()[1]) / 2**20
    except (OSError, StopIteration, ValueError):
        return Check("memory", True, "cannot read /proc/meminfo; not checked")
    ok = free >= min_gib
    return Check("memory", ok, f"{free:.1f} GiB available" + ("" if ok else
                 f", below {min_gib:g} GiB: stop other jobs (the GPU shares this memory on a Spark)"))


def check_disk(path: Path, min_gib: float) -> Check:
    path.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(path).free / 2**30
    ok = free >= min_gib
    return Check("disk", ok, f"{free:.1f} GiB free at {path}" + ("" if ok else f", below {min_gib:g} GiB: make room"))


def preflight(run: dict[str, Any], gpu_dir: Path, min_mem_gib: float, min_disk_gib: float) -> tuple[list[Check], str | None]:
    """Every host check for one run, and the image digest when the image is present."""
    checks = [check_docker()]
    digest = None
    if checks[0].ok:
        img, digest = check_image(run["image"])
        checks.append(img)
    checks += [check_gpu(), *check_mounts(run), check_memory(min_mem_gib), check_disk(gpu_dir, min_disk_gib)]
    return checks, digest
