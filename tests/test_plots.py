"""Plots of runs ({run-plot}, {series-plot}): drawn from data, pending until recorded, gaps said, bounded.

The recordings here are test data: the rehearsal's Miles-shaped log lines (capture/lab/rehearsal/mileslog.py)
parsed by the recorder's own parser into steps.jsonl inside a copy of tests/roots/test-book; nothing reaches
capture/gpu/ or the manual.
"""
from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
import yaml
from buildutil import build

from capture.lab.rehearsal import mileslog as ml
from miles101 import plotsvg
from miles101.tools.read_run import parse_log
from miles101.values import derive_values

ROOT = Path(__file__).resolve().parent.parent
SERIES_ID = "verl-gsm8k-qwen2.5-0.5b-ppo"
PAGE = """# Empty section

```{{run-plot}} tiny-pending
:metric: rollout/raw_reward
:id: fig-tiny-reward
:title: Reward of the tiny run
The shape to expect.
```

```{{series-plot}} {series}
:metric: critic/score/mean
:id: fig-public-score
:title: A public run's score
Ours: {{run-arg}}`tiny-pending --num-rollout` rollouts.
```
"""


def _with_series(book: Path, page: str = PAGE) -> Path:
    """The test book with the real public series copied in and a page that plots it and a tiny run."""
    dest = book / "capture" / "series"
    shutil.copytree(ROOT / "capture" / "series", dest)
    (book / "sections" / "1-2-empty.md").write_text(page.format(series=SERIES_ID), encoding="utf-8")
    return book


def _record(book: Path, rows: list[dict]) -> None:
    """tiny-pending recorded (test data): tiny-recorded's recording with these steps.jsonl rows."""
    gpu = book / "capture" / "gpu"
    shutil.copytree(gpu / "tiny-recorded", gpu / "tiny-pending")
    run = json.loads((gpu / "tiny-pending" / "run.json").read_text())
    run["id"] = "tiny-pending"
    (gpu / "tiny-pending" / "run.json").write_text(json.dumps(run))
    (gpu / "tiny-pending" / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    values = derive_values(yaml.safe_load((book / "capture" / "runs" / "tiny-pending.yaml").read_text()), rows)
    (gpu / "tiny-pending" / "values.json").write_text(json.dumps(values))


def test_caption_settings_read_as_a_run_file_writes_them() -> None:
    """A public run's learning rate in the run files' form (1e-6 beside {run-arg}'s 1e-6, not Python's 1e-06), and
    counts with their plural, so one caption never shows one value in two forms."""
    from miles101.sphinx_ext.plots import counted, setting_number

    assert [setting_number(v) for v in (1e-06, 3e-05, 1e-5, 0.0001, 2.5e-07, 1e20, 1, None, "1e-6")] == [
        "1e-6", "3e-5", "1e-5", "0.0001", "2.5e-7", "1e20", "1", "not in the log", "not in the log"]
    assert (counted(1, "GPU", "GPUs"), counted(8, "GPU", "GPUs"), counted(None, "GPU", "GPUs")) == (
        "1 GPU", "8 GPUs", "an unknown number of GPUs")


def _figure(html: str, fig_id: str) -> str:
    start = html.index(f'id="{fig_id}"')
    return html[start:html.index('<div class="m101-figure', start + 1) if '<div class="m101-figure' in html[start + 1:]
                else len(html)]


@pytest.mark.build
def test_a_pending_slot_draws_nothing_and_the_recording_draws_it_with_no_page_edit(book_copy: Path) -> None:
    book = _with_series(book_copy)
    before = build(book)
    assert before.warnings == ""
    pending = _figure(before.html("sections/1-2-empty"), "fig-tiny-reward")
    assert "pending" in pending and "No curve yet" in pending and "<svg" not in pending and "polyline" not in pending
    public = _figure(before.html("sections/1-2-empty"), "fig-public-score")
    assert "public ref" in public and "<svg" in public and "m101-plot-data" in public and "PPO" in public
    assert "actor learning rate 1e-6," in public and "1 sample per prompt, 1 GPU." in public
    assert "1e-06" not in public and "(s)" not in public and "does not state the GPU" in public
    rows = parse_log(ml.healthy(6, reward=0.25))
    assert len(rows) == 6 and all(r["rollout"]["rollout/raw_reward"] == 0.25 for r in rows)
    _record(book, [{**r, "seed": 1} for r in rows])
    after = build(book)  # the same page, not edited: the recording alone turns the slot into a curve
    assert after.warnings == ""
    drawn = _figure(after.html("sections/1-2-empty"), "fig-tiny-reward")
    assert "No curve yet" not in drawn and "<polyline" in drawn and "seed 1" in drawn
    assert "capture/gpu/tiny-pending/steps.jsonl" in drawn and "0.25" in drawn


@pytest.mark.build
def test_seeds_draw_a_median_and_band_and_gaps_are_said_not_bridged(book_copy: Path) -> None:
    book = _with_series(book_copy)
    rows = []
    for seed, reward in ((1, 0.2), (2, 0.4), (3, 0.9)):
        for r in parse_log(ml.healthy(6, reward=reward)):
            if r["step"] == 3:
                continue  # a step missing from the file
            if r["step"] == 4 and seed == 1:
                r["rollout"]["rollout/raw_reward"] = None  # not a number at one seed: the others still count
            rows.append({**r, "seed": seed})
    _record(book, rows)
    built = build(book)
    assert built.warnings == ""
    fig = _figure(built.html("sections/1-2-empty"), "fig-tiny-reward")
    assert "median of seeds 1, 2, 3" in fig and "m101-plot-band" in fig
    assert "1 step(s) not in the data file drawn from (3)" in fig
    assert fig.count("<polyline") == 2, "the line breaks at step 3 instead of crossing it"
    assert "0.2–0.9" in fig  # the band's range in the numbers table


@pytest.mark.build
def test_a_malformed_recording_is_the_gates_error_naming_its_path(book_copy: Path) -> None:
    book = _with_series(book_copy)
    _record(book, [{"step": 0, "seed": 1, "rollout": {"rollout/raw_reward": 0.5}}])
    (book / "capture" / "gpu" / "tiny-pending" / "steps.jsonl").write_text('{"step": 0, "rollout": {"x": "oops"}}\n')
    built = build(book)
    assert "capture/gpu/tiny-pending/steps.jsonl:1" in built.warnings


@pytest.mark.build
def test_two_builds_write_the_same_bytes(book_copy: Path, tmp_path: Path) -> None:
    book = _with_series(book_copy)
    other = tmp_path / "other"
    shutil.copytree(book, other)
    first, second = build(book).html("sections/1-2-empty"), build(other).html("sections/1-2-empty")
    svg = re.findall(r"<svg.*?</svg>", first, re.S)
    assert svg and svg == re.findall(r"<svg.*?</svg>", second, re.S)
    assert _figure(first, "fig-public-score") == _figure(second, "fig-public-score")


@pytest.mark.build
@pytest.mark.parametrize("buildername", ["latex", "text", "epub"])
def test_other_editions_show_the_numbers(book_copy: Path, buildername: str) -> None:
    book = _with_series(book_copy)
    built = build(book, buildername=buildername, epub_copyright="test", version="1",
                  suppress_warnings=["epub.unknown_project_files"],
                  latex_documents=[("front", "python.tex", "Test", "Test", "manual")])
    assert built.warnings == ""
    out = Path(built.app.outdir)
    text = "".join(p.read_text(encoding="utf-8") for p in [*out.rglob("*.tex"), *out.rglob("*.txt"),
                                                          *out.rglob("*.xhtml")])
    assert "0.707" in text and "critic/score/mean" in text  # step 434 of the public log, in its numbers table
    if buildername == "epub":
        drawing = (out / "_images" / "m101-plot-fig-public-score.svg").read_text(encoding="utf-8")
        assert 'src="../_images/m101-plot-fig-public-score.svg"' in text and "m101-plot-line" in drawing
        assert "<style>" in drawing and "<svg" not in text, "the EPUB's pages hold no inline SVG (OPF-014)"
    else:
        assert "drawn in the web and EPUB editions" in text


# -- the drawing itself (no Sphinx) -------------------------------------------------------------


@pytest.mark.unit
def test_gaps_break_the_line_and_are_said() -> None:
    points = [(0, 1.0), (1, 2.0), (2, None), (3, 2.0), (4, 3.0), (7, 1.0)]
    assert plotsvg.segments(points) == [[(0, 1.0), (1, 2.0)], [(3, 2.0), (4, 3.0)], [(7, 1.0)]]
    said = plotsvg.gap_text(points)
    assert "2 step(s) not in the data file drawn from (5–6)" in said and "1 step(s) with no number for this metric (2)" in said
    drawing = plotsvg.svg([plotsvg.Line("x", "data", points)], "t", "step", "fig-x")
    assert drawing.count("<polyline") == 2 and drawing.count("<circle") == 1
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b|rgb\(", drawing), "no colour literal: classes only"


@pytest.mark.unit
def test_a_hundred_thousand_steps_draw_in_bounded_time_and_size() -> None:
    points = [(i, (i % 97) / 97 if i % 1009 else None) for i in range(100_000)]
    started = time.perf_counter()
    drawing = plotsvg.svg([plotsvg.Line("x", "data", points)], "t", "step", "fig-x")
    assert time.perf_counter() - started < 5
    assert len(drawing) < 60_000
    assert drawing == plotsvg.svg([plotsvg.Line("x", "data", points)], "t", "step", "fig-x"), "deterministic"


@pytest.mark.unit
def test_a_hundred_thousand_steps_of_seeds_draw_their_band_in_bounded_size() -> None:
    """The median's band is thinned as its line is: each edge keeps its extremes, so the band spans what the
    unthinned band of a short run with the same values spans."""
    def band_ys(n: int) -> tuple[int, list[float]]:
        points = [(i, float(i % 7)) for i in range(n)]
        band = [(i, float(i % 5) - 5, float(i % 11) + 7) for i in range(n)]
        drawing = plotsvg.svg([plotsvg.Line("m", "data", points, band=band)], "t", "step", "fig-x")
        polygon = re.search(r'<polygon class="m101-plot-band[^"]*" points="([^"]*)"', drawing)
        assert polygon is not None and drawing.count("<polygon") == 1
        return len(drawing), [float(xy.split(",")[1]) for xy in polygon.group(1).split()]

    size, ys = band_ys(100_000)
    _, short = band_ys(200)  # two steps per span: drawn as it is
    assert size < 120_000
    assert (min(ys), max(ys)) == (min(short), max(short))


@pytest.mark.unit
def test_labels_read_at_eleven_pixels_on_a_phone() -> None:
    column = 390 - 2 * 20  # a 390 px phone, less the page's side padding
    assert plotsvg.FONT * min(1, column / plotsvg.WIDTH) >= 11


@pytest.mark.unit
def test_median_and_band() -> None:
    points, band = plotsvg.median_band({1: {0: 1.0, 1: None}, 2: {0: 3.0, 1: 2.0}, 3: {0: 2.0}})
    assert points == [(0, 2.0), (1, 2.0)] and band == [(0, 1.0, 3.0), (1, 2.0, 2.0)]
