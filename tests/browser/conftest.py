"""Fixtures for the real-browser tests: one build, one server, one Chromium, a context per mode.

The site is the session's build of the manual (the `manual` fixture of tests/conftest.py, which the
other tests read too; it fails no test for a warning, so the tests run while pages are still being
written); build warnings are listed in the summary, apart from browser failures. It is built before
Chromium starts: Playwright runs threads in this process, and the build's -j forks. Without Chromium or playwright the tests skip, unless CI is set: then
they fail, because CI must really run them.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from .browser_support import (
    CHROMIUM, CHROMIUM_ARGS, SUMMARY, Recorder, Server, Site, Visit, browser_unavailable, site_of,
    route_local_only, visit_in_schemes,
)

MODES: dict[str, dict[str, Any]] = {
    "light": {"color_scheme": "light", "viewport": {"width": 1280, "height": 900}},
    "dark": {"color_scheme": "dark", "viewport": {"width": 1280, "height": 900}},
    "phone": {"color_scheme": "light", "viewport": {"width": 390, "height": 844}, "is_mobile": True,
              "has_touch": True, "device_scale_factor": 1},
    "phone-dark": {"color_scheme": "dark", "viewport": {"width": 390, "height": 844}, "is_mobile": True,
                   "has_touch": True, "device_scale_factor": 1},
}

@dataclass
class Tab:
    """One browser context (a mode) with its reused page and what it heard."""

    mode: str
    context: Any
    page: Any
    recorder: Recorder
    blocked: list[str]


@pytest.fixture(scope="session")
def browser_ready() -> None:
    """Skip (locally) or fail (in CI) when Chromium or playwright is missing."""
    reason = browser_unavailable()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() not in {"", "0", "false", "no"}:
        pytest.fail(f"browser tests cannot run, and CI is set: {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")


@pytest.fixture(scope="session")
def site(browser_ready: None, manual: Any, tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The real manual, the session's build (warnings kept, not fatal)."""
    built = site_of(manual, tmp_path_factory.mktemp("m101-site"))
    SUMMARY["site"] = built
    if not (built.outdir / built.front).is_file():
        tail = "\n".join(built.log.read_text(encoding="utf-8").splitlines()[-30:])
        pytest.fail(f"sphinx-build wrote no {built.front} (exit {built.returncode}); log {built.log}:\n{tail}",
                    pytrace=False)
    return built


@pytest.fixture(scope="session")
def server(site: Site) -> Iterator[Server]:
    """The built site over http on 127.0.0.1 (ES modules do not load from file://)."""
    with Server(site.outdir) as srv:
        yield srv


@pytest.fixture(scope="session")
def chromium(browser_ready: None, site: Site) -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright; one for the whole session, started after the
    site is built (the build forks; a fork of a process running Playwright's threads can hang)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def tabs(chromium: Any) -> Iterator[dict[str, Tab]]:
    """A lazily made context per mode (light, dark, phone), each routed to 127.0.0.1 only."""
    made: dict[str, Tab] = {}

    class Lazy(dict):
        def __missing__(self, mode: str) -> Tab:
            context = chromium.new_context(**MODES[mode])
            blocked: list[str] = []
            route_local_only(context, blocked)
            page = context.new_page()
            tab = Tab(mode, context, page, Recorder(page), blocked)
            made[mode] = tab
            self[mode] = tab
            return tab

    yield Lazy()
    for tab in made.values():
        tab.context.close()


#: The surveys: each loads every page once in its first mode's context and reads it again in the second
#: mode's colour scheme (browser_support.visit_in_schemes); mode → its scheme. Two fixtures, so the run's two
#: parts (tests/sharding.py) can take one each.
SURVEY_LOADS: dict[str, dict[str, str]] = {"light": {"light": "light", "dark": "dark"},
                                           "phone": {"phone": "light", "phone-dark": "dark"}}


def _axe_wanted(session: pytest.Session, survey: str) -> str | None:
    """The pinned axe-core's source when a selected test reads axe's results from `survey` (it asks for both
    the survey and test_browser_a11y's `axe`) and `npm ci` installed it; else None (then that `axe`
    fixture skips, or fails in CI)."""
    from .axe_support import axe_source, installed_version, pinned_version

    if not any({"axe", survey} <= set(getattr(item, "fixturenames", ())) for item in session.items):
        return None
    return axe_source() if installed_version() == pinned_version() else None


def _survey(loader: str, tabs: dict[str, Tab], server: Server, site: Site, axe: str | None) -> dict[str, list[Visit]]:
    """Every built page loaded once in `loader`'s context and read in each colour scheme of SURVEY_LOADS,
    axe run after each mode's reads when `axe` (its source) is given (`Visit.axe`)."""
    from .axe_support import run_axe

    tab, schemes = tabs[loader], SURVEY_LOADS[loader]

    def check(v: Visit) -> None:
        if axe is not None:
            v.axe = run_axe(tab.page, axe, v.page, v.mode)

    by_page = [visit_in_schemes(tab.page, tab.recorder, server.base, rel, schemes,
                                overflow=loader == "phone", then=check) for rel in site.pages]
    tab.page.emulate_media(color_scheme=schemes[loader])  # the tab as other tests expect it
    return {mode: [visits[mode] for visits in by_page] for mode in schemes}


@pytest.fixture(scope="session")
def survey_desktop(tabs: dict[str, Tab], server: Server, site: Site,
                   request: pytest.FixtureRequest) -> dict[str, list[Visit]]:
    """Every built page at 1280 px, light and dark, from one load each (axe too, when a test reads it)."""
    return _survey("light", tabs, server, site, _axe_wanted(request.session, "survey_desktop"))


@pytest.fixture(scope="session")
def survey_phone(tabs: dict[str, Tab], server: Server, site: Site,
                 request: pytest.FixtureRequest) -> dict[str, list[Visit]]:
    """Every built page at 390 px (mobile emulation), light and dark, from one load each, with the sideways
    overflow probe (axe too, when a test reads it)."""
    return _survey("phone", tabs, server, site, _axe_wanted(request.session, "survey_phone"))


@pytest.fixture
def page(tabs: dict[str, Tab]) -> Any:
    """The light desktop page, reused (mouse parked, focus cleared) for interaction tests."""
    tab = tabs["light"]
    tab.page.mouse.move(0, 0)
    return tab.page


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the screenshot paths and the build's warnings (not browser failures)."""
    built: Site | None = SUMMARY["site"]
    if built is None and not SUMMARY["screenshots"]:
        return
    tr = terminalreporter
    tr.section("miles101 browser tests")
    if built is not None:
        tr.write_line(f"manual built in {built.seconds:.1f} s (the session's `manual` build, status {built.returncode}, no -W) "
                      f"into {built.outdir}; {len(built.pages)} pages")
        tr.write_line(f"build warnings: {len(built.warnings)} (not browser failures; `python3 dev.py docs` "
                      f"fails on them); full log {built.log}")
        for line in built.warnings[:15]:
            tr.write_line(f"  {line[:200]}")
        if len(built.warnings) > 15:
            tr.write_line(f"  ... {len(built.warnings) - 15} more")
    for shot in SUMMARY["screenshots"]:
        tr.write_line(f"screenshot: {shot}")
