#!/usr/bin/env python3
"""Read the first steps of a Miles GRPO log and say which signals look wrong.

    python3 read_run.py LOG [--steps 10] [--json]

Standalone (Python 3.9+, standard library only): download it beside your log and run it.
The Miles 101 recorder imports the same parser to turn a live log into steps.jsonl.

Miles prints four dict-valued lines per rollout step (verified at radixark/miles 31f1ca961):
  perf N: {...}     rollout side: miles/ray/rollout/metrics.py:89 (rollout/* sample stats, perf/rollout_time)
  rollout N: {...}  trainer: miles/backends/training_utils/log_utils.py:123 (rollout/raw_reward, ...)
  step M: {...}     trainer, once per optimizer step: log_utils.py:542 (train/*)
  perf N: {...}     trainer timers: miles/utils/train_metric_utils.py:56 (perf/step_time, ...)
and `eval N: {...}` (metrics.py:53). The dicts are Python reprs, written through the logging
format of miles/utils/logging_utils.py:35 ("[time name] file.py:line - message").
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import re
import statistics
import sys
from typing import Any, Iterable

# `perf|rollout|step|eval N: {dict}` at the end of a log line. The kind must follow a space or
# the line start, so a critic's `critic-step N:` (log_utils.py:523, 542) is not read as ours.
LINE_RE = re.compile(r"(?:^|\s)(?P<kind>perf|rollout|step|eval) (?P<id>\d+): (?P<body>\{.*\})\s*$")
# `[Rank 0] Memory-Usage <msg>: {...}` (miles/utils/memory_utils.py:41-43); GB there are GiB.
MEMORY_RE = re.compile(r"\[Rank 0\] Memory-Usage (?P<msg>.+?)(?: \(cleared before print\))?: (?P<body>\{.*\})\s*$")
# The engine's HTTP address (miles/backends/sglang_utils/sglang_engine.py:247).
ENGINE_RE = re.compile(r"Launch HttpServerEngineAdapter at: (?P<addr>[\w.\-\[\]:]+:\d+)")
# The rollout manager's `perf N:` line always holds perf/rollout_time (metrics.py:142); the
# trainer's never does (its keys are perf/<timer>_time, train_metric_utils.py:28).
ROLLOUT_SIDE_KEY = "perf/rollout_time"
MEMORY_FIELDS = ("total_GB", "free_GB", "used_GB", "allocated_GB", "reserved_GB")

_NAMES = {"nan": math.nan, "inf": math.inf, "True": True, "False": False, "None": None}


def _value(node: ast.AST) -> Any:
    """Evaluate one node of a logged repr: literals, nan/inf, and np.float64(x)-style wrappers."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.Call) and len(node.args) == 1:
        # np.float64(0.5), np.int64(3), tensor(0.25), float('nan')
        arg = _value(node.args[0])
        return float(arg) if isinstance(arg, str) else arg
    raise ValueError(f"not a logged value: {ast.dump(node)[:60]}")


def parse_dict(body: str) -> dict[str, Any] | None:
    """Parse a logged dict repr; None when it is not one."""
    try:
        value = _value(ast.parse(body, mode="eval").body)
    except (SyntaxError, ValueError, TypeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def parse_line(line: str) -> tuple[str, int | None, dict[str, Any]] | None:
    """One log line → (kind, rollout id or None, dict), or None for other lines.

    kind is perf_rollout, perf_train, rollout, train, eval, memory or engine.
    """
    m = LINE_RE.search(line)
    if m:
        data = parse_dict(m["body"])
        if data is None:
            return None
        kind = m["kind"]
        if kind == "perf":
            kind = "perf_rollout" if ROLLOUT_SIDE_KEY in data else "perf_train"
        elif kind == "step":
            kind = "train"
        return kind, int(m["id"]), data
    m = MEMORY_RE.search(line)
    if m:
        data = parse_dict(m["body"])
        if data is None:
            return None
        slug = re.sub(r"[^a-z0-9]+", "_", m["msg"].lower()).strip("_")
        fields = {f"memory/{slug}/{k}": v for k, v in data.items() if k in MEMORY_FIELDS}
        return "memory", None, fields
    m = ENGINE_RE.search(line)
    if m:
        return "engine", None, {"addr": m["addr"]}
    return None


def new_row(rollout_id: int) -> dict[str, Any]:
    """An empty steps.jsonl row; `step` is Miles's rollout id (0 is the first step)."""
    return {"step": rollout_id, "rollout": {}, "perf": {}, "train": {}, "eval": {}}


class StepAssembler:
    """Groups parsed lines into one row per rollout step, live.

    A row closes when a line of a later rollout arrives (its eval comes after its training,
    train.py:136-137) or at close(). A step is finished when the trainer's perf line arrives.
    """

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, Any]] = {}
        self.current: int | None = None
        self.finished: list[int] = []
        self.engine_addr: str | None = None
        self.last_reward: float | None = None

    def feed(self, line: str) -> list[dict[str, Any]]:
        """Feed one line; return the rows it closed."""
        parsed = parse_line(line)
        if parsed is None:
            return []
        kind, rid, data = parsed
        if kind == "engine":
            self.engine_addr = self.engine_addr or data["addr"]
            return []
        if kind == "memory":
            row = self._row(self.current if self.current is not None else 0)
            row.setdefault("memory", {}).update(data)
            return []
        if kind == "train":
            # `step M:` counts optimizer steps (rollout_id * steps_per_rollout + step_id,
            # log_utils.py:522): it belongs to the rollout the trainer is working on.
            if self.current is None:
                return []
            rid = self.current
        assert rid is not None
        closed = [self.rows.pop(k) for k in sorted(self.rows) if k < rid]
        fresh = rid not in self.rows
        row = self._row(rid)
        self.current = rid
        if kind == "eval":
            # An eval before any line of its rollout is the one train.py:96-97 runs before training.
            before = fresh or not (row["rollout"] or row["perf"] or row["train"])
            if before:
                row.setdefault("eval_before", {}).update(data)
            else:
                row["eval"].update(data)
        elif kind == "train":
            # Megatron prints each step line twice (log_utils.py:542 and megatron_utils/model.py:854).
            if not (row["train"] and row["train"].get("train/step") == data.get("train/step")):
                row["train_steps"] = row.get("train_steps", 0) + 1
            row["train"] = data
        elif kind == "rollout":
            row["rollout"].update(data)
            if isinstance(data.get("rollout/raw_reward"), (int, float)):
                self.last_reward = float(data["rollout/raw_reward"])
        else:
            row["perf"].update(data)
            if kind == "perf_train":
                self.finished.append(rid)
        return closed

    def _row(self, rid: int) -> dict[str, Any]:
        if rid not in self.rows:
            self.rows[rid] = new_row(rid)
        return self.rows[rid]

    def close(self) -> list[dict[str, Any]]:
        """Close every open row (end of log)."""
        closed = [self.rows[k] for k in sorted(self.rows)]
        self.rows = {}
        return closed


def parse_log(lines: Iterable[str]) -> list[dict[str, Any]]:
    """All step rows of a log, in order."""
    asm = StepAssembler()
    rows: list[dict[str, Any]] = []
    for line in lines:
        rows.extend(asm.feed(line))
    return rows + asm.close()


def lookup(row: dict[str, Any], key: str) -> Any:
    """A metric key's value in a row (sections hold Miles's own full keys), else None."""
    for section in ("rollout", "perf", "train", "eval", "memory", "lab"):
        part = row.get(section) or {}
        if key in part:
            return part[key]
    return None


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _series(rows: list[dict[str, Any]], *keys: str) -> tuple[str | None, list[float]]:
    """The first key present in any row, and its numeric values."""
    for key in keys:
        values = [v for v in (_num(lookup(r, key)) for r in rows) if v is not None]
        if values:
            return key, values
    return None, []


# Thresholds are this lab's judgment; the Miles guide's "what to watch" table
# (docs/user-guide/monitoring.md:39-47) gives the direction of each.
def judge_reward(v: list[float]) -> tuple[str, str]:
    if all(x == 0 for x in v):
        return "bad", "raw reward is 0 in every step: no sample earned a reward (check --rm-type, the label key, the answer format)"
    if len(v) > 1 and max(v) - min(v) == 0:
        return "watch", "raw reward does not move at all"
    return "ok", f"raw reward {v[0]:.3g} → {v[-1]:.3g}"


def judge_length(v: list[float]) -> tuple[str, str]:
    if v[-1] < 0.5 * v[0]:
        return "watch", f"responses shrank from {v[0]:.0f} to {v[-1]:.0f} tokens"
    if v[-1] > 2 * v[0]:
        return "watch", f"responses grew from {v[0]:.0f} to {v[-1]:.0f} tokens"
    return "ok", f"mean length {v[0]:.0f} → {v[-1]:.0f} tokens"


def _grade(m: float, bad_at: float, watch_at: float, bad: str, watch: str, ok: str) -> tuple[str, str]:
    """bad at or above `bad_at`, watch at or above `watch_at`, else ok; each with its message."""
    if m >= bad_at:
        return "bad", bad
    if m >= watch_at:
        return "watch", watch
    return "ok", ok


def judge_truncation(v: list[float]) -> tuple[str, str]:
    m = statistics.median(v)
    return _grade(m, 0.25, 0.05,
                  f"median {m:.0%} of responses hit the length cap (raise --rollout-max-response-len or shorten answers)",
                  f"median {m:.0%} of responses hit the length cap", f"median {m:.0%} truncated")


def judge_zero_std(v: list[float]) -> tuple[str, str]:
    m = statistics.median(v)
    return _grade(m, 0.9, 0.5,
                  f"median {m:.0%} of groups have one reward for every sample: GRPO learns nothing from them",
                  f"median {m:.0%} of groups carry no signal (all samples scored alike)",
                  f"median {m:.0%} of groups without signal")


def judge_gap(v: list[float]) -> tuple[str, str]:
    m = statistics.median(v)
    if m >= 0.2:
        return "bad", f"median gap {m:.3g} between trainer and rollout log-probs: the two sides compute different models"
    if m >= 0.05 or (len(v) > 2 and v[-1] > 2 * v[0] and v[-1] > 0.02):
        return "watch", f"gap {v[0]:.3g} → {v[-1]:.3g} (small and stable is healthy)"
    return "ok", f"median gap {m:.3g}"


def judge_clipfrac(v: list[float]) -> tuple[str, str]:
    m = max(v)
    return _grade(m, 0.5, 0.2, f"up to {m:.0%} of tokens clipped: the policy moves too fast (lower --lr)",
                  f"up to {m:.0%} of tokens clipped", f"at most {m:.0%} clipped")


def judge_grad_norm(v: list[float]) -> tuple[str, str]:
    if any(math.isnan(x) or math.isinf(x) for x in v):
        return "bad", "gradient norm is NaN or infinite"
    over = sum(1 for x in v if x >= 1.0)  # --clip-grad is reset to 1.0 (miles/utils/arguments.py:1353)
    if over > len(v) / 2:
        return "bad", f"{over} of {len(v)} steps at or above the default clip of 1.0"
    if over:
        return "watch", f"{over} of {len(v)} steps at or above the default clip of 1.0"
    return "ok", f"max {max(v):.3g}"


def judge_step_time(v: list[float]) -> tuple[str, str]:
    rest = v[1:] or v
    m = statistics.median(rest)
    if len(rest) > 2 and max(rest) > 3 * m:
        return "watch", f"a step took {max(rest):.0f} s against a median of {m:.0f} s"
    return "ok", f"median {m:.1f} s after the first step"


# (name, column header, keys in order of preference, judge, format)
SIGNALS = [
    ("reward", "reward", ("rollout/raw_reward",), judge_reward, "{:.3f}"),
    ("response_length", "resp len", ("rollout/response_len/mean", "rollout/response_lengths"), judge_length, "{:.0f}"),
    ("truncation", "trunc", ("rollout/truncated_ratio", "rollout/truncated"), judge_truncation, "{:.0%}"),
    ("zero_std", "zero-std", ("rollout/zero_std/all_zero_percentage+all_one_percentage",), judge_zero_std, "{:.0%}"),
    ("logprob_gap", "lp gap", ("train/train_rollout_logprob_abs_diff",), judge_gap, "{:.4f}"),
    ("clip_fraction", "clipfrac", ("train/pg_clipfrac",), judge_clipfrac, "{:.3f}"),
    ("grad_norm", "grad norm", ("train/grad_norm",), judge_grad_norm, "{:.3f}"),
    ("step_time", "step s", ("perf/step_time",), judge_step_time, "{:.1f}"),
]


def signal_value(row: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    """A signal's value in one row; zero-std sums the all-0 and all-1 group shares (metrics.py:193-194)."""
    for key in keys:
        if key.endswith("+all_one_percentage"):
            a = _num(lookup(row, "rollout/zero_std/all_zero_percentage"))
            b = _num(lookup(row, "rollout/zero_std/all_one_percentage"))
            if a is not None or b is not None:
                return (a or 0.0) + (b or 0.0)
            continue
        v = _num(lookup(row, key))
        if v is not None:
            return v
    return None


def read_run(rows: list[dict[str, Any]], steps: int = 10) -> dict[str, Any]:
    """Table rows and one verdict per signal for the first `steps` steps."""
    rows = rows[:steps]
    table = [{"step": r["step"], **{name: signal_value(r, keys) for name, _, keys, _, _ in SIGNALS}} for r in rows]
    verdicts = {}
    for name, _, keys, judge, _ in SIGNALS:
        values = [t[name] for t in table if t[name] is not None]
        if values:
            verdict, reason = judge(values)
        else:
            verdict, reason = "n/a", f"not in the log ({', '.join(keys)})"
        verdicts[name] = {"verdict": verdict, "reason": reason}
    return {"steps": table, "verdicts": verdicts}


def render(report: dict[str, Any]) -> str:
    """The report as a fixed-width table plus one verdict line per signal."""
    heads = ["step"] + [h for _, h, _, _, _ in SIGNALS]
    lines = [[str(t["step"])] + [("-" if t[n] is None else f.format(t[n])) for n, _, _, _, f in SIGNALS]
             for t in report["steps"]]
    widths = [max(len(x) for x in col) for col in zip(heads, *lines)]
    out = ["  ".join(x.rjust(w) for x, w in zip(row, widths)) for row in [heads] + lines]
    out.append("")
    for name, v in report["verdicts"].items():
        out.append(f"{name:<16} {v['verdict']:<5} {v['reason']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """CLI: print the table (or JSON); exit 1 when the log holds no step line."""
    ap = argparse.ArgumentParser(prog="read_run.py", description="Read the first steps of a Miles log.")
    ap.add_argument("log", metavar="LOG", help="a Miles log file (the driver's stdout, e.g. log.txt)")
    ap.add_argument("--steps", type=int, default=10, help="how many rollout steps to read (default 10)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    try:
        with open(args.log, encoding="utf-8", errors="replace") as fh:
            rows = parse_log(fh)
    except OSError as e:
        print(f"read_run: cannot read {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    if not rows:
        print(f"read_run: no Miles step lines (perf/rollout/step N: {{...}}) in {args.log}", file=sys.stderr)
        return 1
    report = read_run(rows, args.steps)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
