"""The manual reads right in both states: before first-grpo is recorded (today) and after.

A copy of the project gets a synthetic recording of first-grpo (test data, made here from the run
file's own declared values through the lab's derive_values, never committed) and is built; the
state of today is the session's build of the manual (tests/conftest.py). Wording that depends on the
recording must flip; nothing else may warn.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from buildutil import ROOT, build
from miles101.values import derive_values

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

SECTIONS = ("rollout", "perf", "train", "eval", "memory", "lab")
COPY = ["conf.py", "manual.json", "front.md", "sections", "capture", "_ext", "_static", "drawings"]  # what `manual` builds


def _project(dest: Path) -> Path:
    for name in COPY:
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    return dest


def _record_first_grpo(root: Path) -> None:
    """A valid recording of first-grpo: one step row per rollout holding every declared source."""
    run = yaml.safe_load((root / "capture/runs/first-grpo.yaml").read_text())
    seed = (run.get("seeds") or [None])[0]
    sources = {spec["source"] for spec in run["values"].values()}
    rows = [{"step": step, "seed": seed} for step in range(run["steps"])]
    for row in rows:  # each source in its section of a steps.jsonl row, as the recorder writes it (read_run.lookup)
        for src in sources:
            section = src.split("/", 1)[0] if src.split("/", 1)[0] in SECTIONS else "rollout"
            row.setdefault(section, {})[src] = round(0.1 + 0.01 * row["step"], 4)
    rec = root / "capture/gpu/first-grpo"
    rec.mkdir(parents=True)
    (rec / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (rec / "values.json").write_text(json.dumps({"schema": "values/1", **derive_values(run, rows)}))
    (rec / "log.txt").write_text("synthetic test recording\n" + "".join(  # step lines, so the pages' listings show lines
        f"rollout {r['step']}: {{'rollout/raw_reward': 0.5}}\nstep {r['step']}: {{'train/loss': 0.1}}\n"
        f"perf {r['step']}: {{'perf/step_time': 1.0}}\n" for r in rows))
    (rec / "host.json").write_text(json.dumps({
        "schema": "host/1", "gpu": "NVIDIA GB10 (test data)", "driver": "test", "cuda": "13.0",
        "memory_total_gib": 119.7, "kernel": "test", "cpu": "test", "date": "2026-12-03T00:00:00Z"}))
    (rec / "run.json").write_text(json.dumps({
        "schema": "run/1", "id": "first-grpo", "status": "valid", "command": ["docker", "run"],
        "image": run["image"], "image_digest": "sha256:test", "miles_commit": "0" * 40,
        "start": "2026-12-03T00:00:00Z", "end": "2026-12-03T01:00:00Z", "exit_code": 0,
        "steps_planned": run["steps"], "steps_done": run["steps"], "events": []}))


def _text(built, doc: str) -> str:
    import re

    html = built.html(doc)
    html = re.sub(r' title="[^"]*"', "", html)  # a value's provenance sentence, not its text
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory, manual):
    """The manual as it stands (the session's build, tests/conftest.py) and a copy with first-grpo recorded."""
    recorded = _project(tmp_path_factory.mktemp("recorded"))
    _record_first_grpo(recorded)
    return manual, build(recorded, parallel=2)


def test_both_states_build_clean(both) -> None:
    for built in both:
        assert built.app.statuscode == 0, built.warnings
        assert built.warned == [], built.warnings


@pytest.mark.parametrize("doc", ["front", "sections/1-1-run-grpo-on-one-gpu", "sections/1-3-read-your-first-ten-steps"])
def test_wording_follows_the_recording(both, doc: str) -> None:
    pending, recorded = (_text(b, doc) for b in both)
    assert pending != recorded
    assert "pending" in pending
    # once recorded, the plate's run has numbers and the pending notes about it are gone
    if doc == "front":
        assert "once it is recorded on a DGX Spark" in pending and "once it is recorded on a DGX Spark" not in recorded
        assert "runs recorded on a DGX Spark: 0 of" in pending and "runs recorded on a DGX Spark: 1 of" in recorded
        assert "No run is recorded yet, so no measured line exists yet" in pending
        assert "No run is recorded yet" not in recorded and "Until a run is recorded, its numbers show" in recorded
    else:
        assert recorded.count(" pending ") < pending.count(" pending ")
    if doc.endswith("1-3-read-your-first-ten-steps"):
        claim = "The values of the run on this page come from the run of"
        assert claim in recorded and claim not in pending


def test_the_recorded_state_shows_measured_numbers(both) -> None:
    """Every value of first-grpo is derived from the synthetic recording, and 1.1 shows numbers, not badges."""
    from miles101.intake import load_capture
    from miles101.kinds import format_value

    _, recorded = both
    capture = load_capture(Path(recorded.app.srcdir))
    values = [capture.value("measured", k) for k in capture.value_keys("measured") if k.startswith("first-grpo.")]
    assert values and all(v.value is not None for v in values), [v.key for v in values if v.value is None]
    text = _text(recorded, "sections/1-1-run-grpo-on-one-gpu")
    shown = [f"{format_value(v, '')} {v.unit}".strip() for v in values]
    assert any(s in text for s in shown), shown
    assert "not derivable" not in text


def test_no_page_claims_a_recording_before_there_is_one(both) -> None:
    """Sentences that only a recording makes true never appear in the pending build."""
    pending, _ = both
    claims = ("come from that run on a GB10", "our recorded run", "the measured run below", "we recorded")
    outdir = Path(pending.app.outdir)
    found = [f"{page.relative_to(outdir)}: {claim!r}" for page in outdir.rglob("*.html")
             for claim in claims if claim in page.read_text(encoding="utf-8")]
    assert not found, found


def test_design_assets_only_where_design_draws(both) -> None:
    """sphinx-design's tab script loads on the pages with tabs (6.1), its stylesheet on the pages that draw one
    of its components, and on no other: the folds ("Values on this page", 1.1's `{dropdown}`s) are the book's
    own native <details> (issue 61 item 2), drawn by miles101.css."""
    import re

    pending, _ = both
    assert "design-tabs.js" in pending.html("sections/6-1-split-rollout-and-training")
    out = Path(pending.app.outdir)
    component = re.compile(r'class="(?:[^"]* )?sd-')
    pages = {p.relative_to(out).with_suffix("").as_posix(): p.read_text(encoding="utf-8")
             for p in out.rglob("*.html") if "_static" not in p.parts}
    wrong = [doc for doc, html in pages.items() if ("sphinx-design.min.css" in html) != bool(component.search(html))]
    assert not wrong, f"sphinx-design's stylesheet on a page without its components, or missing where one is: {wrong}"
    assert "sphinx-design.min.css" in pages["sections/6-1-split-rollout-and-training"]
    for doc in ("front", "sections/2-1-pick-a-model-size", "sections/1-1-run-grpo-on-one-gpu"):
        html = pages[doc]
        assert "sphinx-design.min.css" not in html and "design-tabs.js" not in html, doc
        assert '<details class="m101-fold m101-values-fold">' in html.split('id="values-on-this-page"', 1)[1][:400], doc
    folds = re.findall(r'<details class="m101-fold">\s*<summary>([^<]+)</summary>', pages["sections/1-1-run-grpo-on-one-gpu"])
    assert "Why FSDP, and what Megatron adds" in folds, folds  # a page's {dropdown} is a fold too


def test_front_page_under_its_budget(both) -> None:
    """The front page and the files it links, counted as benchmarks/bench.py counts them (uncompressed, parsed
    from the built files): at most the benchmark's front_kb (250 KB, issue 61 item 2)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
    bench = sys.modules["bench"] = importlib.util.module_from_spec(spec)  # its dataclasses look themselves up
    spec.loader.exec_module(bench)
    pending, _ = both
    sizes = bench.static_weight(Path(pending.app.outdir), "front.html")
    total = sum(sizes.values())
    assert total / 1024 <= bench.TARGETS["front_kb"], sorted(sizes.items(), key=lambda kv: -kv[1])[:6]
