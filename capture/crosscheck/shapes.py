"""A models.json record -> a transformers config of the same shape (random weights, no download)."""
from __future__ import annotations

from typing import Any

# models.json name prefix -> (transformers model_type, config class name). Only families whose
# extracted switches map one-to-one onto a transformers architecture.
FAMILIES = (
    ("qwen3-", "qwen3"),
    ("qwen2.5-", "qwen2"),
    ("llama3", "llama"),
)


def family(m: dict) -> str | None:
    """The transformers model_type for a record, or None when this program does not build it."""
    if m.get("arch_flags"):
        return None
    for prefix, model_type in FAMILIES:
        if m["name"].startswith(prefix):
            if model_type == "qwen3" and m.get("experts"):
                return "qwen3_moe" if not m.get("shared_expert_ffn") else None
            return None if m.get("experts") else model_type
    return None


def skip_reason(m: dict) -> str | None:
    """Why the shape is not built, or None."""
    if m.get("arch_flags"):
        return "uses " + ", ".join(m["arch_flags"]) + ", which a stock transformers model does not have"
    if family(m) is None:
        return "no transformers architecture mapped for this family here (only qwen3, qwen3 MoE, qwen2.5, llama3)"
    missing = [k for k in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab") if m.get(k) is None]
    return f"missing {', '.join(missing)}" if missing else None


def config_kwargs(m: dict) -> dict[str, Any]:
    """Keyword arguments for the family's config class, from the extracted shape alone."""
    kind = family(m)
    head_dim = m.get("head_dim") or m["hidden"] // m["heads"]
    kw: dict[str, Any] = {
        "vocab_size": m["vocab"],
        "hidden_size": m["hidden"],
        "intermediate_size": m["ffn_hidden"],
        "num_hidden_layers": m["layers"],
        "num_attention_heads": m["heads"],
        "num_key_value_heads": m["kv_heads"],
        "tie_word_embeddings": bool(m["tied_embeddings"]),
        "max_position_embeddings": 32768,
    }
    if kind in ("qwen3", "qwen3_moe", "llama"):
        kw["head_dim"] = head_dim
    if kind in ("qwen3", "qwen3_moe", "llama"):
        kw["attention_bias"] = "--disable-bias-linear" not in m.get("switches", [])
    if kind == "llama":
        kw["mlp_bias"] = "--disable-bias-linear" not in m.get("switches", [])
    if kind == "qwen3_moe":
        kw.update(num_experts=m["experts"], num_experts_per_tok=m["topk"], moe_intermediate_size=m["moe_ffn_hidden"],
                  decoder_sparse_step=1, mlp_only_layers=[], norm_topk_prob=True)
    return kw


def build_config(m: dict):
    """The transformers config object (imports transformers)."""
    from transformers import AutoConfig

    return AutoConfig.for_model(family(m), **config_kwargs(m))
