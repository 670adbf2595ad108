"""Every preflight failure names a section of 6.4 that exists.

The preflight's fix strings name the book's section in words ("see 6.4, <title>"), since the book has no
fixed web address; a title that 6.4 renames or drops would send the reader nowhere. The GB10 build the
section of `preflight.BUILD_GB10` serves is a file now, held to its sources by tests/test_gb10_dockerfile.py.
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
