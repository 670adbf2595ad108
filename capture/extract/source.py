"""Read Miles's files from a checkout, a (bare) git dir at a commit, or the Miles docker image.

The snapshot (``Source``) and the image reader live in the reader's served ``miles_tree.py`` (issue 48);
the git readers, which only the lab uses, are here."""
from __future__ import annotations

from pathlib import Path

from miles101.tools.miles_tree import IMAGE_MILES_DIR, Source, SourceError, decode_text, read_image, run_checked

__all__ = ["IMAGE_MILES_DIR", "Source", "SourceError", "decode_text", "open_source", "read_checkout", "read_git",
           "read_image"]


def _git(git_dir: str, *args: str, data: bytes | None = None) -> bytes:
    return run_checked(["git", f"--git-dir={git_dir}", *args], data=data)


def _resolve_git_dir(path: Path) -> str | None:
    """The git dir of a bare repo or a checkout, or None if ``path`` is neither."""
    if (path / ".git").exists():
        return str(path / ".git")
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        return str(path)
    return None


def read_git(git_dir: str, rev: str = "HEAD", read_from: str = "git") -> Source:
    """Read every blob of ``rev`` with one ``git cat-file --batch`` stream."""
    commit = _git(git_dir, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()
    date = _git(git_dir, "show", "-s", "--format=%cs", commit).decode().strip()
    listing = _git(git_dir, "ls-tree", "-r", "-z", commit).split(b"\0")
    entries: list[tuple[str, str]] = []
    for row in listing:
        if not row:
            continue
        meta, path = row.split(b"\t", 1)
        mode, kind, sha = meta.decode().split()
        if kind == "blob" and mode != "120000":  # skip symlinks and submodules
            entries.append((path.decode("utf-8", errors="surrogateescape"), sha))
    out = _git(git_dir, "cat-file", "--batch", data="".join(f"{sha}\n" for _, sha in entries).encode())
    blobs: dict[str, bytes] = {}
    pos = 0
    for path, _ in entries:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        blobs[path] = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return Source(commit=commit, commit_date=date, read_from=read_from, blobs=blobs)


def read_checkout(path: Path) -> Source:
    """Read a working tree: tracked files as they are on disk, commit from its HEAD."""
    git_dir = _resolve_git_dir(path)
    if git_dir is None:
        raise SourceError(f"{path} is not a git checkout or git dir")
    commit = _git(git_dir, "rev-parse", "HEAD").decode().strip()
    date = _git(git_dir, "show", "-s", "--format=%cs", commit).decode().strip()
    names = run_checked(["git", "-C", str(path), "ls-files", "-z"]).split(b"\0")
    blobs = {}
    for raw in names:
        name = raw.decode("utf-8", errors="surrogateescape")
        full = path / name
        if name and full.is_file() and not full.is_symlink():
            blobs[name] = full.read_bytes()
    return Source(commit=commit, commit_date=date, read_from="checkout", blobs=blobs)


def open_source(miles_src: str, rev: str | None = None) -> Source:
    """A checkout read from disk (``rev`` None or HEAD) or any git dir read at ``rev`` via git."""
    path = Path(miles_src).expanduser()
    git_dir = _resolve_git_dir(path)
    if git_dir is None:
        raise SourceError(f"--miles-src {miles_src}: not a Miles checkout or git dir")
    is_checkout = (path / ".git").exists()
    if is_checkout and rev in (None, "HEAD"):
        return read_checkout(path)
    return read_git(git_dir, rev or "HEAD")
