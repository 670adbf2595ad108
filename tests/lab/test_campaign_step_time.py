"""The campaign's progress line reads recorded step times as numbers of seconds, never a boolean or infinity."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from capture.lab.campaign import recorded_step_time, step_seconds
from capture.lab.progress import clock


@pytest.mark.parametrize(("value", "seconds"), [
    (12.5, 12.5), (30, 30.0), (True, None), (False, None), ("12", None), (0, None), (-3, None),
    (float("inf"), None), (float("nan"), None), (10**5000, None), (1e300, None), (86_401, None), (None, None),
], ids=lambda v: type(v).__name__ if isinstance(v, int) and v > 10**9 else repr(v))
def test_a_step_time_is_a_finite_number_of_seconds_under_a_day(value: object, seconds: float | None) -> None:
    assert step_seconds(value) == seconds


def test_bad_lines_are_left_out_and_named_by_file_and_line(tmp_path: Path) -> None:
    run = tmp_path / "gpu" / "a-run"
    run.mkdir(parents=True)
    lines = [json.dumps({"lab": {"lab/step_interval": 10.0}}), '{"lab": {"lab/step_interval": true}}',
             '{"lab": {"lab/step_interval": Infinity}}', '{"lab": {"lab/step_interval": 1e999}}',
             "[1, 2, 3]", '{"lab": []}', '{"lab": {"lab/step_interval": ' + "9" * 5000 + "}}", "not json",
             json.dumps({"lab": {"lab/step_interval": 20.0}})]
    (run / "steps.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused: list[str] = []
    assert recorded_step_time(tmp_path / "gpu", refused) == 15.0
    assert [r.split("steps.jsonl:")[1].split(":")[0] for r in refused] == ["2", "3", "4", "5", "6", "7", "8"]
    assert "lab/step_interval True is not a step time" in refused[0]
    assert "a JSON list, not an object" in refused[3] and "not JSON" in refused[5] and "not JSON" in refused[6]
    assert all(len(r) < 300 for r in refused)


@pytest.mark.parametrize("seconds", [float("inf"), float("nan"), 1e300, 10**400], ids=["inf", "nan", "1e300", "10**400"])
def test_the_clock_shows_no_absurd_estimate(seconds: float) -> None:
    assert clock(seconds) == "?"
    assert clock(3725) == "1:02:05"


def test_a_refused_step_time_is_printed_once_however_many_runs_follow(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import os

    from capture.lab import campaign

    gpu = tmp_path / "gpu"
    (gpu / "a-run").mkdir(parents=True)
    (gpu / "a-run" / "steps.jsonl").write_text('{"lab": {"lab/step_interval": true}}\n', encoding="utf-8")

    def record_one(run_id, run, argv, env, gpu_dir, display, stopper, per_step, done_all, total, out_file):
        out_file.write_text("record exited 1\n", encoding="utf-8")
        return 1, 0

    monkeypatch.setattr(campaign, "record_one", record_one)
    runs = campaign.load_runs(Path(__file__).resolve().parents[2] / "capture" / "runs")
    out = io.StringIO()
    results = campaign.record_all(sorted(runs)[:3], runs, tmp_path, gpu, [], dict(os.environ),
                                  campaign.Display(out, tty=False), tmp_path)
    assert len(results) == 3
    assert out.getvalue().count("lab/step_interval True is not a step time") == 1, out.getvalue()
