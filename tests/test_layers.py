"""Layers point one way (issues 38, 49): the core imports neither the lab, Sphinx nor its own extension; the
extension does not import the lab; the lab never imports the extension; the reader's tools import only
the standard library.

Every import is resolved to the full dotted name it loads: `import a.b`, `from a.b import c` (also
`a.b.c`, which may be a module), relative imports (`from .sphinx_ext.values import x` inside the
core is `miles101.sphinx_ext.values`), and the string given to `importlib.import_module` or `__import__`.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from buildutil import ROOT

CORE = ROOT / "_ext" / "miles101"
EXTENSION = CORE / "sphinx_ext"
TOOLS = CORE / "tools"
LAB = ROOT / "capture"


def package_of(path: Path) -> str:
    """The dotted package a module file belongs to (`_ext/miles101/sphinx_ext/x.py` → `miles101.sphinx_ext`)."""
    base = ROOT / "_ext" if ROOT / "_ext" in path.parents else ROOT
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] != "__init__" else parts[:-1])


def _absolute(package: str, level: int, module: str | None) -> str:
    """A relative import's full name: `from ..x import y` in package `a.b` → `a.x`."""
    if level == 0:
        return module or ""
    base = package.split(".")
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *([module] if module else [])])


def imported(path: Path) -> set[str]:
    """The full dotted name of everything a module imports (absolute, relative, dotted, or by import_module)."""
    package = package_of(path)
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(package, node.level, node.module)
            names.add(module)
            names.update(f"{module}.{a.name}" for a in node.names if a.name != "*")  # `from . import x`: a module
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in {"import_module", "__import__"}))):
            target = node.args[0].value
            given = next((k.value for k in node.keywords if k.arg == "package"), None)
            anchor = given.value if isinstance(given, ast.Constant) else package  # package=__package__ and the like
            if target.startswith(".") and isinstance(anchor, str):
                level = len(target) - len(target.lstrip("."))
                target = _absolute(anchor, level, target.lstrip(".") or None)
            names.add(target)
    return {n for n in names if n}


def reaches(names: set[str], banned: set[str]) -> list[str]:
    """The imported names that are, or lie inside, a banned package."""
    return sorted(n for n in names if any(n == b or n.startswith(b + ".") for b in banned))


def modules(folder: Path, *, skip: Path | None = None) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if skip is None or skip not in p.parents)


@pytest.mark.parametrize("path", modules(CORE, skip=EXTENSION), ids=lambda p: p.relative_to(CORE).as_posix())
def test_the_core_imports_neither_the_lab_nor_sphinx(path: Path) -> None:
    bad = reaches(imported(path), {"capture", "sphinx", "docutils", "tests", "miles101.sphinx_ext"})
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}: the core is imported by the lab and the extension, never the reverse"


@pytest.mark.parametrize("path", modules(EXTENSION), ids=lambda p: p.relative_to(CORE).as_posix())
def test_the_extension_does_not_import_the_lab(path: Path) -> None:
    bad = reaches(imported(path), {"capture", "tests"})
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}: the extension renders what the core resolves"


@pytest.mark.parametrize("path", modules(LAB), ids=lambda p: p.relative_to(LAB).as_posix())
def test_the_lab_never_imports_the_extension(path: Path) -> None:
    bad = reaches(imported(path), {"miles101.sphinx_ext"})
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}: the lab reads the core (miles101), never the Sphinx extension"


@pytest.mark.parametrize("path", sorted(TOOLS.glob("*.py")), ids=lambda p: p.name)
def test_each_reader_tool_imports_only_the_standard_library(path: Path) -> None:
    siblings = {p.stem for p in TOOLS.glob("*.py")}  # downloaded beside it: imported by bare name, or relatively

    def allowed(name: str) -> bool:
        parts = name.split(".")
        if parts[:2] == ["miles101", "tools"]:  # `from . import miles_tree` inside the package
            return len(parts) == 2 or parts[2] in siblings
        return parts[0] in sys.stdlib_module_names or parts[0] in siblings

    outside = {n for n in imported(path) if not allowed(n)}
    assert not outside, f"{path.name} is downloaded alone from its page: it may import only the standard library, not {sorted(outside)}"


def _module(tmp_path: Path, rel: str, text: str) -> Path:
    """A module written under a copy of the layout, so its package resolves as it would in the project."""
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("from __future__ import annotations\n" + text, encoding="utf-8")
    return path


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    return tmp_path


def test_the_check_catches_a_lab_import(layout: Path) -> None:
    bad = _module(layout, "_ext/miles101/bad.py", "import json\n\ndef f():\n    from capture.lab import runfile\n")
    assert reaches(imported(bad), {"capture"}) and "json" in imported(bad)


@pytest.mark.parametrize("text", [
    "from .sphinx_ext.values import value_inline\n",
    "from . import sphinx_ext\n",
    "from .sphinx_ext import values\n",
    "import miles101.sphinx_ext.values\n",
    "import importlib\nvalues = importlib.import_module('miles101.sphinx_ext.values')\n",
    "from importlib import import_module\nvalues = import_module('.sphinx_ext.values', package='miles101')\n",
], ids=["relative", "relative-package", "relative-from", "dotted", "import_module", "import_module-relative"])
def test_the_check_catches_the_core_importing_its_extension(layout: Path, text: str) -> None:
    bad = _module(layout, "_ext/miles101/bad.py", text)
    assert reaches(imported(bad), {"miles101.sphinx_ext"}), imported(bad)


def test_the_check_resolves_a_relative_import_of_the_extension_inside_itself(layout: Path) -> None:
    ok = _module(layout, "_ext/miles101/sphinx_ext/fine.py", "from ..data import Capture\nfrom .base import logger\n")
    assert imported(ok) == {"miles101.data", "miles101.data.Capture", "miles101.sphinx_ext.base",
                            "miles101.sphinx_ext.base.logger", "__future__", "__future__.annotations"}


def test_the_check_catches_the_lab_importing_the_extension(layout: Path) -> None:
    bad = _module(layout, "capture/lab/bad.py", "from miles101.sphinx_ext.values import value_inline\n")
    assert reaches(imported(bad), {"miles101.sphinx_ext"})
