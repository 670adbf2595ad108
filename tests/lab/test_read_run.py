"""read_run.py on a healthy log and on one with zero reward and a large log-prob gap."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from capture.lab.rehearsal import mileslog as ml
from labutil import in_process
from miles101.tools.read_run import CUTOFFS, judge_clipfrac, main, parse_line, parse_log

SCRIPT = Path(__file__).resolve().parents[2] / "_ext" / "miles101" / "tools" / "read_run.py"


def read(tmp_path: Path, lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """read_run.py's main over these lines, in this process (labutil.in_process); its start as a script is
    test_no_steps_and_missing_file's, and a log that could hang it is tests/lab/test_read_run_input.py's."""
    log = tmp_path / "log.txt"
    log.write_text("\n".join(lines) + "\n")
    return in_process(main, str(log), *args)


def test_healthy_log_reads_ok(tmp_path):
    res = read(tmp_path, ml.healthy(12), "--json", "--groups", "32")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert len(report["steps"]) == 10 and report["steps"][0]["step"] == 0
    assert report["steps"][0]["reward"] == 0.4 and report["steps"][0]["zero_std"] == 8 / 32
    assert {k: v["verdict"] for k, v in report["verdicts"].items()} == {
        "reward": "ok", "response_length": "ok", "truncation": "ok", "zero_std": "ok", "logprob_gap": "ok",
        "clip_fraction": "ok", "grad_norm": "ok", "step_time": "ok"}


def test_integer_reward_without_group_count_is_unknown_never_ok(tmp_path):
    # --rm-type math: count_0/count_1, shares 0 (metrics.py:183-194). 30 of 32 groups lack spread.
    lines = ml.healthy(4, zero=20, one=10)
    assert "'rollout/zero_std/count_0': 20" in lines[4] and "'rollout/zero_std/all_zero_percentage': 0.0" in lines[4]
    res = read(tmp_path, lines)
    assert res.returncode == 0, res.stderr
    table, verdicts = res.stdout.split("\n\n")
    assert "30 of ?" in table.splitlines()[1]
    zero = next(ln for ln in verdicts.splitlines() if ln.startswith("zero_std"))
    assert zero.split()[1] == "unknown" and "30, 30, 30, 30" in zero and "--groups N" in zero


def test_integer_reward_with_group_count_from_option_run_file_or_megatron_dump(tmp_path):
    lines = ml.healthy(4, zero=20, one=10)
    verdict = lambda res: json.loads(res.stdout)["verdicts"]["zero_std"]  # noqa: E731
    assert verdict(read(tmp_path, lines, "--json", "--groups", "32"))["verdict"] == "bad"  # 94 %
    assert verdict(read(tmp_path, lines, "--json", "--groups", "64"))["verdict"] == "ok"  # 47 %, below 50 %
    run = tmp_path / "first.yaml"
    run.write_text('args:\n  - --rollout-batch-size\n  - "32"\n')
    assert verdict(read(tmp_path, lines, "--json", "--run", str(run)))["verdict"] == "bad"
    dump = ["(MegatronTrainRayActor pid=3) ------------------------ arguments ------------------------",
            "(MegatronTrainRayActor pid=3)   rollout_batch_size .............................. 32"]
    res = read(tmp_path, dump + lines, "--json")
    assert verdict(res)["verdict"] == "bad" and json.loads(res.stdout)["groups"] == 32
    assert "more than the number of groups" in verdict(read(tmp_path, lines, "--json", "--groups", "16"))["reason"]
    run.write_text("args: []\n")
    res = read(tmp_path, lines, "--run", str(run))
    assert res.returncode == 2 and "no --rollout-batch-size" in res.stderr


def test_integer_reward_with_no_group_without_spread_is_ok(tmp_path):
    # No count key at all: no group lacked spread, whatever the reward type.
    res = read(tmp_path, ml.healthy(4, zero=0, one=0), "--json")
    assert json.loads(res.stdout)["verdicts"]["zero_std"]["verdict"] == "ok"


def test_float_reward_is_judged_from_the_shares(tmp_path):
    lines = ml.healthy(4, zero=20, one=10, float_groups=32)
    assert "'rollout/zero_std/count_0.0': 20" in lines[4]
    report = json.loads(read(tmp_path, lines, "--json").stdout)
    assert report["steps"][0]["zero_std"] == 30 / 32 and report["verdicts"]["zero_std"]["verdict"] == "bad"


def _dapo(lines: list[str]) -> list[str]:
    """dapo's reward is -1 or 1: its all-wrong groups log count_-1.0, which all_zero_percentage (0.0) does not count."""
    return [ln.replace("'rollout/zero_std/count_0.0': 20", "'rollout/zero_std/count_-1.0': 20")
              .replace("'rollout/zero_std/all_zero_percentage': 0.625", "'rollout/zero_std/all_zero_percentage': 0.0")
            for ln in lines]


def test_a_count_the_shares_do_not_cover_wins_over_them(tmp_path):
    lines = _dapo(ml.healthy(4, zero=20, one=10, float_groups=32))
    assert "'rollout/zero_std/count_-1.0': 20" in lines[4] and "all_zero_percentage': 0.0" in lines[4]
    report = json.loads(read(tmp_path, lines, "--json").stdout)  # the shares alone read 31 %: "ok"
    zero = report["verdicts"]["zero_std"]
    assert zero["verdict"] == "unknown" and "not count_-1.0" in zero["reason"] and "--groups N" in zero["reason"]
    assert report["steps"][0]["zero_std"] is None and report["steps"][0]["zero_std_groups"] == 30
    report = json.loads(read(tmp_path, lines, "--json", "--groups", "32").stdout)
    assert report["steps"][0]["zero_std"] == 30 / 32 and report["verdicts"]["zero_std"]["verdict"] == "bad"


def test_clip_fraction_is_bad_above_the_guides_red_flag_not_at_it():
    # Miles's guide: healthy below 0.2, a red flag above 0.5 (docs/user-guide/monitoring.md:47).
    watch, bad = CUTOFFS["reader.clipfrac_watch"], CUTOFFS["reader.clipfrac_bad"]
    assert judge_clipfrac([0.0, watch / 2])[0] == "ok"
    assert judge_clipfrac([0.0, watch])[0] == "watch"
    assert judge_clipfrac([0.0, bad])[0] == "watch"
    assert judge_clipfrac([0.0, bad + 0.01])[0] == "bad"


def test_zero_reward_and_large_gap_are_bad(tmp_path):
    res = read(tmp_path, ml.healthy(4, reward=0.0, gap=0.6), "--steps", "3")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    table, verdicts = out.split("\n\n")
    assert len(table.splitlines()) == 4  # header + 3 steps
    lines = {ln.split()[0]: ln for ln in verdicts.splitlines()}
    assert lines["reward"].split()[1] == "bad" and "no sample earned a reward" in lines["reward"]
    assert lines["logprob_gap"].split()[1] == "bad"
    assert lines["clip_fraction"].split()[1] == "ok"


def test_no_steps_and_missing_file(tmp_path):
    assert read(tmp_path, ["hello"]).returncode == 1
    res = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nope")], capture_output=True, text=True)
    assert res.returncode == 2 and "cannot read" in res.stderr


def test_parser_reads_miles_reprs():
    kind, rid, data = parse_line("x - step 7: {'train/grad_norm': nan, 'train/loss': np.float64(0.5), 'train/step': 7}")
    assert (kind, rid, data["train/loss"], data["train/step"]) == ("train", 7, 0.5, 7)
    assert data["train/grad_norm"] != data["train/grad_norm"]  # nan
    assert parse_line("x - critic-step 3: {'train/critic-loss': 1.0}") is None
    assert parse_line(ml.rollout_perf(2))[0] == "perf_rollout" and parse_line(ml.trainer_perf(2))[0] == "perf_train"
    kind, _, mem = parse_line(ml.memory_line("after wake_up model", 6.5))
    assert kind == "memory" and mem["memory/after_wake_up_model/used_GB"] == 6.5


def test_several_optimizer_steps_per_rollout():
    lines = [ml.rollout_perf(0), ml.trainer_rollout(0), ml.train_step(0), ml.train_step(1), ml.trainer_perf(0),
             ml.rollout_perf(1), ml.trainer_rollout(1), ml.train_step(2), ml.train_step(2), ml.train_step(3),
             ml.trainer_perf(1)]
    rows = parse_log(lines)
    assert [(r["step"], r["train_steps"], r["train"]["train/step"]) for r in rows] == [(0, 2, 1), (1, 2, 3)]


def test_every_grep_pattern_passes_the_prefilter_and_is_found() -> None:
    """diagnose skips a line without any pattern's first part (GREP_ANY): each pattern, written out, still matches."""
    from miles101.tools import read_run as rr

    for sym in rr.SYMPTOMS:
        if sym.get("after_step"):
            continue
        for g in sym["grep"]:
            line = "[ts] " + g.replace(" ... ", " 12 GiB ") + " tail"
            assert rr.GREP_ANY.search(line), g
            found, notes = rr.examine(["boot", line])  # one line two entries of a family match shows once, the other "also"
            if sym.get("healthy_too"):  # a line healthy runs print too: a note, never an entry
                assert [n["id"] for n in notes] == [sym["id"]] and found == [], g
                continue
            assert sym["id"] in [m["id"] for m in found] + [a["id"] for m in found for a in m.get("also_matched", [])], g
    assert not rr.GREP_ANY.search("perf 0: {'perf/rollout_time': 1.5}")


def test_settings_in_log_stops_reading_once_the_dump_gave_every_name() -> None:
    """Megatron's argument dump sits at the log's top: the rest of a long log is not read again for it."""
    from miles101.tools import read_run as rr

    def lines():
        yield "  rollout_batch_size ...................... 32"
        yield "  train_backend ........................... megatron"
        yield "  use_dynamic_batch_size .................. True"
        raise AssertionError("read past the dump")

    got = rr.settings_in_log(lines())
    assert got == {"from": "dump", "line": 1, "backend": "megatron", "dynamic_batch": "on"}
