"""Every command a fix hint names exists: each `python3 capture/...` command runs with --help and lists
the options the hint uses; each `python3 dev.py X` runs with --help; each `tox -e X` is an environment
tox itself resolves; each `python3 read_run.py ...` the run reader and capture/symptoms.json print
runs with --help and lists its options."""
from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*sorted((ROOT / "miles101").rglob("*.py")), *sorted((ROOT / "capture").rglob("*.py")), ROOT / "dev.py",
           ROOT / "capture" / "symptoms.json", ROOT / "README.md", ROOT / "AUTHORING.md"]
COMMAND = re.compile(r"python3 (capture/[\w/]+\.py|dev\.py)((?: +[^\s`'\"\\]+)*)")
TOX = re.compile(r"tox -e (\w+)")
SUBCOMMANDS = {"capture/run.py": set(re.findall(r'argv\[:1\] == \["([\w-]+)"\]', (ROOT / "capture" / "run.py").read_text()))}


def hinted() -> dict[tuple[str, str, tuple[str, ...]], str]:
    """(script, sub-command, options) → where it is first hinted."""
    found: dict[tuple[str, str, tuple[str, ...]], str] = {}
    for path in SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in COMMAND.finditer(line):
                words = [w.strip("[]().,;:") for w in m[2].split()]
                sub = words[0] if words and words[0] in SUBCOMMANDS.get(m[1], {"docs", "test", "serve", "check", "bench", "pdf", "epub"}) else ""
                options = tuple(sorted({w.split("=")[0] for w in words if w.startswith("--")}))
                found.setdefault((m[1], sub, options), f"{path.relative_to(ROOT)}:{n}")
    return found


HINTS = hinted()
#: `python3 read_run.py ...` (the run reader, capture/lab/read_run.py, which readers download on its own).
READ_RUN = re.compile(r"python3 (?:\S*/)?read_run\.py([^|;&\n]*)")


def read_run_hints() -> dict[str, tuple[str, ...]]:
    """where → options, for each `python3 read_run.py` command in the sources."""
    found: dict[str, tuple[str, ...]] = {}
    for path in SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in READ_RUN.finditer(line):
                found[f"{path.relative_to(ROOT)}:{n}"] = tuple(sorted(set(re.findall(r"(?<![\w-])--[a-z][\w-]*", m[1]))))
    return found


READ_RUN_HINTS = read_run_hints()


def test_hints_are_found() -> None:
    assert ("capture/run.py", "record", ("--rederive",)) in HINTS
    assert len(HINTS) > 10


@pytest.mark.parametrize("hint", sorted(k for k in HINTS if k[0] != "dev.py"), ids=lambda k: " ".join([k[0], k[1], *k[2]]))
def test_hinted_capture_command_exists(hint: tuple[str, str, tuple[str, ...]]) -> None:
    script, sub, options = hint
    cmd = [sys.executable, str(ROOT / script), *([sub] if sub else []), "--help"]
    if script == "capture/run.py" and not sub and "--check" in options:
        cmd.insert(2, "--check")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, f"{HINTS[hint]}: {' '.join(cmd[1:])} failed:\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr
    missing = [o for o in options if o not in done.stdout and o != "--check"]
    assert not missing, f"{HINTS[hint]}: {script} {sub} has no option {missing} (its --help does not list it)"


def test_hinted_dev_commands_exist() -> None:
    """Each hinted `python3 dev.py X` (pdf and epub among them) answers `X --help`, installing nothing."""
    hinted_dev = {sub: where for (script, sub, _), where in HINTS.items() if script == "dev.py"}
    assert {"pdf", "epub", "docs", "check"} <= set(hinted_dev), sorted(hinted_dev)
    for sub, where in sorted(hinted_dev.items()):
        done = subprocess.run([sys.executable, str(ROOT / "dev.py"), sub, "--help"], capture_output=True, text=True,
                              cwd=ROOT, timeout=60)
        assert done.returncode == 0 and f"python3 dev.py {sub} " in done.stdout, \
            f"{where}: dev.py has no command {sub!r}:\n{done.stdout}{done.stderr}"
        assert "+ " not in done.stdout, f"dev.py {sub} --help ran something:\n{done.stdout}"
    done = subprocess.run([sys.executable, str(ROOT / "dev.py"), "nosuch", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2  # a command that does not exist says so


def test_hinted_tox_environments_exist() -> None:
    """tox itself resolves every hinted environment (tox -e pdf among them) and finds commands in it."""
    hinted_envs: dict[str, str] = {}
    for path in SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for env in TOX.findall(line):
                hinted_envs.setdefault(env, f"{path.relative_to(ROOT)}:{n}")
    assert {"pdf", "capture"} <= set(hinted_envs), sorted(hinted_envs)
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    envs = {s.removeprefix("testenv:") for s in tox.sections()}
    for env, where in hinted_envs.items():
        assert env in envs, f"{where}: tox.ini has no environment {env!r}"
    done = subprocess.run([sys.executable, "-m", "tox", "config", "-e", ",".join(sorted(hinted_envs)), "-k", "commands"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for env in hinted_envs:
        block = done.stdout.split(f"[testenv:{env}]", 1)[1].split("[testenv:", 1)[0]
        assert re.search(r"commands =\s*\S", block), f"tox -e {env} runs nothing:\n{block}"


def test_hinted_read_run_commands_exist() -> None:
    """The run reader's own hints and capture/symptoms.json's checks name options read_run.py has."""
    assert READ_RUN_HINTS, "no `python3 read_run.py` hint found"
    assert any("symptoms.json" in where for where in READ_RUN_HINTS), READ_RUN_HINTS
    done = subprocess.run([sys.executable, str(ROOT / "capture" / "lab" / "read_run.py"), "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    for where, options in READ_RUN_HINTS.items():
        missing = [o for o in options if o not in done.stdout]
        assert not missing, f"{where}: read_run.py has no option {missing} (its --help does not list it)"


def test_rederive_rewrites_values_from_steps(tmp_path: Path) -> None:
    """`record <id> --rederive` makes the values.json that --check compares against."""
    import json
    import shutil

    from miles101.validate import validate_capture

    book = tmp_path / "book"
    shutil.copytree(ROOT / "tests" / "roots" / "test-book", book)
    values = book / "capture" / "gpu" / "tiny-recorded" / "values.json"
    doc = json.loads(values.read_text())
    doc["values"]["step_time"]["value"] = 1.0
    values.write_text(json.dumps(doc))
    assert any("step_time is 1.0 but steps.jsonl gives 12.345" in p.message for p in validate_capture(book).problems)
    done = subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "record", "tiny-recorded", "--rederive",
                           "--runs-dir", str(book / "capture" / "runs"), "--gpu-dir", str(book / "capture" / "gpu")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert validate_capture(book).problems == []
