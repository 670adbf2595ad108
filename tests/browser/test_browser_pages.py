"""Every built page in a real Chromium: clean console, no failed request, diagrams, palette, 390 px.

Each page is visited once per mode by the session's surveys (tests/browser/conftest.py: `survey_desktop` and
`survey_phone`, one load per page and width, read in light and dark; test_browser_a11y.py reads their axe
results); the tests below read them and list every offending page with its evidence, so one run shows all
the problems.
"""
from __future__ import annotations

import colorsys
import json
import re
from typing import Any

import pytest
from .browser_support import ROOT, Site, Visit

MODES = ("light", "dark")


def _fail_with(problems: list[str], what: str) -> None:
    if problems:
        shown = "\n  ".join(problems[:40])
        more = f"\n  ... and {len(problems) - 40} more" if len(problems) > 40 else ""
        pytest.fail(f"{what} ({len(problems)}):\n  {shown}{more}", pytrace=False)


def _rgb(css: str | None) -> tuple[int, int, int] | None:
    m = re.match(r"rgba?\((\d+),\s*(\d+),\s*(\d+)", css or "")
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


#: Hue angles (degrees) that read as each palette hue; grey is "low saturation" instead.
HUE_RANGES: dict[str, tuple[float, float]] = {
    "blue": (195, 250), "violet": (250, 295), "green": (85, 165), "amber": (15, 55),
    "teal": (160, 195), "rose": (325, 370),
}


def _looks_like(hue: str, rgb: tuple[int, int, int]) -> bool:
    if hue == "grey":  # chroma, not HLS saturation (which inflates for very dark greys)
        return (max(rgb) - min(rgb)) / 255 < 0.15
    h, _lightness, _saturation = colorsys.rgb_to_hls(*(c / 255 for c in rgb))
    lo, hi = HUE_RANGES[hue]
    angle = h * 360
    return lo <= angle <= hi or lo <= angle + 360 <= hi


def test_build_lists_every_section(site: Site) -> None:
    """The build wrote a page for the front page and every section manual.json lists."""
    book = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))
    expected = [site.front] + [
        s["file"].removesuffix(".md") + ".html"
        for part in [*book["parts"], book["reference"]] for s in part["sections"]
    ]
    missing = [p for p in expected if p not in site.pages]
    _fail_with(missing, f"pages manual.json lists but the build did not write (build log {site.log})")


@pytest.mark.parametrize("mode", MODES)
def test_pages_load_without_console_errors(survey_desktop: dict[str, list[Visit]], mode: str) -> None:
    """No console error, uncaught exception or navigation failure on any page."""
    problems = []
    for v in survey_desktop[mode]:
        if v.error:
            problems.append(f"{v.page}: did not load: {v.error}")
        problems += [f"{v.page}: console error: {e}" for e in v.console_errors]
    _fail_with(problems, f"console errors in {mode} mode")


@pytest.mark.parametrize("mode", MODES)
def test_no_failed_or_outside_requests(survey_desktop: dict[str, list[Visit]], tabs: dict[str, Any], mode: str) -> None:
    """Every request succeeds, and none leaves 127.0.0.1 (such requests are aborted and listed)."""
    problems = [f"{v.page}: {r}" for v in survey_desktop[mode] for r in v.failed_requests]
    problems += [f"request to outside 127.0.0.1 (aborted): {url}" for url in tabs[mode].blocked]
    _fail_with(problems, f"failed requests in {mode} mode")


@pytest.mark.parametrize("mode", MODES)
def test_every_diagram_is_its_drawing(survey_desktop: dict[str, list[Visit]], mode: str) -> None:
    """Each figure holds its committed drawing inline (an SVG with nodes, named as an image), never
    mermaid's source or its error picture; in tabs too, once shown."""
    problems, diagrams = [], 0
    for v in survey_desktop[mode]:
        for i, d in enumerate(v.diagrams.get("diagrams", [])):
            diagrams += 1
            where = f"{v.page} #{d.get('figure') or i} (.m101-diagram .m101-drawing > svg)"
            if not d["svg"]:
                problems.append(f"{where}: no drawing ({'its mermaid source shown' if d['source'] else 'nothing'})")
            elif d["error"]:
                problems.append(f"{where}: the drawing is mermaid's error picture (redraw with dev.py draw)")
            elif d["nodes"] == 0:
                problems.append(f"{where}: the drawing has no nodes")
            elif d["role"] != "img" or not d["label"]:
                problems.append(f"{where}: not named as an image (role={d['role']!r}, aria-label={d['label']!r})")
        for t in v.tabs:
            for d in t["diagrams"]:
                if not d["svg"] or d["error"] or not d["shown"]:
                    problems.append(f"{v.page}: diagram in tab {t['tab']!r} not shown after the tab was opened: {d}")
    if diagrams == 0:
        pytest.skip("no page has a diagram yet")
    _fail_with(problems, f"diagrams without their drawing in {mode} mode")


def test_diagrams_inside_tabs_show_when_opened(survey_desktop: dict[str, list[Visit]]) -> None:
    """A diagram in a tab that starts hidden shows its drawing once its tab is clicked (both modes)."""
    opened = [(mode, v.page, t) for mode in MODES for v in survey_desktop[mode] for t in v.tabs]
    if not opened:
        pytest.skip("no page puts a diagram inside sphinx-design tabs (nothing to check)")
    problems = [f"{mode} {page} tab {t['tab']!r}: {t['diagrams']}"
                for mode, page, t in opened if not all(d["svg"] and d["shown"] and not d["error"] for d in t["diagrams"])]
    _fail_with(problems, "diagrams in tabs that did not show when opened")


def test_no_page_loads_mermaid(survey_desktop: dict[str, list[Visit]]) -> None:
    """No page fetches mermaid (its ~700 KB of JS drew in the browser before the drawings were served)."""
    problems = [f"{v.page}: {url}" for v in survey_desktop["light"] for url in v.script_urls if "mermaid" in url.lower()]
    _fail_with(problems, "pages that load mermaid")


@pytest.mark.parametrize("mode", MODES)
def test_palette_classes_colour_the_nodes(survey_desktop: dict[str, list[Visit]], mode: str) -> None:
    """A node with class `trainer` (etc.) is filled with --m101-<hue>-tint and stroked with --m101-<hue>."""
    problems, seen = [], set()
    for v in survey_desktop[mode]:
        for n in v.palette:
            seen.add(n["meaning"])
            where = (f"{v.page} #{n['figure']} .node.{n['meaning']} ({n['node']}) {n['shape']}")
            if n["shape"] is None:
                problems.append(f"{where}: no shape to colour")
                continue
            if not n["inkVar"] or not n["tintVar"]:
                problems.append(f"{where}: --m101-{n['hue']} / --m101-{n['hue']}-tint not defined on the page")
                continue
            if n["fill"] != n["tint"]:
                problems.append(f"{where}: fill {n['fill']} != var(--m101-{n['hue']}-tint) "
                                f"{n['tintVar']!r} = {n['tint']}")
            if n["stroke"] != n["ink"]:
                problems.append(f"{where}: stroke {n['stroke']} != var(--m101-{n['hue']}) "
                                f"{n['inkVar']!r} = {n['ink']}")
            for role, value in (("fill", n["fill"]), ("stroke", n["stroke"])):
                rgb = _rgb(value)
                if rgb and not _looks_like(n["hue"], rgb):
                    problems.append(f"{where}: {role} {value} does not look {n['hue']}")
    if not seen:
        pytest.skip("no diagram uses a palette class yet")
    if "trainer" not in seen:
        problems.append(f"no node with class `trainer` in any diagram (classes seen: {sorted(seen)})")
    _fail_with(problems, f"palette classes not applied in {mode} mode")


def test_palette_differs_between_light_and_dark(survey_desktop: dict[str, list[Visit]]) -> None:
    """The same node is coloured differently in light and dark mode (fill and stroke)."""
    def key(page: str, n: dict[str, Any]) -> tuple[str, str, str, str]:
        return (page, n["figure"] or "", n["node"] or "", n["meaning"])

    light = {key(v.page, n): n for v in survey_desktop["light"] for n in v.palette}
    dark = {key(v.page, n): n for v in survey_desktop["dark"] for n in v.palette}
    if not light:
        pytest.skip("no diagram uses a palette class yet")
    problems = []
    for k, ln in light.items():
        dn = dark.get(k)
        if dn is None:
            problems.append(f"{k[0]} #{ln['figure']} .node.{ln['meaning']} {ln['node']}: not found in dark mode")
            continue
        for role in ("fill", "stroke"):
            if ln[role] == dn[role]:
                problems.append(f"{k[0]} #{ln['figure']} .node.{ln['meaning']} {ln['node']}: {role} is "
                                f"{ln[role]} in both modes")
    _fail_with(problems, "palette colours identical in light and dark mode")


def test_no_page_scrolls_sideways_at_390px(survey_phone: dict[str, list[Visit]]) -> None:
    """At 390 px wide (mobile emulation) the document is no wider than the viewport (+1 px)."""
    problems = []
    for v in survey_phone["phone"]:
        if v.error or v.overflow is None:
            problems.append(f"{v.page}: not measured ({v.error})")
            continue
        o = v.overflow
        if o["scrollWidth"] > o["clientWidth"] + 1:
            culprits = "; ".join(f"{c['selector']} right={c['right']}px width={c['width']}px "
                                 f"{c['text']!r}" for c in o["culprits"]) or "no single element found"
            problems.append(f"{v.page}: scrollWidth {o['scrollWidth']} > clientWidth {o['clientWidth']}: "
                            f"{culprits}")
    _fail_with(problems, "pages that scroll sideways at 390 px")


def test_phone_pages_load_clean(survey_phone: dict[str, list[Visit]]) -> None:
    """The 390 px pass also sees no console error and no failed request."""
    problems = [f"{v.page}: {e}" for v in survey_phone["phone"] for e in (*v.console_errors, *v.failed_requests)]
    _fail_with(problems, "console errors or failed requests at 390 px")
