"""Cited source lines (``{src}`path:line```): file removed, past the end, moved, changed."""
from __future__ import annotations

import re

from .change import Change
from .linemap import find_block
from .sides import Side

EXPLICIT = re.compile(r"^(?P<text>.+?)\s*<(?P<target>[^<>]+)>$", re.S)
WINDOW = 100  # how far from the diff's guess to look for the same text


def target(ref) -> tuple[str, int | None, int | None]:
    """(path, first line, last line) a src reference cites; lines None for a bare path."""
    explicit = EXPLICIT.match(ref.text)
    raw = (explicit["target"] if explicit else ref.text).strip()
    path, _, span = raw.partition(":")
    nums = [int(n) for n in re.findall(r"[0-9]+", span)[:2]]
    if not nums:
        return path.strip(), None, None
    return path.strip(), nums[0], nums[-1]


def _span(start: int, end: int) -> str:
    return f"{start}" if start == end else f"{start}-{end}"


def _quote(lines: list[str]) -> str:
    text = " | ".join(s.strip() for s in lines)
    return text if len(text) <= 100 else text[:97] + "..."


def check_target(old: Side, new: Side, path: str, start: int | None, end: int | None) -> Change | None:
    """The change for one cited path[:lines], or None when it still points at the same thing.

    ``old`` is the side whose line numbers the pages cite, ``new`` the side they are checked against.
    """
    label = path if start is None else f"{path}:{_span(start, end)}"

    def change(category: str, **kw) -> Change:
        return Change("src", category, label,
                      match=lambda ref: ref.kind == "src" and target(ref) == (path, start, end), **kw)

    in_old, in_new = path in old.files, path in new.files
    if in_old and not in_new:
        return change("file_missing", old=f"{old.files[path]} lines", detail="the file is not there")
    if not in_old:
        return change("now_resolves", new=f"{new.files[path]} lines") if in_new else None
    if start is None:
        return None
    count = new.files[path]

    def past_end() -> Change:
        return change("past_end", old=f"{old.files[path]} lines", new=f"{count} lines",
                      detail=f"line {end} is past the end of the file ({count} lines)")

    a, b = old.lines(path), new.lines(path)
    if a is None or b is None:
        if end > count:
            return past_end()
        if old.files[path] != count:
            return change("unverified", old=f"{old.files[path]} lines", new=f"{count} lines",
                          detail="no source text for one side, so the cited lines were not compared "
                                 "(pass --miles-src with the commit available)")
        return None
    block = a[start - 1 : end]
    if b[start - 1 : end] == block:
        return None
    quoted = _quote(block)
    lmap = old.linemap(new, path)
    spots = [lmap.map(n) for n in range(start, end + 1)]
    firsts = [s.start for s in spots]
    if all(s.tag == "equal" for s in spots) and firsts == list(range(firsts[0], firsts[0] + len(firsts))):
        new_start, how = firsts[0], "line diff"
    else:
        new_start, how = find_block(block, b, firsts[0], WINDOW), "same text found nearby"
    if new_start is not None:
        new_end = new_start + end - start
        return change("line_moved", old=_span(start, end), new=_span(new_start, new_end),
                      detail=f"now {path}:{_span(new_start, new_end)} ({how}): {quoted}")
    if end > count:
        return past_end()
    return change("line_changed", old=quoted, new=_quote(b[start - 1 : end]),
                  detail="the cited text is not found within "
                         f"{WINDOW} lines of where a line diff puts it", stated=[s.strip() for s in block
                                                                               if len(s.strip()) >= 8])


def src_changes(base: Side, other: Side, refs: list) -> list[Change]:
    """One change per distinct cited path[:lines] (in ``base``'s numbering) that points elsewhere in ``other``."""
    out = []
    for path, start, end in sorted({target(r) for r in refs if r.kind == "src"}, key=lambda t: (t[0], t[1] or 0,
                                                                                               t[2] or 0)):
        found = check_target(base, other, path, start, end)
        if found is not None:
            out.append(found)
    return out
