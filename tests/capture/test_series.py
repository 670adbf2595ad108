"""The public series kind: verl's console step lines read into capture/series/<id>.json, re-derived by --check.

The committed excerpt (capture/series/sources/) holds exact lines of the public log
https://github.com/eric-haibin-lin/verl-data/blob/a7e3f99db92f556e79628385dcd4c71d567a6c58/gsm8k/Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log
(git blob 47ddd762db3547456afdac1cb156186f9fa15741), each after its line number there. No network.
"""
from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from capture.extract import series as extract
from miles101 import capturefiles, kinds, schemas
from miles101.series import parse_lines, parse_step_line, read_excerpt, rederive, series_document
from miles101.tools import read_run

ROOT = Path(__file__).resolve().parents[2]
SERIES_ID = "verl-gsm8k-qwen2.5-0.5b-ppo"
SERIES = ROOT / "capture" / "series" / f"{SERIES_ID}.json"
EXCERPT = ROOT / "capture" / "series" / "sources" / f"{SERIES_ID}.log.gz"
SCHEMA = json.loads((ROOT / "_ext" / "miles101" / "schema" / "series.schema.json").read_text())
#: Lines copied from the public GRPO-LoRA log (test data; the indentation of its config lines retyped):
#: eric-haibin-lin/verl-data@bf76dddc4e0119693632a147abab27f303dd2c13,
#: gsm8k/Qwen2.5-0.5B-bsz64_2-prompt512-resp1024-lorarank32-score0.543.log (its script: header, config dump,
#: a wandb summary line and its last step line).
LORA_LINES = Path(__file__).parent / "fixtures" / "verl-grpo-lora-0.5b-lines.txt"
#: The same log kept as a partial series: its excerpt locates each line by the 16,000-character window of the
#: file's text (2,031,054 characters) that holds it, as the log was read in windows, not whole.
LORA_ID = "verl-gsm8k-qwen2.5-0.5b-grpo-lora"
LORA_SERIES = ROOT / "capture" / "series" / f"{LORA_ID}.json"
LORA_EXCERPT = ROOT / "capture" / "series" / "sources" / f"{LORA_ID}.log.gz"


def _doc() -> dict:
    return json.loads(SERIES.read_text(encoding="utf-8"))


def test_the_committed_series_follows_its_schema_and_is_its_excerpt_parsed_again() -> None:
    doc = _doc()
    jsonschema.validate(doc, SCHEMA)
    assert rederive(ROOT, f"capture/series/{SERIES_ID}.json", doc) == []
    assert extract.build(SERIES_ID) == doc, "python3 -m capture.extract.series gives the committed file"


def test_a_sample_of_points_matches_the_public_logs_own_step_lines() -> None:
    """Every 40th step line of the excerpt, read with a plain split here, against the committed columns."""
    doc = _doc()
    rows = [line for _, line in read_excerpt(EXCERPT) if " step:" in line]
    assert len(rows) == len(doc["steps"]) == 435 and doc["steps"] == list(range(435))
    for line in rows[::40]:
        body = line.split(" step:", 1)[1]
        step = int(body.split(" - ", 1)[0])
        for pair in body.split(" - ")[1:]:
            key, _, value = pair.rpartition(":")
            assert doc["metrics"][key][doc["steps"].index(step)] == float(value), (step, key)
    score = doc["metrics"]["critic/score/mean"]
    assert (score[0], score[434]) == (0.012, 0.707)  # the first and last lines of the public log's step:0 / step:434


def test_the_provenance_and_settings_are_the_logs_own() -> None:
    doc = _doc()
    assert doc["source"]["repository"] == "eric-haibin-lin/verl-data" and doc["source"]["branch"] == "experiments"
    assert doc["source"]["path"].startswith("gsm8k/") and doc["source"]["commit"] in doc["source"]["url"]
    assert doc["gpu"] is None and "does not state the GPU" in doc["gpu_note"]
    assert doc["framework"] == "verl" and doc["framework_commit"] == "50ac7252f97cf39997344237bca74162b2dc6d79"
    assert doc["settings"] == {"adv_estimator": "gae", "gpus": 1, "lr": 1e-06, "method": "PPO",
                               "samples_per_prompt": 1, "test_freq": 10, "train_batch_size": 256}
    lines = dict(read_excerpt(EXCERPT))
    assert lines[1] == "commit:" and lines[4] == "command:" and "trainer.n_gpus_per_node=1" in lines[5]
    assert "'lr': 1e-06" in lines[16] and "'adv_estimator': 'gae'" in lines[51]


def test_a_grpo_lora_log_gives_its_method_rank_rate_and_samples_and_skips_the_wandb_summary() -> None:
    lines = LORA_LINES.read_text(encoding="utf-8").splitlines()
    parsed = parse_lines(list(enumerate(lines, 1)))
    doc = series_document({"id": "x"}, parsed)
    assert doc["settings"]["method"] == "GRPO-LoRA" and doc["settings"]["lora_rank"] == 32
    assert doc["settings"]["lr"] == 3e-05 and doc["settings"]["samples_per_prompt"] == 5 and doc["settings"]["gpus"] == 2
    assert doc["steps"] == [116]  # the wandb: summary line (0.57812) is never read
    assert doc["metrics"]["critic/score/mean"] == [0.578] and doc["metrics"]["val-core/openai/gsm8k/reward/mean@1"] == [0.543]


@pytest.mark.parametrize("text, want", [
    ("step:3 - a:1.5 - b:nan - c:oops - d:inf", {"a": 1.5, "b": None, "c": None, "d": None}),
    ("(TaskRunner pid=1) step:7 - critic/lr(1e-4):0.100", {"critic/lr(1e-4)": 0.1}),
])
def test_a_value_that_is_not_a_finite_number_is_a_gap_and_is_named(text: str, want: dict) -> None:
    step, metrics, bad = parse_step_line(text)
    assert metrics == want
    assert len(bad) == sum(v is None for v in want.values())


def test_lines_that_only_look_like_steps_are_not_read() -> None:
    for line in ("Let's solve this equation step by step:", "Let's start with the first step:",
                 "wandb: step:3 - a:1", "(TaskRunner pid=1) wandb:   critic/score/mean 0.5"):
        assert parse_step_line(line) is None or "wandb" not in line, line
    parsed = parse_lines([(1, "step:1 - a:1"), (2, "step:1 - a:2"), (3, "step:3 - a:x")])
    assert parsed.steps == {1: {"a": 1.0}, 3: {"a": None}}
    assert set(parsed.unread) == {2, 3}


def test_a_tampered_series_or_excerpt_fails_naming_the_place(tmp_path: Path) -> None:
    (tmp_path / "capture" / "series" / "sources").mkdir(parents=True)
    shutil.copy(EXCERPT, tmp_path / "capture" / "series" / "sources" / EXCERPT.name)
    doc = _doc()
    doc["metrics"]["critic/score/mean"][5] = 0.9
    why = rederive(tmp_path, "capture/series/x.json", doc)
    assert len(why) == 1 and "$.metrics['critic/score/mean'][5] (step 5)" in why[0]
    (tmp_path / EXCERPT.relative_to(ROOT)).write_bytes(gzip.compress(b"no number here\n", mtime=0))
    assert "does not start with the public file's line number" in rederive(tmp_path, "capture/series/x.json", _doc())[0]


def test_series_is_a_kind_of_its_own_not_a_reference_read_run_globs() -> None:
    row = kinds.kind("series")
    assert not row.role and not row.value
    assert capturefiles.input_row(f"capture/series/{SERIES_ID}.json").kinds == ("series",)
    assert schemas.schema_name_for(f"capture/series/{SERIES_ID}.json") == "series.schema.json"
    refs = read_run.load_references(str(ROOT))
    assert not any(re.search("series|" + re.escape(SERIES_ID), key) for key in refs)
    assert not any(isinstance(rec, dict) and "metrics" in rec for rec in refs.values())


def test_the_grpo_lora_series_is_its_excerpt_parsed_again_with_its_own_settings() -> None:
    doc = json.loads(LORA_SERIES.read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    assert rederive(ROOT, f"capture/series/{LORA_ID}.json", doc) == []
    assert extract.build(LORA_ID) == doc
    assert doc["source"]["commit"] == "bf76dddc4e0119693632a147abab27f303dd2c13" and doc["source"]["blob"] is None
    assert doc["source"]["branch"] == "experiments" and doc["source"]["path"] in doc["source"]["url"]
    assert doc["gpu"] is None and "does not state the GPU" in doc["gpu_note"] and doc["framework_commit"] is None
    assert doc["settings"] == {"adv_estimator": "grpo", "gpus": 2, "lora_rank": 32, "lr": 3e-05, "method": "GRPO-LoRA",
                               "samples_per_prompt": 5, "test_freq": 5, "train_batch_size": 64}
    assert "steps between are not in this series" in doc["partial"]


def test_a_sample_of_grpo_lora_points_matches_the_public_logs_own_step_lines() -> None:
    """Each step line of the excerpt read with a plain split, against the committed columns; and values as the
    public log prints them (its step:116 line agrees with its own wandb summary, 0.57812 and 0.54284)."""
    doc = json.loads(LORA_SERIES.read_text(encoding="utf-8"))
    rows = [(where, line) for where, line in read_excerpt(LORA_EXCERPT) if " step:" in line]
    assert all(isinstance(where, str) and where.startswith("@") for where, _ in rows)
    assert doc["steps"] == [0, 1, 2, 20, 21, 22, 23, 70, 71, 72, 116] and len(rows) == len(doc["steps"])
    for _, line in rows[::3]:
        body = line.split(" step:", 1)[1]
        step = int(body.split(" - ", 1)[0])
        for pair in body.split(" - ")[1:]:
            key, _, value = pair.rpartition(":")
            assert doc["metrics"][key][doc["steps"].index(step)] == float(value), (step, key)
    at = dict(zip(doc["steps"], doc["metrics"]["critic/score/mean"]))
    assert (at[0], at[1], at[20], at[70], at[116]) == (None, 0.013, 0.512, 0.622, 0.578)
    val = dict(zip(doc["steps"], doc["metrics"]["val-core/openai/gsm8k/reward/mean@1"]))
    assert (val[0], val[20], val[21], val[116]) == (0.001, 0.443, None, 0.543)


def test_an_excerpt_line_without_a_number_or_a_window_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "x.log"
    bad.write_text("@12\tstep:1 - a:1\n@x\tstep:2 - a:2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="x.log: excerpt line 2"):
        read_excerpt(bad)


@pytest.mark.parametrize("run_id", ["first-grpo", "recipe-gsm8k"])
def test_what_the_pages_say_of_the_grpo_lora_run_beside_the_books_holds(real_capture, run_id: str) -> None:
    """1.3, 3.1 and 5.1 say the public GRPO-LoRA run trains LoRA adapters at a higher learning rate than the book's
    runs (1.3: with fewer samples per prompt), beside captions that say "GRPO on every weight, no LoRA". Each caption
    gives both values (the series' generated, the book's by {run-arg}); this holds the words to them."""
    s = json.loads(LORA_SERIES.read_text(encoding="utf-8"))["settings"]
    lr, _ = real_capture.run_arg(run_id, "--lr")
    n, _ = real_capture.run_arg(run_id, "--n-samples-per-prompt")
    assert lr is not None and s["lr"] > float(lr), (run_id, lr, s["lr"])
    assert n is not None and s["samples_per_prompt"] < int(n), (run_id, n, s["samples_per_prompt"])
    assert s["lora_rank"] > 0 and real_capture.run_arg(run_id, "--lora-rank")[0] in (None, "0")
    assert real_capture.run_arg(run_id, "--advantage-estimator")[0] == s["adv_estimator"] == "grpo"
