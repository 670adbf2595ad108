"""Shared memory: the launch never passes a size Docker ignores, and the preflight reports the host's /dev/shm.

With --ipc=host Docker (moby b985e2313a, daemon/container_operations_unix.go:242-246) bind-mounts
the host's /dev/shm into the container and reads no --shm-size, so the book's launches and pages
pass no size beside --ipc=host, and the preflight shows the tmpfs that counts instead.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import miles101.tools.preflight as pf
from labutil import ROOT



def test_the_launch_passes_no_shm_size_beside_host_ipc():
    assert "--ipc=host" in pf.RUN_FLAGS
    assert not any(f.startswith("--shm-size") for f in pf.RUN_FLAGS)


@pytest.mark.parametrize("page", sorted((ROOT / "sections").glob("*.md")), ids=lambda p: p.stem)
def test_no_page_command_pairs_a_shm_size_with_host_ipc(page: Path):
    text = page.read_text(encoding="utf-8")
    for block in re.findall(r"```(?:bash|console|sh)\n(.*?)```", text, re.S):
        cmd = block.replace("\\\n", " ")
        for line in cmd.splitlines():
            if "--ipc=host" in line or "--ipc host" in line:
                assert "--shm-size" not in line, f"{page.name}: Docker ignores --shm-size with --ipc=host: {line.strip()}"


def mounts(tmp_path: Path, path: Path, fs: str) -> str:
    f = tmp_path / "mounts"
    f.write_text(f"proc /proc proc rw 0 0\nshm {path} {fs} rw,nosuid,nodev 0 0\n")
    return str(f)


def test_a_gb10s_tmpfs_is_reported_in_the_unified_pool(tmp_path):
    shm = tmp_path / "shm"
    shm.mkdir()
    c = pf.check_shm(str(shm), mounts(tmp_path, shm, "tmpfs"), gpu_own_memory=False)
    assert c.status == "pass"
    assert re.search(r": tmpfs, \d+\.\d GiB limit, \d+\.\d GiB used; in the unified pool", c.message), c.message


def test_a_gpu_with_its_own_memory_is_told_apart(tmp_path):
    shm = tmp_path / "shm"
    shm.mkdir()
    c = pf.check_shm(str(shm), mounts(tmp_path, shm, "tmpfs"), gpu_own_memory=True)
    assert "apart from the GPU's own" in c.message and "unified" not in c.message


def test_not_a_tmpfs_is_not_memory(tmp_path):
    shm = tmp_path / "shm"
    shm.mkdir()
    c = pf.check_shm(str(shm), mounts(tmp_path, shm, "ext4"), gpu_own_memory=False)
    assert c.status == "pass" and "ext4" in c.message and "not a tmpfs" in c.message


def test_a_missing_dev_shm_fails_with_dockers_words_and_a_fix(tmp_path):
    c = pf.check_shm(str(tmp_path / "nope"), str(tmp_path / "no-mounts"))
    assert c.status == "fail"
    assert "/dev/shm is not mounted, but must be for --ipc=host" in c.message
    assert "mount -t tmpfs" in c.fix and pf.SHM_MISSING in c.fix


def test_the_gb10_stand_in_reads_as_the_unified_pool(tmp_path, monkeypatch):
    """nvidia-smi's [N/A] for memory.total (the stand-in answers as a GB10) means the pool."""
    from labutil import STANDINS
    monkeypatch.setenv("PATH", f"{STANDINS}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("FAKE_NVSMI", "gb10")
    shm = tmp_path / "shm"
    shm.mkdir()
    assert "in the unified pool" in pf.check_shm(str(shm), mounts(tmp_path, shm, "tmpfs")).message
    monkeypatch.setenv("FAKE_NVSMI", "h100")
    assert "apart from the GPU's own" in pf.check_shm(str(shm), mounts(tmp_path, shm, "tmpfs")).message
