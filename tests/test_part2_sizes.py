"""2.1's sentences about which rows fit follow the computed values: this test fails when they stop holding."""
from __future__ import annotations

import json

import yaml

from buildutil import ROOT
from miles101.derive import size_bytes


def _computed(prefix: str) -> dict[str, float]:
    """computed.json's values under `prefix`, in bytes."""
    computed = json.loads((ROOT / "capture" / "computed.json").read_text(encoding="utf-8"))
    values = computed.get("values", computed)
    return {k.split(".", 1)[1]: size_bytes(v["value"], v["unit"]) for k, v in values.items() if k.startswith(prefix)}


def _values():
    """Trainer state per model, the pool and Ray's line, all in bytes, each from its own unit: the pool is
    the total CUDA reports on a GB10 (the reference 2.1, 8.4 and the calculator cite)."""
    facts = json.loads((ROOT / "capture" / "facts.json").read_text(encoding="utf-8"))["facts"]
    refs = json.loads((ROOT / "capture" / "references" / "part5-8.json").read_text(encoding="utf-8"))["references"]
    pool = size_bytes(refs["gb10_memory.cuda_total"]["value"], refs["gb10_memory.cuda_total"]["unit"])
    return _computed("trainer_state."), pool, facts["ray.memory_usage_threshold"]["value"] * pool


def test_8b_trainer_state_alone_reaches_rays_line() -> None:
    state, _, line = _values()
    for model in ("qwen3-8B", "llama3.1-8B-Instruct"):
        assert state[model] >= line, f"2.1 says the {model} trainer column alone is at or above Ray's line"


def test_7b_trainer_state_leaves_less_than_its_weights_under_the_line() -> None:
    state, _, line = _values()
    weights = _computed("rollout_weights.")
    assert state["qwen2.5-7B"] < line, "2.1 says the 7B trainer column stays under Ray's line"
    assert line - state["qwen2.5-7B"] < weights["qwen2.5-7B"], \
        "2.1 says the room the 7B trainer column leaves is smaller than SGLang's bf16 weights"


def test_4b_leaves_room_for_the_sweeps_sglang_share() -> None:
    state, pool, line = _values()
    run = yaml.safe_load((ROOT / "capture" / "runs" / "model-size-sweep.yaml").read_text(encoding="utf-8"))
    args = [str(a) for a in run["args"]]
    fraction = float(args[args.index("--sglang-mem-fraction-static") + 1])
    assert state["qwen3-4B"] + fraction * pool < line, "2.1 says the 4B row leaves room for a modest SGLang share"


def test_moe_trainer_state_is_several_times_the_pool() -> None:
    state, pool, _ = _values()
    assert state["qwen3-30B-A3B"] >= 3 * pool, "2.1 says the MoE trainer column is several times the whole pool"
