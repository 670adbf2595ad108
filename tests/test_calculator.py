"""The fit calculator's coefficients: every number equals what _ext/miles101/derive.py derives.

The built page and its JSON are checked in a real browser by tests/browser/test_browser_calculator.py;
here the coefficients document is built from the committed capture without Sphinx's build.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildutil import ROOT
from miles101 import derive
from miles101.sphinx_ext import calculator
from miles101.intake import load_capture
from miles101.validate import validate_capture

MODELS = {m["name"]: m for m in json.loads((ROOT / "capture/miles/models.json").read_text())["models"]}
COMPUTED = json.loads((ROOT / "capture/computed.json").read_text())["values"]
FACTS = json.loads((ROOT / "capture/facts.json").read_text())["facts"]
#: The pool 2.1, 8.4 and the calculator share: CUDA's reported total on a GB10 (a public reference).
POOL = json.loads((ROOT / "capture/references/part5-8.json").read_text())["references"]["gb10_memory.cuda_total"]


@pytest.fixture(scope="module")
def doc() -> dict:
    return calculator.coefficients(load_capture(ROOT))


def test_every_model_with_computed_sizes_is_offered(doc: dict) -> None:
    offered = {m["name"] for m in doc["models"]}
    expected = {k.split(".", 1)[1] for k in COMPUTED if k.startswith("params.")}
    assert offered == expected
    assert all(derive.skip_reason(MODELS[name]) is None for name in offered)


def test_model_coefficients_equal_derive(doc: dict) -> None:
    for m in doc["models"]:
        shape = MODELS[m["name"]]
        assert m["params"] == derive.parameter_count(shape), m["name"]
        assert m["kv_bytes_per_token"] == derive.kv_bytes_per_token(shape), m["name"]
        if shape.get("experts"):
            assert m["params_active"] == derive.parameter_count(shape, active=True), m["name"]
        # the trainer column of the computed table, to the byte (computed.json holds GiB, as the calculator shows)
        assert COMPUTED[f"trainer_state.{m['name']}"]["unit"] == COMPUTED[f"rollout_weights.{m['name']}"]["unit"] == "GiB"
        assert m["params"] * doc["bytes_per_param"]["trainer_fp32_master"] / derive.GIB == \
            COMPUTED[f"trainer_state.{m['name']}"]["value"]
        assert m["params"] * doc["bytes_per_param"]["weights"] / derive.GIB == \
            COMPUTED[f"rollout_weights.{m['name']}"]["value"]


def test_constants_equal_derive_and_facts(doc: dict) -> None:
    assert doc["bytes_per_param"] == {
        "trainer_fp32_master": derive.TRAINER_BYTES_PER_PARAM,
        "trainer_no_master": derive.TRAINER_BYTES_PER_PARAM_NO_MASTER,
        "weights": derive.BF16_BYTES, "reference": derive.REFERENCE_BYTES_PER_PARAM}
    assert POOL["unit"] == "GiB" and doc["pool"]["reference"] == calculator.POOL_KEY == "gb10_memory.cuda_total"
    assert doc["pool"]["bytes"] == POOL["value"] * derive.GIB
    assert doc["threshold"]["value"] == FACTS["ray.memory_usage_threshold"]["value"]
    assert doc["gib"] == derive.GIB


def test_flags_it_prints_exist_in_miles(doc: dict) -> None:
    capture = load_capture(ROOT)
    for name in doc["flags"].values():
        assert capture.flag(name), name
    assert doc["defaults"]["micro_batch_size"] == capture.flag("--micro-batch-size")[0]["default"]


def test_kv_cell_matches_sglang_formula() -> None:
    m = MODELS["qwen3-4B"]
    assert derive.kv_bytes_per_token(m) == 2 * m["layers"] * m["kv_heads"] * m["head_dim"] * 2


@pytest.mark.parametrize(("settings", "verdict"), [
    ({"fraction": 0.25, "response_len": 256, "prompts": 8, "samples": 8}, "fits"),
    ({"fraction": 0.9, "response_len": 256, "prompts": 8, "samples": 8}, "does-not-fit"),
    ({"fraction": 0.001, "response_len": 256, "prompts": 8, "samples": 8}, "does-not-fit"),  # weights do not fit
])
def test_budget_verdicts(doc: dict, settings: dict, verdict: str) -> None:
    model = next(m for m in doc["models"] if m["name"] == "qwen3-4B")
    b = calculator.budget_for(doc, model, settings)
    assert b["verdict"] == verdict
    assert b["rollout"] == b["trainer"] + b["share"]
    assert b["peak"] == (b["rollout"] if b["train"] is None else max(b["rollout"], b["train"]))
    assert b["margin"] == doc["threshold"]["value"] * doc["pool"]["bytes"] - b["peak"]
    if b["kv"] > 0:
        assert b["kv_tokens"] == int(b["kv"] // model["kv_bytes_per_token"])
    else:
        assert b["kv_tokens"] is None


def test_tight_band_is_one_bf16_copy(doc: dict) -> None:
    model = next(m for m in doc["models"] if m["name"] == "qwen3-4B")
    base = {"response_len": 256, "prompts": 8, "samples": 8}
    limit = doc["threshold"]["value"] * doc["pool"]["bytes"]
    trainer = model["params"] * doc["bytes_per_param"]["trainer_fp32_master"]
    weights = model["params"] * doc["bytes_per_param"]["weights"]
    # a fraction that leaves half a bf16 copy under the kill line
    fraction = (limit - trainer - weights / 2) / doc["pool"]["bytes"]
    assert calculator.budget_for(doc, model, {**base, "fraction": fraction})["verdict"] == "tight"


def test_no_master_halves_the_trainer(doc: dict) -> None:
    model = doc["models"][0]
    s = {"fraction": 0.25, "response_len": 1, "prompts": 1, "samples": 1}
    on = calculator.budget_for(doc, model, {**s, "fp32_master": True})
    off = calculator.budget_for(doc, model, {**s, "fp32_master": False})
    assert off["trainer"] * 2 == on["trainer"]


def _capture_with_results(tmp_path: Path, results: dict | None):
    """The real capture, copied, with `results` as its only cross-check (none when None)."""
    import shutil

    shutil.copytree(ROOT / "capture", tmp_path / "capture", ignore=shutil.ignore_patterns("__pycache__", "results"))
    if results is not None:
        folder = tmp_path / "capture" / "crosscheck" / "results"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "h200.json").write_text(json.dumps(results))
    return load_capture(tmp_path)


def test_activation_term_waits_for_a_crosscheck(tmp_path: Path) -> None:
    assert calculator.activation_coefficients(_capture_with_results(tmp_path / "none", None)) == {}
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h200.json").read_text())
    run = next(r for r in results["models"]["qwen3-0.6B"]["runs"]
               if r["status"] == "ok" and not r["gradient_checkpointing"])
    run["peak_bytes_step2"] = run["held_bytes"] + run["tokens"] * 3
    coeff = calculator.activation_coefficients(_capture_with_results(tmp_path / "h200", results))
    assert coeff["qwen3-0.6B"]["bytes_per_token"] == 3
    assert coeff["qwen3-0.6B"]["label"] == "checked on NVIDIA H200, not a GB10"
    assert coeff["qwen3-0.6B"]["from"] == "capture/crosscheck/results/h200.json"


def test_activation_term_reads_only_validated_results(tmp_path: Path) -> None:
    """Results their schema refuses (no host, no held state) give the calculator nothing: one reader, validated."""
    bare = {"schema": "crosscheck/1", "host": {"gpu": "NVIDIA H200"}, "models": {"qwen3-0.6B": {"runs": [
        {"status": "ok", "gradient_checkpointing": False, "tokens": 4096, "held_bytes": 1000,
         "peak_bytes_step2": 1000 + 4096 * 3}]}}}
    capture = _capture_with_results(tmp_path, bare)
    assert calculator.activation_coefficients(capture) == {}
    assert any("crosscheck/results/h200.json" in p.where for p in validate_capture(tmp_path).problems)


def test_fit_budget_adds_the_activation_term() -> None:
    b = derive.fit_budget(params=10**9, kv_bytes_per_token=1000, pool_bytes=128e9, threshold=0.95, fraction=0.25,
                          response_len=100, prompts=1, samples=1, activation_bytes_per_token=3, micro_batch_size=2)
    assert b["activations"] == 3 * 2 * 100
    assert b["train"] == b["trainer"] + b["activations"]
    assert b["peak"] == max(b["rollout"], b["train"])


def test_page_uses_the_directive_once() -> None:
    page = (ROOT / "sections/2-1-pick-a-model-size.md").read_text()
    assert page.count("```{fit-calculator}") == 1
