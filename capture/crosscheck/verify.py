"""Hold a host's cross-check results against computed.json (no torch needed).

``verify(results, computed)`` returns a list of problems, empty when the results agree:
- every measured model has ``params.<name>`` in computed.json and the framework's count equals it;
- every run that completed holds ``trainer_state.<name>`` bytes within ``TOLERANCE`` (relative);
- without gradients it holds params x (trainer - gradient) bytes per parameter within the same tolerance.
Each mismatch names both numbers. Runs that ran out of memory are kept as data, not failures, but a model
with no completed run is a problem.
"""
from __future__ import annotations

from capture.derive import UNIT_BYTES

TOLERANCE = 0.02  # relative: the allocator's rounding, buffers and small workspaces sit well inside this


def _value(computed: dict, key: str):
    record = computed.get("values", {}).get(key)
    return None if record is None else record["value"]


def _bytes(computed: dict, key: str) -> float | None:
    """A computed size back in bytes, by the unit it carries (computed.json writes GiB)."""
    record = computed.get("values", {}).get(key)
    return None if record is None else record["value"] * UNIT_BYTES[record["unit"]]


def _unit(computed: dict, key: str) -> str:
    return computed.get("values", {}).get(key, {}).get("unit", "")


def _within(measured: float, expected: float, tolerance: float) -> bool:
    return abs(measured - expected) <= tolerance * expected


def verify(results: dict, computed: dict, tolerance: float = TOLERANCE) -> list[str]:
    """Problems found holding ``results`` (crosscheck/1) against ``computed`` (miles-computed/1)."""
    problems: list[str] = []
    host = results.get("host", {})
    where = f"{host.get('gpu') or host.get('device', '?')}"
    state_bpp = _value(computed, "bytes_per_param.trainer_state")
    grad_bpp = _value(computed, "bytes_per_param.gradients")
    if state_bpp is None or grad_bpp is None:
        return ["computed.json has no bytes_per_param.trainer_state / bytes_per_param.gradients"]
    if not results.get("models"):
        problems.append(f"cross-check on {where}: no model measured")
    for name, model in sorted(results.get("models", {}).items()):
        tag = f"cross-check {name} on {where}"
        want_params = _value(computed, f"params.{name}")
        want_state = _value(computed, f"trainer_state.{name}")
        if want_params is None or want_state is None:
            problems.append(f"{tag}: computed.json has no params.{name} / trainer_state.{name}")
            continue
        ok = [r for r in model["runs"] if r["status"] == "ok"]
        if not ok:
            problems.append(f"{tag}: no run completed ({', '.join(sorted({r['status'] for r in model['runs']}))})")
            continue
        counts = {model.get("params")} | {r["params"] for r in ok}
        for count in sorted(c for c in counts if c is not None):
            if count != want_params:
                problems.append(f"{tag}: framework counts {count} parameters, computed.json params.{name} = "
                                f"{want_params}")
        want_bytes = _bytes(computed, f"trainer_state.{name}")
        want_no_grad = want_params * (state_bpp - grad_bpp)
        for r in ok:
            run = f"{tag} (gradient checkpointing {'on' if r['gradient_checkpointing'] else 'off'}, {r['tokens']} tokens)"
            if not _within(r["held_bytes"], want_bytes, tolerance):
                problems.append(f"{run}: holds {r['held_bytes']} bytes after the step, computed.json "
                                f"trainer_state.{name} = {want_state} {_unit(computed, f'trainer_state.{name}')} = {want_bytes:.0f} bytes "
                                f"(ratio {r['held_bytes'] / want_bytes:.4f}, tolerance {tolerance:.0%})")
            if not _within(r["held_without_grads_bytes"], want_no_grad, tolerance):
                problems.append(f"{run}: holds {r['held_without_grads_bytes']} bytes without gradients, computed "
                                f"{want_params} params x {state_bpp - grad_bpp} bytes = {want_no_grad} bytes "
                                f"(ratio {r['held_without_grads_bytes'] / want_no_grad:.4f}, tolerance {tolerance:.0%})")
    return problems


def ratios(results: dict, computed: dict) -> dict[str, float]:
    """Measured over computed held bytes per model (first completed run), for reports."""
    out = {}
    for name, model in results.get("models", {}).items():
        ok = [r for r in model["runs"] if r["status"] == "ok"]
        want = _bytes(computed, f"trainer_state.{name}")
        if ok and want:
            out[name] = ok[0]["held_bytes"] / want
    return out
