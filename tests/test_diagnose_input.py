"""`read_run.py --diagnose` on a log it cannot diagnose says which, and exits 1 as the default mode does (issue 51 §5)."""
from __future__ import annotations

from pathlib import Path

import pytest

from buildutil import ROOT
from miles101.tools import read_run

pytestmark = pytest.mark.unit

LOGS = ROOT / "tests" / "fixtures" / "public-logs"


@pytest.mark.parametrize(("text", "says"), [("", "has no text"), ("\n \n\n", "has no text"),
                                            ("hello\nnothing of Miles here\n", "no Miles line")])
def test_nothing_to_diagnose_exits_1_and_says_which(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                                    says: str) -> None:
    log = tmp_path / "log.txt"
    log.write_text(text, encoding="utf-8")
    assert read_run.main([str(log), "--diagnose"]) == 1
    err = capsys.readouterr().err
    assert says in err and str(log) in err, err


@pytest.mark.parametrize("name", ["ray-30312-task-oom.log", "prorl-40-step-lines-only.log"])
def test_a_log_of_a_run_is_still_diagnosed(capsys: pytest.CaptureFixture[str], name: str) -> None:
    """A Ray log with a symptom's line but no step line, and a log of step lines with no symptom, exit 0."""
    assert read_run.main([str(LOGS / name), "--diagnose"]) == 0
    assert "no Miles line" not in capsys.readouterr().err
