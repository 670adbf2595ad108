"""Layers point one way (issue 38): the core imports neither the lab nor Sphinx; the extension does not
import the lab; the reader's tools import only the standard library."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from buildutil import ROOT

CORE = ROOT / "_ext" / "miles101"
EXTENSION = CORE / "sphinx_ext"
TOOLS = CORE / "tools"


def imported(path: Path) -> set[str]:
    """Top-level names of every absolute import in a module (relative imports stay inside the package)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def modules(folder: Path, *, skip: Path | None = None) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if skip is None or skip not in p.parents)


@pytest.mark.parametrize("path", modules(CORE, skip=EXTENSION), ids=lambda p: p.relative_to(CORE).as_posix())
def test_the_core_imports_neither_the_lab_nor_sphinx(path: Path) -> None:
    bad = imported(path) & {"capture", "sphinx", "docutils", "tests"}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: the core is imported by the lab and the extension, never the reverse"


@pytest.mark.parametrize("path", modules(EXTENSION), ids=lambda p: p.relative_to(CORE).as_posix())
def test_the_extension_does_not_import_the_lab(path: Path) -> None:
    bad = imported(path) & {"capture", "tests"}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: the extension renders what the core resolves"


@pytest.mark.parametrize("path", sorted(TOOLS.glob("*.py")), ids=lambda p: p.name)
def test_each_reader_tool_imports_only_the_standard_library(path: Path) -> None:
    siblings = {p.stem for p in TOOLS.glob("*.py")}
    outside = imported(path) - set(sys.stdlib_module_names) - siblings
    assert not outside, f"{path.name} is downloaded alone from its page: it may import only the standard library, not {sorted(outside)}"


def test_the_check_catches_a_lab_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from __future__ import annotations\nimport json\n\ndef f():\n    from capture.lab import runfile\n")
    assert "capture" in imported(bad) and "json" in imported(bad)
