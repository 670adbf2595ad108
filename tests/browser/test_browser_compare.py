""""Compare my run" on 5.1 in a real Chromium: the table `read_run.py --compare --against` prints, the curves drawn.

A pasted Miles-shaped log gives read_run.py's cells for each public series the page offers; the log's text is
never HTML; a 100 MB file is read in a worker with a progress bar while the page keeps drawing frames; phone width
in dark mode; axe passes with the results open; without JavaScript the box says what to run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from .browser_support import (
    ARTIFACTS, Server, frame_stats, note_screenshot, open_watched, watch_frames, write_big_log,
)

from capture.lab.rehearsal import mileslog as ml
from miles101.sphinx_ext.compare_run import SERIES
from miles101.tools import read_run as rr

PAGE = "sections/5-1-read-the-run.html"


def _open(tab: Any, server: Server) -> Any:
    return open_watched(tab.page, server.base + PAGE, ".m101-compare-app:not([hidden])", reach=".m101-compare")


def _done(page: Any, timeout: int = 20000) -> None:
    page.wait_for_function("() => /^(Read |Could not|Stopped)/.test("
                           "document.querySelector('.m101-compare [role=status]').textContent)", timeout=timeout)


def _cells(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(".m101-compare-table tbody tr",
                                     "rs => rs.map(r => [...r.children].map(c => c.textContent))")


def _python_cells(text: str, series_id: str, at: list[int] | None = None) -> list[list[str]]:
    lines = text.splitlines()
    rows, _, _ = rr.report_of(lines, 10, None)
    steps = at if at is not None else sorted({r["step"] for r in rows})[:10]
    table = rr.compare_series(rows, rr.load_series(series_id, str(Path(__file__).resolve().parents[2])), steps)
    out = []
    for ln in rr.render_compare_series(table).splitlines():
        if "(yours)" in ln or "(public ref)" in ln:
            end = ln.index(")") + 1
            out.append([ln[:end], *ln[end:].split()])
    return out


@pytest.mark.parametrize("index", range(len(SERIES)))
def test_a_pasted_log_gives_read_runs_table(tabs: dict[str, Any], server: Server, index: int) -> None:
    text = "\n".join(ml.healthy(12)) + "\n"
    page = _open(tabs["light"], server)
    root = page.locator(".m101-compare")
    root.locator("select").first.select_option(str(index))
    root.locator("input[type=text]").fill("0, 5,9,11")
    root.locator("textarea").fill(text)
    root.get_by_role("button", name="Compare the pasted log").click()
    _done(page)
    assert _cells(page) == _python_cells(text, SERIES[index], [0, 5, 9, 11])
    assert page.locator(".m101-compare figure svg").count() == 5  # your three keys, the public run's two
    assert "No verdict" in page.locator(".m101-compare-verdict").inner_text()
    assert page.errors == []


def test_the_logs_text_is_never_html(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    root = page.locator(".m101-compare")
    root.locator("input[type=text]").fill("")
    root.locator("textarea").fill("<img src=x onerror=\"window.__hit=1\"><b>bold</b>\n" + "\n".join(ml.healthy(3)))
    root.get_by_role("button", name="Compare the pasted log").click()
    _done(page)
    assert page.locator(".m101-compare img, .m101-compare b").count() == 0
    assert page.evaluate("() => window.__hit === undefined")


def test_big_file_in_a_worker_with_progress(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    """A 100 MB log: read in chunks off the page's thread; the page keeps drawing and the bar moves."""
    block = "\n".join(ml.healthy(50)) + "\n" + "".join(f"[t] filler line {i} with some text\n" for i in range(3000))
    f = write_big_log(tmp_path / "big.log", block)
    page = _open(tabs["light"], server)
    watch_frames(page, ".m101-compare progress", ".m101-compare [role=status]")
    page.locator(".m101-compare input[type=text]").fill("")
    page.locator(".m101-compare input[type=file]").set_input_files(str(f))
    _done(page, timeout=240000)
    stats = frame_stats(page)
    assert stats["progress"] >= 5, stats
    assert stats["max"] < 1000, stats
    assert len(_cells(page)[0]) == 11  # the first ten steps
    assert page.errors == []


def test_phone_width_in_dark_mode(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["phone-dark"], server)
    root = page.locator(".m101-compare")
    root.locator("input[type=text]").fill("")
    root.locator("textarea").fill("\n".join(ml.healthy(12)) + "\n")
    root.get_by_role("button", name="Compare the pasted log").click()
    _done(page)
    widths = page.evaluate("""() => ({page: document.scrollingElement.scrollWidth, view: document.scrollingElement.clientWidth,
      over: [...document.querySelectorAll('.m101-compare *')].filter(e => !e.closest('.m101-compare-scroll')
        && e.getBoundingClientRect().right > document.scrollingElement.clientWidth + 1).map(e => e.tagName).slice(0, 5)})""")
    assert widths["page"] <= widths["view"] + 1, widths
    assert widths["over"] == [], widths
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "compare-run-phone-dark.png"
    root.screenshot(path=str(shot))
    note_screenshot(shot)


@pytest.mark.parametrize("mode", ["light", "dark", "phone"])
def test_open_results_pass_axe(tabs: dict[str, Any], server: Server, mode: str) -> None:
    from .axe_support import FAILING, axe_source, run_axe

    source = axe_source()
    if source is None:
        pytest.skip("axe-core is not installed (npm ci)")
    page = _open(tabs[mode], server)
    root = page.locator(".m101-compare")
    root.locator("input[type=text]").fill("")
    root.locator("textarea").fill("\n".join(ml.healthy(12)) + "\n")
    root.get_by_role("button", name="Compare the pasted log").click()
    _done(page)
    found = run_axe(page, source, f"{PAGE} (compare open)", mode, include=".m101-compare")
    bad = [v for v in found if v.impact in FAILING]
    assert not bad, "\n".join(v.line() for v in bad)


def test_javascript_off_says_what_to_run(chromium: Any, server: Server) -> None:
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server.base + PAGE, wait_until="load")
        assert page.locator(".m101-compare-nojs").is_visible()
        assert "--compare --against" in page.locator(".m101-compare-nojs").inner_text()
    finally:
        context.close()
