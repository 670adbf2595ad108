"""Values from a cross-check: our program on another GPU (capture/crosscheck/results/<host>.json).

The trainer's bytes do not depend on which GPU holds them, so `python3 -m capture.crosscheck` builds
each model as Miles's FSDP backend does and reads PyTorch's allocator. Those readings are a kind of
their own (`crosscheck`): never the manual's GB10 recording, always labelled with the GPU they ran on.
Keys are `<host>.<model>.<field>`, e.g. `h200.qwen3-4B.held`.

`crosscheck_problems` holds one host's results against computed.json: the one implementation behind
`miles101.validate` (so the build and `--check` both apply it) and `capture.crosscheck.verify`.
"""
from __future__ import annotations

from typing import Any

from miles101.derive import UNIT_BYTES  # the computed sizes carry their unit (computed.json writes GiB)

GIB = 2**30
#: Relative: the allocator's rounding, buffers and small workspaces sit well inside this.
TOLERANCE = 0.02

#: field → (unit, what it is, how to read it from the run without / with gradient checkpointing)
FIELDS: dict[str, tuple[str, str]] = {
    "params": ("parameters", "Parameter count the framework reports for the model built from Miles's extracted shape"),
    "held": ("GiB", "Trainer state held after the optimizer step: fp32 weights, gradients and AdamW's two moments"),
    "held_ratio": ("× computed", "Held trainer state divided by the computed trainer state of capture/computed.json"),
    "without_grads": ("GiB", "Trainer state held once the gradients are freed (weights and moments)"),
    "peak": ("GiB", "Peak allocated during forward and backward of step 2, without gradient checkpointing"),
    "peak_ckpt": ("GiB", "Peak allocated during forward and backward of step 2, with gradient checkpointing"),
    "step_peak": ("GiB", "Peak allocated during the optimizer step (AdamW), without gradient checkpointing"),
    "act_slope": ("MB/token", "Activation term: least-squares slope of the forward/backward peak over the tokens, "
                              "without gradient checkpointing"),
    "act_slope_ckpt": ("MB/token", "Activation term: least-squares slope of the forward/backward peak over the "
                                   "tokens, with gradient checkpointing"),
}
MB = 10**6


def _run(model: dict[str, Any], checkpointing: bool) -> dict[str, Any] | None:
    return next((r for r in model.get("runs", []) if r.get("status") == "ok"
                 and bool(r.get("gradient_checkpointing")) == checkpointing), None)


def host_gpu(doc: dict[str, Any]) -> str:
    """The GPU a host's results were measured on, as the results name it."""
    info = doc.get("host") or {}
    return info.get("gpu") or info.get("device", "?")


#: The phase an activation coefficient must come from: forward and backward over the state without gradients.
SWEEP_PHASE = "forward_backward"
#: Fewest token counts a slope is taken from.
MIN_POINTS = 3
#: A sweep point is activation-bound when its peak exceeds the sweep's lowest peak by more than this share;
#: below that the phase's peak is the end of backward (every fp32 gradient reduced), flat in the tokens.
PLATEAU = 0.05


def _least_squares(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Slope and intercept of the least-squares line through (xs, ys)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


def sweep_fit(run: dict[str, Any]) -> dict[str, Any] | None:
    """The per-token activation term of one run's sweep: the least-squares slope of the forward/backward peak
    over the tokens, through the activation-bound points (see PLATEAU); None with fewer than MIN_POINTS.

    Only points whose ``phase`` is SWEEP_PHASE count (``crosscheck_problems`` refuses any other)."""
    points = [p for p in run.get("sweep") or [] if p.get("status") == "ok" and p.get("phase") == SWEEP_PHASE
              and _number(p.get("peak_bytes")) and _number(p.get("tokens"))]
    if not points:
        return None
    lowest = min(p["peak_bytes"] for p in points)
    used = sorted((p for p in points if p["peak_bytes"] > lowest * (1 + PLATEAU)), key=lambda p: p["tokens"])
    if len({p["tokens"] for p in used}) < MIN_POINTS:  # a slope needs that many distinct token counts
        return None
    slope, intercept = _least_squares([p["tokens"] for p in used], [p["peak_bytes"] for p in used])
    return {"bytes_per_token": slope, "intercept_bytes": intercept, "tokens": [p["tokens"] for p in used],
            "phase": SWEEP_PHASE}


def activation_slopes(doc: dict[str, Any]) -> dict[str, dict[bool, dict[str, Any]]]:
    """Per model, per gradient checkpointing (False, True): ``sweep_fit`` of its completed run, where one exists."""
    out: dict[str, dict[bool, dict[str, Any]]] = {}
    for name, model in (doc.get("models") or {}).items():
        for ckpt in (False, True):
            run = _run(model, ckpt)
            fit = sweep_fit(run) if run else None
            if fit:
                out.setdefault(name, {})[ckpt] = fit
    return out


def leave_out_checks(doc: dict[str, Any], params: dict[str, int], state_bpp: float,
                     moments_bpp: float) -> list[dict[str, Any]]:
    """The calculator's training term held against every measured point of one host's sweeps, each predicted
    from a slope that did not see it.

    The calculator estimates training as ``params × state_bpp`` (weights, gradients, AdamW's moments) plus the
    slope times the tokens. For each activation-bound point the slope is fitted again without it (leave one out,
    at least two other token counts); the other points of the sweep (the flat part below the activation-bound
    ones) and each completed run's step-2 forward/backward peak are predicted from the whole slope. A sweep run
    with the moments freed (``sweep_optimizer_state: freed``) is measured without them, so they are added back
    (``params × moments_bpp``). Each check: ``{host, model, checkpointing, tokens, kind, ratio}``, ratio =
    measured bytes over estimated bytes.
    """
    out: list[dict[str, Any]] = []
    for name, model in sorted((doc.get("models") or {}).items()):
        if name not in params:
            continue
        state = params[name] * state_bpp
        for ckpt in (False, True):
            run = _run(model, ckpt)
            fit = sweep_fit(run) if run else None
            if fit is None:
                continue
            moments = params[name] * moments_bpp if run.get("sweep_optimizer_state") == "freed" else 0
            points = [p for p in run["sweep"] if p.get("status") == "ok" and p.get("phase") == SWEEP_PHASE]
            used = set(fit["tokens"])

            def add(tokens: int, measured: float, slope: float, kind: str) -> None:
                out.append({"model": name, "checkpointing": ckpt, "tokens": tokens, "kind": kind,
                            "ratio": measured / (state + slope * tokens)})

            for p in points:
                if p["tokens"] in used:
                    rest = [q for q in points if q["tokens"] in used and q["tokens"] != p["tokens"]]
                    if len(rest) >= 2:
                        slope, _ = _least_squares([q["tokens"] for q in rest], [q["peak_bytes"] for q in rest])
                        add(p["tokens"], p["peak_bytes"] + moments, slope, "left out of the fit")
                else:
                    add(p["tokens"], p["peak_bytes"] + moments, fit["bytes_per_token"], "below the fitted range")
            step2 = run.get("peak_bytes_step2_forward_backward")
            if _number(step2) and _number(run.get("tokens")):
                add(run["tokens"], step2, fit["bytes_per_token"], "a training step with the state held")
    return out


def leave_out_band(docs: dict[str, dict], params: dict[str, int], state_bpp: float,
                   moments_bpp: float) -> dict[str, Any] | None:
    """The training term's error band over every host's `leave_out_checks`: the lowest and highest ratio of
    measured to estimated bytes, how many checks, and the GPUs they ran on; None without a check."""
    checks, gpus = [], []
    for host, doc in sorted(docs.items()):
        found = leave_out_checks(doc, params, state_bpp, moments_bpp)
        checks += found
        if found:
            gpus.append(host_gpu(doc))
    if not checks:
        return None
    ratios = [c["ratio"] for c in checks]
    return {"low": min(ratios), "high": max(ratios), "checks": len(checks),
            "models": len({c["model"] for c in checks}), "gpus": gpus}


def _gib(run: dict[str, Any] | None, field: str) -> float | None:
    """A run's allocator peak in GiB; None where the run has none (no such run, or a peak the schema lets be
    absent or null: a CPU run reads no allocator)."""
    got = run.get(field) if run else None
    return got / GIB if _number(got) else None


def crosscheck_values(host: str, doc: dict[str, Any], computed: dict[str, Any]) -> dict[str, tuple[Any, str, str, dict]]:
    """`{key: (value, unit, what, detail)}` for every model of one host's results."""
    info = doc.get("host", {})
    common = {
        "host": host, "gpu": host_gpu(doc), "torch": info.get("torch"),
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
            "peak": _gib(plain, "peak_bytes_step2_forward_backward"),
            "peak_ckpt": _gib(ckpt, "peak_bytes_step2_forward_backward"),
            "step_peak": _gib(plain, "peak_bytes_step2_optimizer"),
        }
        slopes = {ckpt: sweep_fit(run) if run else None for ckpt, run in ((False, plain), (True, ckpt))}  # no checkpointed run: none
        for field, fit in (("act_slope", slopes[False]), ("act_slope_ckpt", slopes[True] if ckpt else None)):
            if fit:
                fields[field] = fit["bytes_per_token"] / MB
        for field, value in fields.items():
            if value is None:
                continue
            unit, what = FIELDS[field]
            fit = slopes[False] if field == "act_slope" else slopes[True] if field == "act_slope_ckpt" else None
            detail = {**common, "model": name, "tokens": fit["tokens"] if fit else tokens,
                      "date": plain.get("date") or common["date"],
                      "optimizer_note": plain.get("optimizer_foreach_note") or ""}
            out[f"{host}.{name}.{field}"] = (value, unit, f"{what} ({name})", detail)
    return out


# ---------------------------------------------------------------------------------- verification


def _record(computed: dict, key: str) -> dict | None:
    record = (computed.get("values") or {}).get(key)
    return record if isinstance(record, dict) else None


def _value(computed: dict, key: str) -> Any:
    record = _record(computed, key)
    return None if record is None else record.get("value")


def _bytes(computed: dict, key: str) -> float | None:
    """A computed size back in bytes, by the unit it carries (computed.json writes GiB)."""
    record = _record(computed, key)
    if record is None or record.get("unit") not in UNIT_BYTES or not _number(record.get("value")):
        return None
    return record["value"] * UNIT_BYTES[record["unit"]]


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _within(measured: float, expected: float, tolerance: float) -> bool:
    return abs(measured - expected) <= tolerance * expected


def _sweep_problems(points: list, path: tuple, run: str) -> list[tuple[tuple, str]]:
    """A sweep's points: each from the forward/backward phase, its peak at or above its base."""
    problems: list[tuple[tuple, str]] = []
    first: dict[Any, int] = {}  # token count -> the sweep point that first read it
    for j, p in enumerate(points):
        here = (*path, "sweep", j)
        if p.get("phase") != SWEEP_PHASE:
            problems.append(((*here, "phase"), f"{run}: sweep point {j} ({p.get('tokens')} tokens) is from phase "
                             f"{p.get('phase')!r}; an activation coefficient is taken from the {SWEEP_PHASE!r} "
                             "phase only (measure it again with `python3 -m capture.crosscheck --sweep ...`)"))
        elif p.get("status") == "ok" and not (_number(p.get("peak_bytes")) and _number(p.get("base_bytes"))
                                              and p["peak_bytes"] >= p["base_bytes"]):
            problems.append((here, f"{run}: sweep point {j} needs peak_bytes at or above base_bytes "
                             f"(has {p.get('peak_bytes')!r} and {p.get('base_bytes')!r})"))
        if p.get("tokens") in first:
            problems.append(((*here, "tokens"), f"{run}: sweep point {j} reads {p.get('tokens')} tokens again "
                             f"(point {first[p.get('tokens')]} read them); the slope is taken over distinct token "
                             "counts, one reading each"))
        elif isinstance(p.get("tokens"), int):
            first[p["tokens"]] = j
    return problems


def crosscheck_problems(results: dict, computed: dict, tolerance: float = TOLERANCE) -> list[tuple[tuple, str]]:
    """(JSON path in the results, problem) for each disagreement of `results` (crosscheck/1) with `computed`.

    - every measured model has ``params.<name>`` in computed.json and the framework's count equals it;
    - every run that completed holds ``trainer_state.<name>`` bytes within ``tolerance`` (relative);
    - without gradients it holds params x (trainer - gradient) bytes per parameter within the same tolerance;
    - every sweep point (the activation slope's data) comes from the forward/backward phase.
    Runs that ran out of memory are kept as data, not failures, but a model with no completed run is a problem.
    """
    problems: list[tuple[tuple, str]] = []
    host = results.get("host") or {}
    where = f"{host.get('gpu') or host.get('device', '?')}"
    state_bpp = _value(computed, "bytes_per_param.trainer_state")
    grad_bpp = _value(computed, "bytes_per_param.gradients")
    if not _number(state_bpp) or not _number(grad_bpp):
        return [((), "computed.json has no bytes_per_param.trainer_state / bytes_per_param.gradients")]
    models = results.get("models") or {}
    if not models:
        problems.append((("models",), f"cross-check on {where}: no model measured"))
    for name, model in sorted(models.items()):
        tag = f"cross-check {name} on {where}"
        want_params = _value(computed, f"params.{name}")
        want_state = _value(computed, f"trainer_state.{name}")
        want_bytes = _bytes(computed, f"trainer_state.{name}")
        if not _number(want_params) or want_bytes is None:
            problems.append((("models", name), f"{tag}: computed.json has no params.{name} / trainer_state.{name}"))
            continue
        runs = model.get("runs") or []
        ok = [(i, r) for i, r in enumerate(runs) if r.get("status") == "ok"]
        if not ok:
            problems.append((("models", name, "runs"), f"{tag}: no run completed "
                             f"({', '.join(sorted({str(r.get('status')) for r in runs}))})"))
            continue
        counts = [(("models", name, "params"), model.get("params"))]
        counts += [(("models", name, "runs", i, "params"), r.get("params")) for i, r in ok]
        for path, count in counts:
            if count is not None and count != want_params:
                problems.append((path, f"{tag}: framework counts {count} parameters, computed.json params.{name} = "
                                       f"{want_params}"))
        want_no_grad = want_params * (state_bpp - grad_bpp)
        unit = (_record(computed, f"trainer_state.{name}") or {}).get("unit", "")
        for i, r in ok:
            run = f"{tag} (gradient checkpointing {'on' if r.get('gradient_checkpointing') else 'off'}, {r.get('tokens')} tokens)"
            held, no_grad = r.get("held_bytes"), r.get("held_without_grads_bytes")
            if _number(held) and not _within(held, want_bytes, tolerance):
                problems.append((("models", name, "runs", i, "held_bytes"),
                                 f"{run}: holds {held} bytes after the step, computed.json "
                                 f"trainer_state.{name} = {want_state} {unit} = {want_bytes:.0f} bytes "
                                 f"(ratio {held / want_bytes:.4f}, tolerance {tolerance:.0%})"))
            problems += _sweep_problems(r.get("sweep") or [], ("models", name, "runs", i), run)
            if _number(no_grad) and want_no_grad and not _within(no_grad, want_no_grad, tolerance):
                problems.append((("models", name, "runs", i, "held_without_grads_bytes"),
                                 f"{run}: holds {no_grad} bytes without gradients, computed "
                                 f"{want_params} params x {state_bpp - grad_bpp} bytes = {want_no_grad} bytes "
                                 f"(ratio {no_grad / want_no_grad:.4f}, tolerance {tolerance:.0%})"))
    return problems


def verify(results: dict, computed: dict, tolerance: float = TOLERANCE) -> list[str]:
    """The problems of `crosscheck_problems`, as text (empty when the results agree)."""
    return [text for _, text in crosscheck_problems(results, computed, tolerance)]


def ratios(results: dict, computed: dict) -> dict[str, float]:
    """Measured over computed held bytes per model (first completed run), for reports."""
    out = {}
    for name, model in (results.get("models") or {}).items():
        ok = [r for r in model.get("runs") or [] if r.get("status") == "ok"]
        want = _bytes(computed, f"trainer_state.{name}")
        if ok and want:
            out[name] = ok[0]["held_bytes"] / want
    return out


# ---------------------------------------------------------------------------------- coverage


def covered_models(docs: dict[str, dict]) -> set[str]:
    """Models some host's results hold a completed run for: their parameter count is held against computed.json."""
    return {name for doc in docs.values() if isinstance(doc, dict)
            for name, model in (doc.get("models") or {}).items()
            if isinstance(model, dict) and any(isinstance(r, dict) and r.get("status") == "ok"
                                               for r in model.get("runs") or [])}


def cited_models(keys: list[str], is_model: Any) -> set[str]:
    """Models whose per-model computed values (``<quantity>.<model>``, any format spec dropped) `keys` cite;
    `is_model(name)` says whether a name is a model of computed.json (it has ``params.<name>``)."""
    out = set()
    for key in keys:
        rest = key.split(":", 1)[0].split(".", 1)
        if len(rest) == 2 and is_model(rest[1]):
            out.add(rest[1])
    return out


def uncovered_models(keys: list[str], is_model: Any, docs: dict[str, dict]) -> list[str]:
    """Cited models no cross-check covers, sorted."""
    return sorted(cited_models(keys, is_model) - covered_models(docs))


def uncovered_note(models: list[str]) -> str:
    """The one line `--check` prints (and the page shows) for models no cross-check covers; empty when none."""
    if not models:
        return ""
    return f"not cross-checked: {', '.join(models)}; their numbers rest on the extraction alone."
