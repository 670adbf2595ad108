"""What `--no-keep-fp32-master` costs in learning: values from capture/crosscheck/master_copy/<host>.json.

`python3 -m capture.crosscheck.master_copy` trains one model's shape twice from the same bf16 weights, with
and without Miles's fp32 master copy, at the book's ``--lr``, and compares the bf16 weights (what the weight
sync sends) with step 0. Its readings are cross-check values (kind ``crosscheck``: our program on another GPU),
keyed ``<host>.<model>.<field>``:

- ``bf16_moved_master_<n>`` / ``bf16_moved_no_master_<n>``: the share of parameters whose bf16 value differs
  from step 0 after ``n`` optimizer steps, with and without the master copy;
- ``bf16_change_master_<n>`` / ``bf16_change_no_master_<n>``: the norm of the bf16 change over the norm of the
  step-0 weights.

bf16 rounding is the same on every GPU, so the reading carries over to a GB10; the card is named anyway.
"""
from __future__ import annotations

import re
from typing import Any

#: The capture folder the results live in (one file per host: ``<host>.json``).
FOLDER = "crosscheck/master_copy"
ARMS = {"master": "with the fp32 master copy", "no_master": "without the fp32 master copy (--no-keep-fp32-master)"}
#: field prefix → (what it is, the key of the comparison record it reads)
READINGS = {
    "bf16_moved": ("Share of parameters whose bf16 value differs from step 0", "changed_share"),
    "bf16_change": ("Norm of the change of the bf16 weights over the norm of the step-0 weights", "relative_change_norm"),
}


def reading_text(d: dict[str, Any]) -> str:
    """The sentence that says how a master-copy value was read (the tooltip's middle part)."""
    return (f"compared the bf16 weights with step 0 after {d.get('steps_done')} optimizer steps of Miles's AdamW at "
            f"--lr {d.get('lr')}, {d.get('tokens')} tokens a step, {d.get('model')}'s shape with random weights, on an "
            f"{d.get('gpu')} (torch {d.get('torch')}, CUDA {d.get('cuda')}, transformers {d.get('transformers')}), "
            f"{d.get('date')}; bf16 rounding does not depend on the GPU. Program: {d.get('program')}; results: {d['file']}.")


def master_copy_values(host: str, doc: dict[str, Any]) -> dict[str, tuple[Any, str, str, dict]]:
    """`{key: (value, unit, what, detail)}` for every model and step of one host's master-copy results."""
    info, setup = doc.get("host") or {}, doc.get("setup") or {}
    common = {"host": host, "gpu": info.get("gpu") or info.get("device", "?"), "torch": info.get("torch"),
              "cuda": info.get("cuda"), "transformers": info.get("transformers"), "date": info.get("date"),
              "lr": (setup.get("optimizer") or {}).get("lr"), "program": setup.get("program"),
              "file": f"capture/{FOLDER}/{host}.json", "reading": "master_copy"}
    out: dict[str, tuple[Any, str, str, dict]] = {}
    for name, model in sorted((doc.get("models") or {}).items()):
        for arm, how in ARMS.items():
            for step, at in sorted(((model.get("arms") or {}).get(arm) or {}).get("at", {}).items(), key=lambda kv: int(kv[0])):
                for prefix, (what, field) in READINGS.items():
                    value = (at.get("all") or {}).get(field)
                    if value is None:
                        continue
                    detail = {**common, "model": name, "tokens": model.get("tokens_per_step"), "steps_done": int(step),
                              "arm": arm}
                    out[f"{host}.{name}.{prefix}_{arm}_{step}"] = (
                        value, "", f"{what} after {step} steps, {how} ({name})", detail)
    return out


def flag_number(x: float | None) -> str:
    """A number as a run file and Miles's command line write it (1e-6, 1e20; Python's `:g` gives 1e-06, 1e+20);
    '' for none. The plots' captions use it too (`sphinx_ext.plots.setting_number`)."""
    if x is None:
        return ""
    return re.sub(r"e([+-]?)0*(\d)", lambda m: "e" + m.group(1).replace("+", "") + m.group(2), f"{x:g}")


def master_copy_figure(capture: Any, steps: int) -> dict[str, Any] | None:
    """The calculator's figure: per measured model, the share of bf16 weights moved after `steps` steps without
    and with the master copy, the card, and the keys they come from; None when the capture holds none."""
    out: dict[str, Any] = {}
    for key in capture.value_keys("crosscheck"):
        host, _, rest = key.partition(".")
        name, _, field = rest.rpartition(".")
        if field != f"bf16_moved_no_master_{steps}" or name in out:
            continue
        with_master = capture.value("crosscheck", f"{host}.{name}.bf16_moved_master_{steps}")
        without = capture.value("crosscheck", key)
        if with_master is None or without.value is None:
            continue
        lr = without.detail.get("lr")
        out[name] = {"no_master": without.value, "master": with_master.value, "steps": steps,
                     "gpu": without.detail.get("gpu"), "lr": lr, "lr_text": flag_number(lr),
                     "keys": [key, f"{host}.{name}.bf16_moved_master_{steps}"], "from": without.detail.get("file")}
    return out or None
