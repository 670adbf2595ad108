"""The GPU probes read a GB10 as it is: memory "[N/A]" / "Not Supported" is never a value (stand-in nvidia-smi)."""
from __future__ import annotations

import json
import os
import sys

import pytest

from labutil import STANDINS


@pytest.fixture
def smi(monkeypatch, tmp_path):
    # The stand-in (`#!/usr/bin/env python3`) runs under this Python, as in the lab's sandbox: a version
    # manager's shim first on PATH costs a quarter of a second a call, and collect() calls it several times.
    python = tmp_path / "bin" / "python3"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    monkeypatch.setenv("PATH", os.pathsep.join([str(STANDINS), str(python.parent), os.environ["PATH"]]))
    monkeypatch.setenv("FAKE_GPU_TEMPS", str(tmp_path / "temps.txt"))

    def mode(name: str) -> None:
        monkeypatch.setenv("FAKE_NVSMI", name)
    return mode


def test_host_json_on_a_gb10_holds_no_na(smi):
    from capture.lab.host import collect

    smi("gb10")
    host = collect()
    text = json.dumps(host)
    assert "N/A" not in text and "Not Supported" not in text
    assert host["gpus"] == [{"name": "NVIDIA GB10", "driver": "580.95.05", "compute_cap": "12.1"}]
    assert host["gpu_memory"] == "pool" and host["cuda"] == "13.0" and host["compute_cap"] == "12.1"
    assert host["memory_total_gib"] > 0  # from /proc/meminfo, the pool


def test_host_json_validates_against_the_schema(smi):
    import jsonschema

    from capture.lab.host import collect
    from capture.lab.record import RECORDING_SCHEMA

    schema = json.loads(RECORDING_SCHEMA.read_text())
    for mode in ("gb10", "h100", "garbage", "no-driver"):
        smi(mode)
        host = collect()
        jsonschema.validate(host, {"$ref": "#/$defs/host", "$defs": schema["$defs"]})
        assert "N/A" not in json.dumps(host), mode
    smi("h100")
    host = collect()  # each collect() runs the stand-in nvidia-smi (a process) several times: once is enough
    assert host["gpus"][0]["memory_total_mib"] == 81559 and host["gpu_memory"] == "own"


@pytest.mark.parametrize("mode", ["garbage", "no-driver"])
def test_probes_take_broken_output_without_crashing(smi, mode):
    from capture.lab.heat import read_temperature
    from capture.lab.host import collect, cuda_version, query_gpu

    smi(mode)
    assert read_temperature() is None
    host = collect()
    assert host["gpus"] == [] and host["gpu"] is None
    assert cuda_version() == (None, None)
    assert all(v is None or "N/A" not in v for row in query_gpu(["memory.used"]) for v in row.values())


def test_not_reported_fields_are_none(smi):
    from capture.lab.host import query_gpu, reported

    smi("gb10")
    assert query_gpu(["name", "memory.used", "memory.free", "temperature.gpu"]) == [
        {"name": "NVIDIA GB10", "memory.used": None, "memory.free": None, "temperature.gpu": "45"}]
    for text in ("[N/A]", "N/A", "Not Supported", "[Not Supported]", "", "  "):
        assert reported(text) is None
    assert reported("12.1") == "12.1"


def test_heat_guard_reads_na_temperature_as_no_reading(smi, tmp_path):
    from capture.lab.heat import read_temperature

    smi("gb10")
    (tmp_path / "temps.txt").write_text("[N/A]\n71")
    assert read_temperature() is None
    assert read_temperature() == 71.0


def test_pool_sampler_reads_meminfo(tmp_path):
    from capture.lab.host import meminfo_gib

    f = tmp_path / "meminfo"
    f.write_text("MemTotal:       128502000 kB\nMemAvailable:    2097152 kB\n")
    assert meminfo_gib("MemAvailable", str(f)) == 2.0
    assert meminfo_gib("Nope", str(f)) is None
    f.write_text("MemAvailable: lots kB\n")
    assert meminfo_gib("MemAvailable", str(f)) is None
