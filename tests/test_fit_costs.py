"""What the calculator says of its own fixes and of its own error (issue 56, item 5).

- ``--no-keep-fp32-master`` costs learning: it is offered only after the levers that cost nothing, with the
  measured share of bf16 weights that moved beside it, and never where Miles refuses it;
- the training term's error band comes from a leave-out check over the cross-check sweeps, and the verdict
  stays on its safe side; near the line it names the allocator setting for the trainer alone;
- the smaller items: the rounds come with the tokens they cost.
"""
from __future__ import annotations

import json

import pytest

from buildutil import ROOT
from miles101 import crosscheck_results, derive, master_copy
from miles101.sphinx_ext import calculator

ALLOCATOR = """--train-env-vars '{"PYTORCH_CUDA_ALLOC_CONF":"expandable_segments:True"}'"""
SCHEMA = json.loads((ROOT / "_ext/miles101/schema/master-copy.schema.json").read_text())


@pytest.fixture(scope="module")
def doc(real_capture_copies) -> dict:
    return calculator.coefficients(real_capture_copies())


def _settings(doc: dict, capture, **extra) -> dict:
    return {**calculator.run_settings(capture, doc, "model-size-sweep"), **extra}


def _model(doc: dict, name: str) -> dict:
    return next(m for m in doc["models"] if m["name"] == name)


# ------------------------------------------------------------------------------------------ the master copy
def _results(share_master: float = 0.5, share_no: float = 0.01) -> dict:
    part = lambda share: {"params": 1000, "changed": int(share * 1000), "changed_share": share,  # noqa: E731
                          "relative_change_norm": share / 100}
    arm = lambda keep, share: {"keep_fp32_master": keep, "param_dtype": "torch.float32" if keep else "torch.bfloat16",  # noqa: E731
                               "grad_dtype": "torch.float32" if keep else "torch.bfloat16",
                               "optimizer_state_dtype": "torch.float32" if keep else "torch.bfloat16",
                               "losses": [12.0], "grad_norms": [1.0], "seconds": 1.0,
                               "at": {str(n): {"all": part(share), "matrices": part(share), "vectors": part(0.0)}
                                      for n in (1, 10, 100)}}
    return {"schema": "master-copy/1",
            "host": {"device": "cuda", "torch": "2.11.0", "cuda": "13.0", "transformers": "5.17.0", "python": "3.12",
                     "date": "2026-12-07", "gpu": "NVIDIA H200", "gpu_memory_bytes": 1},
            "setup": {"miles_commit": "0" * 40, "optimizer": {"name": "torch.optim.AdamW", "lr": 1e-6,
                                                              "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.0},
                      "clip_grad": 1.0, "lr_schedule": "constant", "compute_dtype": "bfloat16", "reduce_dtype": "float32",
                      "gradient": "real backward", "program": "python3 -m capture.crosscheck.master_copy",
                      "date": "2026-12-07", "sites": {"optimizer": "miles/backends/fsdp_utils/actor.py:177-186"},
                      "departures": ["random weights"]},
            "models": {"qwen3-0.6B": {"model": "qwen3-0.6B", "model_record": "scripts/models/qwen3-0.6B.py:1",
                                      "hf_class": "Qwen3ForCausalLM", "params": 1000,
                                      "init": {"weights": "normal", "initializer_range": 0.02}, "steps": 100,
                                      "tokens_per_step": 1024, "checkpoints": [1, 10, 100],
                                      "arms": {"master": arm(True, share_master), "no_master": arm(False, share_no)}}}}


def test_master_copy_results_follow_their_schema_and_give_crosscheck_values() -> None:
    import jsonschema

    doc = _results()
    jsonschema.validate(doc, SCHEMA)
    bad = json.loads(json.dumps(doc))
    del bad["models"]["qwen3-0.6B"]["arms"]["no_master"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
    values = master_copy.master_copy_values("h200", doc)
    value, unit, what, detail = values["h200.qwen3-0.6B.bf16_moved_no_master_100"]
    assert value == 0.01 and unit == "" and "without the fp32 master copy" in what
    assert detail["gpu"] == "NVIDIA H200" and detail["file"] == "capture/crosscheck/master_copy/h200.json"
    assert values["h200.qwen3-0.6B.bf16_moved_master_10"][0] == 0.5
    assert master_copy.flag_number(1e-6) == "1e-6"


def test_every_committed_master_copy_file_follows_its_schema(real_capture) -> None:
    """Each host's results follow the schema and the book's recipe: its --lr, as many steps as its rollouts."""
    import jsonschema

    lr, _ = real_capture.run_arg("recipe-gsm8k", "--lr")
    rollouts, _ = real_capture.run_arg("recipe-gsm8k", "--num-rollout")
    for path in sorted((ROOT / "capture/crosscheck/master_copy").glob("*.json")):
        doc = json.loads(path.read_text())
        jsonschema.validate(doc, SCHEMA)
        for name, model in doc["models"].items():
            assert model["steps"] >= 100 and {1, 10, 100} <= set(model["checkpoints"]), path
            assert model["arms"]["no_master"]["param_dtype"] == "torch.bfloat16", path
            assert model["arms"]["no_master"]["optimizer_state_dtype"] == "torch.bfloat16", path
            assert model["arms"]["master"]["optimizer_state_dtype"] == "torch.float32", path
            assert doc["setup"]["optimizer"]["lr"] == float(lr) and model["steps"] == int(rollouts), path
            assert doc["host"]["gpu"] or doc["host"]["device"] == "cpu", path


def _slopes() -> dict:
    return {"plain": 2e6, "checkpointed": 1e6}


def _base(**extra) -> dict:
    """6.2 B parameters, a tenth of a 128 GiB pool for SGLang, two 16k samples a micro-batch: over in training."""
    return {**dict(params=62 * 10**8, kv_bytes_per_token=1000, pool_bytes=128 * 2**30, threshold=0.95, fraction=0.1,
                   response_len=16384, prompt_len=0, prompts=1, samples=1, micro_batch_size=2, checkpointing=False),
            **extra}


def _budget(inputs: dict, **changes) -> dict:
    return derive._budget_of({**inputs, **changes}, _slopes())


def test_the_master_copy_comes_after_every_free_lever() -> None:
    """Dropping the master copy alone fits (one change); checkpointing alone does not, checkpointing with one
    sample a micro-batch does (two changes, no cost in learning): the lever is the free pair."""
    base = _base()
    assert _budget(base)["verdict"] == "does-not-fit"
    assert _budget(base, fp32_master=False)["verdict"] == "fits"
    assert _budget(base, checkpointing=True)["verdict"] == "does-not-fit"
    lever = derive.fit_lever(base, _slopes())
    assert lever["changes"] == {"checkpointing": True, "micro_batch_size": 1}, lever["changes"]
    # where no free lever fits, the master copy is offered
    alone = _base(micro_batch_size=1, response_len=32768)
    assert derive.fit_lever(alone, _slopes())["changes"] == {"fp32_master": False}


def test_the_master_copy_is_never_offered_where_miles_refuses_it(doc: dict, real_capture) -> None:
    alone = _base(micro_batch_size=1, response_len=32768)
    assert derive.fit_lever({**alone, "master_required": True}, _slopes()) is None
    model = _model(doc, "qwen3-8B")
    settings = _settings(doc, real_capture, response_len=16384, prompt_len=512, true_on_policy=True)
    assert calculator.master_required(model, settings)
    b = calculator.budget_for(doc, model, settings)
    sentence = calculator.verdict_sentence(doc, model, settings, b)
    assert b["verdict"] == "does-not-fit" and "--no-keep-fp32-master is not offered" in sentence
    assert "--true-on-policy-mode" in sentence
    lever = calculator.lever_for(doc, model, settings)
    assert lever is None or "fp32_master" not in lever["changes"]
    # a MoE model is not under the Qwen3 dense contract
    assert not calculator.master_required(_model(doc, "qwen3-30B-A3B"), settings)


def test_the_cost_is_shown_beside_the_master_copy(doc: dict, real_capture) -> None:
    """The issue's page state: Qwen3-8B with a 16k response cap. The verdict offers --no-keep-fp32-master last,
    and says what it costs, with the measured figure where the capture holds one."""
    model = _model(doc, "qwen3-8B")
    settings = _settings(doc, real_capture, response_len=16384, prompt_len=512)
    b = calculator.budget_for(doc, model, settings)
    lever = calculator.lever_for(doc, model, settings)
    assert b["verdict"] == "does-not-fit" and lever["changes"].get("fp32_master") is False
    sentence = calculator.verdict_sentence(doc, model, settings, b)
    assert "--no-keep-fp32-master" in sentence and "comes last because it costs learning" in sentence
    figures = doc["master_copy"]
    if not figures:
        assert "(not measured yet)" in sentence
        return
    name = sorted(figures)[0] if model["name"] not in figures else model["name"]
    f = figures[name]
    assert f"{f['no_master']:.1%} of {name}'s bf16 weights had changed without it" in sentence
    assert f"against {f['master']:.1%} with it" in sentence and f["gpu"] in sentence
    assert f"after {f['steps']} optimizer steps at --lr {f['lr_text']}" in sentence
    assert f["no_master"] < f["master"]  # the measurement says what the issue feared: the bf16 weights stay put


# ------------------------------------------------------------------------------------------ the error band
def test_band_is_a_leave_out_check_over_the_sweeps(doc: dict, real_capture) -> None:
    band = doc["band"]
    assert band and band["low"] <= band["high"] and band["checks"] > 20 and band["models"] >= 5
    params = {m["name"]: m["params"] for m in doc["models"]}
    state = real_capture.value("computed", "bytes_per_param.trainer_state").value
    moments = real_capture.value("computed", "bytes_per_param.adam_moments").value
    checks = [c for host in sorted(real_capture.crosschecks)
              for c in crosscheck_results.leave_out_checks(real_capture.crosschecks[host], params, state, moments)]
    assert min(c["ratio"] for c in checks) == band["low"] and max(c["ratio"] for c in checks) == band["high"]
    kinds = {c["kind"] for c in checks}
    assert kinds == {"left out of the fit", "below the fitted range", "a training step with the state held"}


def test_a_left_out_point_is_predicted_without_it() -> None:
    """Four points on a line of 1000 bytes per token, one of them 10 % high: left out, the line through the
    other three predicts it, and its ratio is its own excess over that prediction."""
    state_bpp, params = 16, 100
    sweep = [{"tokens": t, "phase": "forward_backward", "status": "ok", "base_bytes": 0,
              "peak_bytes": int((10_000 + 1000 * t) * (1.1 if t == 400 else 1))} for t in (100, 200, 300, 400)]
    doc = {"models": {"m": {"runs": [{"status": "ok", "gradient_checkpointing": False, "tokens": 400, "sweep": sweep,
                                      "sweep_optimizer_state": "held"}]}}}
    checks = crosscheck_results.leave_out_checks(doc, {"m": params}, state_bpp, 8)
    left = next(c for c in checks if c["tokens"] == 400 and c["kind"] == "left out of the fit")
    # the other three lie on 10,000 + 1000 t; the calculator's estimate is the state plus the slope times the tokens
    assert left["ratio"] == pytest.approx(1.1 * (10_000 + 400_000) / (params * state_bpp + 1000 * 400))


def test_the_verdict_stays_on_the_safe_side_of_the_band() -> None:
    args = dict(params=10**9, kv_bytes_per_token=1000, pool_bytes=100 * 2**30, threshold=1.0, fraction=0.1,
                response_len=1000, prompts=1, samples=1, activation_bytes_per_token=70 * 2**30 / 1000)
    plain = derive.fit_budget(**args)
    assert plain["verdict"] != "does-not-fit"
    # the band says the estimate can run 30 % low: training is counted at its top, and no longer fits
    high = derive.fit_budget(**args, train_low=0.9, train_high=1.3)
    assert plain["train"] * 1.3 > plain["limit"] and high["verdict"] == "does-not-fit" and "training" in high["over"]
    # a band wholly below one never makes the estimate smaller
    low = derive.fit_budget(**args, train_low=0.8, train_high=0.95)
    assert low["peak"] == plain["peak"]


def test_the_h100_run_that_ran_out_of_memory_is_near_the_line(doc: dict) -> None:
    """The issue's case: Qwen3-0.6B, checkpointing, 36,864 tokens; estimated training term below the 79.18 GiB
    card, out of memory with the default allocator, fit with expandable segments. On that card (the whole card,
    no SGLang share) the band puts it near the line: tight, with the allocator setting named."""
    model = _model(doc, "qwen3-0.6B")
    slope = model["activation"]["checkpointed"]["bytes_per_token"]
    band = doc["band"]
    b = derive.fit_budget(params=model["params"], kv_bytes_per_token=None, pool_bytes=79.18 * 2**30, threshold=1.0,
                          fraction=0.05, response_len=36_864, prompts=1, samples=1, activation_bytes_per_token=slope,
                          train_low=band["low"], train_high=band["high"])
    assert b["train"] < b["limit"] and b["phase"] == "training"
    assert b["near_line"] and b["verdict"] == "tight"
    sentence = calculator.allocator_sentence(doc, b)
    assert ALLOCATOR in sentence and "the trainer only" in sentence and "--offload-train" in sentence
    far = derive.fit_budget(params=model["params"], kv_bytes_per_token=None, pool_bytes=79.18 * 2**30, threshold=1.0,
                            fraction=0.05, response_len=4096, prompts=1, samples=1, activation_bytes_per_token=slope,
                            train_low=band["low"], train_high=band["high"])
    assert not far["near_line"] and calculator.allocator_sentence(doc, far) == ""


def test_the_worked_sum_states_the_band_and_links_the_allocator_entry(doc: dict, real_capture) -> None:
    from numbercheck import typed_numbers

    model = _model(doc, "qwen3-4B")
    html = calculator.worked_sum_html({**doc, "train_env_href": "2-3.html"}, model, _settings(doc, real_capture),
                                      "model-size-sweep")
    assert "m101-fit-band" in html and f"{doc['band']['low']:.2f}</span>" in html
    assert typed_numbers(f"<article>{html}</article>") == []
    # near the line: a share of the pool that leaves training just inside the band's width
    settings = _settings(doc, real_capture, response_len=32768, checkpointing=True)
    b = calculator.budget_for(doc, model, settings)
    if b["near_line"]:
        html = calculator.worked_sum_html({**doc, "train_env_href": "2-3.html"}, model, settings, "model-size-sweep")
        assert 'href="2-3.html"' in html and "expandable_segments" in html


# ------------------------------------------------------------------------------------------ the smaller items
def test_the_rounds_give_the_tokens_they_cost(doc: dict, real_capture) -> None:
    model = _model(doc, "qwen3-4B")
    settings = _settings(doc, real_capture, response_len=8192, prompts=64, samples=8)
    b = calculator.budget_for(doc, model, settings)
    assert 0 < b["held"] < b["sequences"], b
    sentence = calculator.held_sentence(b)
    assert f"({b['step_tokens']:,} response tokens a step)" in sentence
    assert f"about {b['rounds']:,} rounds of up to {b['held']:,} sequences" in sentence
    assert b["step_tokens"] == 64 * 8 * 8192


def test_run_settings_read_true_on_policy_mode(doc: dict, real_capture) -> None:
    s = calculator.run_settings(real_capture, doc, "model-size-sweep")
    args = [str(a) for a in real_capture.runs["model-size-sweep"].get("args") or []]
    assert s["true_on_policy"] == ("--true-on-policy-mode" in args)
    assert doc["flags"]["true_on_policy"] == "--true-on-policy-mode" and doc["flags"]["train_env"] == "--train-env-vars"
    assert all(m["qwen3_dense"] == (m["name"].startswith("qwen3-") and m["params_active"] is None)
               for m in doc["models"])
