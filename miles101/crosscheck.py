"""Values from a cross-check: our program on another GPU (capture/crosscheck/results/<host>.json).

The trainer's bytes do not depend on which GPU holds them, so `python3 -m capture.crosscheck` builds
each model as Miles's FSDP backend does and reads PyTorch's allocator. Those readings are a kind of
their own (`crosscheck`): never the manual's GB10 recording, always labelled with the GPU they ran on.
Keys are `<host>.<model>.<field>`, e.g. `h200.qwen3-4B.held`.
"""
from __future__ import annotations

from typing import Any

from capture.derive import UNIT_BYTES  # the computed sizes carry their unit (computed.json writes GiB)

GIB = 2**30

#: field → (unit, what it is, how to read it from the run without / with gradient checkpointing)
FIELDS: dict[str, tuple[str, str]] = {
    "params": ("parameters", "Parameter count the framework reports for the model built from Miles's extracted shape"),
    "held": ("GiB", "Trainer state held after the optimizer step: fp32 weights, gradients and AdamW's two moments"),
    "held_ratio": ("× computed", "Held trainer state divided by the computed trainer state of capture/computed.json"),
    "without_grads": ("GiB", "Trainer state held once the gradients are freed (weights and moments)"),
    "peak": ("GiB", "Peak allocated during forward and backward of step 2, without gradient checkpointing"),
    "peak_ckpt": ("GiB", "Peak allocated during forward and backward of step 2, with gradient checkpointing"),
    "step_peak": ("GiB", "Peak allocated during the optimizer step (AdamW), without gradient checkpointing"),
}


def _run(model: dict[str, Any], checkpointing: bool) -> dict[str, Any] | None:
    return next((r for r in model.get("runs", []) if r.get("status") == "ok"
                 and bool(r.get("gradient_checkpointing")) == checkpointing), None)


def crosscheck_values(host: str, doc: dict[str, Any], computed: dict[str, Any]) -> dict[str, tuple[Any, str, str, dict]]:
    """`{key: (value, unit, what, detail)}` for every model of one host's results."""
    info = doc.get("host", {})
    common = {
        "host": host, "gpu": info.get("gpu") or info.get("device", "?"), "torch": info.get("torch"),
        "cuda": info.get("cuda"), "transformers": info.get("transformers"), "date": info.get("date"),
        "file": f"capture/crosscheck/results/{host}.json",
    }
    out: dict[str, tuple[Any, str, str, dict]] = {}
    for name, model in (doc.get("models") or {}).items():
        plain, ckpt = _run(model, False), _run(model, True)
        if plain is None:
            continue
        record = computed.get(f"trainer_state.{name}") or {}
        state = record.get("value")
        state_bytes = state * UNIT_BYTES[record.get("unit", "GiB")] if state else None
        tokens = plain.get("tokens")
        fields: dict[str, Any] = {
            "params": plain.get("params"),
            "held": plain["held_bytes"] / GIB,
            "held_ratio": plain["held_bytes"] / state_bytes if state_bytes else None,
            "without_grads": plain["held_without_grads_bytes"] / GIB,
            "peak": plain["peak_bytes_step2_forward_backward"] / GIB,
            "peak_ckpt": ckpt["peak_bytes_step2_forward_backward"] / GIB if ckpt else None,
            "step_peak": plain["peak_bytes_step2_optimizer"] / GIB,
        }
        for field, value in fields.items():
            if value is None:
                continue
            unit, what = FIELDS[field]
            detail = {**common, "model": name, "tokens": tokens,
                      "optimizer_note": plain.get("optimizer_foreach_note") or ""}
            out[f"{host}.{name}.{field}"] = (value, unit, f"{what} ({name})", detail)
    return out
