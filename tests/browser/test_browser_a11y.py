"""Accessibility: axe-core on every built page, light and dark, at 1280 and 390 px, and on open components.

Each page is loaded once per width in the session's one Chromium (the `survey_desktop` and `survey_phone`
fixtures of tests/browser/conftest.py, which test_browser_pages.py reads too), its scripts run (diagrams
drawn, tabs with diagrams opened, tips wired), and the pinned axe-core runs over the whole document in
each mode: light, then dark by switching the loaded page's colour scheme (`page.emulate_media`; no script
of the book reads the scheme), at 1280 and at 390 px. Any serious or critical violation fails, naming the
page, the mode, the rule and the element; moderate and minor ones are printed (run with -s, or read the
failure text). Components are checked in their open states: a value's tip opened, the calculator
with an invalid input, the pending boxes.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict
from typing import Any

import pytest
from .axe_support import FAILING, Violation, axe_source, installed_version, pinned_version, run_axe, summary
from .browser_support import ARTIFACTS, Server, Site, Visit, visit

ALL_MODES = ("light", "dark", "phone", "phone-dark")
#: A quicker local loop may pick modes (M101_AXE_MODES=light,phone); CI always runs all four.
_PICKED = [m.strip() for m in os.environ.get("M101_AXE_MODES", "").split(",") if m.strip() in ALL_MODES]
_IN_CI = os.environ.get("CI", "").lower() not in {"", "0", "false", "no"}
MODES = tuple(_PICKED) if _PICKED and not _IN_CI else ALL_MODES
CALCULATOR = "sections/2-1-pick-a-model-size.html"


@pytest.fixture(scope="session")
def axe(browser_ready: None) -> str:
    """The pinned axe-core's source; skips (fails in CI) when `npm ci` has not installed it."""
    source = axe_source()
    installed = installed_version()
    if source is None or installed != pinned_version():
        reason = (f"axe-core {pinned_version()} is pinned in package-lock.json but node_modules holds "
                  f"{installed or 'none'}: run `npm ci --ignore-scripts` in the project root.")
        if _IN_CI:
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return source


def _found(survey: dict[str, list[Visit]], mode: str) -> list[Violation]:
    """The survey's violations in `mode` (a page that did not load is one), also written to
    test-artifacts/browser/axe-<mode>.json."""
    found: list[Violation] = []
    for v in survey[mode]:
        if v.error:
            found.append(Violation(v.page, mode, "page-load", "critical", "the page did not load", "", "", v.error))
        elif v.axe is None:
            found.append(Violation(v.page, mode, "axe-not-run", "critical", "the survey ran no axe here", "", "", ""))
        else:
            found += v.axe
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    report = ARTIFACTS / f"axe-{mode}.json"
    report.write_text(json.dumps([asdict(v) for v in found], indent=1) + "\n", encoding="utf-8")
    return found


def _report(violations: list[Violation]) -> str:
    counts = ", ".join(f"{rule} ({impact}) {n}" for (rule, impact), n in summary(violations).items())
    return f"{len(violations)} element(s): {counts}"


def _no_serious_violation(found: list[Violation], site: Site, mode: str) -> None:
    failing = [v for v in found if v.impact in FAILING]
    other = [v for v in found if v.impact not in FAILING]
    if other:  # all of them are in test-artifacts/browser/axe-<mode>.json
        print(f"\n[{mode}] moderate/minor, {len(site.pages)} pages: {_report(other)}")
        for v in other[:20]:
            print(v.line())
    assert not failing, (f"[{mode}] serious/critical on {len({v.page for v in failing})} of {len(site.pages)} "
                         f"pages, {_report(failing)}:\n" + "\n".join(v.line() for v in failing[:60]))


@pytest.mark.parametrize("mode", [m for m in MODES if not m.startswith("phone")])
def test_every_page_has_no_serious_violation(axe: str, survey_desktop: dict[str, list[Visit]], site: Site,
                                             mode: str) -> None:
    """axe-core finds no serious or critical violation on any built page at 1280 px in this mode."""
    _no_serious_violation(_found(survey_desktop, mode), site, mode)


@pytest.mark.parametrize("mode", [m for m in MODES if m.startswith("phone")])
def test_every_phone_page_has_no_serious_violation(axe: str, survey_phone: dict[str, list[Visit]], site: Site,
                                                   mode: str) -> None:
    """axe-core finds no serious or critical violation on any built page at 390 px in this mode."""
    _no_serious_violation(_found(survey_phone, mode), site, mode)


def _component(tab: Any, server: Server, rel: str) -> None:
    v = visit(tab.page, tab.recorder, server.base, rel, tab.mode)
    assert v.error is None, f"{rel} [{tab.mode}] did not load: {v.error}"


def _failing(violations: list[Violation]) -> list[str]:
    return [v.line() for v in violations if v.impact in FAILING]


def _first_page_with(site: Site, needle: str) -> str | None:
    return next((rel for rel in site.pages if needle in (site.outdir / rel).read_text(encoding="utf-8")), None)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_open_tip(tabs: dict[str, Any], server: Server, site: Site, axe: str, mode: str) -> None:
    """A pending value's tip, opened by keyboard focus, passes axe inside the value and the page's one tip."""
    rel = _first_page_with(site, "m101-value m101-measured m101-pending") or _first_page_with(site, "m101-value")
    if rel is None:
        pytest.skip("no page cites a value")
    tab = tabs[mode]
    _component(tab, server, rel)
    value = tab.page.locator(".m101-value").first
    value.focus()
    assert tab.page.locator("#m101-tip").is_visible(), f"{rel}: the tip did not open on focus"
    value.evaluate("el => el.setAttribute('data-axe-probe', '')")
    tab.page.evaluate("document.getElementById('m101-tip').setAttribute('data-axe-probe', '')")
    found = run_axe(tab.page, axe, f"{rel} (tip open)", mode, include="[data-axe-probe]")
    tab.page.keyboard.press("Escape")
    assert not _failing(found), "\n".join(_failing(found))


@pytest.mark.parametrize("mode", ["light", "dark", "phone"])
def test_calculator_with_invalid_input(tabs: dict[str, Any], server: Server, axe: str, mode: str) -> None:
    """2.1's calculator with a rejected value (a negative share) passes axe, the message included."""
    tab = tabs[mode]
    _component(tab, server, CALCULATOR)
    fit = tab.page.locator(".m101-fit.m101-fit-js").first
    fit.wait_for(timeout=10000)
    field = fit.get_by_label("SGLang's share")
    field.fill("-3")
    field.dispatch_event("input")
    field.dispatch_event("change")
    found = run_axe(tab.page, axe, f"{CALCULATOR} (invalid input)", mode, include=".m101-fit")
    assert not _failing(found), "\n".join(_failing(found))


#: A page with folds of both kinds: its `{dropdown}`s and "Values on this page" (native <details>, issue 61 item 2).
FOLDS = "sections/1-1-run-grpo-on-one-gpu.html"


@pytest.mark.parametrize("mode", ["light", "dark", "phone"])
def test_open_folds(tabs: dict[str, Any], server: Server, axe: str, mode: str) -> None:
    """1.1's folds: one opens from the keyboard (its summary focused, Enter), and with every fold open the
    folds, summaries and contents, pass axe."""
    tab = tabs[mode]
    _component(tab, server, FOLDS)
    folds = tab.page.locator("details.m101-fold")
    assert folds.count() > 1, f"{FOLDS}: no folds to check"
    first = folds.first
    first.locator(":scope > summary").focus()
    tab.page.keyboard.press("Enter")
    assert first.evaluate("d => d.open"), f"{FOLDS}: Enter on a fold's summary did not open it"
    tab.page.evaluate("document.querySelectorAll('details.m101-fold').forEach(d => { d.open = true; })")
    found = run_axe(tab.page, axe, f"{FOLDS} (folds open)", mode, include="details.m101-fold")
    assert not _failing(found), "\n".join(_failing(found))


PENDING_KINDS = {"a run's values (Values on this page)": "m101-pending-box m101-pending-run",
                 "a listing": "m101-listing m101-pending-box", "the front plate": "m101-plate"}


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_pending_boxes(tabs: dict[str, Any], server: Server, site: Site, axe: str, mode: str) -> None:
    """Each kind of pending box (a run's values, a listing, the plate) passes axe on the first page with it."""
    pages = {kind: _first_page_with(site, needle) for kind, needle in PENDING_KINDS.items()}
    if not any(pages.values()):
        pytest.skip("no page has a pending box")
    tab, problems = tabs[mode], []
    for kind, rel in pages.items():
        if rel is None:
            continue
        _component(tab, server, rel)
        if not tab.page.locator(".m101-pending-box").count():
            continue  # the plate's run is recorded: no pending box there
        found = run_axe(tab.page, axe, f"{rel} (pending box: {kind})", mode, include=".m101-pending-box")
        problems += _failing(found)
    assert not problems, "\n".join(problems)


#: The generated reference tables, whose cells hold one source link per row (R.1, R.2) or lists of page links (R.4).
TABLE_PAGES = ("sections/r-1-flags-by-job.html", "sections/r-2-metrics.html", "sections/r-4-sources.html")


@pytest.mark.parametrize("rel", TABLE_PAGES)
def test_table_links_are_touch_targets_on_a_phone(tabs: dict[str, Any], server: Server, site: Site, axe: str,
                                                  rel: str) -> None:
    """At 390 px every link in a reference table is 24 CSS px or spaced enough (axe `target-size`, WCAG 2.5.8)."""
    tab = tabs["phone"]
    _component(tab, server, rel)
    links = tab.page.locator("table.m101-table td a")
    assert links.count() > 0, f"{rel}: no link in a generated table (the test would prove nothing)"
    height = links.first.evaluate("a => a.getBoundingClientRect().height")
    assert height >= 24, f"{rel}: a table link is {height} px tall at 390 px; book.css should make it 24 px"
    found = run_axe(tab.page, axe, rel, "phone", only=("target-size",))
    assert not found, "\n".join(v.line() for v in found[:20])
