"""Readable on every screen (issue 16): diagram labels, diagram frames, tips inside the window.

Rules: every diagram's label text renders at ≥ 12 px at 1280 px and ≥ 11 px at 390 px; at 1280 px
every drawing fits its frame (no sideways scroll), and on a phone a drawing wider than its frame
scrolls inside the frame (never cut off, never pushing the page); a value's
provenance tip, even in a table's last column, lies wholly inside the window on a desktop and on a
phone, and opens by hover, keyboard focus and tap. Screenshots of front, 1.1, 2.1 and 7.1 in four
modes go to test-artifacts/browser/reading/, and of every diagram in four modes to
test-artifacts/browser/diagrams/ (both gitignored).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .browser_support import ARTIFACTS, JS_ANIMATIONS_DONE, Server, Site, next_frame, note_screenshot

MIN_LABEL_PX = {"light": 12.0, "phone": 11.0}

#: Per diagram: its smallest rendered label (font-size × the SVG's scale on screen) and whether it
#: overflows its frame without a scroll box between.
JS_DIAGRAMS = """() => [...document.querySelectorAll('.m101-figure .m101-drawing')].map(pre => {
  const fig = pre.closest('.m101-figure');
  const svg = pre.querySelector(':scope > svg');
  const out = {figure: fig.id, shown: pre.getClientRects().length > 0, svg: !!svg};
  if (!svg || !out.shown) return out;
  const vb = svg.viewBox && svg.viewBox.baseVal;
  const r = svg.getBoundingClientRect();
  const scale = vb && vb.width ? r.width / vb.width : 1;
  let min = null, smallest = null, count = 0;
  svg.querySelectorAll('.nodeLabel, .edgeLabel, .cluster-label, text').forEach(el => {
    const text = (el.textContent || '').trim();
    if (!text || el.querySelector('.nodeLabel, .edgeLabel, text')) return;
    const box = el.getBoundingClientRect();
    if (!box.width && !box.height) return;
    const px = parseFloat(getComputedStyle(el).fontSize) * scale;
    count += 1;
    if (min === null || px < min) { min = px; smallest = text.slice(0, 40); }
  });
  // A drawing wider than its frame must sit in a box that scrolls sideways (its box or the figure).
  const frame = fig.getBoundingClientRect();
  let scroller = null, clipped = null;
  for (let el = svg.parentElement; el; el = el.parentElement) {
    const ox = getComputedStyle(el).overflowX;
    if ((ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth) { scroller = el.tagName; break; }
    if (ox === 'hidden' || ox === 'clip') clipped = el.tagName + '.' + el.className;
    if (el === fig) break;
  }
  const wider = r.width > frame.width + 1;
  return {...out, min, smallest, labels: count, width: Math.round(r.width), frame: Math.round(frame.width),
          overflows: wider && !scroller, clipped: wider && !scroller ? clipped : null, scrolls: !!scroller};
})"""

JS_OPEN_TAB_OF = """id => {
  const fig = document.getElementById(id);
  const panel = fig && fig.closest('.sd-tab-content');
  if (!panel) return false;
  const label = panel.previousElementSibling;
  if (label && label.tagName === 'LABEL') { label.click(); return true; }
  return false;
}"""


def _diagram_pages(site: Site) -> list[str]:
    return [rel for rel in site.pages if 'class="m101-drawing"' in (site.outdir / rel).read_text(encoding="utf-8")
            and rel != "index.html"]


def measure_diagrams(page: Any, base: str, rel: str) -> list[dict[str, Any]]:
    """Every diagram of a page measured as the reader sees it (a tab's diagram with its tab open)."""
    page.goto(base + rel, wait_until="load")
    ids = page.evaluate("() => [...document.querySelectorAll('.m101-figure.m101-diagram')].map(f => f.id)")
    found: dict[str, dict[str, Any]] = {}
    for fig_id in ids:
        page.evaluate(JS_OPEN_TAB_OF, fig_id)
        page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'center'})", fig_id)
        next_frame(page)  # the sizing script runs again, in the next frame, when a tab opens
        for item in page.evaluate(JS_DIAGRAMS):
            if item["figure"] == fig_id:
                found[fig_id] = item
    return [found.get(i, {"figure": i, "svg": False, "shown": False}) for i in ids]


#: Each width's diagram pass: the page is loaded in the first mode's context, measured and shot, then switched
#: to the second mode's colour scheme and shot again (mode → scheme).
DIAGRAM_LOADS = {"light": {"light": "light", "dark": "dark"}, "phone": {"phone": "light", "phone-dark": "dark"}}

#: Furo's phone header and its "back to top" button float over the page and would cover part of a figure in a shot.
UNSTICK_HEADER = "header.mobile-header { position: static !important; } .back-to-top { display: none !important; }"


@dataclass
class DiagramViews:
    """Per width (light, phone) each diagram page's measurements; per mode the screenshots taken (or why not)."""

    sizes: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    shots: dict[str, list[Path]] = field(default_factory=dict)
    failed: dict[str, list[str]] = field(default_factory=dict)


def _shoot(page: Any, figures: list[dict], mode: str, views: DiagramViews) -> None:
    out = ARTIFACTS / "diagrams"
    out.mkdir(parents=True, exist_ok=True)
    for d in figures:
        try:
            if page.evaluate(JS_OPEN_TAB_OF, d["figure"]):  # a diagram in a tab: the reader opens its tab
                next_frame(page)
            path = out / f"{d['figure']}-{mode}.png"
            page.locator(f"#{d['figure']}").screenshot(path=str(path), timeout=30000, animations="disabled")
        except Exception as exc:
            views.failed[mode].append(f"{d['figure']}: {type(exc).__name__}: {exc}".splitlines()[0])
            continue
        note_screenshot(path)
        views.shots[mode].append(path)


@pytest.fixture(scope="module")
def diagram_views(tabs: dict[str, Any], server: Server, site: Site) -> DiagramViews:
    """Each diagram page loaded once per width: its diagrams measured (a tab's diagram with its tab open),
    each shot title to caption in light, then in dark (the loaded page's colour scheme switched)."""
    views = DiagramViews()
    for loader, schemes in DIAGRAM_LOADS.items():
        page = tabs[loader].page
        views.sizes[loader] = {}
        for mode in schemes:
            views.shots[mode], views.failed[mode] = [], []
        for rel in _diagram_pages(site):
            page.emulate_media(color_scheme=schemes[loader])
            figures = views.sizes[loader][rel] = measure_diagrams(page, server.base, rel)
            page.add_style_tag(content=UNSTICK_HEADER)
            for mode, scheme in schemes.items():
                if scheme != schemes[loader]:
                    page.emulate_media(color_scheme=scheme)
                    page.evaluate(JS_ANIMATIONS_DONE)
                _shoot(page, figures, mode, views)
        page.emulate_media(color_scheme=schemes[loader])  # the tab as other tests expect it
    return views


@pytest.fixture(scope="module")
def diagram_sizes(diagram_views: DiagramViews) -> dict[str, dict[str, list[dict]]]:
    """mode → page → its diagrams' measurements, at 1280 px (light) and 390 px (phone)."""
    return diagram_views.sizes


@pytest.mark.parametrize("mode", list(MIN_LABEL_PX))
def test_diagram_labels_are_readable(diagram_sizes: dict, mode: str) -> None:
    """Every diagram's smallest label renders at ≥ 12 px at 1280 px and ≥ 11 px at 390 px."""
    floor = MIN_LABEL_PX[mode]
    problems, seen = [], 0
    for rel, diagrams in diagram_sizes[mode].items():
        for d in diagrams:
            seen += 1
            if not d.get("svg") or not d.get("labels"):
                problems.append(f"{rel} #{d['figure']}: not drawn or no labels ({d})")
            elif d["min"] < floor:
                problems.append(f"{rel} #{d['figure']}: smallest label {d['min']:.1f} px < {floor} px "
                                f"({d['smallest']!r}; drawing {d['width']} px in a {d['frame']} px frame)")
    assert seen, "no diagram measured"
    assert not problems, f"{len(problems)} diagrams below the label rule at {mode}:\n" + "\n".join(problems)


@pytest.mark.parametrize("mode", list(MIN_LABEL_PX))
def test_diagrams_never_overflow_their_frame(diagram_sizes: dict, mode: str) -> None:
    """A drawing wider than its frame scrolls inside it; none is cut off or spills over the page."""
    problems = [f"{rel} #{d['figure']}: {d['width']} px drawing in a {d['frame']} px frame, no scroll box"
                + (f", clipped by {d['clipped']}" if d.get("clipped") else "")
                for rel, diagrams in diagram_sizes[mode].items() for d in diagrams if d.get("overflows")]
    assert not problems, "\n".join(problems)


def test_diagrams_fit_the_column_at_1280(diagram_sizes: dict) -> None:
    """At 1280 px no diagram needs a sideways scroll: each is drawn no wider than its frame."""
    seen = [(rel, d) for rel, diagrams in diagram_sizes["light"].items() for d in diagrams]
    assert seen, "no diagram measured"
    undrawn = [f"{rel} #{d['figure']}: not drawn ({d})" for rel, d in seen if not d.get("svg") or "width" not in d]
    wide = [f"{rel} #{d['figure']}: drawn {d['width']} px wide in a {d['frame']} px frame "
            f"(smallest label {d['min']:.1f} px); redraw it narrower (top-to-bottom, fewer nodes a row, shorter lines)"
            for rel, d in seen if "width" in d and d["width"] > d["frame"] + 1]
    assert not undrawn + wide, (f"{len(wide)} of {len(seen)} diagrams scroll sideways at 1280 px:\n"
                                + "\n".join(undrawn + wide))


def test_the_plate_is_whole_on_a_phone(diagram_sizes: dict, site: Site) -> None:
    """The front figure at 390 px: readable, and whole without a sideways scroll (the first thing a reader sees)."""
    plate = diagram_sizes["phone"].get(site.front) or []
    assert plate, f"{site.front} has no diagram"
    d = plate[0]
    assert d.get("svg") and not d.get("overflows") and d["min"] >= MIN_LABEL_PX["phone"], d
    assert d["width"] <= d["frame"] + 1, (f"the plate is drawn {d['width']} px wide in a {d['frame']} px phone frame: "
                                          "stack each phase's boxes (subgraph direction TB) so it fits without scrolling")


# --------------------------------------------------------------------------- tips

JS_TIP = """value => {
  const tip = document.getElementById('m101-tip');  // the page's one tip (miles101.js)
  if (!tip) return {display: 'none'};
  const cs = getComputedStyle(tip);
  const r = tip.getBoundingClientRect();
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const cx = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1), cy = Math.min(Math.max(r.top + 8, 0), vh - 1);
  const hit = document.elementFromPoint(cx, cy);
  return {display: cs.display, left: r.left, right: r.right, top: r.top, bottom: r.bottom, vw, vh,
          onTop: !!hit && (hit === tip || tip.contains(hit))};
}"""


def _tip_problems(where: str, box: dict[str, Any]) -> list[str]:
    if box["display"] == "none":
        return [f"{where}: tip not shown"]
    out = []
    if box["left"] < 0 or box["right"] > box["vw"] or box["top"] < 0 or box["bottom"] > box["vh"]:
        out.append(f"{where}: tip at x {box['left']:.0f}–{box['right']:.0f}, y {box['top']:.0f}–{box['bottom']:.0f} "
                   f"leaves the {box['vw']}×{box['vh']} window")
    if not box["onTop"]:
        out.append(f"{where}: tip is covered or clipped (elementFromPoint misses it)")
    return out


LAST_COLUMN_VALUE = "table td:last-child .m101-value"


def _tip_page(site: Site) -> str:
    for rel in site.pages:
        if "1-3-" in rel:
            return rel
    pytest.skip("no 1.3 page")


def test_tip_in_a_tables_last_column_stays_inside_the_window(tabs: dict[str, Any], server: Server, site: Site) -> None:
    """At 1280 px: hover and keyboard focus show the tip of a last-column value wholly inside the window."""
    page = tabs["light"].page
    page.goto(server.base + _tip_page(site), wait_until="load")
    value = page.locator(LAST_COLUMN_VALUE).first
    value.scroll_into_view_if_needed()
    problems = []
    value.hover()
    problems += _tip_problems("hover", value.evaluate(JS_TIP))
    page.mouse.move(0, 0)
    value.focus()
    problems += _tip_problems("focus", value.evaluate(JS_TIP))
    page.keyboard.press("Escape")
    if value.evaluate(JS_TIP)["display"] != "none":
        problems.append("Escape did not close the tip")
    value.evaluate("el => el.blur()")
    # near the bottom of the window the tip flips above the value
    value.evaluate("el => window.scrollBy(0, el.getBoundingClientRect().bottom - window.innerHeight + 4)")
    value.hover()
    problems += _tip_problems("hover at the window's bottom", value.evaluate(JS_TIP))
    page.mouse.move(0, 0)
    assert not problems, "\n".join(problems)


def test_tip_opens_by_tap_inside_a_phone_window(tabs: dict[str, Any], server: Server, site: Site) -> None:
    """At 390 px: a tap opens a last-column value's tip wholly inside the window (and does not follow the link);
    a tap elsewhere closes it."""
    page = tabs["phone"].page
    page.goto(server.base + _tip_page(site), wait_until="load")
    value = page.locator(LAST_COLUMN_VALUE).first
    value.scroll_into_view_if_needed()
    value.tap()
    problems = _tip_problems("tap", value.evaluate(JS_TIP))
    if "#m101-v-" in page.url:
        problems.append(f"the first tap followed the value's link ({page.url})")
    page.tap("h1")
    if value.evaluate(JS_TIP)["display"] != "none":
        problems.append("a tap elsewhere did not close the tip")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- screenshots

SHOT_PAGES = {"front": None, "1-1": "1-1-", "2-1": "2-1-", "7-1": "7-1-"}
#: The tallest page a reading screenshot takes whole, in CSS px (7.1 on a phone runs past 70,000; 2.1, the next
#: tallest, about 24,000).
MAX_SHOT_HEIGHT = 40_000


@pytest.mark.parametrize("mode", ["light", "dark", "phone", "phone-dark"])
def test_reading_screenshots(tabs: dict[str, Any], server: Server, site: Site, mode: str) -> None:
    """Full-page screenshots of front, 1.1, 2.1 and 7.1 (test-artifacts/browser/reading/, not committed)."""
    tab = tabs[mode]
    out = ARTIFACTS / "reading"
    out.mkdir(parents=True, exist_ok=True)
    for name, stem in SHOT_PAGES.items():
        rel = site.front if stem is None else next(p for p in site.pages if p.split("/")[-1].startswith(stem))
        tab.page.goto(server.base + rel, wait_until="load")
        next_frame(tab.page)
        path = out / f"{name}-{mode}.png"
        # a page taller than MAX_SHOT_HEIGHT (7.1 on a phone) is shot as its first screen: Chromium's full-page
        # capture of it does not end within the timeout, and its renderer then stays busy for the next test
        tall = tab.page.evaluate("document.documentElement.scrollHeight") > MAX_SHOT_HEIGHT
        tab.page.screenshot(path=str(path), full_page=not tall)
        note_screenshot(path)
        assert path.stat().st_size > 10_000, f"{path} is only {path.stat().st_size} bytes"


SHOT_MODES = ["light", "dark", "phone", "phone-dark"]


@pytest.mark.parametrize("mode", SHOT_MODES)
def test_diagram_screenshots(diagram_views: DiagramViews, mode: str) -> None:
    """Every diagram, title to caption, as a reader sees it (test-artifacts/browser/diagrams/, not committed)."""
    shots = diagram_views.shots[mode]
    assert not diagram_views.failed[mode], "screenshots not taken:\n" + "\n".join(diagram_views.failed[mode])
    assert shots, "no diagram to shoot"
    small = [f"{p} ({p.stat().st_size} bytes)" for p in shots if p.stat().st_size < 5_000]
    assert not small, "screenshots too small to hold a drawing:\n" + "\n".join(small)
