"""```{fit-calculator}```: "Will it fit?" on one unified-memory box, over the computed sizes.

The formulas live in _ext/miles101/derive.py (``fit_budget``, ``trainer_bytes_per_param``,
``kv_bytes_per_token``). This module only gathers their inputs from the capture (computed.json,
facts.json, flags.json, a run file, and a cross-check result when one exists) into one
coefficients document, writes it to ``_static/m101-fit-coefficients.json``, embeds it in the page
beside a worked sum rendered at build time, and loads the calculator's ES module and stylesheet on
the pages that use the directive and nowhere else. The JavaScript never holds a constant of its own.

A page holding a calculator notes the dependency `fit:coefficients` (registered with the domain
through ``domain.register_derived``), so it is read again when the coefficients change, say when a
cross-check result lands, like any page citing a changed value.

Porting note: everything is reached through ``setup_calculator(app)``; the module depends on the
extension only through ``domain`` (``domain_of``, ``capture_of``, ``register_derived``),
``base.ManualDirective`` and ``values.value_inline``.
"""
from __future__ import annotations

import json
import shutil
from html import escape
from pathlib import Path
from collections.abc import Callable
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from ..data import Value, fingerprint
from ..crosscheck_results import SWEEP_PHASE, activation_slopes, host_gpu
from ..derive import GIB, UNIT_BYTES, fit_budget, fit_lever
from ..problems import Subtype
from .base import ManualDirective, skip_node
from .domain import capture_of, domain_of, register_derived
from .script_json import json_for_script
from .values import value_inline

SCHEMA = "m101-fit/1"
STATIC = Path(__file__).with_name("static")
JS_FILE, CSS_FILE, JSON_FILE = "fit-calculator.js", "fit-calculator.css", "m101-fit-coefficients.json"
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
}
#: The run file settings the directive's :run: option reads as the calculator's starting values.
RUN_DEFAULTS = {"fraction": float, "response_len": int, "prompts": int, "samples": int}
#: The largest value each whole-number field takes (the widget refuses more, naming the limit).
LIMITS = {"response_len": 1_000_000, "prompt_len": 1_000_000, "prompts": 100_000, "samples": 10_000,
          "micro_batch_size": 4096, "max_tokens_per_gpu": 10_000_000, "global_batch": 1_000_000_000}
#: The activation slope each setting of --gradient-checkpointing reads.
SLOPE_KEYS = {False: "plain", True: "checkpointed"}


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
                       "activation": activations.get(name)})
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
        "crosschecks": crosscheck_hosts(capture),
        "models": models,
    }


def _slopes(model: dict[str, Any]) -> dict[str, float | None]:
    act = model.get("activation") or {}
    return {k: (act.get(k) or {}).get("bytes_per_token") for k in SLOPE_KEYS.values()}


def budget_inputs(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """derive.fit_budget's arguments (plus ``checkpointing``) for a model at the calculator's settings."""
    return {"params": model["params"], "kv_bytes_per_token": model.get("kv_bytes_per_token"),
            "pool_bytes": doc["pool"]["bytes"], "threshold": doc["threshold"]["value"],
            "fraction": settings["fraction"], "fp32_master": settings.get("fp32_master", True),
            "reference": settings.get("reference", False), "response_len": settings["response_len"],
            "prompts": settings["prompts"], "samples": settings["samples"],
            "micro_batch_size": settings.get("micro_batch_size", doc["defaults"]["micro_batch_size"]),
            "prompt_len": settings.get("prompt_len", 0), "dynamic_batch": settings.get("dynamic_batch", False),
            "max_tokens_per_gpu": settings.get("max_tokens_per_gpu"),
            "checkpointing": settings.get("checkpointing", False)}


def budget_for(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """derive.fit_budget over the document's coefficients: what the page and the JavaScript show.

    The activation term reads the slope of the setting of --gradient-checkpointing."""
    inputs = budget_inputs(doc, model, settings)
    ckpt = inputs.pop("checkpointing")
    return fit_budget(**inputs, activation_bytes_per_token=_slopes(model)[SLOPE_KEYS[bool(ckpt)]])


def lever_for(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any] | None:
    """derive.fit_lever at these settings: the changes that make the run fit, or None when none can."""
    return fit_lever(budget_inputs(doc, model, settings), _slopes(model))


def lever_flags(doc: dict[str, Any], changes: dict[str, Any], num: Callable[[Any], str] = str) -> list[str]:
    """A lever's changes as the flags that make them (the same words the widget prints); `num` writes each value."""
    F, out = doc["flags"], []
    if changes.get("checkpointing"):
        out.append(F["checkpointing"])
    if "micro_batch_size" in changes:
        out.append(f"{F['micro_batch']} {num(changes['micro_batch_size'])}")
    if "max_tokens_per_gpu" in changes:
        out.append(f"{F['max_tokens']} {num(changes['max_tokens_per_gpu'])}")
    if changes.get("fp32_master") is False:
        out.append(F["no_master"])
    if "fraction" in changes:
        out.append(f"{F['fraction']} {num(changes['fraction'])}")
    return out


def verdict_sentence(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any], b: dict) -> str:
    """Which phase does not fit and what would make it fit (every edition prints the same)."""
    return plain(_verdict_sentence(doc, model, settings, b))


def _verdict_sentence(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any], b: dict) -> str:
    """verdict_sentence with each computed number marked (`num`)."""
    if b["verdict"] != "does-not-fit":
        return ""
    phases = (f"The {' and '.join(b['over'])} phases do not" if len(b["over"]) > 1
              else f"The {b['over'][0]} phase does not")
    lever = lever_for(doc, model, settings)
    if lever is None:
        return f" {phases} fit, and neither gradient checkpointing, a smaller micro-batch, dropping the fp32 master copy nor SGLang's share makes it fit: pick a smaller model or a shorter response."
    flags = ", ".join(lever_flags(doc, lever["changes"], num))
    return f" {phases} fit; {flags} would make it {VERDICT_WORD[lever['budget']['verdict']]}."


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
    settings["dynamic_batch"] = FLAGS["dynamic"] in args and settings["max_tokens_per_gpu"] is not None
    # One rollout is one optimizer step unless the run file says otherwise (Miles: --global-batch-size).
    raw, _ = capture.run_arg(run, FLAGS["global_batch"])
    settings["global_batch"] = int(raw) if raw is not None else settings["prompts"] * settings["samples"]
    return settings


def note_deps(env: Any, capture: Any, doc: dict[str, Any], run: str) -> None:
    """The page is read again when anything the calculator computes with changes."""
    domain = domain_of(env)
    for kind, key in [(POOL_KIND, POOL_KEY), ("fact", THRESHOLD_FACT), ("run", run),
                      *[("flag", f) for f in FLAGS.values()],
                      *[("computed", f"{p}.{m['name']}") for m in doc["models"]
                        for p in ("params", "kv_bytes_per_token")]]:
        domain.note_dep(env.docname, kind, key, capture.fingerprint_of(kind, key))


#: The terms of the worked sum a measurement can be held against, with how the page names them.
COMPARE_TERMS = {"trainer": "FSDP trainer state", "rollout": "pool during rollout",
                 "train": "pool during training", "peak": "larger phase"}


def compare(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any], term: str,
            measured_value: float, measured_unit: str) -> dict[str, float] | str:
    """The calculator's estimate of one term against a measured size: bytes of each and their ratio.

    The measured value goes back to bytes by its own unit (GiB for Miles's Memory-Usage lines), so the
    ratio is measured bytes over estimated bytes, whatever the units.
    """
    if measured_unit not in UNIT_BYTES:
        return f"the measured value is in {measured_unit!r}; a comparison needs one of {sorted(UNIT_BYTES)}."
    estimate = budget_for(doc, model, settings).get(term)
    if not estimate:
        return f"the calculator has no {term!r} estimate for {model['name']} (no activation coefficient?)."
    measured = measured_value * UNIT_BYTES[measured_unit]
    return {"estimate": estimate, "measured": measured, "ratio": measured / estimate}


# ---------------------------------------------------------------------------------------- node
class fit_calculator(nodes.General, nodes.Element):
    """The calculator: a build-time worked sum, the embedded coefficients, and the widget's mount."""


#: Around each number the build computes for the worked sum: in HTML a `m101-value-cell` span (a cited
#: value, as in the cross-check table; the widget writes the same), elsewhere nothing.
OPEN, CLOSE = "\x01", "\x02"


def num(value: Any) -> str:
    """A computed number of the sum, marked (see OPEN)."""
    return f"{OPEN}{value}{CLOSE}"


def plain(text: str) -> str:
    """Marked text as every edition but HTML prints it."""
    return text.replace(OPEN, "").replace(CLOSE, "")


def marked_html(text: str) -> str:
    """Marked text as HTML: escaped, each number a `m101-value-cell` span."""
    return escape(text, quote=False).replace(OPEN, '<span class="m101-value-cell">').replace(CLOSE, "</span>")


def _gib(n: float, doc: dict) -> str:
    return num(f"{n / doc['gib']:,.1f} GiB")


VERDICT_TEXT = {"fits": "fits", "tight": "tight", "does-not-fit": "does not fit"}
#: The verdict as a word inside "would make it …" (the widget's VERDICT_WORD).
VERDICT_WORD = {"fits": "fit", "tight": "tight", "does-not-fit": "does not fit"}


def worked_sum_rows(doc: dict, model: dict, settings: dict) -> tuple[list[tuple[str, str, str, str]], dict]:
    """The sum's rows (term, how, size, class) and derive.fit_budget's result, for every edition."""
    rows, b = _worked_sum_rows(doc, model, settings)
    return [(label, plain(how), plain(size), cls) for label, how, size, cls in rows], b


def _worked_sum_rows(doc: dict, model: dict, settings: dict) -> tuple[list[tuple[str, str, str, str]], dict]:
    """worked_sum_rows with each computed number marked (`num`)."""
    b = budget_for(doc, model, settings)
    frac = settings["fraction"]
    per_param = doc["bytes_per_param"]["trainer_fp32_master" if settings["fp32_master"] else "trainer_no_master"]
    rows = [
        ("FSDP trainer state", f"{num(format(model['params'], ','))} parameters × {num(per_param)} bytes",
         _gib(b["trainer"], doc), "trainer"),
        ("SGLang's share", f"{num(format(frac, 'g'))} × {num(format(doc['pool']['value'], 'g'))} {doc['pool']['unit']} pool", _gib(b["share"], doc), "engine"),
        ("of which bf16 weights", f"{num(format(model['params'], ','))} × {num(doc['bytes_per_param']['weights'])} bytes",
         _gib(b["weights"], doc), "engine"),
        ("of which KV cache", f"the share less the weights; {num(format(model['kv_bytes_per_token'], ','))} bytes per token",
         _gib(b["kv"], doc), "engine"),
        ("During rollout", "trainer state + SGLang's share", _gib(b["rollout"], doc), ""),
    ]
    ckpt = bool(settings.get("checkpointing"))
    activation = (model.get("activation") or {}).get(SLOPE_KEYS[ckpt])
    if b["train"] is not None and activation:
        how = "with" if ckpt else "without"
        label = doc["crosschecks"][activation["host"]]["label"]
        rows.append(("During training", "trainer state + activations", _gib(b["train"], doc), "trainer"))
        rows.append(("of which activations", f"{num(format(activation['bytes_per_token'] / 1e6, ',.2f'))} MB per token ({how} "
                     f"gradient checkpointing; slope over {num(activation['points'])} token counts, "
                     f"{num(label)}) × {num(format(b['micro_tokens'], ','))} tokens per micro-batch",
                     _gib(b["activations"], doc), "trainer"))
    left = "Left for the OS, Ray, page cache" + ("" if b["train"] is not None else ", activations")
    rows += [
        ("Ray's kill line", f"{num(format(doc['threshold']['value'], 'g'))} × the pool", _gib(b["limit"], doc), "failure"),
        (left, f"kill line less the {b['phase']} phase", _gib(b["margin"], doc), "outside"),
    ]
    return rows, b


def held_sentence(b: dict, prompt_assumed: bool = False) -> str:
    """How many of the step's sequences the KV cache holds at once, and the worst case in rounds."""
    return plain(_held_sentence(b, prompt_assumed))


def _held_sentence(b: dict, prompt_assumed: bool = False) -> str:
    """held_sentence with each computed number marked (`num`)."""
    seq = num(format(b["sequence_tokens"], ","))
    held, sequences = num(format(b["held"] or 0, ",")), num(format(b["sequences"], ","))
    assumed = " (the prompt assumed as long as the response cap)" if prompt_assumed else ""
    if b["held"] is None:
        return ""
    if b["held"] == 0:
        return (f" It cannot hold one sequence at its full length, {seq} tokens{assumed}: the longest prompt"
                " plus --rollout-max-response-len.")
    if b["held"] >= b["sequences"]:
        return f" At {seq} tokens per sequence{assumed} it holds all {sequences} sequences of a step at once."
    return (f" At {seq} tokens per sequence{assumed} it holds {held} of a step's {sequences}"
            f" sequences at once; SGLang queues the rest, so at worst the step runs in about {num(format(b['rounds'], ','))}"
            " rounds: slower, not killed.")


def worked_sum_verdict(b: dict, prompt_assumed: bool = False, lever: str = "") -> str:
    """The sentence after the verdict word (every edition prints the same)."""
    return plain(_worked_sum_verdict(b, prompt_assumed, lever))


def _worked_sum_verdict(b: dict, prompt_assumed: bool = False, lever: str = "") -> str:
    """worked_sum_verdict with each computed number marked (`num`)."""
    tokens = num(format(b["kv_tokens"], ",")) if b["kv_tokens"] is not None else "none"
    return (f"the KV cache holds about {tokens} tokens.{_held_sentence(b, prompt_assumed)}"
            f"{'' if b['train'] is not None else ' The activation term is not estimated.'}{lever}")


def worked_sum_html(doc: dict, model: dict, settings: dict, run: str) -> str:
    """The sum at the directive's starting values, as a table (the same numbers the widget opens with)."""
    rows, b = _worked_sum_rows(doc, model, settings)
    body = "".join(
        f'<tr class="m101-fit-row-{escape(cls)}{" m101-fit-part" if label.startswith("of which") else ""}"><th scope="row">{escape(label)}</th><td>{marked_html(how)}</td>'
        f'<td class="m101-fit-num">{marked_html(val)}</td></tr>' for label, how, val, cls in rows)
    verdict = VERDICT_TEXT[b["verdict"]]
    return (
        f'<table class="m101-fit-sum" data-model="{escape(model["name"])}" data-verdict="{b["verdict"]}"'
        f' data-phase="{b["phase"]}"'
        f' data-margin-bytes="{b["margin"]!r}" data-kv-tokens="{b["kv_tokens"] if b["kv_tokens"] is not None else ""}">'
        f'<caption>Worked sum for {escape(model["name"])} with the settings of the run <code>{escape(run)}</code>'
        f' (computed at build time; inference from code, not measured)</caption>'
        f'<thead><tr><th scope="col">term</th><th scope="col">how</th><th scope="col">size</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
        f'<p class="m101-fit-sum-verdict">Verdict at these settings: <strong>{verdict}</strong>; '
        f"{marked_html(_worked_sum_verdict(b, settings.get('prompt_assumed', False), _verdict_sentence(doc, model, settings, b)))}</p>"
    )


def visit_fit_html(self: Any, node: fit_calculator) -> None:
    doc, model, settings = node["doc"], node["model"], node["settings"]
    payload = json_for_script({**doc, "start": {"model": model["name"], **settings}}, separators=(",", ":"))
    self.body.append(
        f'<div class="m101-fit" id="{escape(node["fit_id"])}">'
        f'<script type="application/json" class="m101-fit-data">{payload}</script>'
        f'{worked_sum_html(doc, model, settings, node["run"])}'
        '<p class="m101-fit-nojs">The interactive calculator needs JavaScript. With it off, use the computed'
        " table above and the worked sum here: add the trainer column, SGLang's fraction of the pool and"
        " what the OS and Ray take, and keep the sum under Ray's kill line.</p>"
        '<div class="m101-fit-app" hidden="hidden"></div></div>\n'
    )
    raise nodes.SkipNode


def visit_fit_text(self: Any, node: fit_calculator) -> None:
    self.add_text("[calculator: see the HTML page]")
    raise nodes.SkipNode


# ---------------------------------------------------------------------------------------- directive
class FitCalculatorDirective(ManualDirective):
    """```{fit-calculator}``` with :model: (the starting model) and :run: (the run file whose
    --sglang-mem-fraction-static, response length, prompts per step and samples per prompt it starts from)."""

    has_content = False
    option_spec: ClassVar = {"model": directives.unchanged_required, "run": directives.unchanged_required}

    def _problem(self, message: str, fix: str) -> list[nodes.Node]:
        return self.problem(Subtype.UNKNOWN_VALUE, message, fix)

    def run(self) -> list[nodes.Node]:
        capture = capture_of(self.env)
        missing = [o for o in ("model", "run") if not self.options.get(o)]
        if missing:
            return self._problem(f"fit-calculator has no :{missing[0]}:.",
                                 "give :model: (a model of computed.json) and :run: (a run file id).")
        try:
            doc = coefficients(capture)
        except CalculatorError as exc:
            return self._problem(str(exc), "regenerate capture/computed.json or add the fact to capture/facts.json.")
        name, run = self.options["model"].strip(), self.options["run"].strip()
        model = next((m for m in doc["models"] if m["name"] == name), None)
        if model is None:
            return self._problem(f"fit-calculator: no model {name!r} with computed sizes.",
                                 f"use one of {', '.join(m['name'] for m in doc['models'])}.")
        settings = run_settings(capture, doc, run)
        if isinstance(settings, str):
            return self._problem(f"fit-calculator: {settings}", "pick a run file that passes the flag with a value.")
        note_deps(self.env, capture, doc, run)
        self.note("fit", "coefficients")
        node = fit_calculator("", doc=doc, model=model, settings=settings, run=run,
                              fit_id=f"m101-fit-{self.env.new_serialno('m101-fit')}")
        return [node]


class FitCompareDirective(ManualDirective):
    """```{fit-compare} run.value``` with :model: and :term: (trainer, rollout, train or peak): once the run
    is recorded, one line "estimate X GiB · measured Y GiB · measured/estimate Z" at the run file's
    settings; nothing while the value is pending. The ratio is computed here, never typed."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar = {"model": directives.unchanged_required, "term": directives.unchanged}

    _problem = FitCalculatorDirective._problem

    def run(self) -> list[nodes.Node]:
        capture = capture_of(self.env)
        key = self.arguments[0].strip()
        run, _, name = key.partition(".")
        term = (self.options.get("term") or "trainer").strip()
        fix = "write ```{fit-compare} <run>.<value>``` with :model: (a model of computed.json) and :term: " \
              f"({', '.join(COMPARE_TERMS)})."
        if term not in COMPARE_TERMS:
            return self._problem(f"fit-compare: no term {term!r}.", fix)
        if not self.options.get("model"):
            return self._problem("fit-compare has no :model:.", fix)
        domain_of(self.env).note_dep(self.env.docname, "measured", key, capture.fingerprint_of("measured", key))
        measured = capture.value("measured", key)
        if measured is None or not name:
            return self._problem(f"fit-compare: no measured value {key!r} (a value the run file declares).", fix)
        try:
            doc = coefficients(capture)
        except CalculatorError as exc:
            return self._problem(str(exc), "regenerate capture/computed.json or add the fact to capture/facts.json.")
        model_name = self.options["model"].strip()
        model = next((m for m in doc["models"] if m["name"] == model_name), None)
        if model is None:
            return self._problem(f"fit-compare: no model {model_name!r} with computed sizes.",
                                 f"use one of {', '.join(m['name'] for m in doc['models'])}.")
        settings = run_settings(capture, doc, run)
        if isinstance(settings, str):
            return self._problem(f"fit-compare: {settings}", "pick a run file that passes the flag with a value.")
        note_deps(self.env, capture, doc, run)
        if measured.pending:
            return []  # nothing to compare before the run is recorded
        got = compare(doc, model, settings, term, measured.value, measured.unit)
        if isinstance(got, str):
            return self._problem(f"fit-compare: {got}", fix)
        label = COMPARE_TERMS[term]
        estimate = Value("computed", f"fit.{model_name}.{term}@{run}", got["estimate"] / GIB, "GiB",
                         f"The calculator's {label} for {model_name} at the settings of the run {run}",
                         {"formula": "miles101.derive.fit_budget"})
        ratio = Value("computed", f"fit.{model_name}.{term}@{run}/{name}", got["ratio"], "",
                      f"The measured {name} of the run {run}, in bytes, over the calculator's {label}, in bytes",
                      {"formula": "miles101.sphinx_ext.calculator.compare"})
        para = nodes.paragraph(classes=["m101-fit-compare"])
        para += nodes.Text("Estimate ")
        para += value_inline(self.env, estimate, ".1f")
        para += nodes.Text(f" ({label}) · measured ")
        para += value_inline(self.env, measured, ".1f")
        para += nodes.Text(" · measured/estimate ")
        para += value_inline(self.env, ratio, ".2f")
        self.set_source_info(para)
        return [para]


# ---------------------------------------------------------------------------------------- events
def coefficients_fingerprint(capture: Any, key: str) -> str:
    """The `fit:coefficients` dependency: the hash of the coefficients document ('missing' without one)."""
    try:
        return fingerprint(coefficients(capture))
    except CalculatorError:
        return "missing"


def _install(app: Sphinx) -> None:
    """Copy the module and stylesheet, and write the coefficients, into the build's _static."""
    if app.builder.format != "html":
        return
    out = Path(app.outdir) / "_static"
    out.mkdir(parents=True, exist_ok=True)
    for name in (JS_FILE, CSS_FILE):
        src, dest = STATIC / name, out / f"m101-{name}"
        if not dest.is_file() or dest.read_bytes() != src.read_bytes():
            shutil.copyfile(src, dest)
    try:
        doc = coefficients(capture_of(app.env))
    except CalculatorError:
        return  # the directive reports it where it is used
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    dest = out / JSON_FILE
    if not dest.is_file() or dest.read_text(encoding="utf-8") != text:
        dest.write_text(text, encoding="utf-8")


def _page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Load the calculator's module and stylesheet on the pages that hold one, and nowhere else."""
    if doctree is None or doctree.next_node(fit_calculator) is None:
        return
    app.add_css_file(f"m101-{CSS_FILE}")
    app.add_js_file(f"m101-{JS_FILE}", type="module")


DIRECTIVES = {"fit-calculator": FitCalculatorDirective, "fit-compare": FitCompareDirective}


def setup_calculator(app: Sphinx) -> None:
    """Register the directive, its node, and the events that load its assets."""
    app.add_node(fit_calculator, html=(visit_fit_html, None), text=(visit_fit_text, None),
                 latex=(skip_node, None), man=(skip_node, None), texinfo=(skip_node, None))
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("builder-inited", _install, priority=600)
    app.connect("html-page-context", _page_assets)
    register_derived("fit", coefficients_fingerprint)
