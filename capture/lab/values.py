"""Derive a recording's values.json from its steps (pure and deterministic: `--check` reruns it)."""
from __future__ import annotations

import math
import statistics
from typing import Any

from capture.lab.read_run import lookup
from capture.lab.runfile import step_range

SCHEMA = "values/1"


def statistic(name: str, xs: list[float]) -> float:
    """One statistic of a non-empty sample."""
    if name == "count":
        return float(len(xs))
    if name == "p90":
        return statistics.quantiles(xs, n=10, method="inclusive")[8] if len(xs) > 1 else xs[0]
    fn = {"median": statistics.median, "mean": statistics.fmean, "max": max, "min": min,
          "last": lambda v: v[-1], "first": lambda v: v[0]}[name]
    return float(fn(xs))


def samples(steps: list[dict[str, Any]], source: str, lo: int, hi: int, seed: Any) -> list[float]:
    """The finite numeric values of `source` in steps lo..hi of one seed, in step order."""
    out = []
    for row in sorted((r for r in steps if r.get("seed") == seed), key=lambda r: r["step"]):
        if lo <= row["step"] <= hi:
            v = lookup(row, source)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                out.append(float(v))
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
        per_seed, n = {}, 0
        for seed in seeds:
            xs = samples(steps, spec["source"], lo, hi, seed)
            if xs:
                per_seed[seed] = statistic(spec["statistic"], xs)
                n += len(xs)
        if len(per_seed) < len(seeds):
            lacking = [s for s in seeds if s not in per_seed]
            missing[name] = f"{spec['source']} is in no step {lo}-{hi}" + (
                f" of seed {', '.join(map(str, lacking))}" if lacking != [None] else "")
            continue
        stats = list(per_seed.values())
        entry: dict[str, Any] = {"value": _clean(statistics.fmean(stats)), "unit": spec["unit"],
                                 "statistic": spec["statistic"], "n": n, "steps": f"{lo}-{hi}",
                                 "source": spec["source"]}
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
