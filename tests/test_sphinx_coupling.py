"""Where the project leans on Sphinx's internals: no import from a private Sphinx module (issue 61, item 6),
and the page scripts deferred through the entries' own class."""
from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

from sphinx.builders.html import StandaloneHTMLBuilder

from miles101.sphinx_ext.assets import _deferred

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_imports_a_private_sphinx_module() -> None:
    """A name of a Sphinx module that starts with `_` is Sphinx's own business and may go in any release."""
    found = []
    for path in sorted([*(ROOT / "_ext").rglob("*.py"), *(ROOT / "capture").rglob("*.py"), ROOT / "conf.py",
                        ROOT / "dev.py", *(ROOT / "tests").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
            for name in names:
                parts = name.split(".")
                if parts[0] == "sphinx" and any(p.startswith("_") for p in parts[1:]):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not found, found


def _entry(filename: str, **attributes: str):
    """A script entry as Sphinx makes it (its public add_js_file, on a stand-in for the builder)."""
    holder = SimpleNamespace(_js_files=[])
    StandaloneHTMLBuilder.add_js_file(holder, filename, **attributes)
    return holder._js_files[0]


def test_a_page_script_is_deferred_and_keeps_the_rest() -> None:
    entry = _entry("doctools.js", priority=200)
    deferred = _deferred(entry)
    assert type(deferred) is type(entry) and deferred is not entry
    assert (deferred.filename, deferred.priority) == ("_static/doctools.js", 200)
    assert deferred.attributes == {**entry.attributes, "defer": "defer"}
    assert "defer" not in entry.attributes  # Sphinx's own entry is left as it was


def test_scripts_that_must_not_wait_stay_as_they_are() -> None:
    for entry in (_entry("a.js", **{"async": "async"}), _entry("", body="var x = 1;"),
                  _entry("m.js", type="module"), _entry("d.js", defer="defer")):
        assert _deferred(entry) is entry
    assert _deferred("_static/old-style.js") == "_static/old-style.js"  # a plain path: Sphinx writes it bare
