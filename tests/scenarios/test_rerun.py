"""Reruns as the pages write them: a watchdog stop, "start the session again" and the same command
again; and a second run of a page's command while Ray still holds the first job."""
from __future__ import annotations

import json
import time

from readerpath import block_with, checklist_steps
from test_first_run import WATCH_FAST, first_run

PAGE = "1-1-run-grpo-on-one-gpu.md"


def job_modes(reader, modes: dict[str, list[str]]) -> None:
    """What the stand-in Ray's next jobs under each submission id do ("retry": the engine dies, Miles spins)."""
    (reader.state / "containers" / "miles" / "job-modes.json").write_text(json.dumps(modes))


def launch_with_watchdog(reader, watch_extra: list[str] = WATCH_FAST) -> tuple[int, str, str]:
    """Step 8: the watchdog first (its first line seen), then the whole command; (watchdog exit, its lines, job output)."""
    watch_line, launch = checklist_steps()[7].blocks
    dog = reader.start(["bash", "-c", watch_line + " " + " ".join(watch_extra)])
    first = dog.stdout.readline()
    res = reader.container(launch, timeout=120)
    said, _ = dog.communicate(timeout=60)
    return dog.returncode, first + said, res.out + res.err


def test_a_watchdog_stop_then_the_session_again_then_the_command_again(reader):
    first_run(reader)  # steps 1 to 9 once: a first-grpo.log and a finished job exist
    job_modes(reader, {"first-grpo": ["retry", "healthy"]})
    # A rerun, as 1.1 says: clear the old job and keep its log, then the watchdog and the command.
    assert reader.container(block_with(PAGE, "ray job delete")).rc == 0
    moved_at = time.time()
    rc, said, _ = launch_with_watchdog(reader)
    assert rc == 3 and "watchdog: STOP Miles logged 'Max retries (60) reached'" in said, said
    assert reader.container("true").rc != 0  # `docker stop miles` ended the container
    # Start the session again (1.1), on the host; then the same command again.
    res = reader.host(block_with(PAGE, "docker restart miles"))
    assert res.rc == 0 and "Ray runtime started." in res.out, res.err
    logs = reader.home / "miles-logs"
    failed = logs / "first-grpo.log"
    assert "Max retries (60) reached" in failed.read_text()
    # The page names a kept log by the second it was moved; a reader's reruns are minutes apart, this test's are not.
    time.sleep(max(0.0, 1.1 - (time.time() - moved_at)))
    res = reader.container(block_with(PAGE, "ray job delete"))
    assert res.rc == 0 and "does not exist" not in res.out + res.err, res.err  # a new Ray holds no job: the block is quiet
    assert res.out == "" and res.err == ""
    kept = sorted(logs.glob("first-grpo.*.log"))
    assert len(kept) == 2 and any("Max retries (60) reached" in p.read_text() for p in kept)
    rc, said, out = launch_with_watchdog(reader)
    assert rc == 0, said
    assert said.splitlines()[0] == "watchdog: the log does not exist yet: reading it from the start when it appears"
    assert said.splitlines()[-1] == "watchdog: the run ended normally after 48 steps"


def test_a_watchdog_started_on_the_old_log_ignores_its_lines(reader):
    """Without the `mv`, the watchdog follows the failed log from its end; the job's `tee` truncates it."""
    first_run(reader)
    job_modes(reader, {"first-grpo": ["retry", "healthy"]})
    reader.container("ray job stop first-grpo; ray job delete first-grpo")
    launch_with_watchdog(reader)
    reader.host(block_with(PAGE, "docker restart miles"))
    assert "Max retries (60) reached" in (reader.home / "miles-logs" / "first-grpo.log").read_text()
    rc, said, _ = launch_with_watchdog(reader)
    assert said.splitlines()[0].startswith("watchdog: following from the end of an existing log")
    assert rc == 0 and "STOP" not in said, said


def test_a_second_run_while_ray_holds_the_first(reader):
    first_run(reader)  # Ray now holds the finished job first-grpo
    log = reader.home / "miles-logs" / "first-grpo.log"
    before = log.read_text()
    launch = checklist_steps()[7].blocks[1]
    res = reader.container(launch)
    assert "Job with submission_id first-grpo already exists" in res.out  # Ray refuses the id (2>&1 into tee)
    assert "step 0:" not in log.read_text(), "the refused command's tee kept the first run's log"
    assert "already exists" in log.read_text()  # the first run's log is gone, replaced by the refusal
    log.write_text(before)  # (what the page's rerun block is there to prevent)
    assert reader.container(block_with(PAGE, "ray job delete")).rc == 0
    kept = list(log.parent.glob("first-grpo.*.log"))
    assert len(kept) == 1 and kept[0].read_text() == before
    res = reader.container(launch)
    assert res.rc == 0 and "Job 'first-grpo' succeeded" in res.out, res.err
