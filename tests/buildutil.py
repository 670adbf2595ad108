"""Building test roots and copies of the manual (shared by the test modules)."""
from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from miles101.text import strip_ansi

ROOT = Path(__file__).resolve().parent.parent
#: What a copy of the manual leaves out (builds, environments, the tests themselves, Git history).
MANUAL_IGNORE = shutil.ignore_patterns("_build", ".venv", ".tox", "node_modules", ".git", "tests", "benchmarks",
                                       "test-artifacts", "__pycache__", ".pytest_cache")


class Built:
    """A finished build: the app, its warnings, and helpers to read the output."""

    def __init__(self, app: SphinxTestApp, warnings: str) -> None:
        self.app, self.warnings = app, warnings
        #: The pages Sphinx read in this build, as its `env-before-read-docs` event named them.
        self.read: list[str] = []

    def html(self, docname: str) -> str:
        return (Path(self.app.outdir) / f"{docname}.html").read_text(encoding="utf-8")


def build(srcdir: Path, *, parallel: int = 0, buildername: str = "html", **confoverrides) -> Built:
    """Build `srcdir` (already a private copy) and return the result."""
    status, warning = StringIO(), StringIO()
    confoverrides.setdefault("m101_mermaid_root", str(ROOT))
    app = SphinxTestApp(buildername, srcdir=srcdir, builddir=srcdir / "_build", status=status, warning=warning,
                        parallel=parallel, confoverrides=confoverrides)
    read: list[str] = []
    # Last in line, so the list is what Sphinx reads after every extension had its say.
    app.connect("env-before-read-docs", lambda app, env, docnames: read.extend(docnames), priority=999)
    try:
        app.build()
    finally:
        app.cleanup()
    built = Built(app, warning.getvalue())
    built.read = sorted(read)
    built.status = strip_ansi(status.getvalue())
    return built


def build_manual_copy(dest: Path, **kwargs) -> Built:
    """Copy the manual (without its Git history) to `dest` and build it."""
    shutil.copytree(ROOT, dest, ignore=MANUAL_IGNORE)
    return build(dest, **kwargs)
