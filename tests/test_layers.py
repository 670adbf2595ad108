"""Layers point one way (issues 38, 49): the core imports neither the lab, Sphinx nor its own extension; the
extension does not import the lab; the lab never imports the extension; the reader's tools import only
the standard library; and no two modules of the core import each other, however indirectly (issue 59).

Every import is resolved to the full dotted name it loads: `import a.b`, `from a.b import c` (also
`a.b.c`, which may be a module), relative imports (`from .sphinx_ext.values import x` inside the
core is `miles101.sphinx_ext.values`), and the string given to `importlib.import_module` or `__import__`.
"""
from __future__ import annotations

import ast
import graphlib
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


def core_graph(root: Path | None = None) -> dict[str, set[str]]:
    """Each module of the core (`_ext/miles101/**.py`, the extension and the reader's tools with it) → the core
    modules it imports, wherever the import stands: at the top, inside a function, under `TYPE_CHECKING`.

    An imported name is the module that holds it (`miles101.kinds.KINDS` → `miles101.kinds`); a package's own
    `__init__` that a submodule's import runs first is not an edge (it is not an import statement)."""
    core = (root or ROOT) / "_ext" / "miles101"
    files = {".".join(p.relative_to(core.parent).with_suffix("").parts).removesuffix(".__init__"): p
             for p in sorted(core.rglob("*.py"))}

    def module_of(name: str) -> str | None:
        parts = name.split(".")
        return next((m for i in range(len(parts), 0, -1) if (m := ".".join(parts[:i])) in files), None)

    return {mod: {t for n in imported(path) if (t := module_of(n)) is not None and t not in (mod, "miles101")}
            for mod, path in files.items()}


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` (its modules in import order, the first repeated at the end), or [] when it has none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(reversed(exc.args[1]))
    return []


def test_the_core_imports_in_no_circle() -> None:
    cycle = import_cycle(core_graph())
    assert not cycle, (f"the core's modules import each other in a circle: {' -> '.join(cycle)}; move what one of "
                       "them takes from the other to a module below both (an import inside a function or under "
                       "TYPE_CHECKING counts)")


@pytest.mark.parametrize("text", [
    "def f():\n    from .a import x\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n",
    "from . import a\n",
    "import importlib\na = importlib.import_module('miles101.a')\n",
], ids=["inside-a-function", "type-checking", "relative-module", "import_module"])
def test_the_check_catches_a_circle(layout: Path, text: str) -> None:
    _module(layout, "_ext/miles101/a.py", "from .b import y\n")
    _module(layout, "_ext/miles101/b.py", text)
    _module(layout, "_ext/miles101/c.py", "from .b import y\n")
    cycle = import_cycle(core_graph(layout))
    assert set(cycle) == {"miles101.a", "miles101.b"} and cycle[0] == cycle[-1], cycle


def test_a_layered_core_has_no_circle(layout: Path) -> None:
    _module(layout, "_ext/miles101/a.py", "from .b import y\nfrom .sphinx_ext import base\n")
    _module(layout, "_ext/miles101/b.py", "import json\n")
    _module(layout, "_ext/miles101/sphinx_ext/__init__.py", "from . import base\n")
    _module(layout, "_ext/miles101/sphinx_ext/base.py", "from ..b import y\n")
    assert core_graph(layout)["miles101.a"] == {"miles101.b", "miles101.sphinx_ext", "miles101.sphinx_ext.base"}
    assert import_cycle(core_graph(layout)) == []
