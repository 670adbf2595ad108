"""Hostile input on the tools' newer surfaces (issue 60): the one download, its `{tools-download}` block, the
preflight's session-file reading, the watchdog's deleted-log following and miles_tree's `docker pull`.

Each case ends in one line naming the cause and the fix, or in the right answer: never a traceback, a hang, or a
copyable line that runs something other than what it says."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from miles101 import tools_archive
from miles101.sphinx_ext import tools_download
from miles101.tools import miles_tree, preflight
from miles101.tools.watchdog import LogFollower, LogUnreadable

pytestmark = pytest.mark.unit


def _archive(tmp_path: Path, drop: str | None = None) -> Path:
    """The archive, less the member `drop`."""
    out = tmp_path / tools_archive.NAME
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in tools_archive.members().items():
            if name != drop:
                zf.writestr(name, data)
    return out


def test_an_archive_missing_its_tool_says_so_and_runs_no_file_of_the_same_name(tmp_path: Path) -> None:
    pyz = _archive(tmp_path, drop="read_run.py")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    planted = "import pathlib; pathlib.Path('PLANTED').write_text('ran')\n"
    (cwd / "read_run.py").write_text(planted)
    res = subprocess.run([sys.executable, str(pyz), "read_run", "--help"], cwd=cwd, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(cwd)})
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "holds no read_run.py" in res.stderr and "fetch" in res.stderr
    assert not (cwd / "PLANTED").exists()


@pytest.mark.parametrize("argv", [["pre\nflight"], ["../x"], ["\x1b[31mFAIL\u202e"], ["x"] * 10000])
def test_an_odd_tool_name_is_refused_escaped(tmp_path: Path, argv: list[str]) -> None:
    pyz = _archive(tmp_path)
    res = subprocess.run([sys.executable, "-I", str(pyz), *argv], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "unknown tool" in res.stderr and "Traceback" not in res.stderr
    assert "\x1b" not in res.stderr and "\u202e" not in res.stderr


@pytest.mark.parametrize("into", ["-", "-rf", "--help", "a;b", "$(id)", "`id`", "a b", "x'y", "a\nb", '"q"'])
def test_into_that_a_shell_would_read_otherwise_is_refused(into: str) -> None:
    assert not tools_download.INTO.fullmatch(into)


@pytest.mark.parametrize("base", ["https://x.org/$(touch PWNED)/", "https://x.org/`id`/", "https://x.org/a b/",
                                  "https://x.org/;id;/", "https://x.org/'q'/"])
def test_the_fetch_line_is_one_curl_word_whatever_html_baseurl_holds(base: str) -> None:
    block = tools_download.fetch_block(base + tools_download.SERVED, "0" * 64, "~/miles-logs")
    curl = block.astext().splitlines()[1]
    assert shlex.split(curl) == ["curl", "-fLO", base + tools_download.SERVED]


def test_a_session_file_with_an_open_quote_and_many_lines_is_read_at_once() -> None:
    text = "export A='\n" + "ray start --head\n" * 20000
    start = time.monotonic()
    assert preflight._unclosed_quote(text) == 1
    assert time.monotonic() - start < 5
    assert preflight._unclosed_quote("a='x' # it's\nb=\"y\\\"\"\n") is None


def test_a_session_file_bash_cannot_read_in_time_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*_a: object, **_k: object) -> None:
        raise subprocess.TimeoutExpired("bash", 10)

    monkeypatch.setattr(preflight.subprocess, "run", slow)
    assert "did not finish" in (preflight.session_unparsed("ray start\n") or "")


def test_a_deleted_log_replaced_by_a_symlink_loop_names_the_path_not_permissions(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("step 1\n")
    follower = LogFollower(str(log))
    follower.read()
    log.unlink()
    log.symlink_to(tmp_path / "a")
    (tmp_path / "a").symlink_to(log)
    with pytest.raises(LogUnreadable, match="no longer leads to the log") as got:
        follower._open()
    assert "readable" not in str(got.value)


def _stand_in(tmp_path: Path, body: str) -> str:
    docker = tmp_path / "docker"
    docker.write_text("#!/bin/sh\n" + body)
    docker.chmod(0o755)
    return str(docker)


def test_a_pull_that_prints_no_newline_is_progress_not_quiet(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    docker = _stand_in(tmp_path, "for i in 1 2 3 4; do printf 'pulling..'; sleep 1; done\n")
    assert miles_tree._pull(docker, "img:1", quiet_after=1.5) == (0, "")
    err = capsys.readouterr().err
    assert "no progress" not in err and "docker pull: pulling..pulling.." in err


def test_a_pull_printing_a_huge_line_shows_its_start_once(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    docker = _stand_in(tmp_path, "head -c 3000000 /dev/zero | tr '\\0' 'a'; printf '\\n\\033[31mdone\\n';"
                       "head -c 3000000 /dev/zero | tr '\\0' 'b' >&2; exit 1\n")
    status, said = miles_tree._pull(docker, "img:1", quiet_after=30)
    lines = capsys.readouterr().err.splitlines()
    assert status == 1 and len(said) <= miles_tree.PULL_CHUNK
    assert len(lines) == 2 and lines[0].startswith("docker pull: aaa") and lines[1] == "docker pull: \\x1b[31mdone"


def test_a_session_file_that_crashes_bash_is_not_called_a_syntax_error() -> None:
    said = preflight.session_unparsed("$(" * 50000 + ")" * 50000 + "\n") or ""
    assert "syntax error" not in said and ("crashed" in said or "bash says" in said)
