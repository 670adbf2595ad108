"""Find every data reference in the pages without a Sphinx build.

`capture/run.py --check` resolves them, and `capture/run.py diff` finds the pages a change
in Miles touches. The scanner reads MyST text: inline roles (`{flag}`--x``) and the block
directives that cite data (```{flag} --x```, ```{listing} run```), as the markup registry
(`miles101.registry`) says: which names there are, what each cites, how its argument is read.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .kinds import ROLE_KINDS  # noqa: F401  (the role names, for the callers that list them)
from .registry import KEY_AND_SPEC, PATH_AND_LINES, ROLES, directive_citation

#: The one role syntax: {name}`text` (any number of backticks). ANY_ROLE matches every role name. As in
#: CommonMark, a run of backticks opens and closes only whole (no backtick beside it), so an empty {flag}``
#: is no role and never spans the next one.
_ROLE = r"\{(?P<kind>%s)\}(?P<ticks>`+)(?!`)(?P<text>.+?)(?<!`)(?P=ticks)(?!`)"
ANY_ROLE = re.compile(_ROLE % r"[a-z][\w-]*", re.S)
ROLE = re.compile(_ROLE % "|".join(ROLES), re.S)
EXPLICIT = re.compile(r"^(?P<text>.+?)\s*<(?P<target>[^<>]+)>$", re.S)


def role_key(kind: str, text: str) -> str:
    """The key a role's text names: the one parser of reference keys (the build's resolver and
    dependencies, --check's scanner and the drift report all read keys through it).

    A value role drops its format spec (`h200.qwen3-4B.held:.1f` names `h200.qwen3-4B.held`), {src}
    keeps the path (`text <path:1-9>` names `path`), every other role names its whole text.
    """
    text = text.strip()
    row = ROLES.get(kind)
    if row is not None and row.argument == PATH_AND_LINES:
        explicit = EXPLICIT.match(text)
        return (explicit["target"] if explicit else text).split(":", 1)[0].strip()
    if row is not None and row.argument == KEY_AND_SPEC:  # `<key>` or `<key>:<format spec>`
        return text.partition(":")[0]
    return text


@dataclass(frozen=True)
class Ref:
    """One reference: what kind, the key it names, and where it stands."""

    kind: str  # flag | default | metric | src | a value kind (VALUE_KINDS) | issue | run | run-arg
    key: str  # `role_key`: for src the path, for values the key without the format spec
    file: str  # relative to the project root
    line: int
    text: str  # the role's full text (with a format spec or line range)
    paragraph: str  # the paragraph it stands in (for "does the prose state the old value?")


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line indexes of blank-line separated blocks."""
    blocks, start = [], None
    for i, line in enumerate(lines):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            blocks.append((start, i))
            start = None
    if start is not None:
        blocks.append((start, len(lines)))
    return blocks


def scan_text(text: str, file: str) -> Iterator[Ref]:
    """Every reference in one page's text, in order."""
    lines = text.splitlines()
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def line_of(pos: int) -> int:
        lo, hi = 0, len(offsets) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if offsets[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    blocks = _paragraphs(lines)

    def paragraph(idx: int) -> str:
        for start, end in blocks:
            if start <= idx < end:
                return "\n".join(lines[start:end])
        return lines[idx] if idx < len(lines) else ""

    for m in ROLE.finditer(text):
        kind, raw = m["kind"], m["text"].strip()
        idx = line_of(m.start())
        yield Ref(kind, role_key(kind, raw), file, idx + 1, raw, paragraph(idx))
    for idx, line in enumerate(lines):
        cited = directive_citation(line)
        if cited:
            row, arg = cited
            yield Ref(row.cites or "", arg, file, idx + 1, arg, paragraph(idx + 1))


def scan_pages(root: Path, files: list[str]) -> list[Ref]:
    """Every reference in the listed pages (paths relative to `root`)."""
    refs: list[Ref] = []
    for rel in files:
        path = root / rel
        try:
            text = path.read_bytes().decode("utf-8") if path.is_file() else None
        except (OSError, UnicodeDecodeError):
            text = None  # an unreadable page is named by capture/check.py's page_text_problems
        if text is not None:
            refs.extend(scan_text(text, rel))
    return refs
