"""One model, one setting, one process: build, wrap as Miles's FSDP backend does, two steps, read memory.

    python3 -m capture.crosscheck.measure --models capture/miles/models.json --model qwen3-0.6B \
        --tokens 4096 [--sweep 2048,4096,8192] [--gradient-checkpointing] [--no-foreach] [--device cuda|cpu] \
        --out result.json

Writes one run record (the ``runs`` item of crosscheck.schema.json) to --out. Held bytes come from
PyTorch's caching allocator on CUDA (``memory_allocated`` after the step, less the reading before the
model was built), and from adding up the tensors' own sizes everywhere (the only reading on CPU).

With ``--sweep`` the same process then runs forward and backward once at each listed token count
(smallest first, stopping at the first out-of-memory) and records, per point, the allocator's reading
once the gradients are freed (the base of the forward/backward phase) and its peak over that phase
(the record's ``sweep``). AdamW's moments are freed before the sweep: they do not change with the token
count, and without them a larger count fits. The per-token activation term is the slope of those peaks
over the tokens.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from capture.crosscheck import miles_fsdp, shapes

PHASE = "start"  # where the run is, so an out-of-memory record says where it happened


def _phase(name: str) -> None:
    global PHASE
    PHASE = name


def host() -> dict:
    """What this process runs on: device name and memory, library versions, date."""
    import datetime
    import platform

    import torch
    import transformers

    info = {"device": "cuda" if torch.cuda.is_available() else "cpu", "torch": torch.__version__,
            "cuda": torch.version.cuda, "transformers": transformers.__version__,
            "python": platform.python_version(), "machine": platform.machine(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")}
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info.update(gpu=props.name, gpu_memory_bytes=props.total_memory, gpu_count=torch.cuda.device_count(),
                    driver_capability=f"{props.major}.{props.minor}")
    else:
        info.update(gpu=None, gpu_memory_bytes=None, gpu_count=0)
    return info


def _local(t):
    """The tensor this rank holds: a DTensor's local shard, else the tensor itself."""
    return t.to_local() if hasattr(t, "to_local") else t


def _nbytes(t) -> int:
    t = _local(t)
    return t.numel() * t.element_size()


def tensor_bytes(model, optimizer) -> dict[str, int]:
    """Bytes of the trainer's tensors by kind, counted from the tensors (no allocator)."""
    params = list(model.parameters())
    out = {"params": sum(_nbytes(p) for p in params),
           "grads": sum(_nbytes(p.grad) for p in params if p.grad is not None),
           "buffers": sum(_nbytes(b) for b in model.buffers())}
    for state in optimizer.state.values():
        for key, value in state.items():
            if hasattr(value, "numel"):
                out[key] = out.get(key, 0) + _nbytes(value)
    return out


def _init_group(device: str) -> None:
    import torch.distributed as dist

    if dist.is_initialized():
        return
    store = Path(tempfile.mkdtemp()) / "store"
    dist.init_process_group("nccl" if device == "cuda" else "gloo", init_method=f"file://{store}", rank=0,
                            world_size=1)


def apply_fsdp2(model, device: str):
    """fully_shard each decoder layer (and an untied embedding), then the root, as Miles's apply_fsdp2."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    mesh = init_device_mesh(device, (1,))
    kwargs = {"mp_policy": MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32), "mesh": mesh}
    wrap = model._no_split_modules
    modules = [m for _, m in model.named_modules()
               if m.__class__.__name__ in wrap
               or (isinstance(m, torch.nn.Embedding) and not model.config.tie_word_embeddings)]
    for module in modules:
        fully_shard(module, **kwargs)
    fully_shard(model, **kwargs)
    return model


def _peak(cuda: bool) -> int | None:
    """The allocator's peak since the last reset, then a fresh reset (None off CUDA)."""
    import torch

    if not cuda:
        return None
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    return peak


def train_step(model, optimizer, tokens, position_ids, cuda: bool = False) -> tuple[float, dict]:
    """One Miles-shaped step: zero grads (set to none), forward in bf16, fp32 loss, backward, clip, step.

    Returns the loss and the allocator's peaks of the forward+backward part and of the clip+step part."""
    import torch

    _peak(cuda)
    _phase("forward")
    optimizer.zero_grad(set_to_none=True)
    loss = _loss(model, tokens, position_ids)
    _phase("backward")
    loss.backward()
    fwd_bwd = _peak(cuda)
    _phase("clip_grad")
    torch.nn.utils.clip_grad_norm_(model.parameters(), miles_fsdp.CLIP_GRAD)
    _phase("optimizer_step")
    optimizer.step()
    _phase("after_step")
    return float(loss.detach()), {"forward_backward": fwd_bwd, "optimizer": _peak(cuda)}


def _loss(model, tokens, position_ids):
    """The forward pass and a token-mean negative log-likelihood, with the logits upcast to fp32 as Miles's
    loss does; the logits are freed before the backward pass."""
    import torch

    logits = model(input_ids=tokens, position_ids=position_ids, attention_mask=None).logits
    logp = torch.log_softmax(logits[:, :-1].to(torch.float32, copy=True), dim=-1)
    loss = -logp.gather(-1, tokens[:, 1:].unsqueeze(-1)).mean()
    del logits, logp
    return loss


def forward_backward(model, optimizer, tokens, position_ids) -> dict:
    """Forward and backward once, from the state without gradients: the base and the peak of that phase.

    The gradients are freed first (``zero_grad(set_to_none=True)``, as Miles's step does), and only then is
    the allocator's peak reset, so the peak is over the state without gradients plus what the phase adds."""
    import torch

    optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    _phase("forward")
    loss = _loss(model, tokens, position_ids)
    _phase("backward")
    loss.backward()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    optimizer.zero_grad(set_to_none=True)
    return {"base": base, "peak": peak}


def sweep(model, optimizer, vocab: int, counts: list[int], device: str, base0: int) -> list[dict]:
    """One forward/backward phase per token count, smallest first; the first out-of-memory ends the sweep."""
    import torch

    points = []
    for t in sorted(counts):
        gen = torch.Generator(device="cpu").manual_seed(t)
        ids = torch.randint(0, vocab, (1, t), generator=gen).to(device)
        pos = torch.arange(t, device=device).unsqueeze(0)
        try:
            got = forward_backward(model, optimizer, ids, pos)
        except torch.OutOfMemoryError as e:
            optimizer.zero_grad(set_to_none=True)
            points.append({"tokens": t, "phase": "forward_backward", "status": "oom", "at": PHASE,
                           "error": str(e).splitlines()[0][:300]})
            break
        finally:
            del ids, pos
        points.append({"tokens": t, "phase": "forward_backward", "status": "ok",
                       "base_bytes": got["base"] - base0, "peak_bytes": got["peak"] - base0})
    torch.cuda.empty_cache()
    return points


def measure(m: dict, tokens: int, checkpointing: bool, device: str, foreach: bool | None,
            sweep_counts: list[int] | None = None) -> dict:
    import torch
    from transformers import AutoModelForCausalLM

    cuda = device == "cuda"
    torch.manual_seed(1234)
    import datetime

    record: dict = {"gradient_checkpointing": checkpointing, "tokens": tokens,
                    "optimizer_foreach": foreach, "status": "ok",
                    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")}
    _init_group(device)
    if cuda:
        torch.cuda.set_device(0)
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated() if cuda else 0
    t0 = time.time()
    _phase("build")
    config = shapes.build_config(m)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32, attn_implementation="sdpa")
    record["hf_class"] = type(model).__name__
    record["params"] = sum(p.numel() for p in model.parameters())
    model.train()
    model = apply_fsdp2(model, device)
    if checkpointing:
        model.gradient_checkpointing_enable()
    opt = miles_fsdp.OPTIMIZER
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt["lr"], betas=tuple(opt["betas"]), eps=opt["eps"],
                                  weight_decay=opt["weight_decay"], foreach=foreach)
    after_build = torch.cuda.memory_allocated() - base if cuda else None
    record["weights_bytes_before_step"] = after_build
    gen = torch.Generator(device="cpu").manual_seed(0)
    ids = torch.randint(0, m["vocab"], (1, tokens), generator=gen).to(device)
    pos = torch.arange(tokens, device=device).unsqueeze(0)
    peaks = []
    losses = []
    for _ in range(2):
        loss, part = train_step(model, optimizer, ids, pos, cuda)
        losses.append(loss)
        if cuda:
            peaks.append({k: v - base for k, v in part.items()})
    record["losses"] = losses
    counted = tensor_bytes(model, optimizer)
    record["tensor_bytes"] = counted
    state = counted["params"] + counted["grads"] + counted.get("exp_avg", 0) + counted.get("exp_avg_sq", 0)
    if cuda:
        record["held_source"] = "allocator"
        record["held_bytes"] = torch.cuda.memory_allocated() - base
        for i, part in enumerate(peaks, 1):
            record[f"peak_bytes_step{i}"] = max(part.values())
            record[f"peak_bytes_step{i}_forward_backward"] = part["forward_backward"]
            record[f"peak_bytes_step{i}_optimizer"] = part["optimizer"]
        record["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    else:
        record["held_source"] = "tensors"
        record["held_bytes"] = state
        for i in (1, 2):
            for suffix in ("", "_forward_backward", "_optimizer"):
                record[f"peak_bytes_step{i}{suffix}"] = None
        record["peak_reserved_bytes"] = None
    optimizer.zero_grad(set_to_none=True)
    if cuda:
        torch.cuda.synchronize()
        record["held_without_grads_bytes"] = torch.cuda.memory_allocated() - base
    else:
        record["held_without_grads_bytes"] = state - counted["grads"]
    if sweep_counts and cuda:
        del ids, pos
        # The moments do not change with the token count: freeing them lets the sweep reach more tokens.
        optimizer.state.clear()
        record["sweep_optimizer_state"] = "freed"
        record["sweep"] = sweep(model, optimizer, m["vocab"], sweep_counts, device, base)
    record["seconds"] = round(time.time() - t0, 2)
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=None, help="models.json (or a file of the same shape)")
    ap.add_argument("--model")
    ap.add_argument("--tokens", type=int)
    ap.add_argument("--sweep", default=None, help="comma-separated token counts for forward/backward peaks")
    ap.add_argument("--gradient-checkpointing", action="store_true")
    ap.add_argument("--no-foreach", action="store_true", help="AdamW(foreach=False) instead of PyTorch's default")
    ap.add_argument("--device", choices=("cuda", "cpu"), default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--probe", action="store_true", help="write only the host record to --out")
    a = ap.parse_args(argv)
    import torch

    if a.probe:
        Path(a.out).write_text(json.dumps(host(), indent=1))
        return 0

    device = a.device or ("cuda" if torch.cuda.is_available() else "cpu")
    models = {r["name"]: r for r in json.loads(Path(a.models).read_text())["models"]}
    foreach = False if a.no_foreach else miles_fsdp.OPTIMIZER["foreach"]
    try:
        counts = [int(x) for x in a.sweep.split(",")] if a.sweep else None
        record = measure(models[a.model], a.tokens, a.gradient_checkpointing, device, foreach, counts)
    except torch.OutOfMemoryError as e:
        record = {"gradient_checkpointing": a.gradient_checkpointing, "tokens": a.tokens, "optimizer_foreach": foreach,
                  "status": "oom", "phase": PHASE, "error": str(e).splitlines()[0][:400]}
    except Exception as e:  # noqa: BLE001 -- recorded, the driver decides
        traceback.print_exc()
        record = {"gradient_checkpointing": a.gradient_checkpointing, "tokens": a.tokens, "optimizer_foreach": foreach,
                  "status": "error", "phase": PHASE, "error": f"{type(e).__name__}: {e}"[:400]}
    Path(a.out).write_text(json.dumps(record, indent=1))
    _close_group()
    return 0


def _close_group() -> None:
    """End the one-process group `_init_group` opened, if it did (also what master_copy.py calls)."""
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
