"""read_run.py --samples prints the sample responses Miles logs, each under the step it belongs to."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from miles101.tools.read_run import render_samples, samples

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "(RolloutManager pid=7) [2026-01-01 00:00:00 rollout_manager] inference_rollout_train.py:130 - "
LOG = [
    PREFIX + r"First rollout sample: text_preview=['q0']Think.\n\boxed{4}, label=4, reward_summary=1",
    PREFIX + r"Finish rollout: text_preview=['q1']No idea, label=7, reward_summary=0",
    "(RolloutManager pid=7) metrics.py:89 - perf 0: {'perf/rollout_time': 1.0, 'rollout/response_len/mean': 3.0}",
    "(FSDPTrainRayActor pid=8) log_utils.py:123 - rollout 0: {'rollout/raw_reward': 0.5}",
    PREFIX + r"First rollout sample: text_preview=['q2']a, label=x, y, reward_summary=0...<truncated chars=9>",
    "(RolloutManager pid=7) metrics.py:89 - perf 1: {'perf/rollout_time': 1.0}",
    PREFIX + r"First rollout sample: text_preview=['q3']b, label=1, reward_summary=1",
]


def test_each_sample_is_read_under_its_step() -> None:
    got = samples(LOG, steps=10)
    assert [(s["step"], s["which"], s["line"]) for s in got] == [(0, "first", 1), (0, "last", 2), (1, "first", 5),
                                                                  (2, "first", 7)]
    assert got[0]["text"] == "['q0']Think.\n\\boxed{4}" and got[0]["label"] == "4" and got[0]["reward"] == "1"
    assert got[2]["label"] == "x, y"  # a label with a comma stays whole
    text = render_samples(got)
    assert text.startswith("step 0, first sample (line 1): label=4 reward=1\n    ['q0']Think.\n    \\boxed{4}")


def test_steps_limits_what_is_printed() -> None:
    assert [s["step"] for s in samples(LOG, steps=1)] == [0, 0]


def test_the_cli_prints_samples_and_says_when_there_are_none(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("\n".join(LOG) + "\n", encoding="utf-8")
    tool = ROOT / "_ext" / "miles101" / "tools" / "read_run.py"
    res = subprocess.run([sys.executable, str(tool), str(log), "--samples", "--json"], capture_output=True, text=True)
    assert res.returncode == 0 and len(json.loads(res.stdout)) == 4
    log.write_text(LOG[2] + "\n", encoding="utf-8")
    res = subprocess.run([sys.executable, str(tool), str(log), "--samples"], capture_output=True, text=True)
    assert "no sample lines" in res.stdout
