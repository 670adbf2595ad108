"""Bad manual.json and bad pages: each gets a clear message naming the file, the place and the fix."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sphinx.errors import ConfigError

from conftest import build


def edit_book(root: Path, change) -> None:
    book = json.loads((root / "manual.json").read_text())
    change(book)
    (root / "manual.json").write_text(json.dumps(book, indent=2))


def test_malformed_json_names_line_and_column(book_copy: Path) -> None:
    text = (book_copy / "manual.json").read_text().replace('"title": "Test Book",', '"title": "Test Book"', 1)
    (book_copy / "manual.json").write_text(text)
    with pytest.raises(ConfigError) as err:
        build(book_copy)
    assert "manual.json: line 4, column 3: invalid JSON: Expecting ',' delimiter." in str(err.value)
    assert "Fix: fix the JSON syntax there" in str(err.value)


def test_missing_required_key_names_json_path(book_copy: Path) -> None:
    edit_book(book_copy, lambda b: b["parts"][1].pop("thesis"))
    with pytest.raises(ConfigError) as err:
        build(book_copy)
    assert "manual.json: $.parts[1]: missing required key 'thesis'. Fix: add 'thesis' to the object at $.parts[1]." in str(err.value)


def test_wrong_type(book_copy: Path) -> None:
    edit_book(book_copy, lambda b: b["parts"][0].update(number="1"))
    with pytest.raises(ConfigError) as err:
        build(book_copy)
    assert 'manual.json: $.parts[0].number: expected a value of type integer, found "1".' in str(err.value)


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
