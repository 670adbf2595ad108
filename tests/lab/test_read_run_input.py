"""read_run.py on logs as they arrive from other machines: UTF-16 (PowerShell's `>`), CRLF, CR, binary, a FIFO.

Every encoding with a byte-order mark and every line end reads as the same lines; input that is not
text, or not a regular file, is refused with what was tried, exit 2, never a hang or "no line matches".
A 20 MB line with no newline is read in linear time by the recorder's live reader.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from capture.lab.logparse import LiveLog
from labutil import in_process
from miles101.tools.read_run import LogUnreadable, decode_log, read_log_file
from miles101.tools.read_run import main as read_run_main

SCRIPT = Path(__file__).resolve().parents[2] / "_ext" / "miles101" / "tools" / "read_run.py"
SYMPTOM = "error: the following arguments are required: --rollout-batch-size"
LINES = ["starting", SYMPTOM, "perf 0: {'perf/rollout_time': 1.5}", "done"]


def run(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """read_run.py's main in this process (a file that could hang the reader goes to `run_script`)."""
    return in_process(read_run_main, str(path), *args)


def run_script(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """read_run.py as a reader starts it, with a timeout: a FIFO must never hang it."""
    return subprocess.run([sys.executable, str(SCRIPT), str(path), *args], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-16-be-bom", "utf-32"])
@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_every_encoding_and_line_end_reads_the_same_lines(tmp_path: Path, encoding: str, end: str) -> None:
    text = end.join(LINES) + end
    if encoding.endswith("-bom"):
        codec = encoding[:-4]
        raw = (b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff") + text.encode(codec)
    else:
        raw = text.encode(encoding)
    log = tmp_path / "log.txt"
    log.write_bytes(raw)
    assert read_log_file(str(log)) == LINES
    res = run(log, "--diagnose")
    assert res.returncode == 0 and "args-rollout-batch-size-required" in res.stdout + res.stderr, res.stdout


def test_utf16_without_a_mark_is_read_too() -> None:
    assert decode_log("\n".join(LINES).encode("utf-16-le")).splitlines() == LINES


@pytest.mark.parametrize("raw", [bytes(range(256)) * 64, b"\x00\x01\x02\xff" * 1000], ids=["binary", "nuls"])
def test_undecodable_input_is_refused_with_what_was_tried(tmp_path: Path, raw: bytes) -> None:
    log = tmp_path / "log.bin"
    log.write_bytes(raw)
    res = run(log, "--diagnose")
    assert res.returncode == 2
    assert "tried UTF-8" in res.stderr and "UTF-16" in res.stderr and "save the log as UTF-8" in res.stderr


def test_a_stray_byte_in_a_utf8_log_is_replaced_not_refused(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_bytes(("\n".join(LINES) + "\n").encode() + b"progress \xff\n")
    assert read_log_file(str(log))[:4] == LINES


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_only_regular_files_are_read(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "log"
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    started = time.monotonic()
    res = run_script(path, "--diagnose")
    assert time.monotonic() - started < 15
    assert res.returncode == 2 and ("a FIFO" if kind == "fifo" else "a directory") in res.stderr
    with pytest.raises(LogUnreadable):
        read_log_file(str(path))


def test_a_20mb_line_without_newline_is_read_in_linear_time() -> None:
    """Chunks of 64 KiB of one long line, then a step line: well under the watchdog's patience."""
    log, steps = io.BytesIO(), io.BytesIO()
    live = LiveLog(log, steps, None, 0.0)
    chunk = b"x" * 65536
    started = time.monotonic()
    for _ in range(20 * 16):  # 20 MiB
        assert live.feed(chunk, 1.0) == []
    live.feed(b"\nperf 0: {'perf/rollout_time': 1.5}\n", 2.0)
    live.close(3.0)
    assert time.monotonic() - started < 10  # quadratic re-scanning took ~50 s
    assert len(log.getvalue()) == 20 * 2**20 + 36
    assert b'"step": 0' in steps.getvalue()


def test_a_crlf_cut_between_two_chunks_ends_one_line() -> None:
    log, steps = io.BytesIO(), io.BytesIO()
    live = LiveLog(log, steps, None, 0.0)
    assert live.feed(b"first\r", 1.0) == ["first"]
    assert live.feed(b"\nsecond\n", 1.0) == ["second"]


def test_reading_a_fifo_never_blocks_the_caller(tmp_path: Path) -> None:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(_try(path)), daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and isinstance(result[0], LogUnreadable)


def _try(path: Path) -> object:
    try:
        return read_log_file(str(path))
    except LogUnreadable as exc:
        return exc


def test_the_watchdog_follows_a_20mb_line_in_linear_time(tmp_path: Path) -> None:
    from miles101.tools.watchdog import MAX_LINE, LogFollower

    log = tmp_path / "run.log"
    follower = LogFollower(str(log))
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as fh:
        for _ in range(20 * 16):
            fh.write("x" * 65536)
            fh.flush()
            assert follower.read() == []
        fh.write("\nstep 0: {}\n")
    lines = follower.read()
    assert time.monotonic() - started < 15
    assert [len(ln) for ln in lines] == [MAX_LINE, 10]  # the start of a line longer than any Miles line is kept


@pytest.mark.parametrize("content", [b"\xdb\x01 binary \x00 junk", b"just: some\nyaml: [1, 2]\n", b""],
                         ids=["binary", "yaml-without-args", "empty"])
def test_a_run_file_without_any_flag_is_refused_for_diagnose(tmp_path: Path, content: bytes) -> None:
    """Its settings would otherwise read as Miles's defaults ("--train-backend megatron") and pick the fixes."""
    log, run_file = tmp_path / "run.log", tmp_path / "run.args"
    log.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    run_file.write_bytes(content)
    res = run(log, "--diagnose", "--run", str(run_file))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert f"{run_file} passes no argument (no --flag in it)" in res.stderr
    run_file.write_text("--train-backend fsdp\n--use-dynamic-batch-size\n", encoding="utf-8")
    assert "--train-backend fsdp, with --use-dynamic-batch-size" in run(log, "--diagnose", "--run", str(run_file)).stdout


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "huge"])
def test_a_run_file_that_is_not_a_small_regular_file_is_refused_by_name(tmp_path: Path, kind: str) -> None:
    """--run on a FIFO, /dev/zero, a directory or a file over 1 MiB: exit 2 at once, naming it, never waiting."""
    log, path = tmp_path / "run.log", tmp_path / "run.args"
    log.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        path.write_bytes(b"--rollout-batch-size 8 " * 50_000)
    target = "/dev/zero" if kind == "dev-zero" else str(path)
    started = time.monotonic()
    res = subprocess.run([sys.executable, str(SCRIPT), str(log), "--diagnose", "--run", target],
                         capture_output=True, text=True, timeout=20)
    assert time.monotonic() - started < 15
    why = {"fifo": "a FIFO", "dev-zero": "a device", "directory": "a directory", "huge": "over 1 MiB"}[kind]
    assert res.returncode == 2 and f"cannot read {target}: it is {why}" in res.stderr, res.stderr


def test_a_log_over_the_cap_is_refused_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from miles101.tools import read_run

    log = tmp_path / "run.log"
    log.write_text("\n".join(LINES) * 100, encoding="utf-8")
    monkeypatch.setattr(read_run, "MAX_LOG_BYTES", 1000)
    with pytest.raises(LogUnreadable, match="over 0 MiB|the most read_run reads"):
        read_log_file(str(log))


@pytest.mark.parametrize("digits", [10, 5000])
def test_an_absurd_batch_size_in_a_run_file_is_refused_not_a_traceback(tmp_path: Path, digits: int) -> None:
    log, path = tmp_path / "run.log", tmp_path / "run.args"
    log.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    path.write_text(f"--train-backend fsdp --rollout-batch-size {'9' * digits}\n", encoding="utf-8")
    res = run(log, "--run", str(path))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "digits long: no run has that many prompt groups" in res.stderr
