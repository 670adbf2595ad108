"""derive_values: pure, deterministic, per seed and across seeds."""
from __future__ import annotations

import copy

from miles101.tools.read_run import parse_log
from miles101.values import derive_values
from capture.lab.rehearsal import mileslog as ml


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


def test_non_finite_and_negative_values_are_left_out_and_said():
    lines = ml.healthy(1) + ml.step_lines(1, step_time=float("nan")) + ml.step_lines(2, step_time=-3.0)
    steps = parse_log(lines)
    for r in steps:
        r["seed"] = None
    run = {"steps": 3, "values": {"t": {"source": "perf/step_time", "statistic": "median", "unit": "s", "what": "x"}}}
    t = derive_values(run, steps)["values"]["t"]
    assert t["value"] == 60.0 and t["n"] == 1 and t["expected"] == 3
    assert t["excluded"] == ["step 1: nan", "step 2: -3 (a negative time)"]
    assert "median of 1 of the 3 steps declared" in t["note"]


def test_a_sparse_source_says_what_it_rests_on():
    run = run_file(e={"source": "eval/gsm8k", "statistic": "last", "unit": "", "what": "x"})
    e = derive_values(run, rows())["values"]["e"]
    assert e["n"] == 3 and e["expected"] == 12 and "the other steps do not log eval/gsm8k" in e["note"]


def test_log_problems_name_their_line():
    from miles101.values import log_problems

    lines = ml.healthy(2) + [ml.trainer_perf(2, step_time=float("inf")), "garbage {nan}", ml.train_step(3, grad_norm=float("nan"))]
    found = log_problems(lines)
    assert found == [f"line {len(lines) - 2}: perf_train 2: perf/train_time = inf",
                     f"line {len(lines) - 2}: perf_train 2: perf/step_time = inf",
                     f"line {len(lines)}: train 3: train/grad_norm = nan"]


def test_a_counter_absent_from_a_logged_rollout_line_counts_zero():
    # Miles writes count_<reward> and drop_<reason> only for what occurred (metrics.py:183-186).
    lines = []
    for rid, zero in enumerate((6, 0, 4, 0)):
        lines += ml.step_lines(rid, zero=zero)
    steps = parse_log(lines)
    for r in steps:
        r["seed"] = None
    assert "rollout/zero_std/count_0" not in steps[1]["perf"]
    run = {"steps": 4, "values": {
        "z": {"source": "rollout/zero_std/count_0", "statistic": "median", "unit": "groups a step", "what": "x"},
        "d": {"source": "rollout/dynamic_filter/drop_zero_std_1", "statistic": "max", "unit": "groups a step", "what": "x"}}}
    v = derive_values(run, steps)["values"]
    assert v["z"]["value"] == 2 and v["z"]["n"] == 4 and "note" not in v["z"]  # median of 6, 0, 4, 0
    assert v["d"]["value"] == 0 and v["d"]["n"] == 4
    del steps[1]["perf"]["perf/rollout_time"]  # no rollout line: its absent count is not read as 0
    assert derive_values(run, steps)["values"]["z"]["n"] == 3
