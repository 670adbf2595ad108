"""```{fit-calculator}```: "Will it fit?" on one unified-memory box, over the computed sizes.

The formulas live in _ext/miles101/derive.py (``fit_budget``, ``trainer_bytes_per_param``,
``kv_bytes_per_token``). The core module _ext/miles101/fit.py gathers their inputs from the capture
(computed.json, facts.json, flags.json, a run file, and a cross-check result when one exists) into one
coefficients document and holds the rules of a block (``fit_block``, which `--check` runs too); this
module serves it as ``_static/m101-fit-coefficients.json``, embeds it in the page
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
from html import escape
from pathlib import Path
from collections.abc import Callable
from typing import Any, ClassVar

from docutils import nodes
from jinja2.utils import htmlsafe_json_dumps
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from ..data import Value, fingerprint
from ..derive import GIB, UNIT_BYTES, fit_budget, fit_lever
# The calculator's data and its block rules live in the core (miles101.fit), one copy for the build and
# --check; the names the tests and the editions read here are re-exported.
from ..fit import (COMPARE_FIX, COMPARE_TERMS, CROSSCHECK_LABEL, FLAGS, LIMITS, POOL_KEY, POOL_KIND, RUN_DEFAULTS, SCHEMA,
                   SLOPE_KEYS, THRESHOLD_FACT, TRAIN_ENV_DOC, CalculatorError, FitBlock, activation_coefficients, coefficients,
                   crosscheck_hosts, fit_block, run_settings)
from ..problems import Subtype
from .assets import serve
from .base import ManualDirective, skip_node
from .domain import capture_of, domain_of, register_derived
from .values import value_inline

STATIC = Path(__file__).with_name("static")
JS_FILE, CSS_FILE, JSON_FILE = "fit-calculator.js", "fit-calculator.css", "m101-fit-coefficients.json"


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
            "train_low": (doc.get("band") or {}).get("low", 1.0), "train_high": (doc.get("band") or {}).get("high", 1.0),
            "checkpointing": settings.get("checkpointing", False),
            "master_required": master_required(model, settings)}


def master_required(model: dict[str, Any], settings: dict[str, Any]) -> bool:
    """Miles refuses --no-keep-fp32-master here: true on-policy mode on a Qwen3 dense model (its contract), or on a
    model whose family the calculator does not know (a typed parameter count)."""
    return bool(settings.get("true_on_policy")) and model.get("qwen3_dense", True) is not False


def budget_for(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """derive.fit_budget over the document's coefficients: what the page and the JavaScript show.

    The activation term reads the slope of the setting of --gradient-checkpointing."""
    inputs = budget_inputs(doc, model, settings)
    ckpt = inputs.pop("checkpointing")
    inputs.pop("master_required")
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
        return f" {phases} fit, and neither gradient checkpointing, a smaller micro-batch, dropping the fp32 master copy nor SGLang's share makes it fit: pick a smaller model or a shorter response.{_refused_note(doc, model, settings)}"
    flags = ", ".join(lever_flags(doc, lever["changes"], num))
    cost = _master_cost(doc, model) if lever["changes"].get("fp32_master") is False else ""
    return f" {phases} fit; {flags} would make it {VERDICT_WORD[lever['budget']['verdict']]}.{cost}"


def _master_cost(doc: dict[str, Any], model: dict[str, Any]) -> str:
    """What dropping the master copy costs in learning: the measured share of bf16 weights that moved (the
    calculator's model where it was measured, else the first measured), or the cost in words without a reading."""
    F, figures = doc["flags"], doc.get("master_copy") or {}
    head = (f" {F['no_master']} comes last because it costs learning: without the fp32 master copy the weights and"
            " AdamW's state stay bf16 (the checkpoint's dtype, as the transformers Miles pins loads it), and an update"
            " smaller than half a bf16 step rounds away")
    if not figures:
        return head + " (not measured yet)."
    name = model.get("name") if model.get("name") in figures else sorted(figures)[0]
    f = figures[name]
    return (f"{head}: after {num(f['steps'])} optimizer steps at --lr {num(f['lr_text'])}, {num(format(f['no_master'], '.1%'))}"
            f" of {name}'s bf16 weights had changed without it, against {num(format(f['master'], '.1%'))} with it"
            f" ({num(f['gpu'])}; bf16 rounding is the same on every GPU).")


def _refused_note(doc: dict[str, Any], model: dict[str, Any], settings: dict[str, Any]) -> str:
    """Why the master copy was not offered: Miles refuses to drop it here."""
    if not master_required(model, settings):
        return ""
    return (f" {doc['flags']['no_master']} is not offered: Miles refuses it under {doc['flags']['true_on_policy']}"
            " with the Qwen3 dense contract.")


def allocator_sentence(doc: dict[str, Any], b: dict[str, Any]) -> str:
    """Near the line in the training phase: the allocator setting, for the trainer only (every edition prints it)."""
    if not b.get("near_line"):
        return ""
    return (f" Training is near the line, within the estimate's error band: fragmentation can still run it out of"
            f" memory. Give the trainer PyTorch's expandable segments with {doc['flags']['train_env']}"
            f" '{doc['allocator_env']}' (the trainer only; not for Megatron with --offload-train).")


def note_deps(env: Any, capture: Any, doc: dict[str, Any], run: str) -> None:
    """The page is read again when anything the calculator computes with changes."""
    domain = domain_of(env)
    for kind, key in [(POOL_KIND, POOL_KEY), ("fact", THRESHOLD_FACT), ("run", run),
                      *[("flag", f) for f in FLAGS.values()],
                      *[("computed", f"{p}.{m['name']}") for m in doc["models"]
                        for p in ("params", "kv_bytes_per_token")]]:
        domain.note_dep(env.docname, kind, key, capture.fingerprint_of(kind, key))


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
            f" sequences at once; SGLang queues the rest, so at worst, with every response at the cap"
            f" ({num(format(b['step_tokens'], ','))} response tokens a step), the step runs in about {num(format(b['rounds'], ','))}"
            f" rounds of up to {held} sequences: slower, not killed.")


def worked_sum_verdict(b: dict, prompt_assumed: bool = False, lever: str = "") -> str:
    """The sentence after the verdict word (every edition prints the same)."""
    return plain(_worked_sum_verdict(b, prompt_assumed, lever))


def _worked_sum_verdict(b: dict, prompt_assumed: bool = False, lever: str = "") -> str:
    """worked_sum_verdict with each computed number marked (`num`)."""
    tokens = num(format(b["kv_tokens"], ",")) if b["kv_tokens"] is not None else "none"
    return (f"the KV cache holds about {tokens} tokens.{_held_sentence(b, prompt_assumed)}"
            f"{'' if b['train'] is not None else ' The activation term is not estimated.'}{lever}")


def band_sentence(doc: dict[str, Any]) -> str:
    """How far the training term may be off (every edition prints it)."""
    return plain(_band_sentence(doc))


def _band_sentence(doc: dict[str, Any]) -> str:
    """band_sentence with each computed number marked (`num`)."""
    band = doc.get("band")
    if not band:
        return "The training term has no error band yet: no cross-check sweep holds enough points."
    return (f"How far the training term may be off: measured over estimated bytes from {num(format(band['low'], '.2f'))}"
            f" to {num(format(band['high'], '.2f'))} over {num(band['checks'])} checks of {num(band['models'])} models"
            f" ({num(', '.join(band['gpus']))}, not a GB10), each activation-bound point predicted from a slope fitted"
            " without it, the others from the whole slope."
            " A band, not a promise: the allocator's fragmentation is not in it. The sum counts training at"
            " the estimate or the band's top, whichever is larger, and calls it tight when the room left is"
            " smaller than the band's width times the training term.")


def worked_sum_html(doc: dict, model: dict, settings: dict, run: str) -> str:
    """The sum at the directive's starting values, as a table (the same numbers the widget opens with)."""
    rows, b = _worked_sum_rows(doc, model, settings)
    body = "".join(
        f'<tr class="m101-fit-row-{escape(cls)}{" m101-fit-part" if label.startswith("of which") else ""}"><th scope="row">{escape(label)}</th><td>{marked_html(how)}</td>'
        f'<td class="m101-fit-num">{marked_html(val)}</td></tr>' for label, how, val, cls in rows)
    verdict = VERDICT_TEXT[b["verdict"]]
    link = (f' <a href="{escape(doc["train_env_href"])}">What {escape(doc["flags"]["train_env"])} sets.</a>'
            if b.get("near_line") and doc.get("train_env_href") else "")
    return (
        f'<table class="m101-fit-sum" data-model="{escape(model["name"])}" data-verdict="{b["verdict"]}"'
        f' data-phase="{b["phase"]}"'
        f' data-margin-bytes="{b["margin"]!r}" data-kv-tokens="{b["kv_tokens"] if b["kv_tokens"] is not None else ""}">'
        f'<caption>Worked sum for {escape(model["name"])} with the settings of the run <code>{escape(run)}</code>'
        f' (computed at build time; inference from code, not measured)</caption>'
        f'<thead><tr><th scope="col">term</th><th scope="col">how</th><th scope="col">size</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
        f'<p class="m101-fit-sum-verdict">Verdict at these settings: <strong>{verdict}</strong>; '
        f"{marked_html(_worked_sum_verdict(b, settings.get('prompt_assumed', False), _verdict_sentence(doc, model, settings, b) + allocator_sentence(doc, b)))}{link}</p>"
        f'<p class="m101-fit-band">{marked_html(_band_sentence(doc))}</p>'
    )


def visit_fit_html(self: Any, node: fit_calculator) -> None:
    doc, model, settings = node["doc"], node["model"], node["settings"]
    try:  # the entry that explains --train-env-vars, which the verdict near the line links
        href = self.builder.get_relative_uri(self.builder.current_docname, TRAIN_ENV_DOC)
    except Exception:  # noqa: BLE001 -- a build without that page: the sentence stands without its link
        href = ""
    doc = {**doc, "train_env_href": href}
    # Jinja's `tojson`: `<`, `>`, `&` and `'` as JSON's \u escapes, so no label in the data can end the
    # <script> element or bend how the browser finds its end (issue 51)
    payload = htmlsafe_json_dumps({**doc, "start": {"model": model["name"], **settings}}, separators=(",", ":"))
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

    def run(self) -> list[nodes.Node]:
        capture = capture_of(self.env)
        block = fit_block(capture, "fit-calculator", "", self.options)  # the rule --check runs too (miles101.fit)
        if not isinstance(block, FitBlock):
            return self.refuse(block)
        note_deps(self.env, capture, block.doc, block.run)
        self.note("fit", "coefficients")
        node = fit_calculator("", doc=block.doc, model=block.model, settings=block.settings, run=block.run,
                              fit_id=f"m101-fit-{self.env.new_serialno('m101-fit')}")
        return [node]


class FitCompareDirective(ManualDirective):
    """```{fit-compare} run.value``` with :model: and :term: (trainer, rollout, train or peak): once the run
    is recorded, one line "estimate X GiB · measured Y GiB · measured/estimate Z" at the run file's
    settings; nothing while the value is pending. The ratio is computed here, never typed."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar = {"model": directives.unchanged_required, "term": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        capture = capture_of(self.env)
        key = self.arguments[0].strip()
        run, _, name = key.partition(".")
        term = (self.options.get("term") or "trainer").strip()
        if term in COMPARE_TERMS and self.options.get("model"):
            domain_of(self.env).note_dep(self.env.docname, "measured", key, capture.fingerprint_of("measured", key))
        block = fit_block(capture, "fit-compare", key, self.options)  # the rule --check runs too (miles101.fit)
        if not isinstance(block, FitBlock):
            return self.refuse(block)
        doc, model, settings, measured, model_name = block.doc, block.model, block.settings, block.measured, block.model["name"]
        note_deps(self.env, capture, doc, run)
        if measured.pending:
            return []  # nothing to compare before the run is recorded
        got = compare(doc, model, settings, term, measured.value, measured.unit)
        if isinstance(got, str):
            return self.problem(Subtype.UNKNOWN_VALUE, f"fit-compare: {got}", COMPARE_FIX)
        label = COMPARE_TERMS[term]
        estimate = Value("computed", f"fit.{model_name}.{term}@{run}", got["estimate"] / GIB, "GiB",
                         f"The calculator's {label} for {model_name} at the settings of the run {run}",
                         {"formula": "miles101.derive.fit_budget"})
        ratio = Value("computed", f"fit.{model_name}.{term}@{run}/{name}", got["ratio"], "",
                      f"The measured {name} of the run {run}, in bytes, over the calculator's {label}, in bytes",
                      {"formula": "miles101.sphinx_ext.calculator.compare"})
        para = nodes.paragraph(classes=["m101-fit-compare"])
        para += nodes.Text("Estimate ")
        para += value_inline(estimate, ".1f")
        para += nodes.Text(f" ({label}) · measured ")
        para += value_inline(measured, ".1f")
        para += nodes.Text(" · measured/estimate ")
        para += value_inline(ratio, ".2f")
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
    """Serve the module, the stylesheet and the coefficients from the build's _static."""
    if app.builder.format != "html":
        return
    for name in (JS_FILE, CSS_FILE):
        serve(app, f"m101-{name}", (STATIC / name).read_bytes())
    try:
        doc = coefficients(capture_of(app.env))
    except CalculatorError:
        return  # the directive reports it where it is used
    serve(app, JSON_FILE, json.dumps(doc, indent=1, sort_keys=True) + "\n")


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
