"""Values derived by code from the extraction (models.json, flags.json) for ``{computed}`` roles.

Pure functions: no I/O in the formulas. ``derive_all(models, flags)`` takes the two committed
documents and returns the body of computed.json; ``--check`` re-runs it and compares.
Bytes-per-parameter constants cite Miles at the captured commit (31f1ca961).
"""
from __future__ import annotations

import math
from typing import Any

SCHEMA = "miles-computed/1"
GB = 10**9  # decimal gigabytes: the unit NVIDIA publishes the Spark's memory in (facts.json spark.memory)
GIB = 2**30  # binary gibibytes: Miles's Memory-Usage lines divide by 1024**3 (miles/utils/memory_utils.py:32)
#: Bytes in one unit of each size unit a capture value may carry (derived sizes are GiB; facts keep their own).
UNIT_BYTES = {"GB": GB, "GiB": GIB, "TB": 10**12, "TiB": 2**40, "bytes": 1}

# ---- bytes per parameter, verified in Miles's FSDP backend -------------------------------------------
BF16_BYTES = 2  # bfloat16 weights: what checkpoints, SGLang and the weight update carry
# FSDP keeps an fp32 master copy by default: FSDPArgs.keep_fp32_master = True
# (miles/backends/fsdp_utils/arguments.py:39), applied by model.to(torch.float32)
# (miles/backends/fsdp_utils/adaptations/precision.py:70, called at fsdp_utils/actor.py:144).
MASTER_WEIGHT_BYTES = 4
# Gradients live on the fp32 sharded parameters; FSDP2 reduces them in fp32
# (reduce_dtype=torch.float32, miles/backends/fsdp_utils/adaptations/precision.py:40).
GRADIENT_BYTES = 4
# torch.optim.AdamW over those fp32 parameters (miles/backends/fsdp_utils/actor.py:178) keeps two
# fp32 moments per parameter (exp_avg, exp_avg_sq).
ADAM_MOMENT_BYTES = 4 + 4
TRAINER_BYTES_PER_PARAM = MASTER_WEIGHT_BYTES + GRADIENT_BYTES + ADAM_MOMENT_BYTES
# The FSDP weight update sizes its buckets with param.numel() * param.element_size() on the
# fp32 master parameters, casting to the sync dtype only after the bucket closes
# (miles/backends/fsdp_utils/update_weight_utils.py:84-96).
UPDATE_BUCKET_BYTES_PER_PARAM = MASTER_WEIGHT_BYTES
# Except batched MoE experts: with the pinned transformers (requirements.txt:30, 5.12.1; >= 5.6 stores
# qwen3_moe experts as one batched tensor) the FSDP weight bridge gathers each batched expert tensor, casts
# it to the sync dtype (bf16) and unfuses it *before* the loop measures it
# (miles/backends/fsdp_utils/update_weight_utils.py:35-51; weight_bridge.py:37-50), for the model types
# that register the transform (adaptations/specs/qwen3_moe.py:10, glm4_moe_lite.py:9). Of the families the
# formula covers, qwen3 MoE models are qwen3_moe; glm4.5 (HF glm4_moe) registers none, so its experts
# stay fp32 in the count.
FSDP_PRECAST_EXPERT_FAMILIES = ("qwen3-",)
FSDP_EXPERT_BUCKET_BYTES_PER_PARAM = BF16_BYTES
# Megatron sizes each parameter with param.numel() * param.element_size() of the model's own parameters
# (miles/backends/megatron_utils/update_weight/hf_weight_iterator_direct.py:181-196), which are bf16 when the
# run trains with --bf16, as Miles's Megatron recipes do; the fp32 main copy lives in the optimizer.
MEGATRON_BUCKET_BYTES_PER_PARAM = BF16_BYTES
# With --no-keep-fp32-master the parameters stay in the checkpoint's dtype (bf16 for every model the
# formula covers) and PyTorch keeps gradients and AdamW's moments in the parameter's dtype: weights,
# gradient and two moments at 2 bytes each. Inference from the code, not measured.
TRAINER_BYTES_PER_PARAM_NO_MASTER = 4 * BF16_BYTES
# The KL reference model: built only when KL is in use (miles/ray/placement_group.py:150), in the
# checkpoint's dtype, always with FSDP's CPU offload (miles/backends/fsdp_utils/actor.py:645-684); on
# a unified-memory box its weights stay in the same pool.
REFERENCE_BYTES_PER_PARAM = BF16_BYTES
# SGLang's KV cache in the model's dtype (its --kv-cache-dtype "auto").
KV_CACHE_DTYPE_BYTES = BF16_BYTES
# Where SGLang sizes the KV cache (SGLang's code, not Miles's), read at this commit.
SGLANG_COMMIT = "003fca8027387a3d6565b2c08e497e3020ac6211"
SGLANG_KV_CELL = (f"https://github.com/sgl-project/sglang/blob/{SGLANG_COMMIT}/python/sglang/srt/"
                  "model_executor/pool_configurator.py")  # DefaultPoolConfigurator._compute_cell_size
SGLANG_KV_BUDGET = (f"https://github.com/sgl-project/sglang/blob/{SGLANG_COMMIT}/python/sglang/srt/"
                    "mem_cache/kv_cache_configurator.py")  # KVCacheConfigurator._profile_available_bytes

# Model families whose Megatron arguments the formula below reproduces (dense or MoE GQA
# transformers with SwiGLU or plain MLPs). Others (MLA, Mamba hybrids, gated/linear attention,
# plugin specs, attention sinks) are skipped with a reason rather than miscounted.
FORMULA_FAMILIES = ("qwen2.5-", "qwen3-", "llama3", "glm4.5-")
BUFFER_FLAG = "--update-weight-buffer-size"


# ---- the formulas ----------------------------------------------------------------------------------
def attention_params(m: dict) -> int:
    """Q, K, V, O projections with grouped-query attention, their biases and q/k norms."""
    hidden, heads, kv = m["hidden"], m["heads"], m["kv_heads"]
    head_dim = m["head_dim"] or hidden // heads
    q, kv_out = heads * head_dim, kv * head_dim
    weights = hidden * q + 2 * hidden * kv_out + q * hidden
    bias = 0
    if _has_linear_bias(m):
        bias = q + 2 * kv_out + hidden
    elif "--add-qkv-bias" in m.get("switches", []):
        bias = q + 2 * kv_out
    qk_norm = 2 * head_dim if "--qk-layernorm" in m.get("switches", []) else 0
    return weights + bias + qk_norm


def mlp_params(hidden: int, ffn: int, swiglu: bool, bias: bool) -> int:
    """One MLP: SwiGLU has gate, up and down matrices; a plain MLP has up and down."""
    up = (2 if swiglu else 1) * ffn
    return hidden * up + ffn * hidden + ((up + hidden) if bias else 0)


def moe_params(m: dict, experts: int) -> int:
    """One MoE block with ``experts`` routed experts counted, plus router and shared expert."""
    hidden, swiglu, bias = m["hidden"], _swiglu(m), _has_linear_bias(m)
    routed = experts * mlp_params(hidden, m["moe_ffn_hidden"] or m["ffn_hidden"], swiglu, bias)
    router = hidden * m["experts"]
    shared = mlp_params(hidden, m["shared_expert_ffn"], swiglu, bias) if m.get("shared_expert_ffn") else 0
    gate = hidden if "--moe-shared-expert-gate" in m.get("switches", []) and shared else 0
    return routed + router + shared + gate


def norm_params(m: dict) -> int:
    """One RMSNorm (weight) or LayerNorm (weight and bias) over the hidden size."""
    return m["hidden"] * (1 if m.get("normalization", "RMSNorm") == "RMSNorm" else 2)


def parameter_count(m: dict, active: bool = False) -> int:
    """Total parameters (or active ones: top-k routed experts) of a GQA transformer, dense or MoE."""
    layers, hidden, vocab = m["layers"], m["hidden"], m["vocab"]
    moe_layers = m.get("moe_layers") or 0 if m.get("experts") else 0
    dense_layers = layers - moe_layers
    per_layer_common = attention_params(m) + 2 * norm_params(m)
    dense = mlp_params(hidden, m["ffn_hidden"], _swiglu(m), _has_linear_bias(m))
    experts = m["topk"] if active else m.get("experts")
    moe = moe_params(m, experts) if moe_layers else 0
    embedding = vocab * hidden
    output = 0 if m["tied_embeddings"] else vocab * hidden
    return layers * per_layer_common + dense_layers * dense + moe_layers * moe + embedding + output + norm_params(m)


def gibibytes(params: int, bytes_per_param: int) -> float:
    """GiB (2**30 bytes) for ``params`` parameters at ``bytes_per_param`` bytes: the unit of Miles's
    Memory-Usage lines, so a computed size and a logged one read in the same unit."""
    return params * bytes_per_param / GIB


def size_bytes(value: float, unit: str) -> float:
    """A size in ``unit`` (a key of UNIT_BYTES) back in bytes."""
    return value * UNIT_BYTES[unit]


def kv_bytes_per_token(m: dict, dtype_bytes: int = KV_CACHE_DTYPE_BYTES) -> int:
    """SGLang's KV cell for one token of a GQA model: a key and a value per KV head, in every layer.

    SGLang's DefaultPoolConfigurator._compute_cell_size (SGLANG_KV_CELL) multiplies the KV heads by
    head_dim + v_head_dim, the layers and the dtype's size; for these models v_head_dim = head_dim.
    """
    head_dim = m["head_dim"] or m["hidden"] // m["heads"]
    return 2 * m["layers"] * m["kv_heads"] * head_dim * dtype_bytes


def trainer_bytes_per_param(fp32_master: bool = True) -> int:
    """Bytes the FSDP trainer holds per parameter, with or without the fp32 master copy."""
    return TRAINER_BYTES_PER_PARAM if fp32_master else TRAINER_BYTES_PER_PARAM_NO_MASTER


def micro_batch_tokens(sequence_tokens: int, micro_batch_size: int = 1, dynamic_batch: bool = False,
                       max_tokens_per_gpu: int | None = None) -> int:
    """Tokens of the largest training micro-batch, at full-length sequences (prompt + response).

    Without --use-dynamic-batch-size Miles cuts each step into micro-batches of --micro-batch-size samples
    (miles/backends/training_utils/data.py:480-488). With it, on FSDP, first fit counts the micro-batches under
    --max-tokens-per-gpu (data.py:489-498, miles/utils/data.py:277-288) and Karmarkar-Karp spreads the samples
    over that many, balanced by length (data.py:513-532), which can pass the cap slightly; no sample is split,
    so a micro-batch holds about the cap at most, or one sample when a sample is longer than the cap."""
    if dynamic_batch and max_tokens_per_gpu:
        return max(max_tokens_per_gpu, sequence_tokens)
    return micro_batch_size * sequence_tokens


def fit_budget(*, params: int, kv_bytes_per_token: int | None, pool_bytes: float, threshold: float,
               fraction: float, fp32_master: bool = True, reference: bool = False, response_len: int = 0,
               prompts: int = 0, samples: int = 0, activation_bytes_per_token: float | None = None,
               micro_batch_size: int = 1, prompt_len: int = 0, dynamic_batch: bool = False,
               max_tokens_per_gpu: int | None = None, train_low: float = 1.0,
               train_high: float = 1.0) -> dict[str, Any]:
    """The budget of one colocated GPU on a unified pool, phase by phase, in bytes (inference from code).

    Rollout: the trainer's state (and a KL reference model) sits in host memory, which on a
    unified-memory box is the same pool, while SGLang holds its share: at most ``fraction`` of the
    memory it saw free at start-up, here bounded by ``fraction`` of the pool (SGLANG_KV_BUDGET). Its
    KV cache is that share less its bf16 weights. Training: SGLang has released its share and the
    trainer adds the activations of one micro-batch, ``activation_bytes_per_token`` (a measured slope,
    with or without gradient checkpointing) times ``micro_batch_tokens``; estimated only when a slope exists.
    A phase does not fit when its total is over Ray's kill threshold times the pool; rollout also when
    SGLang's share cannot hold its weights (SGLang stops at start-up) or its KV cache cannot hold one
    sequence at full length (``prompt_len`` + ``response_len`` tokens). ``over`` lists the phases that
    do not fit; ``phase`` is the one the verdict is about (the one in ``over``, else the larger phase).
    "tight" when the room left under the line is smaller than one more bf16 copy of the weights (what
    reading the checkpoint leaves in the page cache). ``held`` is how many of the step's ``sequences``
    (prompts × samples) the KV cache holds at once at full length, and ``rounds`` the worst case,
    ⌈sequences ÷ held⌉: SGLang queues the rest, so the step is slower, not killed.

    ``train_low`` and ``train_high`` are the training term's error band, measured over estimated bytes
    (`miles101.crosscheck_results.leave_out_band`). The verdict stays on the safe side of it: the training phase
    counts as ``train`` times the band's top where that is above one, and it is ``near_line`` (verdict "tight",
    and the page names the allocator setting) when the room under the line is smaller than the band's width
    times the training term.
    """
    trainer = params * trainer_bytes_per_param(fp32_master)
    ref = params * REFERENCE_BYTES_PER_PARAM if reference else 0
    weights = params * BF16_BYTES
    share = fraction * pool_bytes
    kv = share - weights
    rollout = trainer + ref + share
    sequence_tokens = prompt_len + response_len
    micro_tokens = micro_batch_tokens(sequence_tokens, micro_batch_size, dynamic_batch, max_tokens_per_gpu)
    activations = None if activation_bytes_per_token is None else activation_bytes_per_token * micro_tokens
    train = None if activations is None else trainer + ref + activations
    train_safe = None if train is None else train * max(1.0, train_high)
    peak = rollout if train_safe is None else max(rollout, train_safe)
    limit = threshold * pool_bytes
    margin = limit - peak
    kv_tokens = int(kv // kv_bytes_per_token) if kv > 0 and kv_bytes_per_token else None
    sequences = prompts * samples
    held = kv_tokens // sequence_tokens if kv_tokens is not None and sequence_tokens > 0 else None
    rounds = -(-sequences // held) if held and sequences else None
    over = []
    if kv <= 0 or held == 0 or rollout > limit:
        over.append("rollout")
    if train_safe is not None and train_safe > limit:
        over.append("training")
    larger = "training" if train_safe is not None and train_safe > rollout else "rollout"
    phase = over[0] if len(over) == 1 else larger
    near_line = (not over and phase == "training" and train is not None
                 and margin < (max(1.0, train_high) - train_low) * train)
    if over:
        verdict = "does-not-fit"
    elif margin < weights or near_line:
        verdict = "tight"
    else:
        verdict = "fits"
    return {
        "trainer": trainer, "reference": ref, "weights": weights, "share": share, "kv": kv,
        "rollout": rollout, "activations": activations, "train": train, "peak": peak,
        "limit": limit, "pool": pool_bytes, "margin": margin, "verdict": verdict, "kv_tokens": kv_tokens,
        "step_tokens": prompts * samples * response_len, "micro_tokens": micro_tokens,
        "sequence_tokens": sequence_tokens, "sequences": sequences, "held": held, "rounds": rounds,
        "over": over, "phase": phase, "near_line": near_line,
    }


def fit_lever(inputs: dict[str, Any], slopes: dict[str, float | None]) -> dict[str, Any] | None:
    """The fewest changes of settings on the calculator's page that make a run that does not fit fit.

    ``inputs`` are ``fit_budget``'s keyword arguments plus ``checkpointing``; ``slopes`` the activation
    bytes per token ``{"plain": ..., "checkpointed": ...}``. Tried in order of how few settings change, and
    within that: gradient checkpointing, a smaller micro-batch (``--micro-batch-size 1``, or
    ``--max-tokens-per-gpu`` down to one sequence), ``--no-keep-fp32-master``; when rollout is still over, the
    largest SGLang fraction (two decimals) under which it fits. ``--no-keep-fp32-master`` costs learning (the bf16
    weights may not move at a small learning rate), so it is tried only after every combination of the others,
    and never with ``master_required`` (Miles refuses it there). Returns ``{"changes", "budget"}`` for the first
    that fits ("fits" before "tight"), or None when no combination does.
    """
    seq = inputs.get("prompt_len", 0) + inputs.get("response_len", 0)
    options: list[list[dict[str, Any]]] = []
    if not inputs.get("checkpointing") and slopes.get("checkpointed") is not None:
        options.append([{}, {"checkpointing": True}])
    if inputs.get("dynamic_batch") and inputs.get("max_tokens_per_gpu") and inputs["max_tokens_per_gpu"] > seq:
        options.append([{}, {"max_tokens_per_gpu": seq}])
    elif not inputs.get("dynamic_batch") and inputs.get("micro_batch_size", 1) > 1:
        options.append([{}, {"micro_batch_size": 1}])
    if inputs.get("fp32_master", True) and not inputs.get("master_required"):
        options.append([{}, {"fp32_master": False}])
    combos: list[dict[str, Any]] = [{}]
    for choice in options:
        combos = [{**c, **o} for o in choice for c in combos]
    combos.sort(key=len)  # stable: fewer changes first, in the order above
    found: dict[str, dict[str, Any]] = {}
    for costly in (False, True):  # a free lever that leaves the run tight comes before the master copy's cost
        for combo in (c for c in combos if ("fp32_master" in c) == costly):
            for changes in _with_fraction(inputs, combo, slopes, seq):
                b = _budget_of({**inputs, **changes}, slopes)
                if b["verdict"] != "does-not-fit" and b["verdict"] not in found:
                    found[b["verdict"]] = {"changes": changes, "budget": b}
            if "fits" in found:
                break
        if found:
            break
    return found.get("fits") or found.get("tight")


def _budget_of(inputs: dict[str, Any], slopes: dict[str, float | None]) -> dict[str, Any]:
    args = {k: v for k, v in inputs.items() if k not in ("checkpointing", "master_required")}
    args["activation_bytes_per_token"] = slopes.get("checkpointed" if inputs.get("checkpointing") else "plain")
    return fit_budget(**args)


def _with_fraction(inputs: dict, combo: dict, slopes: dict, seq: int) -> list[dict]:
    """The combination as it is, then with the largest two-decimal SGLang fraction that keeps rollout under
    the line with room for one more bf16 copy, then the largest that keeps it under the line at all."""
    out = [combo]
    b = _budget_of({**inputs, **combo}, slopes)
    if "rollout" not in b["over"]:
        return out
    pool = inputs["pool_bytes"]
    kv_cell = inputs.get("kv_bytes_per_token") or 0
    low = (b["weights"] + seq * kv_cell) / pool
    room = b["limit"] - b["trainer"] - b["reference"]
    for top in ((room - b["weights"]) / pool, room / pool):
        fraction = math.floor(top * 100) / 100
        if 0 < fraction < 1 and fraction >= low and fraction != inputs["fraction"]:
            out.append({**combo, "fraction": fraction})
    return out


def routed_expert_params(m: dict) -> int:
    """Parameters of every routed expert of every MoE layer (0 for a dense model)."""
    if not m.get("experts"):
        return 0
    per_expert = mlp_params(m["hidden"], m["moe_ffn_hidden"] or m["ffn_hidden"], _swiglu(m), _has_linear_bias(m))
    return (m.get("moe_layers") or 0) * m["experts"] * per_expert


def update_bytes_measured(m: dict, backend: str) -> int:
    """The bytes the weight update's bucket loop measures for one whole model, by training backend."""
    total = parameter_count(m)
    if backend == "megatron":
        return total * MEGATRON_BUCKET_BYTES_PER_PARAM
    experts = routed_expert_params(m) if m["name"].startswith(FSDP_PRECAST_EXPERT_FAMILIES) else 0
    return (total - experts) * UPDATE_BUCKET_BYTES_PER_PARAM + experts * FSDP_EXPERT_BUCKET_BYTES_PER_PARAM


def update_buckets(measured_bytes: int, buffer_bytes: int) -> int:
    """A lower bound on weight-update buckets: the bytes measured, over the buffer size, rounded up."""
    return math.ceil(measured_bytes / buffer_bytes)


def _swiglu(m: dict) -> bool:
    return "--swiglu" in m.get("switches", [])


def _has_linear_bias(m: dict) -> bool:
    return "--disable-bias-linear" not in m.get("switches", [])


# ---- applicability and assembly ---------------------------------------------------------------------
def skip_reason(m: dict) -> str | None:
    """Why the formula does not apply to a model, or None when it does."""
    if not m["name"].startswith(FORMULA_FAMILIES):
        return "architecture not covered by the formula (only qwen2.5, qwen3, llama3, glm4.5 families)"
    if m.get("arch_flags"):
        return "uses " + ", ".join(m["arch_flags"]) + ", which the formula does not count"
    missing = [k for k in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab") if m.get(k) is None]
    if m.get("experts") and (m.get("topk") is None or m.get("moe_layers") is None):
        missing.append("topk/moe_layers")
    return f"missing {', '.join(missing)}" if missing else None


def _buffer_default(flags: dict) -> tuple[int, str]:
    for record in flags["flags"]:
        if record["name"] == BUFFER_FLAG and record["family"] == "miles" and record["default_kind"] == "literal":
            return int(record["default"]), f"{record['file']}:{record['line']}"
    raise ValueError(f"{BUFFER_FLAG} has no literal default in flags.json")


def _shape_inputs(m: dict) -> dict[str, Any]:
    keys = ["layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab", "tied_embeddings",
            "experts", "moe_ffn_hidden", "topk", "shared_expert_ffn", "moe_layers", "normalization", "switches"]
    return {"model": f"{m['file']}:{m['line']}", **{k: m.get(k) for k in keys}}


def _value(value: float | int, unit: str, formula: str, inputs: dict, what: str) -> dict:
    return {"value": value, "unit": unit, "formula": f"miles101.derive.{formula}", "inputs": inputs, "what": what}


def derive_model(m: dict, buffer_bytes: int, buffer_site: str) -> dict[str, dict]:
    """Every computed value for one model the formula applies to."""
    name, shape = m["name"], _shape_inputs(m)
    total = parameter_count(m)
    out = {f"params.{name}": _value(total, "", "parameter_count", shape,
                                    f"Total parameters of {name}, from its Miles model script")}
    if m.get("experts"):
        out[f"params_active.{name}"] = _value(parameter_count(m, active=True), "", "parameter_count", shape,
                                              f"Parameters one token passes through in {name} (top-k experts)")
    count = {"params": total, "params_from": f"params.{name}"}
    out[f"weights_bf16.{name}"] = _value(
        gibibytes(total, BF16_BYTES), "GiB", "gibibytes", {**count, "bytes_per_param": BF16_BYTES},
        f"Size of {name}'s weights in bf16")
    out[f"trainer_state.{name}"] = _value(
        gibibytes(total, TRAINER_BYTES_PER_PARAM), "GiB", "gibibytes",
        {**count, "bytes_per_param": TRAINER_BYTES_PER_PARAM, "master_weights": MASTER_WEIGHT_BYTES,
         "gradients": GRADIENT_BYTES, "adam_moments": ADAM_MOMENT_BYTES},
        f"What the FSDP trainer holds for {name} across all ranks: fp32 master, fp32 grads, two AdamW moments")
    out[f"rollout_weights.{name}"] = _value(
        gibibytes(total, BF16_BYTES), "GiB", "gibibytes", {**count, "bytes_per_param": BF16_BYTES},
        f"bf16 weights one SGLang engine holds for {name} (before KV cache)")
    out[f"kv_bytes_per_token.{name}"] = _value(
        kv_bytes_per_token(m), "bytes", "kv_bytes_per_token",
        {"model": shape["model"], "layers": m["layers"], "kv_heads": m["kv_heads"],
         "head_dim": m["head_dim"] or m["hidden"] // m["heads"], "dtype_bytes": KV_CACHE_DTYPE_BYTES,
         "formula_from": SGLANG_KV_CELL},
        f"Bytes of SGLang's KV cache per token for {name} in bf16 (2 x layers x KV heads x head_dim x 2)")
    buffer = {"buffer_bytes": buffer_bytes, "buffer_flag": BUFFER_FLAG, "buffer_default_at": buffer_site}
    fsdp_bytes = update_bytes_measured(m, "fsdp")
    precast = routed_expert_params(m) if name.startswith(FSDP_PRECAST_EXPERT_FAMILIES) else 0
    out[f"update_buckets_fsdp.{name}"] = _value(
        update_buckets(fsdp_bytes, buffer_bytes), "", "update_buckets",
        {**count, "measured_bytes": fsdp_bytes, "bytes_per_param": UPDATE_BUCKET_BYTES_PER_PARAM,
         "bf16_expert_params": precast, "expert_bytes_per_param": FSDP_EXPERT_BUCKET_BYTES_PER_PARAM, **buffer},
        f"Fewest FSDP weight-update buckets for {name} at the default {BUFFER_FLAG}: fp32 master parameters"
        + (", routed experts cast to bf16 before they are measured" if precast else ""))
    out[f"update_buckets_megatron.{name}"] = _value(
        update_buckets(update_bytes_measured(m, "megatron"), buffer_bytes), "", "update_buckets",
        {**count, "measured_bytes": update_bytes_measured(m, "megatron"),
         "bytes_per_param": MEGATRON_BUCKET_BYTES_PER_PARAM, **buffer},
        f"Fewest Megatron weight-update buckets for {name} at the default {BUFFER_FLAG}: bf16 parameters (--bf16)")
    return out


def bytes_per_param_values() -> dict[str, dict]:
    """The per-parameter byte counts above, citable on their own (`{computed}`bytes_per_param.trainer_state``)."""
    sites = "miles/backends/fsdp_utils/arguments.py:39, adaptations/precision.py:40,70, actor.py:178"
    return {
        "bytes_per_param.trainer_state": _value(
            TRAINER_BYTES_PER_PARAM, "bytes", "bytes_per_param_values",
            {"master_weights": MASTER_WEIGHT_BYTES, "gradients": GRADIENT_BYTES, "adam_moments": ADAM_MOMENT_BYTES,
             "sites": sites},
            "Bytes the FSDP trainer holds per parameter: fp32 master, fp32 gradient, two fp32 AdamW moments"),
        "bytes_per_param.master_weights": _value(
            MASTER_WEIGHT_BYTES, "bytes", "bytes_per_param_values", {"sites": sites},
            "Bytes per parameter of the FSDP trainer's fp32 master weights"),
        "bytes_per_param.gradients": _value(
            GRADIENT_BYTES, "bytes", "bytes_per_param_values", {"sites": sites},
            "Bytes per parameter of the FSDP trainer's fp32 gradients"),
        "bytes_per_param.adam_moments": _value(
            ADAM_MOMENT_BYTES, "bytes", "bytes_per_param_values", {"sites": sites},
            "Bytes per parameter of AdamW's two fp32 moments"),
        "bytes_per_param.trainer_state_no_master": _value(
            TRAINER_BYTES_PER_PARAM_NO_MASTER, "bytes", "bytes_per_param_values",
            {"weights": BF16_BYTES, "gradients": BF16_BYTES, "adam_moments": 2 * BF16_BYTES, "sites": sites},
            "Bytes the FSDP trainer holds per parameter with --no-keep-fp32-master: bf16 weight, gradient "
            "and two AdamW moments"),
        "bytes_per_param.bf16": _value(
            BF16_BYTES, "bytes", "bytes_per_param_values", {}, "Bytes per parameter of bf16 weights (checkpoint, SGLang, update)"),
    }


def derive_all(models: dict, flags: dict) -> dict:
    """computed.json from models.json and flags.json (deterministic: same inputs, same output)."""
    buffer_bytes, buffer_site = _buffer_default(flags)
    values: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    for m in sorted(models["models"], key=lambda r: r["name"]):
        reason = skip_reason(m)
        if reason:
            skipped[m["name"]] = reason
            continue
        values.update(derive_model(m, buffer_bytes, buffer_site))
    values.update(bytes_per_param_values())
    return {
        "schema": SCHEMA,
        "provenance": dict(models["provenance"]),
        "values": dict(sorted(values.items())),
        "skipped": skipped,
    }
