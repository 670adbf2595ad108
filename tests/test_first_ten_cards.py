"""1.3's table of the first ten steps: each row (a card on a phone) states each threshold once.

The table reads as one card per signal on a narrow screen. A line that appears twice in one card
(once as the healthy bound and again in the source column, or under two keys with the same number)
makes the reader compare a number with itself.
"""
from __future__ import annotations

import re

from buildutil import ROOT

PAGE = ROOT / "sections" / "1-3-read-your-first-ten-steps.md"
LINE_ROLES = re.compile(r"\{(threshold|reference)\}`([^`:]+)(?::[^`]*)?`")


def rows(text: str) -> list[str]:
    """The body rows of the page's table of healthy and worrying values."""
    table = text.split("| signal | key | healthy in the first ten steps |", 1)[1].split("\n:::", 1)[0]
    return [ln for ln in table.splitlines()[2:] if ln.startswith("|")]


def repeats(row: str, numbers: dict[str, tuple]) -> list[str]:
    """Keys cited twice in the row, and keys whose number another key of the row already states."""
    seen: dict[tuple, str] = {}
    out = []
    for _, key in LINE_ROLES.findall(row):
        number = numbers.get(key, (key,))
        if number in seen:
            out.append(key if seen[number] == key else f"{key} (= {seen[number]})")
        seen.setdefault(number, key)
    return out


def test_each_card_states_each_threshold_once(real_capture) -> None:
    capture = real_capture
    numbers = {}
    for kind in ("threshold", "reference"):
        for key in capture.value_keys(kind):
            v = capture.value(kind, key)
            numbers[key] = tuple(sorted(x for x in (v.value, v.detail.get("low"), v.detail.get("high"))
                                        if x is not None))  # a bound and a value of 0.2 are one line
    found = rows(PAGE.read_text(encoding="utf-8"))
    assert len(found) >= 8, found
    twice = {row.split("|")[1].strip(): r for row in found if (r := repeats(row, numbers))}
    assert not twice, f"{PAGE.name}: cards that state a line twice: {twice}"


def test_the_check_sees_a_line_stated_twice() -> None:
    numbers = {"a.watch": (0.2,), "b.healthy": (0.3,), "c.bad": (0.5,), "d.same": (0.2,)}
    assert repeats("| x | {threshold}`a.watch` | {threshold}`a.watch` |", numbers) == ["a.watch"]
    assert repeats("| x | {threshold}`a.watch` | {reference}`d.same` |", numbers) == ["d.same (= a.watch)"]
    assert repeats("| x | {threshold}`a.watch` | {threshold}`c.bad` | {reference}`b.healthy` |", numbers) == []
