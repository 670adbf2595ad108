"""Miles-shaped log lines for the lab tests and the rehearsal, built from the formats verified in Miles's source.

Lab tooling (shared/DESIGN.md §4): what it writes is made-up data for stand-in recordings, never
a measurement; it never reaches capture/gpu/ or the manual. Each builder names the Miles line it
imitates (radixark/miles 31f1ca961) and, where one exists, the public log under
tests/fixtures/public-logs/ whose line has the same shape.
"""
from __future__ import annotations

from typing import Any

TIME = "2026-08-21 12:00:00.000"


def _prefix(actor: str, where: str) -> str:
    """Ray's worker prefix, then Miles's logging format (miles/utils/logging_utils.py:35)."""
    return f"({actor} pid=4242) [{TIME} {actor}] {where} - "


def rollout_perf(rid: int, *, length: float = 200.0, truncated: float = 0.0, zero: int = 8, one: int = 0,
                 float_groups: int | None = None, rollout_time: float = 30.0) -> str:
    """The rollout manager's `perf N:` line (miles/ray/rollout/metrics.py:89).

    `zero`/`one` groups had every sample score 0/1. The book's int reward (--rm-type math) logs
    count_0/count_1 and shares of 0 (metrics.py:183-194); with `float_groups`, a float reward's
    count_0.0/count_1.0 and their shares of that many groups.
    """
    r0, r1 = ("0.0", "1.0") if float_groups else ("0", "1")
    counts = {f"rollout/zero_std/count_{r}": n for r, n in ((r0, zero), (r1, one)) if n}
    d = {"rollout/response_len/mean": length, "rollout/response_len/median": length,
         "rollout/response_len/max": length * 3, "rollout/response_len/min": 5.0, **counts,
         "rollout/zero_std/all_zero_percentage": zero / float_groups if float_groups else 0.0,
         "rollout/zero_std/all_one_percentage": one / float_groups if float_groups else 0.0,
         "rollout/prefix_cache_hit_rate": 0.5,
         "rollout/avg_cached_tokens_per_sample": 60.0, "rollout/repetition_frac": 0.0,
         "rollout/truncated_ratio": truncated, "perf/rollout_time": rollout_time,
         "perf/tokens_per_gpu_per_sec": 1500.5, "perf/longest_sample_tokens_per_sec": 20.1}
    return _prefix("RolloutManager", "metrics.py:89") + f"perf {rid}: {d}"


def trainer_rollout(rid: int, *, reward: float = 0.5, lp: float = -0.3, gap: float = 0.01) -> str:
    """The trainer's `rollout N:` line (miles/backends/training_utils/log_utils.py:123)."""
    d = {"rollout/raw_reward": reward, "rollout/rewards": 0.0, "rollout/response_lengths": 200.0,
         "rollout/total_lengths": 320.0, "rollout/truncated": 0.0, "rollout/rollout_log_probs": lp - gap,
         "rollout/log_probs": lp, "rollout/advantages": 0.0, "rollout/returns": 0.0}
    return _prefix("FSDPTrainRayActor", "log_utils.py:123") + f"rollout {rid}: {d}"


def train_step(step: int, *, gap: float = 0.01, clipfrac: float = 0.02, grad_norm: float = 0.3) -> str:
    """The trainer's `step M:` line (log_utils.py:542); keys from loss_hub/losses.py:362-394."""
    d = {"train/loss": 0.01, "train/pg_loss": 0.01, "train/entropy_loss": 0.0, "train/pg_clipfrac": clipfrac,
         "train/ppo_kl": 0.0, "train/ess_ratio": 1.0, "train/train_rollout_logprob_abs_diff": gap,
         "train/train_rollout_kl": gap / 10, "train/grad_norm": grad_norm, "train/lr-pg_0": 1e-06,
         "train/step": step}
    return _prefix("FSDPTrainRayActor", "log_utils.py:542") + f"step {step}: {d}"


def trainer_perf(rid: int, *, step_time: float = 60.0, update: float = 2.0) -> str:
    """The trainer's `perf N:` line (miles/utils/train_metric_utils.py:56)."""
    d = {"perf/train_wait_time": 1.0, "perf/train_time": step_time - 1.0, "perf/log_probs_time": 5.0,
         "perf/actor_train_time": 40.0, "perf/update_weights_time": update, "perf/step_time": step_time,
         "perf/wait_time_ratio": 1.0 / step_time}
    return _prefix("FSDPTrainRayActor", "train_metric_utils.py:56") + f"perf {rid}: {d}"


def eval_line(rid: int, score: float) -> str:
    """`eval N:` (miles/ray/rollout/metrics.py:53)."""
    return _prefix("RolloutManager", "metrics.py:53") + f"eval {rid}: {{'eval/gsm8k': {score}, 'eval/gsm8k-truncated_ratio': 0.0}}"


def memory_line(msg: str, used: float) -> str:
    """`[Rank 0] Memory-Usage <msg>: {...}` (miles/utils/memory_utils.py:41-43)."""
    d = {"gpu": "0", "total_GB": 119.7, "free_GB": round(119.7 - used, 2), "used_GB": used,
         "allocated_GB": 1.2, "reserved_GB": 1.5}
    return _prefix("FSDPTrainRayActor", "memory_utils.py:42") + f"[Rank 0] Memory-Usage {msg}: {d}"


def engine_line() -> str:
    """sglang_engine.py:247; the stand-in docker fills in {ENGINE}."""
    return _prefix("SGLangEngine", "sglang_engine.py:247") + "Launch HttpServerEngineAdapter at: {ENGINE}"


def engine_line_at(addr: str) -> str:
    return engine_line().replace("{ENGINE}", addr)


def rollout_bar() -> str:
    """tqdm's bar for the rollout (inference_rollout_train.py:109)."""
    return "Rollout generation:  12%|█▏        | 31/256 [00:04<00:30,  7.44it/s]"


def retry_lines(url: str = "http://127.0.0.1:3456/generate") -> list[str]:
    """http_utils.py:226-230: the last retry, then giving up."""
    p = _prefix("RolloutManager", "http_utils.py:226")
    return [p + f"Error: All connection attempts failed, retrying... (attempt 60/60, url={url}, response=None)",
            _prefix("RolloutManager", "http_utils.py:230") + f"Max retries (60) reached, failing... (url={url})"]


def task_exception() -> str:
    """inference_rollout_train.py:125."""
    return _prefix("RolloutManager", "inference_rollout_train.py:125") + \
        "[rollout] Task raised exception: ConnectError('All connection attempts failed')"


def step_lines(rid: int, **kw: Any) -> list[str]:
    """One whole step in the order train.py runs it (rollout, train, timers, weight update)."""
    reward = kw.get("reward", 0.4 + 0.05 * rid)
    gap = kw.get("gap", 0.01)
    groups = {k: kw[k] for k in ("zero", "one", "float_groups") if k in kw}
    return [rollout_bar(), rollout_perf(rid, length=kw.get("length", 200.0 + rid), **groups),
            memory_line("after wake_up model", 6.5 + rid / 10),
            trainer_rollout(rid, reward=reward, gap=gap), train_step(rid, gap=gap, grad_norm=kw.get("grad_norm", 0.3)),
            trainer_perf(rid, step_time=kw.get("step_time", 60.0 + rid)), memory_line("after offload model", 2.0)]


def healthy(n: int, *, ray_end: bool = True, **kw: Any) -> list[str]:
    """A whole run of n steps, with an eval before training and at the end."""
    lines = ["2026-08-21 12:00:00,000\tINFO job_manager.py:530 -- Runtime env is setting up.", engine_line(),
             eval_line(0, 0.3)]
    for rid in range(n):
        lines += step_lines(rid, **kw)
    lines.append(eval_line(n - 1, 0.5))
    if ray_end:
        lines += ["", "------------------------------------------", "Job 'raysubmit_abc123' succeeded",
                  "------------------------------------------"]
    return lines
