"""The log Miles would write for a run file: every line shaped and every key formed as Miles forms them.

Lab tooling for the rehearsal (shared/DESIGN.md §4): the numbers are made up (seeded, so the same
run file always gives the same log), never a measurement, and never reach capture/gpu/ or the
manual. What is not made up is the log's shape, so a page that cites a key Miles never writes for
the book's runs cannot fill in the rehearsal either:

- which keys each line holds, and when, follows Miles's code at the captured commit (each builder
  names the lines); the keys are *not* read from the run file's values;
- keys with a formatted part are formed by Miles's own expression, evaluated here on the reward
  the run's reward model returns: `str(round(r, 1))` for `rollout/zero_std/count_<r>`
  (miles/ray/rollout/metrics.py:183-186) and `f"zero_std_{round(r, 1)}"` for
  `rollout/dynamic_filter/drop_<reason>` (miles/rollout/filter_hub/dynamic_sampling_filters.py:23,
  base_types.py:35). `--rm-type math` returns an int (rm_hub/math_utils.py), so the keys are
  `count_0` / `count_1` and `drop_zero_std_0` / `_1`, and all_zero/all_one_percentage, which look
  up `"0.0"` and `"1.0"` (metrics.py:193-194), stay 0;
- each key is also checked against the extraction (capture/miles/metrics.json): `unknown_keys`
  names a key this writer forms that the extraction does not know.

The line shapes were checked against public logs (tests/fixtures/public-logs/, `SHAPES` names
which), and tests/lab/test_rehearsal.py holds each shape against its log.
"""
from __future__ import annotations

import random
import re
from typing import Any

from capture.lab.rehearsal import mileslog as ml
from miles101.runcheck import option_values

# The public log each line shape was checked against (tests/fixtures/public-logs/); the trainer's
# `rollout N:` and `perf N:` lines and the Memory-Usage lines have no public log among the fixtures
# and follow Miles's source alone (the lines each builder names).
SHAPES = {
    "perf_rollout": "slime-1837-rollout-perf-prefixed.log",  # rollout side `perf N:`, integer-reward zero_std keys
    "train": "prorl-40-step-lines-only.log",                  # `step M:` with the TIS keys (--use-tis)
}
# The rewards each --rm-type returns, where the rehearsal knows them: math is `1 if ... else 0`
# (miles/rollout/rm_hub/__init__.py:67-68), an int. Every run file of the book uses math.
REWARDS = {"math": (0, 1), "random": (0, 1), "deterministic_random": (0, 1)}
DYNAMIC_FILTER = "check_reward_nonzero_std"


def zero_std_key(reward: Any) -> str:
    """The key of metrics.py:183-186 for a zero-std group of this reward."""
    return f"rollout/zero_std/count_{str(round(reward, 1))}"


def drop_key(reward: Any) -> str:
    """The key of dynamic_sampling_filters.py:23 with base_types.py:35."""
    return f"rollout/dynamic_filter/drop_{f'zero_std_{round(reward, 1)}'}"


class Settings:
    """What of the run file shapes its log: sizes, backend, switches."""

    def __init__(self, run: dict[str, Any]) -> None:
        opts = option_values([str(a) for a in run["args"]])

        def one(flag: str, default: Any) -> Any:
            return (opts.get(flag) or [default])[-1]

        self.steps = int(run["steps"])
        self.backend = one("--train-backend", "megatron")
        self.colocate = "--colocate" in opts
        self.batch = int(one("--rollout-batch-size", 32))
        self.n = int(one("--n-samples-per-prompt", 8))
        self.over = int(one("--over-sampling-batch-size", self.batch))
        self.global_batch = int(one("--global-batch-size", self.batch * self.n))
        self.max_len = int(one("--rollout-max-response-len", 1024))
        self.rm = one("--rm-type", "math")
        self.filter = DYNAMIC_FILTER in one("--dynamic-sampling-filter-path", "")
        self.tis = "--use-tis" in opts or "--get-mismatch-metrics" in opts
        self.kl_loss = "--use-kl-loss" in opts
        self.eval_interval = int(one("--eval-interval", 0) or 0)
        data = opts.get("--eval-prompt-data") or []
        self.eval_names = data[0::2] if len(data) > 1 else []
        self.advantage = one("--advantage-estimator", "grpo")


def constant_keys(run: dict[str, Any]) -> dict[str, str]:
    """Keys Miles writes for this run whatever happens (so a value over them measures nothing), with why."""
    s = Settings(run)
    if s.rm in REWARDS and all(isinstance(r, int) for r in REWARDS[s.rm]):
        why = (f"always 0 with --rm-type {s.rm}'s integer reward: metrics.py:193-194 count the groups keyed "
               f"'0.0' and '1.0', and str(round(r, 1)) of an int is '0' or '1' (cite rollout/zero_std/count_0 "
               f"or count_1)")
        return {"rollout/zero_std/all_zero_percentage": why, "rollout/zero_std/all_one_percentage": why}
    return {}


def _reward(rng: random.Random, p: float, rm: str) -> Any:
    if rm not in REWARDS:
        raise ValueError(f"--rm-type {rm}: the rehearsal does not know the type of its reward; add it to "
                         f"capture/lab/rehearsal/runlog.py REWARDS from miles/rollout/rm_hub/__init__.py")
    low, high = REWARDS[rm]
    return high if rng.random() < p else low


def rollout_side(s: Settings, rid: int, rng: random.Random) -> tuple[dict[str, Any], float]:
    """The rollout manager's `perf N:` dict (metrics.py:72-196) and the batch's mean reward."""
    shift = 0.25 * rid / max(s.steps - 1, 1)
    groups, drops = [], {}
    for _ in range(s.over if s.filter else s.batch):
        p = min(max(rng.random() + shift - 0.1, 0.0), 1.0)  # each prompt its own difficulty
        rewards = [_reward(rng, p, s.rm) for _ in range(s.n)]
        lengths = [rng.randint(60, s.max_len) for _ in range(s.n)]
        same = all(r == rewards[0] for r in rewards)
        if s.filter and same:  # check_reward_nonzero_std drops it and names why
            drops[drop_key(rewards[0])] = drops.get(drop_key(rewards[0]), 0) + 1
            continue
        groups.append((rewards, lengths))
    groups = groups[:s.batch]
    lengths = [x for _, ls in groups for x in ls]
    rewards = [x for rs, _ in groups for x in rs]
    d: dict[str, Any] = dict(drops)  # rollout_extra_metrics come first (metrics.py:81)
    lengths_sorted = sorted(lengths)
    d.update({"rollout/response_len/mean": sum(lengths) / len(lengths),
              "rollout/response_len/median": float(lengths_sorted[len(lengths) // 2]),
              "rollout/response_len/max": max(lengths), "rollout/response_len/min": min(lengths)})
    if s.advantage != "ppo":  # _compute_zero_std_metrics (metrics.py:171-196)
        counts: dict[str, int] = {}
        for rs, _ in groups:
            if all(r == rs[0] for r in rs):
                key = str(round(rs[0], 1))
                counts[key] = counts.get(key, 0) + 1
        d.update({f"rollout/zero_std/count_{k}": c for k, c in counts.items()})
        d["rollout/zero_std/all_zero_percentage"] = counts.get("0.0", 0) / len(groups)
        d["rollout/zero_std/all_one_percentage"] = counts.get("1.0", 0) / len(groups)
    d.update({"rollout/prefix_cache_hit_rate": 0.5, "rollout/avg_cached_tokens_per_sample": 60.0,
              "rollout/repetition_frac": 0.0,
              "rollout/truncated_ratio": sum(x >= s.max_len for x in lengths) / len(lengths)})
    version = max(rid, 0)  # weight_versions from the engine's meta_info (types.py:289)
    d.update({"rollout/weight_version/mean": float(version), "rollout/weight_version/median": float(version),
              "rollout/weight_version/max": version, "rollout/weight_version/min": version,
              "rollout/weight_version/mixed_version_ratio": 0.0})
    rollout_time = 20.0 + rng.random() * 10
    d.update({"perf/rollout_time": rollout_time,
              "perf/tokens_per_gpu_per_sec": sum(lengths) / rollout_time,
              "perf/longest_sample_tokens_per_sec": max(lengths) / rollout_time,
              "perf/effective_tokens_per_gpu_per_sec": sum(lengths) / rollout_time,
              "perf/longest_effective_sample_tokens_per_sec": max(lengths) / rollout_time})
    return d, sum(rewards) / len(rewards)


def train_dict(s: Settings, step: int, rng: random.Random) -> dict[str, Any]:
    """The trainer's `step M:` dict (log_utils.py:542; keys from loss_hub/losses.py:362-394)."""
    gap = 0.01 + rng.random() * 0.01
    d: dict[str, Any] = {"train/loss": 0.01, "train/pg_loss": 0.01, "train/entropy_loss": 0.3,
                         "train/pg_clipfrac": rng.random() * 0.01, "train/ppo_kl": 0.0}
    if s.kl_loss:
        d["train/kl_loss"] = 0.0
    d.update({"train/train_rollout_logprob_abs_diff": gap, "train/train_rollout_kl": gap / 10})
    if s.tis:  # losses.py:379-385
        d.update({"train/ois": 1.0, "train/tis": 1.0, "train/tis_clipfrac": rng.random() * 0.001,
                  "train/tis_abs": gap})
    d.update({"train/grad_norm": 0.2 + rng.random() * 0.2, "train/lr-pg_0": 1e-06, "train/step": step})
    return d


def trainer_perf(s: Settings, rng: random.Random) -> dict[str, Any]:
    """The trainer's `perf N:` dict (train_metric_utils.py:56; sleep/wake timers with --colocate)."""
    d: dict[str, Any] = {}
    if s.colocate:
        d.update({"perf/sleep_time": 1.0 + rng.random(), "perf/wake_up_time": 1.5 + rng.random()})
    train = 30.0 + rng.random() * 10
    step = train + 25.0
    d.update({"perf/train_wait_time": 25.0, "perf/train_time": train, "perf/log_probs_time": 5.0,
              "perf/actor_train_time": train - 6.0, "perf/update_weights_time": 2.0 + rng.random(),
              "perf/step_time": step, "perf/wait_time_ratio": 25.0 / step})
    return d


def _line(actor: str, where: str, text: str) -> str:
    return ml._prefix(actor, where) + text


def run_log(run: dict[str, Any], seed: int | None = None) -> list[str]:
    """Every line of one seed's run, in the order train.py writes them, ending as `ray job submit` ends."""
    s = Settings(run)
    rng = random.Random(f"{run['id']}:{seed}")
    trainer = "FSDPTrainRayActor" if s.backend == "fsdp" else "MegatronTrainRayActor"
    lines = ["2026-08-21 12:00:00,000\tINFO job_manager.py:530 -- Runtime env is setting up.", ml.engine_line()]

    def eval_lines(rid: int) -> list[str]:
        out = []
        for name in s.eval_names:
            d = {f"eval/{name}": 0.3 + 0.4 * rid / max(s.steps - 1, 1), f"eval/{name}-truncated_ratio": 0.0}
            out.append(_line("RolloutManager", "metrics.py:53", f"eval {rid}: {d}"))
        return out

    if s.eval_interval:
        lines += eval_lines(0)  # the eval before training (train.py)
    per_rollout = max(s.batch * s.n // max(s.global_batch, 1), 1)
    for rid in range(s.steps):
        perf, mean_reward = rollout_side(s, rid, rng)
        lines += [ml.rollout_bar(), _line("RolloutManager", "metrics.py:89", f"perf {rid}: {perf}")]
        if s.colocate:
            lines.append(_line(trainer, "memory_utils.py:42", _memory("after wake_up model", 6.5, rng)))
        rollout = {"rollout/raw_reward": mean_reward, "rollout/rewards": 0.0, "rollout/response_lengths": 200.0,
                   "rollout/total_lengths": 320.0, "rollout/truncated": 0.0, "rollout/rollout_log_probs": -0.31,
                   "rollout/log_probs": -0.3, "rollout/advantages": 0.0, "rollout/returns": 0.0}
        lines.append(_line(trainer, "log_utils.py:123", f"rollout {rid}: {rollout}"))
        for k in range(per_rollout):
            step = rid * per_rollout + k
            lines.append(_line(trainer, "log_utils.py:542", f"step {step}: {train_dict(s, step, rng)}"))
        lines.append(_line(trainer, "train_metric_utils.py:56", f"perf {rid}: {trainer_perf(s, rng)}"))
        if s.colocate:
            lines.append(_line(trainer, "memory_utils.py:42", _memory("before offload model", 9.0, rng)))
            lines.append(_line(trainer, "memory_utils.py:42", _memory("after offload model", 2.0, rng)))
        if s.eval_interval and ((rid + 1) % s.eval_interval == 0 or rid == s.steps - 1):
            lines += eval_lines(rid)
    return lines + ["", "------------------------------------------", f"Job '{run['id']}' succeeded",
                    "------------------------------------------"]


def _memory(msg: str, used: float, rng: random.Random) -> str:
    """`[Rank 0] Memory-Usage <msg>: {...}` (memory_utils.py:41-43)."""
    used = round(used + rng.random(), 2)
    d = {"gpu": "0", "total_GB": 119.7, "free_GB": round(119.7 - used, 2), "used_GB": used,
         "allocated_GB": 1.2, "reserved_GB": 1.5}
    return f"[Rank 0] Memory-Usage {msg}: {d}"


def logged_keys(lines: list[str]) -> set[str]:
    """Every key the log's step, perf, rollout, eval and memory lines hold (as the recorder reads them)."""
    from miles101.tools.read_run import parse_line

    keys: set[str] = set()
    for line in lines:
        parsed = parse_line(line)
        if parsed and parsed[0] != "engine":
            keys.update(parsed[2])
    return keys


def unknown_keys(keys: set[str], metric_keys: set[str], patterns: list[re.Pattern[str]]) -> list[str]:
    """Keys this writer forms that capture/miles/metrics.json does not know (memory/ is the lab's own)."""
    return sorted(k for k in keys if not k.startswith("memory/") and k not in metric_keys
                  and not any(p.fullmatch(k) for p in patterns))
