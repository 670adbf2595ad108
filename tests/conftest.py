"""Shared fixtures: Sphinx's own test fixtures, the test roots, and a copied-root builder."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest


pytest_plugins = ("sphinx.testing.fixtures",)


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return Path(__file__).parent / "roots"


@pytest.fixture
def book_copy(tmp_path: Path, rootdir: Path) -> Path:
    """A private copy of tests/roots/test-book, safe to edit."""
    dest = tmp_path / "book"
    shutil.copytree(rootdir / "test-book", dest)
    return dest
