"""Shared fixtures: Sphinx's own test fixtures, the test roots, and a copied-root builder."""
from __future__ import annotations

import re
import shutil
import sys
from io import StringIO
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "_ext"))
sys.path.insert(0, str(ROOT))

pytest_plugins = ("sphinx.testing.fixtures",)


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return Path(__file__).parent / "roots"


class Built:
    """A finished build: the app, its warnings, and helpers to read the output."""

    def __init__(self, app: SphinxTestApp, warnings: str) -> None:
        self.app, self.warnings = app, warnings

    def html(self, docname: str) -> str:
        return (Path(self.app.outdir) / f"{docname}.html").read_text(encoding="utf-8")


def build(srcdir: Path, *, parallel: int = 0, buildername: str = "html", **confoverrides) -> Built:
    """Build `srcdir` (already a private copy) and return the result."""
    status, warning = StringIO(), StringIO()
    confoverrides.setdefault("m101_mermaid_root", str(ROOT))
    app = SphinxTestApp(buildername, srcdir=srcdir, builddir=srcdir / "_build", status=status, warning=warning,
                        parallel=parallel, confoverrides=confoverrides)
    try:
        app.build()
    finally:
        app.cleanup()
    built = Built(app, warning.getvalue())
    built.status = re.sub(r"\x1b\[[0-9;]*m", "", status.getvalue())
    return built


@pytest.fixture
def book_copy(tmp_path: Path, rootdir: Path) -> Path:
    """A private copy of tests/roots/test-book, safe to edit."""
    dest = tmp_path / "book"
    shutil.copytree(rootdir / "test-book", dest)
    return dest
