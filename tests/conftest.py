"""Shared fixtures: Sphinx's own test fixtures, the test roots, and a copied-root builder."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest


pytest_plugins = ("sphinx.testing.fixtures",)

#: Test modules outside tests/browser/ that run a Sphinx build.
BUILD_MODULES = {"test_book_build", "test_book_errors", "test_roles", "test_agreement", "test_manual",
                 "test_recording_in_pages", "test_trust", "test_escaping", "test_editions", "test_fuzz_capture",
                 "test_a11y_build"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test unit, build or browser by where it lives (`-m "not browser"` skips Chromium)."""
    for item in items:
        path = Path(str(item.fspath))
        if "browser" in path.parts:
            item.add_marker(pytest.mark.browser)
        elif path.stem in BUILD_MODULES:
            item.add_marker(pytest.mark.build)
        else:
            item.add_marker(pytest.mark.unit)


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return Path(__file__).parent / "roots"


@pytest.fixture
def book_copy(tmp_path: Path, rootdir: Path) -> Path:
    """A private copy of tests/roots/test-book, safe to edit."""
    dest = tmp_path / "book"
    shutil.copytree(rootdir / "test-book", dest)
    return dest
