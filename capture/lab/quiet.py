"""Long-running children of the lab, watched (issue 60 §2): no time limit, a line when they make no progress.

A recording, an extraction that pulls the image, a build: each may take an hour and has no deadline to
hold it to. What the campaign owes the person watching is to say when such a child has shown nothing for a
while: `Quiet` says "no progress for N s" after each N s without new output (or a new step), and the
child goes on; Ctrl-C still stops it (`run_watched` ends the child and lets the interrupt through).
`miles_tree.py` reports a silent `docker pull` the same way, in the reader's stdlib tool.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Hashable
from typing import BinaryIO

#: Seconds a long child may show nothing before the campaign says so (a model's load can take minutes).
QUIET_AFTER_S = 300.0


class Quiet:
    """Tracks a child's last sign of progress; `check` gives the line to print once per `after` s of silence."""

    def __init__(self, what: str, after: float = QUIET_AFTER_S, clock: Callable[[], float] = time.monotonic,
                 stop: str = "Ctrl-C stops it") -> None:
        self.what, self.after, self.clock, self.stop = what, after, clock, stop
        self.since = clock()
        self.mark: Hashable = None

    def seen(self, mark: Hashable | None = None) -> None:
        """A sign of progress: new output (no `mark`), or a changed `mark` (bytes written, steps done)."""
        if mark is None or mark != self.mark:
            self.mark, self.since = mark, self.clock()

    def check(self, mark: Hashable | None = None) -> str | None:
        """The "no progress" line when the child has shown nothing for `after` s (then the count starts again)."""
        if mark is not None:
            self.seen(mark)
        quiet = self.clock() - self.since
        if quiet < self.after:
            return None
        self.since = self.clock()
        return f"{self.what}: no progress for {quiet:.0f} s (no new output; it goes on, with no time limit; {self.stop})"


def run_watched(argv: list[str], what: str, say: Callable[[str], None], *, after: float = QUIET_AFTER_S,
                out: BinaryIO | None = None, poll: float = 0.5, **popen: object) -> int:
    """Run `argv` to its end, its output passed to `out` (stdout) as it comes, and a `Quiet` line through `say`
    after each `after` s it prints nothing. Ctrl-C (KeyboardInterrupt) ends the child, then goes on up."""
    sink = out if out is not None else getattr(sys.stdout, "buffer", None) or _Text(sys.stdout)
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             **popen)  # type: ignore[call-overload]
    quiet = Quiet(what, after)

    def pump() -> None:
        fd = child.stdout.fileno()  # type: ignore[union-attr]
        while chunk := os.read(fd, 65536):
            quiet.seen()
            sink.write(chunk)
            sink.flush()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        while child.poll() is None:
            try:
                child.wait(timeout=min(poll, after))
            except subprocess.TimeoutExpired:
                pass
            line = quiet.check() if child.poll() is None else None
            if line:
                say(line)
    except BaseException:  # Ctrl-C, or a `say` that failed: the child does not outlive the campaign
        _end(child)
        raise
    reader.join(timeout=5.0)
    return child.returncode


class _Text:
    """A text stream written as bytes (a stdout without a binary buffer)."""

    def __init__(self, stream: object) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode(errors="replace"))  # type: ignore[attr-defined]

    def flush(self) -> None:
        self.stream.flush()  # type: ignore[attr-defined]


def _end(child: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """Terminate the child, and kill it when it has not ended within `grace` s."""
    child.terminate()
    try:
        child.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
