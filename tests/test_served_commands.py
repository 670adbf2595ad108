"""A run file's values stay data in the launch a page shows and the site serves (issue 51, item 1).

Each hostile run below holds `$s$(touch …)`, backticks, a newline and a quote in its args, env (and so
the `--runtime-env-json` token), entry and title. Its `{run-command}` text and its `_commands/<id>.sh`
run under bash with a stand-in `ray` and `tee` on PATH (tests/fixtures/argv-recorder): no marker file
may appear, and each recorded argv must equal the launch the recorder runs (preflight.job_submit,
miles_args, log_path). The book's own runs keep their rendering (tests/lab/test_page_procedure.py).
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from buildutil import ROOT
from miles101.runfiles import launch_script, log_path, miles_args, ray_start, script_comment
from miles101.sphinx_ext.runs import command_file
from miles101.tools.preflight import job_submit

pytestmark = pytest.mark.unit

RECORDER = ROOT / "tests" / "fixtures" / "argv-recorder" / "record-argv"


def hostile(marker: str, seeds: list[int]) -> dict:
    """A run whose every free-text value tries to run `touch <marker>-…` in the reader's shell."""
    bad = f"$s$(touch {marker}-sub)`touch {marker}-tick`"
    return {"id": "hostile", "title": f"Hostile\ntouch {marker}-title\rtouch {marker}-cr",
            "image": "img", "entry": ["python3", f"train.py{bad}"], "seeds": seeds,
            "env": {"EVIL": f"{bad}\ntouch {marker}-envline", "QUOTE": "a'b\"c\\"},
            "args": ["--prompt-data", f"/data/{bad}.jsonl", "--note", f"x\ntouch {marker}-argline", "--flag-q", "it's",
                     "--empty", "", "--dollar-brace", "${s}x$s_y"]}


def run_bash(text: str, cwd: Path) -> list[dict]:
    """Run `text` under bash in `cwd` with the recorder as `ray` and `tee`; the argv each received (a pipe's two
    sides start in either order)."""
    bindir = cwd / "bin"
    bindir.mkdir(exist_ok=True)
    for name in ("ray", "tee"):
        if not (bindir / name).exists():
            (bindir / name).symlink_to(RECORDER)
    log = cwd / "argv.jsonl"
    log.unlink(missing_ok=True)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "ARGV_LOG": str(log), "HOME": str(cwd)}
    done = subprocess.run(["bash", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [json.loads(ln) for ln in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def expected(run: dict, start_ray: bool) -> list[dict]:
    """The argv of each command the launch runs, seed by seed: what the recorder runs (preflight)."""
    out = [{"prog": "ray", "argv": ray_start(run)[1:]}] if start_ray else []
    for seed in run["seeds"] if len(run["seeds"]) > 1 else [run["seeds"][0]]:
        out.append({"prog": "ray", "argv": [*job_submit(run, seed), *miles_args(run, seed)][1:]})
        out.append({"prog": "tee", "argv": [log_path(run, seed)]})
    return out


@pytest.mark.parametrize("seeds", [[7], [1, 2]], ids=["one seed", "a loop over seeds"])
@pytest.mark.parametrize("served", [False, True], ids=["page block", "served script"])
def test_hostile_values_stay_data(tmp_path: Path, seeds: list[int], served: bool) -> None:
    marker = "pwned"
    run = hostile(marker, seeds)
    start_ray = served  # the served script of a one-GPU run starts no Ray; show both shapes anyway
    text = command_file(run) if served else launch_script(run, start_ray=start_ray)
    argv = run_bash(text, tmp_path)
    assert not sorted(p.name for p in tmp_path.rglob(f"{marker}*")), f"a value ran as a command:\n{text}"
    assert sorted(argv, key=json.dumps) == sorted(expected(run, start_ray and not served), key=json.dumps), text


def test_the_seed_expands_only_where_the_launch_puts_it() -> None:
    text = launch_script(hostile("m", [1, 2]))
    assert '--submission-id "hostile-$s"' in text and '--seed "$s"' in text and 'tee "/root/logs/hostile-$s.log"' in text
    assert text.count('"$s"') == 1  # --seed; every other $s is inside a single-quoted value or the id/log tokens


def test_a_title_stays_a_comment() -> None:
    script = command_file(hostile("m", [1]))
    assert [ln for ln in script.splitlines()[:3] if not ln.startswith("#")] == []
    assert script_comment("a\nb\rc\x1bd\u2028e") == "a b c d e"


def test_the_recorder_sees_a_live_substitution(tmp_path: Path) -> None:
    """The check can fail: the same values double-quoted (the old _quote) run the marker command."""
    run_bash('ray "$(touch pwned-old)"', tmp_path)
    assert (tmp_path / "pwned-old").exists()


def test_the_preflight_table_quotes_no_control_character(monkeypatch: pytest.MonkeyPatch) -> None:
    """nvidia-smi's escape bytes (colour, a window title, a carriage return) reach no line of the table."""
    import subprocess as sp

    import miles101.tools.preflight as preflight

    said = "GPU 0: \x1b[31mNVIDIA GB10\x1b[0m\x1b]0;owned\x07\rFAKE LINE\n\x08"
    monkeypatch.setattr(preflight, "run_probe", lambda cmd, timeout=20: sp.CompletedProcess(cmd, 0, said, ""))
    table = preflight.table([preflight.check_gpu(), preflight.Check("gpu", False, said, fix=said)], 0.1)
    assert not [c for c in table if ord(c) < 32 and c != "\n" or 0x7f <= ord(c) <= 0x9f], repr(table)
    assert len(table.splitlines()) == 5 and "NVIDIA GB10" in table
