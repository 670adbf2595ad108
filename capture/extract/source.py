"""Read Miles's files from a checkout, a (bare) git dir at a commit, or the Miles docker image."""
from __future__ import annotations

import io
import os
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path


class SourceError(RuntimeError):
    """The Miles source could not be opened or read."""


def _run(cmd: list[str], *, data: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(cmd, input=data, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise SourceError(f"cannot run {cmd[0]!r}: {exc}") from exc
    if proc.returncode != 0:
        raise SourceError(f"{' '.join(cmd[:4])} ... failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def decode_text(data: bytes) -> str | None:
    """The file's text if it is a UTF-8 text file, else None (binary)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass
class Source:
    """A snapshot of Miles's tree: every file's bytes, plus where and at which commit it was read."""

    commit: str
    commit_date: str
    read_from: str
    blobs: dict[str, bytes] = field(default_factory=dict, repr=False)

    def paths(self) -> list[str]:
        """Every file path, sorted."""
        return sorted(self.blobs)

    def text(self, path: str) -> str | None:
        """The text of one file, or None when it is missing or binary."""
        data = self.blobs.get(path)
        return None if data is None else decode_text(data)

    def texts(self, suffix: str = "", under: str = "") -> dict[str, str]:
        """Path -> text for the text files under a folder with a given ending."""
        out = {}
        for path in self.paths():
            if path.startswith(under) and path.endswith(suffix):
                text = self.text(path)
                if text is not None:
                    out[path] = text
        return out

    def provenance(self, extractor: str) -> dict:
        """The provenance block every capture file carries (no machine paths)."""
        return {
            "commit": self.commit,
            "commit_date": self.commit_date,
            "read_from": self.read_from,
            "extractor": extractor,
        }


def _git(git_dir: str, *args: str, data: bytes | None = None) -> bytes:
    return _run(["git", f"--git-dir={git_dir}", *args], data=data)


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
    names = _run(["git", "-C", str(path), "ls-files", "-z"]).split(b"\0")
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


IMAGE_MILES_DIR = "/root/miles"


def read_image(image: str, docker: str | None = None) -> Source:
    """Read /root/miles from the Miles image: digest, commit and files, in three ``docker`` calls."""
    docker = docker or os.environ.get("MILES101_DOCKER", "docker")
    digest = _run([docker, "image", "inspect", "--format", "{{index .RepoDigests 0}}", image]).decode().strip()
    if "@" in digest:
        digest = digest.split("@", 1)[1]
    meta = _run(
        [docker, "run", "--rm", "--entrypoint", "git", image, "-C", IMAGE_MILES_DIR, "log", "-1", "--format=%H %cs"]
    ).decode().split()
    if len(meta) != 2:
        raise SourceError(f"cannot read the commit of {IMAGE_MILES_DIR} in {image}")
    tar_bytes = _run(
        [docker, "run", "--rm", "--entrypoint", "sh", image, "-c",
         f"cd {IMAGE_MILES_DIR} && git ls-files -z | tar --null -T - -cf -"]
    )
    blobs = {}
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                handle = tar.extractfile(member)
                if handle is not None:
                    blobs[member.name.removeprefix("./")] = handle.read()
    return Source(commit=meta[0], commit_date=meta[1], read_from=f"image {digest}", blobs=blobs)
