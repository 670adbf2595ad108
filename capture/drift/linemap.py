"""Where an old line of a file went in the new file (a line diff, as ``git diff`` would see it)."""
from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class Mapped:
    """An old line's fate: ``equal`` (same text at ``start``) or edited into new lines start..end."""

    tag: str  # equal | replace | delete | insert
    start: int  # 1-based in the new file
    end: int


class LineMap:
    """Old line number -> new line number, from difflib's matching blocks."""

    def __init__(self, old: list[str], new: list[str]) -> None:
        self.ops = difflib.SequenceMatcher(None, old, new).get_opcodes()

    def map(self, line: int) -> Mapped:
        """Where 1-based old ``line`` is in the new file."""
        i = line - 1
        for tag, i1, i2, j1, j2 in self.ops:
            if i1 <= i < i2:
                if tag == "equal":
                    return Mapped("equal", j1 + i - i1 + 1, j1 + i - i1 + 1)
                return Mapped(tag, j1 + 1, max(j1 + 1, j2))
        last = self.ops[-1] if self.ops else ("equal", 0, 0, 0, 0)
        return Mapped("delete", last[4] + 1, last[4] + 1)


def find_block(block: list[str], lines: list[str], near: int, window: int) -> int | None:
    """The 1-based start of ``block`` (compared without outer whitespace) in ``lines`` closest to ``near``."""
    want = [s.strip() for s in block]
    if not want or not "".join(want):
        return None
    have = [s.strip() for s in lines]
    best: int | None = None
    lo, hi = max(0, near - 1 - window), min(len(have) - len(want), near - 1 + window)
    for i in range(lo, hi + 1):
        if have[i : i + len(want)] == want and (best is None or abs(i + 1 - near) < abs(best - near)):
            best = i + 1
    return best
