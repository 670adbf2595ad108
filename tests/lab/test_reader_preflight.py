"""The reader's preflight: one stdlib-only file that the book serves as is and the lab imports.

Run here as a reader runs it: the served file and watchdog.py copied alone into an empty directory,
against the stand-in docker and nvidia-smi.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import miles101.tools.preflight as module
from capture.lab.rehearsal import mileslog as ml
from labutil import ROOT

SERVED = re.compile(r"\{download\}`preflight\.py <(?P<target>[^>]+)>`")


def served_paths() -> list[Path]:
    """Every file a page serves under the name preflight.py (Sphinx's download role copies it as is)."""
    out = []
    for page in sorted((ROOT / "sections").glob("*.md")):
        for m in SERVED.finditer(page.read_text(encoding="utf-8")):
            out.append((page.parent / m["target"]).resolve())
    return out


def test_the_page_serves_the_module_the_lab_imports():
    """The pages serve preflight.py inside the tools' one download, byte for byte the module the lab imports; a page
    that still serves a loose copy serves the same file."""
    from miles101 import tools_archive

    assert tools_archive.members()["preflight.py"] == Path(module.__file__).read_bytes()
    assert set(served_paths()) <= {Path(module.__file__).resolve()}


def test_the_served_file_imports_only_the_standard_library_watchdog_and_miles_tree():
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert mods - {"watchdog", "miles_tree"} <= set(sys.stdlib_module_names) | {"__future__"}, mods
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    siblings = sorted(n.module or a.name for n in relative for a in n.names)
    assert siblings == ["miles_tree", "watchdog"]  # the sibling files, in the lab's package


def reader_dir(tmp_path: Path, with_watchdog: bool = True) -> Path:
    d = tmp_path / "miles-logs"
    d.mkdir()
    shutil.copy(module.__file__, d / "preflight.py")
    if with_watchdog:
        shutil.copy(Path(module.__file__).with_name("watchdog.py"), d / "watchdog.py")
    return d


def reader_preflight(lab, d: Path, *args: str) -> tuple[int, dict, str]:
    env = {k: v for k, v in lab.env.items() if k != "PYTHONPATH"}  # the reader has no capture package
    res = subprocess.run([sys.executable, "-E", "-s", str(d / "preflight.py"), "--json", "--min-free-mem-gb", "0",
                          "--min-free-disk-gb", "0", "--arch", module.arch_name(module.platform.machine()),
                          "--disk", str(d), *args], env=env, cwd=d, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in res.stderr, res.stderr
    return res.returncode, (json.loads(res.stdout) if res.stdout.startswith("{") else {}), res.stderr


def model_and_data(lab) -> list[str]:
    (lab.model / "config.json").write_text("{}")
    data = lab.tmp / "data"
    data.mkdir(exist_ok=True)
    (data / "train.parquet").write_text("")
    return ["--image", "radixark/miles:latest", "--mount", f"{lab.model}:/root/models/test",
            "--mount", f"{data}:/root/data", "--model", "/root/models/test", "--data", "/root/data/train.parquet",
            "--attention-backend", "flashinfer"]


def test_a_reader_runs_the_downloaded_file_with_flags(lab, tmp_path):
    lab.scenario([{"line": "miles101-preflight generated: ' Paris.'"}])
    rc, report, err = reader_preflight(lab, reader_dir(tmp_path), *model_and_data(lab))
    assert rc == 0, (report, err)
    names = [c["name"] for c in report["checks"]]
    assert "leftovers" not in names  # the recorder's own check stays in the lab
    assert "Paris" in next(c for c in report["checks"] if c["name"] == "generation")["message"]
    train = next(c for c in report["checks"] if c["name"] == "train step")
    assert train["status"] == "skip" and "smoke run" in train["message"]
    gen = json.loads(next(lab.state.glob("miles101-preflight-gen-*.argv.json")).read_text())
    assert "'attention_backend': 'flashinfer'" in gen[-1] and f"{lab.model}:/root/models/test" in gen


def test_settings_json_with_the_run_runs_the_train_step_through_the_watchdog_beside_it(lab, tmp_path):
    lab.scenario([{"line": "miles101-preflight generated: ' Paris.'"}, *[{"line": x} for x in ml.healthy(2)]])
    d = reader_dir(tmp_path)
    run = {"id": "mine", "entry": ["python3", "train.py"], "image": "radixark/miles:latest",
           "args": ["--colocate", "--num-rollout", "48"], "env": {"no_proxy": "127.0.0.1,localhost"}}
    (d / "run.json").write_text(json.dumps(run))
    rc, report, err = reader_preflight(lab, d, "--settings", str(d / "run.json"), *model_and_data(lab)[2:])
    assert rc == 0, (report, err)
    assert "2 steps finished" in next(c for c in report["checks"] if c["name"] == "train step")["message"]
    train = json.loads(next(lab.state.glob("miles101-preflight-train-*.argv.json")).read_text())
    assert "--num-rollout 2" in train[-1] and "--submission-id mine-preflight" in train[-1]


def test_without_watchdog_beside_it_the_train_step_says_what_to_download(lab, tmp_path):
    lab.scenario([{"line": "miles101-preflight generated: ' Paris.'"}])
    d = reader_dir(tmp_path, with_watchdog=False)
    (d / "run.json").write_text(json.dumps({"id": "mine", "entry": ["python3", "train.py"], "args": []}))
    rc, report, _ = reader_preflight(lab, d, "--settings", str(d / "run.json"), *model_and_data(lab))
    train = next(c for c in report["checks"] if c["name"] == "train step")
    assert rc == 1 and train["status"] == "fail" and "watchdog.py" in train["fix"]


def test_bad_settings_exit_2_naming_the_problem(lab, tmp_path):
    d = reader_dir(tmp_path)
    (d / "bad.json").write_text("{not json")
    for args, words in ((["--model", "/m"], "no image"), (["--image", "x"], "no model"),
                        (["--image", "x", "--model", "/m", "--mount", "nocolon"], "HOST:CONTAINER"),
                        (["--settings", str(d / "bad.json")], "bad.json: not JSON")):
        rc, _, err = reader_preflight(lab, d, *args)
        assert rc == 2 and words in err, (args, err)


@pytest.mark.parametrize("mount", [5, {"host": "/a", "container": "rel"}, {"host": 1, "container": "/c"}])
def test_a_bad_mount_in_settings_is_named_by_its_json_path(lab, tmp_path, mount):
    """A mount that is no {host, container} object crashed check_mounts, and the crash's one Check was then
    spread as a list (TypeError: Value after * must be an iterable)."""
    d = reader_dir(tmp_path)
    (d / "run.json").write_text(json.dumps({"image": "x", "args": ["--hf-checkpoint", "/m"], "mounts": [mount]}))
    rc, _, err = reader_preflight(lab, d, "--settings", str(d / "run.json"), "--skip-smoke")
    assert rc == 2 and f"run.json: mounts[0] is {json.dumps(mount)}: write" in err, err


def test_a_crashing_list_check_is_one_failed_check_in_the_list(monkeypatch):
    def crash(run):
        raise KeyError("host")

    monkeypatch.setattr(module, "check_mounts", crash)
    got = module.listed(module.timed(lambda: module.check_mounts({})))
    assert len(got) == 1 and not got[0].ok and "the check itself failed: KeyError" in got[0].message


def test_the_session_file_gives_ray_what_stands_above_its_ray_start_line():
    text = ("# The Miles 101 session\nexport RAY_memory_usage_threshold='0.98'\n"
            "RAY_memory_monitor_refresh_ms=0 ray start --head --num-gpus 1\nexport TRITON_PTXAS_PATH=/late\n")
    assert module.session_exports(text) == {"RAY_memory_usage_threshold": "0.98", "RAY_memory_monitor_refresh_ms": "0"}
    assert module.session_exports("ray start --head\nexport RAY_memory_usage_threshold=0.98\n") == {}


def _args(**kw) -> "argparse.Namespace":
    import argparse

    base = dict(settings=None, image="radixark/miles:latest", mount=[], env=[], model="/models/m", data=None,
                attention_backend=None, session=None)
    return argparse.Namespace(**{**base, **kw})


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "huge"])
@pytest.mark.parametrize("option", ["session", "settings"])
def test_a_session_or_settings_file_that_is_not_a_small_regular_file_is_refused_at_once(tmp_path, kind, option):
    """A FIFO, /dev/zero, a directory or a 200 MB file: refused by name within a second, never read whole."""
    import os
    import threading

    path = tmp_path / "input"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.truncate(200 * 2**20)  # sparse: 200 MB long, nothing written
    target = "/dev/zero" if kind == "dev-zero" else str(path)
    got: list[BaseException | None] = []

    def call() -> None:
        try:
            module.settings(_args(**{option: target}))
            got.append(None)
        except ValueError as e:
            got.append(e)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), f"--{option} {kind} was waited on"
    assert isinstance(got[0], ValueError) and "cannot read" in str(got[0]) and target in str(got[0])
    assert {"fifo": "a FIFO", "dev-zero": "a device", "directory": "a directory", "huge": "over 1024 KiB"}[kind] \
        in str(got[0])


def test_the_table_escapes_what_a_probe_printed():
    """A probe's text with an ANSI escape, a newline and a bidi override stays on its own row, escaped."""
    check = module.Check("docker", False, "daemon said \x1b[2J\nFAIL: all good \u202e", "fix \x07it")
    text = module.table([check], 1.0)
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "all good \\u202e" in text and len(text.splitlines()) == 4


@pytest.mark.parametrize(("value", "ok"), [
    ("0.98", True), ("1", True), ("1.0", True), (".5", True), ("5.", False), ("9.8e-1", True), ("+0.5", True),
    (" 0.98", True),  # the stream skips white space before the number
    ("0.98 ", False), ("0.9_8", False), ("０.９８", False), ("0.98\n", False), ("1e-320", False), ("1e-45", False),
    ("0", False), ("-0.5", False), ("1.0000001", False), ("1.00000001", True), ("inf", False), ("nan", False),
    ("0x1p-1", False), ("", False), ("0.98abc", False), ("1e39", False), ("true", False), ("0.9.8", False),
    ("0." + "0" * 5000 + "1", False), ("0." + "9" * 5000, True),
])
def test_the_ray_threshold_is_read_as_the_raylet_reads_a_float(value: str, ok: bool):
    """ConvertValue<float> (ray_config.h:27-35): an istringstream >> float that must reach the end; the value as a
    32-bit float in (0, 1]. Python's float() took `0.9_8`, full-width digits and a trailing space, and 1e-320."""
    problem = module.ray_setting_problem("RAY_memory_usage_threshold", value)
    assert (problem is None) == ok, (value, problem)
    if not ok:
        assert problem.startswith(f"RAY_memory_usage_threshold={value!r} is ")


@pytest.mark.parametrize(("value", "ok"), [("250", True), ("0", True), (" 250", True), ("+250", True),
                                           ("250.0", False), ("1e3", False), ("250 ", False), ("-1", False),
                                           ("2_50", False), (str(2**64), False), ("true", False)])
def test_the_refresh_ms_is_read_as_a_whole_number(value: str, ok: bool):
    assert (module.ray_setting_problem("RAY_memory_monitor_refresh_ms", value) is None) == ok, value


def test_a_session_file_bash_cannot_read_is_named_with_bashs_words():
    """bash stops a file at a quote nothing closes (`unexpected EOF`): `ray start` below it never runs. What bash
    reads fine (a quote closed on a later line, an apostrophe in a here-document) is not flagged."""
    said = module.session_unparsed("export A='x\nexport B=1\nray start --head\n")
    assert said.startswith("line 1, bash says: ") and "matching" in said, said
    assert module.session_unparsed("export A='x\ny'\nray start --head\n") is None
    assert module.session_unparsed("cat <<EOF\nit's\nEOF\nray start --head\n") is None
    assert "syntax error" in module.session_unparsed("if true; then\nray start --head\n")
    check = module.check_ray_monitor({"session_unparsed": "line 2, bash says: 'x'"}, "img")
    assert not check.ok and "line 2, bash says" in check.message and "ray start" in check.message
    assert "close the quote" in check.fix


def test_without_bash_an_unclosed_quote_is_found_by_shell_words(monkeypatch):
    monkeypatch.setattr(module.shutil, "which", lambda name: None)
    assert module.session_unparsed("export A='x\nexport B=1\nray start\n") == (
        "line 1: a quote opens that no later line closes")
    assert module.session_unparsed("export A=1\nray start\n") is None
