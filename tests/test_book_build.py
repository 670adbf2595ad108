"""The book from manual.json: toctree, front page, section chrome, incremental and parallel builds."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from buildutil import build

from miles101.values import derive_values

pytestmark = pytest.mark.build  # every test here builds a Sphinx project


def test_builds_clean(book_copy: Path) -> None:
    built = build(book_copy)
    assert built.warned == [], built.warnings
    assert built.app.statuscode == 0


def test_sidebar_lists_parts_in_order(book_copy: Path) -> None:
    html = build(book_copy).html("sections/2-1-values")
    captions = re.findall(r'<p class="caption" role="heading" aria-level="2"><span class="caption-text">(.*?)</span>', html)
    assert captions == ["Part 1 · Alpha", "Part 2 · Beta", "Reference"]


def test_front_page_renders_the_book(book_copy: Path) -> None:
    html = build(book_copy).html("front")
    assert "A book for the tests" in html and "Edition 2026.12" in html
    for part in ("Part 1", "Part 2", "Reference"):
        assert f'<p class="m101-card-number">{part}</p>' in html
    assert 'm101-card m101-accent-plum' in html
    assert html.count('class="m101-swatch m101-accent-') == 2
    assert 'id="plate-test"' in html and "The test plate" in html
    assert "<strong>The run this figure will show, once it is recorded on a DGX Spark:</strong> What to notice" in html
    assert "Not recorded yet: the author records the run tiny-pending on a DGX Spark" in html
    assert "runs recorded on a DGX Spark: 1 of 2" in html and "status: ready" not in html
    assert "1111111111" in html and "The pin and the capture differ" in html  # pin mismatch said plainly
    # the part card links each section by its numbered title
    assert ('<ul class="m101-card-sections simple"> <li><p><a class="reference internal" href="sections/1-1-first.html">'
            '<span class="doc">1.1 First section</span></a></p></li>') in re.sub(r"\s+", " ", html)


def test_section_chrome(book_copy: Path) -> None:
    built = build(book_copy)
    html = built.html("sections/1-1-first")
    assert '<span class="m101-secnum">1.1 </span>First section' in html
    assert 'm101-eyebrow m101-accent-blue' in html and "Part 1 · Alpha" in html
    empty = built.html("sections/1-2-empty")
    body = empty.split('<article', 1)[1].split("</article>", 1)[0]
    assert "Alpha thesis." in body
    assert len(re.findall(r"<p[ >]", body)) == 2  # the eyebrow and the thesis: nothing else
    assert '<link rel="next" title="1.2 Empty section" href="1-2-empty.html">' in html


def test_incremental_part_title_updates_every_sidebar(book_copy: Path) -> None:
    build(book_copy)
    book = json.loads((book_copy / "manual.json").read_text())
    book["parts"][0]["title"] = "Renamed"
    (book_copy / "manual.json").write_text(json.dumps(book))
    built = build(book_copy)
    for doc in ("front", "sections/1-1-first", "sections/2-1-values", "sections/r-5-figures"):
        assert "Part 1 · Renamed" in built.html(doc), doc
        assert "Part 1 · Alpha" not in built.html(doc), doc


def test_parallel_build_matches_serial(tmp_path: Path, book_copy: Path) -> None:
    import shutil

    other = tmp_path / "other"
    shutil.copytree(book_copy, other)
    serial, parallel = build(book_copy), build(other, parallel=2)
    assert parallel.warnings == ""
    for doc in ("sections/r-5-figures", "sections/r-1-flags", "sections/r-4-sources", "sections/1-1-first", "front"):
        assert _article(serial.html(doc)) == _article(parallel.html(doc)), doc
    assert "fig-test-loop" in serial.html("sections/r-5-figures")


def _article(html: str) -> str:
    return html.split("<article", 1)[1].split("</article>", 1)[0]


def test_front_page_follows_the_plate_recording(book_copy: Path) -> None:
    """Once the plate's run is recorded, its caption stands as written and the pending note goes."""
    gpu = book_copy / "capture" / "gpu"
    shutil.copytree(gpu / "tiny-recorded", gpu / "tiny-pending")
    run = json.loads((gpu / "tiny-pending" / "run.json").read_text())
    run["id"] = "tiny-pending"
    (gpu / "tiny-pending" / "run.json").write_text(json.dumps(run))
    rows = [{"step": i, "seed": 1, "perf": {"perf/tokens_time": 99.5}} for i in range(3)]
    (gpu / "tiny-pending" / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    values = derive_values(yaml.safe_load((book_copy / "capture" / "runs" / "tiny-pending.yaml").read_text()), rows)
    (gpu / "tiny-pending" / "values.json").write_text(json.dumps(values))
    html = build(book_copy).html("front")
    assert "once it is recorded" not in html and "Not recorded yet" not in html
    assert "runs recorded on a DGX Spark: 2 of 2" in html
    assert re.search(r'class="m101-value[^>]*>(?:<span class="m101-ref-tag">[^<]*</span> )?' + re.escape('99.5 tok/s') + r'(?: \(|</a>)', html)


# -- every builder Sphinx ships ------------------------------------------------------------------
BUILDERS = {  # builder → (output file of sections/r-1-flags, of sections/1-2-empty)
    "html": ("sections/r-1-flags.html", "sections/1-2-empty.html"),
    "dirhtml": ("sections/r-1-flags/index.html", "sections/1-2-empty/index.html"),
    "singlehtml": ("front.html", "front.html"),
    "epub": ("sections/r-1-flags.xhtml", "sections/1-2-empty.xhtml"),
    "latex": ("python.tex", "python.tex"),
    "text": ("sections/r-1-flags.txt", "sections/1-2-empty.txt"),
    "man": ("python.1", "python.1"),
    "texinfo": ("python.texi", "python.texi"),
}


@pytest.mark.parametrize("buildername", sorted(BUILDERS))
def test_every_builder_writes_tables_values_and_facts(book_copy: Path, buildername: str) -> None:
    """R.1's table, a flag's facts and a value (a public reference with its source) in every builder."""
    (book_copy / "sections" / "1-2-empty.md").write_text(
        "# Empty section\n\nA step takes {measured}`tiny-recorded.step_time:.1f`; a baseline "
        "{reference}`test.baseline:.0%`.\n")
    # epub: its own metadata, and the log doctor's module files, which EPUB has no mimetype for (not ours to fix)
    built = build(book_copy, buildername=buildername, epub_copyright="test", version="1",
                  suppress_warnings=["epub.unknown_project_files"], latex_documents=[
        ("front", "python.tex", "Test", "Test", "manual")], man_pages=[("front", "python", "Test", [], 1)],
        texinfo_documents=[("front", "python", "Test", "Test", "python", "Test", "Misc")])
    assert built.warnings == ""
    out = Path(built.app.outdir)
    tables, values = ((out / f).read_text(encoding="utf-8") for f in BUILDERS[buildername])
    tables, values = (t.replace("\\-", "-").replace("\\sphinxhyphen{}", "-").replace("\\%", "%")  # man, latex
                      for t in (tables, values))
    assert "--colocate" in tables and "arguments.py:10" in tables, "R.1's table"
    assert "generated for the HTML edition" not in tables
    assert "Every other Miles flag" in tables
    flat = " ".join(values.split())
    assert "71% fraction correct" in flat and "Test paper, H100" in flat, "the reference and its source"
    if buildername in ("latex", "text", "man", "texinfo"):
        assert "(public reference: Test paper, H100" in flat


# -- figure ids ----------------------------------------------------------------------------------
FIGURE = "```{{diagram}} {id}\n:title: {title}\n:caption: Another.\n\nflowchart LR\n  A --> B\n```\n"


def test_figure_id_on_two_pages_fails_in_parallel_chunks(book_copy: Path) -> None:
    """The duplicate is found once every page is read, also when -j 2 reads the two pages in different chunks."""
    from sphinx.util.parallel import make_chunks

    page = book_copy / "sections" / "r-4-sources.md"
    page.write_text(page.read_text() + "\n" + FIGURE.format(id="fig-test-loop", title="Again"))
    built = build(book_copy, parallel=2)
    chunks = make_chunks(built.read, 2)
    assert [i for i, c in enumerate(chunks) if "sections/1-1-first" in c] != \
           [i for i, c in enumerate(chunks) if "sections/r-4-sources" in c], "the two pages share a chunk"
    assert "the figure id fig-test-loop is also used in sections/1-1-first" in built.warnings
    assert "Traceback" not in built.warnings and "Extension error" not in built.warnings
    assert built.app.statuscode == 1  # even without -W


def test_figure_id_on_two_pages_serial_has_no_traceback(book_copy: Path) -> None:
    page = book_copy / "sections" / "1-2-empty.md"
    page.write_text("# Empty section\n\n" + FIGURE.format(id="fig-test-loop", title="Again"))
    built = build(book_copy)
    assert "the figure id fig-test-loop is also used in sections/1-1-first" in built.warnings
    assert "Extension error" not in built.warnings and "compared with" not in built.warnings
    assert built.app.statuscode == 1


def test_figure_id_twice_on_one_page(book_copy: Path) -> None:
    page = book_copy / "sections" / "1-2-empty.md"
    page.write_text("# Empty section\n\n" + FIGURE.format(id="fig-twice", title="One") + "\n"
                    + FIGURE.format(id="fig-twice", title="Two"))
    built = build(book_copy)
    assert "1-2-empty.md:11: WARNING: the figure id fig-twice is used twice on this page." in built.warnings
    assert built.app.statuscode == 1


def test_figure_label_through_std_domain(book_copy: Path) -> None:
    page = book_copy / "sections" / "1-2-empty.md"
    page.write_text("# Empty section\n\nSee {ref}`fig-test-loop`.\n")
    built = build(book_copy)
    assert built.warned == [], built.warnings
    assert built.app.env.domains.standard_domain.labels["fig-test-loop"] == (
        "sections/1-1-first", "fig-test-loop", "The test loop")
    assert 'href="1-1-first.html#fig-test-loop"' in built.html("sections/1-2-empty")


def test_dirhtml_has_a_root_index(book_copy: Path) -> None:
    """`-b dirhtml` puts the front page at front/; the root index.html sends the reader there."""
    built = build(book_copy, buildername="dirhtml")
    out = Path(built.app.outdir)
    assert (out / "front" / "index.html").is_file()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="front/">' in index and 'url=front/' in index


def test_only_the_pages_manual_json_names_are_read(book_copy: Path) -> None:
    """A `python3 -m venv venv` full of Markdown and a stray notes.md are not sources (include_patterns)."""
    docs = book_copy / "venv" / "lib" / "python3.11" / "site-packages" / "pkg"
    docs.mkdir(parents=True)
    (docs / "README.md").write_text("# A package's readme\n\n{flag}`--no-such-flag` and a [link](nowhere.md).\n")
    (book_copy / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (book_copy / "notes.md").write_text("Notes without a title, citing {fact}`no.such.fact`.\n")
    (book_copy / "sections" / "9-9-draft.md").write_text("# A draft manual.json does not list\n")
    built = build(book_copy)
    assert built.warned == [w for w in built.warned if w.subtype == "unlisted_page"], built.warnings
    assert built.subtypes == ["manual.unlisted_page"]  # said once, for the draft under sections/
    assert set(built.read) == {"front", *(f.removesuffix(".md") for f in _listed(book_copy))}
    assert not (book_copy / "_build" / "html" / "notes.html").exists()


def _listed(root: Path) -> list[str]:
    book = json.loads((root / "manual.json").read_text())
    return [s["file"] for part in [*book["parts"], book["reference"]] for s in part["sections"]]
