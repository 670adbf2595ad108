"""The host run: pick the models that build and fit, measure each in its own subprocess, write one JSON.

    python3 -m capture.crosscheck --out capture/crosscheck/results/h200.json [--tokens 4096]
        [--only qwen3-0.6B,qwen3-1.7B] [--merge EXISTING.json] [--budget-seconds 540] [--device cpu]
        [--sweep 2048,4096,8192,16384]

Smallest models first. Each (model, gradient checkpointing off/on) is one subprocess of
``capture.crosscheck.measure``; this process never touches the device, so no CUDA context of its own
sits beside the one it measures. An out-of-memory run is kept in the record and retried: in the
optimizer step with AdamW(foreach=False) (PyTorch's default foreach step allocates a temporary per
moment), in the forward or backward pass at half the tokens (not below --min-tokens).
The JSON is rewritten after every model, so a run cut short keeps what it measured.
With --sweep, each run also measures the forward/backward peak at those token counts (measure.py's
``sweep``), from which the reader takes the per-token activation term as a least-squares slope.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from miles101 import derive
from capture.crosscheck import SCHEMA, miles_fsdp, shapes

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "capture" / "miles" / "models.json"
TRAINER_BYTES = derive.TRAINER_BYTES_PER_PARAM
FIT_FRACTION = 0.95  # a model is tried when its computed state is under this share of the device's memory
SHAPE_KEYS = ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab", "tied_embeddings",
              "experts", "moe_ffn_hidden", "topk", "shared_expert_ffn", "moe_layers", "normalization", "switches")


def _sub(args: list[str], out: Path, timeout: float) -> dict:
    cmd = [sys.executable, "-m", "capture.crosscheck.measure", *args, "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, timeout=timeout, capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        return {"status": "error", "error": f"timed out after {int(timeout)} s"}
    if out.is_file():
        return json.loads(out.read_text())
    return {"status": "error", "error": f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}"}


def select(models: list[dict], memory_bytes: int | None, only: set[str] | None) -> tuple[list[dict], dict[str, str]]:
    """Models to measure (smallest first) and, for every other one, why not."""
    chosen, skipped, seen = [], {}, {}
    for m in sorted(models, key=lambda r: (derive.parameter_count(r) if not shapes.skip_reason(r) else 0, r["name"])):
        if only is not None and m["name"] not in only:
            continue
        reason = shapes.skip_reason(m)
        if reason:
            skipped[m["name"]] = reason
            continue
        shape = json.dumps([m.get(k) for k in SHAPE_KEYS])
        if shape in seen:
            skipped[m["name"]] = f"same extracted shape as {seen[shape]}, measured there"
            continue
        seen[shape] = m["name"]
        state = derive.parameter_count(m) * TRAINER_BYTES
        if memory_bytes is not None and state > FIT_FRACTION * memory_bytes:
            skipped[m["name"]] = (f"computed trainer state {state / derive.GIB:.1f} GiB is over {FIT_FRACTION:.0%} of the "
                                  f"device's {memory_bytes / derive.GIB:.1f} GiB")
            continue
        chosen.append(m)
    return chosen, skipped


def measure_model(m: dict, models_path: Path, tokens: int, min_tokens: int, device: str | None, tmp: Path,
                  deadline: float, foreach_off_first: bool = False, sweep: str | None = None) -> list[dict]:
    """Both settings for one model, with the retries the module docstring describes."""
    runs = []
    for ckpt in (False, True):
        t, foreach_off = tokens, foreach_off_first
        for _attempt in range(4):
            left = deadline - time.time()
            if left < 20:
                runs.append({"gradient_checkpointing": ckpt, "tokens": t, "optimizer_foreach": False if foreach_off
                             else miles_fsdp.OPTIMIZER["foreach"], "status": "not_run", "error": "time budget spent"})
                break
            args = ["--models", str(models_path), "--model", m["name"], "--tokens", str(t)]
            args += ["--gradient-checkpointing"] if ckpt else []
            args += ["--no-foreach"] if foreach_off else []
            args += ["--device", device] if device else []
            args += ["--sweep", sweep] if sweep else []
            rec = _sub(args, tmp / f"{m['name']}-{int(ckpt)}-{t}-{int(foreach_off)}.json", timeout=left)
            if foreach_off and foreach_off_first:
                rec["optimizer_foreach_note"] = (
                    "foreach=False from the start: params x 20 bytes (state + the fp32 temporary the default "
                    "foreach AdamW step allocates, seen as step-1 optimizer peak minus held on the smaller models) "
                    "exceeds the device memory")
            elif foreach_off:
                rec["optimizer_foreach_note"] = "foreach=False after the default step ran out of memory"
            runs.append(rec)
            print(f"  {m['name']} ckpt={ckpt} tokens={t} foreach_off={foreach_off}: {rec['status']} "
                  f"{rec.get('held_bytes', rec.get('error', ''))} {rec.get('seconds', '')} s", flush=True)
            for pt in rec.get("sweep", []):
                print(f"    sweep {pt['tokens']}: {pt['status']} {pt.get('peak_bytes', pt.get('error', ''))}", flush=True)
            if rec["status"] != "oom":
                break
            if rec.get("phase") in ("optimizer_step", "after_step", "clip_grad") and not foreach_off:
                foreach_off = True
            elif rec.get("phase") in ("forward", "backward") and t // 2 >= min_tokens:
                t //= 2
            else:
                break
    return runs


SWEEP_NOTE = ("sweep: after the two steps and with AdamW's moments freed (they do not change with the token count), "
              "forward and backward once per listed token count (smallest first, "
              "stopping at the first out-of-memory), no optimizer step; base_bytes is torch.cuda.memory_allocated() "
              "once the gradients are freed (zero_grad(set_to_none=True)), peak_bytes the max_memory_allocated() "
              "over the phase with the peak reset after that free; both less the reading before the model was built. "
              "The per-token activation term is the least-squares slope of peak_bytes over tokens.")


def document(host: dict, tokens: int, results: dict, skipped: dict, models_doc: dict,
             sweep: str | None = None) -> dict:
    setup_sweep = {"sweep": [int(x) for x in sweep.split(",")], "sweep_bytes": SWEEP_NOTE} if sweep else {}
    return {
        "schema": SCHEMA,
        "host": host,
        "setup": {
            "tokens": tokens,
            "world_size": 1,
            "miles_commit": miles_fsdp.MILES_COMMIT,
            "models_from": models_doc.get("provenance", {}),
            "optimizer": miles_fsdp.OPTIMIZER,
            "clip_grad": miles_fsdp.CLIP_GRAD,
            "param_dtype": "bfloat16",
            "reduce_dtype": "float32",
            "master_dtype": "float32",
            "attn_implementation": "sdpa",
            "sites": miles_fsdp.SITES,
            "departures": miles_fsdp.DEPARTURES,
            "held_bytes": "torch.cuda.memory_allocated() after the second optimizer step (gradients still set), "
                          "less the reading before the model was built; on CPU the sum of the parameter, gradient "
                          "and AdamW moment tensors",
            "peak_bytes": "torch.cuda.max_memory_allocated() less the same base, read twice a step: over forward "
                          "and backward (_forward_backward), and over gradient clipping and the optimizer step "
                          "(_optimizer); peak_bytes_stepN is the larger. Step 1 creates the AdamW moments; step 2 "
                          "is the steady state. peak_reserved_bytes is the caching allocator's reserve (absolute).",
            **setup_sweep,
        },
        "models": results,
        "skipped": dict(sorted(skipped.items())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--min-tokens", type=int, default=512)
    ap.add_argument("--only", default=None, help="comma-separated model names")
    ap.add_argument("--merge", type=Path, default=None, help="a results file from an earlier call to extend")
    ap.add_argument("--budget-seconds", type=float, default=24 * 3600)
    ap.add_argument("--device", choices=("cuda", "cpu"), default=None)
    ap.add_argument("--sweep", default=None, help="comma-separated token counts for the forward/backward sweep")
    ap.add_argument("--foreach-off-over", type=float, default=1.0,
                    help="start with AdamW(foreach=False) when params x (16 + 4) bytes exceed this share of the "
                         "device memory (the default foreach step allocates about one more fp32 copy of a moment)")
    a = ap.parse_args(argv)
    deadline = time.time() + a.budget_seconds
    models_doc = json.loads(a.models.read_text())
    only = set(a.only.split(",")) if a.only else None
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        host = _sub(["--probe"], tmp / "host.json", timeout=300)
        if a.device:
            host["device"] = a.device
        if "torch" not in host:
            sys.exit(f"host probe failed: {host}")
        memory = host.get("gpu_memory_bytes") if host["device"] == "cuda" else None
        chosen, skipped = select(models_doc["models"], memory, only)
        results = {}
        if a.merge and a.merge.is_file():
            earlier = json.loads(a.merge.read_text())
            results = earlier["models"]
            skipped = {**earlier.get("skipped", {}), **skipped}
        for name in results:
            skipped.pop(name, None)
        done = {n for n, r in results.items() if all(x["status"] != "not_run" for x in r["runs"])}
        chosen = [m for m in chosen if m["name"] not in done]
        print(f"host: {host}\nmeasuring: {[m['name'] for m in chosen]}", flush=True)
        for m in chosen:
            need = derive.parameter_count(m) * (TRAINER_BYTES + 4)
            first_off = memory is not None and need > a.foreach_off_over * memory
            runs = measure_model(m, a.models, a.tokens, a.min_tokens, a.device, tmp, deadline, first_off, a.sweep)
            ok = [r for r in runs if r["status"] == "ok"]
            results[m["name"]] = {
                "model_record": f"{m['file']}:{m['line']}",
                "hf_class": ok[0]["hf_class"] if ok else None,
                "params": ok[0]["params"] if ok else None,
                "runs": runs,
            }
            skipped.pop(m["name"], None)
            a.out.parent.mkdir(parents=True, exist_ok=True)
            a.out.write_text(json.dumps(document(host, a.tokens, results, skipped, models_doc, a.sweep), indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0
