"""Every diagram is its committed drawing, with scripts off, in light and dark (issue 50).

With JavaScript disabled, each figure of every page that has one shows its drawing (a figure in a
tab once its tab is opened, which needs no script): an inline SVG with nodes, drawn (non-zero size), named as one image by the figure's title and caption, with no
mermaid source left on the page and no id used twice. The drawing's colours come from the theme:
a node of a palette class is filled with the theme's tint of its hue and its label is that hue's ink
(in the other theme the same node changes colour), edges and plain labels take the page's text
colour, and every label reads against what is behind it (WCAG AA, 4.5:1).
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from miles101.palette import HUES, contrast

from .browser_support import JS_DIAGRAM_STATE, MEANING_HUES, Server, Site

MODES = ("light", "dark")

#: Per palette node of every drawing: its shape's fill and its label's fill, and the theme's colours
#: for its hue (read from the page's variables); per drawing: edge and plain label colours.
JS_COLOURS = """(meanings) => {
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  const norm = v => { probe.style.color = ''; probe.style.color = v.trim(); return getComputedStyle(probe).color; };
  const root = getComputedStyle(document.body);
  const out = {nodes: [], edges: [], text: norm(root.getPropertyValue('--color-foreground-primary')),
               page: norm(root.getPropertyValue('--color-background-primary'))};
  document.querySelectorAll('.m101-drawing > svg').forEach(svg => {
    const fig = svg.closest('.m101-figure').id;
    svg.querySelectorAll('.node').forEach(node => {
      const classes = (node.getAttribute('class') || '').split(/\\s+/);
      const meaning = Object.keys(meanings).find(m => classes.includes(m));
      if (!meaning) return;
      const shape = node.querySelector('rect, polygon, circle, ellipse, path.basic, .label-container, path');
      const label = node.querySelector('text, tspan');
      out.nodes.push({figure: fig, node: node.id, meaning, hue: meanings[meaning],
                      fill: shape ? getComputedStyle(shape).fill : null,
                      label: label ? getComputedStyle(label).fill : null,
                      tint: norm(root.getPropertyValue('--m101-' + meanings[meaning] + '-tint')),
                      ink: norm(root.getPropertyValue('--m101-' + meanings[meaning]))});
    });
    svg.querySelectorAll('.flowchart-link').forEach(edge => out.edges.push({figure: fig, stroke: getComputedStyle(edge).stroke}));
  });
  probe.remove();
  return out;
}"""


def _hex(css: str | None) -> str | None:
    m = re.match(r"rgba?\((\d+),\s*(\d+),\s*(\d+)", css or "")
    return "#{:02x}{:02x}{:02x}".format(int(m[1]), int(m[2]), int(m[3])) if m else None


def _diagram_pages(site: Site) -> list[str]:
    figure = re.compile(r'class="[^"]*\bm101-diagram\b')
    return [rel for rel in site.pages if figure.search((site.outdir / rel).read_text(encoding="utf-8"))]


def _with_tabs_opened(page: Any) -> dict[str, Any]:
    """The page's diagrams, each measured while shown: a diagram in a tab is measured after a click on
    its tab's label (sphinx-design's tabs are radio inputs and CSS: they open without scripts)."""
    state = page.evaluate(JS_DIAGRAM_STATE)
    shown = {d["figure"]: d for d in state["diagrams"] if d["shown"]}
    labels = page.locator(".sd-tab-set > label")
    for i in range(labels.count()):
        label = labels.nth(i)
        if not label.evaluate("l => !!(l.nextElementSibling && l.nextElementSibling.querySelector('.m101-diagram'))"):
            continue
        label.click()
        for d in page.evaluate(JS_DIAGRAM_STATE)["diagrams"]:
            if d["shown"]:
                shown.setdefault(d["figure"], d)
    state["diagrams"] = [shown.get(d["figure"], d) for d in state["diagrams"]]
    return state


@pytest.fixture(scope="module")
def no_script_pages(chromium: Any, server: Server, site: Site) -> dict[str, dict[str, Any]]:
    """mode -> page -> what a reader without JavaScript gets: the diagrams, their colours, the page's ids."""
    found: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        context = chromium.new_context(java_script_enabled=False, color_scheme=mode,
                                       viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            found[mode] = {}
            for rel in _diagram_pages(site):
                page.goto(server.base + rel, wait_until="load")
                found[mode][rel] = {
                    "state": _with_tabs_opened(page),
                    "colours": page.evaluate(JS_COLOURS, MEANING_HUES),
                    "scripts": page.evaluate("() => [...document.scripts].map(s => s.src).filter(Boolean)"),
                    "ids": page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id)"),
                    "source": page.locator("pre.m101-diagram-source").count(),
                }
        finally:
            context.close()
    return found


def test_the_book_has_diagrams(site: Site) -> None:
    assert len(_diagram_pages(site)) >= 10, _diagram_pages(site)


@pytest.mark.parametrize("mode", MODES)
def test_every_diagram_is_a_drawing_without_scripts(no_script_pages: dict, mode: str) -> None:
    """Scripts off: every figure shows its inline drawing, sized, named by its title and caption."""
    problems, seen = [], 0
    for rel, got in no_script_pages[mode].items():
        if got["source"]:
            problems.append(f"{rel}: {got['source']} diagram(s) show their mermaid source, not a drawing")
        for d in got["state"]["diagrams"]:
            seen += 1
            where = f"{rel} #{d['figure']}"
            if not d["svg"]:
                problems.append(f"{where}: no drawing")
            elif d["nodes"] == 0 or d["width"] < 50 or d["height"] < 20:
                problems.append(f"{where}: drawing empty or not laid out ({d})")
            elif d["error"]:
                problems.append(f"{where}: mermaid's error picture")
            elif d["role"] != "img" or not d["label"] or len(d["label"]) < 20:
                problems.append(f"{where}: not named as one image (role={d['role']!r}, aria-label={d['label']!r})")
        if any("mermaid" in s.lower() for s in got["scripts"]):
            problems.append(f"{rel}: loads mermaid: {got['scripts']}")
        dupes = sorted({i for i in got["ids"] if got["ids"].count(i) > 1})
        if dupes:
            problems.append(f"{rel}: ids used twice (two drawings share one?): {dupes[:5]}")
    assert seen, "no diagram seen"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("mode", MODES)
def test_drawings_wear_the_theme_palette(no_script_pages: dict, mode: str) -> None:
    """A palette node is filled with the theme's tint and labelled in its ink; edges take the text colour;
    each label reads against its fill (4.5:1) and each edge against the page (3:1)."""
    problems, meanings = [], set()
    for rel, got in no_script_pages[mode].items():
        c = got["colours"]
        for n in c["nodes"]:
            meanings.add(n["meaning"])
            where = f"{rel} #{n['figure']} {n['node']} ({n['meaning']})"
            fill, label = _hex(n["fill"]), _hex(n["label"])
            hue = HUES[n["hue"]]
            want_tint, want_ink = (hue.light_tint, hue.light_ink) if mode == "light" else (hue.dark_tint, hue.dark_ink)
            if fill != want_tint or _hex(n["tint"]) != want_tint:
                problems.append(f"{where}: fill {n['fill']}, the {mode} palette's tint is {want_tint}")
            if label != want_ink:
                problems.append(f"{where}: label {n['label']}, the {mode} palette's ink is {want_ink}")
            elif fill and contrast(label, fill) < 4.5:
                problems.append(f"{where}: label {label} on {fill} is {contrast(label, fill):.2f}:1")
        text, page = _hex(c["text"]), _hex(c["page"])
        for e in c["edges"]:
            if _hex(e["stroke"]) != text:
                problems.append(f"{rel} #{e['figure']}: an edge is {e['stroke']}, the page's text is {c['text']}")
                break
        if text and page and contrast(text, page) < 3.0:
            problems.append(f"{rel}: edges {text} on the page {page}")
    assert "trainer" in meanings and "engine" in meanings, meanings
    assert not problems, "\n".join(problems[:40])


def test_light_and_dark_draw_the_same_node_differently(no_script_pages: dict) -> None:
    light = {(rel, n["figure"], n["node"]): n["fill"] for rel, got in no_script_pages["light"].items()
             for n in got["colours"]["nodes"]}
    dark = {(rel, n["figure"], n["node"]): n["fill"] for rel, got in no_script_pages["dark"].items()
            for n in got["colours"]["nodes"]}
    assert light and light.keys() == dark.keys()
    same = [k for k in light if light[k] == dark[k]]
    assert not same, same[:10]
