"""host.json: what the recording ran on (nvidia-smi, /proc, uname)."""
from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

SCHEMA = "host/1"
GPU_QUERY = ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"]


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _proc(path: str, key: str) -> str | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else None


def collect() -> dict[str, Any]:
    """The host's GPUs, driver, CUDA version, memory, kernel, CPU and the date (UTC)."""
    gpus = []
    for line in _run(GPU_QUERY).splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            gpus.append({"name": parts[0], "driver": parts[1], "memory": parts[2]})
    cuda = re.search(r"CUDA Version:\s*([0-9.]+)", _run(["nvidia-smi"]))
    cpu = _proc("/proc/cpuinfo", "model name") or _lscpu_model() or platform.processor() or None
    mem_kb = _proc("/proc/meminfo", "MemTotal")
    return {
        "schema": SCHEMA,
        "gpus": gpus,
        "gpu": gpus[0]["name"] if gpus else None,
        "driver": gpus[0]["driver"] if gpus else None,
        "cuda": cuda.group(1) if cuda else None,
        "memory_total_gib": round(int(mem_kb.split()[0]) / 2**20, 1) if mem_kb else None,
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _lscpu_model() -> str | None:
    m = re.search(r"^Model name:\s*(.+)$", _run(["lscpu"]), re.M)
    return m.group(1).strip() if m else None
