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
import subprocess
from pathlib import Path
from typing import Any

SCHEMA = "host/1"
GPU_FIELDS = ["name", "driver_version", "compute_cap", "memory.total"]
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SHAPES = {"driver_version": re.compile(r"[0-9]+(\.[0-9]+)+"), "compute_cap": re.compile(r"[0-9]+\.[0-9]+"),
          "memory.total": re.compile(r"[0-9.]+"), "memory.used": re.compile(r"[0-9.]+"),
          "memory.free": re.compile(r"[0-9.]+"), "temperature.gpu": re.compile(r"[0-9.]+"),
          "name": re.compile(r"[\w][\w .()/-]*")}
NOT_REPORTED = re.compile(r"^\[?\s*(n/?a|not supported|unknown error|insufficient permissions|gpu is lost)\s*\]?$", re.I)


def _run(cmd: list[str], timeout: float = 20) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def reported(text: str | None) -> str | None:
    """A field as nvidia-smi printed it, or None for '[N/A]', 'Not Supported' and the like."""
    text = (text or "").strip()
    return None if not text or NOT_REPORTED.match(text) else text


def query_gpu(fields: list[str], timeout: float = 20) -> list[dict[str, str | None]]:
    """One dict per GPU from `nvidia-smi --query-gpu`; a field it does not report is None. [] when it cannot run."""
    out = _run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"], timeout)
    rows = []
    for line in ANSI.sub("", out).splitlines():
        parts = [p.strip() for p in line.split(",")]
        row = {f: reported(p) for f, p in zip(fields, parts)}
        if len(parts) == len(fields) and any(row.values()) and all(_plausible(f, v) for f, v in row.items()):
            rows.append(row)
    return rows


def _plausible(field: str, value: str | None) -> bool:
    """A field's value has its field's shape (a garbled line is not a GPU)."""
    shape = SHAPES.get(field)
    return value is None or shape is None or bool(shape.fullmatch(value))


def cuda_version(timeout: float = 20) -> tuple[str | None, str | None]:
    """(driver version, the CUDA version the driver supports) from nvidia-smi's header."""
    text = _run(["nvidia-smi"], timeout)
    driver = re.search(r"Driver Version:\s*([0-9.]+)", text)
    cuda = re.search(r"CUDA Version:\s*([0-9.]+)", text)
    return (driver[1] if driver else None), (cuda[1] if cuda else None)


def _proc(path: str, key: str) -> str | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else None


def meminfo_gib(key: str, path: str = "/proc/meminfo") -> float | None:
    """A /proc/meminfo field (kB) in GiB, or None."""
    raw = _proc(path, key)
    try:
        return int(raw.split()[0]) / 2**20 if raw else None
    except (ValueError, IndexError):
        return None


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
    cpu = _proc("/proc/cpuinfo", "model name") or _lscpu_model() or platform.processor() or None
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
    m = re.search(r"^Model name:\s*(.+)$", _run(["lscpu"]), re.M)
    return m.group(1).strip() if m else None
