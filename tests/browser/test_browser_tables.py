"""Stackable tables (class m101-stack) in a real Chromium: no column is ever cut off.

1.3's health table, the key table of Part 1, was 99 px wider than the column at 1280 px (its last
column hidden behind a sideways scroll) and 578 px too wide on a phone. Marked m101-stack, it stays a
table where it fits and reads as one block per row, each cell under its column's name, where not.
"""
from __future__ import annotations

from typing import Any

import pytest
from .browser_support import Server, Site

JS_TABLES = """() => [...document.querySelectorAll('article table.m101-stack')].map(t => {
  const box = t.parentElement.getBoundingClientRect();
  const cells = [...t.querySelectorAll('tbody td')];
  const outside = cells.filter(c => { const r = c.getBoundingClientRect();
    return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1); });
  const hidden = cells.filter(c => c.getClientRects().length === 0 || getComputedStyle(c).visibility === 'hidden');
  const labels = [...t.querySelectorAll('tbody .m101-cell-label')];
  return {stacked: t.classList.contains('m101-stacked'), width: Math.round(t.getBoundingClientRect().width),
          box: Math.round(box.width), cells: cells.length, outside: outside.map(c => c.textContent.trim().slice(0, 40)),
          hidden: hidden.length, labelsShown: labels.filter(l => l.getClientRects().length > 0).length,
          labels: labels.length, pageScroll: document.scrollingElement.scrollWidth - document.documentElement.clientWidth};
}) """


def _stack_pages(site: Site) -> list[str]:
    return [rel for rel in site.pages if "m101-stack " in (site.outdir / rel).read_text(encoding="utf-8")]


@pytest.mark.parametrize("mode", ["light", "phone"])
def test_stackable_tables_show_every_column(tabs: dict[str, Any], server: Server, site: Site, mode: str) -> None:
    """Every m101-stack table fits its column at 1280 and 390 px: no cell outside, labels shown when stacked."""
    pages = _stack_pages(site)
    assert any(p.startswith("sections/1-3-") for p in pages), f"1.3's health table is not stackable: {pages}"
    page, problems = tabs[mode].page, []
    for rel in pages:
        page.goto(server.base + rel, wait_until="load")
        for i, t in enumerate(page.evaluate(JS_TABLES)):
            where = f"{rel} table.m101-stack #{i} [{mode}]"
            if t["outside"]:
                problems.append(f"{where}: {len(t['outside'])} cell(s) outside the column "
                                f"(table {t['width']} px in {t['box']} px): {t['outside'][:3]}")
            if t["hidden"]:
                problems.append(f"{where}: {t['hidden']} cell(s) not drawn")
            if t["stacked"] and t["labelsShown"] != t["labels"]:
                problems.append(f"{where}: stacked, but {t['labels'] - t['labelsShown']} cell label(s) hidden")
            if not t["stacked"] and t["labelsShown"]:
                problems.append(f"{where}: a table, yet {t['labelsShown']} cell label(s) shown twice with the header")
            if t["pageScroll"] > 1:
                problems.append(f"{where}: the page scrolls sideways by {t['pageScroll']} px")
    assert not problems, "\n".join(problems)
