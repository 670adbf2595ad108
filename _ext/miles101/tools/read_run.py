#!/usr/bin/env python3
"""Read the first steps of a Miles GRPO log and say which signals look wrong.

    python3 read_run.py LOG [--steps 10] [--json]
    python3 read_run.py LOG --diagnose      # which 7.1 entries the log's lines point at, likeliest first
    python3 read_run.py LOG --diagnose --run FILE   # ... with the fixes for the run's backend and batching
    python3 read_run.py LOG --compare       # the first steps beside the public references
    python3 read_run.py LOG --compare --against SERIES [--at 0,5,9]   # per step beside a public run's series
    python3 read_run.py LOG --groups 32     # the number of prompt groups a rollout keeps (--rollout-batch-size)
    python3 read_run.py LOG --samples       # the sample responses the log holds, step by step

Standalone (Python 3.9+, standard library only): download it beside your log and run it.
The Miles 101 recorder imports the same parser to turn a live log into steps.jsonl.

Miles prints four dict-valued lines per rollout step (verified at radixark/miles 31f1ca961):
  perf N: {...}     rollout side: miles/ray/rollout/metrics.py:89 (rollout/* sample stats, perf/rollout_time)
  rollout N: {...}  trainer: miles/backends/training_utils/log_utils.py:123 (rollout/raw_reward, ...)
  step M: {...}     trainer, once per optimizer step: log_utils.py:542 (train/*)
  perf N: {...}     trainer timers: miles/utils/train_metric_utils.py:56 (perf/step_time, ...)
and `eval N: {...}` (metrics.py:53). The dicts are Python reprs, written through the logging
format of miles/utils/logging_utils.py:35 ("[time name] file.py:line - message").

Each well-formed line is read on its own; Ray's `(pid=...)` / `(RolloutManager pid=...)` prefixes,
ANSI colours and Ray's `[repeated Nx across cluster]` suffix are stripped first. A line that looks
like a step line but does not parse, and every nan/inf value, is reported with its line number.

The symptom table and the cut-offs below are generated from Miles 101's capture/symptoms.json and
capture/references/reader.json (a test keeps them equal), so this file runs alone.
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import re
import statistics
import sys
from typing import Any, Callable, Iterable

# `perf|rollout|step|eval N: {dict}` at the end of a log line. The kind must follow a space or
# the line start, so a critic's `critic-step N:` (log_utils.py:523, 542) is not read as ours.
LINE_RE = re.compile(r"(?:^|\s)(?P<kind>perf|rollout|step|eval) (?P<id>\d+): (?P<body>\{.*\})\s*$")
# The start of such a line, to report one whose dict does not parse (cut off, `...` inside).
LOOKS_LIKE_RE = re.compile(r"(?:^|\s)(?P<kind>perf|rollout|step|eval) (?P<id>\d+): \{")
# An OSC title ends at BEL; it stops at the next ESC too, so a line of ten thousand `ESC ]` is read in one pass.
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*\x07")
# Ray's log deduplication appends this to a repeated line (with white space before it, stripped after the match: a
# pattern that starts with \s* is tried at each space of a long run of them, quadratic on a line of spaces).
REPEATED_RE = re.compile(r"\[repeated \d+x across cluster\]\s*$")
# `[Rank 0] Memory-Usage <msg>: {...}` (miles/utils/memory_utils.py:41-43); GB there are GiB.
MEMORY_RE = re.compile(r"\[Rank 0\] Memory-Usage (?P<msg>.+?)(?: \(cleared before print\))?: (?P<body>\{.*\})\s*$")
# The engine's HTTP address (miles/backends/sglang_utils/sglang_engine.py:247).
ENGINE_RE = re.compile(r"Launch HttpServerEngineAdapter at: (?P<addr>[\w.\-\[\]:]+:\d+)")
# The rollout manager's `perf N:` line always holds perf/rollout_time (metrics.py:142); the
# trainer's never does (its keys are perf/<timer>_time, train_metric_utils.py:28).
ROLLOUT_SIDE_KEY = "perf/rollout_time"
# Miles at 31f1ca961 logs the mean reward as rollout/raw_reward (log_utils.py:123 with the
# rollout_data key of the same name); some newer Miles-based logs name it rollout/episode_raw_reward.
# Read the older key, and the newer one where the older is absent.
NEWER_REWARD_KEY = "rollout/episode_raw_reward"
MEMORY_FIELDS = ("total_GB", "free_GB", "used_GB", "allocated_GB", "reserved_GB")
# Groups without spread, counted by their reward: f"zero_std/count_{str(round(reward, 1))}"
# (miles/ray/rollout/metrics.py:183-186). An int reward (--rm-type math returns 1 or 0,
# miles/rollout/rm_hub/__init__.py:67-68) gives count_0/count_1, a float one count_0.0/count_1.0.
# The shares all_zero/all_one_percentage look up "0.0" and "1.0" only (metrics.py:191-194), so for
# an int reward they stay 0 whatever happens: the counts are the signal, over the number of groups.
ZERO_STD_COUNT = "rollout/zero_std/count_"
ZERO_STD_SHARES = ("rollout/zero_std/all_zero_percentage", "rollout/zero_std/all_one_percentage")
# The reward suffixes those shares count (metrics.py:193-194): any other count_ key is outside them.
SHARED_REWARDS = ("0.0", "1.0")
# Megatron's argument dump prints `  rollout_batch_size ........ 32` on rank 0; FSDP runs print none.
BATCH_DUMP_RE = re.compile(r"(?:^|\s)rollout_batch_size \.+ (?P<n>\d+)\s*$")
# --rollout-batch-size and its number in a launch command or a Miles 101 run file's args list.
BATCH_FLAG = "--rollout-batch-size"

#: Longer lines are never step lines (Miles's are a few KB); they are skipped, so a 20 MB line costs no parse.
MAX_STEP_LINE = 1 << 20

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


def clean(line: str) -> str:
    """A log line without ANSI colours, Ray's dedup suffix and the trailing newline."""
    text = ANSI_RE.sub("", line.rstrip("\r\n"))
    kept = REPEATED_RE.sub("", text)
    return text if len(kept) == len(text) else kept.rstrip()


def parse_line(line: str) -> tuple[str, int | None, dict[str, Any]] | None:
    """One log line → (kind, rollout id or None, dict), or None for other lines.

    kind is perf_rollout, perf_train, rollout, train, eval, memory or engine.
    """
    line = clean(line)
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
    A `step M:` line before any rollout/perf/eval line (a log that holds only step lines) makes
    its own row, numbered M. Lines that look like step lines but do not parse go to `malformed`,
    nan/inf values to `nonfinite`, each with its line number.
    """

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, Any]] = {}
        self.current: int | None = None
        self.anchored = False  # a rollout/perf/eval line has been seen
        self.first_train_line: int | None = None  # the trainer's first `step N:` line: a step has trained
        self.finished: list[int] = []
        self.engine_addr: str | None = None
        self.last_reward: float | None = None
        self.lineno = 0
        self.malformed: list[dict[str, Any]] = []
        self.nonfinite: list[dict[str, Any]] = []

    def feed(self, line: str, lineno: int | None = None) -> list[dict[str, Any]]:
        """Feed one line; return the rows it closed. Never raises on log content."""
        self.lineno = lineno if lineno is not None else self.lineno + 1
        if len(line) > MAX_STEP_LINE:
            return []  # no step line is that long (a dumped tensor, a progress bar without newlines): not read
        try:
            parsed = parse_line(line)
        except Exception:  # noqa: BLE001 - a reader must survive any line
            parsed = None
        if parsed is None:
            m = LOOKS_LIKE_RE.search(clean(line))
            if m:
                self.malformed.append({"line": self.lineno, "kind": m["kind"], "id": int(m["id"]),
                                       "text": clean(line)[m.start():][:160]})
            return []
        kind, rid, data = parsed
        if kind == "engine":
            self.engine_addr = self.engine_addr or data["addr"]
            return []
        for key, value in data.items():
            if isinstance(value, float) and not math.isfinite(value):
                self.nonfinite.append({"line": self.lineno, "key": key, "value": repr(value)})
        if kind == "memory":
            row = self._row(self.current if self.current is not None else 0)
            row.setdefault("memory", {}).update(data)
            return []
        if kind == "train" and self.first_train_line is None:
            self.first_train_line = self.lineno
        if kind == "train" and self.anchored and self.current is not None:
            # `step M:` counts optimizer steps (rollout_id * steps_per_rollout + step_id,
            # log_utils.py:522): it belongs to the rollout the trainer is working on.
            rid = self.current
        elif kind != "train":
            self.anchored = True
        assert rid is not None
        closed = [self.rows.pop(k) for k in sorted(self.rows) if k < rid]
        fresh = rid not in self.rows
        row = self._row(rid)
        row.setdefault("lines", []).append(self.lineno)
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
            reward = _num(data.get("rollout/raw_reward", data.get(NEWER_REWARD_KEY)))
            if reward is not None:
                self.last_reward = reward
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


def read_log(lines: Iterable[str]) -> tuple[list[dict[str, Any]], StepAssembler]:
    """All step rows of a log, in order, and the assembler (for malformed and nonfinite lines)."""
    asm = StepAssembler()
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        rows.extend(asm.feed(line, n))
    return rows + asm.close(), asm


def report_of(lines: list[str], steps: int = 10, groups: int | None = None
              ) -> tuple[list[dict[str, Any]], StepAssembler, dict[str, Any] | None]:
    """The rows, the assembler and the report `read_run.py LOG` prints (None without a step), with where
    the log's first step row starts (`first_line`) and the trainer's first `step N:` line (`first_train_line`)."""
    rows, asm = read_log(lines)
    report = read_run(rows, steps, groups) if rows else None
    if report is not None:
        report["malformed"], report["nonfinite"] = asm.malformed, asm.nonfinite
        report["first_line"] = rows[0]["lines"][0] if rows[0].get("lines") else None
        report["first_train_line"] = asm.first_train_line
    return rows, asm, report


def parse_log(lines: Iterable[str]) -> list[dict[str, Any]]:
    """All step rows of a log, in order."""
    return read_log(lines)[0]


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


# The reader's cut-offs: this lab's judgment, not Miles's. The Miles guide's "what to watch" table
# (docs/user-guide/monitoring.md:39-47) gives the direction of each; the grad-norm clip is Miles's
# --clip-grad default (miles/utils/arguments.py:1353). Published as public references in
# capture/references/reader.json (a test keeps the two equal).
# --- cut-offs: generated from capture/references/reader.json; do not edit by hand ---
CUTOFFS: dict[str, float] = {
    "reader.length_shrink": 0.5,
    "reader.length_grow": 2.0,
    "reader.truncation_watch": 0.05,
    "reader.truncation_bad": 0.25,
    "reader.zero_std_watch": 0.5,
    "reader.zero_std_bad": 0.9,
    "reader.logprob_gap_watch": 0.05,
    "reader.logprob_gap_bad": 0.2,
    "reader.logprob_gap_growth": 2.0,
    "reader.logprob_gap_floor": 0.02,
    "reader.clipfrac_watch": 0.2,
    "reader.clipfrac_bad": 0.5,
    "reader.grad_norm_clip": 1.0,
    "reader.step_time_spike": 3.0,
}
# --- end cut-offs ---
C = CUTOFFS


def judge_reward(v: list[float]) -> tuple[str, str]:
    if all(x == 0 for x in v):
        read = "the one step read" if len(v) == 1 else f"all {len(v)} steps read"
        return "bad", f"raw reward is 0 in {read}: no sample earned a reward (check the label key, the answer format, --rm-type)"
    if len(v) > 1 and max(v) - min(v) == 0:
        return "watch", "raw reward does not move at all"
    return "ok", f"raw reward {v[0]:.3g} → {v[-1]:.3g}"


def judge_length(v: list[float]) -> tuple[str, str]:
    if v[-1] < C["reader.length_shrink"] * v[0]:
        return "watch", f"responses shrank from {v[0]:.0f} to {v[-1]:.0f} tokens"
    if v[-1] > C["reader.length_grow"] * v[0]:
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
    return _grade(m, C["reader.truncation_bad"], C["reader.truncation_watch"],
                  f"median {m:.0%} of responses hit the length cap (raise --rollout-max-response-len or shorten answers)",
                  f"median {m:.0%} of responses hit the length cap", f"median {m:.0%} truncated")


def judge_zero_std(v: list[float]) -> tuple[str, str]:
    m = statistics.median(v)
    return _grade(m, C["reader.zero_std_bad"], C["reader.zero_std_watch"],
                  f"median {m:.0%} of groups have one reward for every sample: GRPO learns nothing from them",
                  f"median {m:.0%} of groups carry no signal (all samples scored alike)",
                  f"median {m:.0%} of groups without signal")


def zero_std_counts(row: dict[str, Any]) -> dict[str, float]:
    """The step's groups without spread by reward key suffix ("0", "1", "0.0", "-1.0", ...)."""
    out: dict[str, float] = {}
    for section in ("rollout", "perf"):  # the rollout side's `perf N:` line holds them (metrics.py:89)
        for key, value in (row.get(section) or {}).items():
            n = _num(value)
            if isinstance(key, str) and key.startswith(ZERO_STD_COUNT) and n is not None:  # a logged dict may hold int keys
                out[key[len(ZERO_STD_COUNT):]] = n
    return out


def zero_std_step(row: dict[str, Any], groups: int | None) -> dict[str, Any] | None:
    """One step's groups without spread: count (None when not logged), share (None when unknown), how.

    With the number of groups known, share = the counts' sum over it, for any reward type. Without
    it, the shares all_zero + all_one give it only when every count key is one they cover ("0.0",
    "1.0"); a count they do not cover (an int reward's count_0, dapo's count_-1.0) wins over them,
    and the share is unknown. No count key at all means no group lacked spread.
    """
    counts = zero_std_counts(row)
    shares = [_num(lookup(row, k)) for k in ZERO_STD_SHARES]
    if not counts and all(x is None for x in shares):
        return None
    n = sum(counts.values())
    if groups:
        return {"count": n, "share": n / groups, "how": "counts"}
    if not counts:
        return {"count": 0, "share": 0.0, "how": "counts"}
    uncovered = sorted(r for r in counts if r not in SHARED_REWARDS)
    if not uncovered and any(x is not None for x in shares):
        return {"count": n, "share": sum(x or 0.0 for x in shares), "how": "shares"}
    return {"count": n, "share": None, "how": "counts", "uncovered": uncovered}


def judge_zero_std_steps(zs: list[dict[str, Any]]) -> tuple[str, str]:
    """The verdict on groups without spread: from the shares when every step's is known, else unknown."""
    if any(z["share"] is None for z in zs):
        counts = ", ".join(f"{z['count']:g}" for z in zs)
        uncovered = sorted({r for z in zs for r in z.get("uncovered", [])})
        why = ("the logged all_zero/all_one shares count rewards 0.0 and 1.0 only, not "
               f"count_{', count_'.join(uncovered)}" if uncovered else "the log gives no all_zero/all_one shares")
        return "unknown", (f"groups without spread per step: {counts}; {why}, so the share needs the number of "
                           "groups: pass --groups N (your --rollout-batch-size) or --run FILE")
    if any(z["share"] > 1 for z in zs):
        most = max(z["count"] for z in zs)
        return "unknown", (f"{most:g} groups without spread in one step, more than the number of groups given: "
                           "pass the run's --rollout-batch-size as --groups N")
    return judge_zero_std([z["share"] for z in zs])


def batch_size(digits: str) -> int:
    """A --rollout-batch-size's digits as a number; ValueError (the value, the fix) for one no run could pass."""
    if len(digits) > 9:
        raise ValueError(f"--rollout-batch-size {digits[:12]}... is {len(digits)} digits long: no run has that many "
                         "prompt groups; fix the value (or pass --groups N)")
    return int(digits)


def groups_in_log(lines: Iterable[str]) -> int | None:
    """rollout_batch_size from Megatron's argument dump in the log, if printed (and a number a run could have)."""
    for line in lines:
        m = BATCH_DUMP_RE.search(clean(line))
        if m:
            return int(m["n"]) if len(m["n"]) <= 9 else None
    return None


def groups_in_file(text: str, read_base: Callable[[str], str | None] | None = None, _depth: int = 0) -> int | None:
    """The number the last --rollout-batch-size passes in a run file or a launch command, read as bash reads it
    (read_arguments; a run file's base: through `read_base`), if any; None where it passes none, a $VAR or not a
    number; ValueError when absurd."""
    args = read_arguments(text)
    found: str | None = None
    words = args["words"]
    for k, (w, exp) in enumerate(words):
        if w == BATCH_FLAG:
            found = words[k + 1][0] if k + 1 < len(words) and words[k + 1][1] is None else ""
        elif w.startswith(BATCH_FLAG + "="):
            found = w[len(BATCH_FLAG) + 1:] if exp is None else ""
    if found is not None:
        return batch_size(found) if found.isascii() and found.isdigit() else None
    base = args["base"]
    if base and BATCH_FLAG not in args["drop"] and RUN_ID_RE.match(base) and read_base and _depth < MAX_BASES:
        base_text = read_base(base)
        return groups_in_file(base_text, read_base, _depth + 1) if base_text is not None else None
    return None


def judge_gap(v: list[float]) -> tuple[str, str]:
    m = statistics.median(v)
    if m >= C["reader.logprob_gap_bad"]:
        return "bad", f"median gap {m:.3g} between trainer and rollout log-probs: the two sides compute different models"
    grows = len(v) > 2 and v[-1] > C["reader.logprob_gap_growth"] * v[0] and v[-1] > C["reader.logprob_gap_floor"]
    if m >= C["reader.logprob_gap_watch"] or grows:
        return "watch", f"gap {v[0]:.3g} → {v[-1]:.3g} (small and stable is healthy)"
    return "ok", f"median gap {m:.3g}"


def judge_clipfrac(v: list[float]) -> tuple[str, str]:
    """Miles's guide: healthy below the watch line, a red flag above (not at) the bad line (monitoring.md:47)."""
    m = max(v)
    if m > C["reader.clipfrac_bad"]:
        return "bad", f"up to {m:.0%} of tokens clipped: the policy moves too fast (lower --lr)"
    if m >= C["reader.clipfrac_watch"]:
        return "watch", f"up to {m:.0%} of tokens clipped"
    return "ok", f"at most {m:.0%} clipped"


def judge_grad_norm(v: list[float]) -> tuple[str, str]:
    if any(math.isnan(x) or math.isinf(x) for x in v):
        return "bad", "gradient norm is NaN or infinite"
    clip = C["reader.grad_norm_clip"]
    over = sum(1 for x in v if x >= clip)
    if over > len(v) / 2:
        return "bad", f"{over} of {len(v)} steps at or above the default clip of {clip:g} (max {max(v):.3g})"
    if over:
        return "watch", f"{over} of {len(v)} steps at or above the default clip of {clip:g} (max {max(v):.3g})"
    return "ok", f"max {max(v):.3g}"


def judge_step_time(v: list[float]) -> tuple[str, str]:
    rest = v[1:] or v
    m = statistics.median(rest)
    if len(rest) > 2 and max(rest) > C["reader.step_time_spike"] * m:
        return "watch", f"a step took {max(rest):.0f} s against a median of {m:.0f} s"
    return "ok", f"median {m:.1f} s after the first step"


# The zero-std signal's stand-in key: groups without spread over all groups (zero_std_step).
ZERO_STD_SIGNAL = "rollout/zero_std/count_<reward> / groups"
# (name, column header, keys in order of preference, judge, format)
SIGNALS = [
    ("reward", "reward", ("rollout/raw_reward", NEWER_REWARD_KEY), judge_reward, "{:.3f}"),
    ("response_length", "resp len", ("rollout/response_len/mean", "rollout/response_lengths"), judge_length, "{:.0f}"),
    ("truncation", "trunc", ("rollout/truncated_ratio", "rollout/truncated"), judge_truncation, "{:.0%}"),
    ("zero_std", "zero-std", (ZERO_STD_SIGNAL,), judge_zero_std, "{:.0%}"),
    ("logprob_gap", "lp gap", ("train/train_rollout_logprob_abs_diff",), judge_gap, "{:.4f}"),
    ("clip_fraction", "clipfrac", ("train/pg_clipfrac",), judge_clipfrac, "{:.3f}"),
    ("grad_norm", "grad norm", ("train/grad_norm",), judge_grad_norm, "{:.3f}"),
    ("step_time", "step s", ("perf/step_time",), judge_step_time, "{:.1f}"),
]


def signal_value(row: dict[str, Any], keys: tuple[str, ...], groups: int | None = None) -> float | None:
    """A signal's value in one row; zero-std is the share of groups without spread (zero_std_step)."""
    for key in keys:
        if key == ZERO_STD_SIGNAL:
            z = zero_std_step(row, groups)
            return None if z is None else z["share"]
        v = _num(lookup(row, key))
        if v is not None:
            return v
    return None


def read_run(rows: list[dict[str, Any]], steps: int = 10, groups: int | None = None) -> dict[str, Any]:
    """Table rows and one verdict per signal for the first `steps` steps.

    `groups` is the number of prompt groups a rollout keeps (--rollout-batch-size); without it an
    integer reward's share of groups without spread is unknown.
    """
    rows = rows[:steps]
    table = [{"step": r["step"], **{name: signal_value(r, keys, groups) for name, _, keys, _, _ in SIGNALS}}
             for r in rows]
    zs = [zero_std_step(r, groups) for r in rows]
    for t, z in zip(table, zs):
        t["zero_std_groups"] = None if z is None else z["count"]
    verdicts = {}
    for name, _, keys, judge, _ in SIGNALS:
        values = [t[name] for t in table if t[name] is not None]
        if name == "zero_std" and any(z is not None for z in zs):
            verdict, reason = judge_zero_std_steps([z for z in zs if z is not None])
        elif values:
            verdict, reason = judge(values)
        else:
            verdict, reason = "n/a", f"not in the log ({', '.join(keys)})"
        verdicts[name] = {"verdict": verdict, "reason": reason}
    return {"steps": table, "verdicts": verdicts, "groups": groups}


def _cell(t: dict[str, Any], name: str, fmt: str) -> str:
    """One table cell; a zero-std share that is unknown shows its count as `N of ?`."""
    if t[name] is not None:
        return fmt.format(t[name])
    if name == "zero_std" and t.get("zero_std_groups") is not None:
        return f"{t['zero_std_groups']:g} of ?"
    return "-"


def render(report: dict[str, Any]) -> str:
    """The report as a fixed-width table plus one verdict line per signal."""
    heads = ["step"] + [h for _, h, _, _, _ in SIGNALS]
    lines = [[str(t["step"])] + [_cell(t, n, f) for n, _, _, _, f in SIGNALS] for t in report["steps"]]
    widths = [max(len(x) for x in col) for col in zip(heads, *lines)]
    out = ["  ".join(x.rjust(w) for x, w in zip(row, widths)) for row in [heads] + lines]
    out.append("")
    for name, v in report["verdicts"].items():
        out.append(f"{name:<16} {v['verdict']:<7} {v['reason']}")
    return "\n".join(out)


# ---- --diagnose: the log's lines against 7.1's symptoms -------------------------------------

# Where 7.1 is published. PAGE_PATH is the page inside the built manual (the `url` of --json and the page's
# doctor link relative to it). The terminal names an entry by its full address when the book's archive says it
# (miles101-tools.pyz, built where the book has a canonical URL, sets PAGE_URL_ENV before it runs this file),
# else by the page's title and the entry's anchor in words: a path inside the site is nothing to open on a host.
PAGE_PATH = "sections/7-1-troubleshoot-by-symptom.html"
PAGE_URL_ENV = "MILES101_7_1_URL"
PAGE_TITLE = "Troubleshoot by symptom"


def where_to_read(anchor: str) -> str:
    """Where the reader opens 7.1's entry `anchor`: its full address when known, else the page and anchor in words."""
    page = os.environ.get(PAGE_URL_ENV, "").strip()
    if page.startswith(("https://", "http://")):
        return f"{page}#{anchor}"
    return f"7.1 {PAGE_TITLE}, entry #{anchor}"

# --- symptoms: generated from capture/symptoms.json by `python3 -m capture.lab.symptoms --write`; do not edit ---
SYMPTOMS_JSON = r'''{
 "schema": "symptoms/1",
 "page": "sections/7-1-troubleshoot-by-symptom.md",
 "evidence": {
  "window": 30,
  "ready": [
   "The server is fired up and ready to roll!"
  ],
  "phases": [
   {
    "id": "logits",
    "says": "the lines around line {line} are the trainer's logits or log-prob computation ({marker})",
    "markers": [
     "float_conversion",
     "compute_log_prob",
     "calculate_log_probs_and_entropy",
     "get_log_probs_and_entropy",
     "vocab_parallel",
     "entropy_from_logits",
     "logprobs_from_logits",
     "selective_log_softmax"
    ],
    "timers": [
     "log_probs",
     "ref_log_probs"
    ]
   },
   {
    "id": "optimizer",
    "says": "the lines around line {line} are the optimizer step ({marker})",
    "markers": [
     "optimizer.step(",
     "in _multi_tensor_adam",
     "in _single_tensor_adam",
     "in _fused_adam"
    ],
    "timers": []
   },
   {
    "id": "trainer",
    "says": "the lines around line {line} are the trainer's forward or backward pass ({marker})",
    "markers": [
     "forward_backward",
     "forward_step",
     "in backward",
     "_train_step",
     "in train_actor",
     "loss.backward()",
     "_engine_run_backward"
    ],
    "timers": [
     "actor_train",
     "train"
    ]
   },
   {
    "id": "switch",
    "says": "the lines around line {line} are the switch between rollout and training ({marker})",
    "markers": [
     "in resume",
     "func=resume",
     "in wake_up",
     "update_weights",
     "resume_memory_occupation",
     "release_memory_occupation"
    ],
    "timers": [
     "wake_up",
     "sleep",
     "update_weights",
     "update_weights_implementation",
     "finalize_and_resume_engines"
    ]
   },
   {
    "id": "engine_start",
    "says": "the lines around line {line} are the engine's start-up ({marker})",
    "markers": [
     "Scheduler hit an exception",
     "scheduler died during initialization",
     "in init_memory_pool",
     "in capture_one_batch_size",
     "in launch_server",
     "Capture cuda graph failed",
     "in init_cuda_graphs"
    ],
    "timers": []
   },
   {
    "id": "engine",
    "says": "the lines around line {line} are the engine's (SGLang), not the trainer's ({marker})",
    "markers": [
     "(SGLangEngine pid=",
     "sglang/srt/"
    ],
    "timers": [
     "rollout",
     "eval_rollout"
    ]
   }
  ],
  "facts": {
   "alloc": {
    "whole": "PyTorch held {unalloc} reserved but unallocated, less than the {want} asked: no arrangement of its cache would have held it",
    "fragmented": "PyTorch held {unalloc} reserved but unallocated, at least the {want} asked, yet not in one block: fragmentation",
    "margin": "torch_memory_saver refused {want} with {free} free, inside its margin of {margin}"
   },
   "ready": {
    "before": "nothing before line {line} says the engine was ready (no `The server is fired up and ready to roll!`, no step line)",
    "after": "the engine had reported ready or a step had run before line {line}"
   },
   "steps": {
    "one": "only {steps} step was read: one step is weak evidence",
    "several": "{steps} steps show it"
   },
   "truncation": {
    "bad": "the truncation verdict is bad: {reason}",
    "watch": "the truncation verdict is watch: {reason}",
    "ok": "the truncation verdict is ok: {reason}"
   },
   "grad": {
    "nonfinite": "a gradient norm is NaN or infinite",
    "large": "the gradient norm is at or above the default --clip-grad in most steps read"
   },
   "backend": {
    "fsdp": "the run's --train-backend is fsdp",
    "megatron": "the run's --train-backend is megatron"
   },
   "dynamic_batch": {
    "on": "the run sets --use-dynamic-batch-size",
    "off": "the run does not set --use-dynamic-batch-size"
   },
   "label": {
    "none": "the logged samples have label=None",
    "set": "the logged samples have a label"
   },
   "abi": {
    "mismatch": "line {line} or the lines around it name an `undefined symbol`: a binary built against another PyTorch"
   },
   "gpu": {
    "gb10": "line {seen_line} is PyTorch's capability warning for a GB10, which healthy GB10 runs print too: the run is on a GB10"
   },
   "others": {
    "none": "no entry that names an error of its own matched this log",
    "matched": "line {other_line} matched an entry that names an error of its own, which this line may only report"
   }
  }
 },
 "symptoms": [
  {
   "id": "args-rollout-batch-size-required",
   "section": "Arguments Miles rejects",
   "title": "`the following arguments are required: --rollout-batch-size`",
   "grep": [
    "the following arguments are required: --rollout-batch-size"
   ],
   "check": "tail -n 3 \"$LOG\"",
   "fix": "Set --rollout-batch-size; 1.1 shows a complete one-GPU command."
  },
  {
   "id": "args-global-batch-size",
   "section": "Arguments Miles rejects",
   "title": "`global_batch_size ... is not equal to rollout_batch_size ... * n_samples_per_prompt ... // num_steps_per_rollout`",
   "grep": [
    "global_batch_size ... is not equal to rollout_batch_size ... // num_steps_per_rollout"
   ],
   "check": "grep -n -o 'global_batch_size .*' \"$LOG\"",
   "fix": "Drop --global-batch-size and let Miles derive it, or make rollout_batch_size * n_samples_per_prompt // steps per rollout equal it."
  },
  {
   "id": "args-num-rollout",
   "section": "Arguments Miles rejects",
   "title": "`num_epoch is not set, but num_rollout is not set, please set --num-rollout or --num-epoch`",
   "grep": [
    "num_epoch is not set, but num_rollout is not set"
   ],
   "check": "grep -n -e '--num-rollout' -e '--num-epoch' \"/root/logs/$RUN.args\"",
   "fix": "Set --num-rollout for a fixed number of steps."
  },
  {
   "id": "args-max-tokens-per-gpu",
   "section": "Arguments Miles rejects",
   "title": "`max_tokens_per_gpu must be set when use_dynamic_batch_size is set`",
   "grep": [
    "max_tokens_per_gpu must be set when use_dynamic_batch_size is set"
   ],
   "check": "grep -n -e '--use-dynamic-batch-size' -e '--max-tokens-per-gpu' \"/root/logs/$RUN.args\"",
   "fix": "Set --max-tokens-per-gpu (slime's FAQ: start from the response cap divided by the context-parallel size)."
  },
  {
   "id": "args-fully-async-colocate",
   "section": "Arguments Miles rejects",
   "title": "`--fully-async cannot colocate: rollout must keep generating while training runs`",
   "grep": [
    "--fully-async cannot colocate"
   ],
   "check": "grep -n -e '--fully-async' -e '--colocate' \"/root/logs/$RUN.args\"",
   "fix": "Drop fully async on one GPU (see 4.1)."
  },
  {
   "id": "args-p2p-colocate",
   "section": "Arguments Miles rejects",
   "title": "`P2P weight transfer mode is not compatible with --colocate.`",
   "grep": [
    "P2P weight transfer mode is not compatible with --colocate.",
    "Disk-delta weight transfer mode is not compatible with --colocate."
   ],
   "check": "grep -n -e '--update-weight-transfer-mode' \"/root/logs/$RUN.args\"",
   "fix": "Leave the weight transfer mode at its default (see 2.4)."
  },
  {
   "id": "args-ref-load-missing",
   "section": "Arguments Miles rejects",
   "title": "`ref_load ... does not exist, please check the path.`",
   "grep": [
    "ref_load ... does not exist, please check the path."
   ],
   "check": "grep -n -e '--ref-load' \"/root/logs/$RUN.args\"\nls \"$(grep -oP '^--ref-load \\K\\S+' \"/root/logs/$RUN.args\")\"",
   "fix": "Mount the reference checkpoint and point --ref-load at it, or drop the KL term (--kl-coef 0, no --use-kl-loss)."
  },
  {
   "id": "args-parallel-world-size",
   "section": "Arguments Miles rejects",
   "title": "`world_size (...) is not divisible by`",
   "grep": [
    "world_size ( ... ) is not divisible by",
    "world size ( ... ) is not divisible by total_model_size",
    "world size ( ... ) is not divisible by"
   ],
   "check": "grep -n -e '--tensor-model-parallel-size' -e '--pipeline-model-parallel-size' -e '--expert-model-parallel-size' -e '--context-parallel-size' \"/root/logs/$RUN.args\"",
   "fix": "On one GPU, set the Megatron parallel sizes to 1: Megatron needs tensor \u00d7 pipeline \u00d7 context, and expert-tensor \u00d7 expert \u00d7 pipeline, each to divide the trainer's GPU count."
  },
  {
   "id": "args-kl-coef-both",
   "section": "Arguments Miles rejects",
   "title": "`Only one of kl_coef and kl_loss_coef can be set`",
   "grep": [
    "Only one of kl_coef and kl_loss_coef can be set"
   ],
   "check": "grep -n -e '--kl-coef' -e '--kl-loss-coef' \"/root/logs/$RUN.args\"",
   "fix": "Keep one KL term: set --kl-coef 0 or --kl-loss-coef 0."
  },
  {
   "id": "args-rollout-logprobs-tis",
   "section": "Arguments Miles rejects",
   "title": "`use_rollout_logprobs and use_tis cannot be set at the same time.`",
   "grep": [
    "use_rollout_logprobs and use_tis cannot be set at the same time."
   ],
   "check": "grep -n -e '--use-rollout-logprobs' -e '--use-tis' \"/root/logs/$RUN.args\"",
   "fix": "Drop one of --use-rollout-logprobs and --use-tis."
  },
  {
   "id": "args-eval-datasets",
   "section": "Arguments Miles rejects",
   "title": "`Evaluation datasets must be configured when eval_interval is set.`",
   "grep": [
    "Evaluation datasets must be configured when eval_interval is set."
   ],
   "check": "grep -n -e '--eval-interval' -e '--eval-prompt-data' -e '--eval-config' \"/root/logs/$RUN.args\"",
   "fix": "Give --eval-prompt-data (name and path pairs) or --eval-config, or drop --eval-interval."
  },
  {
   "id": "args-fsdp-context-parallel",
   "section": "Arguments Miles rejects",
   "title": "`Context parallelism is not supported for FSDP backend.`",
   "grep": [
    "Context parallelism is not supported for FSDP backend."
   ],
   "check": "grep -n -e '--train-backend' -e '--context-parallel-size' \"/root/logs/$RUN.args\"",
   "fix": "With --train-backend fsdp, leave --context-parallel-size at 1 (or drop it)."
  },
  {
   "id": "args-not-enough-samples",
   "section": "Arguments Miles rejects",
   "title": "`Not enough samples ... for global_batch_size ...`",
   "grep": [
    "Not enough samples ... for global_batch_size"
   ],
   "check": "grep -n -e '--global-batch-size' -e '--rollout-batch-size' -e '--n-samples-per-prompt' -e '--num-steps-per-rollout' \"/root/logs/$RUN.args\"",
   "fix": "Make --global-batch-size at most the samples one rollout keeps (--rollout-batch-size \u00d7 --n-samples-per-prompt), or drop it and set --num-steps-per-rollout."
  },
  {
   "id": "hf-checkpoint-missing",
   "section": "Arguments Miles rejects",
   "title": "`Incorrect path_or_model_id: '...'` or `Repo id must be in the form 'repo_name' or 'namespace/repo_name'`",
   "grep": [
    "Incorrect path_or_model_id: '",
    "Repo id must be in the form 'repo_name' or 'namespace/repo_name'",
    "We couldn't connect to 'https://huggingface.co' to load",
    "is not a local folder and is not a valid model identifier listed on",
    "does not appear to have a file named config.json",
    "Should have a ... key in its config.json",
    "Can't load tokenizer for",
    "Can't load the configuration of",
    "Repository Not Found for url",
    "You are trying to access a gated repo."
   ],
   "check": "grep -n -e '--hf-checkpoint' \"/root/logs/$RUN.args\"\nls -l \"$(sed -n 's/^--hf-checkpoint[ =]//p' \"/root/logs/$RUN.args\")/config.json\"",
   "fix": "Point --hf-checkpoint at the model directory as the Ray job sees it (a path inside the container that holds config.json)."
  },
  {
   "id": "data-path-missing",
   "section": "Arguments Miles rejects",
   "title": "`Prompt dataset path '...' does not exist.`",
   "grep": [
    "Prompt dataset path ' ... ' does not exist."
   ],
   "check": "grep -n -e '--prompt-data' -e '--eval-prompt-data' \"/root/logs/$RUN.args\"",
   "fix": "Point --prompt-data (or --eval-prompt-data, whichever gave the path the message names) at the file as the Ray job sees it (a path inside the container)."
  },
  {
   "id": "data-unsupported-format",
   "section": "Arguments Miles rejects",
   "title": "`Unsupported file format: ... Supported formats are .jsonl and .parquet.`",
   "grep": [
    "Supported formats are .jsonl and .parquet."
   ],
   "check": "grep -n -e '--prompt-data' -e '--eval-prompt-data' \"/root/logs/$RUN.args\"",
   "fix": "Convert the prompt file to JSON Lines (.jsonl, one object a line) or Parquet and pass that path to --prompt-data (or --eval-prompt-data, whichever gave the file the message names)."
  },
  {
   "id": "chat-template-missing",
   "section": "Arguments Miles rejects",
   "title": "`tokenizer.chat_template is not set`",
   "grep": [
    "tokenizer.chat_template is not set",
    "apply_chat_template(",
    "does not have a chat template",
    "No chat template is set for this tokenizer",
    "No chat template is defined for this tokenizer"
   ],
   "check": "HF=$(grep -oP '^--hf-checkpoint \\K\\S+' \"/root/logs/$RUN.args\")\npython3 -c \"from transformers import AutoTokenizer as T; print(T.from_pretrained('$HF').chat_template is not None)\"",
   "fix": "Use the model's instruct version, or drop --apply-chat-template for a base model and write its prompt format into the data."
  },
  {
   "id": "gb10-ptxas-sm121a",
   "section": "Images and hardware",
   "title": "`ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'`",
   "grep": [
    "Value 'sm_121a' is not defined for option 'gpu-name'"
   ],
   "rank": [
    {
     "fact": "gpu",
     "in": [
      "gb10"
     ]
    }
   ],
   "check": "grep -n 'Repro command' \"$LOG\" | grep -o '[^ ]*/bin/ptxas'",
   "fix": "add the line export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas to ~/miles101/session.sh, above its ray start line, then start the session again (section 1.1, Start the session again)."
  },
  {
   "id": "gb10-no-kernel-image",
   "section": "Images and hardware",
   "title": "`no kernel image is available for execution on the device`, or `Could not load any common_ops library`",
   "grep": [
    "failed with error code no kernel image is available for execution on the device",
    "Could not load any common_ops library",
    "common_ops.abi3.so: undefined symbol"
   ],
   "check": "python3 -c 'import torch; print(torch.__version__)'; pip show sgl-kernel | grep -i version\ncuobjdump --list-elf $(python3 -c \"import sgl_kernel,os;print(os.path.dirname(sgl_kernel.__file__))\")/*/common_ops.abi3.so | grep -o 'sm_[0-9]*[a-z]*' | sort -u",
   "fix": "Use an image whose sgl-kernel lists sm_121a, and a FlashInfer or Triton attention backend through SGLang's passthrough options.",
   "causes": [
    {
     "cause": "The sgl-kernel wheel carries no code for the GB10's compute capability.",
     "tells": "The check lists no sm_121a, or the import error says no directory matches the GPU.",
     "when": [
      {
       "fact": "gpu",
       "in": [
        "gb10"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Use an image whose sgl-kernel lists sm_121a, and a FlashInfer or Triton attention backend through SGLang's passthrough options (see 6.4)."
      }
     ]
    },
    {
     "cause": "The sgl-kernel wheel was built against another PyTorch than the one installed.",
     "tells": "The import error names an `undefined symbol` in common_ops.abi3.so.",
     "when": [
      {
       "fact": "abi",
       "in": [
        "mismatch"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Install the sgl-kernel release built for the installed torch (pip show torch sgl-kernel), or use the image as built."
      }
     ]
    },
    {
     "cause": "The sgl-kernel binary was linked against the CUDA 12 runtime, and the environment holds only CUDA 13 libraries.",
     "tells": "The import error names `libnvrtc.so.12` or `libcudart.so.12`: cannot open shared object file.",
     "fixes": [
      {
       "fix": "Install the sgl-kernel build for the installed CUDA (the cu130 wheels on a cu130 torch), or use the image as built."
      }
     ]
    }
   ]
  },
  {
   "id": "sgl-kernel-libnuma-missing",
   "section": "Images and hardware",
   "title": "`libnuma.so.1: cannot open shared object file`",
   "grep": [
    "libnuma.so.1: cannot open shared object file"
   ],
   "check": "ldconfig -p | grep libnuma",
   "fix": "Install the system's libnuma (Debian and Ubuntu: libnuma1) in the image, or use the image as built."
  },
  {
   "id": "triton-smem-out-of-resource",
   "section": "Images and hardware",
   "title": "`OutOfResources: out of resource: shared memory`",
   "grep": [
    "out of resource: shared memory"
   ],
   "check": "python3 -c 'import torch; p = torch.cuda.get_device_properties(0); print(p.name, p.major, p.minor)'",
   "fix": "The kernel's configuration asks for more shared memory than the GPU has: use a backend or kernel configuration made for this GPU through SGLang's passthrough options."
  },
  {
   "id": "torch-build-lacks-gpu-arch",
   "section": "Images and hardware",
   "title": "`CUDA error: no kernel image is available for execution on the device`",
   "grep": [
    "CUDA error: no kernel image is available for execution on the device",
    "is not compatible with the current PyTorch installation",
    "PyTorch no longer supports this GPU because it is too old",
    "cuda runtime error (48) : no kernel image is available"
   ],
   "check": "python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list(), torch.cuda.get_device_capability())'",
   "fix": "Use a PyTorch build whose arch list covers the GPU's compute capability, as the image's own torch should."
  },
  {
   "id": "transformers-unknown-model-type",
   "section": "Images and hardware",
   "title": "`... but Transformers does not recognize this architecture.`",
   "grep": [
    "but Transformers does not recognize this architecture",
    "Should have a ... key in its config.json",
    "for this kind of AutoModel: AutoModelForCausalLM",
    "are not supported for now. Supported architectures"
   ],
   "check": "python3 -c 'import transformers; print(transformers.__version__)'; grep -n -e '--hf-checkpoint' \"/root/logs/$RUN.args\"\ngrep -n '\"model_type\"' \"$(sed -n 's/^--hf-checkpoint[ =]//p' \"/root/logs/$RUN.args\")/config.json\"",
   "fix": "Run in the Miles image as built (a transformers that a later pip install put over the image's is the first suspect), or install a transformers release that knows the checkpoint's model_type."
  },
  {
   "id": "gb10-flashinfer-sm121-gate",
   "section": "Images and hardware",
   "title": "`is only supported on SM120 GPUs`",
   "grep": [
    "is only supported on SM120 GPUs"
   ],
   "rank": [
    {
     "fact": "gpu",
     "in": [
      "gb10"
     ]
    }
   ],
   "check": "python3 -c 'import flashinfer; print(flashinfer.__version__)'",
   "fix": "Use a FlashInfer whose architecture check accepts SM 12.1, or another attention backend through SGLang's passthrough options."
  },
  {
   "id": "gb10-capability-warning",
   "section": "Images and hardware",
   "title": "`Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.`",
   "grep": [
    "Found GPU0 NVIDIA GB10 which is of"
   ],
   "check": "python3 -c \"import torch;print(torch.cuda.get_device_capability(), torch.version.cuda)\"",
   "fix": "With a cu130 PyTorch build, ignore the warning.",
   "healthy_too": {
    "note": "a warning healthy GB10 runs print",
    "sets": {
     "fact": "gpu",
     "value": "gb10"
    }
   }
  },
  {
   "id": "gb10-flash-attn-sm121",
   "section": "Images and hardware",
   "title": "`FATAL: kernel built for sm80-sm100, but running on sm121`",
   "grep": [
    "kernel built for sm80-sm100, but running on sm121"
   ],
   "rank": [
    {
     "fact": "gpu",
     "in": [
      "gb10"
     ]
    }
   ],
   "check": "grep -n 'flash_attn' \"$LOG\" | head",
   "fix": "Use an attention backend that runs on sm_121 (FlashInfer for SGLang)."
  },
  {
   "id": "flash-attn-abi-mismatch",
   "section": "Images and hardware",
   "title": "`flash_attn_2_cuda` ... `undefined symbol`",
   "grep": [
    "flash_attn_2_cuda ... undefined symbol",
    "flash_attn_3 ... undefined symbol"
   ],
   "check": "python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.compiled_with_cxx11_abi())'\npip show flash-attn | grep -i -e '^name' -e '^version'",
   "fix": "Install the flash-attn wheel built for the installed PyTorch (its version, CUDA and C++ ABI), or build flash-attn against it; in the Miles image, keep the image's PyTorch, which its flash-attn wheels were built for."
  },
  {
   "id": "gb10-nvidia-smi-not-supported",
   "section": "Images and hardware",
   "title": "`Memory-Usage` reads `Not Supported` in `nvidia-smi`",
   "grep": [],
   "check": "grep -E 'MemTotal|MemAvailable' /proc/meminfo",
   "fix": "Watch /proc/meminfo and Miles's Memory-Usage lines, not nvidia-smi (see 8.4)."
  },
  {
   "id": "nccl-shm-too-small",
   "section": "Images and hardware",
   "title": "`NCCL WARN Error while creating shared memory segment`",
   "grep": [
    "Error while creating shared memory segment",
    "Call to posix_fallocate failed",
    "Call to shm_open failed",
    "Error: failed to extend ... to ... bytes",
    "Error: failed to create shared memory file",
    "This might be caused by insufficient shared memory (shm)"
   ],
   "check": "df -h /dev/shm\nls -ld /dev/shm",
   "fix": "Give NCCL a /dev/shm it can write and that has room: the container's as the book starts it (see 1.1), or a writable one."
  },
  {
   "id": "ray-placement-group-wait",
   "section": "Ray",
   "title": "`Creating placement group with` ... and nothing after it",
   "grep": [
    "Creating placement group with",
    "cannot be scheduled right now",
    "No available node types can fulfill resource request"
   ],
   "check": "ray status",
   "fix": "On one GPU set --actor-num-gpus-per-node 1 and --num-gpus-per-node 1 with --colocate."
  },
  {
   "id": "ray-gcs-connect-failed",
   "section": "Ray",
   "title": "`Failed to connect to GCS at address`",
   "grep": [
    "Failed to connect to GCS at address",
    "Failed to get cluster ID from GCS server",
    "Could not find any running Ray instance"
   ],
   "check": "ray status",
   "fix": "Start the head first (`ray start --head`), then point `ray start --address` and the job at the head's address."
  },
  {
   "id": "ray-oom-killed",
   "section": "Ray",
   "title": "`ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory.`",
   "grep": [
    "ray.exceptions.OutOfMemoryError",
    "killed due to the node running low on memory",
    "which exceeds the memory usage threshold of",
    "RayOutOfMemoryError: More than"
   ],
   "check": "grep -i -A3 'memory' /tmp/ray/session_latest/logs/raylet.out | tail -n 20",
   "fix": "Set RAY_memory_usage_threshold / RAY_memory_monitor_refresh_ms where the raylet starts (see 2.3)."
  },
  {
   "id": "ray-oom-memory-pressure",
   "section": "Ray",
   "title": "`Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons`",
   "grep": [
    "Workers (tasks / actors) killed due to memory pressure (OOM)",
    "Refer to the documentation on how to address the out of memory issue"
   ],
   "check": "grep -n -e 'Timer save_model' -e '\\[FSDP\\] Saved checkpoint to' -e 'killed due to memory pressure' \"$LOG\"",
   "fix": "Lower the host-memory peak at save time (see 2.2 and 2.3)."
  },
  {
   "id": "ray-object-store-shm",
   "section": "Ray",
   "title": "`The configured object store size ... exceeds /dev/shm size`",
   "grep": [
    "The configured object store size ... exceeds /dev/shm size",
    "object store size exceeds the capacity of /dev/shm"
   ],
   "check": "df -h /dev/shm",
   "fix": "Start the container with --ipc=host as 1.1 does, or with a --shm-size larger than Ray's object store; or give ray start a smaller --object-store-memory."
  },
  {
   "id": "ray-actor-died",
   "section": "Ray",
   "title": "`The actor died unexpectedly before finishing this task.`",
   "grep": [
    "The actor died unexpectedly before finishing this task.",
    "ray.exceptions.ActorDiedError",
    "ray.exceptions.RayActorError",
    "The actor is dead because its worker process has died.",
    "The actor died because of an error raised in its creation task",
    "Worker unexpectedly exits with a connection error code"
   ],
   "rank": [
    {
     "fact": "others",
     "in": [
      "none"
     ]
    }
   ],
   "check": "grep -n -m5 -E 'Traceback|Error|error:' \"$LOG\"\ngrep -n -m2 -A3 'Worker exit type' \"$LOG\"",
   "fix": "Fix the first error above the actor's death, under its own entry; with none, the worker exit detail says how the process ended (a kernel OOM kill: see 2.1 and 2.3)."
  },
  {
   "id": "engine-terminated",
   "section": "Engine",
   "title": "`Server process terminated unexpectedly.`",
   "grep": [
    "Server process terminated unexpectedly.",
    "Out of memory: Killed process",
    "killed by the OOM killer",
    "Memory cgroup out of memory: Killed process",
    "invoked oom-killer",
    "of memory: Kill process",
    "Child process unexpectedly failed with exitcode=9.",
    "Child process unexpectedly failed with an exit code 9.",
    "scheduler died during initialization (exit code: -9)"
   ],
   "check": "sudo dmesg -T | grep -i -E 'killed process|oom'",
   "fix": "Lower --sglang-mem-fraction-static, then see 2.1.",
   "rank": [
    {
     "fact": "ready",
     "in": [
      "before"
     ]
    }
   ]
  },
  {
   "id": "engine-no-available-workers",
   "section": "Engine",
   "title": "`No available workers (all circuits open or unhealthy)`",
   "grep": [
    "No available workers (all circuits open or unhealthy)",
    "Server error '503 Service Unavailable' for url",
    "No healthy workers available in the pool"
   ],
   "check": "grep -n -m1 -e 'The server is fired up and ready to roll' -e 'No available workers' -e 'No healthy workers available' \"$LOG\"\nenv | grep -i proxy\ncurl -s \"http://127.0.0.1:8265/api/jobs/$RUN\" | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"runtime_env\"])'",
   "fix": "If the 503s come before the engine's ready line, the engine was not ready yet; otherwise unset the proxy or set no_proxy=127.0.0.1,localhost.",
   "causes": [
    {
     "cause": "Rollout sent requests before the engine was ready: the router has no worker registered yet.",
     "tells": "The 503 lines come before SGLang's `The server is fired up and ready to roll!` and before any step line.",
     "when": [
      {
       "fact": "ready",
       "in": [
        "before"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "If the run goes on once SGLang's ready line appears, the early 503s were retries and need no fix; if the retries run out first, report it with the log (THUDM/slime#1148, closed, resolution not visible)."
      }
     ]
    },
    {
     "cause": "A proxy on the head node stops the router reaching the servers.",
     "tells": "`env | grep -i proxy` prints a proxy, and no_proxy does not hold 127.0.0.1.",
     "fixes": [
      {
       "fix": "Unset the proxy or set no_proxy=127.0.0.1,localhost."
      }
     ]
    },
    {
     "cause": "An engine died during rollout (often out of memory).",
     "tells": "The 503 lines come after a step ran, with an `SGLangEngine` traceback or an out-of-memory line before them.",
     "when": [
      {
       "fact": "ready",
       "in": [
        "after"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Read the entry for the engine's own error line (the first one), not this one."
      }
     ]
    }
   ]
  },
  {
   "id": "engine-403-forbidden",
   "section": "Engine",
   "title": "`Client error '403 Forbidden' for url`",
   "grep": [
    "Client error '403 Forbidden' for url"
   ],
   "check": "env | grep -i proxy\nENGINE=$(grep -m1 -oP 'Launch HttpServerEngineAdapter at: \\K\\S+' \"$LOG\")\ncurl -s -o /dev/null -w '%{http_code}\\n' \"http://$ENGINE/health\"",
   "fix": "Set no_proxy for the local addresses."
  },
  {
   "id": "engine-server-error-500",
   "section": "Engine",
   "title": "`Server error '500 Internal Server Error' for url`",
   "grep": [
    "Server error '500 Internal Server Error' for url",
    "\"POST / ... HTTP/1.1\" 500"
   ],
   "check": "grep -n 'SGLangEngine' \"$LOG\" | grep -e 'Traceback' -e 'Error' | head -n 20",
   "fix": "Read the engine's own traceback for the failing request and fix what it names; a 500 is usually the engine's error, not the network's."
  },
  {
   "id": "engine-abort-failed",
   "section": "Engine",
   "title": "`Failed to abort worker at`",
   "grep": [
    "Failed to abort worker at"
   ],
   "check": "grep -n -e 'retrying... (attempt' -e 'Failed to abort worker at' \"$LOG\" | tail -n 5",
   "fix": "Find why the engine stopped answering: the entries above for a dead or unreachable engine."
  },
  {
   "id": "engine-max-retries",
   "section": "Engine",
   "title": "`Max retries (60) reached, failing...`",
   "grep": [
    "Max retries ( ... ) reached, failing..."
   ],
   "check": "ENGINE=$(grep -m1 -oP 'Launch HttpServerEngineAdapter at: \\K\\S+' \"$LOG\")\ncurl -s -o /dev/null -w '%{http_code}\\n' --max-time 30 \"http://$ENGINE/health_generate\"",
   "fix": "Stop the run and fix the engine's cause; 1.2's watchdog stops such a run for you."
  },
  {
   "id": "engine-skipping-health-check",
   "section": "Engine",
   "title": "`Skipping health check for engine 0 (None)` repeated",
   "grep": [
    "Skipping health check for engine ... (None)"
   ],
   "check": "grep -c 'Health check failed for rollout engine' \"$LOG\"",
   "fix": "On one GPU leave --use-fault-tolerance off and let the run fail fast (see 6.3)."
  },
  {
   "id": "engine-port-in-use",
   "section": "Engine",
   "title": "`Port ... is already in use \u2014 a stale router process may still be running.`",
   "grep": [
    "is already in use \u2014 a stale router process may still be running.",
    "error while attempting to bind on address ... address already in use",
    "[Errno 98] Address already in use",
    "name: EADDRINUSE, message: address already in use",
    "errno: 98 - Address already in use",
    "RuntimeError: Address already in use",
    "Port is already in use. dist_init_port=",
    "Address already in use"
   ],
   "check": "PORT=$(grep -oP 'Port \\K[0-9]+(?= is already in use)' ~/miles-logs/\"$RUN\".log | tail -n 1)\nsudo ss -ltnp \"sport = :$PORT\"",
   "fix": "Stop the old container or `ray stop` the old cluster; kill the process by its id."
  },
  {
   "id": "engine-health-check-failed",
   "section": "Engine",
   "title": "`Health check failed. Server couldn't get a response from detokenizer`",
   "grep": [
    "Health check failed. Server couldn't get a response from detokenizer",
    "\"GET /health HTTP/1.1\" 503 Service Unavailable",
    "repeats can not be negative"
   ],
   "check": "grep -n -e 'Health check failed' -e 'GET /health' -e 'repeats can not be negative' \"$LOG\" | head -n 20",
   "fix": "Lines that stop after the warm-up come from Miles's startup wait, which no flag paces; with --use-fault-tolerance, give the engine longer before the health monitor's first probe (--rollout-health-check-first-wait), and if health checks time out again and again, let the monitor poll less often than SGLang's health-check timeout (--rollout-health-check-interval)."
  },
  {
   "id": "engine-generate-timeout",
   "section": "Engine",
   "title": "`ray.exceptions.RayTaskError(TimeoutError): ray::RolloutManager.generate()`",
   "grep": [
    "RayTaskError(TimeoutError): ray::RolloutManager.generate()"
   ],
   "check": "grep -n 'Rollout generation:' \"$LOG\" | tail -n 3",
   "fix": "Cap --rollout-max-response-len (see 4.2)."
  },
  {
   "id": "engine-train-hang",
   "section": "Engine",
   "title": "`Timer actor_train start` and then only `\"GET /metrics HTTP/1.1\" 200 OK`",
   "grep": [],
   "check": "ray list actors --detail\nray stack",
   "fix": "None known; post both dumps with the issue."
  },
  {
   "id": "engine-open-timer",
   "section": "Engine",
   "title": "The log ends after `Timer ... start` with no `Timer ... end`",
   "grep": [],
   "open_timer": {
    "ignore": [
     "train_wait"
    ]
   },
   "check": "grep -n 'Timer ' \"$LOG\" | tail -n 4\nray job status \"$RUN\"",
   "fix": "If the job still runs far past its usual step time, take the dumps of the entry above; if it is gone, read the last lines of the worker logs."
  },
  {
   "id": "nccl-watchdog-timeout",
   "section": "Engine",
   "title": "`Watchdog caught collective operation timeout`",
   "grep": [
    "Watchdog caught collective operation timeout:",
    "ran for ... milliseconds before timing out.",
    "ProcessGroupNCCL's watchdog got stuck for",
    "Some NCCL operations have failed or timed out. Due to the"
   ],
   "rank": [
    {
     "fact": "others",
     "in": [
      "none"
     ]
    }
   ],
   "check": "grep -n -m3 -e 'Watchdog caught collective operation timeout' -e 'watchdog got stuck' \"$LOG\"\ngrep -n -m5 -E 'Traceback|Error|error:' \"$LOG\"",
   "fix": "Fix the first error above the watchdog line, under its own entry; with none, read it as a hang (see engine-train-hang), and raise --distributed-timeout-minutes only for a step that runs longer than the timeout."
  },
  {
   "id": "mem-torch-oom-switch",
   "section": "Memory",
   "title": "`torch.OutOfMemoryError: CUDA out of memory` at the switch from rollout to training",
   "grep": [
    "torch.OutOfMemoryError: CUDA out of memory",
    "torch.cuda.OutOfMemoryError: CUDA out of memory"
   ],
   "check": "grep -n -e 'Timer' -e 'OutOfMemoryError' \"$LOG\" | tail -n 5",
   "fix": "Lower --sglang-mem-fraction-static; then see 2.2.",
   "rank": [
    {
     "fact": "phase",
     "in": [
      "switch"
     ]
    }
   ]
  },
  {
   "id": "mem-oom-trainer",
   "section": "Memory",
   "title": "`Tried to allocate` ... `is free` in the trainer's forward, backward or logits",
   "grep": [
    "Tried to allocate ... is free",
    "Tried to allocate ... reserved in total by PyTorch",
    "Tried to allocate ... already allocated; ... free; ... cached)",
    "CUBLAS_STATUS_ALLOC_FAILED"
   ],
   "rank": [
    {
     "fact": "phase",
     "in": [
      "logits",
      "trainer",
      "optimizer"
     ]
    }
   ],
   "causes": [
    {
     "cause": "One micro-batch needs more than PyTorch can find: its logits (tokens \u00d7 vocabulary, upcast to fp32 on Megatron) or its activations.",
     "tells": "What the message says is reserved by PyTorch but unallocated is less than the number after `Tried to allocate`.",
     "when": [
      {
       "fact": "alloc",
       "in": [
        "whole"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Lower --max-tokens-per-gpu.",
       "when": [
        {
         "fact": "dynamic_batch",
         "in": [
          "on"
         ]
        }
       ],
       "needs": "With --use-dynamic-batch-size"
      },
      {
       "fix": "Set --use-dynamic-batch-size with a --max-tokens-per-gpu; without it --max-tokens-per-gpu caps nothing.",
       "when": [
        {
         "fact": "dynamic_batch",
         "in": [
          "off"
         ]
        }
       ],
       "needs": "Without --use-dynamic-batch-size"
      },
      {
       "fix": "Turn on --gradient-checkpointing.",
       "when": [
        {
         "fact": "backend",
         "in": [
          "fsdp"
         ]
        }
       ],
       "needs": "On FSDP (--train-backend fsdp)"
      },
      {
       "fix": "Lower --rollout-max-response-len."
      }
     ]
    },
    {
     "cause": "Fragmentation: PyTorch holds enough memory reserved but unallocated, but not in one block.",
     "tells": "What the message says is reserved by PyTorch but unallocated is at least the number after `Tried to allocate`.",
     "when": [
      {
       "fact": "alloc",
       "in": [
        "fragmented"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Set the allocator for the trainer alone: --train-env-vars '{\"PYTORCH_CUDA_ALLOC_CONF\":\"expandable_segments:True\"}' (see 2.3), not for the whole job, whose colocated engines need torch_memory_saver.",
       "when": [
        {
         "fact": "backend",
         "in": [
          "fsdp"
         ]
        }
       ],
       "needs": "On FSDP (--train-backend fsdp)"
      },
      {
       "fix": "Make the block smaller with the levers of the cause above: fewer tokens per micro-batch."
      }
     ]
    },
    {
     "cause": "torch_memory_saver refused the block: it would have left less free memory than its margin, --train-memory-margin-bytes (Megatron with --offload-train).",
     "tells": "A `TorchMemorySaver::malloc return OOM since memory_margin_bytes=` line comes before the error.",
     "when": [
      {
       "fact": "alloc",
       "in": [
        "margin"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Put fewer tokens in each micro-batch (the levers of the first cause); a smaller --train-memory-margin-bytes leaves less room for what allocates outside PyTorch."
      }
     ]
    }
   ],
   "check": "grep -n -m1 'Tried to allocate' \"$LOG\"\ngrep -n -B12 -m1 'Tried to allocate' \"$LOG\" | grep -o 'in [a-z_]*$'",
   "fix": "Fewer tokens per micro-batch: lower --max-tokens-per-gpu (it caps a micro-batch only with --use-dynamic-batch-size) or --rollout-max-response-len (see 2.1); when PyTorch holds at least the request reserved but unallocated, set expandable_segments for the trainer alone through --train-env-vars (see 2.3)."
  },
  {
   "id": "engine-oom",
   "section": "Memory",
   "title": "`CUDA out of memory` inside the engine (SGLang)",
   "grep": [
    "CUDA out of memory",
    "CUDA error: out of memory",
    "CUDA driver error: out of memory",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "Cuda failure 'out of memory'",
    "Failed to CUDA calloc",
    "cudaErrorMemoryAllocation: out of memory",
    "cuda runtime error (2) : out of memory"
   ],
   "rank": [
    {
     "fact": "phase",
     "in": [
      "engine",
      "engine_start"
     ]
    }
   ],
   "check": "grep -n -B12 -m1 -e 'CUDA out of memory' -e 'CUDA error: out of memory' -e 'CUDA driver error: out of memory' \"$LOG\" | grep -e 'sglang/srt/' -e 'SGLangEngine'",
   "fix": "Lower --sglang-mem-fraction-static: the engine needs room outside its static pool for activations, logits and CUDA graphs (see 2.2). If the traceback is in SGLang's logits processor, a smaller pool may not be enough: use an SGLang that computes log-probs in chunks."
  },
  {
   "id": "engine-mem-fraction-too-small",
   "section": "Memory",
   "title": "`Not enough memory. Please try to increase --mem-fraction-static.`",
   "grep": [
    "Not enough memory. Please try to increase --mem-fraction-static",
    "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=",
    "leaves no room for the full KV pool within the available",
    "Prefill out of memory. Try to lower your batch size.",
    "Decode out of memory. Try to lower your batch size.",
    "Out of memory. Try to lower your batch size."
   ],
   "check": "grep -n -e 'Not enough memory' -e 'Loaded weights leave no GPU memory' -e 'no room for the full KV pool' -e 'Try to lower your batch size' \"$LOG\"\ngrep -n -o -m1 'mem_fraction_static=[0-9.]*' \"$LOG\"",
   "fix": "Raise --sglang-mem-fraction-static: after the weights, the fraction leaves no room for a KV cache (see 2.1)."
  },
  {
   "id": "mem-cumemcreate-resume",
   "section": "Memory",
   "title": "`cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue` then `Fatal Python error: Aborted`",
   "grep": [
    "cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue",
    "func=cu_mem_create"
   ],
   "check": "grep -n -A4 'Fatal Python error: Aborted' \"$LOG\" | grep 'in resume'",
   "fix": "Lower --sglang-mem-fraction-static or the trainer's footprint.",
   "rank": [
    {
     "fact": "phase",
     "in": [
      "switch"
     ]
    }
   ]
  },
  {
   "id": "mem-cudaerror-resume",
   "section": "Memory",
   "title": "`cudaError error: 2 (out of memory)  file=csrc/core.cpp func=resume`",
   "grep": [
    "cudaError error: 2 (out of memory) ... func=resume"
   ],
   "check": "grep -n -e 'Timer' -e 'func=resume' \"$LOG\"",
   "fix": "Fix the release/resume ordering; in stock Miles, report it with the log.",
   "rank": [
    {
     "fact": "phase",
     "in": [
      "switch"
     ]
    }
   ]
  },
  {
   "id": "tms-invalid-argument-paused",
   "section": "Memory",
   "title": "`[torch_memory_saver.cpp] CUresult error: 1 (invalid argument)` ... `func=free`",
   "grep": [
    "CUresult error: 1 (invalid argument) ... func=free"
   ],
   "check": "pip show torch_memory_saver | grep -i -e version -e location",
   "fix": "Use a torch_memory_saver that does not release a paused block twice (upstream d7a3a51); until then, a run that frees training memory while it is paused can stop here."
  },
  {
   "id": "tms-preload",
   "section": "Memory",
   "title": "`TorchMemorySaver observes invalid LD_PRELOAD`",
   "grep": [
    "TorchMemorySaver observes invalid LD_PRELOAD",
    "error while loading shared libraries: libcudart.so"
   ],
   "check": "echo \"$LD_PRELOAD\"\nldd $(python3 -c 'from torch_memory_saver.utils import get_binary_path_from_package as p; print(p(\"torch_memory_saver_hook_mode_preload\"))') | grep 'not found'",
   "fix": "Use the image's torch_memory_saver as built, and let Miles set LD_PRELOAD; a hook library that cannot find libcudart needs a torch_memory_saver that resolves it (upstream pull request 108)."
  },
  {
   "id": "mem-cuda-ipc-colocate",
   "section": "Memory",
   "title": "`_share_cuda_` ... `CUDA error: invalid argument` in the colocated weight update",
   "grep": [
    "_share_cuda_"
   ],
   "rank": [
    {
     "fact": "phase",
     "in": [
      "switch"
     ]
    }
   ],
   "check": "grep -n -B8 -A2 '_share_cuda_' \"$LOG\" | grep -e update_weights -e 'invalid argument'",
   "fix": "No fix is confirmed upstream: report it with the log and the torch_memory_saver version."
  },
  {
   "id": "tms-not-installed",
   "section": "Memory",
   "title": "`enable_memory_saver is enabled, but torch-memory-saver is not installed`",
   "grep": [
    "enable_memory_saver is enabled, but torch-memory-saver is not installed"
   ],
   "check": "pip show torch_memory_saver",
   "fix": "Use the image as built, which installs torch_memory_saver; a hand-made environment needs it installed."
  },
  {
   "id": "ipc-expandable-segments",
   "section": "Memory",
   "title": "`does not support the pidfd_open syscall needed to use IPC for CUDA tensors when expandable_segments:True is set`",
   "grep": [
    "pidfd_open syscall needed to use IPC for CUDA tensors",
    "pidfd_getfd syscall needed to use IPC for CUDA tensors",
    "pidfd_getfd: Operation not permitted",
    "pidfd_open:Operation not permitted"
   ],
   "check": "uname -r\ngrep -n -e 'PYTORCH_CUDA_ALLOC_CONF' -e '--train-env-vars' \"/root/logs/$RUN.args\"",
   "fix": "Remove expandable_segments from --train-env-vars, or run on a kernel that has pidfd_open and pidfd_getfd (Linux 5.6 or later)."
  },
  {
   "id": "mem-grows-after-update",
   "section": "Memory",
   "title": "Memory grows a little after every weight update",
   "grep": [],
   "check": "grep -n 'Memory-Usage' \"$LOG\" | head -n 40",
   "fix": "If it grows, report it upstream with those lines."
  },
  {
   "id": "mem-oom-mid-run",
   "section": "Memory",
   "title": "An out-of-memory error after the first steps ran",
   "grep": [
    "torch.OutOfMemoryError: CUDA out of memory",
    "ray.exceptions.OutOfMemoryError",
    "killed due to memory pressure (OOM)"
   ],
   "after_step": true,
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --steps 1000 --run \"/root/logs/$RUN.args\"\ngrep -n 'Memory-Usage' \"$LOG\" | tail -n 20",
   "fix": "Lower --max-tokens-per-gpu (it caps a micro-batch only with --use-dynamic-batch-size), --rollout-max-response-len or --sglang-mem-fraction-static for room above the early peak (see 2.1 and 2.2)."
  },
  {
   "id": "mem-illegal-access",
   "section": "Memory",
   "title": "`an illegal memory access was encountered` in SGLang",
   "grep": [
    "an illegal memory access was encountered",
    "CUDA_ERROR_ILLEGAL_ADDRESS"
   ],
   "check": "grep -n -B5 'an illegal memory access was encountered' \"$LOG\" | head -n 20",
   "fix": "Lower --sglang-mem-fraction-static.",
   "rank": [
    {
     "fact": "phase",
     "in": [
      "engine"
     ]
    }
   ]
  },
  {
   "id": "weights-checker-400",
   "section": "Weights and logprobs",
   "title": "`\"POST /weights_checker HTTP/1.1\" 400 Bad Request`",
   "grep": [
    "POST /weights_checker HTTP/1.1 ... 400 Bad Request"
   ],
   "check": "grep -n -A5 'equal tensors' \"$LOG\"",
   "fix": "Skip buffers, or allow quantization error with --check-weight-update-allow-quant-error (see 5.2)."
  },
  {
   "id": "logprob-gap-jump",
   "section": "Weights and logprobs",
   "title": "{metric}`train/train_rollout_logprob_abs_diff` jumps after the first weight update",
   "grep": [],
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --steps 3 --run \"/root/logs/$RUN.args\"",
   "fix": "Update SGLang.",
   "signal": "logprob_gap"
  },
  {
   "id": "logprob-gap-creep",
   "section": "Weights and logprobs",
   "title": "{metric}`train/train_rollout_logprob_abs_diff` creeps up over training",
   "grep": [],
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --steps 30 --run \"/root/logs/$RUN.args\"",
   "fix": "None confirmed; see 4.4."
  },
  {
   "id": "ppo-kl-step0",
   "section": "Weights and logprobs",
   "title": "{metric}`train/ppo_kl` is not zero at step 0",
   "grep": [],
   "check": "grep -n -o \"'train/ppo_kl': [^,]*\" \"$LOG\" | head -n 3",
   "fix": "Read 5.2 for the FSDP equivalent of Miles's CI check."
  },
  {
   "id": "train-grad-norm",
   "section": "Gradients",
   "title": "{metric}`train/grad_norm` NaN, infinite or above the clip",
   "grep": [],
   "signal": "grad_norm",
   "causes": [
    {
     "cause": "The forward pass overflows: Miles's debug guide names a bad chat template or activation overflow in FP8.",
     "tells": "`train/grad_norm` reads nan or inf; the run reader lists the line.",
     "when": [
      {
       "fact": "grad",
       "in": [
        "nonfinite"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Check the chat template (--apply-chat-template) and any FP8 setting, as Miles's debug guide advises."
      }
     ]
    },
    {
     "cause": "The first step's gradient is not small: Miles's debug guide names MoE fusion first, then a reward read from the wrong key.",
     "tells": "With one optimizer step per rollout, step 0's norm is already at or above the clip.",
     "fixes": [
      {
       "fix": "For a MoE model look at the permute fusion first; otherwise check --label-key against your data (see 3.1)."
      }
     ]
    },
    {
     "cause": "The norm stays large in most steps; the logged value is the norm before clipping to --clip-grad.",
     "tells": "Most steps read at or above the clip, and the log-prob gap or the clip fraction is high on the same steps.",
     "when": [
      {
       "fact": "grad",
       "in": [
        "large"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Read the log-prob gap and clip fraction entries for the same steps (see 5.1)."
      }
     ]
    }
   ],
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --steps 30 --run \"/root/logs/$RUN.args\"\ngrep -n -o \"'train/grad_norm': [^,}]*\" \"$LOG\" | head -n 5",
   "fix": "Find the first step whose norm is off and check its causes in order (see 1.3 and 5.1)."
  },
  {
   "id": "train-grad-norm-nan-raised",
   "section": "Gradients",
   "title": "`found NaN in local grad norm`",
   "grep": [
    "found NaN in local grad norm",
    "found Inf in local grad norm",
    "is non-finite, so it cannot be clipped"
   ],
   "check": "grep -n -o \"'train/grad_norm': [^,}]*\" \"$LOG\" | tail -n 5",
   "fix": "Megatron stopped on a NaN gradient norm before the metric was logged: check the causes of the NaN gradient-norm entry in order."
  },
  {
   "id": "train-clipfrac-high",
   "section": "Gradients",
   "title": "{metric}`train/pg_clipfrac` high",
   "grep": [],
   "signal": "clip_fraction",
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --steps 30 --run \"/root/logs/$RUN.args\"",
   "fix": "Lower --lr, as Miles's monitoring guide advises (see 5.1)."
  },
  {
   "id": "reward-flat-zero",
   "section": "Rewards",
   "title": "{metric}`rollout/raw_reward` at `0` in every step while the answers look right",
   "grep": [],
   "check": "grep -n -e '--label-key' -e '--rm-type' \"/root/logs/$RUN.args\"\npython3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --samples --steps 2",
   "fix": "Check in this order: the label key, the \\boxed{} in the responses, a cut at the length cap, the reward type; fix the first that fails (see 3.1).",
   "signal": "reward",
   "rank": [
    {
     "fact": "steps",
     "in": [
      "several"
     ]
    },
    {
     "fact": "label",
     "in": [
      "none"
     ]
    }
   ],
   "causes": [
    {
     "cause": "The label is not the reference answer: without --label-key every label is None, and a key that names another field grades against that field.",
     "tells": "The `label=` of the logged samples is None or not the reference answer.",
     "fixes": [
      {
       "fix": "Set --label-key to the field that holds the answer (see 3.1)."
      }
     ],
     "when": [
      {
       "fact": "label",
       "in": [
        "none"
       ]
      }
     ]
    },
    {
     "cause": "The responses hold no `\\boxed{}` answer, and --rm-type math grades only the last `\\boxed{...}`.",
     "tells": "The logged responses end without `\\boxed{`.",
     "fixes": [
      {
       "fix": "Make the prompt ask for the answer in \\boxed{} (see 3.1)."
      }
     ]
    },
    {
     "cause": "The responses stop at the length cap before their answer.",
     "tells": "rollout/truncated_ratio is high and the logged responses end cut off.",
     "when": [
      {
       "fact": "truncation",
       "in": [
        "bad",
        "watch"
       ]
      }
     ],
     "fixes": [
      {
       "fix": "Raise --rollout-max-response-len or turn thinking off (see 3.1 and 4.2)."
      }
     ]
    },
    {
     "cause": "The reward type does not fit the answers: --rm-type deepscaler scores 0 without `</think>` or `###Response`, and boxed_math and boxed_deepscaler always score 0.",
     "tells": "The logged responses hold no `</think>`, or --rm-type is boxed_math or boxed_deepscaler.",
     "fixes": [
      {
       "fix": "Use --rm-type math for non-thinking models (see 3.1)."
      }
     ]
    }
   ]
  },
  {
   "id": "reward-sync-custom-rm",
   "section": "Rewards",
   "title": "`TypeError: object float can't be used in 'await' expression`",
   "grep": [
    "object float can't be used in 'await' expression"
   ],
   "check": "grep -n -B3 \"can't be used in 'await' expression\" \"$LOG\"",
   "fix": "Declare the custom reward function async def (see 3.5)."
  },
  {
   "id": "reward-rm-type-missing",
   "section": "Rewards",
   "title": "`NotImplementedError: Rule-based RM type is not specified.`",
   "grep": [
    "Rule-based RM type is not specified."
   ],
   "check": "grep -n -e '--rm-type' -e '--custom-rm-path' \"/root/logs/$RUN.args\"",
   "fix": "Set --rm-type or --custom-rm-path."
  },
  {
   "id": "reward-zero-std",
   "section": "Rewards",
   "title": "{metric}`rollout/zero_std/count_0` near the number of groups and {metric}`train/grad_norm` tiny",
   "grep": [],
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --run \"/root/logs/$RUN.args\"\npython3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --samples --steps 3",
   "fix": "Fix the label key or the reward; if the task is too hard or too easy, see 3.2.",
   "signal": "zero_std"
  },
  {
   "id": "length-truncated",
   "section": "Lengths",
   "title": "{metric}`rollout/truncated_ratio` near `1` and responses pinned at the cap",
   "grep": [],
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --samples --steps 3",
   "fix": "Set --rollout-stop or --rollout-stop-token-ids, and --apply-chat-template for chat models.",
   "signal": "truncation"
  },
  {
   "id": "length-clip-ratio-zero",
   "section": "Lengths",
   "title": "`raw_response_length/response_length_clip_ratio` always `0`",
   "grep": [],
   "check": "grep -n -o \"'multi_turn/raw_response_length/response_length_clip_ratio': [^,]*\" \"$LOG\" | head",
   "fix": "Compare against rollout/truncated_ratio."
  },
  {
   "id": "length-prompt-cap",
   "section": "Lengths",
   "title": "`must be smaller than args.rollout_max_context_len ... so that there is at least one generated token to compute loss.`",
   "grep": [
    "must be smaller than args.rollout_max_context_len ... so that there is at least one generated token to compute loss."
   ],
   "check": "grep -n -e '--rollout-max-prompt-len' -e '--rollout-max-context-len' \"/root/logs/$RUN.args\"",
   "fix": "Leave --rollout-max-prompt-len unset; Miles sets it one token under the context cap."
  },
  {
   "id": "ckpt-no-tracker",
   "section": "Checkpoints",
   "title": "`[FSDP] No tracker file at ... ; skipping load.`",
   "grep": [
    "[FSDP] No tracker file at",
    "[FSDP] Checkpoint directory ... not found; skipping load.",
    "[FSDP] Model checkpoint ... not found; skipping load.",
    "could not find the metadata file ... latest_checkpointed_iteration.txt"
   ],
   "check": "LOAD=$(grep -oP '^--load \\K\\S+' \"/root/logs/$RUN.args\")\nls \"$LOAD/latest_checkpointed_iteration.txt\" \"$LOAD\"/iter_*",
   "fix": "Point --load at the directory you passed to --save (see 6.3)."
  },
  {
   "id": "ckpt-load-failed",
   "section": "Checkpoints",
   "title": "`[FSDP] Failed to load model from`",
   "grep": [
    "[FSDP] Failed to load model from"
   ],
   "check": "grep -n '\\[FSDP\\] Failed to load model from' \"$LOG\"",
   "fix": "Fix the checkpoint (often a partial save) before you trust the run."
  },
  {
   "id": "ckpt-resume-zero-rollouts",
   "section": "Checkpoints",
   "title": "A resumed run reports success after zero rollouts",
   "grep": [],
   "check": "LOAD=$(grep -oP '^--load \\K\\S+' \"/root/logs/$RUN.args\")\ncat \"$LOAD/latest_checkpointed_iteration.txt\"\ngrep -n -e '--num-rollout' \"/root/logs/$RUN.args\"",
   "fix": "Raise --num-rollout, or set --start-rollout-id on purpose."
  },
  {
   "id": "ckpt-save-required",
   "section": "Checkpoints",
   "title": "`'--save' is required when save_interval is set.`",
   "grep": [
    "'--save' is required when save_interval is set."
   ],
   "check": "grep -n -e '^--save ' \"/root/logs/$RUN.args\"",
   "fix": "Set --save to a host-mounted path."
  },
  {
   "id": "ckpt-resume-gap-spike",
   "section": "Checkpoints",
   "title": "Log-prob gap spikes and reward drops for a few steps after resume",
   "grep": [],
   "check": "python3 /root/logs/miles101-tools.pyz read_run \"$LOG\" --steps 20 --run \"/root/logs/$RUN.args\"",
   "fix": "None known; compare with the notes of the run before the save (see 7.2)."
  },
  {
   "id": "ckpt-disk-full",
   "section": "Checkpoints",
   "title": "`OSError: [Errno 28] No space left on device`",
   "grep": [
    "[Errno 28] No space left on device",
    "PytorchStreamWriter failed writing file",
    "code: 28, kind: StorageFull",
    "inline_container.cc ... unexpected pos",
    "write(): fd ... failed with No space left on device",
    "No space left on device (os error 28)",
    "[Errno 122] Disk quota exceeded"
   ],
   "check": "df -h",
   "fix": "Free room on the filesystem the failing write goes to, or point --save at a disk with room for every checkpoint you keep."
  }
 ]
}'''
# --- end symptoms ---
_DATA: dict[str, Any] = json.loads(SYMPTOMS_JSON)
SYMPTOMS: list[dict[str, Any]] = _DATA.get("symptoms", [])
#: How the log's evidence ranks the entries it matches: the window read around an entry's first line,
#: the engine's ready line, the phases an error can happen in, and the sentence for each fact.
EVIDENCE: dict[str, Any] = _DATA.get("evidence") or {"window": 0, "ready": [], "phases": [], "facts": {}}
#: Each entry with grep patterns, the patterns split once at ' ... ' (not once per log line).
GREPS: list[tuple[dict[str, Any], list[list[str]]]] = [
    (sym, [g.split(" ... ") for g in sym["grep"]]) for sym in SYMPTOMS if sym["grep"]]
#: Any pattern's first part: a line without one matches no entry, so most lines skip the entries' loop.
GREP_ANY = re.compile("|".join(re.escape(parts[0]) for _, patterns in GREPS for parts in patterns) or "(?!)")


def _finds(line: str, parts: list[str]) -> bool:
    """An exact string on one line, given as its parts (' ... ' in a pattern stands for any text between them)."""
    pos = 0
    for part in parts:
        i = line.find(part, pos)
        if i < 0:
            return False
        pos = i + len(part)
    return True


# `Timer NAME start` / `Timer NAME end (elapsed: ...)` (miles/utils/timer.py:31, 42).
TIMER_RE = re.compile(r"\bTimer (?P<name>\S+) (?P<what>start|end)\b")
#: A line only Miles writes: a step line (whole or not), a timer, rank 0's memory line, the engine's address, the
#: argument dump's batch size. A log without one (and without a symptom's line) is not a Miles driver log.
MILES_LINE_RE = re.compile("|".join(r.pattern for r in (LOOKS_LIKE_RE, TIMER_RE, MEMORY_RE, ENGINE_RE, BATCH_DUMP_RE)))
# PyTorch's out-of-memory message. Since PyTorch 2.1: `Tried to allocate 2.00 GiB. GPU 0 has a total capacity of
# 79.11 GiB of which 1.23 GiB is free. ... Of the allocated memory 70.12 GiB is allocated by PyTorch, and 6.54 GiB is
# reserved by PyTorch but unallocated.` Before: `Tried to allocate 20.00 MiB (GPU 0; 79.35 GiB total capacity; 76.73 GiB
# already allocated; 6.19 MiB free; 77.88 GiB reserved in total by PyTorch)`. What PyTorch holds reserved but unallocated
# is its cache in pieces: when that is at least the request, the request failed for want of one block (fragmentation);
# when it is less, no arrangement of the cache would have held it.
WANT_RE = re.compile(r"Tried to allocate (?P<want>\d+(?:\.\d+)?) (?P<wu>bytes|[KMGT]iB)\b")
# Each number starts after a character that is no digit or point: tried once per run of digits, not at each digit
# (a line of 400,000 digits after `Tried to allocate` took minutes).
UNALLOC_RE = re.compile(r"(?:^|[^\d.])(?P<res>\d+(?:\.\d+)?) (?P<ru>bytes|[KMGT]iB) is reserved by PyTorch but unallocated")
RESERVED_OLD_RE = re.compile(r"(?:^|[^\d.])(?P<alloc>\d+(?:\.\d+)?) (?P<au>bytes|[KMGT]iB) already allocated;.*?"
                             r"[^\d.](?P<res>\d+(?:\.\d+)?) (?P<ru>bytes|[KMGT]iB) reserved in total by PyTorch")
#: The characters of a line the out-of-memory figures are read from: PyTorch's message is a few hundred.
OOM_LINE = 16384
# torch_memory_saver refuses an allocation that would leave less than its margin free (Miles sets the margin from
# --train-memory-margin-bytes on Megatron with --offload-train): torch_memory_saver csrc/core.cpp, at the commit
# Miles's docker/Dockerfile installs.
MARGIN_RE = re.compile(r"TorchMemorySaver::malloc return OOM since memory_margin_bytes=(?P<margin>\d+) "
                       r"allocation_size=(?P<size>\d+) free_bytes=(?P<free>\d+)")
UNITS = {"bytes": 1.0, "KiB": 2.0 ** 10, "MiB": 2.0 ** 20, "GiB": 2.0 ** 30, "TiB": 2.0 ** 40}
# The run's backend and dynamic batching, from a run file, a launch script or 7.1's $RUN.args, read as words the
# way bash reads them (shell_words) or as a run file's args list (run_file_args) ...
BACKEND_FLAG = "--train-backend"
DYNAMIC_FLAG = "--use-dynamic-batch-size"
#: --train-backend's choices (miles/utils/arguments.py:263-267).
BACKENDS = ("megatron", "fsdp")
# ... or from Megatron's argument dump (`  use_dynamic_batch_size ..... True`); FSDP runs print none.
DUMP_NAMES = ("train_backend", "use_dynamic_batch_size", "rollout_batch_size")
SETTING_DUMP_RE = re.compile(r"(?:^|\s)(?P<name>" + "|".join(DUMP_NAMES) + r") \.+ (?P<v>\S+)\s*$")
#: Miles's default backend when a full argument list names none (miles/utils/arguments.py:263-267).
DEFAULT_BACKEND = "megatron"
#: Characters that end a word outside quotes (bash's metacharacters).
SHELL_BREAKS = " \t\n;&|()<>"
#: A word that passes a flag: `--name` or `--name=value` (a word with a space after the name, as in a JSON string
#: `"--flag value"`, passes none).
FLAG_WORD_RE = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_.-]*(?:=|\Z)")
#: A run id a `base:` may name (capture/runs/<id>.yaml); anything else is not followed.
RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: How many `base:` links the CLI follows before it gives up (a loop, or a chain no book has).
MAX_BASES = 8


def _expansion_end(text: str, i: int) -> int:
    """Where the expansion that starts at text[i] ($NAME, ${...}, $(...), `...`, $1, $@) ends; -1: a literal $."""
    n = len(text)
    if text[i] == "`":
        j = text.find("`", i + 1)
        return n if j < 0 else j + 1
    nxt = text[i + 1] if i + 1 < n else ""
    if nxt in ("{", "("):
        close = "}" if nxt == "{" else ")"
        depth = 0
        j = i + 1
        while j < n:
            if text[j] == nxt:
                depth += 1
            elif text[j] == close:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return n
    if nxt.isascii() and (nxt.isalpha() or nxt == "_"):
        j = i + 2
        while j < n and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
            j += 1
        return j
    if nxt != "" and nxt in "0123456789@*#?$!-":
        return i + 2
    return -1


def _take(text: str, i: int, cur: list[str]) -> tuple[int, str | None]:
    """Append the character at `i`, or the expansion that starts there, to `cur`: the next index, and the
    expansion (None for a plain character)."""
    j = _expansion_end(text, i) if text[i] in "$`" else -1
    if j < 0:
        cur.append(text[i])
        return i + 1, None
    cur.append(text[i:j])
    return j, text[i:j]


def _heredoc_end(text: str, i: int, delim: str, tabs: bool) -> int:
    """Where the here-document whose body starts at text[i] ends: the index of the line break after its `delim`
    line (leading tabs dropped for `<<-`), or the end of the text (bash reads to the end, with a warning)."""
    n = len(text)
    while i < n:
        j = text.find("\n", i)
        e = n if j < 0 else j
        line = text[i:e]
        if (line.lstrip("\t") if tabs else line) == delim:
            return e
        i = e + 1
    return n


def shell_words(text: str) -> list[tuple[str, str | None]]:
    """The words of `text` as bash reads them, each with the first expansion in it that is left unexpanded ($VAR,
    ${VAR}, $(...), `...`) or None. Comments (from a word that starts with #) and backslash-newlines go; quotes
    are removed; an unclosed quote runs to the end; a here-document's body (`<<EOF` ... `EOF`) is data, no words."""
    words: list[tuple[str, str | None]] = []
    cur: list[str] | None = None
    exp: str | None = None
    heredocs: list[tuple[str, bool]] = []  # (delimiter, <<-) of the here-documents whose bodies start at the next line
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            if cur is not None:
                words.append(("".join(cur), exp))
            cur, exp = None, None
            j = i + 2
            tabs = text.startswith("-", j)
            j += tabs
            while j < n and text[j] in " \t":
                j += 1
            k = j
            while k < n and text[k] not in SHELL_BREAKS:
                k += 1
            delim = re.sub(r"[\\'\"]", "", text[j:k])
            if delim:
                heredocs.append((delim, tabs))
            i = k
            continue
        if c == "\n" and heredocs:
            if cur is not None:
                words.append(("".join(cur), exp))
            cur, exp = None, None
            for delim, tabs in heredocs:
                i = _heredoc_end(text, i + 1, delim, tabs) if i < n else n
            heredocs = []
            continue
        if c == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2
                continue
            cur = cur if cur is not None else []
            cur.append(text[i + 1] if i + 1 < n else "\\")
            i += 2
            continue
        if c in SHELL_BREAKS:
            if cur is not None:
                words.append(("".join(cur), exp))
            cur, exp = None, None
            i += 1
            continue
        if c == "#" and cur is None:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        cur = cur if cur is not None else []
        if c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            cur.append(text[i + 1:j])
            i = j + 1
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                d = text[i]
                if d == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
                    if text[i + 1] != "\n":
                        cur.append(text[i + 1])
                    i += 2
                    continue
                i, e = _take(text, i, cur)
                exp = exp or e
            i += 1
            continue
        i, e = _take(text, i, cur)
        exp = exp or e
    if cur is not None:
        words.append(("".join(cur), exp))
    return words


def _yaml_scalar(s: str) -> str:
    """One value of a run file's list or key: quoted ("..." with \\" and \\\\, '...' with ''), else plain up to a
    comment."""
    s = s.strip()
    if s.startswith('"'):
        out: list[str] = []
        i = 1
        while i < len(s) and s[i] != '"':
            if s[i] == "\\" and i + 1 < len(s):
                i += 1
            out.append(s[i])
            i += 1
        return "".join(out)
    if s.startswith("'"):
        out = []
        i = 1
        while i < len(s):
            if s[i] == "'":
                if s[i + 1:i + 2] != "'":
                    break
                i += 1
            out.append(s[i])
            i += 1
        return "".join(out)
    j = s.find(" #")
    return (s if j < 0 else s[:j]).strip()


def _flow_items(s: str) -> list[str] | None:
    """A one-line YAML flow list (`[--a, "b", 'c']`) as its items, each read by `_yaml_scalar`; None for anything else."""
    s = s.strip()
    if not s.startswith("["):
        return None
    items: list[str] = []
    cur: list[str] = []
    quote = ""
    i = 1
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\" and quote == '"' and i + 1 < len(s):
                cur.append(s[i:i + 2])
                i += 2
                continue
            if c == quote:
                quote = ""
            cur.append(c)
        elif c in "'\"":
            quote = c
            cur.append(c)
        elif c in ",]":
            items.append("".join(cur))
            cur = []
            if c == "]":
                return [_yaml_scalar(x) for x in items if x.strip()]
        else:
            cur.append(c)
        i += 1
    return None


def run_file_args(text: str) -> dict[str, Any] | None:
    """A run file of this book (capture/runs/*.yaml) as its args list, its `base:` and its `drop:` flags; None when
    the text has no top-level `args:` and is not a bare list of `- item` lines (then it is shell text). Only this shape is read: `args:` a list of
    `- item` lines (or a one-line `[a, b]`), `base: <id>`, `drop:` a map of flags."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip() and not ln.strip().startswith("#")]
    if lines and all(ln == "-" or ln.startswith("- ") for ln in lines):  # a run file's args list alone
        text = "args:\n" + text
    elif not re.search(r"(?:^|\n)args:", text):
        return None
    args: list[str] = []
    base: str | None = None
    drop: list[str] = []
    key = ""
    for line in text.split("\n"):
        if line[:1] not in ("", " ", "\t", "#", "-"):
            key, _, rest = line.partition(":")
            key = key.strip()
            if key == "base":
                base = _yaml_scalar(rest) or None
            elif key == "args":
                args.extend(_flow_items(rest) or [])  # `args: [--a, b]` on one line
            continue
        item = line.strip()
        if key == "args" and (item == "-" or item.startswith("- ")):
            args.append(_yaml_scalar(item[1:]))
        elif key == "drop":
            m = re.match(r"^[\"']?(--[A-Za-z0-9][A-Za-z0-9_-]*)[\"']?[ \t]*:", item)
            if m:
                drop.append(m[1])
    return {"words": [(a, None) for a in args], "base": base, "drop": drop}


def read_arguments(text: str) -> dict[str, Any]:
    """A run file (run_file_args) or shell text (shell_words, no base) as {words, base, drop}."""
    text = text.replace("\r\n", "\n")
    return run_file_args(text) or {"words": shell_words(text), "base": None, "drop": []}


def passes_arguments(text: str) -> bool:
    """Whether the text passes any argument: a --flag word, or a run file's base. Else it is refused (its
    settings would read as Miles's defaults)."""
    args = read_arguments(text)
    return bool(args["base"]) or any(FLAG_WORD_RE.match(w) for w, _ in args["words"])


def shown(text: str) -> str:
    """A piece of the reader's input as a note shows it: control characters and spaces one space, 40 characters."""
    s = re.sub(r"[\x00-\x20\x7f]+", " ", text).strip()
    return s if len(s) <= 40 else s[:40] + "..."


def named(text: str, keep: str = " ") -> str:
    """A file name, an argument or a log's text as the terminal gets it: control characters, escapes and bidi overrides
    (all but `keep`) as their Python escapes (`\\x1b`, `\\n`, `\\u202e`), so no echoed input moves the cursor or
    forges a line."""
    return "".join(c if c.isprintable() or c in keep else ascii(c)[1:-1] for c in str(text))


def _own_settings(words: list[tuple[str, str | None]]) -> dict[str, Any]:
    """The backend and dynamic batching the words name themselves (the last --train-backend wins, as in argparse):
    backend None where they name none; backend_unknown the reason where they name one this reader cannot tell."""
    got: dict[str, Any] = {"backend": None, "backend_unknown": None, "dynamic_batch": None}
    for k, (w, exp) in enumerate(words):
        if w == DYNAMIC_FLAG:
            got["dynamic_batch"] = "on"
        value: tuple[str, str | None] | None = None
        if w == BACKEND_FLAG:
            value = words[k + 1] if k + 1 < len(words) else ("", None)
        elif w.startswith(BACKEND_FLAG + "="):
            value = (w[len(BACKEND_FLAG) + 1:], exp)
        if value is None:
            continue
        v, vexp = value
        got["backend"], got["backend_unknown"] = None, None
        if vexp is not None:
            got["backend_unknown"] = shown(vexp)
        elif v in BACKENDS:
            got["backend"] = v
        elif v == "":
            got["backend_unknown"] = "no value after it"
        else:
            got["backend_unknown"] = f"{shown(v)}, not a choice: {' or '.join(BACKENDS)}"
    return got


def settings_of_args(text: str, source: str, read_base: Callable[[str], str | None] | None = None,
                     _depth: int = 0) -> dict[str, Any]:
    """The backend and dynamic batching of a run file, a launch script or an argument list, each None with its
    reason under "unknown" where the text cannot tell (an unexpanded $VAR, a base not read). `read_base(id)`
    gives the text of the run file a `base:` names, or None (the page reads none)."""
    args = read_arguments(text)
    own = _own_settings(args["words"])
    out: dict[str, Any] = {"from": source, "line": None, "backend": own["backend"],
                           "dynamic_batch": own["dynamic_batch"], "unknown": {}}
    if own["backend_unknown"] is not None:
        out["unknown"]["backend"] = own["backend_unknown"]
    base = args["base"]
    inherited: dict[str, Any] | None = None
    if base:
        why = f"from base: {shown(base)}, not read"
        if not RUN_ID_RE.match(base):
            why = f"from base: {shown(base)}, not a run id"
        elif read_base is not None and _depth < MAX_BASES:
            base_text = read_base(base)
            if base_text is not None:
                inherited = settings_of_args(base_text, source, read_base, _depth + 1)
        for name, flag in (("backend", BACKEND_FLAG), ("dynamic_batch", DYNAMIC_FLAG)):
            if out[name] is not None or name in out["unknown"] or flag in args["drop"]:
                continue
            if inherited is None:
                out["unknown"][name] = why
            elif inherited[name] is not None:
                out[name] = inherited[name]
            elif name in inherited["unknown"]:
                out["unknown"][name] = inherited["unknown"][name]
    if out["backend"] is None and "backend" not in out["unknown"]:
        out["backend"] = DEFAULT_BACKEND
    if out["dynamic_batch"] is None and "dynamic_batch" not in out["unknown"]:
        out["dynamic_batch"] = "off"
    return out


def settings_in_log(lines: Iterable[str]) -> dict[str, Any]:
    """The same from Megatron's argument dump in the log; unknown (None) where it has none."""
    seen: dict[str, str] = {}
    first = None
    for n, raw in enumerate(lines, 1):
        m = SETTING_DUMP_RE.search(clean(raw))
        if m and m["name"] not in seen:
            seen[m["name"]] = m["v"]
            first = first or n
            if len(seen) == len(DUMP_NAMES):  # the dump sits at the log's top: the rest need not be read
                break
    return _dump_settings(seen, first)


def _dump_settings(seen: dict[str, str], first: int | None) -> dict[str, Any]:
    if first is None:
        return {"from": None, "line": None, "backend": None, "dynamic_batch": None}
    dyn = {"True": "on", "False": "off"}.get(seen.get("use_dynamic_batch_size", ""))
    return {"from": "dump", "line": first, "backend": seen.get("train_backend", DEFAULT_BACKEND), "dynamic_batch": dyn}


def _fill(text: str, params: dict[str, Any]) -> str:
    for k, v in params.items():
        text = text.replace("{" + k + "}", str(v))
    return text


def _says(fact: str, value: str, params: dict[str, Any]) -> str:
    """The sentence for a fact's value (evidence.facts; a phase's own `says`)."""
    if fact == "phase":
        for ph in EVIDENCE["phases"]:
            if ph["id"] == value:
                return _fill(ph["says"], params)
    return _fill(EVIDENCE["facts"].get(fact, {}).get(value, f"{fact} is {value}"), params)


def _weigh(when: list[dict[str, Any]], facts: dict[str, Any], params: dict[str, Any]
           ) -> tuple[int, list[str], list[str], bool]:
    """Score of conditions against the facts: +1 each agreeing, -1 each contradicting; the sentences; any unknown."""
    score, why, against, unknown = 0, [], [], False
    for c in when:
        v = facts.get(c["fact"])
        if v is None:
            unknown = True
        elif v in c["in"]:
            score += 1
            why.append(_says(c["fact"], v, params))
        else:
            score -= 1
            against.append(_says(c["fact"], v, params))
    return score, why, against, unknown


def _context_facts(before: list[str], hit: str, after: list[str], timer: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Where an error happened (phase) and its sizes (alloc), from the lines around its first line."""
    facts: dict[str, Any] = {}
    params: dict[str, Any] = {}
    ctx = before + [hit] + after
    for ph in EVIDENCE["phases"]:
        marker = next((mk for mk in ph["markers"] if any(mk in ln for ln in ctx)), None)
        if marker is not None:
            facts["phase"], params["marker"] = ph["id"], marker
            break
    if "phase" not in facts and timer is not None:
        for ph in EVIDENCE["phases"]:
            if timer in ph["timers"]:
                facts["phase"], params["marker"] = ph["id"], f"Timer {timer} start"
                break
    facts_alloc([hit] + after + before, facts, params)
    if any("undefined symbol" in ln for ln in ctx):
        facts["abi"] = "mismatch"
    return facts, params


def _size(number: str, unit: str) -> float:
    return float(number) * UNITS[unit]


def _gib(n: float) -> str:
    return f"{n / UNITS['GiB']:.2f} GiB"


def facts_alloc(ctx: list[str], facts: dict[str, Any], params: dict[str, Any]) -> None:
    """What an out-of-memory message says of the request (`alloc`): torch_memory_saver's margin refused it
    (`margin`), PyTorch held at least that much reserved but unallocated (`fragmented`), or less (`whole`)."""
    for ln in ctx:
        m = MARGIN_RE.search(ln)
        if m:
            facts["alloc"] = "margin"
            params.update(want=_gib(float(m["size"])), free=_gib(float(m["free"])), margin=_gib(float(m["margin"])))
            return
    for ln in ctx:
        ln = ln[:OOM_LINE]
        w = WANT_RE.search(ln)
        if not w:
            continue
        want = _size(w["want"], w["wu"])
        r = UNALLOC_RE.search(ln)
        if r:
            unalloc, said = _size(r["res"], r["ru"]), f"{r['res']} {r['ru']}"
        else:
            o = RESERVED_OLD_RE.search(ln)
            if not o:
                continue  # the message names no reserved figure: the doctor cannot tell
            unalloc = max(0.0, _size(o["res"], o["ru"]) - _size(o["alloc"], o["au"]))
            said = _gib(unalloc)
        facts["alloc"] = "fragmented" if unalloc >= want else "whole"
        params.update(want=f"{w['want']} {w['wu']}", unalloc=said)
        return


def _report_facts(report: dict[str, Any] | None, signal: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Facts from the steps read: how many show the signal, the truncation verdict, the gradient norm."""
    facts: dict[str, Any] = {}
    params: dict[str, Any] = {}
    if not report:
        return facts, params
    if signal:
        n = sum(1 for t in report["steps"] if t.get(signal) is not None)
        facts["steps"], params["steps"] = ("one" if n == 1 else "several"), n
    v = report["verdicts"].get("truncation")
    if v and v["verdict"] in ("ok", "watch", "bad"):
        facts["truncation"], params["reason"] = v["verdict"], v["reason"]
    grads = [t["grad_norm"] for t in report["steps"] if t.get("grad_norm") is not None]
    if grads:
        bad = report["verdicts"].get("grad_norm", {}).get("verdict") == "bad"
        facts["grad"] = "nonfinite" if any(math.isnan(g) or math.isinf(g) for g in grads) else ("large" if bad else "ok")
    return facts, params


def _causes(sym: dict[str, Any], facts: dict[str, Any], params: dict[str, Any]) -> list[dict[str, Any]]:
    """The entry's causes in the order to check: the data's order, where one the log shows moves up and one it
    contradicts moves down; each with the facts for and against it and its fixes for this run."""
    out = []
    for c in sym.get("causes", []):
        score, why, against, _ = _weigh(c.get("when", []), facts, params)
        fixes = []
        for f in c["fixes"]:
            _, _, ruled_out, unknown = _weigh(f.get("when", []), facts, params)
            if ruled_out:
                continue  # the run's backend or setting rules it out
            fixes.append(f"{f['needs']}: {f['fix']}" if unknown and f.get("needs") else f["fix"])
        out.append({"cause": c["cause"], "tells": c["tells"], "why": why, "against": against, "fixes": fixes,
                    "_score": score})
    out = [c for _, c in sorted(enumerate(out), key=lambda ic: (-ic[1]["_score"], ic[0]))]
    for c in out:
        del c["_score"]
    return out


def _asks(sym: dict[str, Any], fact: str) -> bool:
    """Whether an entry's rank asks for `fact`."""
    return any(c["fact"] == fact for c in sym.get("rank", []))


def diagnose(lines: Iterable[str], report: dict[str, Any] | None = None,
             settings: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Each 7.1 entry the log points at, the likeliest first (`examine`'s matches; its notes left out)."""
    return examine(lines, report, settings)[0]


def examine(lines: Iterable[str], report: dict[str, Any] | None = None,
            settings: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each 7.1 entry the log points at, the likeliest first; and the notes: lines healthy runs print too.

    An entry with `healthy_too` (a warning that healthy runs print, as PyTorch's capability warning on a GB10) is
    never named as a cause: its first line is a note (`healthy_too.note`), and the fact it `sets` (the GPU is a GB10)
    is evidence for the entries whose `rank` asks for it.

    A match is an entry's exact string on a line (`line`, `count`); with `after_step`, only on a
    line after the trainer's first `step N:` line (`report["first_train_line"]`): a step has trained. An `open_timer` entry matches
    when the log ends inside a Miles timer not in its `ignore` list (a `Timer NAME start` with no
    `end` after it): the latest such line, `count` the timers still open (`open_timers` set). A `signal` entry matches when that signal's
    verdict in `report` (from read_run) is bad.

    Matches are ranked by the evidence their entry's `rank` asks for (`score`, with the sentences that
    agree, `why`, and contradict, `against`): where the error happened (the `evidence.window` lines
    around its first line, else the innermost open timer), the sizes in an out-of-memory message,
    whether the engine had reported ready, how many steps show a signal; ties keep the order of
    their first line. `settings` (the run's backend and dynamic batching) picks each cause's fixes.
    """
    found: dict[str, dict[str, Any]] = {}
    first_step = report.get("first_train_line") if report else None
    open_timers: dict[str, tuple[int, str]] = {}
    window = int(EVIDENCE["window"])
    before: list[str] = []
    pending: list[list[Any]] = []  # [lines still to take, the hit]: the window after each first hit
    ready_line = None
    labels: list[str] = []  # the label= of each sample line (`First rollout sample:`, `Finish rollout:`)
    timer_phase = {t for ph in EVIDENCE["phases"] for t in ph["timers"]}
    for n, raw in enumerate(lines, 1):
        line = clean(raw)
        if "label=" in line:
            sample = SAMPLE_RE.search(line)
            if sample:
                labels.append(sample["label"])
        timer = TIMER_RE.search(line)
        if timer:
            if timer["what"] == "start":
                open_timers[timer["name"]] = (n, line.strip()[:200])
            else:
                open_timers.pop(timer["name"], None)
        if ready_line is None and any(r in line for r in EVIDENCE["ready"]):
            ready_line = n
        for p in pending:
            p[1]["_after"].append(line)
            p[0] -= 1
        pending = [p for p in pending if p[0] > 0]
        for sym, patterns in GREPS if GREP_ANY.search(line) else ():
            if sym.get("after_step") and (first_step is None or n <= first_step):
                continue
            if any(_finds(line, parts) for parts in patterns):
                hit = found.get(sym["id"])
                if hit is None:
                    hit = found[sym["id"]] = {"id": sym["id"], "line": n, "count": 1, "text": line.strip()[:200]}
                    if not sym.get("after_step"):
                        inner = [(v[0], k) for k, v in open_timers.items() if k in timer_phase]
                        hit.update(_before=before[-window:] if window else [], _hit=line, _after=[],
                                   _timer=max(inner)[1] if inner else None)
                        if window:
                            pending.append([window, hit])
                else:
                    hit["count"] += 1
        if window:
            before.append(line)
            if len(before) > window:
                del before[0]
    for sym in SYMPTOMS:
        ignore = (sym.get("open_timer") or {}).get("ignore")
        still = [v for k, v in open_timers.items() if ignore is not None and k not in ignore]
        if still and sym["id"] not in found:
            n, text = max(still)
            found[sym["id"]] = {"id": sym["id"], "line": n, "count": len(still), "open_timers": True,
                                "text": text}
    if report:
        first_line = None
        for sym in SYMPTOMS:
            name = sym.get("signal")
            v = report["verdicts"].get(name) if name else None
            if v and v["verdict"] == "bad" and sym["id"] not in found:
                first_line = report.get("first_line")
                found[sym["id"]] = {"id": sym["id"], "line": first_line, "count": 1, "signal": name,
                                    "text": f"{name}: {v['reason']}"}
    steps_at = report.get("first_line") if report else None
    ready_at = min((x for x in (ready_line, steps_at) if x is not None), default=None)
    run = settings or {}
    by_id = {s["id"]: s for s in SYMPTOMS}
    out = []
    notes, seen = [], {}
    for hit in sorted(found.values(), key=lambda h: (h["line"] is None, h["line"] or 0)):
        sym = by_id[hit["id"]]
        if sym.get("healthy_too"):
            notes.append({k: hit[k] for k in ("id", "line", "count", "text")} | {
                "title": _plain(sym["title"]), "section": sym["section"], "url": f"{PAGE_PATH}#{sym['id']}",
                "note": sym["healthy_too"]["note"]})
            sets = sym["healthy_too"].get("sets")
            if sets and sets["fact"] not in seen:
                seen[sets["fact"]] = (sets["value"], hit["line"])
    # the lines of entries that name an error of their own: a line that reports another error (an actor's death, the
    # NCCL watchdog; its rank asks for the fact `others`) ranks below them
    specific = [h["line"] for h in found.values() if h["line"] is not None and "signal" not in h
                and not h.get("open_timers") and not by_id[h["id"]].get("healthy_too")
                and not _asks(by_id[h["id"]], "others")]
    for hit in sorted(found.values(), key=lambda h: (h["line"] is None, h["line"] or 0)):
        sym = by_id[hit["id"]]
        if sym.get("healthy_too"):
            continue
        facts: dict[str, Any] = {k: run.get(k) for k in ("backend", "dynamic_batch") if run.get(k) is not None}
        params: dict[str, Any] = {"line": hit["line"]}
        for fact, (value, at) in seen.items():
            facts[fact], params["seen_line"] = value, at
        if _asks(sym, "others"):
            facts["others"] = "matched" if specific else "none"
            if specific:
                params["other_line"] = min(specific)
        if labels:
            facts["label"] = "none" if "None" in labels else "set"
            params["labels"] = len(labels)
        if "_hit" in hit:
            f, p = _context_facts(hit.pop("_before"), hit.pop("_hit"), hit.pop("_after"), hit.pop("_timer"))
            facts.update(f)
            params.update(p)
        if "signal" not in hit and hit["line"] is not None:
            facts["ready"] = "after" if ready_at is not None and ready_at < hit["line"] else "before"
        f, p = _report_facts(report, hit.get("signal"))
        facts.update(f)
        params.update(p)
        score, why, against, _ = _weigh(sym.get("rank", []), facts, params)
        out.append({**hit, "title": _plain(sym["title"]), "section": sym["section"],
                    "url": f"{PAGE_PATH}#{sym['id']}", "check": sym["check"], "fix": sym["fix"],
                    "facts": facts, "score": score, "why": why, "against": against,
                    "causes": _causes(sym, facts, params)})
    return arrange([m for _, m in sorted(enumerate(out), key=lambda im: (-im[1]["score"], im[0]))]), notes


#: A fix that moves a flag: `Raise --x`, `Lower --x` (the fixes of symptoms.json are plain text).
MOVE_RE = re.compile(r"\b(?P<how>[Rr]aise|[Ll]ower)\s+(?P<flag>--[a-z0-9][a-z0-9-]*)")


def _moves(match: dict[str, Any]) -> dict[str, str]:
    """The flags an entry's fixes for this run move, and which way ('raise' or 'lower')."""
    # the causes this log argues against are left out: their fixes are not what the log points at
    texts = [match["fix"]] + [f for c in match["causes"] if not c["against"] for f in c["fixes"]]
    out: dict[str, str] = {}
    for t in texts:
        for m in MOVE_RE.finditer(t):
            out.setdefault(m["flag"], m["how"].lower())
    return out


def _same_line(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two matches on one log line (signals, read from the steps, are on none)."""
    return a["line"] is not None and a["line"] == b["line"] and "signal" not in a and "signal" not in b


def arrange(ranked: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranked matches as the reader gets them.

    - One line matched by several entries of one section is one entry: the best ranked, with the others under
      `also_matched`.
    - `undecided` (on the first entry): the entries matched on its line with its score. Nothing in the log tells
      them apart, and the tie is said, never settled by the order of the entries.
    - `opposite`: another matched entry whose fixes move one of this entry's flags the other way, with the
      order to try: what stops the run (an error line, the earliest first) before what its steps show (a signal).
    """
    kept: list[dict[str, Any]] = []
    for m in ranked:
        home = next((k for k in kept if _same_line(k, m) and k["section"] == m["section"]), None)
        if home is None:
            kept.append({**m, "also_matched": [], "undecided": [], "opposite": []})
        else:
            home["also_matched"].append({"id": m["id"], "title": m["title"], "section": m["section"], "url": m["url"],
                                         "score": m["score"], "check": m["check"]})
    if kept:
        top = kept[0]
        tied = [a for a in top["also_matched"] if a["score"] == top["score"]]
        tied += [m for m in kept[1:] if _same_line(m, top) and m["score"] == top["score"]]
        top["undecided"] = [{"id": t["id"], "title": t["title"], "section": t["section"], "url": t["url"],
                             "check": t["check"]} for t in tied]
    moves = [(m, _moves(m)) for m in kept]
    for m, mine in moves:
        for other, theirs in moves:
            if other is m:
                continue
            for flag, how in mine.items():
                if theirs.get(flag, how) != how:
                    stops = [x for x in (m, other) if "signal" not in x and x["line"] is not None]
                    if len(stops) == 1:
                        first, why = stops[0], "what stops the run before what its steps show"
                    elif stops:
                        first, why = min(stops, key=lambda x: x["line"]), "the earlier error line first"
                    else:
                        first, why = min((m, other), key=kept.index), "the entry ranked higher first"
                    m["opposite"].append({"flag": flag, "this": how, "id": other["id"], "title": other["title"],
                                          "other": theirs[flag], "first": first["id"], "why": why})
    return kept


def _how_often(match: dict[str, Any]) -> str:
    """" (seen N times)" for a message; for open timers, how many are still open."""
    if match.get("open_timers"):
        n = match["count"]
        return f" (the last of {n} timers still open)" if n > 1 else " (a timer still open)"
    return f" (seen {match['count']} times)" if match["count"] > 1 else ""


def _plain(title: str) -> str:
    """A MyST heading as plain text: roles and backticks dropped."""
    return re.sub(r"\{[a-z-]+\}`([^`]*)`", r"\1", title).replace("`", "")


#: With no match: what 7.1's closing section says to do (search the first error line, not the last).
NO_MATCH = ("No line of this log matches a symptom of 7.1 (Troubleshoot by symptom). Search the issue trackers "
            "for the log's first error line, not its last: the last is usually a consequence (7.1, When nothing here matches).")
#: With notes only: the lines matched are ones healthy runs print too, so no entry is named.
NOTES_ONLY = ("No line of this log points at a cause in 7.1 (Troubleshoot by symptom): the lines it matched are printed "
              "by healthy runs too (below). If the run failed, search the issue trackers for the log's first error line, "
              "not its last: the last is usually a consequence (7.1, When nothing here matches).")


def first_in_log(first: dict[str, Any], second: dict[str, Any]) -> str:
    """Why the first entry is first when no evidence ranks it: its line comes earlier (said only when true)."""
    if first["line"] is not None and (second["line"] is None or first["line"] < second["line"]):
        return "it comes first in the log (no evidence ranks another higher)"
    return "no evidence ranks another higher"


def settings_note(settings: dict[str, Any] | None) -> str:
    """Where the run's backend and dynamic batching came from, or that they are unknown."""
    s = settings or {}
    if not s.get("from"):
        return ("Run settings: unknown (no --run FILE, and no Megatron argument dump in the log; FSDP prints none). "
                "Fixes that need a backend or a setting name it.")
    where = {"run": "the run file", "dump": f"Megatron's argument dump (line {s.get('line')})",
             "pasted": "the pasted arguments"}.get(s["from"], s["from"])
    unknown = s.get("unknown") or {}
    dyn = {"on": "with", "off": "without"}.get(s.get("dynamic_batch") or "", "unknown")
    dyn = dyn if dyn == "unknown" else f"{dyn} --use-dynamic-batch-size"
    if "dynamic_batch" in unknown:
        dyn = f"--use-dynamic-batch-size unknown ({unknown['dynamic_batch']})"
    backend = s.get("backend") or "unknown"
    if "backend" in unknown:
        backend = f"unknown ({unknown['backend']})"
    tail = " Fixes that need an unknown setting name it." if unknown else ""
    return f"Run settings, from {where}: --train-backend {backend}, {dyn}.{tail}"


def render_notes(notes: list[dict[str, Any]]) -> list[str]:
    """Each note: the line healthy runs print too, what it is, and its entry (read, not named as a cause)."""
    out = []
    for n in notes:
        out.append(f"line {n['line']}{_how_often(n)}: {n['text']}")
        out.append(f"  seen, not a cause on its own: {n['note']} (7.1 {n['section']}: {n['title']})")
        out.append(f"  in the book: {where_to_read(n['id'])}")
    return out


def render_diagnosis(matches: list[dict[str, Any]], malformed: list[dict[str, Any]],
                     nonfinite: list[dict[str, Any]], settings: dict[str, Any] | None = None,
                     notes: list[dict[str, Any]] | None = None) -> str:
    out = []
    if not matches:
        out.append(NOTES_ONLY if notes else NO_MATCH)
        if notes:
            out.append("")
    for i, m in enumerate(matches):
        where = f"line {m['line']}" if m["line"] else "step values"
        seen = _how_often(m)
        out.append(f"{where}{seen}: {named(m['text'])}")
        out.append(f"  7.1 {m['section']}: {m['title']}")
        out.append(f"  in the book: {where_to_read(m['id'])}")
        if i == 0 and m["undecided"]:
            out.append("  the log cannot tell these apart: " + " or ".join([m["title"]] + [u["title"] for u in m["undecided"]]))
            for u in [m] + m["undecided"]:
                check = u["check"].replace("\n", "\n           ")
                out.append(f"    to tell, {u['id']}: {check}")
        elif i == 0 and len(matches) > 1:
            out.append(f"  first because: {'; '.join(m['why']) if m['why'] else first_in_log(m, matches[1])}")
        elif m["against"]:
            out.append(f"  less likely: {'; '.join(m['against'])}")
        for a in m["also_matched"]:
            out.append(f"  also matched on this line: 7.1 {a['title']} ({where_to_read(a['id'])})")
        for o in m["opposite"]:
            then = o["id"] if o["first"] == m["id"] else m["id"]
            out.append(f"  opposite fixes: this entry says {o['this']} {o['flag']}, {o['id']} says {o['other']} it; "
                       f"try {o['first']}'s fixes first ({o['why']}), then {then}'s")
        check = m["check"].replace("\n", "\n         ")
        out.append(f"  check: {check}")
        if m["causes"]:
            out.append("  causes, in the order to check:")
            for k, c in enumerate(m["causes"], 1):
                out.append(f"    {k}. {c['cause']}")
                out.append(f"       tells: {c['tells']}")
                if c["why"]:
                    out.append(f"       this log: {'; '.join(c['why'])}")
                if c["against"]:
                    out.append(f"       less likely here: {'; '.join(c['against'])}")
                for f in c["fixes"]:
                    out.append(f"       fix: {f}")
        else:
            out.append(f"  fix:   {m['fix']}")
        out.append("")
    out += render_notes(notes or [])
    if notes and matches:
        out.append("")
    if matches:
        out.append(settings_note(settings))
    for b in malformed:
        out.append(f"line {b['line']}: looks like a `{b['kind']} {b['id']}:` line but its dict does not parse: "
                   f"{named(b['text'])}")
    for b in nonfinite:
        out.append(f"line {b['line']}: {named(b['key'])} is {b['value']}")
    return "\n".join(out).rstrip()


# ---- --compare: the first steps beside the public references and our GB10 run ---------------

def load_references(root: str | None) -> dict[str, dict[str, Any]]:
    """Every record of <root>/capture/references/*.json (Miles 101 checkout), else the embedded cut-offs."""
    import glob
    import os

    refs: dict[str, dict[str, Any]] = {}
    if root:
        for path in sorted(glob.glob(os.path.join(root, "capture", "references", "*.json"))):
            try:
                with open(path, encoding="utf-8") as fh:
                    refs.update(json.load(fh).get("references", {}))
            except (OSError, ValueError, AttributeError):
                continue
    for key, value in CUTOFFS.items():  # alone, the file cannot tell ours from published ones: "cut-off"
        refs.setdefault(key, {"value": value, "label": "read_run.py cut-off", "kind": "cut-off"})
    return refs


# The metric keys and names a reference may mention to be put beside a signal.
def _refs_for(name: str, keys: tuple[str, ...], refs: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for key, rec in sorted(refs.items()):
        text = " ".join(str(rec.get(f, "")) for f in ("what", "setting")) + " " + " ".join(rec.get("beside") or [])
        stem = name.replace("_", "")
        if any(k in text for k in keys) or stem in key.replace("_", "").replace("-", ""):
            out.append(key)
    return out


def _fmt_ref(key: str, rec: dict[str, Any]) -> str:
    if "value" in rec:
        val = f"{rec['value']:g}"
    else:
        lo, hi = rec.get("low"), rec.get("high")
        val = f"{lo:g}–{hi:g}" if lo is not None and hi is not None else (f"≥ {lo:g}" if lo is not None else f"≤ {hi:g}")
    hw = f", {rec['hardware']}" if rec.get("hardware") else ""
    return f"{val} ({rec.get('label', key)}{hw}) [{key}]"


def compare(report: dict[str, Any], refs: dict[str, dict[str, Any]], ours: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One row per signal: the reader's median over its first steps, references, our GB10 run."""
    rows = []
    for name, _, keys, _, _ in SIGNALS:
        vals = [t[name] for t in report["steps"] if t[name] is not None]
        mine = statistics.median(vals) if vals else None
        theirs = None
        if ours is not None:
            ov = [t[name] for t in ours["steps"] if t[name] is not None]
            theirs = statistics.median(ov) if ov else None
        rows.append({"signal": name, "yours": mine, "verdict": report["verdicts"][name]["verdict"],
                     "references": {k: refs[k] for k in _refs_for(name, keys, refs)},
                     "gb10": theirs if ours is not None else "pending"})
    return rows


def render_compare(rows: list[dict[str, Any]], n_steps: int, gb10_note: str) -> str:
    out = [f"Your first {n_steps} steps (median of each signal) beside the public references and our GB10 run.",
           f"GB10 run first-grpo: {gb10_note}", ""]
    for r in rows:
        yours = "-" if r["yours"] is None else f"{r['yours']:.4g}"
        gb10 = r["gb10"] if isinstance(r["gb10"], str) else ("-" if r["gb10"] is None else f"{r['gb10']:.4g}")
        out.append(f"{r['signal']:<16} yours {yours:<10} ({r['verdict']})   GB10 {gb10}")
        for key, rec in r["references"].items():
            tag = {"threshold": "our threshold", "cut-off": "cut-off"}.get(rec.get("kind", ""), "reference")
            out.append(f"{'':16}   {tag}: {_fmt_ref(key, rec)}")
    out.append("")
    out.append("A reference is someone else's number (other hardware, or a rule in Miles's code); 'our threshold' "
               "is this lab's own judgment (its reasoning: capture/references/reader.json). Neither is a GB10 measurement.")
    return "\n".join(out)


#: The Miles keys `--compare --against` puts beside a public series, and the series' own keys. No verl key is
#: mapped to a Miles key (the two are computed by different code: verl's GSM8K scorer is not Miles's reward),
#: so each side is shown under its own name and no verdict is given against someone else's run.
SERIES_YOURS = ("rollout/raw_reward", "rollout/response_len/mean", "perf/step_time")
SERIES_THEIRS = ("critic/score/mean", "response_length/mean")
SERIES_NO_VERDICT = ("no verdict: a public run is someone else's (another framework, method, model and scorer); "
                     "verdicts are given only against this book's own recorded runs of the same recipe")


def load_series(spec: str, root: str | None) -> dict[str, Any]:
    """A public series (Miles 101's capture/series/<id>.json): a path, or an id under ROOT/capture/series/.
    ValueError naming the file and what is wrong."""
    import os

    path = spec if os.path.lexists(spec) or not root or not RUN_ID_RE.match(spec) \
        else os.path.join(root, "capture", "series", spec + ".json")
    try:  # a regular file of at most MAX_SERIES_BYTES: a FIFO or a device is refused, never waited on
        doc = json.loads(read_regular(path, MAX_SERIES_BYTES, "a series file (capture/series/<id>.json)"))
    except LogUnreadable as e:
        raise ValueError(f"{named(path)}: {e}; name a file, or an id of capture/series/ with --root") from None
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{named(path)}: not JSON ({named(str(e))[:200]})") from None
    steps, metrics = (doc.get("steps"), doc.get("metrics")) if isinstance(doc, dict) else (None, None)
    if not isinstance(steps, list) or not isinstance(metrics, dict) or not all(
            isinstance(col, list) and len(col) == len(steps) for col in metrics.values()):
        raise ValueError(f"{named(path)}: not a series file ($.steps and one $.metrics column per key, as long as $.steps)")
    return {**doc, "path": path}


def compare_series(rows: list[dict[str, Any]], series: dict[str, Any], at: list[int]) -> dict[str, Any]:
    """The per-metric table of `--compare --against`: your value and the public run's at each chosen step."""
    def number(v: Any) -> Any:  # a log's `True` is no number (it printed as 1); the page's column reads it so too
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    yours = {key: [number(next((lookup(r, key) for r in rows if r.get("step") == k), None)) for k in at]
             for key in SERIES_YOURS}
    index = {s: i for i, s in enumerate(series["steps"])}
    theirs = {key: [series["metrics"][key][index[k]] if k in index else None for k in at]
              for key in SERIES_THEIRS if key in series["metrics"]}
    return {"against": series.get("id"), "source": (series.get("source") or {}).get("url"),
            "settings": series.get("settings"), "gpu": series.get("gpu_note"), "steps": at,
            "yours": yours, "reference": theirs, "verdict": None, "why_no_verdict": SERIES_NO_VERDICT}


def render_compare_series(table: dict[str, Any]) -> str:
    """The table as text: one row per metric, one column per chosen step; '-' where a step has no number."""
    s = table.get("settings") or {}
    head = ["metric"] + [f"step {k}" for k in table["steps"]]
    body = [[f"{key} (yours)"] + ["-" if v is None else f"{v:.4g}" for v in vals] for key, vals in table["yours"].items()]
    body += [[f"{key} (public ref)"] + ["-" if v is None else f"{v:.4g}" for v in vals]
             for key, vals in table["reference"].items()]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lr = s.get("lr")
    if isinstance(lr, (int, float)) and not isinstance(lr, bool):  # as a run file writes it (1e-6), like the page's caption
        lr = re.sub(r"e([+-]?)0*(\d)", lambda m: "e" + m.group(1).replace("+", "") + m.group(2), f"{lr:g}")
    n, g = s.get("samples_per_prompt"), s.get("gpus")
    out = [f"Your steps beside the public run {table['against']}: {s.get('method')}, actor learning rate {lr}, "
           f"{n} sample{'' if n == 1 else 's'} per prompt, {g} GPU{'' if g == 1 else 's'}. {table.get('gpu')}",
           f"Source: {table.get('source')}", ""]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *body]]
    out += ["", "Each side is under its own name: verl's keys are not Miles's. No verdict: "
            + SERIES_NO_VERDICT.removeprefix("no verdict: ") + "."]
    return "\n".join(out)


def _checkout_root() -> str | None:
    """The Miles 101 checkout this file sits in (_ext/miles101/tools/read_run.py), if it does."""
    import os

    root = os.path.dirname(os.path.abspath(__file__))
    for _ in range(3):  # tools/ -> miles101/ -> _ext/ -> the checkout
        root = os.path.dirname(root)
    return root if os.path.isdir(os.path.join(root, "capture", "references")) else None


class LogUnreadable(Exception):
    """A log that is not a regular file, or not text in an encoding read_run knows; says what was tried."""


#: Byte-order marks, longest first (UTF-32's LE mark starts with UTF-16's).
BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def decode_log(raw: bytes) -> str:
    """A log's text: by its byte-order mark (UTF-8, UTF-16 as PowerShell's `>` writes, UTF-32), else UTF-8.

    A UTF-8 log with a few stray bytes (a cut progress bar) is read with them replaced; one that is
    mostly not UTF-8 (or UTF-16 without a mark) is refused with what was tried.
    """
    for bom, codec in BOMS:
        if raw.startswith(bom):
            try:
                return raw[len(bom):].decode(codec)
            except UnicodeDecodeError as e:
                raise LogUnreadable(f"it starts with a {codec.upper()} byte-order mark but byte {e.start + len(bom)} "
                                    f"is not {codec.upper()}; save it again as UTF-8") from None
    nul_odd, nul_even = raw[1::2].count(0), raw[0::2].count(0)
    for codec, nuls, others in (("utf-16-le", nul_odd, nul_even), ("utf-16-be", nul_even, nul_odd)):
        if len(raw) >= 4 and len(raw) % 2 == 0 and nuls > len(raw) // 4 and not others:
            try:  # UTF-16 without a mark: every other byte NUL (ASCII text), the others never
                return raw.decode(codec)
            except UnicodeDecodeError:
                pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    text = raw.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    if b"\x00" not in raw and bad <= max(8, len(raw) // 1000):
        return text
    raise LogUnreadable(f"not text read_run knows: tried UTF-8 ({bad} undecodable byte(s)), a UTF-16/UTF-32 "
                        "byte-order mark (none) and UTF-16 without one; save the log as UTF-8 "
                        "(PowerShell: `| Out-File -Encoding utf8`)")


#: The largest log read_run reads (a Miles driver log of thousands of steps is tens of MB), and the largest run
#: file, launch script or $RUN.args: a bigger input is refused by name, never read into memory.
MAX_LOG_BYTES = 1 << 30
MAX_RUN_BYTES = 1 << 20
#: The largest public series file --against reads (the book's are tens of KB).
MAX_SERIES_BYTES = 16 << 20


def read_regular(path: str, cap: int, what: str = "a saved log file") -> bytes:
    """The bytes of `path`, a regular file of at most `cap` bytes; LogUnreadable (why, and the fix) otherwise.
    Opened without blocking and checked on the open file, so a FIFO or a device is refused, never waited on."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise LogUnreadable(e.strerror or str(e)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
        raise LogUnreadable(f"it is {kind}; give read_run {what}")
    if st.st_size > cap:  # refused by its size, not after reading a gigabyte of it
        os.close(fd)
        raise LogUnreadable(f"it is over {cap >> 20} MiB, the most read_run reads; give it {what} of that size "
                            "or less (e.g. the part you need: `tail -c 500M LOG > part.log`)")
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(cap + 1)
        except OSError as e:
            raise LogUnreadable(e.strerror or str(e)) from None
    if len(raw) > cap:
        raise LogUnreadable(f"it is over {cap >> 20} MiB, the most read_run reads; give it {what} of that size "
                            "or less (e.g. the part you need: `tail -c 500M LOG > part.log`)")
    return raw


def read_log_file(path: str) -> list[str]:
    """The lines of a log file: a regular file only (a FIFO would block) of at most MAX_LOG_BYTES, decoded by
    `decode_log`, any line end."""
    return decode_log(read_regular(path, MAX_LOG_BYTES)).splitlines()  # \n, \r\n and \r all end a line


def base_reader(run_path: str) -> Callable[[str], str | None]:
    """Reads the run file a `base:` names, <id>.yaml beside the --run FILE; None where it is not there or not read."""
    import os

    def read(run_id: str) -> str | None:
        path = os.path.join(os.path.dirname(os.path.abspath(run_path)), f"{run_id}.yaml")
        try:
            return read_regular(path, MAX_RUN_BYTES, "a base run file").decode("utf-8", errors="replace")
        except (LogUnreadable, OSError):
            return None
    return read


def main(argv: list[str] | None = None) -> int:
    """CLI: the table (or JSON), --diagnose or --compare; exit 1 when there is nothing to read."""
    ap = argparse.ArgumentParser(prog="read_run.py", description="Read the first steps of a Miles log.")
    ap.add_argument("log", metavar="LOG", help="a Miles log file (the driver's stdout, e.g. log.txt)")
    ap.add_argument("--steps", type=int, default=10, help="how many rollout steps to read (default 10)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--diagnose", action="store_true",
                      help="match the log against the symptoms of 7.1 and print each entry's check and fix")
    mode.add_argument("--compare", action="store_true",
                      help="put the first steps beside the public references and our GB10 run")
    mode.add_argument("--samples", action="store_true",
                      help="print the sample responses Miles logged for each step, with label and reward")
    ap.add_argument("--against", metavar="SERIES", help="with --compare: a public run's series (capture/series/<id>.json, "
                    "or its id with --root) to put beside your steps, metric by metric, without a verdict")
    ap.add_argument("--at", metavar="STEPS", help="with --against: the steps to show, comma-separated (default: your "
                    "first --steps steps)")
    ap.add_argument("--root", metavar="DIR", help="a Miles 101 checkout to read references and recordings from "
                    "(default: the checkout this file sits in, if any)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--groups", type=int, metavar="N",
                       help="prompt groups per rollout (your --rollout-batch-size), for the share of groups without "
                       "spread; default: the rollout_batch_size line of a Megatron log")
    where.add_argument("--run", metavar="FILE", help="a launch script, Miles 101 run file or 7.1's $RUN.args to read "
                       "--rollout-batch-size from (and, for --diagnose, --train-backend and --use-dynamic-batch-size, read as "
                       "bash reads them; a run file's base: is read from <id>.yaml beside it)")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    if args.groups is not None and args.groups < 1:
        ap.error("--groups must be at least 1 (the --rollout-batch-size of the run)")
    try:
        lines = read_log_file(args.log)
    except LogUnreadable as e:
        print(f"read_run: cannot read {named(args.log)}: {e}", file=sys.stderr)
        return 2
    if args.samples:
        found = samples(lines, args.steps)
        print(json.dumps(found, indent=2) if args.json else render_samples(found))
        return 0
    groups = args.groups
    run_text = None
    if args.run:
        try:
            run_text = read_regular(args.run, MAX_RUN_BYTES, "the run's launch script, run file or $RUN.args").decode(
                "utf-8", errors="replace")
            groups = groups_in_file(run_text, base_reader(args.run))
        except (LogUnreadable, ValueError) as e:
            print(f"read_run: cannot read {named(args.run)}: {e}", file=sys.stderr)
            return 2
        if not groups and not args.diagnose:
            print(f"read_run: {named(args.run)} passes no --rollout-batch-size with a number; pass --groups N instead",
                  file=sys.stderr)
            return 2
        if not passes_arguments(run_text):  # else its settings would read as Miles's defaults
            print(f"read_run: {named(args.run)} passes no argument (no --flag in it): pass the run's launch "
                  "script, run file or 7.1's $RUN.args", file=sys.stderr)
            return 2
    if groups is None:
        groups = groups_in_log(lines)
    rows, asm, report = report_of(lines, args.steps, groups)
    if args.diagnose:
        if not any(ln.strip() for ln in lines):
            print(f"read_run: {named(args.log)} has no text (it is empty or blank): nothing to diagnose. Pass the driver's log "
                  "(what `ray job submit` printed, e.g. the file `tee` wrote).", file=sys.stderr)
            return 1
        settings = settings_of_args(run_text, "run", base_reader(args.run)) if run_text is not None \
            else settings_in_log(lines)
        matches, notes = examine(lines, report, settings)
        if not matches and not notes and not any(MILES_LINE_RE.search(clean(ln)) for ln in lines):
            print(f"read_run: no Miles line in {named(args.log)} (no step, timer, memory or engine line, and no line "
                  "of a 7.1 symptom): is it the driver's log of a Miles run?", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps({"settings": settings, "matches": matches, "notes": notes, "malformed": asm.malformed,
                              "nonfinite": asm.nonfinite}, indent=2))
        else:
            print(render_diagnosis(matches, asm.malformed, asm.nonfinite, settings, notes))
        return 0
    if report is None:
        print(f"read_run: no Miles step lines (perf/rollout/step N: {{...}}) in {named(args.log)}", file=sys.stderr)
        for b in asm.malformed:
            print(f"read_run: line {b['line']} looks like a step line but does not parse: {named(b['text'])}",
                  file=sys.stderr)
        return 1
    if (args.against or args.at) and not args.compare:
        ap.error("--against and --at go with --compare")
    if args.compare and args.against:
        try:
            at = sorted({int(x) for x in args.at.split(",") if x.strip()}) if args.at else \
                sorted({r["step"] for r in rows})[:args.steps]
        except ValueError:
            print(f"read_run: --at {args.at!r}: give step numbers separated by commas, e.g. --at 0,5,9", file=sys.stderr)
            return 2
        try:
            series = load_series(args.against, args.root or _checkout_root())
        except ValueError as e:
            print(f"read_run: {e}", file=sys.stderr)
            return 2
        table = compare_series(rows, series, at)
        print(json.dumps(table, indent=2) if args.json else render_compare_series(table))
        return 0
    if args.compare:
        import os

        root = args.root or _checkout_root()
        refs = load_references(root)
        steps_file = os.path.join(root, "capture", "gpu", "first-grpo", "steps.jsonl") if root else None
        ours, note = None, "pending (not recorded yet)"
        if steps_file and os.path.isfile(steps_file):
            try:
                run_file = os.path.join(root, "capture", "runs", "first-grpo.yaml")
                ours_groups = groups_in_file(read_regular(run_file, MAX_RUN_BYTES, "a run file").decode("utf-8"))
                steps_text = read_regular(steps_file, MAX_LOG_BYTES, "a steps.jsonl").decode("utf-8")
                ours = read_run([json.loads(ln) for ln in steps_text.splitlines() if ln.strip()], args.steps,
                                ours_groups)
                note = f"recorded ({steps_file})"
            except (LogUnreadable, ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
                note = f"unreadable ({steps_file}: {type(e).__name__})"
        elif not root:
            note = "pending (run from a Miles 101 checkout or pass --root to see it)"
        rows_c = compare(report, refs, ours)
        if args.json:
            print(json.dumps({"gb10": note, "signals": rows_c}, indent=2))
        else:
            print(render_compare(rows_c, len(report["steps"]), note))
        return 0
    print(json.dumps(report, indent=2) if args.json else render_with_problems(report))
    return 0


# Miles logs two samples of every training rollout: `First rollout sample: ...` and `Finish rollout: ...`,
# each the prompt and response (newlines written as \\n, cut after the first characters, with the
# cut length said) and the sample's label and reward
# (miles/rollout/inference_rollout/inference_rollout_train.py:128-136, 153-158;
# miles/rollout/generate_utils/sample_utils.py:231-235).
SAMPLE_RE = re.compile(r"(?P<which>First rollout sample|Finish rollout): text_preview=(?P<text>.*), "
                       r"label=(?P<label>.*?), reward_summary=(?P<reward>.*?)\s*$")


def samples(lines: Iterable[str], steps: int) -> list[dict[str, Any]]:
    """The sample lines of the first `steps` rollouts: step (the rollout id), which, line, label, reward, text.

    A sample belongs to the rollout whose rollout-side `perf N:` line comes after it.
    """
    out: list[dict[str, Any]] = []
    step = 0
    for n, raw in enumerate(lines, 1):
        line = clean(raw)
        m = SAMPLE_RE.search(line)
        if m:
            if step < steps:
                out.append({"step": step, "which": "first" if m["which"].startswith("First") else "last",
                            "line": n, "label": m["label"], "reward": m["reward"],
                            "text": m["text"].replace("\\n", "\n")})
            continue
        parsed = parse_line(line)
        if parsed and parsed[0] == "perf_rollout" and parsed[1] is not None:
            step = parsed[1] + 1
    return out


def render_samples(found: list[dict[str, Any]]) -> str:
    """Each sample under a header line: its step, which one, its log line, label and reward."""
    if not found:
        return ("no sample lines (`First rollout sample:` or `Finish rollout:`) in the steps read; "
                "Miles logs them from the training rollout")
    out = []
    for s in found:
        out.append(f"step {s['step']}, {s['which']} sample (line {s['line']}): label={named(s['label'])} "
                   f"reward={named(s['reward'])}")
        out += ["    " + named(ln, " \t") for ln in s["text"].splitlines() or [""]]
    return "\n".join(out)


def render_with_problems(report: dict[str, Any]) -> str:
    """The table, then lines that looked like step lines but did not parse, and nan/inf values."""
    out = [render(report)]
    for b in report.get("malformed", []):
        out.append(f"line {b['line']}: looks like a `{b['kind']} {b['id']}:` line but does not parse")
    for b in report.get("nonfinite", []):
        out.append(f"line {b['line']}: {named(b['key'])} is {b['value']}")
    return "\n".join(out)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `read_run.py LOG --steps 500 | head`: the reader stopped reading, which is no error
        # Python's documented way (library/signal.html, "Note on SIGPIPE"): send what is left to /dev/null, so the
        # interpreter's own flush at exit does not raise again.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except KeyboardInterrupt:  # Ctrl-C on a long log: one line, never a traceback
        print("read_run: interrupted (Ctrl-C): stopped", file=sys.stderr)
        sys.exit(130)
