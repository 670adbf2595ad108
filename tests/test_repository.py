"""miles101.repository: which URL of the book's repository a page may show."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from miles101.repository import RTD_CLONE_URL, discover, public_url


@pytest.mark.parametrize(("raw", "shown"), [
    ("https://github.com/owner/book.git", "https://github.com/owner/book"),
    ("https://github.com/owner/book", "https://github.com/owner/book"),
    ("https://github.com/owner/book/", "https://github.com/owner/book"),
    ("https://user:ghp_secret@github.com/owner/book.git", "https://github.com/owner/book"),
    ("https://x-access-token:abc@gitlab.example.org:8443/group/book.git", "https://gitlab.example.org:8443/group/book"),
    ("  https://GitHub.com/owner/book.git\n", "https://github.com/owner/book"),
    ("https://github.com/owner/book.git?ref=main#x", "https://github.com/owner/book"),
])
def test_https_is_shown_without_user_info_or_dot_git(raw: str, shown: str) -> None:
    assert public_url(raw) == shown


@pytest.mark.parametrize("raw", [
    "git@github.com:owner/book.git", "ssh://git@github.com/owner/book.git", "git://github.com/owner/book",
    "http://github.com/owner/book", "file:///srv/git/book.git", "/srv/git/book.git", "../book", "", "   ", None,
    "https://", "https://github.com:notaport/owner/book",
])
def test_anything_else_gives_no_link(raw: str | None) -> None:
    assert public_url(raw) is None


def _repo(tmp_path: Path, origin: str | None) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    if origin:
        subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", origin], check=True)
    return tmp_path


def test_setting_wins_then_read_the_docs_then_origin(tmp_path: Path) -> None:
    root = _repo(tmp_path, "https://tok@github.com/owner/from-origin.git")
    rtd = {RTD_CLONE_URL: "https://github.com/owner/from-rtd.git"}
    assert discover(root, "https://github.com/owner/from-setting", rtd) == "https://github.com/owner/from-setting"
    assert discover(root, "", rtd) is None  # an empty setting turns the link off
    assert discover(root, None, rtd) == "https://github.com/owner/from-rtd"
    assert discover(root, None, {}) == "https://github.com/owner/from-origin"


def test_ssh_origin_or_no_repository_gives_none(tmp_path: Path) -> None:
    assert discover(_repo(tmp_path / "a", "git@github.com:owner/book.git"), None, {}) is None
    assert discover(_repo(tmp_path / "b", None), None, {}) is None
    (tmp_path / "c").mkdir()
    assert discover(tmp_path / "c", None, {}) is None
