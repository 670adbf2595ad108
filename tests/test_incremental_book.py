"""Incremental builds after manual.json or the build's caches change: only the pages that show it are read.

The pages read are the ones Sphinx's own `env-before-read-docs` event names (tests/buildutil.py).
"""
from __future__ import annotations

import re

import json
import shutil
from pathlib import Path

import pytest

from buildutil import build

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

SECTION_PAGES = ["sections/1-1-first", "sections/1-2-empty", "sections/2-1-values", "sections/r-1-flags",
                 "sections/r-2-metrics", "sections/r-3-lab", "sections/r-4-sources", "sections/r-5-figures"]


def edit_book(root: Path, change) -> None:
    book = json.loads((root / "manual.json").read_text())
    change(book)
    (root / "manual.json").write_text(json.dumps(book, indent=2))


@pytest.mark.parametrize("parallel", [0, 2])
def test_summary_edit_rereads_the_front_page_alone(book_copy: Path, parallel: int) -> None:
    build(book_copy, parallel=parallel)
    before = build(book_copy, parallel=parallel).html("sections/1-1-first")
    edit_book(book_copy, lambda b: b["parts"][0].update(summary="A summary written again."))
    built = build(book_copy, parallel=parallel)
    assert built.read == ["front"]
    front = built.html("front")
    assert "A summary written again." in front and "Alpha summary." not in front
    assert built.html("sections/1-1-first") == before  # no other page shows a part's summary


def test_book_summary_edit_rereads_the_front_page_alone(book_copy: Path) -> None:
    build(book_copy)
    edit_book(book_copy, lambda b: b.update(summary="The summary of the book, rewritten."))
    built = build(book_copy)
    assert built.read == ["front"]
    assert "The summary of the book, rewritten." in built.html("front")


def test_thesis_edit_rereads_the_front_page_and_the_parts_pages(book_copy: Path) -> None:
    build(book_copy)
    edit_book(book_copy, lambda b: b["parts"][0].update(thesis="A thesis written again."))
    built = build(book_copy)
    assert built.read == ["front", "sections/1-1-first", "sections/1-2-empty"]
    assert "A thesis written again." in built.html("sections/1-2-empty")  # an unwritten page shows its part's thesis
    assert "A thesis written again." in built.html("front")


def test_part_title_edit_rereads_every_page(book_copy: Path) -> None:
    build(book_copy)
    edit_book(book_copy, lambda b: b["parts"][0].update(title="Alpha Renamed"))
    built = build(book_copy)
    assert built.read == ["front", *SECTION_PAGES]
    assert "Part 1 · Alpha Renamed" in built.html("sections/2-1-values")  # every sidebar names the parts


def wrote_flag_index(built) -> bool:
    """The build wrote m101-flags.html (Sphinx names each index it writes: `generating indices... genindex m101-flags`)."""
    return "m101-flags" in built.status.partition("generating indices...")[2].splitlines()[0]


@pytest.mark.parametrize("parallel", [0, 2])
def test_the_flag_index_is_written_when_what_it_shows_changed(book_copy: Path, tmp_path: Path, parallel: int) -> None:
    assert wrote_flag_index(build(book_copy, parallel=parallel))
    assert not wrote_flag_index(build(book_copy, parallel=parallel))  # nothing changed: last build's page stays
    facts = book_copy / "capture" / "facts.json"
    facts.write_text(facts.read_text().replace('"value": 64', '"value": 65', 1))
    built = build(book_copy, parallel=parallel)
    assert built.read == ["sections/2-1-values"] and not wrote_flag_index(built)  # a value is not in the index
    page = book_copy / "sections" / "1-1-first.md"
    page.write_text(page.read_text().replace("# First section", "# First section, renamed", 1))
    built = build(book_copy, parallel=parallel)
    assert wrote_flag_index(built) and "First section, renamed" in built.html("m101-flags")
    fresh = tmp_path / "fresh"
    shutil.copytree(book_copy, fresh, ignore=shutil.ignore_patterns("_build"))
    assert build(fresh, parallel=parallel).html("m101-flags") == built.html("m101-flags")  # as a fresh build writes it
    assert wrote_flag_index(build(book_copy, parallel=parallel, force_all=True))  # -a writes every page, the index too
    (Path(built.app.outdir) / "m101-flags.html").unlink()
    assert wrote_flag_index(build(book_copy, parallel=parallel))  # a removed page is written again


def test_the_flag_index_is_written_when_its_heading_changes(book_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from miles101.sphinx_ext.domain import FlagIndex

    build(book_copy)
    monkeypatch.setattr(FlagIndex, "localname", "Every flag this book documents")  # the code that names it changed
    built = build(book_copy)
    assert wrote_flag_index(built) and "Every flag this book documents" in built.html("m101-flags")


def test_reformatted_manual_rereads_nothing(book_copy: Path) -> None:
    build(book_copy)
    edit_book(book_copy, lambda b: None)  # the same content, other bytes
    assert build(book_copy).read == []


def test_schema_error_after_a_valid_build_still_fails(book_copy: Path) -> None:
    from test_book_errors import fatal

    build(book_copy)  # manual.json passed its schema check, which is remembered by its bytes
    assert (book_copy / "_build" / "doctrees" / "m101-book-valid.pickle").is_file()
    edit_book(book_copy, lambda b: b["parts"][1].pop("thesis"))
    assert "manual.json:$.parts[1]: ERROR: missing required key 'thesis'." in fatal(book_copy)


def test_a_damaged_capture_cache_is_read_afresh(book_copy: Path) -> None:
    build(book_copy)
    cache = book_copy / "_build" / "doctrees" / "m101-capture.pickle"
    assert cache.is_file()
    cache.write_bytes(b"not a pickle")
    facts = book_copy / "capture" / "facts.json"
    data = json.loads(facts.read_text())
    data["facts"]["box.memory"]["value"] = 97
    facts.write_text(json.dumps(data))
    built = build(book_copy)
    assert built.read == ["sections/2-1-values"]
    assert re.search(r'class="m101-value[^>]*>(?:<span class="m101-ref-tag">[^<]*</span> )?' + re.escape('97 GB') + r'(?: \(|</a>)', built.html("sections/2-1-values"))
    assert cache.read_bytes() != b"not a pickle"  # written again for the next build


def test_a_changed_schema_reloads_the_cached_capture(book_copy: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The cached capture is keyed by the schemas (and the code) that shape it, not only by the data.

    A schema that refuses box.memory's `source_title`, then the real one, then the strict one again:
    each build cites what that schema lets through, with no `_build/` to delete in between.
    """
    import shutil

    import miles101.schemas

    real = miles101.schemas.schema_dir()
    strict = tmp_path / "schema"
    shutil.copytree(real, strict)
    schema = json.loads((strict / "facts.schema.json").read_text())
    del schema["properties"]["facts"]["additionalProperties"]["properties"]["source_title"]
    (strict / "facts.schema.json").write_text(json.dumps(schema))

    def build_with(schema_dir: Path):
        monkeypatch.setattr(miles101.schemas, "schema_dir", lambda: schema_dir)
        return build(book_copy)

    refused = build_with(strict)
    assert "manual.capture" in refused.subtypes
    assert any("no fact value 'box.memory'" in m for m in refused.messages("manual.unknown_value"))
    loosened = build_with(real)
    assert loosened.warned == [], loosened.warnings  # the schema was loosened: the cached capture is not reused
    assert re.search(r'class="m101-value[^>]*>(?:<span class="m101-ref-tag">[^<]*</span> )?' + re.escape('64 GB') + r'(?: \(|</a>)', loosened.html("sections/2-1-values"))
    again = build_with(strict)
    assert any("no fact value 'box.memory'" in m for m in again.messages("manual.unknown_value")), again.warnings


def test_the_benchmark_counts_pages_read_from_sphinx_events(book_copy: Path, tmp_path: Path) -> None:
    """bench.py's sphinx-build names every page read under -j (the progress line names a chunk's ends only)."""
    import subprocess
    import sys

    from buildutil import ROOT

    def read(events: Path) -> list[str]:
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sphinx_events.py"), str(events), "-b", "html",
                               "-j", "2", "-q", str(book_copy), str(tmp_path / "html"), "-d", str(tmp_path / "doctrees")],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(events.read_text())["read"]

    first = read(tmp_path / "first.json")
    assert len(first) == 9 and "sections/1-2-empty" in first  # every page, the middle of each chunk too
    page = book_copy / "sections" / "1-2-empty.md"
    page.write_text(page.read_text() + "\nOne more line.\n")
    assert read(tmp_path / "second.json") == ["sections/1-2-empty"]


@pytest.mark.parametrize(("source", "served", "compacted"), [("miles101.js", "miles101.js", True),
                                                             ("fit-calculator.js", "m101-fit-calculator.js", False)])
def test_changed_static_source_is_served_on_the_next_build(book_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            source: str, served: str, compacted: bool) -> None:
    """An edit to a script the extension serves reaches _static on an incremental build, byte for byte
    what a fresh build serves (the extension's own files compacted, a component's as they are)."""
    import shutil

    from miles101.sphinx_ext import assets, calculator

    static = tmp_path / "static"
    shutil.copytree(assets.STATIC, static)
    monkeypatch.setattr(assets, "STATIC", static)
    monkeypatch.setattr(calculator, "STATIC", static)

    def expected() -> bytes:
        text = (static / source).read_text(encoding="utf-8")
        return (assets.compact(text) if compacted else text).encode("utf-8")

    out = book_copy / "_build" / "html" / "_static" / served
    build(book_copy)
    before = out.read_bytes()
    assert before == expected()
    with (static / source).open("a", encoding="utf-8") as js:
        js.write("\n/* a note */\nwindow.m101Edited = true;\n")
    built = build(book_copy)
    assert built.read == []  # no page changed: only the static file
    after = out.read_bytes()
    assert after != before and after == expected()
