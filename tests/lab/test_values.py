"""derive_values: pure, deterministic, per seed and across seeds."""
from __future__ import annotations

import copy

from capture.lab.read_run import parse_log
from capture.lab.values import derive_values
import mileslog as ml


def run_file(**values) -> dict:
    return {"steps": 4, "seeds": [1, 2, 3], "values": values}


def rows() -> list[dict]:
    out = []
    for seed, bump in ((1, 0.0), (2, 0.1), (3, 0.3)):
        for r in parse_log(ml.healthy(4)):
            r["seed"] = seed
            r["rollout"]["rollout/raw_reward"] += bump
            out.append(r)
    return out


def test_statistics_and_seed_spread():
    run = run_file(r={"source": "rollout/raw_reward", "statistic": "mean", "steps": "1-2", "unit": "", "what": "x"},
                   p={"source": "perf/step_time", "statistic": "p90", "unit": "s", "what": "x"},
                   c={"source": "train/grad_norm", "statistic": "count", "unit": "", "what": "x"},
                   one={"source": "rollout/raw_reward", "statistic": "first", "seed": 3, "unit": "", "what": "x"})
    steps = rows()
    before = copy.deepcopy(steps)
    out = derive_values(run, steps)
    assert steps == before and derive_values(run, steps) == out
    r = out["values"]["r"]
    assert r["per_seed"] == {"1": 0.475, "2": 0.575, "3": 0.775}
    assert r["value"] == 0.608333333333 and r["seed_spread"] == 0.3 and r["n"] == 6 and r["steps"] == "1-2"
    assert round(r["seed_std"], 6) == 0.152753
    assert out["values"]["p"]["value"] == 62.7 and out["values"]["c"]["value"] == 4
    assert out["values"]["one"] == {"value": 0.7, "unit": "", "statistic": "first", "n": 4, "steps": "0-3",
                                    "source": "rollout/raw_reward", "seed": 3}


def test_missing_key_is_reported_not_guessed():
    out = derive_values(run_file(m={"source": "perf/actor_train_mfu", "statistic": "median", "unit": "", "what": "x"}),
                        rows())
    assert out["values"] == {} and "perf/actor_train_mfu is in no step 0-3" in out["missing"]["m"]
