"""The GPU cross-check: its committed host results, verify(), and the program itself on CPU.

CI has no GPU: the program runs here on CPU (FSDP2 over a gloo group of one) on a few-MB
Qwen3-shaped model, where held bytes are counted from the tensors instead of the allocator.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from miles101 import derive
from capture.crosscheck import shapes
from capture.crosscheck.verify import TOLERANCE, verify

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "_ext" / "miles101" / "schema" / "crosscheck.schema.json").read_text())
COMPUTED = json.loads((ROOT / "capture" / "computed.json").read_text())
RESULTS = sorted((ROOT / "capture" / "crosscheck" / "results").glob("*.json"))
TINY = {"name": "qwen3-tiny", "file": "scripts/models/qwen3-tiny.py", "line": 1, "layers": 2, "hidden": 64,
        "ffn_hidden": 128, "heads": 4, "kv_heads": 2, "head_dim": 16, "vocab": 1000, "tied_embeddings": True,
        "experts": None, "moe_ffn_hidden": None, "topk": None, "shared_expert_ffn": None, "moe_layers": None,
        "normalization": "RMSNorm", "arch_flags": [],
        "switches": ["--swiglu", "--disable-bias-linear", "--qk-layernorm", "--group-query-attention"]}


def tiny_computed() -> dict:
    values = derive.derive_model(TINY, 10**9, "miles/utils/arguments.py:1")
    values.update(derive.bytes_per_param_values())
    return {"schema": derive.SCHEMA, "values": values}


def test_committed_results_validate_and_agree():
    assert RESULTS, "no host results under capture/crosscheck/results/"
    for path in RESULTS:
        results = json.loads(path.read_text())
        jsonschema.validate(results, SCHEMA)
        assert verify(results, COMPUTED) == [], path.name


def test_h200_covers_the_three_qwen3_sizes():
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h200.json").read_text())
    assert results["host"]["gpu"] == "NVIDIA H200"
    for name in ("qwen3-0.6B", "qwen3-1.7B", "qwen3-4B"):
        assert any(r["status"] == "ok" for r in results["models"][name]["runs"]), name


def test_tampered_held_bytes_fail_with_both_numbers():
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h200.json").read_text())
    bad = copy.deepcopy(results)
    run = next(r for r in bad["models"]["qwen3-0.6B"]["runs"] if r["status"] == "ok")
    run["held_bytes"] = int(run["held_bytes"] * (1 + 3 * TOLERANCE))
    problems = verify(bad, COMPUTED)
    assert len(problems) == 1, problems
    want = COMPUTED["values"]["trainer_state.qwen3-0.6B"]["value"]
    assert str(run["held_bytes"]) in problems[0] and str(want) in problems[0]


def test_tampered_params_fail_with_both_numbers():
    bad = copy.deepcopy(json.loads((ROOT / "capture" / "crosscheck" / "results" / "h200.json").read_text()))
    bad["models"]["qwen3-4B"]["params"] += 1
    problems = verify(bad, COMPUTED)
    want = COMPUTED["values"]["params.qwen3-4B"]["value"]
    assert any(str(want + 1) in p and str(want) in p for p in problems), problems


def test_shapes_map_the_extracted_families():
    models = {m["name"]: m for m in json.loads((ROOT / "capture" / "miles" / "models.json").read_text())["models"]}
    assert shapes.family(models["qwen3-8B"]) == "qwen3"
    assert shapes.family(models["qwen2.5-7B"]) == "qwen2"
    assert shapes.family(models["llama3.1-8B-Instruct"]) == "llama"
    assert shapes.family(models["qwen3-30B-A3B"]) == "qwen3_moe"
    assert shapes.skip_reason(models["qwen3-next-80B-A3B"])  # plugin spec: not a stock transformers model


@pytest.mark.slow  # builds a model with torch on the CPU and runs two optimizer steps
def test_program_runs_on_cpu_and_agrees(tmp_path):
    missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
    if missing:
        why = (f"the cross-check needs {' and '.join(missing)}, which only its own set holds "
               "(requirements-crosscheck.txt): M101_CROSSCHECK=1 python3 dev.py test tests/capture/test_crosscheck.py")
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the cross-check ({why}; .ci/run sets M101_CROSSCHECK=1)")
        pytest.skip(why)
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"schema": "miles-models/1", "provenance": {}, "models": [TINY]}))
    out = tmp_path / "cpu.json"
    proc = subprocess.run([sys.executable, "-m", "capture.crosscheck", "--models", str(models), "--tokens", "64",
                           "--device", "cpu", "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(out.read_text())
    jsonschema.validate(results, SCHEMA)
    runs = results["models"]["qwen3-tiny"]["runs"]
    assert [r["status"] for r in runs] == ["ok", "ok"], runs
    assert [r["gradient_checkpointing"] for r in runs] == [False, True]
    computed = tiny_computed()
    assert verify(results, computed) == []
    params = derive.parameter_count(TINY)
    assert results["models"]["qwen3-tiny"]["params"] == params
    bytes_ = runs[0]["tensor_bytes"]
    assert bytes_["params"] == bytes_["grads"] == bytes_["exp_avg"] == bytes_["exp_avg_sq"] == 4 * params
    bad = copy.deepcopy(results)
    bad["models"]["qwen3-tiny"]["runs"][1]["held_bytes"] //= 2
    assert len(verify(bad, computed)) == 1


def test_on_host_runs_the_driver_in_the_image() -> None:
    """`capture/run.py crosscheck --image` runs the same driver inside the image, writing results/<host>.json."""
    from capture.crosscheck.on_host import command

    cmd = command("gb10", "radixark/miles:latest", ["--only", "qwen3-0.6B"])
    assert cmd[:4] == ["docker", "run", "--rm", "--gpus"] and "radixark/miles:latest" in cmd
    assert cmd[cmd.index("radixark/miles:latest") + 1:] == [
        "python3", "-m", "capture.crosscheck", "--out", "capture/crosscheck/results/gb10.json", "--only", "qwen3-0.6B"]
    assert command("h200", None, [])[1:] == ["-m", "capture.crosscheck", "--out", "capture/crosscheck/results/h200.json"]


def test_h100_slopes_name_their_card_and_phase():
    """Issue 46: the activation term is a slope over three or more token counts, with and without checkpointing."""
    from miles101.crosscheck_results import MIN_POINTS, SWEEP_PHASE, activation_slopes

    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    assert results["host"]["gpu"].startswith("NVIDIA H100")
    slopes = activation_slopes(results)
    for name in ("qwen3-0.6B", "qwen3-1.7B", "qwen3-4B"):
        plain, ckpt = slopes[name][False], slopes[name][True]
        assert len(plain["tokens"]) >= MIN_POINTS and len(ckpt["tokens"]) >= MIN_POINTS, name
        assert plain["phase"] == ckpt["phase"] == SWEEP_PHASE
        assert 0 < ckpt["bytes_per_token"] < plain["bytes_per_token"], name


def test_verify_refuses_a_sweep_point_from_another_phase():
    results = json.loads((ROOT / "capture" / "crosscheck" / "results" / "h100.json").read_text())
    run = next(r for r in results["models"]["qwen3-4B"]["runs"] if r["status"] == "ok" and r.get("sweep"))
    run["sweep"][-2]["phase"] = "optimizer_step"
    problems = verify(results, COMPUTED)
    assert len(problems) == 1 and "'optimizer_step'" in problems[0] and "forward_backward" in problems[0], problems
