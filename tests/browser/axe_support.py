"""axe-core in the test browser: inject the pinned copy, run it, and report violations as plain data.

axe-core is pinned in package.json (a dev dependency, installed by `npm ci` for the tests). Nothing
here asserts; tests/browser/test_browser_a11y.py does.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .browser_support import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

#: Impacts that fail the test; the others (moderate, minor) are printed.
FAILING = ("critical", "serious")

#: Rules axe-core ships switched off that the book turns on. `target-size` is WCAG 2.2's 2.5.8 (a touch
#: target at least 24 CSS px, or spaced so a 24 px circle fits); Lighthouse's accessibility score runs it.
EXTRA_RULES = ("target-size",)

JS_RUN = """async ([include, only, extra]) => {
  const context = include ? {include: [include]} : document;
  const options = {resultTypes: ['violations'], rules: Object.fromEntries(extra.map(r => [r, {enabled: true}]))};
  if (only) options.runOnly = {type: 'rule', values: only};
  const result = await axe.run(context, options);
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.map(t => Array.isArray(t) ? t.join(' >> ') : t).join(' '),
                              impact: n.impact, html: n.html.slice(0, 160),
                              summary: (n.failureSummary || '').split('\\n').slice(0, 3).join(' ')}))}));
}"""


@dataclass(frozen=True)
class Violation:
    """One element failing one axe rule on one page in one mode."""

    page: str
    mode: str
    rule: str
    impact: str
    help: str
    target: str
    html: str
    summary: str

    def line(self) -> str:
        return (f"{self.page} [{self.mode}] {self.rule} ({self.impact}): {self.target}\n"
                f"    {self.help}; {self.summary}\n    {self.html}")


def axe_source() -> str | None:
    """The pinned axe-core's script, or None when `npm ci` has not installed it."""
    return AXE.read_text(encoding="utf-8") if AXE.is_file() else None


def pinned_version() -> str:
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/axe-core"]["version"]


def installed_version(path: Path = AXE) -> str | None:
    package = path.parent / "package.json"
    return json.loads(package.read_text(encoding="utf-8")).get("version") if package.is_file() else None


def run_axe(page: Any, source: str, label: str, mode: str, include: str | None = None,
            only: tuple[str, ...] | None = None) -> list[Violation]:
    """Run axe on the loaded page (or only inside the `include` selector; only the `only` rules when given),
    with EXTRA_RULES on; one Violation per element."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=source)
    found = page.evaluate(JS_RUN, [include, list(only) if only else None, list(EXTRA_RULES)])
    return [Violation(label, mode, v["id"], n["impact"] or v["impact"] or "minor", v["help"], n["target"],
                      n["html"], n["summary"])
            for v in found for n in v["nodes"]]


def summary(violations: list[Violation]) -> dict[tuple[str, str], int]:
    """How many elements fail each (rule, impact)."""
    counts: dict[tuple[str, str], int] = {}
    for v in violations:
        counts[(v.rule, v.impact)] = counts.get((v.rule, v.impact), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
