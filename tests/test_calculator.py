"""The fit calculator's coefficients: every number equals what _ext/miles101/derive.py derives.

The built page and its JSON are checked in a real browser by tests/browser/test_browser_calculator.py;
here the coefficients document is built from the committed capture without Sphinx's build: the
session's copy of it (`real_capture`), and copies of capture/ with other cross-check results taken in
through the session's intake cache (`intake_of`: only the changed results file is checked cold).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildutil import ROOT
from miles101 import derive
from miles101.sphinx_ext import calculator

MODELS = {m["name"]: m for m in json.loads((ROOT / "capture/miles/models.json").read_text())["models"]}
COMPUTED = json.loads((ROOT / "capture/computed.json").read_text())["values"]
FACTS = json.loads((ROOT / "capture/facts.json").read_text())["facts"]
#: The pool 2.1, 8.4 and the calculator share: CUDA's reported total on a GB10 (a public reference).
POOL = json.loads((ROOT / "capture/references/part5-8.json").read_text())["references"]["gb10_memory.cuda_total"]


@pytest.fixture(scope="module")
def doc(real_capture_copies) -> dict:
    return calculator.coefficients(real_capture_copies())


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


def test_flags_it_prints_exist_in_miles(doc: dict, real_capture) -> None:
    capture = real_capture
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


def _capture_with_results(tmp_path: Path, results: dict | None, intake_of):
    """The real capture, copied, with `results` as its only cross-check (none when None): its intake (`intake_of`)."""
    import shutil

    shutil.copytree(ROOT / "capture", tmp_path / "capture", ignore=shutil.ignore_patterns("__pycache__", "results"))
    if results is not None:
        folder = tmp_path / "capture" / "crosscheck" / "results"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "h200.json").write_text(json.dumps(results))
    return intake_of(tmp_path)


def _sweep(points: list[tuple[int, int]], phase: str = "forward_backward") -> list[dict]:
    return [{"tokens": t, "phase": phase, "status": "ok", "base_bytes": 1000, "peak_bytes": p} for t, p in points]


def test_activation_term_waits_for_a_crosscheck(tmp_path: Path, intake_of) -> None:
    assert calculator.activation_coefficients(_capture_with_results(tmp_path / "none", None, intake_of).capture) == {}
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    for run in results["models"]["qwen3-0.6B"]["runs"]:
        if run["status"] == "ok":
            ckpt = run["gradient_checkpointing"]
            per = 2 if ckpt else 5
            # a flat point (the end-of-backward plateau) and three on a line of `per` bytes per token
            run["sweep"] = _sweep([(1024, 10**9), (2048, 10**9 + 2048 * per), (4096, 10**9 + 4096 * per),
                                   (8192, 10**9 + 8192 * per)])
            run["sweep"][1]["peak_bytes"] = 2 * 10**9 + 2048 * per
            run["sweep"][2]["peak_bytes"] = 2 * 10**9 + 4096 * per
            run["sweep"][3]["peak_bytes"] = 2 * 10**9 + 8192 * per
    coeff = calculator.activation_coefficients(_capture_with_results(tmp_path / "h200", results, intake_of).capture)
    plain, ckpt = coeff["qwen3-0.6B"]["plain"], coeff["qwen3-0.6B"]["checkpointed"]
    assert plain["bytes_per_token"] == pytest.approx(5) and ckpt["bytes_per_token"] == pytest.approx(2)
    assert plain["points"] == 3  # the plateau point is left out of the fit
    assert plain["host"] == "h200"
    hosts = calculator.crosscheck_hosts(_capture_with_results(tmp_path / "h200b", results, intake_of).capture)
    assert hosts["h200"] == {"label": "checked on NVIDIA H100 80GB HBM3, not a GB10",
                             "from": "capture/crosscheck/results/h200.json"}


def test_a_slope_needs_three_activation_bound_points() -> None:
    from miles101.crosscheck_results import sweep_fit

    assert sweep_fit({"sweep": _sweep([(1024, 10**9), (2048, 2 * 10**9), (4096, 3 * 10**9)])}) is None
    fit = sweep_fit({"sweep": _sweep([(1024, 10**9), (2048, 2 * 10**9), (4096, 3 * 10**9), (8192, 5 * 10**9)])})
    assert fit["tokens"] == [2048, 4096, 8192] and fit["bytes_per_token"] == pytest.approx(10**9 / 2048)


def test_check_refuses_a_coefficient_from_another_phase() -> None:
    """A sweep point not read over forward and backward is refused by the rule --check and the build apply."""
    from miles101.crosscheck_results import crosscheck_problems, sweep_fit

    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    computed = json.loads((ROOT / "capture/computed.json").read_text())
    assert crosscheck_problems(results, computed) == []
    run = next(r for r in results["models"]["qwen3-0.6B"]["runs"] if r["status"] == "ok" and r.get("sweep"))
    run["sweep"][0]["phase"] = "optimizer"
    problems = crosscheck_problems(results, computed)
    assert len(problems) == 1, problems
    path, text = problems[0]
    assert path[-3:] == ("sweep", 0, "phase") and "'optimizer'" in text and "forward_backward" in text
    for p in run["sweep"]:
        p["phase"] = "optimizer"
    assert sweep_fit(run) is None  # and the calculator never reads it


def test_a_sweep_that_repeats_its_token_counts_is_named_not_a_traceback(tmp_path: Path, intake_of) -> None:
    """Every point at one token count left the least-squares slope dividing by zero; --check now names each repeat."""
    from miles101.crosscheck_results import crosscheck_problems, sweep_fit

    repeated = _sweep([(1024, 10**9), (2048, 2 * 10**9), (2048, 3 * 10**9), (2048, 4 * 10**9)])
    assert sweep_fit({"sweep": repeated}) is None  # one distinct token count above the plateau: no slope
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    computed = json.loads((ROOT / "capture/computed.json").read_text())
    run = next(r for r in results["models"]["qwen3-0.6B"]["runs"] if r["status"] == "ok" and r.get("sweep"))
    for p in run["sweep"]:
        p["tokens"] = 2048
    problems = crosscheck_problems(results, computed)
    assert problems and all(path[-3:-1] == ("sweep", j) and path[-1] == "tokens" and "2048 tokens again" in text
                            for j, (path, text) in enumerate(problems, start=1)), problems
    intake = _capture_with_results(tmp_path, results, intake_of)  # the build's and --check's intake: no traceback
    assert any("2048 tokens again" in p.message and "sweep[1].tokens" in p.where for p in intake.validation.problems)


def test_results_their_schema_refuses_are_not_held_against_computed_json(tmp_path: Path, intake_of) -> None:
    """A run that is not an object was named by the schema and again as an AttributeError from the comparison
    ("cannot be held against capture/computed.json"); like a run file, such results are now named once."""
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    results["models"]["qwen3-0.6B"]["runs"][0] = "x"
    said = [p for p in _capture_with_results(tmp_path, results, intake_of).validation.problems
            if "crosscheck/results/h200.json" in p.where]
    assert said and all("schema crosscheck.schema.json" in p.message for p in said), said


def test_a_run_without_allocator_peaks_gives_its_other_values(tmp_path: Path, intake_of) -> None:
    """The schema lets a run's step-2 peaks be null or absent (a CPU run reads no allocator); the values were
    divided anyway and the whole file became "records do not have the shape the book reads" (a TypeError)."""
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    run = next(r for r in results["models"]["qwen3-0.6B"]["runs"] if r["status"] == "ok" and not r["gradient_checkpointing"])
    run["peak_bytes_step2_forward_backward"] = None
    run.pop("peak_bytes_step2_optimizer")
    intake = _capture_with_results(tmp_path, results, intake_of)
    assert not [p for p in intake.problems if "crosscheck/results/h200.json" in p.where], intake.problems
    keys = intake.capture.value_keys("crosscheck")
    assert "h200.qwen3-0.6B.held" in keys and "h200.qwen3-0.6B.peak" not in keys and "h200.qwen3-0.6B.step_peak" not in keys


def test_activation_term_reads_only_validated_results(tmp_path: Path, intake_of) -> None:
    """Results their schema refuses (no host, no held state) give the calculator nothing: one reader, validated."""
    bare = {"schema": "crosscheck/1", "host": {"gpu": "NVIDIA H200"}, "models": {"qwen3-0.6B": {"runs": [
        {"status": "ok", "gradient_checkpointing": False, "tokens": 4096, "held_bytes": 1000,
         "peak_bytes_step2": 1000 + 4096 * 3}]}}}
    intake = _capture_with_results(tmp_path, bare, intake_of)
    assert calculator.activation_coefficients(intake.capture) == {}
    assert any("crosscheck/results/h200.json" in p.where for p in intake.validation.problems)


def test_fit_budget_adds_the_activation_term() -> None:
    b = derive.fit_budget(params=10**9, kv_bytes_per_token=1000, pool_bytes=128e9, threshold=0.95, fraction=0.25,
                          response_len=100, prompt_len=20, prompts=1, samples=1, activation_bytes_per_token=3,
                          micro_batch_size=2)
    assert b["micro_tokens"] == 2 * 120  # a sample is its prompt and its response
    assert b["activations"] == 3 * 2 * 120
    assert b["train"] == b["trainer"] + b["activations"]
    assert b["peak"] == max(b["rollout"], b["train"])


@pytest.mark.parametrize(("mbs", "dynamic", "cap", "seq", "want"), [
    (1, False, None, 5000, 5000),        # one sample per micro-batch
    (4, False, None, 5000, 20000),       # --micro-batch-size samples
    (4, True, 8192, 5000, 8192),         # dynamic: at most the cap, --micro-batch-size ignored
    (4, True, 4096, 5000, 5000),         # a sample longer than the cap is never split
])
def test_micro_batch_tokens(mbs: int, dynamic: bool, cap: int | None, seq: int, want: int) -> None:
    assert derive.micro_batch_tokens(seq, mbs, dynamic, cap) == want


def _qwen3_4b_at_32k(doc: dict, capture, **extra) -> dict:
    settings = calculator.run_settings(capture, doc, "model-size-sweep")
    return {**settings, "response_len": 32768, "prompt_len": 512, **extra}


def test_qwen3_4b_at_32k_names_the_training_phase(doc: dict, real_capture) -> None:
    """Issue 46: Qwen3-4B at a 32k response does not fit in training, which the verdict says, with its lever."""
    model = next(m for m in doc["models"] if m["name"] == "qwen3-4B")
    assert doc["activation_phase"] == "forward_backward" and model["activation"]["plain"]["points"] >= 3
    assert doc["crosschecks"][model["activation"]["plain"]["host"]]["label"].startswith("checked on NVIDIA")
    settings = _qwen3_4b_at_32k(doc, real_capture)
    b = calculator.budget_for(doc, model, settings)
    assert b["verdict"] == "does-not-fit" and b["over"] == ["training"] and b["phase"] == "training"
    assert b["activations"] == model["activation"]["plain"]["bytes_per_token"] * (32768 + 512)
    sentence = calculator.verdict_sentence(doc, model, settings, b)
    assert sentence.startswith(" The training phase does not fit")
    # lowering SGLang's fraction is never the lever for the training phase
    assert "--sglang-mem-fraction-static" not in sentence
    lever = calculator.lever_for(doc, model, settings)
    if lever is not None:
        assert calculator.budget_for(doc, model, {**settings, **lever["changes"]})["verdict"] != "does-not-fit"
        assert ", ".join(calculator.lever_flags(doc, lever["changes"])) in sentence


def test_qwen3_4b_at_32k_with_checkpointing_reads_the_checkpointed_slope(doc: dict, real_capture) -> None:
    model = next(m for m in doc["models"] if m["name"] == "qwen3-4B")
    settings = _qwen3_4b_at_32k(doc, real_capture, checkpointing=True)
    b = calculator.budget_for(doc, model, settings)
    slope = model["activation"]["checkpointed"]["bytes_per_token"]
    assert slope < model["activation"]["plain"]["bytes_per_token"]
    assert b["activations"] == slope * (32768 + 512)
    sentence = calculator.verdict_sentence(doc, model, settings, b)
    if b["verdict"] == "does-not-fit":
        lever = calculator.lever_for(doc, model, settings)
        if lever is None:
            assert "makes it fit: pick a smaller model" in sentence
        else:
            assert "--gradient-checkpointing" not in calculator.lever_flags(doc, lever["changes"])
            assert ", ".join(calculator.lever_flags(doc, lever["changes"])) in sentence
    else:
        assert sentence == ""


def test_lever_prefers_fewest_changes_and_checkpointing_first() -> None:
    slopes = {"plain": 8e6, "checkpointed": 1e6}
    base = dict(params=10**9, kv_bytes_per_token=1000, pool_bytes=128 * 2**30, threshold=0.95, fraction=0.25,
                response_len=16384, prompt_len=0, prompts=1, samples=1, micro_batch_size=1, checkpointing=False)
    lever = derive.fit_lever(base, slopes)
    assert lever["changes"] == {"checkpointing": True}
    # a rollout over the line: the lever is the largest two-decimal fraction that fits, never training flags
    rollout = {**base, "response_len": 10, "fraction": 0.95}
    lever = derive.fit_lever(rollout, slopes)
    assert set(lever["changes"]) == {"fraction"} and lever["changes"]["fraction"] < 0.95
    assert derive.fit_lever({**base, "params": 10**12}, slopes) is None


def test_rollout_over_names_the_rollout_phase(doc: dict, real_capture) -> None:
    model = next(m for m in doc["models"] if m["name"] == "qwen3-4B")
    settings = {**calculator.run_settings(real_capture, doc, "model-size-sweep"), "fraction": 0.9}
    b = calculator.budget_for(doc, model, settings)
    assert b["over"][0] == "rollout" and b["phase"] in b["over"]
    assert "--sglang-mem-fraction-static 0." in calculator.verdict_sentence(doc, model, settings, b)


def test_run_settings_take_one_optimizer_step_per_rollout_unless_the_run_says(doc: dict, real_capture) -> None:
    capture = real_capture
    s = calculator.run_settings(capture, doc, "model-size-sweep")
    raw, _ = capture.run_arg("model-size-sweep", "--global-batch-size")
    assert s["global_batch"] == int(raw)
    assert s["micro_batch_size"] == doc["defaults"]["micro_batch_size"] and s["checkpointing"] is False
    assert doc["limits"]["global_batch"] >= s["global_batch"]


def test_page_uses_the_directive_once() -> None:
    page = (ROOT / "sections/2-1-pick-a-model-size.md").read_text()
    assert page.count("```{fit-calculator}") == 1


@pytest.mark.parametrize("response", [256, 4096, 32768])
def test_the_worked_sum_types_no_number(doc: dict, response: int, real_capture) -> None:
    """Every number of the build's worked sum (table and verdict) is a `m101-value-cell` span, for every model
    and for each verdict (fits, held in rounds, does not fit with a lever); the editions' text has no mark left."""
    from numbercheck import typed_numbers

    settings = {**_qwen3_4b_at_32k(doc, real_capture), "response_len": response}
    seen = set()
    for model in doc["models"]:
        html = calculator.worked_sum_html(doc, model, settings, "model-size-sweep")
        assert "m101-value-cell" in html
        assert typed_numbers(f"<article>{html}</article>") == [], model["name"]
        b = calculator.budget_for(doc, model, settings)
        seen.add(b["verdict"])
        rows, _ = calculator.worked_sum_rows(doc, model, settings)
        text = " ".join(" ".join(r) for r in rows) + calculator.worked_sum_verdict(b, lever=calculator.verdict_sentence(doc, model, settings, b))
        assert calculator.OPEN not in text and calculator.CLOSE not in text
    assert {"fits", "does-not-fit"} <= seen
