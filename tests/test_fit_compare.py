"""2.1 holds the size sweep's measured pool beside the calculator's estimate, once the run is recorded.

A copy of the project gets a synthetic recording of model-size-sweep (test data made here from the run
file's declared values through the lab's derive_values, never committed); the copy without one is the
manual as it stands. The recorded page shows "estimate · measured · measured/estimate" with the ratio
computed by the extension; the pending page shows none of it.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from buildutil import ROOT, build
from miles101 import derive
from miles101.values import derive_values
from miles101.intake import load_capture
from miles101.runfiles import resolve_run
from miles101.sphinx_ext import calculator

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

COPY = ["conf.py", "manual.json", "front.md", "sections", "capture", "_ext", "_static", "drawings"]  # what `manual` builds
RUN, VALUE, MODEL = "model-size-sweep", "used_after_wake_up", "qwen3-4B"
PAGE = "sections/2-1-pick-a-model-size"


def _project(dest: Path) -> Path:
    for name in COPY:
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    return dest


def _record_sweep(root: Path) -> None:
    """A valid recording of model-size-sweep: every declared source in every step (synthetic GiB numbers)."""
    raw = {p.stem: yaml.safe_load(p.read_text()) for p in (root / "capture/runs").glob("*.yaml")}
    run = resolve_run(RUN, raw)  # its base filled in, as the book reads it
    seed = (run.get("seeds") or [None])[0]
    sources = {spec["source"] for spec in run["values"].values()}
    rows = []
    for step in range(run["steps"]):
        row: dict = {"step": step, "seed": seed}
        for src in sources:  # steps.jsonl keeps Miles's full keys under their section (memory/..., perf/...)
            row.setdefault(src.split("/", 1)[0], {})[src] = round(61.5 + 0.25 * step, 4)
        rows.append(row)
    rec = root / "capture/gpu" / RUN
    rec.mkdir(parents=True)
    (rec / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (rec / "values.json").write_text(json.dumps({"schema": "values/1", **derive_values(run, rows)}))
    (rec / "log.txt").write_text("synthetic test recording\n"  # a line for 2.1's listing (an empty one is refused)
                                 "[Rank 0] Memory-Usage after wake_up model: {'used_GB': 20.0}\n")
    (rec / "host.json").write_text(json.dumps({
        "schema": "host/1", "gpu": "NVIDIA GB10 (test data)", "driver": "test", "cuda": "13.0",
        "memory_total_gib": 119.7, "kernel": "test", "cpu": "test", "date": "2026-12-03T00:00:00Z"}))
    (rec / "run.json").write_text(json.dumps({
        "schema": "run/1", "id": RUN, "status": "valid", "command": ["docker", "run"],
        "image": run["image"], "image_digest": "sha256:test", "miles_commit": "0" * 40,
        "start": "2026-12-03T00:00:00Z", "end": "2026-12-03T01:00:00Z", "exit_code": 0,
        "steps_planned": run["steps"], "steps_done": run["steps"], "events": []}))


def _text(html: str) -> str:
    html = re.sub(r' title="[^"]*"', "", html)  # a value's provenance sentence, not its text
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory, manual):
    """The manual as it stands (the session's build, tests/conftest.py) and a copy with the sweep recorded."""
    recorded = _project(tmp_path_factory.mktemp("recorded"))
    _record_sweep(recorded)
    return (Path(manual.app.srcdir), manual), (recorded, build(recorded, parallel=2))


def test_both_states_build_clean(both) -> None:
    for _, built in both:
        assert built.app.statuscode == 0, built.warnings
        assert built.warned == [], built.warnings


def test_pending_page_shows_no_comparison(both) -> None:
    (_, pending), _ = both
    html = pending.html(PAGE)
    assert "m101-fit-compare" not in html and "measured/estimate" not in html


def test_recorded_page_shows_estimate_measured_and_their_ratio(both) -> None:
    _, (root, recorded) = both
    capture = load_capture(root)
    measured = capture.value("measured", f"{RUN}.{VALUE}")
    assert measured.value is not None and measured.unit == "GiB"
    # the estimate, independently: the trainer's bytes per parameter times the parameters (Miles's defaults)
    params = capture.value("computed", f"params.{MODEL}").value
    estimate = params * derive.TRAINER_BYTES_PER_PARAM
    ratio = measured.value * 2**30 / estimate
    # and as the calculator derives it at the run file's settings
    doc = calculator.coefficients(capture)
    model = next(m for m in doc["models"] if m["name"] == MODEL)
    got = calculator.compare(doc, model, calculator.run_settings(capture, doc, RUN), "trainer",
                             measured.value, measured.unit)
    assert got["estimate"] == estimate and got["ratio"] == ratio
    text = _text(recorded.html(PAGE))
    # each computed value carries its kind's visible mark ("computed"), so the words need not say it
    want = (f"Estimate computed {estimate / 2**30:.1f} GiB (FSDP trainer state) · measured "
            f"{measured.value:.1f} GiB · measured/estimate computed {ratio:.2f}")
    assert want in text, text[text.find("Estimate"):][:300]
    # the estimate equals the computed table's trainer column, which is in GiB too
    assert f"{capture.value('computed', f'trainer_state.{MODEL}').value:.1f}" == f"{estimate / 2**30:.1f}"


def test_compare_reads_units_and_refuses_unknown_ones() -> None:
    capture = load_capture(ROOT)
    doc = calculator.coefficients(capture)
    model = next(m for m in doc["models"] if m["name"] == MODEL)
    settings = calculator.run_settings(capture, doc, RUN)
    gib = calculator.compare(doc, model, settings, "trainer", 60.0, "GiB")
    gb = calculator.compare(doc, model, settings, "trainer", 60.0 * 2**30 / 10**9, "GB")
    assert gib["ratio"] == pytest.approx(gb["ratio"], rel=1e-12)
    assert isinstance(calculator.compare(doc, model, settings, "trainer", 60.0, "s"), str)
    rollout = calculator.compare(doc, model, settings, "rollout", 60.0, "GiB")
    assert rollout["estimate"] > gib["estimate"]  # the rollout phase adds SGLang's share
