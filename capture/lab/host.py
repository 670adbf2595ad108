"""host.json and the GPU probes: what the recording ran on (nvidia-smi, /proc, uname).

On a GB10 the GPU has no memory of its own: nvidia-smi answers "[N/A]" for memory.total/used/free
and "Not Supported" in its table's Memory-Usage column (NVIDIA's DGX Spark known issues). Every
probe here reads such an answer as "not reported" (None), never as a value; the memory the run
uses is read from /proc/meminfo (the pool) and from Miles's own Memory-Usage lines.
"""
from __future__ import annotations

import datetime as dt
import os
import platform
import re
from typing import Any

# The probes live in the reader's preflight (one stdlib-only file), so a reader's check and host.json read the GPU alike.
from miles101.tools.preflight import (cuda_version, meminfo_gib, proc_field, query_gpu, reported,  # noqa: F401
                                   run_probe)

SCHEMA = "host/1"
GPU_FIELDS = ["name", "driver_version", "compute_cap", "memory.total"]


def _mib(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def collect() -> dict[str, Any]:
    """The host's GPUs, driver, CUDA version, memory, kernel, CPU and the date (UTC)."""
    gpus = []
    for row in query_gpu(GPU_FIELDS):
        gpu: dict[str, Any] = {"name": row["name"], "driver": row["driver_version"], "compute_cap": row["compute_cap"]}
        total = _mib(row["memory.total"])
        if total is not None:
            gpu["memory_total_mib"] = total
        gpus.append({k: v for k, v in gpu.items() if v is not None})
    driver, cuda = cuda_version()
    cpu = proc_field("/proc/cpuinfo", "model name") or _lscpu_model() or platform.processor() or None
    total = meminfo_gib("MemTotal")
    return {
        "schema": SCHEMA,
        "gpus": gpus,
        "gpu": gpus[0].get("name") if gpus else None,
        "driver": (gpus[0].get("driver") if gpus else None) or driver,
        "cuda": cuda,
        "compute_cap": gpus[0].get("compute_cap") if gpus else None,
        "gpu_memory": "own" if any("memory_total_mib" in g for g in gpus) else "pool" if gpus else None,
        "memory_total_gib": round(total, 1) if total is not None else None,
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _lscpu_model() -> str | None:
    m = re.search(r"^Model name:\s*(.+)$", run_probe(["lscpu"]).stdout, re.M)
    return m.group(1).strip() if m else None
