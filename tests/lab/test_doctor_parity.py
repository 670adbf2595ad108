"""The page's log doctor and read_run.py give the same answers, line by line, over every fixture log.

The page's JavaScript (_ext/miles101/sphinx_ext/static/log-doctor-core.js) runs under node over the rule
set the build writes (miles101.doctor_rules); read_run.py runs in-process. Both read the 16 public
logs of tests/fixtures/public-logs and synthetic logs: one per symptom of capture/symptoms.json (its
exact string on a line, or a run whose signal is bad), one healthy run, one without any symptom, and
a few that stress the dict reader. Their diagnoses (entry, line, count, text, title, check, fix), their notes
(lines healthy runs print too), the malformed and non-finite lines, and the first-ten-steps table and verdicts must be equal.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from capture.lab import symptoms
from miles101 import doctor_rules
from miles101.tools import read_run as rr

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "tests" / "fixtures" / "public-logs"
CORE = ROOT / "_ext" / "miles101" / "sphinx_ext" / "static" / "log-doctor-core.js"
RUNNER = Path(__file__).with_name("doctor_parity.mjs")
NODE = shutil.which("node")


def python_reading(path: Path, groups: int | None = None, args: str | None = None) -> dict[str, Any]:
    """read_run.py's answer, read as its main() reads a file (--groups N, else the log's own line; the run's
    arguments as the page's pasted list, else Megatron's argument dump)."""
    try:
        lines = rr.read_log_file(str(path))
    except rr.LogUnreadable:
        return {"unreadable": True}
    if groups is None:
        groups = rr.groups_in_log(lines)
    _, asm, report = rr.report_of(lines, 10, groups)
    settings = rr.settings_of_args(args, "pasted") if args else rr.settings_in_log(lines)
    matches, notes = rr.examine(lines, report, settings)
    return {"matches": matches, "notes": notes, "settings": settings, "malformed": asm.malformed,
            "nonfinite": asm.nonfinite, "report": report}


def _norm(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return f"float:{'NaN' if math.isnan(x) else ('Infinity' if x > 0 else '-Infinity')}"
    if isinstance(x, dict):
        return {k: _norm(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_norm(v) for v in x]
    return x


def _row(step: int, reward: float, length: float, trunc: float, zero: float, gap: float, clip: float,
         grad: float, time: float) -> list[str]:
    """One step of a Miles log, in the four lines Miles prints (see read_run.py's docstring)."""
    pre = "[2026-01-01 00:00:00] "
    return [
        f"(RolloutManager pid=1) {pre}metrics.py:89 - perf {step}: {{'perf/rollout_time': 12.5, "
        f"'rollout/response_len/mean': {length!r}, 'rollout/truncated_ratio': {trunc!r}, "
        f"'rollout/zero_std/count_0.0': {round(zero * 8)}, "
        f"'rollout/zero_std/all_zero_percentage': {zero!r}, 'rollout/zero_std/all_one_percentage': 0.0}}",
        f"{pre}log_utils.py:123 - rollout {step}: {{'rollout/raw_reward': {reward!r}}}",
        f"{pre}log_utils.py:542 - step {step}: {{'train/step': {step}, 'train/pg_clipfrac': {clip!r}, "
        f"'train/grad_norm': {grad!r}, 'train/train_rollout_logprob_abs_diff': {gap!r}}}",
        f"{pre}train_metric_utils.py:56 - perf {step}: {{'perf/step_time': {time!r}}}",
    ]


def synthetic(tmp: Path) -> list[Path]:
    """Logs written here: one per symptom, a healthy run, a log with no symptom, odd dicts."""
    out: list[Path] = []

    def write(name: str, lines: list[str]) -> None:
        p = tmp / name
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(p)

    healthy = [ln for s in range(12) for ln in _row(s, 0.2 + s / 50, 300 + s, 0.01, 0.2, 0.01, 0.01, 0.3, 40 + s % 3)]
    write("healthy-run.log", healthy)
    bad = {
        "zero_std": dict(zero=0.95), "truncation": dict(trunc=0.6), "reward": dict(reward=0.0),
        "logprob_gap": dict(gap=0.5), "clip_fraction": dict(clip=0.7), "grad_norm": dict(grad=5.0),
    }
    base = dict(reward=0.3, length=300.0, trunc=0.01, zero=0.2, gap=0.01, clip=0.01, grad=0.3, time=40.0)
    for name, over in bad.items():
        write(f"bad-{name}.log", ["starting"] + [ln for s in range(10) for ln in _row(s, **{**base, **over})])
    write("shrinking.log", [ln for s in range(10) for ln in _row(s, **{**base, "length": 400.0 - 30 * s,
                                                                       "time": 40.0 if s != 6 else 400.0})])
    for sym in symptoms.load()["symptoms"]:
        for i, g in enumerate(sym["grep"]):
            text = g.replace(" ... ", " (something) ")
            write(f"sym-{sym['id']}-{i}.log", ["booting", f"\x1b[36m(pid=7)\x1b[0m [2026] x.py:1 - {text}",
                                              "more", f"again {text} [repeated 3x across cluster]"])
    for sym in symptoms.load()["symptoms"]:
        if sym.get("after_step"):  # the same strings before the first step (no match) and after it
            for i, g in enumerate(sym["grep"]):
                text = g.replace(" ... ", " (something) ")
                write(f"after-{sym['id']}-{i}.log", [f"early {text}", *_row(0, **base), *_row(1, **base), f"late {text}",
                                                     f"later {text}"])
    oom = "torch.OutOfMemoryError: CUDA out of memory"  # in step 0's training: after perf 0, before `step 0:`
    write("oom-in-step-0.log", [*_row(0, **base)[:2], oom, *_row(0, **base)[2:], *_row(1, **base), f"late {oom}"])
    t = "[2026] timer.py:31 - Timer"
    write("timer-open.log", [*_row(0, **base), f"{t} train_wait start", f"{t} update_weights start",
                             f"{t} update_weights end (elapsed: 1.0s)", f"{t} actor_train start", "GET /metrics 200"])
    write("timer-closed.log", [f"{t} actor_train start", f"{t} actor_train end (elapsed: 2.0s)", f"{t} train_wait start"])
    write("timer-nested.log", [f"{t} save_model start", f"{t} inner start", f"{t} save_model end (elapsed: 1s)"])
    write("no-symptom.log", ["Hello", "nothing to see", "step one is fine"])
    text = "\n".join(healthy + ["Server process terminated unexpectedly.", "caf\u00e9 \u2713"]) + "\n"
    variants = {  # the encodings read_run.decode_log reads, and what it refuses (tests/lab/test_read_run_input.py)
        "utf8-bom": b"\xef\xbb\xbf" + text.encode(), "utf16le-bom": b"\xff\xfe" + text.replace("\n", "\r\n").encode("utf-16-le"),
        "utf16be-bom": b"\xfe\xff" + text.encode("utf-16-be"), "utf32": text.encode("utf-32"),
        "utf32be-bom": b"\x00\x00\xfe\xff" + text.encode("utf-32-be"), "utf16le-nomark": text.encode("utf-16-le"),
        "stray-byte": text.encode() + b"progress \xff\n", "binary": bytes(range(256)) * 64,
        "nuls": b"\x00\x01\x02\xff" * 1000, "bom-then-bad": b"\xff\xfe" + text.encode("utf-16-le") + b"\x00\xd8",
        "latin1": ("caf\u00e9 " * 50 + "\n").encode("latin-1") * 40, "empty": b"",
    }
    for name, raw in variants.items():
        p = tmp / f"enc-{name}.log"
        p.write_bytes(raw)
        out.append(p)
    for name, end in (("crlf", "\r\n"), ("cr", "\r")):  # line ends of other systems read as the same lines
        p = tmp / f"healthy-{name}.log"
        p.write_bytes(end.join(healthy + ["Server process terminated unexpectedly."]).encode("utf-8") + end.encode())
        out.append(p)
    int_reward = [ln.replace("'rollout/zero_std/count_0.0'", "'rollout/zero_std/count_0'")
                    .replace("'rollout/zero_std/all_zero_percentage': 0.95", "'rollout/zero_std/all_zero_percentage': 0.0")
                  for s in range(10) for ln in _row(s, **{**base, "zero": 0.95})]
    write("int-reward-no-groups.log", int_reward)
    write("int-reward-megatron.log", ["  rollout_batch_size .............................. 8", *int_reward])
    write("int-reward-other.log", [ln.replace("'rollout/zero_std/count_0'", "'rollout/zero_std/count_0.5': 1, 'rollout/zero_std/count_0'")
                                   for ln in int_reward])
    write("clip-at-the-red-flag.log", [ln for s in range(10) for ln in _row(s, **{**base, "clip": 0.5})])
    write("dapo-reward-no-groups.log", [ln.replace("'rollout/zero_std/count_0.0'", "'rollout/zero_std/count_-1.0'")
                                        .replace("'rollout/zero_std/all_zero_percentage': 0.95",
                                                 "'rollout/zero_std/all_zero_percentage': 0.0")
                                        for s in range(10) for ln in _row(s, **{**base, "zero": 0.95})])
    write("odd-dicts.log", [
        "rollout 0: {'rollout/raw_reward': np.float64(0.5), 'x': tensor(1.0, device='cuda:0'), 'y': nan}",
        "step 0: {'train/grad_norm': inf, 'train/step': 0, 'z': -inf, 'w': float('nan')}",
        "perf 0: {'perf/step_time': 1_000.5, 'k': (1, 2), 'l': [True, None], 'm': {'n': \"q\\'s\"}}",
        "rollout 1: {'rollout/raw_reward': 0.5, 'cut': 'abc",
        "eval 1: {'eval/x': 1} trailing",
        "rollout 2: {'rollout/raw_reward': ...}",
        "critic-step 3: {'train/grad_norm': 2.0}",
        "perf 2: {'perf/rollout_time': 3, 'rollout/response_len/mean': 2.5e2}",
        "[Rank 0] Memory-Usage after offload train (cleared before print): {'total_GB': 121.7, 'free_GB': 80, 'x': 1}",
        "Launch HttpServerEngineAdapter at: 127.0.0.1:30000",
        "rollout 3: {'rollout/raw_reward': 0.25, 1: 2, 'nested': {'a': [1, (2, 3)]}}",
        "step 9: {'train/step': 9, 'train/grad_norm': 0.5}",
    ])
    return out


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("doctor") / "rules.json"
    p.write_text(json.dumps(doctor_rules.rules(ROOT)), encoding="utf-8")
    return p


def node_readings(rules: Path, logs: list[Path], groups: int | None = None, chunk: int | None = None,
                  args: str | None = None) -> dict[str, Any]:
    env = {**os.environ, **({"CHUNK": str(chunk)} if chunk else {}), **({"ARGS": args} if args else {})}
    res = subprocess.run([NODE, str(RUNNER), str(CORE), str(rules), "-" if groups is None else str(groups), *map(str, logs)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _compare(logs: list[Path], rules: Path, groups: int | None = None, chunk: int | None = None,
             args: str | None = None) -> None:
    js = node_readings(rules, logs, groups, chunk, args)
    for log in logs:
        py = _norm(python_reading(log, groups, args))
        got = js[str(log)]
        assert bool(got["unreadable"]) == bool(py.get("unreadable")), (log.name, got["unreadable"])
        if py.get("unreadable"):
            continue
        for part in ("matches", "notes", "settings", "malformed", "nonfinite", "report"):
            assert got[part] == py[part], (log.name, part, got[part], py[part])


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_public_logs_same_answers(rules_file: Path) -> None:
    logs = sorted(PUBLIC.glob("*.log"))
    assert len(logs) >= 18
    _compare(logs, rules_file)
    _compare(logs, rules_file, chunk=7)  # lines and UTF-8 sequences cut between chunks read the same


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_ranked_answers_same(rules_file: Path, tmp_path: Path) -> None:
    """The ranking, the causes and the fixes (tests/lab/test_doctor_ranking.py's logs and the public ones), with the
    run's arguments unknown, from Megatron's dump, and pasted (an FSDP run without dynamic batching, and one with it)."""
    from test_doctor_ranking import FSDP_ARGS, ranking_logs

    logs = ranking_logs(tmp_path) + sorted(PUBLIC.glob("*.log"))
    _compare(logs, rules_file)
    _compare(logs, rules_file, args=FSDP_ARGS)
    _compare(logs, rules_file, args="--use-dynamic-batch-size --max-tokens-per-gpu 8192")
    js = node_readings(rules_file, logs[:1], args=FSDP_ARGS)
    assert js[str(logs[0])]["settings"]["from"] == "pasted"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_synthetic_logs_same_answers(rules_file: Path, tmp_path: Path) -> None:
    logs = synthetic(tmp_path)
    _compare(logs, rules_file)
    _compare(logs, rules_file, groups=8)
    _compare(logs, rules_file, groups=3)  # fewer groups than counted: unknown
    _compare(logs, rules_file, chunk=5)  # every encoding with its characters cut between chunks
    py = {p.name: python_reading(p) for p in logs}
    # the synthetic logs are not vacuous: every symptom is found, and a clean log finds none
    found = {m["id"] for r in py.values() if "matches" in r for m in r["matches"] + r["notes"]}
    unreadable = sorted(n for n, r in py.items() if r.get("unreadable"))
    assert unreadable == ["enc-binary.log", "enc-bom-then-bad.log", "enc-latin1.log", "enc-nuls.log"], unreadable
    for name in ("utf8-bom", "utf16le-bom", "utf16be-bom", "utf32", "utf32be-bom", "utf16le-nomark", "stray-byte"):
        assert py[f"enc-{name}.log"]["report"]["steps"] == py["healthy-run.log"]["report"]["steps"], name
    assert {s["id"] for s in symptoms.load()["symptoms"] if s["grep"] or s.get("signal")} <= found
    assert py["no-symptom.log"]["matches"] == [] and py["no-symptom.log"]["report"] is None
    late = [m for m in py["after-mem-oom-mid-run-0.log"]["matches"] if m["id"] == "mem-oom-mid-run"]
    assert [(m["line"], m["count"]) for m in late] == [(10, 2)]
    # an OOM while step 0 trains (the rollout's perf 0 line came first) is not "after the first steps ran"
    in_step_0 = [(m["line"], m["count"]) for m in py["oom-in-step-0.log"]["matches"] if m["id"] == "mem-oom-mid-run"]
    assert in_step_0 == [(10, 1)], in_step_0  # line 3 (inside step 0) is not counted
    assert [(m["id"], m["line"]) for m in py["timer-open.log"]["matches"]] == [("engine-open-timer", 8)]
    # the count of an open-timer match is the timers still open, and the reader's text says so
    open_text = rr.render_diagnosis(py["timer-open.log"]["matches"], [], [])
    assert "line 8 (a timer still open):" in open_text, open_text  # train_wait is on the entry's ignore list
    two = rr.render_diagnosis([{**py["timer-open.log"]["matches"][0], "count": 2}], [], [])
    assert "line 8 (the last of 2 timers still open):" in two and "seen" not in two, two
    assert py["timer-closed.log"]["matches"] == []
    assert [(m["line"], m["count"]) for m in py["timer-nested.log"]["matches"]] == [(2, 1)]
    assert py["odd-dicts.log"]["malformed"] and py["odd-dicts.log"]["nonfinite"]
    zero = {n: py[n]["report"]["verdicts"]["zero_std"]["verdict"] for n in
            ("int-reward-no-groups.log", "int-reward-megatron.log", "bad-zero_std.log", "healthy-run.log")}
    assert zero == {"int-reward-no-groups.log": "unknown", "int-reward-megatron.log": "bad", "bad-zero_std.log": "bad",
                    "healthy-run.log": "ok"}


def test_rules_come_from_the_readers_sources() -> None:
    r = doctor_rules.rules(ROOT)
    assert r["symptoms"] == symptoms.load()["symptoms"] == json.loads(rr.SYMPTOMS_JSON)["symptoms"]
    assert r["cutoffs"] == rr.CUTOFFS
    assert [s["name"] for s in r["signals"]] == [s[0] for s in rr.SIGNALS]
    assert "(?P<" not in json.dumps(r["patterns"])


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_corpus_logs_same_answers(rules_file: Path, tmp_path: Path) -> None:
    """Every excerpt of the corpus of public threads (both sets: this compares the two doctors, it ranks nothing),
    read whole and in small chunks."""
    from doctor_corpus import SETS, load_set

    logs = []
    for name in SETS:
        for case in load_set(name)["cases"]:
            p = tmp_path / f"{name}-{case['id']}.log"
            p.write_text(case["excerpt"] + "\n", encoding="utf-8")
            logs.append(p)
    assert len(logs) >= 70
    _compare(logs, rules_file)
    _compare(logs, rules_file, chunk=11)


ARGS_RUNNER = Path(__file__).with_name("doctor_args.mjs")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_argument_reader_same_case_by_case(rules_file: Path) -> None:
    """read_run's argument reader and the page's port give the same words, refusal, settings and note for every
    case of tests/lab/test_doctor_args.py (a commented-out line, comment text, base:, $VAR, a JSON string holding
    a flag, quoted flags, --flag=value, continuation lines, text with no flag) and a few odd texts."""
    from test_doctor_args import CASES, NO_FLAG

    texts = [c[1] for c in CASES] + NO_FLAG + [
        "", "\\", "'", '"', "$", "${", "$(", "`", "a\\\\b", "x\u2028args:\n  - --train-backend\n  - fsdp",
        "args:\n- --train-backend\n- \"fs\\\"dp\"\n- 'it''s'\nbase: \"first-grpo\"  # c\n",
        "--train-backend \U0001f600 --use-dynamic-batch-size", "--train-backend $(" + "\U0001f600" * 50 + ")",
        # here-documents (their bodies are data), one-line flow lists, JSON strings holding flags (issue 60)
        "cat <<'EOF' > a\n--train-backend fsdp\nEOF\npython t.py --use-dynamic-batch-size",
        "cat <<-EOF\n\t--train-backend fsdp\n\tEOF\n--train-backend megatron", "x <<E1 <<E2\n--a\nE1\n--b\nE2\n--c",
        "cat << EOF", "cat <<", "cat <<<'--train-backend fsdp'", "a<<\"E\"\n--x\nE\n--train-backend=fsdp",
        'args: ["--train-backend", "fsdp"]', "args: [--a, 'it''s', \"x\\\"y\", ]  # c", "args: [--a, \"b", "args: []",
        "args: [--train-backend, fsdp\n  - --use-dynamic-batch-size", '{"cmd": "--train-backend fsdp"}', "-- --=x --9",
        (PUBLIC.parent.parent.parent / "capture" / "runs" / "agent-multi-turn.yaml").read_text(encoding="utf-8"),
    ]
    res = subprocess.run([NODE, str(ARGS_RUNNER), str(CORE), str(rules_file)], input=json.dumps(texts),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    js = json.loads(res.stdout)
    assert len(js) == len(texts)
    for text, got in zip(texts, js):
        settings = rr.settings_of_args(text, "pasted")
        want = {"words": [list(w) for w in rr.shell_words(text)], "passes": rr.passes_arguments(text),
                "settings": settings, "note": rr.settings_note(settings)}
        assert got == want, text


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_unknown_backend_fixes_same(rules_file: Path, tmp_path: Path) -> None:
    """The causes' fixes with the backend unknown (a base not read, a shell variable) are the same on both sides."""
    from test_doctor_ranking import ranking_logs

    logs = ranking_logs(tmp_path) + sorted(PUBLIC.glob("*.log"))
    _compare(logs, rules_file, args="base: first-grpo\nargs:\n  - --colocate\n")
    _compare(logs, rules_file, args="python3 train.py --train-backend $BACKEND --use-dynamic-batch-size")
