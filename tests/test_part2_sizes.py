"""2.1's sentences about which rows fit follow the computed values: this test fails when they stop holding."""
from __future__ import annotations

import json

import yaml

from buildutil import ROOT
from capture.derive import size_bytes


def _values():
    """Trainer state per model, the pool and Ray's line, all in bytes: the computed sizes are GiB, the
    pool is NVIDIA's published GB, so each goes back to bytes by its own unit before any comparison."""
    computed = json.loads((ROOT / "capture" / "computed.json").read_text(encoding="utf-8"))
    facts = json.loads((ROOT / "capture" / "facts.json").read_text(encoding="utf-8"))["facts"]
    values = computed.get("values", computed)
    state = {k.split(".", 1)[1]: size_bytes(v["value"], v["unit"]) for k, v in values.items()
             if k.startswith("trainer_state.")}
    pool = size_bytes(facts["spark.memory"]["value"], facts["spark.memory"]["unit"])
    return state, pool, facts["ray.memory_usage_threshold"]["value"] * pool


def test_7b_and_8b_trainer_state_alone_reach_rays_line() -> None:
    state, _, line = _values()
    for model in ("qwen2.5-7B", "qwen3-8B", "llama3.1-8B-Instruct"):
        assert state[model] >= line, f"2.1 says the {model} trainer column alone is at or above Ray's line"


def test_4b_leaves_room_for_the_sweeps_sglang_share() -> None:
    state, pool, line = _values()
    run = yaml.safe_load((ROOT / "capture" / "runs" / "model-size-sweep.yaml").read_text(encoding="utf-8"))
    args = [str(a) for a in run["args"]]
    fraction = float(args[args.index("--sglang-mem-fraction-static") + 1])
    assert state["qwen3-4B"] + fraction * pool < line, "2.1 says the 4B row leaves room for a modest SGLang share"


def test_moe_trainer_state_is_several_times_the_pool() -> None:
    state, pool, _ = _values()
    assert state["qwen3-30B-A3B"] >= 3 * pool, "2.1 says the MoE trainer column is several times the whole pool"
