"""Derive a recording's values.json from its steps (pure and deterministic: `--check` reruns it)."""
from __future__ import annotations

import math
import statistics
from typing import Any

from miles101.tools.read_run import ROLLOUT_SIDE_KEY, lookup, parse_line

SCHEMA = "values/1"


def step_range(text: str, steps: int) -> tuple[int, int]:
    """Inclusive rollout ids: '2-47' → (2, 47); '5' → (5, 5); '3-' → (3, steps - 1)."""
    lo, dash, hi = text.partition("-")
    if not dash:
        return int(lo), int(lo)
    return int(lo), int(hi) if hi else steps - 1


def statistic(name: str, xs: list[float]) -> float:
    """One statistic of a non-empty sample."""
    if name == "count":
        return float(len(xs))
    if name == "p90":
        return statistics.quantiles(xs, n=10, method="inclusive")[8] if len(xs) > 1 else xs[0]
    fn = {"median": statistics.median, "mean": statistics.fmean, "max": max, "min": min,
          "last": lambda v: v[-1], "first": lambda v: v[0]}[name]
    return float(fn(xs))


def bad(v: Any, unit: str) -> str | None:
    """Why a logged number cannot enter a statistic: not finite, or a negative time."""
    if not math.isfinite(v):
        return str(v)
    if unit == "s" and v < 0:
        return f"{v:g} (a negative time)"
    return None


# Counters Miles writes only for the rewards or reasons that occurred in a rollout: a group count per
# reward (miles/ray/rollout/metrics.py:183-186), a drop count per filter reason, reset every rollout
# (miles/rollout/filter_hub/base_types.py:24-37). A step whose rollout line lacks one counted none.
COUNTERS = ("rollout/zero_std/count_", "rollout/dynamic_filter/drop_")


def value_in(row: dict[str, Any], source: str, zero_if_absent: bool = True) -> Any:
    """The source's value in a step row; 0 for a counter absent from a logged rollout line."""
    v = lookup(row, source)
    if v is None and zero_if_absent and source.startswith(COUNTERS) and ROLLOUT_SIDE_KEY in (row.get("perf") or {}):
        return 0
    return v


def counter_in_logged_form(steps: list[dict[str, Any]], source: str) -> bool:
    """Whether an absent counter may read 0: not when the run logs its family only in another form.

    A counter's key ends in the reward or reason as Miles formats it (`str(round(r, 1))`: `count_0` for an
    integer reward, `count_0.0` for a float one). If the run logs members of the family and every one is
    written in the other form, the key asked for is one Miles never writes for this run: it is not 0.
    """
    if not source.startswith(COUNTERS):
        return True
    family, _, wanted = source.rpartition("_")
    logged = {key.rpartition("_")[2] for row in steps for section in row.values() if isinstance(section, dict)
              for key, _ in _flat(section) if key.startswith(family + "_")}
    logged = {suffix for suffix in logged if suffix}
    if not logged or wanted in logged:
        return True
    return any(("." in suffix) == ("." in wanted) for suffix in logged)


def samples(steps: list[dict[str, Any]], source: str, lo: int, hi: int, seed: Any,
            unit: str = "") -> tuple[list[float], list[str]]:
    """The usable numeric values of `source` in steps lo..hi of one seed, in step order, and what was left out."""
    out, excluded = [], []
    zero_if_absent = counter_in_logged_form(steps, source)
    for row in sorted((r for r in steps if r.get("seed") == seed), key=lambda r: r["step"]):
        if lo <= row["step"] <= hi:
            v = value_in(row, source, zero_if_absent)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                why = bad(v, unit)
                if why is None:
                    out.append(float(v))
                else:
                    excluded.append(f"step {row['step']}{'' if seed is None else f' of seed {seed}'}: {why}")
    return out, excluded


def log_problems(lines: list[str]) -> list[str]:
    """Every NaN, inf or negative time in the log's step lines, with its line number (1-based)."""

    found = []
    for n, line in enumerate(lines, 1):
        parsed = parse_line(line)
        if parsed is None:
            continue
        kind, rid, data = parsed
        for key, v in _flat(data):
            why = bad(v, "s" if key.endswith("_time") else "") if isinstance(v, float) else None
            if why:
                found.append(f"line {n}: {kind} {rid}: {key} = {why}")
    return found


def _flat(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for k, v in data.items():
        if isinstance(v, dict):
            out += _flat(v, f"{prefix}{k}/")
        else:
            out.append((f"{prefix}{k}", v))
    return out


def derive_values(run: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """values.json for a run file and its steps rows.

    With several seeds, `value` is the mean over seeds of each seed's statistic, beside
    per_seed, seed_spread (max - min) and seed_std (sample standard deviation).
    """
    all_seeds = list(run.get("seeds") or [None])
    values: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for name in sorted(run["values"]):
        spec = run["values"][name]
        seeds = [spec["seed"]] if "seed" in spec else all_seeds
        lo, hi = step_range(spec.get("steps", "0-"), run["steps"])
        per_seed, n, excluded = {}, 0, []
        for seed in seeds:
            xs, left_out = samples(steps, spec["source"], lo, hi, seed, spec["unit"])
            excluded += left_out
            if xs:
                per_seed[seed] = statistic(spec["statistic"], xs)
                n += len(xs)
        if len(per_seed) < len(seeds):
            lacking = [s for s in seeds if s not in per_seed]
            missing[name] = f"{spec['source']} is in no step {lo}-{hi}" + (
                f" of seed {', '.join(map(str, lacking))}" if lacking != [None] else "") + (
                f" with a usable number (left out: {'; '.join(excluded)})" if excluded else "")
            continue
        stats = list(per_seed.values())
        entry: dict[str, Any] = {"value": _clean(statistics.fmean(stats)), "unit": spec["unit"],
                                 "statistic": spec["statistic"], "n": n, "steps": f"{lo}-{hi}",
                                 "source": spec["source"]}
        expected = (hi - lo + 1) * len(seeds)
        if n < expected:  # the statistic rests on fewer steps than declared: say so
            entry["expected"] = expected
            entry["note"] = (f"{spec['statistic']} of {n} of the {expected} steps declared"
                             + (f"; left out {'; '.join(excluded)}" if excluded else
                                f"; the other steps do not log {spec['source']}"))
        if excluded:
            entry["excluded"] = excluded
        if "seed" in spec:
            entry["seed"] = spec["seed"]
        if len(seeds) > 1:
            entry["seeds"] = seeds
            entry["per_seed"] = {str(s): _clean(v) for s, v in per_seed.items()}
            entry["seed_spread"] = _clean(max(stats) - min(stats))
            entry["seed_std"] = _clean(statistics.stdev(stats))
        values[name] = entry
    out: dict[str, Any] = {"schema": SCHEMA, "values": values}
    if missing:
        out["missing"] = missing
    return out


def _clean(x: float) -> float | int:
    """Round away float noise so the same inputs always give the same JSON."""
    r = round(x, 12)
    return int(r) if r.is_integer() and abs(r) < 2**53 else r
