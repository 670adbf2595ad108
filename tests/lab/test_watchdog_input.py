"""watchdog.py on bad input: a --log it can never read, a non-finite number, a --pid that runs no
process. Each ends in one line naming the argument and the fix, exit 2, never a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from miles101.tools import watchdog as watchdog_module
from miles101.tools.watchdog import LogFollower, LogUnreadable

SCRIPT = Path(__file__).resolve().parents[2] / "_ext" / "miles101" / "tools" / "watchdog.py"


def watchdog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--poll", "0.05", *args], capture_output=True, text=True,
                          timeout=20)


def refused(res: subprocess.CompletedProcess[str], *words: str) -> None:
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    for w in words:
        assert w in res.stderr, res.stderr


def test_a_directory_as_log_is_refused(tmp_path: Path) -> None:
    refused(watchdog("--log", str(tmp_path)), f"cannot read --log {tmp_path}", "it is a directory", "tee")


def test_a_log_in_a_missing_directory_is_refused(tmp_path: Path) -> None:
    """A typo in the folder: the log never appears, and the stall check would stop a healthy run."""
    log = tmp_path / "no-such-dir" / "run.log"
    refused(watchdog("--log", str(log)), f"its directory {log.parent} does not exist", "fix the path")


def test_a_missing_log_in_an_existing_directory_is_still_awaited(tmp_path: Path) -> None:
    assert LogFollower(str(tmp_path / "run.log")).started.startswith("the log does not exist yet")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file without read permission")
def test_an_unreadable_log_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("x\n")
    log.chmod(0)
    refused(watchdog("--log", str(log)), "Permission denied", "make it readable")


def test_a_log_that_becomes_unreadable_while_followed_raises_the_message(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    follower = LogFollower(str(log))
    log.mkdir()  # the path now names a directory: no permission fix, the log is gone
    with pytest.raises(LogUnreadable, match="it is now a directory, not the log"):
        follower.read()
    log.rmdir()
    os.mkfifo(log)  # a FIFO in its place is refused at once, never waited on
    with pytest.raises(LogUnreadable, match="it is now a FIFO"):
        follower.read()
    log.unlink()
    log.write_text("")
    os.chmod(log, 0)
    if os.geteuid() != 0:  # root reads any file
        with pytest.raises(LogUnreadable, match="make it readable"):
            follower.read()


@pytest.mark.parametrize("arg", ["--poll", "--stall-after", "--probe-timeout"])
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_a_non_finite_or_non_positive_number_is_refused(tmp_path: Path, arg: str, value: str) -> None:
    refused(watchdog("--log", str(tmp_path / "run.log"), arg, value), f"{arg} must be a positive number")


def test_a_pid_that_runs_no_process_is_refused(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: its id names no process now
    refused(watchdog("--log", str(tmp_path / "run.log"), "--pid", str(gone.pid)), f"--pid {gone.pid}: no such process")


@pytest.mark.parametrize("url", ["localhost:abc", "http://[::1", "http://a b", "ftp://host:1", "127.0.0.1:99999"])
def test_a_bad_engine_address_is_refused_and_never_crashes_a_probe(tmp_path: Path, url: str) -> None:
    """urllib raised ValueError/InvalidURL from the first probe, mid-run: the watchdog died and the run went unguarded."""
    refused(watchdog("--log", str(tmp_path / "run.log"), "--engine", url), f"--engine {url!r}:", "http://127.0.0.1:15000")
    ok, detail = watchdog_module.probe(url, 1)
    assert not ok and detail.startswith("not a URL: ")


def test_from_start_reads_a_large_log_a_chunk_at_a_time(tmp_path: Path, monkeypatch) -> None:
    """--from-start on a large log never reads it in one piece: each read takes at most CHUNK_BYTES, and
    `behind` tells the loop to read on before it sleeps; every line arrives once, in order."""
    monkeypatch.setattr(watchdog_module, "CHUNK_BYTES", 1000)
    log = tmp_path / "run.log"
    log.write_text("".join(f"line {i}\n" for i in range(2000)), encoding="utf-8")
    follower = LogFollower(str(log), from_start=True)
    got: list[str] = []
    reads = 0
    while True:
        before = follower.pos
        got += follower.read()
        reads += 1
        assert follower.pos - before <= 1000
        if not follower.behind:
            break
    assert got == [f"line {i}" for i in range(2000)] and reads > 10
