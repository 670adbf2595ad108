"""The book from manual.json: toctree, front page, section chrome, incremental and parallel builds."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import yaml
from buildutil import build

from capture.lab.values import derive_values


def test_builds_clean(book_copy: Path) -> None:
    built = build(book_copy)
    assert built.warnings == ""
    assert built.app.statuscode == 0


def test_sidebar_lists_parts_in_order(book_copy: Path) -> None:
    html = build(book_copy).html("sections/2-1-values")
    captions = re.findall(r'<p class="caption" role="heading"><span class="caption-text">(.*?)</span>', html)
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
    assert "Not recorded yet: the run tiny-pending has not been made on a DGX Spark" in html
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
    assert '<span class="m101-shown">99.5 tok/s</span>' in html
