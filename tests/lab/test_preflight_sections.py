"""Every preflight failure names a section of 6.4 that exists, and 6.4's GB10 build route keeps its marks.

The preflight's fix strings name the book's section in words ("see 6.4, <title>"), since the book has no
fixed web address; a title that 6.4 renames or drops would send the reader nowhere. The build section
ports slime's GB10 image to Miles: each of its steps must cite where it comes from and say plainly that
this book has not run it with Miles.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from miles101.tools import preflight

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "_ext" / "miles101" / "tools" / "preflight.py"
PAGE = ROOT / "sections" / "6-4-pick-an-image.md"
#: The mark every step of the GB10 build carries (a fixed phrase, shown on the page as written).
NOT_RUN = "*Not yet run with Miles by this book.*"
#: A step's source: a slime file at a commit, a GitHub issue or pull request, or a line of Miles.
SOURCED = re.compile(r"https://github\.com/THUDM/slime/blob/[0-9a-f]{40}/|\{issue\}`[^`]+`|\{src\}`[^`]+`")


def headings(text: str) -> dict[str, int]:
    """Each Markdown heading's text → its line, outside code fences."""
    out, fence = {}, None
    for i, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^\s*(`{3,}|:{3,})", line)
        if m and (fence is None or m[1].startswith(fence)):
            fence = None if fence else m[1]
            continue
        if fence is None and (h := re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)):
            out[h[1]] = i
    return out


def constant(node: ast.expr, names: dict[str, str]) -> str | None:
    """A string literal, or a module-level name bound to one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None


def failing_checks() -> list[tuple[int, list[str]]]:
    """(line, the titles its fix names through see()) of every Check(...) in preflight.py that can fail.

    A check can fail unless its second argument is the literal True (a pass, a warning, a skip).
    """
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    names = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)
             and isinstance(n.value.value, str)}
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Check"):
            continue
        ok = node.args[1] if len(node.args) > 1 else None
        if isinstance(ok, ast.Constant) and ok.value is True:
            continue
        fix = node.args[3] if len(node.args) > 3 else next((k.value for k in node.keywords if k.arg == "fix"), None)
        titles = [] if fix is None else [constant(c.args[0], names) or "?" for c in ast.walk(fix)
                                         if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                                         and c.func.id == "see" and c.args]
        out.append((node.lineno, titles))
    return out


def test_every_failing_check_names_a_section_of_6_4():
    sections = headings(PAGE.read_text(encoding="utf-8"))
    found = failing_checks()
    assert len(found) >= 20, found  # every check of the preflight, not a handful
    silent = [line for line, titles in found if not titles]
    assert not silent, f"preflight.py: Check(...) at lines {silent} can fail with no see('<6.4 title>') in its fix"
    unknown = sorted({(line, t) for line, titles in found for t in titles if t not in sections})
    assert not unknown, (f"preflight.py names sections that {PAGE.name} has no heading for: {unknown}; "
                         f"its headings: {sorted(sections)}")


def test_a_failure_prints_the_section_in_words():
    c = preflight.check_arch("no-such-arch")
    assert not c.ok and c.fix.endswith("see 6.4, The host is not arm64")
    assert preflight.see(preflight.BUILD_GB10) == "see 6.4, Build an image for the GB10"
    assert "http" not in c.fix  # the book has no fixed address: words, never a URL


def test_the_lint_catches_a_fix_without_a_section(tmp_path, monkeypatch):
    bad = tmp_path / "preflight.py"
    bad.write_text('def f():\n    return Check("x", False, "broken", "fix it")\n'
                   'def g(ok):\n    return Check("y", ok, "m", "" if ok else f"do it; {see(\'No such title\')}")\n')
    monkeypatch.setattr(sys.modules[__name__], "SOURCE", bad)
    assert failing_checks() == [(2, []), (4, ["No such title"])]


def gb10_section(text: str) -> list[str]:
    """The numbered steps of 6.4's "Build an image for the GB10" section, each with its continuation lines."""
    lines = text.splitlines()
    start = headings(text)[preflight.BUILD_GB10]
    level = len(lines[start - 1]) - len(lines[start - 1].lstrip("#"))
    steps: list[list[str]] = []
    for line in lines[start:]:
        h = re.match(r"^(#{1,6})\s", line)
        if h and len(h[1]) <= level:
            break
        if re.match(r"^\d+\.\s", line):
            steps.append([line])
        elif steps and (line.startswith("   ") or not line.strip()):
            steps[-1].append(line)
        elif steps and line.strip():
            break  # prose after the list ends it
    return ["\n".join(s).strip() for s in steps]


def test_each_gb10_build_step_cites_its_source_and_says_it_is_untried():
    steps = gb10_section(PAGE.read_text(encoding="utf-8"))
    assert len(steps) >= 5, steps
    unsourced = [s.splitlines()[0] for s in steps if not SOURCED.search(s)]
    unmarked = [s.splitlines()[0] for s in steps if NOT_RUN not in s]
    assert not unsourced, f"{PAGE.name}: GB10 build steps without a source: {unsourced}"
    assert not unmarked, f"{PAGE.name}: GB10 build steps without the mark {NOT_RUN!r}: {unmarked}"


@pytest.mark.parametrize("step, sourced, marked", [
    ("1. Do it. Source: [x](https://github.com/THUDM/slime/blob/" + "a" * 40 + "/f#L1). " + NOT_RUN, True, True),
    ("1. Do it ({issue}`THUDM/slime#1835`).", True, False),
    ("1. Do it. " + NOT_RUN, False, True),
])
def test_the_step_checks_tell_a_good_step_from_a_bad_one(step, sourced, marked):
    assert bool(SOURCED.search(step)) is sourced and (NOT_RUN in step) is marked
