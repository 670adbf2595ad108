"""How Miles's FSDP backend sets up training, each setting with the line that shows it.

Read at Miles commit 31f1ca961 (the captured commit). Kept as data so the results JSON cites
every setting it reproduces, and the measurement takes its numbers from here, not from literals.
"""
from __future__ import annotations

MILES_COMMIT = "31f1ca961a94cb860cec3b2dea34ec332bfa8f76"

# AdamW as the FSDP actor builds it (actor.py:177-184) with the defaults the FSDP backend parses:
# its own FSDPArgs (fsdp_utils/arguments.py) plus Miles's arguments, which reset --lr
# (miles/utils/arguments.py:1355) and add --clip-grad (arguments.py:1353); load_fsdp_args is called
# with add_miles_arguments as extra_args_provider (miles/utils/arguments.py:2692-2694).
OPTIMIZER = {
    "name": "torch.optim.AdamW",
    "lr": 1e-6,
    "betas": [0.9, 0.95],
    "eps": 1e-8,
    "weight_decay": 0.0,
    "foreach": None,  # Miles passes neither foreach nor fused: PyTorch's default implementation
}
CLIP_GRAD = 1.0

SITES = {
    "optimizer": "miles/backends/fsdp_utils/actor.py:177-184",
    "lr": "miles/utils/arguments.py:1355 (reset_arg over miles/backends/fsdp_utils/arguments.py:13)",
    "adam_betas_eps": "miles/backends/fsdp_utils/arguments.py:25-27",
    "weight_decay": "miles/backends/fsdp_utils/arguments.py:24",
    "clip_grad": "miles/utils/arguments.py:1353, applied at miles/backends/fsdp_utils/actor.py:538",
    "zero_grad_set_to_none": "miles/backends/fsdp_utils/actor.py:505",
    "optimizer_step": "miles/backends/fsdp_utils/actor.py:541",
    "keep_fp32_master": "miles/backends/fsdp_utils/arguments.py:39",
    "fp32_master_cast": "miles/backends/fsdp_utils/adaptations/precision.py:70, called at miles/backends/fsdp_utils/actor.py:143-144",
    "param_dtype_bf16": "miles/backends/fsdp_utils/adaptations/precision.py:39",
    "reduce_dtype_fp32": "miles/backends/fsdp_utils/adaptations/precision.py:40",
    "mixed_precision_policy": "miles/backends/fsdp_utils/actor.py:747-754",
    "fully_shard_layers_then_root": "miles/backends/fsdp_utils/actor.py:730-759",
    "untied_embedding_wrapped": "miles/backends/fsdp_utils/actor.py:737",
    "gradient_checkpointing_default_off": "miles/backends/fsdp_utils/arguments.py:37",
    "gradient_checkpointing_enable": "miles/backends/fsdp_utils/actor.py:174-175",
    "attn_implementation_default": "miles/backends/fsdp_utils/arguments.py:30",
    "bf16_logits": "miles/backends/fsdp_utils/actor.py:591-593",
    "logits_upcast_fp32_in_loss": "miles/backends/training_utils/loss_hub/math_utils.py:973,983",
}

# Where this program departs from Miles, said once in the results JSON.
DEPARTURES = [
    "Random weights built from the extracted shape with transformers' from_config directly in fp32 on the "
    "device (Miles loads the checkpoint on CPU, casts it to fp32 and moves it under FSDP2); the state held "
    "afterwards is the same fp32 sharded parameters.",
    "attn_implementation 'sdpa' instead of Miles's default 'flash_attention_2' (flash-attn is not installed "
    "on the measuring host); this changes the activation peak a little, not the held state.",
    "Loss: log_softmax over an fp32 copy of the bf16 logits, gathered at the next token, mean negated -- a "
    "stand-in for Miles's policy loss, which takes Megatron's fused cross entropy over an fp32 copy of the "
    "logits; it changes the peak, not the held state.",
    "One packed sequence of the stated token count per step, one micro-batch, world size 1 (Miles shards "
    "the same state over its data-parallel ranks; at world size 1 each rank holds all of it).",
    "No learning-rate scheduler (it holds no tensors).",
]
