"""The GB10 image the book serves (`tools/Dockerfile.gb10`): what it cites, fetches and builds, read from its text.

The Dockerfile names the slime and Miles lines each step follows on `# follows:` lines, fetches slime's patch
files with `ADD --checksum=sha256:...`, pins its base by `ARG BASE_IMAGE`/`ARG BASE_DIGEST` and the Miles
commit by `ARG MILES_COMMIT`, and gives its `docker build` line in its header. The capture
(`capture/extract/slime_gb10.py`) records slime's side at the pinned commit in `capture/slime/gb10.json`; the
page (`{gb10-build}`) and the tests read both through this module. No Sphinx imports, no network.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

#: The served file. It lives in `_ext/miles101/tools/`, the folder DESIGN §1 gives the files the book hands readers
#: as they are (there, beside the stdlib tools, a page serves it with `{download}` as it serves them): `_static/` holds
#: the site's own assets, copied into every build's `_static/`, and `capture/` holds what was read from sources, which
#: this file is not (capture/slime/gb10.json is).
DOCKERFILE = Path(__file__).resolve().parent / "tools" / "Dockerfile.gb10"
#: The record of slime's side, under capture/ (relative to the project root).
RECORD = Path("capture") / "slime" / "gb10.json"
#: The slime commit of THUDM/slime#1835, whose Dockerfile.gb10 the book's file follows.
SLIME_REPO = "THUDM/slime"
SLIME_COMMIT = "f44af13d0c952c7f15837b5bdbf10dcf4dd25c4f"
#: How many hex digits of a range's SHA-256 a `# follows:` line carries.
SHORT_HASH = 12

_FOLLOWS = re.compile(
    r"^# follows: (?P<repo>slime|miles) (?P<path>\S+):(?P<first>\d+)-(?P<last>\d+)"
    r"(?: sha256=(?P<hash>[0-9a-f]+))?\s*$")
_ADD = re.compile(r"^ADD --checksum=sha256:(?P<hash>[0-9a-f]+)\s*\\?\s*$")
_URL = re.compile(r"^\s*https://raw\.githubusercontent\.com/(?P<repo>[^/]+/[^/]+)/(?P<commit>[0-9a-f]{40})/"
                  r"(?P<path>\S+)\s*\\?\s*$")
_ARG = re.compile(r"^ARG (?P<name>[A-Z_]+)=(?P<value>\S+)\s*$")
_BUILD = re.compile(r"^#\s+(?P<command>docker build .+?)\s*$")


class DockerfileError(ValueError):
    """The Dockerfile does not say what the book reads from it (the message names the line and the fix)."""


@dataclass(frozen=True)
class Citation:
    """One `# follows:` line: lines of slime or Miles a step follows."""

    repo: str  # "slime" | "miles"
    path: str
    first: int
    last: int
    short_hash: str | None  # slime lines: the start of the SHA-256 of their text
    line: int  # where in the Dockerfile

    @property
    def key(self) -> str:
        """`path:first-last`, the record's key."""
        return f"{self.path}:{self.first}-{self.last}"


@dataclass(frozen=True)
class Fetch:
    """One `ADD --checksum=sha256:<hash> <url> <dest>`: a file fetched at build time."""

    sha256: str
    repo: str
    commit: str
    path: str
    line: int


@dataclass(frozen=True)
class Gb10Dockerfile:
    """What the book reads from its Dockerfile."""

    citations: tuple[Citation, ...]
    fetches: tuple[Fetch, ...]
    args: dict[str, str]
    build_command: str

    @property
    def base(self) -> str:
        """The base image by name and digest, as the FROM line resolves it."""
        return f"{self.args['BASE_IMAGE']}@{self.args['BASE_DIGEST']}"


def range_text(text: str, first: int, last: int) -> str:
    """Lines `first`-`last` (1-based, inclusive) of `text`, each with its line end as the file has it."""
    return "".join(text.splitlines(keepends=True)[first - 1:last])


def range_sha256(text: str, first: int, last: int) -> str:
    """The SHA-256 (hex) of lines `first`-`last` of `text`: the hash a `# follows:` line starts with."""
    return hashlib.sha256(range_text(text, first, last).encode("utf-8")).hexdigest()


def parse(text: str, where: str = "Dockerfile.gb10") -> Gb10Dockerfile:
    """Read the citations, fetches, ARG defaults and build line of the Dockerfile's text."""
    lines = text.splitlines()
    citations, fetches, args, build = [], [], {}, None
    for number, line in enumerate(lines, start=1):
        if line.startswith("# follows:"):
            m = _FOLLOWS.match(line)
            if m is None:
                raise DockerfileError(f"{where}:{number}: a `# follows:` line reads `slime <path>:<first>-<last> "
                                      f"sha256=<hex>` or `miles <path>:<first>-<last>`, not {line!r}")
            first, last = int(m["first"]), int(m["last"])
            if first < 1 or last < first:
                raise DockerfileError(f"{where}:{number}: the range {first}-{last} is empty or starts before line 1")
            if (m["repo"] == "slime") != (m["hash"] is not None):
                raise DockerfileError(f"{where}:{number}: a slime range carries `sha256=<{SHORT_HASH} hex>` and a "
                                      "Miles range none (capture/miles/files.json holds Miles's line counts)")
            citations.append(Citation(m["repo"], m["path"], first, last, m["hash"], number))
        elif line.startswith("ADD "):
            m = _ADD.match(line)
            url = _URL.match(lines[number]) if m and number < len(lines) else None
            if m is None or url is None:
                raise DockerfileError(f"{where}:{number}: an ADD fetches one raw.githubusercontent.com file at a "
                                      "full commit: `ADD --checksum=sha256:<64 hex> \\` then the URL on the next line")
            fetches.append(Fetch(m["hash"], url["repo"], url["commit"], url["path"], number))
        elif (m := _ARG.match(line)) is not None:
            args[m["name"]] = m["value"]
        elif build is None and (m := _BUILD.match(line)) is not None:
            build = m["command"]
    for name in ("BASE_IMAGE", "BASE_DIGEST", "MILES_COMMIT"):
        if name not in args:
            raise DockerfileError(f"{where}: no `ARG {name}=<value>` line; the book reads the default from it")
    if build is None:
        raise DockerfileError(f"{where}: no `#     docker build ...` line in the header; the page shows that line")
    return Gb10Dockerfile(tuple(citations), tuple(fetches), args, build)


def read(path: Path = DOCKERFILE) -> Gb10Dockerfile:
    """Parse the served Dockerfile (or another one, for a test)."""
    return parse(path.read_text(encoding="utf-8"), path.name)


def problems(dockerfile: Gb10Dockerfile, record: dict, miles_files: dict[str, int] | None = None) -> list[str]:
    """What the Dockerfile says that the record of slime (and Miles's file index) does not bear out; [] if none."""
    out = []
    ranges, files = record["ranges"], record["files"]
    for c in dockerfile.citations:
        if c.repo == "slime":
            rec = ranges.get(c.key)
            if rec is None:
                out.append(f"line {c.line}: slime {c.key} is not in {RECORD}; run `python3 capture/run.py slime "
                           "--slime-src <slime checkout or git dir>`")
            elif not rec["sha256"].startswith(c.short_hash or "-") or len(c.short_hash or "") < SHORT_HASH:
                out.append(f"line {c.line}: slime {c.key} carries sha256={c.short_hash}, but those lines hash to "
                           f"{rec['sha256'][:SHORT_HASH]} at {record['provenance']['commit'][:9]}; re-read the lines "
                           "and fix the range or the hash")
        elif miles_files is not None:
            count = miles_files.get(c.path)
            if count is None or c.last > count:
                out.append(f"line {c.line}: miles {c.key}: Miles's {c.path} has "
                           f"{'no such file' if count is None else f'{count} lines'} at the captured commit")
    for f in dockerfile.fetches:
        rec = files.get(f.path)
        if f.repo != SLIME_REPO or f.commit != record["provenance"]["commit"]:
            out.append(f"line {f.line}: the ADD fetches from {f.repo}@{f.commit[:9]}, not from slime at the recorded "
                       f"commit {record['provenance']['commit'][:9]}")
        elif rec is None:
            out.append(f"line {f.line}: {f.path} is not among the recorded files of {RECORD}")
        elif rec["sha256"] != f.sha256:
            out.append(f"line {f.line}: the ADD checks {f.path} against sha256:{f.sha256[:12]}..., but the file "
                       f"hashes to sha256:{rec['sha256'][:12]}... at the recorded commit")
    if dockerfile.base != f"{record['base']['image']}@{record['base']['digest']}":
        out.append(f"the base {dockerfile.base} is not the one slime pins, {record['base']['image']}@"
                   f"{record['base']['digest']}")
    return out
