"""The manual's interactive parts in a real Chromium: search, value tips, pending badges, sidebar.

Also saves screenshots of the front page and of 1.1 in both modes under test-artifacts/browser/.
"""
from __future__ import annotations

import json
import re
from typing import Any

import pytest
from .browser_support import ARTIFACTS, ROOT, Server, Site, note_screenshot

JS_FOCUS_BEFORE = """el => {
  const sel = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
  const all = [...document.querySelectorAll(sel)].filter(e => !e.disabled && e.tabIndex >= 0
      && e.checkVisibility({checkVisibilityCSS: true}));
  if (document.activeElement) document.activeElement.blur();
  for (let i = all.indexOf(el) - 1; i >= 0; i--) {
    all[i].focus({preventScroll: true});
    if (document.activeElement === all[i]) return all[i].outerHTML.slice(0, 100);
  }
  return null;
}"""


def _book() -> dict[str, Any]:
    return json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))


def _section_page(section_id: str) -> str:
    book = _book()
    for part in [*book["parts"], book["reference"]]:
        for s in part["sections"]:
            if s["id"] == section_id:
                return s["file"].removesuffix(".md") + ".html"
    raise LookupError(section_id)


def _first_page_with(site: Site, needle: str, prefer: str | None = None) -> str | None:
    """The first built page whose HTML contains `needle` (`prefer` first when it does)."""
    pages = ([prefer] if prefer else []) + site.pages
    for rel in pages:
        if needle in (site.outdir / rel).read_text(encoding="utf-8"):
            return rel
    return None


# --------------------------------------------------------------------------- search


def test_search_finds_watchdog_and_lands_on_1_2(page: Any, server: Server) -> None:
    """Furo's search page, ?q=watchdog: the top result is 1.2, and following it opens 1.2."""
    target = _section_page("1.2")
    page.goto(server.base + "search.html?q=watchdog", wait_until="load")
    results = page.locator("#search-results ul.search li a")
    try:
        results.first.wait_for(state="attached", timeout=15000)
    except Exception:
        status = page.locator("#search-results").inner_text(timeout=2000) if page.locator(
            "#search-results").count() else "(no #search-results element)"
        pytest.fail(f"search.html?q=watchdog showed no result within 15 s; #search-results says: {status!r}",
                    pytrace=False)
    hrefs = [a.get_attribute("href") or "" for a in results.all()]
    assert hrefs, "no result links"
    assert hrefs[0].split("?")[0].split("#")[0].endswith(target), (
        f"top result for 'watchdog' is {hrefs[0]!r}, not {target}; all results: {hrefs[:8]}")
    results.first.click()
    page.wait_for_load_state("load")
    assert page.url.split("?")[0].split("#")[0].endswith(target), f"landed on {page.url}, not {target}"
    h1 = page.locator("article h1").first.inner_text()
    assert h1.startswith("1.2"), f"landed page's h1 is {h1!r}, expected it to start with '1.2'"


# --------------------------------------------------------------------------- values and their tips


def _check_tip(page: Any, value: Any, label: str) -> list[str]:
    """Hover the value, then Tab to it: the page's one tip (#m101-tip, miles101.js) must show the value's
    provenance sentence (its title) both times. Return problems."""
    problems = []
    sentence = value.get_attribute("title") or ""
    if not sentence.strip():
        problems.append(f"{label}: the value has no provenance sentence (title)")
    if not (value.get_attribute("href") or "").startswith("#m101-v-"):
        problems.append(f"{label}: the value does not link to its entry in Values on this page")
    tip = page.locator("#m101-tip")
    value.scroll_into_view_if_needed()
    if tip.count() and tip.is_visible():
        problems.append(f"{label}: #m101-tip is visible before any hover or focus")
    value.hover()
    if not tip.count() or not tip.is_visible():
        problems.append(f"{label}: #m101-tip not visible on :hover")
    elif (tip.text_content() or "") != sentence:
        problems.append(f"{label}: #m101-tip on hover does not show the value's sentence")
    page.mouse.move(0, 0)
    before = value.evaluate(JS_FOCUS_BEFORE)
    for _ in range(4):
        page.keyboard.press("Tab")
        if value.evaluate("el => document.activeElement === el"):
            break
    else:
        active = page.evaluate("document.activeElement && document.activeElement.outerHTML.slice(0, 120)")
        problems.append(f"{label}: Tab from {before!r} did not reach the value; focus is on {active!r}")
        return problems
    if not tip.count() or not tip.is_visible():
        problems.append(f"{label}: #m101-tip not visible on keyboard :focus")
        return problems
    if (tip.text_content() or "") != sentence:
        problems.append(f"{label}: #m101-tip on focus does not show the value's sentence")
    if value.get_attribute("aria-describedby") != "m101-tip":
        problems.append(f"{label}: the focused value is not described by the tip")
    box = tip.bounding_box()
    if box and box["width"] < 20:
        problems.append(f"{label}: #m101-tip is only {box['width']:.0f} px wide when shown")
    return problems


@pytest.mark.parametrize("kind", ["measured", "computed", "fact"])
def test_value_tip_shows_on_hover_and_keyboard_focus(page: Any, server: Server, site: Site, kind: str) -> None:
    """The first `.m101-<kind>` value (1.1 preferred) shows its provenance on hover and on Tab focus."""
    rel = _first_page_with(site, f"m101-value m101-{kind}", prefer=_section_page("1.1"))
    if rel is None:
        pytest.skip(f"no page cites a {kind} value yet")
    page.goto(server.base + rel, wait_until="load")
    # 1.1 folds its explanations (issue 45 item 8): open every fold, so the first value is on screen
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    value = page.locator(f".m101-value.m101-{kind}").first
    problems = _check_tip(page, value, f"{rel} .m101-value.m101-{kind} (first)")
    assert not problems, "\n".join(problems)


def test_recorded_measured_value_names_its_run(page: Any, server: Server, site: Site) -> None:
    """A recorded (not pending) measured value's tip gives its run and statistic."""
    rel = None
    for candidate in site.pages:
        html = (site.outdir / candidate).read_text(encoding="utf-8")
        if re.search(r'class="m101-value m101-measured(?! m101-pending)[^"]*"', html):
            rel = candidate
            break
    if rel is None:
        pytest.skip("no measured value is recorded yet (capture/gpu/ holds no recording): every one is pending")
    page.goto(server.base + rel, wait_until="load")
    value = page.locator(".m101-value.m101-measured:not(.m101-pending)").first
    problems = _check_tip(page, value, f"{rel} .m101-measured:not(.m101-pending)")
    tip = page.locator("#m101-tip").text_content() or ""
    if not re.search(r"median|mean|max|min|last|first|p90|count", tip):
        problems.append(f"{rel}: recorded value's tip names no statistic: {tip!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("script", [True, False])
def test_value_links_to_its_entry_in_the_list(chromium: Any, server: Server, site: Site, script: bool) -> None:
    """Enter on a value (1.3's first) shows its entry in "Values on this page", with the script and without it
    (the fold around the entry opens: miles101.js, or the browser itself for a link into a <details>)."""
    rel = _first_page_with(site, "m101-value", prefer=_section_page("1.3"))
    if rel is None:
        pytest.skip("no page cites a value")
    context = chromium.new_context(java_script_enabled=script)
    try:
        tab = context.new_page()
        tab.goto(server.base + rel, wait_until="load")
        value = tab.locator(".m101-value").first
        href = value.get_attribute("href") or ""
        assert href.startswith("#m101-v-"), f"{rel}: the value links to {href!r}, not its entry"
        value.focus()
        tab.keyboard.press("Enter")
        entry = tab.locator(href)
        entry.wait_for(state="visible", timeout=3000)
        assert tab.locator("#values-on-this-page").locator(href).count() == 1, f"{rel}: {href} is not in the list"
        assert (entry.inner_text() or "").strip(), f"{rel}: the entry {href} is empty"
    finally:
        context.close()


def test_pending_badge_is_visible_and_explained(page: Any, server: Server, site: Site) -> None:
    """A pending value shows a visible badge whose tip says pending and how to record the run."""
    rel = _first_page_with(site, "m101-pending", prefer=_section_page("1.1"))
    if rel is None:
        pytest.skip("no page has a pending value")
    page.goto(server.base + rel, wait_until="load")
    badge = page.locator(".m101-value.m101-pending:visible").first  # not one inside a closed fold
    badge.scroll_into_view_if_needed()
    shown = badge  # the badge is the value's one element (values.visit_value_html)
    problems = []
    if not shown.is_visible():
        problems.append(f"{rel} .m101-value.m101-pending is not visible")
    box = shown.bounding_box() or {"width": 0, "height": 0}
    if box["width"] < 10 or box["height"] < 8:
        problems.append(f"{rel} .m101-value.m101-pending is {box['width']:.0f}x{box['height']:.0f} px")
    label = (shown.text_content() or "").strip()
    if "pending" not in label.lower():
        problems.append(f"{rel} .m101-pending shows {label!r}, not 'pending'")
    style = shown.evaluate("s => { const c = getComputedStyle(s); return [c.backgroundColor, c.color]; }")
    body_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    if style[0] in ("rgba(0, 0, 0, 0)", body_bg):
        problems.append(f"{rel} .m101-value.m101-pending has no badge background ({style})")
    tip = badge.get_attribute("title") or ""
    run = re.search(r"run '([^']+)'", tip)
    if "pending" not in tip.lower():
        problems.append(f"{rel} pending tip does not say pending: {tip!r}")
    if not run:
        problems.append(f"{rel} pending tip names no run: {tip!r}")
    elif f"capture/run.py record {run[1]}" not in tip:
        problems.append(f"{rel} pending tip does not say how the value gets recorded (no "
                        f"`python3 capture/run.py record {run[1]}`): {tip!r}")
    problems += _check_tip(page, badge, f"{rel} .m101-value.m101-pending (first)")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- navigation


def test_sidebar_lists_parts_in_manual_order(page: Any, server: Server, site: Site) -> None:
    """Furo's sidebar shows one caption per part, in manual.json's order, each with its sections."""
    book = _book()
    expected = [(f"{p['number']}", p["title"], [s["file"].removesuffix(".md") for s in p["sections"]])
                for p in book["parts"]]
    expected.append(("", book["reference"]["title"],
                     [s["file"].removesuffix(".md") for s in book["reference"]["sections"]]))
    problems = []
    for rel in (site.front, _section_page("1.1")):
        page.goto(server.base + rel, wait_until="load")
        groups = page.evaluate("""() => [...document.querySelectorAll('.sidebar-tree p.caption')].map(c => {
            let ul = c.nextElementSibling; while (ul && ul.tagName !== 'UL') ul = ul.nextElementSibling;
            return {caption: c.textContent.trim(), links: ul ? [...ul.querySelectorAll(':scope > li > a')]
                .map(a => new URL(a.getAttribute('href'), location.href).pathname) : []}; })""")
        got = [g["caption"] for g in groups]
        if len(groups) != len(expected):
            problems.append(f"{rel}: {len(groups)} captions {got}, manual.json has {len(expected)} parts")
        for (number, title, docs), g in zip(expected, groups):
            if title not in g["caption"] or (number and not re.search(rf"\b{number}\b", g["caption"])):
                problems.append(f"{rel}: caption {g['caption']!r} where part {number or 'R'} {title!r} belongs "
                                f"(captions in order: {got})")
            paths = [p.lstrip("/").removesuffix(".html") for p in g["links"]]
            if paths != docs:
                problems.append(f"{rel}: under {g['caption']!r} the sidebar lists {paths}, manual.json {docs}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_screenshots_front_and_1_1(tabs: dict[str, Any], server: Server, site: Site, mode: str) -> None:
    """Save full-page screenshots of the front page and of 1.1 (test-artifacts/browser/, gitignored)."""
    tab = tabs[mode]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, rel in (("front", site.front), ("1-1", _section_page("1.1"))):
        tab.page.goto(server.base + rel, wait_until="load")
        path = ARTIFACTS / f"{name}-{mode}.png"
        tab.page.screenshot(path=str(path), full_page=True)
        note_screenshot(path)
        assert path.stat().st_size > 10_000, f"{path} is only {path.stat().st_size} bytes"
