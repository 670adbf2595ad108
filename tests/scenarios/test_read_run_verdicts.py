"""Every read_run command on a page gives a verdict for every signal its run logs: run on the
Miles-shaped log of the run it reads (capture/lab/rehearsal/runlog.py), no signal reads `unknown`."""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from capture.lab.rehearsal import runlog
from capture.lab.docker import procedure
from readerpath import ROOT, read_run_calls
from test_page_procedure import CATALOG, RUNS
from miles101.runcheck import load_run
from miles101 import tools_archive

CALLS = [(page, line) for page, line in read_run_calls() if "--samples" not in line]


def setup(tmp: Path, line: str) -> tuple[str, dict[str, str]]:
    """The log the line reads, written where the line looks; (the line to run here, its environment)."""
    logs = tmp / "logs"
    logs.mkdir()
    shutil.copy(ROOT / "_ext" / "miles101" / "tools" / "read_run.py", logs / "read_run.py")
    (logs / tools_archive.NAME).write_bytes(tools_archive.archive_bytes())  # the tools as the book serves them
    here = line.replace("~/miles-logs/", f"{logs}/").replace("/root/logs/", f"{logs}/")
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LOG": f"{logs}/first-grpo.log", "RUN": "first-grpo",
           "s": "1234"}
    words = shlex.split(here.replace("$LOG", env["LOG"]).replace("$s", env["s"]))
    log = Path(words[next(i for i, w in enumerate(words) if w in ("read_run", "read_run.py") or w.endswith("/read_run.py")) + 1])
    stem = log.stem
    run_id, seed = (stem.rsplit("-", 1)[0], int(stem.rsplit("-", 1)[1])) if stem.startswith("seed-repeats") else (stem, None)
    run = load_run(RUNS / f"{run_id}.yaml", CATALOG)
    log.write_text("\n".join(runlog.run_log(run, seed)) + "\n")
    _, submit = procedure(run, seed or (run.get("seeds") or [None])[0])
    entry = " ".join(submit[submit.index("--") + 1:])  # what Ray holds as the entrypoint (7.1's $RUN.args)
    (logs / f"{run_id}.args").write_text(entry.replace(" --", "\n--") + "\n")
    return here, env


def verdicts(tmp: Path, line: str) -> dict[str, str]:
    here, env = setup(tmp, line)
    words = shlex.split(here)
    judged = here.replace(" --diagnose", " --json") if "--diagnose" in words else here
    res = subprocess.run(["bash", "-c", judged], env=env, cwd=tmp, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    if ">" in words:
        out = (tmp / shlex.split(judged.replace("$s", env["s"]))[-1]).read_text()
    report = json.loads(out) if "--json" in judged else None
    if report is not None:
        return {k: v["verdict"] for k, v in report["verdicts"].items()}
    return {ln.split()[0]: ln.split()[1] for ln in out.splitlines()
            if len(ln.split()) > 1 and ln.split()[1] in ("ok", "watch", "bad", "unknown", "n/a")}


PARAMS = [pytest.param(page, line, id=f"{page}:{i}") for i, (page, line) in enumerate(CALLS)]


@pytest.mark.parametrize("page,line", PARAMS)
def test_every_signal_gets_a_verdict(page: str, line: str, tmp_path: Path) -> None:
    got = verdicts(tmp_path, line)
    assert "zero_std" in got, (page, line, got)
    assert not [k for k, v in got.items() if v == "unknown"], (page, line, got)


def test_without_a_group_count_the_zero_std_verdict_is_unknown(tmp_path: Path) -> None:
    """The check can fail: the same read without --groups leaves the groups without spread unjudged."""
    got = verdicts(tmp_path, "python3 ~/miles-logs/read_run.py ~/miles-logs/first-grpo.log")
    assert got["zero_std"] == "unknown"
