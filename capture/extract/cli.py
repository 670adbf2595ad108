"""``python3 capture/run.py [--miles-src PATH] [--commit REV] [--image NAME] [--out DIR]``."""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

from . import EXTRACTOR_VERSION
from .files import extract_files
from .flags import extract_flags
from .metrics import extract_metrics
from .models import extract_models
from .source import Source, SourceError, open_source, read_image
from .writeout import write_json

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
    parser.add_argument("--out", default=str(CAPTURE), help="capture directory to write (default capture/)")
    return parser


def documents(source: Source) -> dict[str, dict]:
    """The four extraction documents, by file name under miles/."""
    prov = source.provenance(EXTRACTOR_VERSION)
    flags = extract_flags(source)
    return {
        "flags.json": {"schema": "miles-flags/1", "provenance": prov, **flags},
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
    lines.append(f"families: {', '.join(f['prefix'] for f in docs['flags.json']['families'])}")
    lines.append(f"metric keys: {sum(metrics.values())} ({metrics['literal']} literal, {metrics['pattern']} patterns)")
    lines.append(f"models: {len(docs['models.json']['models'])}")
    lines.append(f"files: {len(docs['files.json']['files'])}")
    lines.append(f"extraction took {seconds:.1f} s")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Extract, print a summary, derive, and write the capture files that changed."""
    args = build_parser().parse_args(argv)
    start = time.monotonic()
    try:
        if args.image:
            source = read_image(args.image)
        elif args.miles_src:
            source = open_source(args.miles_src, args.commit)
        else:
            print(NO_SOURCE, file=sys.stderr)
            return 2
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    docs = documents(source)
    print(summary(docs, time.monotonic() - start))

    from capture.derive import derive_all

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
