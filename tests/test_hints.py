"""Every command a fix hint names exists: each `python3 capture/...` command runs with --help and lists
the options the hint uses; each `python3 dev.py X` and `tox -e X` names a real command or environment."""
from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*sorted((ROOT / "miles101").rglob("*.py")), *sorted((ROOT / "capture").rglob("*.py")), ROOT / "dev.py"]
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
    listed = subprocess.run([sys.executable, str(ROOT / "dev.py"), "help"], capture_output=True, text=True, cwd=ROOT)
    assert listed.returncode == 0
    commands = set(re.findall(r"python3 dev\.py (\w+)", listed.stdout))
    for script, sub, _ in HINTS:
        if script == "dev.py":
            assert sub in commands, f"{HINTS[(script, sub, _)]}: dev.py has no command {sub!r}"


def test_hinted_tox_environments_exist() -> None:
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    envs = {s.removeprefix("testenv:") for s in tox.sections()}
    for path in SOURCES:
        for env in TOX.findall(path.read_text(encoding="utf-8")):
            assert env in envs, f"{path.relative_to(ROOT)}: tox has no environment {env!r}"


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
