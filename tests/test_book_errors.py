"""Bad manual.json and bad pages: each gets a clear message naming the file, the place and the fix."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildutil import build

pytestmark = pytest.mark.build  # every test here builds a Sphinx project


def fatal(root: Path) -> str:
    """Build a book that cannot be read: it must stop with exit 2 and say why."""
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    warning = StringIO()
    with pytest.raises(SystemExit) as stop:
        SphinxTestApp("html", srcdir=root, builddir=root / "_build", status=StringIO(), warning=warning)
    assert stop.value.code == 2
    return warning.getvalue()


def edit_book(root: Path, change) -> None:
    book = json.loads((root / "manual.json").read_text())
    change(book)
    (root / "manual.json").write_text(json.dumps(book, indent=2))


def test_malformed_json_names_line_and_column(book_copy: Path) -> None:
    text = (book_copy / "manual.json").read_text().replace('"title": "Test Book",', '"title": "Test Book"', 1)
    (book_copy / "manual.json").write_text(text)
    text = fatal(book_copy)
    assert "manual.json:4:3: ERROR: invalid JSON (Expecting ',' delimiter)" in text and "Fix: fix the JSON syntax" in text


def test_missing_required_key_names_json_path(book_copy: Path) -> None:
    edit_book(book_copy, lambda b: b["parts"][1].pop("thesis"))
    assert ("manual.json:$.parts[1]: ERROR: missing required key 'thesis'. Fix: add 'thesis' to the object at "
            "$.parts[1]. [manual.book]") in fatal(book_copy)


def test_wrong_type(book_copy: Path) -> None:
    edit_book(book_copy, lambda b: b["parts"][0].update(number="1"))
    assert 'manual.json:$.parts[0].number: ERROR: expected a value of type integer, found "1".' in fatal(book_copy)


def test_unknown_accent(book_copy: Path) -> None:
    edit_book(book_copy, lambda b: b["parts"][1].update(accent="mauve"))
    built = build(book_copy)
    assert ("manual.json:$.parts[1].accent: WARNING: the accent 'mauve' has no colour defined. Fix: use one of "
            "blue, violet, green, amber, teal, rose, grey, plum, indigo, or add it to _ext/miles101/palette.py. "
            "[manual.book]") in built.warnings


def test_duplicate_section_id(book_copy: Path) -> None:
    edit_book(book_copy, lambda b: b["parts"][0]["sections"][1].update(id="1.1"))
    built = build(book_copy)
    assert ("manual.json:$.parts[0].sections[1].id: WARNING: duplicate section id '1.1' "
            "(first at $.parts[0].sections[0]). Fix: give each section its own id. [manual.book]") in built.warnings


def test_missing_section_file(book_copy: Path) -> None:
    (book_copy / "sections" / "1-2-empty.md").unlink()
    built = build(book_copy)
    assert ("manual.json:$.parts[0].sections[1].file: WARNING: the section file 'sections/1-2-empty.md' does not "
            "exist. Fix: create sections/1-2-empty.md (a '# Title' line is enough) or fix the path. [manual.book]"
            ) in built.warnings


def test_unlisted_page(book_copy: Path) -> None:
    (book_copy / "sections" / "9-9-stray.md").write_text("# Stray\n")
    built = build(book_copy)
    assert ("sections/9-9-stray.md:1: WARNING: this page is not listed in manual.json. Fix: add it to a "
            "part's sections in manual.json, or delete it. [manual.unlisted_page]") in built.warnings
    assert "isn't included in any toctree" not in built.warnings  # one clear warning, not two


def test_cli_reports_without_a_traceback(book_copy: Path) -> None:
    import os
    import subprocess
    import sys

    from buildutil import ROOT

    (book_copy / "manual.json").write_text("{\n  \"id\": \n}\n")
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(book_copy),
                           str(book_copy / "_build")], capture_output=True, text=True, env=env)
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    assert "manual.json:3:1: ERROR: invalid JSON (Expecting value)" in done.stderr


def test_a_truncated_fact_check_record_is_named_once_not_a_traceback(book_copy: Path) -> None:
    """Each page's fact-check line reads capture/factcheck.json; a file cut short is the intake's warning
    (file, line, column, fix), and the pages are built without the line instead of the build crashing."""
    (book_copy / "capture" / "factcheck.json").write_text('{"checks": [', encoding="utf-8")
    built = build(book_copy)
    named = [m for m in built.messages("manual.capture") if "invalid JSON" in m]
    assert len(named) == 1 and "git checkout -- capture/factcheck.json" in named[0]
    assert [w.location for w in built.warned if w.message in named] == ["capture/factcheck.json:1:13"]
    assert "m101-checked" not in built.html("sections/1-1-first")
