"""Where an old line of a file went in the new file (a line diff, as ``git diff`` would see it)."""
from __future__ import annotations

from miles101.tools.miles_tree import LineMap, Mapped

__all__ = ["LineMap", "Mapped", "find_block"]


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
