"""The rehearsal (capture/run.py rehearse): every measured slot a page cites fills from a Miles-shaped log.

The first test is the CI gate (CI runs every marker): a page that cites a value whose key no recording can hold fails it.
The first two tests are marked `slow` (the full suite runs them; `-m unit` does not): each is the
author's whole campaign end to end in processes (a copy of the project, the preflight, the recorder
against stand-in docker for each run, the re-derivation and `--check` of the copy), 30 s for every
run and 5 s for one. The rest test the campaign's parts in this process, and stay `unit`.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from capture.lab import campaign
from miles101.catalog import Catalog
from miles101.tools.read_run import parse_line
from capture.lab.rehearsal import runlog
from capture.lab.rehearsal.rehearse import COPIED
from capture.lab.store import UNFINISHED

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "capture" / "runs"
PUBLIC = ROOT / "tests" / "fixtures" / "public-logs"
LAST = re.compile(r"^rehearsal: (\d+)/(\d+) measured slots filled$")


def rehearse(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "rehearse", "--no-build", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.slow  # the whole campaign end to end (see the module's docstring)
def test_the_rehearsal_fills_every_measured_slot_the_pages_cite():
    gpu = ROOT / "capture" / "gpu"
    before = sorted(gpu.rglob("*")) if gpu.exists() else None
    res = rehearse()
    lines = res.stdout.strip().splitlines()
    m = LAST.match(lines[-1])
    assert m, res.stdout[-3000:] + res.stderr[-3000:]
    pending = [ln for ln in lines if re.match(r"  pending [\w-]+\.\w+ \(", ln)]
    failed = [ln for ln in lines if ": failed (" in ln or "read_run --diagnose" in ln]
    assert m[1] == m[2] and not pending, "\n".join(failed + pending)
    assert int(m[2]) >= 90  # every slot of every page, not a handful
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert (sorted(gpu.rglob("*")) if gpu.exists() else None) == before  # nothing reached capture/gpu/
    summary = lines[lines.index("rehearsal: summary") + 1:]
    recorded = [ln for ln in summary if ln.endswith("steps)") and ": recorded (" in ln]
    apart = [ln for ln in summary if ": apart (" in ln]
    assert recorded and len(recorded) + len(apart) == len(list(RUNS.glob("*.yaml")))


@pytest.mark.slow  # the whole campaign end to end (see the module's docstring)
def test_a_key_miles_never_writes_stays_pending_and_a_spark_exempt_run_is_counted_apart(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, project / name, ignore=shutil.ignore_patterns("gpu", "__pycache__"))
        elif src.is_file():
            shutil.copy2(src, project / name)
    dapo = project / "capture" / "runs" / "recipe-dapo.yaml"
    dapo.write_text(dapo.read_text().replace("drop_zero_std_0\n", "drop_zero_std_0.0\n"))  # the old, float form
    tis = project / "capture" / "runs" / "speed-tis.yaml"
    tis.write_text(tis.read_text() + "record: {spark: false, why: another machine's run (test)}\n")
    res = rehearse("recipe-dapo", "--project", str(project))
    out = res.stdout
    assert res.returncode == 1
    assert re.search(r"pending recipe-dapo\.drop_all_wrong_first10 .*key never logged: "
                     r"rollout/dynamic_filter/drop_zero_std_0\.0", out), out[-3000:]
    assert "pending recipe-dapo.raw_reward_last" not in out  # its other slots filled
    assert "pending first-grpo.step_time (" in out and "no valid recording" in out  # not rehearsed: pending
    apart = [ln for ln in out.splitlines() if "not recorded on the Spark, not counted" in ln]
    assert len(apart) == 1 and "speed-tis." in apart[0] and "another machine's run (test)" in apart[0]
    assert "pending speed-tis." not in out
    assert "speed-tis: apart" in out


def test_integer_reward_keys_are_formed_as_miles_forms_them():
    assert runlog.zero_std_key(0) == "rollout/zero_std/count_0"
    assert runlog.zero_std_key(1.0) == "rollout/zero_std/count_1.0"  # a float reward keeps its .0
    assert runlog.drop_key(1) == "rollout/dynamic_filter/drop_zero_std_1"
    run = yaml.safe_load((RUNS / "first-grpo.yaml").read_text())
    keys = runlog.logged_keys(runlog.run_log(run))
    assert {"rollout/zero_std/count_0", "rollout/zero_std/count_1"} <= keys
    assert not any(k.endswith(".0") for k in keys)
    # metrics.py:193-194 look up "0.0" and "1.0": with an int reward both shares stay 0.
    rows = [parse_line(ln) for ln in runlog.run_log(run)]
    shares = [r[2]["rollout/zero_std/all_zero_percentage"] for r in rows if r and r[0] == "perf_rollout"]
    assert shares and set(shares) == {0.0}


def test_the_miles_source_still_forms_the_keys_the_writer_imitates():
    miles = ROOT.parent / ".mirror" / "radixark+miles" / "repo"
    if not miles.exists():
        pytest.skip("no Miles git dir beside the project")
    show = subprocess.run(["git", "-C", str(miles), "show", "HEAD:miles/ray/rollout/metrics.py"],
                          capture_output=True, text=True, check=True).stdout
    assert "interesting_rewards = [str(round(g[0].get_reward_value(args), 1)) for g in interesting_sample_groups]" in show


@pytest.mark.parametrize("path", sorted(RUNS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_key_the_writer_forms_is_one_miles_logs(path):
    cat = Catalog.load(ROOT / "capture" / "miles" / "flags.json", ROOT / "capture" / "miles" / "metrics.json")
    keys = runlog.logged_keys(runlog.run_log(yaml.safe_load(path.read_text())))
    assert runlog.unknown_keys(keys, cat.metric_keys, cat.metric_patterns) == []


def test_each_line_shape_matches_the_public_log_it_was_checked_against():
    run = yaml.safe_load((RUNS / "speed-tis.yaml").read_text())
    ours: dict[str, set[str]] = {}
    for ln in runlog.run_log(run):
        parsed = parse_line(ln)
        if parsed:
            ours.setdefault(parsed[0], set()).update(parsed[2])
    for kind, name in runlog.SHAPES.items():
        text = (PUBLIC / name).read_text(encoding="utf-8")
        theirs: set[str] = set()
        for ln in text.splitlines():
            parsed = parse_line(ln)
            if parsed and parsed[0] == kind:
                theirs |= set(parsed[2])
        assert theirs, (kind, name)
        # Their reward was an int too (count_0, count_1): the same keys as ours.
        counts = {k for k in theirs if k.startswith("rollout/zero_std/count_")}
        assert counts <= ours[kind], (name, sorted(counts))
        # Keys of their line we do not write: a second param group's lr and --use-kl-loss's key.
        missing = theirs - ours[kind] - {"train/lr-pg_1", "train/kl_loss"}
        assert not missing, (kind, name, sorted(missing))


def _make_attempt(gpu: Path, name: str, status: str) -> Path:
    d = gpu / name
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"status": status, "reason": UNFINISHED}))
    return d


def test_a_resumed_campaign_keeps_valid_recordings_and_names_what_it_sets_aside(tmp_path, capsys):
    root = tmp_path / "project"
    shutil.copytree(RUNS, root / "capture" / "runs")
    gpu = root / "capture" / "gpu"
    _make_attempt(gpu, "first-grpo", "valid")
    _make_attempt(gpu, ".tmp-recipe-dapo-20261204T101010Z", "failed")
    _make_attempt(gpu, "speed-tis", "failed")
    heat = _make_attempt(gpu / "_attempts", "weight-update-20261204T090000Z", "failed")
    (heat / "run.json").write_text(json.dumps({"status": "failed", "reason": "GPU at 93 °C, at or above the stop threshold 92 °C"}))
    display = campaign.Display(sys.stderr, tty=False)
    todo, skipped = campaign.plan(root, gpu, None, display)
    err = capsys.readouterr().err
    assert ("first-grpo", "skipped") in [(r.run_id, r.state) for r in skipped]
    assert "first-grpo" not in todo and "recipe-dapo" in todo and "speed-tis" in todo
    assert f"recipe-dapo: set aside .tmp-recipe-dapo-20261204T101010Z: {UNFINISHED}" in err
    assert "speed-tis: set aside speed-tis/: its run.json does not say valid" in err
    assert ("weight-update: set aside _attempts/weight-update-20261204T090000Z (the last attempt, kept as failed: "
            "GPU at 93 °C, at or above the stop threshold 92 °C)") in err


def test_the_order_puts_the_front_page_and_part_1_first_and_the_longest_last():
    runs = campaign.load_runs(RUNS)
    order = campaign.order(runs)
    early = [i for i in order if any(s == "front" or s.startswith("1.") for s in runs[i]["sections"])]
    assert order[:len(early)] == early and "first-grpo" in early
    rest = [campaign.planned_steps(runs[i]) for i in order[len(early):]]
    assert rest == sorted(rest) and order[-1] == "seed-repeats"  # 3 seeds × 48 steps


def test_plain_progress_prints_a_line_per_step_with_the_estimate_and_the_heat_pause():
    import io

    out = io.StringIO()
    d = campaign.Display(out, tty=False)
    d.start_run("first-grpo", 48)
    d.update("first-grpo", 3, 48, 3, 30.0, 450.0, "")
    d.update("first-grpo", 3, 48, 3, 31.0, 449.0, "")  # nothing new: no line
    d.update("first-grpo", 4, 48, 4, 40.0, 440.0, "heat guard: GPU at 86 °C (pause at 85): container paused")
    lines = out.getvalue().splitlines()
    assert lines == ["campaign: recording first-grpo (48 steps)",
                     "campaign: first-grpo: step 3 of 48, elapsed 0:00:30, estimate left 0:07:30",
                     "campaign: first-grpo: step 4 of 48, elapsed 0:00:40, estimate left 0:07:20 · heat guard: "
                     "GPU at 86 °C (pause at 85): container paused"]


def test_the_stop_file_stops_the_campaign_before_the_next_run(tmp_path, capsys):
    gpu = tmp_path / "capture" / "gpu"
    gpu.mkdir(parents=True)
    (gpu / campaign.STOP_FILE).touch()
    runs = campaign.load_runs(RUNS)
    display = campaign.Display(sys.stderr, tty=False)
    results = campaign.record_all(["first-grpo", "speed-tis"], runs, tmp_path, gpu, [], dict(os.environ),
                                  display, tmp_path)
    assert [(r.run_id, r.state) for r in results] == [("first-grpo", "not started"), ("speed-tis", "not started")]
    assert not (gpu / campaign.STOP_FILE).exists()
    assert "stopping after the run in progress" in capsys.readouterr().err


def test_a_failed_run_is_summarised_with_the_71_entry_its_log_points_at():
    found = campaign.diagnose(PUBLIC / "slime-1542-403-forbidden.log")
    assert found and found[0].startswith("7.1 ") and "403 Forbidden" in found[0]
    lines, _ = campaign.summary([campaign.Result("first-grpo", "failed", "the container exited with code 1",
                                                 found)], ROOT)
    assert "  first-grpo: failed (the container exited with code 1)" in lines
    assert any(ln.startswith("      read_run --diagnose: 7.1 ") for ln in lines)
    assert lines[-1].startswith("campaign: ") and lines[-1].endswith(" measured slots filled")
