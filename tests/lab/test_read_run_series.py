"""read_run.py --compare --against: a reader's steps beside a public run's series, metric by metric, no verdict."""
from __future__ import annotations

import json
from pathlib import Path

from capture.lab.rehearsal import mileslog as ml
from labutil import in_process
from miles101.plotsvg import sample_rows
from miles101.tools.read_run import SERIES_THEIRS, main

ROOT = Path(__file__).resolve().parents[2]
SERIES = ROOT / "capture" / "series" / "verl-gsm8k-qwen2.5-0.5b-ppo.json"


def _log(tmp_path: Path) -> Path:
    log = tmp_path / "log.txt"
    log.write_text("\n".join(ml.healthy(12)) + "\n")
    return log


def test_the_table_holds_the_public_runs_own_numbers_at_the_pages_steps(tmp_path: Path) -> None:
    """At the steps the page's numbers table shows (the directive samples them with plotsvg.sample_rows), the
    reader's table gives the same value for each metric, value by value."""
    doc = json.loads(SERIES.read_text(encoding="utf-8"))
    page_rows = sample_rows(list(zip(doc["steps"], doc["metrics"]["critic/score/mean"])), 12)
    at = ",".join(str(s) for s, _ in page_rows)
    res = in_process(main, str(_log(tmp_path)), "--compare", "--against", str(SERIES), "--at", at, "--json")
    assert res.returncode == 0, res.stderr
    table = json.loads(res.stdout)
    assert table["steps"] == [s for s, _ in page_rows]
    assert table["reference"]["critic/score/mean"] == [v for _, v in page_rows]
    for key in SERIES_THEIRS:
        index = {s: i for i, s in enumerate(doc["steps"])}
        assert table["reference"][key] == [doc["metrics"][key][index[s]] for s in table["steps"]], key
    assert table["verdict"] is None and "verdicts are given only against this book's own recorded runs" in \
        table["why_no_verdict"]
    assert table["yours"]["rollout/raw_reward"][0] is not None and table["yours"]["rollout/raw_reward"][-1] is None


def test_the_text_table_names_each_side_and_gives_no_verdict(tmp_path: Path) -> None:
    res = in_process(main, str(_log(tmp_path)), "--compare", "--against", str(SERIES), "--at", "0,9")
    assert res.returncode == 0, res.stderr
    assert "rollout/raw_reward (yours)" in res.stdout and "critic/score/mean (public ref)" in res.stdout
    assert "PPO, actor learning rate 1e-6, 1 sample per prompt, 1 GPU." in res.stdout and "does not state the GPU" in res.stdout
    assert " ok " not in res.stdout and "bad" not in res.stdout and "No verdict" in res.stdout


def test_bad_arguments_and_files_are_named(tmp_path: Path) -> None:
    log = str(_log(tmp_path))
    res = in_process(main, log, "--compare", "--against", str(SERIES), "--at", "1,x")
    assert res.returncode == 2 and "--at '1,x'" in res.stderr
    res = in_process(main, log, "--compare", "--against", str(tmp_path / "none.json"))
    assert res.returncode == 2 and "none.json" in res.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"steps": [0, 1], "metrics": {"a": [1.0]}}))
    res = in_process(main, log, "--compare", "--against", str(bad))
    assert res.returncode == 2 and "bad.json: not a series file" in res.stderr
    res = in_process(main, log, "--against", str(SERIES))
    assert res.returncode == 2 and "--against and --at go with --compare" in res.stderr
