"""What `record` and `record --recover` say when the recovery they run first cannot go on (issue 51 §5).

A regular file named like a set-aside recording (`.old-<id>-<stamp>`) is named as a file with the fix
"remove it"; neither command prints a traceback; "fix the permissions" is said only for a permission or
read-only error.
"""
from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from capture.lab.record import main as record_main
from capture.lab.store import recovery_problem

ROOT = Path(__file__).resolve().parents[2]
STRAY = ".old-tiny-recorded-20261204T120000Z"


@pytest.fixture
def gpu(tmp_path: Path) -> Path:
    dest = tmp_path / "book"
    shutil.copytree(ROOT / "tests" / "roots" / "test-book", dest)
    (dest / "capture" / "gpu" / STRAY).write_text("not a recording\n", encoding="utf-8")
    return dest / "capture" / "gpu"


@pytest.mark.parametrize("argv", [["--recover"], ["tiny-recorded", "--force", "--skip-smoke"]],
                         ids=["record --recover", "record --force"])
def test_a_file_named_like_an_old_recording_is_named_with_its_fix(gpu: Path, capsys: pytest.CaptureFixture[str],
                                                                  argv: list[str]) -> None:
    rc = record_main([*argv, "--gpu-dir", str(gpu), "--runs-dir", str(gpu.parent / "runs")])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{gpu / STRAY} is a file, not a recording" in err and f"remove it (rm {gpu / STRAY})" in err, err
    assert "permission" not in err and "Traceback" not in err, err
    assert (gpu / "tiny-recorded" / "run.json").is_file() and (gpu / STRAY).is_file()  # nothing moved


@pytest.mark.parametrize(("code", "says"), [(errno.EACCES, "fix the permissions"), (errno.EROFS, "fix the permissions"),
                                            (errno.ENOTDIR, "look at what stands there"), (errno.ENOSPC, "look at what")])
def test_fix_the_permissions_only_for_a_permission_error(tmp_path: Path, code: int, says: str) -> None:
    text = recovery_problem(OSError(code, "some error", str(tmp_path / "x")), tmp_path)
    assert says in text and (("fix the permissions" in text) == (code in (errno.EACCES, errno.EROFS))), text
