"""Reading Miles: a bare git dir at a commit, a checkout, and the image path through a stand-in docker."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from capture.extract.files import extract_files
from capture.extract.source import SourceError, open_source, read_image


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-03-04T05:06:07Z", "GIT_COMMITTER_DATE": "2026-03-04T05:06:07Z"}
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, env=env,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "miles").mkdir(parents=True)
    (work / "miles" / "a.py").write_text("x = 1\ny = 2\n")
    (work / "README.md").write_text("no final newline")
    (work / "logo.png").write_bytes(b"\x89PNG\0\0binary")
    git(work, "init", "-q")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "one")
    (work / "miles" / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    git(work, "commit", "-q", "-am", "two")
    return work


def test_bare_git_dir_at_head_and_at_an_older_commit(repo: Path, tmp_path: Path):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    head = open_source(str(bare))
    assert head.read_from == "git" and head.commit_date == "2026-03-04"
    assert head.commit == git(repo, "rev-parse", "HEAD")
    assert extract_files(head) == {"README.md": 1, "miles/a.py": 3}  # binary file left out
    old = open_source(str(bare), "HEAD~1")
    assert old.commit == git(repo, "rev-parse", "HEAD~1")
    assert old.text("miles/a.py") == "x = 1\ny = 2\n"


def test_checkout_reads_the_working_tree(repo: Path):
    (repo / "miles" / "a.py").write_text("edited\n")
    src = open_source(str(repo))
    assert src.read_from == "checkout" and src.text("miles/a.py") == "edited\n"
    prov = src.provenance("v")
    assert set(prov) == {"commit", "commit_date", "read_from", "extractor"}
    assert str(repo) not in str(prov)


def test_not_a_source(tmp_path: Path):
    with pytest.raises(SourceError):
        open_source(str(tmp_path))


def test_image_through_a_stand_in_docker(tmp_path: Path):
    payload = io.BytesIO()
    with tarfile.open(fileobj=payload, mode="w") as tar:
        data = b"line\nline\n"
        info = tarfile.TarInfo("miles/b.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (tmp_path / "payload.tar").write_bytes(payload.getvalue())
    fake = tmp_path / "docker"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "a = sys.argv[1:]\n"
        "if a[:2] == ['image', 'inspect']:\n"
        "    print('radixark/miles@sha256:feed')\n"
        "elif 'git' in a and 'log' in a:\n"
        "    print('" + "a" * 40 + " 2026-02-03')\n"
        "else:\n"
        f"    sys.stdout.buffer.write(open({str(tmp_path / 'payload.tar')!r}, 'rb').read())\n"
    )
    fake.chmod(0o755)
    src = read_image("radixark/miles:latest", docker=str(fake))
    assert (src.commit, src.commit_date, src.read_from) == ("a" * 40, "2026-02-03", "image sha256:feed")
    assert extract_files(src) == {"miles/b.py": 2}


def _stand_in(tmp_path: Path, body: str) -> str:
    fake = tmp_path / "docker"
    fake.write_text(f"#!{sys.executable}\nimport sys, time\na = sys.argv[1:]\n{body}\n")
    fake.chmod(0o755)
    return str(fake)


@pytest.mark.parametrize(("where", "body"), [
    ("inspect", "time.sleep(60)"),
    ("git log", "if a[:2] == ['image', 'inspect']:\n    print('sha256:' + 'f' * 64)\nelse:\n    time.sleep(60)"),
    ("tar", "if a[:2] == ['image', 'inspect']:\n    print('sha256:' + 'f' * 64)\n"
            "elif 'log' in a:\n    print('" + "a" * 40 + " 2026-02-03')\nelse:\n    time.sleep(60)"),
])
def test_a_docker_that_does_not_answer_is_named_within_its_timeout(tmp_path: Path, monkeypatch, where: str,
                                                                   body: str) -> None:
    from miles101.tools import miles_tree

    monkeypatch.setattr(miles_tree, "DOCKER_TIMEOUTS", {"inspect": 1.0, "run": 1.0})
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"did not answer within 1 s\. Fix: check that Docker answers"):
        read_image("radixark/miles:latest", docker=_stand_in(tmp_path, body), pull=False)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(("body", "quoted"), [
    ("sys.stdout.buffer.write(b'\\xff\\xfe garbage \\x1b[31m')", "printed \ufffd\ufffd garbage \\x1b[31m, not an image id"),
    ("print('sha256:' + 'f' * 64) if a[:2] == ['image', 'inspect'] else "
     "(sys.stderr.buffer.write(b'fatal: \\x1b[2J\\xe2\\x80\\xae FAIL: forged\\xff'), sys.exit(3))",
     "failed: fatal: \\x1b[2J\\u202e FAIL: forged\ufffd. Fix:"),
    ("print('sha256:' + 'f' * 64) if a[:2] == ['image', 'inspect'] else print('\\x1b[31mnot a commit')",
     "git printed '\\x1b[31mnot a commit'"),
])
def test_what_docker_printed_is_quoted_escaped(tmp_path: Path, body: str, quoted: str) -> None:
    """Undecodable bytes, terminal escapes and a bidi override from docker: one line that quotes them escaped,
    never a traceback, never raw escapes on the reader's terminal."""
    with pytest.raises(SourceError) as got:
        read_image("radixark/miles:latest", docker=_stand_in(tmp_path, body), pull=False)
    text = str(got.value)
    assert quoted in text, text
    assert "\x1b" not in text and "\u202e" not in text and "\n" not in text


def test_a_quiet_pull_is_reported_and_goes_on(tmp_path: Path, monkeypatch, capsys) -> None:
    """`docker pull` has no time limit: its progress shows as it comes, a quiet spell is named, and its last line
    is quoted when it fails."""
    from miles101.tools import miles_tree

    monkeypatch.setattr(miles_tree, "PULL_QUIET_S", 1.0)
    body = ("if a[0] == 'pull':\n    print('layer 1: Downloading', flush=True)\n    time.sleep(2.5)\n"
            "    sys.stderr.write('manifest unknown\\n')\n    sys.exit(1)\nsys.exit(1)")
    with pytest.raises(SourceError, match=r"docker pull of radixark/miles:x failed: manifest unknown\. Fix: check"):
        read_image("radixark/miles:x", docker=_stand_in(tmp_path, body))
    err = capsys.readouterr().err
    assert "docker pull: layer 1: Downloading" in err
    assert "docker pull of radixark/miles:x: no progress for" in err and "Ctrl-C stops it" in err
