"""Shared fixtures: Sphinx's own test fixtures, the test roots, and a copied-root builder."""
from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sharding

if TYPE_CHECKING:
    from miles101.data import Capture
    from miles101.intake import Intake

ROOT = Path(__file__).resolve().parent.parent


pytest_plugins = ("sphinx.testing.fixtures",)

#: The markers a test carries besides `unit`: a module says `pytestmark = pytest.mark.build` (or `slow`);
#: tests/scenarios/ is `scenario` (the reader's paths replayed on the stand-ins).
NOT_UNIT = ("build", "browser", "slow", "scenario")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--miles-src", default=os.environ.get("MILES_SRC"), metavar="PATH",
                     help="a Miles checkout or git dir (default $MILES_SRC) for the tests that read a real Miles "
                          "tree (the image check at 31f1ca961 and 688cf82b9); without one they are skipped")
    parser.addoption("--m101-shard", default=None, metavar="K/N",
                     help="run the K-th of N parts of the selected tests, the tests that share a build kept in "
                          "one part (tests/sharding.py); `dev.py test` runs the whole suite as two, side by side")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """tests/browser/ is `browser`, tests/scenarios/ `scenario`; a test marked none of NOT_UNIT is `unit`.

    The browser tests run last: Playwright keeps threads in this process, and a Sphinx build with -j
    forks; a fork taken while another thread holds a lock can hang its child for good. With
    `--m101-shard K/N`, only the K-th part runs (tests/sharding.py); the others are deselected.
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
    shard = sharding.parse(config.getoption("--m101-shard"))
    if shard is not None:
        keep = sharding.part(items, *shard)
        config.hook.pytest_deselected(items=[item for i, item in enumerate(items) if i not in keep])
        items[:] = [item for i, item in enumerate(items) if i in keep]


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
    dest = tmp_path / "project"
    dest.mkdir()
    for name in ("manual.json", "front.md"):
        shutil.copy(ROOT / name, dest / name)
    shutil.copytree(ROOT / "sections", dest / "sections")
    shutil.copytree(ROOT / "capture", dest / "capture", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="session")
def real_capture_copies() -> Callable[[], Capture]:
    """The project's capture/ taken in once a session (`take_in(ROOT)`, cold: no cache dir).

    Each call gives a private copy (a pickle round trip, the way the build's cache keeps the model:
    milliseconds against about 0.3 s for an intake), so a test that changes what it got changes
    nothing another test sees. A test about the intake itself takes it in on its own.
    """
    from miles101.intake import take_in

    frozen = pickle.dumps(take_in(ROOT).capture, pickle.HIGHEST_PROTOCOL)
    return lambda: pickle.loads(frozen)


@pytest.fixture
def real_capture(real_capture_copies: Callable[[], Capture]) -> Capture:
    """A private copy of the project's capture, taken in once a session (`real_capture_copies`)."""
    return real_capture_copies()


@pytest.fixture(scope="session")
def intake_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache dir for the session's intakes of tampered copies (`take_in(root, cache_dir)`, as a build keeps).

    Its memos are keyed by the code and by the bytes they answer for (tests/test_intake.py holds that a
    warm intake equals a cold one), so a copy's unchanged files are not validated again, and its
    changed file, whose bytes are new, is checked cold.
    """
    return tmp_path_factory.mktemp("intake-cache")


@pytest.fixture
def intake_of(intake_cache: Path) -> Callable[[Path], Intake]:
    """The intake (capture and problems) of the project under `root`, through the session's `intake_cache`."""
    from miles101.intake import take_in

    return lambda root: take_in(root, intake_cache)


@pytest.fixture
def rules_root(tmp_path: Path) -> Path:
    """A project holding only the log doctor's rule files (symptoms.json, reader.json), copied from this one."""
    from miles101.rulefiles import READER, SYMPTOMS

    for rel in (SYMPTOMS, READER):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


# The full builds of the manual that tests share (each about a minute on two cores): a test that only
# reads a build's output takes one of these instead of building its own copy. They are read-only: a test
# that edits the book or the output copies it first (or builds its own, as the recorded states do).
@pytest.fixture(scope="session")
def manual(tmp_path_factory: pytest.TempPathFactory):
    """The real manual, copied without its Git history and built once per session (-j 2), as `dev.py docs`
    builds it: HTML, the committed drawings inline. Read by test_manual, test_hosting (the local build),
    test_commands, the pending state of test_recorded_state and test_fit_compare, and the browser tests."""
    from buildutil import build_manual_copy
    return build_manual_copy(tmp_path_factory.mktemp("manual") / "src", parallel=2)


@pytest.fixture(scope="session")
def manual_textual(tmp_path_factory: pytest.TempPathFactory):
    """The real manual built once per session to HTML with its diagrams as their source (`m101_diagrams=text`,
    no drawing's labels among the prose), -j 2: read by test_built_prose and test_kinds_on_page."""
    from buildutil import build_manual_copy
    return build_manual_copy(tmp_path_factory.mktemp("manual-textual") / "src", parallel=2, m101_diagrams="text")


@pytest.fixture(scope="session")
def manual_epub(tmp_path_factory: pytest.TempPathFactory):
    """The manual's EPUB as Read the Docs builds it (its canonical URL set, the committed drawings used),
    built once per session (-j 2): read by test_editions and test_kinds_on_page."""
    from buildutil import build_manual_copy

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("READTHEDOCS", "True")
        mp.setenv("READTHEDOCS_CANONICAL_URL", "https://miles101.example.org/en/latest/")
        return build_manual_copy(tmp_path_factory.mktemp("manual-epub") / "src", buildername="epub", parallel=2)
