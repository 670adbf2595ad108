"""Derivation on fixture shapes with hand-checkable arithmetic, and the committed capture."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from miles101 import derive

ROOT = Path(__file__).resolve().parents[2]
PROV = {"commit": "0" * 40, "commit_date": "2026-01-01", "read_from": "git", "extractor": "t"}
SW = ["--swiglu", "--disable-bias-linear", "--group-query-attention"]
TINY = {"name": "qwen3-tiny", "file": "scripts/models/qwen3-tiny.py", "line": 1, "layers": 2, "hidden": 8,
        "ffn_hidden": 16, "heads": 2, "kv_heads": 1, "head_dim": 4, "vocab": 10, "tied_embeddings": True,
        "experts": None, "moe_ffn_hidden": None, "topk": None, "shared_expert_ffn": None, "moe_layers": None,
        "normalization": "RMSNorm", "switches": SW, "arch_flags": []}
MOE = {**TINY, "name": "qwen3-tiny-moe", "tied_embeddings": False, "experts": 4, "topk": 1, "moe_ffn_hidden": 4,
       "moe_layers": 2}
FLAGS = {"flags": [{"name": "--update-weight-buffer-size", "family": "miles", "default_kind": "literal",
                    "default": 1000, "file": "miles/utils/arguments.py", "line": 770}]}


def test_dense_count_by_hand():
    # attention 8*8 + 2*8*4 + 8*8 = 192; two RMSNorms 16; SwiGLU 8*32 + 16*8 = 384
    # 2 layers * 592 + tied embedding 80 + final norm 8 = 1272
    assert derive.attention_params(TINY) == 192
    assert derive.mlp_params(8, 16, swiglu=True, bias=False) == 384
    assert derive.parameter_count(TINY) == 1272


def test_moe_count_by_hand():
    # per MoE layer: 4 experts * (8*8 + 4*8) + router 8*4 = 416; 2 * (192 + 16) + 2 * 416 + 2 * 80 + 8 = 1416
    assert derive.parameter_count(MOE) == 1416
    # active: 1 expert: 96 + 32 = 128; 416 + 256 + 168 = 840
    assert derive.parameter_count(MOE, active=True) == 840


def test_derive_all_values_and_units():
    out = derive.derive_all({"provenance": PROV, "models": [TINY, MOE]}, FLAGS)
    values = out["values"]
    assert values["params.qwen3-tiny"]["value"] == 1272
    assert values["params.qwen3-tiny"]["formula"] == "miles101.derive.parameter_count"
    assert "params_active.qwen3-tiny" not in values
    assert values["params_active.qwen3-tiny-moe"]["value"] == 840
    # sizes in GiB (2**30 bytes), Miles's Memory-Usage unit, and exactly the bytes over 2**30
    assert values["weights_bf16.qwen3-tiny"] == {**values["weights_bf16.qwen3-tiny"], "value": 1272 * 2 / 2**30, "unit": "GiB"}
    assert values["trainer_state.qwen3-tiny"]["value"] == 1272 * 16 / 2**30
    assert values["trainer_state.qwen3-tiny"]["unit"] == values["rollout_weights.qwen3-tiny"]["unit"] == "GiB"
    assert derive.size_bytes(values["trainer_state.qwen3-tiny"]["value"], "GiB") == 1272 * 16
    assert values["trainer_state.qwen3-tiny"]["inputs"]["bytes_per_param"] == 16
    # 1272 params * 4 bytes (fp32 master measured by the FSDP bucketing) / 1000-byte buffer -> 6 buckets
    assert values["update_buckets_fsdp.qwen3-tiny"]["value"] == 6
    assert values["update_buckets_fsdp.qwen3-tiny"]["inputs"]["buffer_default_at"] == "miles/utils/arguments.py:770"
    # Megatron measures its bf16 parameters: 1272 * 2 = 2544 bytes -> 3 buckets
    assert values["update_buckets_megatron.qwen3-tiny"]["value"] == 3
    assert out == derive.derive_all({"provenance": PROV, "models": [MOE, TINY]}, FLAGS)  # deterministic


def test_fsdp_buckets_count_qwen3_moe_experts_in_bf16():
    """Qwen3 MoE experts are cast to bf16 before the FSDP loop measures them; other families' are not."""
    # routed experts: 2 MoE layers * 4 experts * (8*8 + 4*8) = 768 of the 1416 parameters
    assert derive.routed_expert_params(MOE) == 768 and derive.routed_expert_params(TINY) == 0
    glm = {**MOE, "name": "glm4.5-tiny-moe"}
    values = derive.derive_all({"provenance": PROV, "models": [MOE, glm]}, FLAGS)["values"]
    # (1416 - 768) * 4 + 768 * 2 = 4128 bytes -> 5 buckets of 1000; all fp32: 5664 -> 6; Megatron bf16: 2832 -> 3
    assert values["update_buckets_fsdp.qwen3-tiny-moe"]["value"] == 5
    assert values["update_buckets_fsdp.qwen3-tiny-moe"]["inputs"]["bf16_expert_params"] == 768
    assert values["update_buckets_fsdp.glm4.5-tiny-moe"]["value"] == 6
    assert values["update_buckets_megatron.qwen3-tiny-moe"]["value"] == 3


def test_committed_qwen3_30b_a3b_buckets_per_backend():
    """The issue's numbers: about 120 FSDP buckets for Qwen3-30B-A3B (not 228 at fp32), fewer on Megatron."""
    values = load("computed.json")["values"]
    fsdp, megatron = values["update_buckets_fsdp.qwen3-30B-A3B"]["value"], values["update_buckets_megatron.qwen3-30B-A3B"]["value"]
    assert 110 <= fsdp <= 130 and megatron < fsdp
    dense_fsdp, dense_megatron = values["update_buckets_fsdp.qwen3-8B"]["value"], values["update_buckets_megatron.qwen3-8B"]["value"]
    assert dense_megatron in (dense_fsdp // 2, (dense_fsdp + 1) // 2)  # a dense model: fp32 against bf16


def test_out_of_formula_models_are_skipped_with_a_reason():
    mla = {**TINY, "name": "qwen3-mla", "arch_flags": ["--multi-latent-attention"]}
    other = {**TINY, "name": "mamba-x"}
    out = derive.derive_all({"provenance": PROV, "models": [mla, other]}, FLAGS)
    assert set(out["values"]) == set(derive.bytes_per_param_values())  # no model values, only the constants
    assert "--multi-latent-attention" in out["skipped"]["qwen3-mla"]
    assert "not covered" in out["skipped"]["mamba-x"]


def load(name: str) -> dict:
    return json.loads((ROOT / "capture" / name).read_text())


def test_verify_parameter_count_against_published_sizes():
    """Loose bands around the published sizes (a sanity check, test-only)."""
    models = {m["name"]: m for m in load("miles/models.json")["models"]}
    published = {"qwen3-0.6B": 0.6e9, "qwen3-8B": 8.2e9, "llama3.1-8B-Instruct": 8.0e9, "qwen2.5-7B": 7.6e9,
                 "qwen3-30B-A3B": 30.5e9, "qwen3-235B-A22B": 235e9}
    for name, size in published.items():
        assert derive.parameter_count(models[name]) == pytest.approx(size, rel=0.05), name
    assert derive.parameter_count(models["qwen3-30B-A3B"], active=True) == pytest.approx(3.3e9, rel=0.05)


def test_committed_capture_validates_and_recomputes():
    for name in ("flags", "metrics", "models", "files"):
        schema = json.loads((ROOT / "_ext" / "miles101" / "schema" / f"{name}.schema.json").read_text())
        jsonschema.Draft202012Validator(schema).validate(load(f"miles/{name}.json"))
    computed = load("computed.json")
    schema = json.loads((ROOT / "_ext" / "miles101" / "schema" / "computed.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(computed)
    assert derive.derive_all(load("miles/models.json"), load("miles/flags.json")) == computed
