"""Shared fixtures: Sphinx's own test fixtures, the test roots, and a copied-root builder."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest


pytest_plugins = ("sphinx.testing.fixtures",)

#: The markers a test carries besides `unit`: a module says `pytestmark = pytest.mark.build` (or `slow`);
#: tests/scenarios/ is `scenario` (the reader's paths replayed on the stand-ins).
NOT_UNIT = ("build", "browser", "slow", "scenario")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """tests/browser/ is `browser`, tests/scenarios/ `scenario`; a test marked none of NOT_UNIT is `unit`.

    The browser tests run last: Playwright keeps threads in this process, and a Sphinx build with -j
    forks; a fork taken while another thread holds a lock can hang its child for good.
    """
    for item in items:
        parts = Path(str(item.fspath)).parts
        if "browser" in parts:
            item.add_marker(pytest.mark.browser)
        if "scenarios" in parts:
            item.add_marker(pytest.mark.scenario)
        if not any(item.get_closest_marker(name) for name in NOT_UNIT):
            item.add_marker(pytest.mark.unit)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)  # stable: order kept within each


#: The test running now (its fixtures included), for the guard below.
_RUNNING: list[pytest.Item] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _RUNNING.append(item)
    yield
    _RUNNING.pop()


@pytest.fixture(scope="session", autouse=True)
def _unit_builds_nothing():
    """A `unit` test (or a fixture it uses) that starts Sphinx fails: the marker must tell the truth."""
    from sphinx.application import Sphinx

    start = Sphinx.__init__

    def guarded(self, *args, **kwargs) -> None:
        if _RUNNING and _RUNNING[-1].get_closest_marker("unit") is not None:
            raise AssertionError(f"{_RUNNING[-1].nodeid} builds Sphinx but is marked unit: "
                                 "give its module `pytestmark = pytest.mark.build`.")
        start(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Sphinx, "__init__", guarded)
        yield


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return Path(__file__).parent / "roots"


@pytest.fixture
def book_copy(tmp_path: Path, rootdir: Path) -> Path:
    """A private copy of tests/roots/test-book, safe to edit."""
    dest = tmp_path / "book"
    shutil.copytree(rootdir / "test-book", dest)
    return dest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the book's pages and capture/ (no code, no tests), for `capture/run.py --check`."""
    root = Path(__file__).resolve().parent.parent
    dest = tmp_path / "project"
    dest.mkdir()
    for name in ("manual.json", "front.md"):
        shutil.copy(root / name, dest / name)
    shutil.copytree(root / "sections", dest / "sections")
    shutil.copytree(root / "capture", dest / "capture", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="session")
def manual(tmp_path_factory: pytest.TempPathFactory):
    """The real manual, copied without its Git history and built once per session (-j 2)."""
    from buildutil import build_manual_copy
    return build_manual_copy(tmp_path_factory.mktemp("manual") / "src", parallel=2)
