"""The one-line progress display: k of n steps done, last reward, elapsed, ETA.

A count, not a step number: Miles numbers steps from 0, so after its step 0 one step is done.
"""
from __future__ import annotations

import math
import sys
from typing import TextIO


def clock(seconds: float) -> str:
    """12345 → '3:25:45'; '?' for a time no clock shows (not finite, or a year and more: no estimate to trust)."""
    try:
        if isinstance(seconds, bool) or not math.isfinite(seconds) or seconds >= 366 * 86_400:
            return "?"
    except (TypeError, OverflowError):  # not a number, or an integer past any float
        return "?"
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def line(label: str, done: int, total: int, reward: float | None, elapsed: float, note: str = "") -> str:
    """The display text; the ETA assumes the remaining steps take the mean time so far."""
    eta = clock(elapsed / done * (total - done)) if done else "?"
    rew = "-" if reward is None else f"{reward:.3f}"
    return f"{label}: {done} of {total} steps done, reward {rew}, elapsed {clock(elapsed)}, ETA {eta}{' ' + note if note else ''}"


class Progress:
    """Rewrites one terminal line; on a pipe, prints a line only when `key` changes."""

    def __init__(self, out: TextIO = sys.stderr) -> None:
        self.out, self.last, self.key, self.tty = out, "", None, out.isatty()

    def show(self, text: str, key: object = None) -> None:
        if text == self.last or (not self.tty and key is not None and key == self.key):
            return
        self.last, self.key = text, key
        if self.tty:
            self.out.write("\r\x1b[2K" + text)
        else:
            self.out.write(text + "\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty and self.last:
            self.out.write("\n")
            self.out.flush()
