"""The "Will it fit?" calculator's data and its page rules, without Sphinx: one copy for both gates (issue 51 §6).

`coefficients` gathers everything the calculator computes with from the capture (computed.json,
facts.json, flags.json, references, cross-check results); `run_settings` reads a run file's values
as its starting settings. `fit_block` is the rule for one ```{fit-calculator}``` or ```{fit-compare}```
block (its options, its model, its run, the coefficients): the build's directives
(`miles101.sphinx_ext.calculator`) call it, and `--check` runs `fit_directive_problems` over the
page sources, so a block one gate refuses the other refuses too, with the same words.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .crosscheck_results import SWEEP_PHASE, activation_slopes, host_gpu, leave_out_band
from .master_copy import master_copy_figure
from .derive import UNIT_BYTES
from .markup import directive_options
from .problems import Problem, Subtype

SCHEMA = "m101-fit/1"
#: The pool: the total CUDA reports for a GB10's shared memory (what Miles prints as total_GB, what
#: SGLang's fraction is a share of), a public reference; 2.1 and 8.4 cite the same key.
POOL_KIND, POOL_KEY = "reference", "gb10_memory.cuda_total"
THRESHOLD_FACT = "ray.memory_usage_threshold"
#: The label every cross-check value wears, with the GPU it ran on filled in.
CROSSCHECK_LABEL = "checked on {gpu}, not a GB10"
#: The flags the calculator prints for the reader to paste; each must exist in flags.json.
FLAGS = {
    "fraction": "--sglang-mem-fraction-static",
    "no_master": "--no-keep-fp32-master",
    "master": "--keep-fp32-master",
    "cpu_offload": "--fsdp-cpu-offload",
    "kl": "--use-kl-loss",
    "kl_coef": "--kl-loss-coef",
    "response_len": "--rollout-max-response-len",
    "prompts": "--rollout-batch-size",
    "samples": "--n-samples-per-prompt",
    "micro_batch": "--micro-batch-size",
    "prompt_len": "--rollout-max-prompt-len",
    "global_batch": "--global-batch-size",
    "checkpointing": "--gradient-checkpointing",
    "dynamic": "--use-dynamic-batch-size",
    "max_tokens": "--max-tokens-per-gpu",
    "train_env": "--train-env-vars",
    "true_on_policy": "--true-on-policy-mode",
}
#: The allocator setting the verdict names near the line: trainer only, as Miles's FSDP colocate tests pass it
#: (tests/e2e/fsdp/r3/_common.py:76-78: exported to the whole job it disables torch_memory_saver).
ALLOCATOR_ENV = '{"PYTORCH_CUDA_ALLOC_CONF":"expandable_segments:True"}'
#: The page whose entry explains --train-env-vars (the verdict links it).
TRAIN_ENV_DOC = "sections/2-3-stop-ray-killing-the-job"
#: Optimizer steps after which the master copy's cost is shown (the book's recipe runs about this many).
MASTER_COPY_STEPS = 100
#: The run file settings the directive's :run: option reads as the calculator's starting values.
RUN_DEFAULTS = {"fraction": float, "response_len": int, "prompts": int, "samples": int}
#: The largest value each whole-number field takes (the widget refuses more, naming the limit).
LIMITS = {"response_len": 1_000_000, "prompt_len": 1_000_000, "prompts": 100_000, "samples": 10_000,
          "micro_batch_size": 4096, "max_tokens_per_gpu": 10_000_000, "global_batch": 1_000_000_000}
#: The activation slope each setting of --gradient-checkpointing reads.
SLOPE_KEYS = {False: "plain", True: "checkpointed"}
#: The terms of the worked sum a measurement can be held against, with how the page names them.
COMPARE_TERMS = {"trainer": "FSDP trainer state", "rollout": "pool during rollout",
                 "train": "pool during training", "peak": "larger phase"}
COMPARE_FIX = ("write ```{fit-compare} <run>.<value>``` with :model: (a model of computed.json) and :term: "
               f"({', '.join(COMPARE_TERMS)}).")
#: The directives whose blocks `fit_block` checks.
DIRECTIVES = ("fit-calculator", "fit-compare")
CAPTURE_FIX = "regenerate capture/computed.json or add the fact to capture/facts.json."
RUN_FIX = "pick a run file that passes the flag with a value."


class CalculatorError(Exception):
    """A coefficient the calculator needs is missing from the capture."""


# ---------------------------------------------------------------------------------------- data
def _value(capture: Any, kind: str, key: str) -> Any:
    v = capture.value(kind, key)
    if v is None or v.value is None:
        raise CalculatorError(f"the calculator needs {kind} `{key}`, which capture/ does not hold.")
    return v


def _flag_default(capture: Any, name: str) -> Any:
    records = capture.flag(name)
    if not records:
        raise CalculatorError(f"the calculator names {name}, which Miles does not have.")
    return records[0].get("default")


def crosscheck_hosts(capture: Any) -> dict[str, dict[str, str]]:
    """Each cross-check host's label (its GPU, not a GB10) and results file, said once for all its slopes."""
    return {host: {"label": CROSSCHECK_LABEL.format(gpu=host_gpu(doc)), "from": f"capture/crosscheck/results/{host}.json"}
            for host, doc in sorted(capture.crosschecks.items())}


def activation_coefficients(capture: Any) -> dict[str, dict[str, dict]]:
    """Per model, the activation bytes per token without (``plain``) and with (``checkpointed``) gradient
    checkpointing: the least-squares slope of the forward/backward peak over the tokens, from the validated
    cross-checks the capture holds (`miles101.crosscheck_results.activation_slopes`, which reads only points of
    the forward/backward phase). The first host (by name) with a slope for a setting gives it; ``host`` keys
    ``crosscheck_hosts`` for its label, ``points`` is how many token counts the line goes through.
    """
    out: dict[str, dict[str, dict]] = {}
    for host, doc in sorted(capture.crosschecks.items()):
        for name, fits in activation_slopes(doc).items():
            for ckpt, fit in fits.items():
                out.setdefault(name, {}).setdefault(SLOPE_KEYS[ckpt], {
                    "bytes_per_token": fit["bytes_per_token"], "points": len(fit["tokens"]), "host": host})
    return out


def coefficients(capture: Any) -> dict[str, Any]:
    """Everything the calculator computes with, read from the capture (no constant typed here)."""
    pool = _value(capture, POOL_KIND, POOL_KEY)
    if pool.unit not in UNIT_BYTES:
        raise CalculatorError(f"{POOL_KIND} `{POOL_KEY}` is in {pool.unit!r}; the calculator knows {sorted(UNIT_BYTES)}.")
    threshold = _value(capture, "fact", THRESHOLD_FACT)
    per_param = {k: _value(capture, "computed", f"bytes_per_param.{k}").value
                 for k in ("trainer_state", "trainer_state_no_master", "bf16")}
    for name in FLAGS.values():
        _flag_default(capture, name)
    activations = activation_coefficients(capture)
    models = []
    for key in capture.value_keys("computed"):
        if not key.startswith("kv_bytes_per_token."):
            continue
        name = key.split(".", 1)[1]
        params = capture.value("computed", f"params.{name}")
        if params is None:
            continue
        active = capture.value("computed", f"params_active.{name}")
        models.append({"name": name, "params": params.value, "params_active": active.value if active else None,
                       "kv_bytes_per_token": capture.value("computed", key).value,
                       "activation": activations.get(name),
                       # Miles's Qwen3 dense true-on-policy contract (model_type "qwen3") requires the master copy
                       "qwen3_dense": name.startswith("qwen3-") and active is None})
    models.sort(key=lambda m: (m["params"], m["name"]))
    return {
        "schema": SCHEMA,
        "formula": "miles101.derive.fit_budget",
        "pool": {"bytes": pool.value * UNIT_BYTES[pool.unit], "value": pool.value, "unit": pool.unit,
                 POOL_KIND: POOL_KEY, "label": pool.detail.get("label", POOL_KEY)},
        "threshold": {"value": threshold.value, "fact": THRESHOLD_FACT},
        "gib": UNIT_BYTES["GiB"],
        "bytes_per_param": {"trainer_fp32_master": per_param["trainer_state"],
                            "trainer_no_master": per_param["trainer_state_no_master"],
                            "weights": per_param["bf16"], "reference": per_param["bf16"]},
        "defaults": {"fp32_master": bool(_flag_default(capture, "--keep-fp32-master")),
                     "cpu_offload": bool(_flag_default(capture, "--fsdp-cpu-offload")),
                     "reference": bool(_flag_default(capture, "--use-kl-loss")),
                     "micro_batch_size": int(_flag_default(capture, "--micro-batch-size"))},
        "flags": dict(FLAGS),
        "limits": dict(LIMITS),
        "activation_phase": SWEEP_PHASE,
        "band": training_band(capture, models),
        "master_copy": master_copy_figure(capture, MASTER_COPY_STEPS),
        "allocator_env": ALLOCATOR_ENV,
        "crosschecks": crosscheck_hosts(capture),
        "models": models,
    }


def training_band(capture: Any, models: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The training term's error band from the cross-checks' sweeps (`crosscheck_results.leave_out_band`)."""
    per = {k: _value(capture, "computed", f"bytes_per_param.{k}").value for k in ("trainer_state", "adam_moments")}
    return leave_out_band(capture.crosschecks, {m["name"]: m["params"] for m in models},
                          per["trainer_state"], per["adam_moments"])


def run_settings(capture: Any, doc: dict[str, Any], run: str) -> dict[str, Any] | str:
    """The calculator's settings at a run file's values (Miles's defaults for the switches), or why not."""
    settings: dict[str, Any] = {}
    for key, cast in RUN_DEFAULTS.items():
        raw, why = capture.run_arg(run, FLAGS[key])
        if raw is None:
            return why
        settings[key] = cast(raw)
    # The longest prompt: the run file's --rollout-max-prompt-len, else assumed as long as the
    # response cap (a stated assumption; the reader types their data's longest prompt).
    raw, _ = capture.run_arg(run, FLAGS["prompt_len"])
    settings["prompt_len"] = int(raw) if raw is not None else settings["response_len"]
    settings["prompt_assumed"] = raw is None
    settings.update(fp32_master=doc["defaults"]["fp32_master"], reference=doc["defaults"]["reference"],
                    cpu_offload=doc["defaults"]["cpu_offload"])
    raw, _ = capture.run_arg(run, FLAGS["micro_batch"])
    settings["micro_batch_size"] = int(raw) if raw is not None else doc["defaults"]["micro_batch_size"]
    raw, _ = capture.run_arg(run, FLAGS["max_tokens"])
    settings["max_tokens_per_gpu"] = int(raw) if raw is not None else None
    args = [str(a) for a in (capture.runs.get(run) or {}).get("args") or []]
    settings["checkpointing"] = FLAGS["checkpointing"] in args
    settings["true_on_policy"] = FLAGS["true_on_policy"] in args
    settings["dynamic_batch"] = FLAGS["dynamic"] in args and settings["max_tokens_per_gpu"] is not None
    # One rollout is one optimizer step unless the run file says otherwise (Miles: --global-batch-size).
    raw, _ = capture.run_arg(run, FLAGS["global_batch"])
    settings["global_batch"] = int(raw) if raw is not None else settings["prompts"] * settings["samples"]
    return settings


# ---------------------------------------------------------------------------------------- page rules
@dataclass(frozen=True)
class FitBlock:
    """What a {fit-calculator} or {fit-compare} block shows, once its rules pass."""

    doc: dict[str, Any]
    model: dict[str, Any]
    settings: dict[str, Any]
    run: str
    measured: Any = None  # {fit-compare}: the measured value it holds the estimate against


def _refuse(message: str, fix: str) -> Problem:
    return Problem(Subtype.UNKNOWN_VALUE, message, fix)


def fit_block(capture: Any, directive: str, arg: str, options: dict[str, str],
              load: Callable[[], dict[str, Any]] | None = None) -> FitBlock | Problem:
    """The rule for one ```{fit-calculator}``` or ```{fit-compare}``` block (argument and options as written).

    A Problem (no place: the caller knows it) for the first thing wrong, else what the block shows.
    `load` gives the coefficients (default: `coefficients(capture)`; a caller checking many blocks caches it).
    """
    load = load or (lambda: coefficients(capture))
    measured = None
    if directive == "fit-calculator":
        missing = [o for o in ("model", "run") if not options.get(o)]
        if missing:
            return _refuse(f"fit-calculator has no :{missing[0]}:.",
                           "give :model: (a model of computed.json) and :run: (a run file id).")
        name, run = options["model"].strip(), options["run"].strip()
    else:
        key = arg.strip()
        run, _, value_name = key.partition(".")
        term = (options.get("term") or "trainer").strip()
        fix = COMPARE_FIX
        if term not in COMPARE_TERMS:
            return _refuse(f"fit-compare: no term {term!r}.", fix)
        if not options.get("model"):
            return _refuse("fit-compare has no :model:.", fix)
        measured = capture.value("measured", key)
        if measured is None or not value_name:
            return _refuse(f"fit-compare: no measured value {key!r} (a value the run file declares).", fix)
        name = options["model"].strip()
    try:
        doc = load()
    except CalculatorError as exc:
        return _refuse(str(exc), CAPTURE_FIX)
    model = next((m for m in doc["models"] if m["name"] == name), None)
    if model is None:
        return _refuse(f"{directive}: no model {name!r} with computed sizes.",
                       f"use one of {', '.join(m['name'] for m in doc['models'])}.")
    settings = run_settings(capture, doc, run)
    if isinstance(settings, str):
        return _refuse(f"{directive}: {settings}", RUN_FIX)
    return FitBlock(doc, model, settings, run, measured)


def fit_directive_problems(capture: Any, pages: list[tuple[str, str]]) -> list[Problem]:
    """Each {fit-calculator} and {fit-compare} block the build refuses, at its page and line (`--check`'s copy)."""
    load = cache(lambda: coefficients(capture))
    out: list[Problem] = []
    for rel, text in pages:
        for line, name, arg, options in directive_options(text):
            if name not in DIRECTIVES:
                continue
            result = fit_block(capture, name, arg, options, load)
            if isinstance(result, Problem):
                out.append(Problem(result.subtype, result.message, result.fix, f"{rel}:{line}"))
    return out
