"""Helpers for the real-browser tests: read the built manual, serve it, visit pages, read the DOM.

Nothing here asserts; the tests in this folder do. Every helper returns plain data so a failing
test can print the evidence (page, selector, computed value) instead of a bare `assert False`.
"""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
import threading

from sphinx.util.console import strip_escape_sequences as strip_ansi
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("M101_CHROMIUM", "/usr/bin/chromium"))  # override only to test the skip
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
INSTALL_HINT = (
    "install Debian's Chromium (`apt-get install chromium`) and the test requirements "
    "(`pip install -r requirements-test.txt`, which pins playwright; no `playwright install` is needed)"
)

#: AUTHORING.md's figure classes and the hue each must wear (the spec, not the extension's table).
MEANING_HUES: dict[str, str] = {
    "trainer": "blue", "engine": "violet", "data": "green", "lifecycle": "amber",
    "state": "teal", "failure": "rose", "outside": "grey",
}

#: What the terminal summary prints: the build (a Site) and the screenshots saved.
SUMMARY: dict[str, Any] = {"screenshots": [], "site": None}


def note_screenshot(path: Path) -> None:
    """Remember a saved screenshot so the terminal summary prints its path."""
    SUMMARY["screenshots"].append(path)


# --------------------------------------------------------------------------- build


@dataclass
class Site:
    """A built copy of the manual: where it is, what the build said, and its pages."""

    outdir: Path
    returncode: int
    warnings: list[str]
    log: Path
    seconds: float
    pages: list[str] = field(default_factory=list)  # paths relative to outdir, e.g. "sections/1-1-….html"
    front: str = "front.html"


def site_of(built: Any, dest: Path) -> Site:
    """The browser tests' view of a build of the manual (buildutil.Built: the session's `manual` fixture,
    tests/conftest.py, which other tests read too): where its pages are, what it warned (listed in the
    summary, not fatal), its log written to `dest`."""
    outdir = Path(built.app.outdir)
    warnings = [ln for ln in strip_ansi(built.warnings).splitlines() if ln.strip()]
    log = dest / "build.log"
    log.write_text(f"{built.status}\n{built.warnings}", encoding="utf-8")
    book = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))
    front = Path(book.get("front", "front.md")).with_suffix(".html").as_posix()
    site = Site(outdir, built.app.statuscode, warnings, log, built.seconds, front=front)
    if outdir.is_dir():
        site.pages = sorted(
            p.relative_to(outdir).as_posix() for p in outdir.rglob("*.html")
            if not p.relative_to(outdir).parts[0].startswith("_")
        )
    return site


# --------------------------------------------------------------------------- serve


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serve files quietly. The browser's own /favicon.ico probe (no page asks for it) gets 204."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path.split("?")[0] == "/favicon.ico" and not (Path(self.directory) / "favicon.ico").is_file():
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


class Server:
    """http.server on 127.0.0.1 with an ephemeral port, in a daemon thread."""

    def __init__(self, directory: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="m101-http", daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --------------------------------------------------------------------------- browser


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return f"the playwright Python package is missing: {INSTALL_HINT}."
    if not CHROMIUM.exists() or not os.access(CHROMIUM, os.X_OK):
        found = shutil.which("chromium")
        extra = f" (a chromium was found at {found}, but the tests use {CHROMIUM})" if found else ""
        return f"{CHROMIUM} is missing{extra}: {INSTALL_HINT}."
    return None


def is_local(url: str) -> bool:
    """True for requests that stay on the test server's host (and inline data/blob URLs)."""
    parts = urlsplit(url)
    return parts.scheme in {"data", "blob", "about"} or parts.hostname == "127.0.0.1"


@dataclass
class Visit:
    """What one page load produced."""

    page: str
    mode: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    diagrams: dict[str, Any] = field(default_factory=dict)
    palette: list[dict[str, Any]] = field(default_factory=list)
    tabs: list[dict[str, Any]] = field(default_factory=list)
    overflow: dict[str, Any] | None = None
    script_urls: list[str] = field(default_factory=list)  # every script the page fetched
    error: str | None = None
    axe: list[Any] | None = None  # axe_support.Violation's found in this mode, where the survey ran axe


class Recorder:
    """Listen to a Playwright page and file what it reports under the current Visit."""

    def __init__(self, page: Any) -> None:
        self.visit: Visit | None = None
        self.inflight: set[Any] = set()
        page.on("console", self._console)
        page.on("requestfinished", lambda req: self.inflight.discard(req))
        page.on("requestfailed", lambda req: self.inflight.discard(req))
        page.on("pageerror", lambda exc: self._add("console_errors", f"uncaught: {exc}"))
        page.on("requestfailed", lambda req: self._add("failed_requests", f"{req.url} ({req.failure})"))
        page.on("response", self._response)
        page.on("request", self._request)

    def _add(self, what: str, text: str) -> None:
        if self.visit is not None:
            getattr(self.visit, what).append(text)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            where = msg.location.get("url", "") if msg.location else ""
            self._add("console_errors", f"{msg.text} [{where}]")

    def _response(self, resp: Any) -> None:
        if resp.status >= 400:
            self._add("failed_requests", f"{resp.url} (HTTP {resp.status})")

    def _request(self, req: Any) -> None:
        self.inflight.add(req)
        if self.visit is not None and req.resource_type == "script":
            self.visit.script_urls.append(req.url)


def route_local_only(context: Any, blocked: list[str]) -> None:
    """Abort every request that is not to 127.0.0.1; note what was blocked."""

    def handle(route: Any) -> None:
        url = route.request.url
        if is_local(url):
            route.continue_()
        else:
            blocked.append(url)
            route.abort("internetdisconnected")

    context.route("**/*", handle)


# --------------------------------------------------------------------------- in-page JavaScript

JS_DIAGRAM_STATE = """() => {
  // Every diagram is its committed drawing, inline: an <svg> in .m101-drawing, named (role=img and an
  // aria-label). A figure without one shows its mermaid source (pre.m101-diagram-source): the build warned.
  const figs = [...document.querySelectorAll('.m101-figure.m101-diagram')];
  const shown = el => el.offsetParent !== null || el.getClientRects().length > 0;
  const describe = fig => {
    const svg = fig.querySelector('.m101-drawing > svg');
    const box = svg ? svg.getBoundingClientRect() : null;
    return {figure: fig.id, svg: !!svg, shown: shown(fig), source: !!fig.querySelector('pre.m101-diagram-source'),
            role: svg ? svg.getAttribute('role') : null, label: svg ? svg.getAttribute('aria-label') : null,
            error: !!svg && !!svg.querySelector('.error-icon, .error-text'),
            nodes: svg ? svg.querySelectorAll('.node').length : 0,
            width: box ? Math.round(box.width) : 0, height: box ? Math.round(box.height) : 0};
  };
  return {total: figs.length, shown: figs.filter(shown).length, diagrams: figs.map(describe)};
}"""

JS_PALETTE = """(meanings) => {
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  const norm = v => { probe.style.color = ''; probe.style.color = v.trim(); return getComputedStyle(probe).color; };
  const out = [];
  document.querySelectorAll('.m101-diagram .m101-drawing > svg').forEach(svg => {
    const fig = svg.closest('.m101-diagram');
    svg.querySelectorAll('.node, .actor').forEach(node => {
      const classes = (node.getAttribute('class') || '').split(/\\s+/);
      for (const [meaning, hue] of Object.entries(meanings)) {
        if (!classes.includes(meaning)) continue;
        const shape = node.matches('rect, polygon, circle, ellipse, path') ? node
          : node.querySelector('rect, polygon, circle, ellipse, path.basic, .label-container, path');
        const cs = shape ? getComputedStyle(shape) : null;
        const vars = getComputedStyle(shape || node);
        out.push({figure: fig ? fig.id : null, node: node.id || node.getAttribute('class'), meaning, hue,
                  shape: shape ? shape.tagName + '.' + (shape.getAttribute('class') || '').replace(/\\s+/g, '.') : null,
                  fill: cs ? cs.fill : null, stroke: cs ? cs.stroke : null,
                  ink: norm(vars.getPropertyValue('--m101-' + hue)),
                  tint: norm(vars.getPropertyValue('--m101-' + hue + '-tint')),
                  inkVar: vars.getPropertyValue('--m101-' + hue).trim(),
                  tintVar: vars.getPropertyValue('--m101-' + hue + '-tint').trim()});
      }
    });
  });
  probe.remove();
  return out;
}"""

JS_OVERFLOW = """() => {
  const root = document.scrollingElement;
  const width = root.clientWidth;
  const result = {scrollWidth: root.scrollWidth, clientWidth: width, culprits: []};
  if (root.scrollWidth <= width + 1) return result;
  const clips = el => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX; if (ox !== 'visible') return true; } return false; };
  const path = el => { const bits = []; for (let e = el; e && e !== document.body && bits.length < 4; e = e.parentElement) {
      let s = e.tagName.toLowerCase(); if (e.id) { s += '#' + e.id; bits.unshift(s); break; }
      const c = (e.getAttribute('class') || '').trim().split(/\\s+/).filter(Boolean).slice(0, 2);
      if (c.length) s += '.' + c.join('.'); bits.unshift(s); } return bits.join(' > '); };
  for (const el of document.body.querySelectorAll('*')) {
    const cs = getComputedStyle(el);
    if (cs.position === 'fixed' || cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1 || clips(el)) continue;
    const parent = el.parentElement;
    const pr = parent ? parent.getBoundingClientRect() : null;
    if (pr && pr.right > width + 1 && !clips(parent) && parent !== document.body) continue;
    result.culprits.push({selector: path(el), right: Math.round(r.right), width: Math.round(r.width),
                          text: (el.textContent || '').trim().slice(0, 60)});
    if (result.culprits.length >= 6) break;
  }
  return result;
}"""


def settle(page: Any, recorder: Recorder, quiet_ms: int = 120, timeout_ms: int = 8000) -> None:
    """Wait until no request of this page is in flight for `quiet_ms` (a component may fetch late); with
    `quiet_ms` 0, only until none is in flight."""
    quiet, waited = 0, 0
    while (quiet < quiet_ms or recorder.inflight) and waited < timeout_ms:
        page.wait_for_timeout(20)
        waited += 20
        quiet = quiet + 20 if not recorder.inflight else 0


#: Wait for the page's finite CSS transitions and animations to end (a colour scheme switched under a loaded
#: page fades some backgrounds, Furo's .1 s); endless ones are left running.
JS_ANIMATIONS_DONE = """() => Promise.all(document.getAnimations()
  .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
  .map(a => a.finished.catch(() => null))).then(() => true)"""


def next_frame(page: Any) -> None:
    """Wait until the page has drawn two more frames (what a script queued for the next one has run)."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")


def open_watched(page: Any, url: str, ready: str, timeout_ms: int = 10000, reach: str | None = None) -> Any:
    """Open `url`, recording console errors and every request on the page (`page.errors`, `page.requests`),
    scroll to `reach` (a CSS selector: a component that loads when the reader comes to it) if given,
    and wait until the component `ready` (a CSS selector) has set itself up."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(url, wait_until="load")
    if reach:
        page.locator(reach).first.scroll_into_view_if_needed()
    page.locator(ready).wait_for(timeout=timeout_ms)
    page.errors, page.requests = errors, requests
    return page


def diagram_state(page: Any) -> dict[str, Any]:
    """Every diagram of the page: its drawing (or its source), its name and its size (JS_DIAGRAM_STATE)."""
    return page.evaluate(JS_DIAGRAM_STATE)


def open_tabs_with_diagrams(page: Any) -> list[dict[str, Any]]:
    """Click every sphinx-design tab whose panel holds a diagram; report its drawings once shown."""
    results = []
    labels = page.locator(".sd-tab-set > label")
    for i in range(labels.count()):
        label = labels.nth(i)
        panel_has_diagram = label.evaluate(
            "l => { const p = l.nextElementSibling; return !!(p && p.querySelector('.m101-diagram')); }")
        if not panel_has_diagram:
            continue
        label.click()
        item: dict[str, Any] = {"tab": label.inner_text().strip()}
        item["diagrams"] = label.evaluate(
            "l => [...l.nextElementSibling.querySelectorAll('.m101-diagram')].map(fig => {"
            " const svg = fig.querySelector('.m101-drawing > svg'); const r = svg ? svg.getBoundingClientRect() : null;"
            " return {svg: !!svg, shown: !!r && r.width > 0 && r.height > 0,"
            " error: !!svg && !!svg.querySelector('.error-icon, .error-text')}; })")
        results.append(item)
    return results


def _read(page: Any, v: Visit, overflow: bool) -> None:
    """What the tests check of a loaded page, as it shows now (its diagrams, its tabs opened, palette)."""
    v.diagrams = diagram_state(page)
    v.tabs = open_tabs_with_diagrams(page)
    if v.diagrams.get("total"):
        v.palette = page.evaluate(JS_PALETTE, MEANING_HUES)
    if overflow:
        v.overflow = page.evaluate(JS_OVERFLOW)


def visit(page: Any, recorder: Recorder, base: str, rel: str, mode: str, *, overflow: bool = False) -> Visit:
    """Load one page, open tabs with diagrams, and read what the tests check."""
    v = Visit(rel, mode)
    recorder.visit = v
    recorder.inflight.clear()
    try:
        page.goto(base + rel, wait_until="load", timeout=20000)
        _read(page, v, overflow)
        settle(page, recorder)
    except Exception as exc:
        v.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    finally:
        recorder.visit = None
    return v


def visit_in_schemes(page: Any, recorder: Recorder, base: str, rel: str, schemes: dict[str, str], *,
                     overflow: bool = False, then: Callable[[Visit], None] | None = None) -> dict[str, Visit]:
    """Load one page once and read it in each colour scheme of `schemes` (mode → "light" or "dark"), switched
    with `page.emulate_media` on the loaded page; `then(visit)` runs after each mode's reads (axe).

    The page's scripts read no colour scheme (only its CSS does), so a page loaded in light and switched
    to dark shows what a load in dark shows. Each later mode's Visit also carries what the load reported
    (its console errors, failed requests or load error, marked "at load"), as a load in that mode would."""
    visits: dict[str, Visit] = {}
    load: Visit | None = None
    for mode, scheme in schemes.items():
        if load is None:
            page.emulate_media(color_scheme=scheme)
            v = load = visit(page, recorder, base, rel, mode, overflow=overflow)
        else:
            v = Visit(rel, mode, error=load.error)
            v.console_errors = [f"(at load) {e}" for e in load.console_errors]
            v.failed_requests = [f"(at load) {r}" for r in load.failed_requests]
            if v.error is None:
                recorder.visit = v
                try:
                    page.emulate_media(color_scheme=scheme)
                    page.evaluate(JS_ANIMATIONS_DONE)
                    _read(page, v, overflow)
                    settle(page, recorder, quiet_ms=0)  # a stylesheet of this scheme may fetch an image
                except Exception as exc:
                    v.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
                finally:
                    recorder.visit = None
        if then is not None and v.error is None:
            then(v)
        visits[mode] = v
    return visits


# --------------------------------------------------------------------------- a big file read in a worker


def write_big_log(path: Path, block: str, *, size: int = 100 * 1024 * 1024, tail: str = "") -> Path:
    """Write `block` over and over to `path` until it holds at least `size` characters, then `tail`."""
    with open(path, "w", encoding="utf-8") as fh:
        written = 0
        while written < size:
            fh.write(block)
            written += len(block)
        fh.write(tail)
    return path


#: Start counting the gaps between frames and the values a component's <progress> bar takes, and empty its
#: status line (so a test waits for the new result, not the last one).
JS_WATCH_FRAMES = """([bar, status]) => {
  window.__gaps = []; window.__progress = new Set(); let last = performance.now();
  const progress = document.querySelector(bar);
  new MutationObserver(() => window.__progress.add(progress.value)).observe(progress, {attributes: true});
  const tick = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  document.querySelector(status).textContent = '';
}"""


def watch_frames(page: Any, bar: str, status: str) -> None:
    """Count the page's frames and its `bar` (a <progress> selector) values from now on; empty `status`."""
    page.evaluate(JS_WATCH_FRAMES, [bar, status])


def frame_stats(page: Any) -> dict[str, Any]:
    """Stop counting: the longest gap between frames (ms), how many gaps, how many bar values were seen."""
    return page.evaluate("() => { window.__stop = true; return {max: Math.max(...window.__gaps), n: window.__gaps.length,"
                         " progress: [...window.__progress].length}; }")
