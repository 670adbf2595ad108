"""What `--no-keep-fp32-master` does to learning: do the bf16 weights move at the book's learning rate?

    python3 -m capture.crosscheck.master_copy --models capture/miles/models.json --model qwen3-0.6B \
        --steps 100 --tokens 1024 [--device cuda|cpu] --out capture/crosscheck/master_copy/h100.json

Builds one model from its extracted shape (random weights: transformers' own initialisation, normal with the
config's ``initializer_range`` for the linear and embedding weights, ones for the norms), rounds it to bf16
(the checkpoint's dtype: this is step 0), then trains two copies of it from the same bf16 weights on the same
tokens, as Miles's FSDP backend sets them up (``miles_fsdp.SITES``):

- ``master``: ``--keep-fp32-master`` (the default): the model cast to fp32 after loading, FSDP2 with bf16 compute
  and fp32 gradient reduction, ``torch.optim.AdamW`` over the fp32 parameters (its state fp32 too);
- ``no_master``: ``--no-keep-fp32-master``: the parameters stay bf16, so AdamW's state is bf16 and every update
  is rounded to bf16 (torch's AdamW does no stochastic rounding).

Each step is a real forward and backward of the model on random tokens (one packed sequence; a token-mean
negative log-likelihood with the logits upcast to fp32, the cross-check's stand-in for Miles's loss), the
gradient clipped to Miles's ``--clip-grad``, then AdamW with Miles's defaults at ``--lr`` 1e-6, constant (no
warm-up: Miles's defaults). After the listed steps it compares the bf16 value the weight sync would send (the
fp32 master cast to bf16, or the bf16 parameter itself) with step 0: the share of parameters whose bf16 value
differs, and the norm of the change over the norm of the weights. bf16 rounding is the same on every GPU, so
the figure carries over to a GB10; the card it ran on is recorded.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from capture.crosscheck import miles_fsdp, shapes
from capture.crosscheck.measure import _close_group, _init_group, _local, _loss, apply_fsdp2, host

SCHEMA = "master-copy/1"
#: The steps after which the bf16 weights are compared with step 0.
CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100)
#: Miles's lines this program follows, besides miles_fsdp.SITES.
SITES = {
    "master_copy_docstring": "miles/backends/fsdp_utils/adaptations/precision.py:3",
    "master_cast": "miles/backends/fsdp_utils/adaptations/precision.py:55-72",
    "master_cast_called": "miles/backends/fsdp_utils/actor.py:143-144",
    "optimizer": "miles/backends/fsdp_utils/actor.py:177-186",
    "keep_fp32_master": "miles/backends/fsdp_utils/arguments.py:39",
    "adam_betas_eps": "miles/backends/fsdp_utils/arguments.py:25-27",
    "weight_decay": "miles/backends/fsdp_utils/arguments.py:24",
    "lr": "miles/utils/arguments.py:1355",
    "lr_schedule_constant_no_warmup": "miles/backends/fsdp_utils/arguments.py:16-18",
    "clip_grad": "miles/utils/arguments.py:1353, applied at miles/backends/fsdp_utils/actor.py:538",
    "mixed_precision_policy": "miles/backends/fsdp_utils/adaptations/precision.py:38-42",
}
DEPARTURES = [
    "Random weights from transformers' initialisation of the extracted shape (normal, std = the config's "
    "initializer_range, for linear and embedding weights; ones for the RMSNorm weights), rounded to bf16, instead "
    "of the released checkpoint (nothing can be downloaded on the measuring host); the spread of a trained "
    "checkpoint's weights differs, and with it the bf16 spacing each weight sits at.",
    "The gradient is a real backward of the model on random tokens with a token-mean negative log-likelihood, "
    "not Miles's policy-gradient loss on rollouts. AdamW divides each update by the running root mean square of "
    "its gradient, so an update's size is set by the learning rate far more than by the gradient's scale.",
    "One packed sequence per step, one micro-batch, world size 1 (FSDP2 over one rank).",
    "attn_implementation 'sdpa' instead of Miles's default 'flash_attention_2'.",
]


def _bf16_now(model) -> dict[str, Any]:
    """What the weight sync would send: each parameter as bf16 (a bf16 parameter as it is)."""
    import torch

    return {n: _local(p).detach().to(torch.bfloat16) for n, p in model.named_parameters()}


def compare(step0: dict[str, Any], now: dict[str, Any], master=None) -> dict[str, Any]:
    """Share of parameters whose bf16 value differs from step 0, and the relative norm of the change.

    Split into matrices (2-D and up: linear and embedding weights) and vectors (the norms' weights); with
    `master` (the fp32 parameters) also the relative norm of the fp32 change, before rounding."""
    import torch

    acc = {k: {"numel": 0, "changed": 0, "diff_sq": 0.0, "base_sq": 0.0} for k in ("all", "matrices", "vectors")}
    master_sq = 0.0
    for name, w0 in step0.items():
        w = now[name]
        d = w.to(torch.float64) - w0.to(torch.float64)
        parts = ("all", "matrices" if w0.dim() >= 2 else "vectors")
        changed = int((w != w0).sum())
        diff_sq, base_sq = float((d * d).sum()), float((w0.to(torch.float64) ** 2).sum())
        for k in parts:
            a = acc[k]
            a["numel"] += w0.numel()
            a["changed"] += changed
            a["diff_sq"] += diff_sq
            a["base_sq"] += base_sq
        if master is not None:
            m = master[name].to(torch.float64) - w0.to(torch.float64)
            master_sq += float((m * m).sum())
    out: dict[str, Any] = {}
    for k, a in acc.items():
        out[k] = {"params": a["numel"], "changed": a["changed"],
                  "changed_share": a["changed"] / a["numel"] if a["numel"] else None,
                  "relative_change_norm": (a["diff_sq"] / a["base_sq"]) ** 0.5 if a["base_sq"] else None}
    if master is not None:
        out["all"]["fp32_relative_change_norm"] = (master_sq / acc["all"]["base_sq"]) ** 0.5
    return out


def train_arm(m: dict, step0_cpu: dict[str, Any], keep_master: bool, steps: int, tokens: int, device: str,
              checkpoints: tuple[int, ...]) -> dict[str, Any]:
    """Train one copy from the step-0 bf16 weights; the comparison with step 0 at each checkpoint."""
    import torch
    from transformers import AutoModelForCausalLM

    opt = miles_fsdp.OPTIMIZER
    config = shapes.build_config(m)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16, attn_implementation="sdpa")
    model.load_state_dict({k: v.to(device) for k, v in step0_cpu.items()}, strict=False)
    if keep_master:
        model = model.to(torch.float32)  # precision.apply_fp32_master: the loaded bf16 checkpoint cast to fp32
    model.train()
    model = apply_fsdp2(model, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt["lr"], betas=tuple(opt["betas"]), eps=opt["eps"],
                                  weight_decay=opt["weight_decay"], foreach=opt["foreach"])
    step0 = {n: v.to(device) for n, v in step0_cpu.items() if n in dict(model.named_parameters())}
    pos = torch.arange(tokens, device=device).unsqueeze(0)
    record: dict[str, Any] = {"keep_fp32_master": keep_master, "param_dtype": None, "grad_dtype": None,
                              "optimizer_state_dtype": None, "losses": [], "grad_norms": [], "at": {}}
    t0 = time.time()
    for step in range(1, steps + 1):
        gen = torch.Generator(device="cpu").manual_seed(10_000 + step)  # the same tokens for both copies
        ids = torch.randint(0, m["vocab"], (1, tokens), generator=gen).to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = _loss(model, ids, pos)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), miles_fsdp.CLIP_GRAD)
        optimizer.step()
        record["losses"].append(float(loss.detach()))
        record["grad_norms"].append(float(_local(norm).detach()) if hasattr(norm, "detach") else float(norm))
        if step == 1:
            p = next(iter(model.parameters()))
            record["param_dtype"] = str(_local(p).dtype)
            record["grad_dtype"] = str(_local(p.grad).dtype)
            state = optimizer.state[p]
            record["optimizer_state_dtype"] = str(_local(state["exp_avg"]).dtype)
        if step % 10 == 0 or step == 1:
            print(f"{m['name']} {'master' if keep_master else 'no_master'}: step {step}/{steps}, "
                  f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        if step in checkpoints:
            params = {n: _local(p).detach() for n, p in model.named_parameters()}
            record["at"][str(step)] = compare(step0, _bf16_now(model), params if keep_master else None)
    record["seconds"] = round(time.time() - t0, 2)
    del model, optimizer
    if device == "cuda":
        torch.cuda.empty_cache()
    return record


def measure(m: dict, steps: int, tokens: int, device: str, seed: int = 1234) -> dict[str, Any]:
    """Both arms from one bf16 step 0."""
    import torch
    from transformers import AutoModelForCausalLM

    _init_group(device)
    if device == "cuda":
        torch.cuda.set_device(0)
    torch.manual_seed(seed)
    config = shapes.build_config(m)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32, attn_implementation="sdpa")
    step0 = {n: p.detach().to(torch.bfloat16).clone() for n, p in model.named_parameters()}
    init_std = float(config.initializer_range)
    hf_class = type(model).__name__
    params = sum(v.numel() for v in step0.values())
    del model
    checkpoints = tuple(c for c in CHECKPOINTS if c <= steps)
    arms = {name: train_arm(m, step0, keep, steps, tokens, device, checkpoints)
            for name, keep in (("master", True), ("no_master", False))}
    return {"model": m["name"], "model_record": f"{m['file']}:{m['line']}", "hf_class": hf_class, "params": params,
            "init": {"weights": "transformers' initialisation of the config (from_config, torch.manual_seed "
                                f"{seed}), then rounded to bf16", "initializer_range": init_std},
            "steps": steps, "tokens_per_step": tokens, "checkpoints": list(checkpoints), "arms": arms}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", required=True, help="models.json (or a file of the same shape)")
    ap.add_argument("--model", action="append", required=True, help="a model of --models (repeatable)")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--device", choices=("cuda", "cpu"), default=None)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    import torch

    device = a.device or ("cuda" if torch.cuda.is_available() else "cpu")
    models = {r["name"]: r for r in json.loads(Path(a.models).read_text())["models"]}
    unknown = [name for name in a.model if name not in models]
    if unknown:
        ap.error(f"{a.models} has no model {unknown[0]!r}: name one of {', '.join(sorted(models))}")
    doc = {"schema": SCHEMA, "host": host(),
           "setup": {"miles_commit": miles_fsdp.MILES_COMMIT, "optimizer": miles_fsdp.OPTIMIZER,
                     "clip_grad": miles_fsdp.CLIP_GRAD, "lr_schedule": "constant, no warm-up",
                     "compute_dtype": "bfloat16", "reduce_dtype": "float32",
                     "gradient": "real backward of the model on random tokens (token-mean NLL, fp32 logits)",
                     "program": "python3 -m capture.crosscheck.master_copy",
                     "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                     "sites": SITES, "departures": DEPARTURES},
           "models": {}}
    for name in a.model:
        doc["models"][name] = measure(models[name], a.steps, a.tokens, device)
        Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")  # what is done so far survives a later failure
    _close_group()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
