"""``python3 capture/run.py [--miles-src PATH] [--commit REV] [--image NAME] [--out DIR]``."""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
import time
from pathlib import Path

from miles101.derive import derive_all
from miles101.tools.miles_tree import flag_file_digests

from . import EXTRACTOR_VERSION
from .files import extract_files
from .flags import extract_flags
from .megatron import megatron_family, parse_args_site
from .metrics import extract_metrics
from .models import extract_models
from .pymodules import Modules
from .sglang import (
    ROUTER_ARGS,
    SERVER_ARGS,
    fill_router,
    fill_sglang,
    keep_previous,
    open_package,
)
from .source import Source, SourceError, open_source, read_image
from .writeout import write_json

SGLANG_FILES = (SERVER_ARGS, "sglang/srt/arg_groups/arg_utils.py")
ROUTER_FILES = (ROUTER_ARGS,)
CAPTURE = Path(__file__).resolve().parent.parent
NO_SOURCE = (
    "no Miles source: pass --miles-src PATH (a checkout or a bare git dir) or set MILES_SRC.\n"
    "  get one with: git clone --bare https://github.com/radixark/miles /tmp/miles.git\n"
    "  or read the image instead: --image radixark/miles:latest (on a host with docker)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="capture/run.py", description="Extract from Miles and derive.")
    parser.add_argument("--miles-src", default=os.environ.get("MILES_SRC"), help="checkout or git dir")
    parser.add_argument("--commit", default=None, help="revision to read (default HEAD)")
    parser.add_argument("--image", default=None, help="read /root/miles from this docker image instead")
    parser.add_argument("--megatron-src", default=os.environ.get("MEGATRON_SRC"),
                        help="Megatron-LM checkout or git dir (the image's MEGATRON_REPO/BRANCH) for its flags")
    parser.add_argument("--sglang-src", default=os.environ.get("SGLANG_SRC"),
                        help="SGLang source for the --sglang-*/--eval-sglang-* members: checkout, git dir, "
                             "wheel or unpacked package")
    parser.add_argument("--router-src", default=os.environ.get("SGLANG_ROUTER_SRC"),
                        help="sglang_router source (sgl-router-for-miles checkout, git dir or wheel) for --router-*")
    parser.add_argument("--out", default=str(CAPTURE), help="capture directory to write (default capture/)")
    return parser


def dockerfile_arg(source: Source, name: str) -> str | None:
    """``ARG NAME=value`` in Miles's docker/Dockerfile."""
    for line in (source.text("docker/Dockerfile") or "").splitlines():
        if line.strip().startswith(f"ARG {name}="):
            return line.split("=", 1)[1].strip().strip('"') or None
    return None


def add_megatron(flags: dict, source: Source, megatron: Source | None, previous: Path) -> str:
    """Add the Megatron family: read from Megatron's source, else kept from the previous flags.json."""
    if megatron is not None:
        repo = f"{dockerfile_arg(source, 'MEGATRON_REPO')}@{dockerfile_arg(source, 'MEGATRON_BRANCH')}"
        names = {n for r in flags["flags"] for n in [r["name"], *r["aliases"]]}
        flags["families"].append(megatron_family(megatron, names, repo, parse_args_site(Modules(source))))
        return f"megatron: read {repo} at {megatron.commit[:9]}"
    try:
        old = json.loads(previous.read_text(encoding="utf-8"))["families"]
    except (OSError, ValueError, KeyError):
        return "megatron: no --megatron-src and no previous flags.json: family left out"
    kept = [f for f in old if f.get("kind") == "megatron"]
    flags["families"] += kept
    return "megatron: no --megatron-src, family kept from the previous flags.json" if kept else \
        "megatron: no --megatron-src and none before: family left out"


def _origin(source: Source, package: Source, image: str) -> str:
    """What a package source read is, next to what the image builds (from Miles's Dockerfile)."""
    if image == "sglang":
        built = (f"the image builds branch {dockerfile_arg(source, 'SGLANG_BRANCH')} "
                 f"(SGLANG_COMMIT {dockerfile_arg(source, 'SGLANG_COMMIT') or 'unset: the tip at build time'}) "
                 f"on lmsysorg/sglang:{dockerfile_arg(source, 'SGLANG_IMAGE_TAG')}")
    else:
        built = (f"the image's wheel is built from {dockerfile_arg(source, 'SGL_ROUTER_REPO')} "
                 f"branch {dockerfile_arg(source, 'SGL_ROUTER_BRANCH')}")
    if not package.read_from.startswith("git"):
        return f"read from a release, NOT the commit the image uses ({built})"
    return f"read from git; {built}, and whether this commit is that one is not checked"


def add_passthrough(flags: dict, source: Source, sglang: Source | None, router: Source | None,
                    previous: Path) -> list[str]:
    """Fill the SGLang and router families' members from their sources, else keep the previous ones."""
    try:
        old = json.loads(previous.read_text(encoding="utf-8"))["families"]
    except (OSError, ValueError, KeyError):
        old = []
    names = {n for r in flags["flags"] for n in [r["name"], *r["aliases"]]}
    out = []
    if sglang is not None:
        out += fill_sglang(flags["families"], sglang, source, names, _origin(source, sglang, "sglang"))
    else:
        out.append("sglang: no --sglang-src, " + keep_previous(flags["families"], "sglang-passthrough", old))
    if router is not None:
        out += fill_router(flags["families"], router, _origin(source, router, "router"))
    else:
        out.append("router: no --router-src, " + keep_previous(flags["families"], "router-passthrough", old))
    return out


def documents(source: Source, megatron: Source | None = None, previous: Path | None = None,
              sglang: Source | None = None, router: Source | None = None) -> dict[str, dict]:
    """The four extraction documents, by file name under miles/."""
    prov = source.provenance(EXTRACTOR_VERSION)
    flags = extract_flags(source)
    print(add_megatron(flags, source, megatron, previous or Path("/nonexistent")))
    for line in add_passthrough(flags, source, sglang, router, previous or Path("/nonexistent")):
        print(line)
    flags["families"].sort(key=lambda f: (f["prefix"] or "", f["file"], f["line"]))
    return {
        "flags.json": {"schema": "miles-flags/1", "provenance": prov, **flags,
                       "lines": flag_file_digests(source, flags["flags"])},
        "metrics.json": {"schema": "miles-metrics/1", "provenance": prov, "metrics": extract_metrics(source)},
        "models.json": {"schema": "miles-models/1", "provenance": prov, "models": extract_models(source)},
        "files.json": {"schema": "miles-files/1", "provenance": prov, "files": extract_files(source)},
    }


def summary(docs: dict[str, dict], seconds: float) -> str:
    """What was extracted, in a few lines."""
    flags = docs["flags.json"]["flags"]
    by_file = collections.Counter(r["file"] for r in flags)
    metrics = collections.Counter(m["kind"] for m in docs["metrics.json"]["metrics"])
    prov = docs["flags.json"]["provenance"]
    lines = [f"Miles {prov['commit'][:9]} ({prov['commit_date']}, read from {prov['read_from']})",
             f"flags: {len(flags)} records, {len({r['name'] for r in flags})} names"]
    lines += [f"  {n:4d}  {path}" for path, n in sorted(by_file.items())]
    lines.append("families: " + ", ".join(
        f"{f['prefix']} ({f['kind']}, {'?' if f['members'] is None else len(f['members'])} members)"
        for f in docs['flags.json']['families']))
    lines.append(f"metric keys: {sum(metrics.values())} ({metrics['literal']} literal, {metrics['pattern']} patterns)")
    lines.append(f"models: {len(docs['models.json']['models'])}")
    lines.append(f"files: {len(docs['files.json']['files'])}")
    lines.append(f"extraction took {seconds:.1f} s")
    return "\n".join(lines)


#: The image the manual pins (manual.json pin.version); read when no source is given and docker exists.
DEFAULT_IMAGE = "radixark/miles:latest"


def main(argv: list[str]) -> int:
    """Extract, print a summary, derive, and write the capture files that changed."""
    args = build_parser().parse_args(argv)
    start = time.monotonic()
    try:
        if args.image:
            source = read_image(args.image)
        elif args.miles_src:
            source = open_source(args.miles_src, args.commit)
        elif shutil.which("docker"):
            # The GPU host: `tox -e capture` with no arguments reads the pinned image.
            print(f"no --miles-src or MILES_SRC: reading Miles from the image {DEFAULT_IMAGE}", file=sys.stderr)
            source = read_image(DEFAULT_IMAGE)
        else:
            print(NO_SOURCE, file=sys.stderr)
            return 2
        megatron = open_source(args.megatron_src) if args.megatron_src else None
        sglang = open_package(args.sglang_src, SGLANG_FILES) if args.sglang_src else None
        router = open_package(args.router_src, ROUTER_FILES) if args.router_src else None
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    docs = documents(source, megatron, Path(args.out) / "miles" / "flags.json", sglang, router)
    print(summary(docs, time.monotonic() - start))

    computed = derive_all(docs["models.json"], docs["flags.json"])
    print(f"computed values: {len(computed['values'])} ({len(computed['skipped'])} models skipped)")
    out = Path(args.out)
    written = []
    for name, doc in docs.items():
        if write_json(out / "miles" / name, doc):
            written.append(f"miles/{name}")
    if write_json(out / "computed.json", computed):
        written.append("computed.json")
    print("wrote: " + (", ".join(written) if written else "nothing (all unchanged)"))
    return 0
