"""The watchdog acts only on the run it guards: it follows an existing log from its end, reads it
again from byte 0 when a new run truncates or replaces it (as `tee` without -a does at launch), says
which it did first, and reads from byte 0 with --from-start."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from capture.lab.rehearsal import mileslog as ml
from miles101.tools import watchdog
from miles101.tools.watchdog import LogFollower

OLD_RUN = [*ml.healthy(3)[:3], *ml.step_lines(0), ml.rollout_bar(), *ml.retry_lines()]


def write(path: Path, lines: list[str], mode: str = "w") -> None:
    with open(path, mode, encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def test_a_missing_log_is_read_from_the_start_when_it_appears(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    follower = LogFollower(str(log))
    assert follower.started.startswith("the log does not exist yet")
    assert follower.read() == []
    write(log, ["one", "two"])
    assert follower.read() == ["one", "two"] and not follower.restarted


def test_an_existing_log_is_followed_from_its_end(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    write(log, ["old 1", "old 2"])
    follower = LogFollower(str(log))
    assert follower.started.startswith("following from the end of an existing log")
    assert follower.read() == []
    write(log, ["new"], "a")
    assert follower.read() == ["new"]


def test_from_start_reads_an_existing_log_from_byte_0(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    write(log, ["old 1", "old 2"])
    follower = LogFollower(str(log), from_start=True)
    assert "from the start" in follower.started
    assert follower.read() == ["old 1", "old 2"]


def test_a_truncated_log_is_read_again_from_byte_0(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    write(log, ["old line " + str(i) for i in range(50)])
    follower = LogFollower(str(log))
    write(log, ["new 1"])  # `tee` without -a: same file, cut to 0, then written
    assert follower.read() == ["new 1"] and follower.restarted


def test_a_log_rewritten_past_its_old_end_between_reads_is_noticed(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    write(log, ["old"])
    follower = LogFollower(str(log))
    ino = os.stat(log).st_ino
    write(log, [f"new {i}" for i in range(20)])  # longer than the old log: its size alone would not tell
    assert os.stat(log).st_ino == ino
    assert follower.read() == [f"new {i}" for i in range(20)] and follower.restarted


def test_a_replaced_log_is_read_from_byte_0(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    write(log, ["old " + "x" * 100])
    follower = LogFollower(str(log))
    log.rename(tmp_path / "run.failed.log")  # the failed log kept under a new name
    assert follower.read() == []
    write(log, ["new " + "y" * 200])  # a new file at the same path: another inode
    assert follower.read() == ["new " + "y" * 200] and follower.restarted


def run_once(log: Path, *extra: str) -> tuple[int, list[str], list[str]]:
    """The CLI loop over a log that ends or stops at once; (exit status, printed lines, --on-dead calls)."""
    said: list[str] = []
    args = watchdog.parser().parse_args(["--log", str(log), "--poll", "0.01", "--stall-after", "0.3",
                                         "--on-dead", "true", *extra])
    calls: list[str] = []
    original = watchdog.stop
    watchdog.stop = lambda a, reason, out: calls.append(reason)  # type: ignore[assignment]
    try:
        rc = watchdog.run(args, out=said.append)
    finally:
        watchdog.stop = original  # type: ignore[assignment]
    return rc, said, calls


def test_an_old_retry_line_does_not_stop_a_new_run(tmp_path: Path) -> None:
    log = tmp_path / "first-grpo.log"
    write(log, OLD_RUN)
    rc, said, calls = run_once(log)
    assert said[0] == "watchdog: " + LogFollower(str(log)).started
    assert rc == 3 and calls and "Max retries" not in calls[0]  # only the stall of the new, silent run
    assert "no step finished" in calls[0]


def test_an_old_success_line_does_not_end_the_watch(tmp_path: Path) -> None:
    log = tmp_path / "first-grpo.log"
    write(log, ml.healthy(3))
    assert any(watchdog.JOB_OK_RE.search(ln) for ln in ml.healthy(3))
    rc, said, _ = run_once(log)
    assert rc == 3 and not any("ended normally" in s for s in said)


def test_from_start_acts_on_the_whole_existing_log(tmp_path: Path) -> None:
    log = tmp_path / "first-grpo.log"
    write(log, OLD_RUN)
    rc, said, calls = run_once(log, "--from-start")
    assert rc == 3 and "Max retries (60) reached" in calls[0]
    write(log, ml.healthy(3))
    rc, said, _ = run_once(log, "--from-start")
    assert rc == 0 and said[-1] == "watchdog: the run ended normally after 3 steps"


def test_a_new_run_that_truncates_the_log_is_judged_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The old run's lines come after the start; a truncation resets the judge to the new run's lines."""
    log = tmp_path / "first-grpo.log"
    write(log, ["an old line"])
    follower_reads = iter([OLD_RUN[:3], None])
    real = LogFollower.read

    def read(self: LogFollower) -> list[str]:
        got = next(follower_reads, None)
        if got is not None:
            return got
        if not getattr(self, "_cut", False):
            self._cut = True  # type: ignore[attr-defined]
            write(log, ml.healthy(2))  # the new run's whole log, in place of the old one
        return real(self)

    monkeypatch.setattr(LogFollower, "read", read)
    rc, said, _ = run_once(log)
    assert "watchdog: the log was truncated or replaced: reading it from the start" in said
    assert rc == 0 and said[-1] == "watchdog: the run ended normally after 2 steps"


def test_a_deleted_log_is_followed_as_tail_f_does(tmp_path: Path) -> None:
    """`rm` of the log while `tee` still writes: the steps written after it are still read (no false stall)."""
    log = tmp_path / "run.log"
    log.write_text("")
    follower = LogFollower(str(log))
    with open(log, "a") as tee:
        tee.write("step 1\n")
        tee.flush()
        assert follower.read() == ["step 1"] and not follower.unlinked
        log.unlink()
        tee.write("step 2\n")
        tee.flush()
        assert follower.read() == ["step 2"] and follower.unlinked
    log.write_text("new run\n")  # a new log at the path: read from byte 0
    assert follower.read() == ["new run"] and not follower.unlinked and follower.restarted
    follower.close()


def test_the_cli_says_once_that_the_log_was_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "run.log"
    log.write_text("")
    said: list[str] = []
    tee = open(log, "a")
    polls = iter(range(3))

    def sleep(_: float) -> None:
        n = next(polls, None)
        if n == 0:
            log.unlink()
        tee.write("Job 'raysubmit_x' succeeded\n" if n == 2 else "waiting\n")
        tee.flush()

    monkeypatch.setattr(watchdog.time, "sleep", sleep)
    args = watchdog.parser().parse_args(["--log", str(log)])
    assert watchdog.run(args, said.append) == 0
    tee.close()
    assert sum("the log was deleted" in line for line in said) == 1
