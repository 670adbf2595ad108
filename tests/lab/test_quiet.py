"""Long children of the lab are watched, not timed out (issue 60 §2): "no progress for N s", and Ctrl-C stops them.

The stand-in child is a Python one-liner that prints, falls silent, and prints again.
"""
from __future__ import annotations

import io
import os
import sys
import time

import pytest

from capture.lab.quiet import Quiet, run_watched

QUIET_CHILD = [sys.executable, "-c", "import time; print('start', flush=True); time.sleep(1.2); print('end', flush=True)"]


def test_quiet_speaks_once_per_silence_and_not_while_progress_comes() -> None:
    now = [0.0]
    quiet = Quiet("campaign: first-grpo", after=10, clock=lambda: now[0])
    now[0] = 9.0
    assert quiet.check((100, 0)) is None  # a first mark is progress
    now[0] = 18.0
    assert quiet.check((100, 0)) is None  # 9 s since: not yet
    now[0] = 19.5
    line = quiet.check((100, 0))
    assert line == ("campaign: first-grpo: no progress for 10 s (no new output; it goes on, with no time limit; "
                    "Ctrl-C stops it)")
    now[0] = 25.0
    assert quiet.check((100, 0)) is None  # the count starts again after a line
    now[0] = 40.0
    assert quiet.check((101, 0)) is None  # new output: progress
    quiet.seen()
    now[0] = 49.0
    assert quiet.check() is None


def test_a_silent_child_is_reported_and_runs_to_its_end() -> None:
    said: list[str] = []
    out = io.BytesIO()
    rc = run_watched(QUIET_CHILD, "campaign: build", said.append, after=0.5, out=out, poll=0.1)
    assert rc == 0
    assert out.getvalue().split() == [b"start", b"end"]  # its output passed through, whole
    assert said and all(s.startswith("campaign: build: no progress for ") and "Ctrl-C stops it" in s for s in said)


def test_a_child_that_speaks_is_not_reported() -> None:
    said: list[str] = []
    child = [sys.executable, "-c", "import time\nfor i in range(6):\n    print(i, flush=True); time.sleep(0.2)"]
    assert run_watched(child, "campaign: check", said.append, after=1.0, out=io.BytesIO(), poll=0.1) == 0
    assert said == []


def test_ctrl_c_ends_the_child() -> None:
    """A Ctrl-C while the child is silent (here raised where the line is said) ends the child and goes on up."""
    pid_file = io.BytesIO()

    def interrupt(_line: str) -> None:
        raise KeyboardInterrupt

    child = [sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(60)"]
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_watched(child, "campaign: extraction", interrupt, after=0.3, out=pid_file, poll=0.1)
    assert time.monotonic() - started < 20
    pid = int(pid_file.getvalue().split()[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # ended (and reaped)


def test_the_campaign_says_when_a_recording_shows_nothing(tmp_path, monkeypatch) -> None:
    """record_one: a recorder that writes nothing for a while is reported, goes on, and its exit status is kept."""
    import functools

    from capture.lab import campaign

    monkeypatch.setattr(campaign, "Quiet", functools.partial(Quiet, after=0.5))
    out = io.StringIO()
    display = campaign.Display(out, tty=False, label="campaign")
    child = [sys.executable, "-c", "import time, sys; print('loading', flush=True); time.sleep(1.5); sys.exit(3)"]
    rc, done = campaign.record_one("first-grpo", {"steps": 2}, child, dict(os.environ), tmp_path, display,
                                   campaign.Stopper(tmp_path, display), 30.0, 0, 2, tmp_path / "first-grpo.out")
    assert (rc, done) == (3, 0)
    lines = [ln for ln in out.getvalue().splitlines() if "no progress" in ln]
    assert lines and lines[0].startswith("campaign: first-grpo: no progress for ")
    assert lines[0].endswith("Ctrl-C stops after this run, twice stops it now)")
