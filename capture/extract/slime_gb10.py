"""``python3 capture/run.py slime --slime-src PATH [--commit REV]``: record slime's side of the GB10 image.

Reads slime (THUDM/slime, a checkout or git dir) at the commit the book's Dockerfile.gb10 follows and writes
``capture/slime/gb10.json``: the line count and SHA-256 of slime's Dockerfile.gb10, of the files the book's
Dockerfile fetches with ``ADD --checksum`` and of slime's LICENSE; the line count and SHA-256 of each slime
range the book's Dockerfile cites; and the base image and digest slime pins. The tests check the Dockerfile
against this record without a network (tests/test_gb10_dockerfile.py).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from pathlib import Path

from miles101 import gb10_image

from .source import SourceError, read_git
from .writeout import write_json

EXTRACTOR = "miles101-slime-gb10/1"
SLIME_DOCKERFILE = "docker/Dockerfile.gb10"
LICENSE = "LICENSE"
CAPTURE = Path(__file__).resolve().parent.parent
_ARG = re.compile(r"^ARG (BASE_IMAGE|BASE_DIGEST)=(\S+)\s*$")


def _git_dir(path: Path) -> str:
    if (path / ".git").exists():
        return str(path / ".git")
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        return str(path)
    raise SourceError(f"--slime-src {path}: not a slime checkout or git dir "
                      "(get one: git clone --bare https://github.com/THUDM/slime slime.git)")


def _file(blob: bytes) -> dict:
    text = blob.decode("utf-8")
    return {"lines": len(text.splitlines()), "sha256": hashlib.sha256(blob).hexdigest()}


def _license(text: str) -> str:
    head = " ".join(text.split()[:12])
    if "Apache License" in head and "Version 2.0" in head:
        return "Apache-2.0"
    raise SourceError(f"slime's {LICENSE} does not open as the Apache License 2.0 ({head!r}): read it, and say "
                      "what it is in the Dockerfile's attribution before recording")


def _base(text: str) -> dict:
    found = {m[1]: (number, m[2]) for number, line in enumerate(text.splitlines(), start=1)
             if (m := _ARG.match(line))}
    if set(found) != {"BASE_IMAGE", "BASE_DIGEST"}:
        raise SourceError(f"slime's {SLIME_DOCKERFILE}: no `ARG BASE_IMAGE=` and `ARG BASE_DIGEST=` lines")
    lines = sorted(n for n, _ in found.values())
    return {"image": found["BASE_IMAGE"][1], "digest": found["BASE_DIGEST"][1],
            "at": f"{SLIME_DOCKERFILE}:{lines[0]}-{lines[-1]}"}


def record(blobs: dict[str, bytes], commit: str, commit_date: str, dockerfile: gb10_image.Gb10Dockerfile) -> dict:
    """The record of slime's side, from slime's files at `commit` and the book's parsed Dockerfile."""
    missing = sorted({SLIME_DOCKERFILE, LICENSE, *(f.path for f in dockerfile.fetches)} - set(blobs))
    if missing:
        raise SourceError(f"slime at {commit[:9]} has no {', '.join(missing)}: is it the commit of THUDM/slime#1835?")
    text = blobs[SLIME_DOCKERFILE].decode("utf-8")
    files = {path: _file(blobs[path]) for path in sorted({SLIME_DOCKERFILE, *(f.path for f in dockerfile.fetches)})}
    ranges = {}
    for c in sorted((c for c in dockerfile.citations if c.repo == "slime"), key=lambda c: (c.path, c.first, c.last)):
        if c.path != SLIME_DOCKERFILE:
            raise SourceError(f"Dockerfile.gb10:{c.line}: cites slime's {c.path}; the record covers {SLIME_DOCKERFILE}")
        if c.last > files[SLIME_DOCKERFILE]["lines"]:
            raise SourceError(f"Dockerfile.gb10:{c.line}: slime {c.key} ends past the file's "
                              f"{files[SLIME_DOCKERFILE]['lines']} lines")
        ranges[c.key] = {"lines": c.last - c.first + 1, "sha256": gb10_image.range_sha256(text, c.first, c.last)}
    return {
        "schema": "slime-gb10/1",
        "provenance": {"repo": gb10_image.SLIME_REPO, "commit": commit, "commit_date": commit_date,
                       "read_from": "git", "extractor": EXTRACTOR},
        "license": {"path": LICENSE, "spdx": _license(blobs[LICENSE].decode("utf-8")), **_file(blobs[LICENSE])},
        "base": _base(text),
        "files": files,
        "ranges": ranges,
    }


def main(argv: list[str]) -> int:
    """Read slime, write capture/slime/gb10.json when it changed."""
    parser = argparse.ArgumentParser(prog="capture/run.py slime", description=__doc__.splitlines()[0])
    parser.add_argument("--slime-src", default=os.environ.get("SLIME_SRC"), help="slime checkout or git dir")
    parser.add_argument("--commit", default=gb10_image.SLIME_COMMIT, help="revision to read (default: the pinned one)")
    parser.add_argument("--out", default=str(CAPTURE), help="capture directory to write (default capture/)")
    args = parser.parse_args(argv)
    if not args.slime_src:
        print("capture/run.py slime: no slime source: pass --slime-src PATH or set SLIME_SRC "
              "(git clone --bare https://github.com/THUDM/slime slime.git)", file=sys.stderr)
        return 2
    try:
        dockerfile = gb10_image.read()
        source = read_git(_git_dir(Path(args.slime_src).expanduser()), args.commit)
        doc = record(source.blobs, source.commit, source.commit_date, dockerfile)
    except (SourceError, gb10_image.DockerfileError, UnicodeDecodeError) as exc:
        print(f"capture/run.py slime: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) / "slime" / "gb10.json"
    written = write_json(out, doc)
    print(f"slime {doc['provenance']['commit'][:9]} ({doc['provenance']['commit_date']}): "
          f"{len(doc['ranges'])} cited ranges, {len(doc['files'])} files; "
          f"{'wrote' if written else 'unchanged:'} {out.relative_to(Path(args.out).parent) if written else out.name}")
    return 0
