"""Metric keys: literals, f-string patterns, prefix expansion through helpers, timer names."""
from __future__ import annotations

import re
from pathlib import Path

import miles101.tools.miles_tree as metrics_mod  # the scanner lives in the served module
from capture.extract.metrics import extract_metrics
from capture.extract.source import Source

TREE = Path(__file__).parent / "fixtures" / "metrictree"


def keys(monkeypatch) -> dict[str, dict]:
    monkeypatch.setattr(metrics_mod, "TIMER_RULE", ("miles/logging_fixture.py", "perf/", "_time"))
    blobs = {p.relative_to(TREE).as_posix(): p.read_bytes() for p in TREE.rglob("*.py")}
    src = Source(commit="0" * 40, commit_date="2026-01-01", read_from="checkout", blobs=blobs)
    return {m["key"]: m for m in extract_metrics(src)}


def test_literals_and_expansions(monkeypatch):
    found = keys(monkeypatch)
    for key in ["train/step", "rollout/truncated_ratio", "rollout/length/mean", "rollout/length/max",
                "rollout/async/queue", "perf/train_time"]:
        assert found[key]["kind"] == "literal", key
        assert found[key]["regex"] is None
    assert found["rollout/length/mean"]["file"] == "miles/stats.py"
    assert found["train/step"]["line"] == 23 and found["train/step"]["prefix"] == "train"


def test_patterns(monkeypatch):
    found = keys(monkeypatch)
    drop = found["rollout/drop_<reason>"]
    assert (drop["kind"], drop["regex"]) == ("pattern", "^rollout/drop_.+$")
    assert found["perf/<key>"]["regex"] == "^perf/.+$"  # a prefix over a dict the scanner cannot see


def test_paths_and_bare_prefixes_are_not_keys(monkeypatch):
    found = keys(monkeypatch)
    assert not [k for k in found if k.endswith(".pt") or k.endswith("/") or k.endswith("-")]
    assert "eval/<key>" in found  # the key beside the two prefixes f"eval/{key}/" and f"eval/{key}-"
    assert "perf/<key>_time" not in found  # replaced by the timer names
    assert list(found) == sorted(found)


def test_fstring_hole_bound_to_call_site_values(monkeypatch):
    found = keys(monkeypatch)
    # key="" (the default) and key="effective_" at the two call sites: literal keys, the empty one included
    for key in ["perf/tokens_per_sec", "perf/effective_tokens_per_sec", "perf/longest_sample",
                "perf/longest_effective_sample"]:
        assert found[key]["kind"] == "literal", key
        assert found[key]["file"] == "miles/perf_fixture.py"
    assert not [k for k in found if "<key>tokens" in k]
    # a call site passes a runtime value, and the default is "": the hole may be empty
    free = found["perf/<tag>free_rate"]
    assert (free["kind"], free["regex"]) == ("pattern", "^perf/.*free_rate$")
    assert re.fullmatch(free["regex"], "perf/free_rate")


def test_prefixing_helper_and_rollout_batch_keys(monkeypatch):
    monkeypatch.setattr(metrics_mod, "BATCH_RULE", ("miles/batch_fixture.py", "convert", "train_data"))
    found = keys(monkeypatch)
    rollout = {k for k in found if k.startswith("rollout/")} - {"rollout/length/mean", "rollout/length/max",
                                                                  "rollout/truncated_ratio", "rollout/async/queue",
                                                                  "rollout/drop_<reason>"}
    # the builder's keys, a RolloutBatch parameter's key, the keys the loop tests for; minus the skipped ones
    assert rollout == {"rollout/rewards", "rollout/truncated", "rollout/response_lengths", "rollout/advantages",
                       "rollout/log_probs"}
    assert found["rollout/response_lengths"]["file"] == "miles/batch_fixture.py"
    assert found["rollout/advantages"]["line"] == 17  # where the batch gets it, before the loop's own list
    assert found["multi_turn/rounds/mean"]["kind"] == "literal"
    unknown = found["multi_turn/<key>"]
    assert (unknown["kind"], unknown["regex"]) == ("pattern", "^multi_turn/.+$")
    assert "extra" in unknown["note"]
