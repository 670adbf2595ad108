"""The book's own repository: one public https URL, or None, for the theme, the pending boxes and R.3.

Where it comes from, first found wins: the `m101_repository` setting in conf.py (an empty string
turns the link off), the clone URL Read the Docs gives a build (`READTHEDOCS_GIT_CLONE_URL`), or
`git remote get-url origin` in the book's folder. Only an https:// URL is ever shown: an SSH
(`ssh://`, `git@host:path`), `git://`, `file://` or local-path remote gives no link rather than a
broken one. User info (`user:token@`) is dropped so a token in a CI remote never reaches a page, and
so are a trailing `.git` and `/`.
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

RTD_CLONE_URL = "READTHEDOCS_GIT_CLONE_URL"


def public_url(raw: str | None) -> str | None:
    """The https URL a reader can open for `raw`, or None when `raw` is not an https URL."""
    if not raw or not raw.strip():
        return None
    try:
        parts = urlsplit(raw.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() != "https" or not parts.hostname:
        return None
    host = parts.hostname + (f":{port}" if port else "")
    path = parts.path.rstrip("/")
    path = path.removesuffix(".git").rstrip("/")
    return urlunsplit(("https", host, path, "", ""))


def origin_url(root: Path) -> str | None:
    """`git remote get-url origin` in `root`, or None without git, a repository or an origin."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"], capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (proc.stdout.strip() or None) if proc.returncode == 0 else None


def discover(root: Path, setting: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The book's repository URL to show, or None: the setting, else Read the Docs' clone URL, else origin."""
    if setting is not None:
        return public_url(setting)
    env = os.environ if environ is None else environ
    raw = env.get(RTD_CLONE_URL) or origin_url(root)
    return public_url(raw)
