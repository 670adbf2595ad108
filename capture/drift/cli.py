"""``python3 capture/run.py diff OLD NEW [--miles-src PATH] [--pages-root DIR] [--json] [--cited-only]``.

What changed in Miles between two extractions, and which pages of the manual cite it. OLD and NEW are
each a capture directory (holding flags.json, metrics.json, models.json, files.json, e.g. capture/miles)
or a revision of ``--miles-src`` (a checkout or git dir), extracted in memory. Exit status: 0 when
nothing the manual cites changed, 1 when something it cites did, 2 for bad arguments or input.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from capture.drift.flags import family_changes, flag_changes
from capture.drift.keys import computed_changes, metric_changes, model_changes
from capture.drift.pages import PagesError, attach, load_refs
from capture.drift.report import build, text
from capture.drift.sides import Side, SideError, load_side
from capture.drift.srclines import src_changes
from capture.extract.source import SourceError, open_source

ROOT = Path(__file__).resolve().parents[2]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 too; keep its message short and ours
        self.print_usage(sys.stderr)
        raise SystemExit(f"capture/run.py diff: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="capture/run.py diff", description=__doc__.splitlines()[2].strip())
    parser.add_argument("old", metavar="OLD", help="capture directory, or a revision of --miles-src")
    parser.add_argument("new", metavar="NEW", help="capture directory, or a revision of --miles-src")
    parser.add_argument("--miles-src", default=os.environ.get("MILES_SRC"),
                        help="Miles checkout or git dir to read revisions from (default $MILES_SRC)")
    parser.add_argument("--pages-root", type=Path, default=ROOT, help="project whose manual.json lists the pages")
    parser.add_argument("--pages-at", choices=["auto", "old", "new"], default="auto",
                        help="which side's line numbers the pages' {src} references use (default: OLD, or NEW "
                             "when the project's capture/miles was read at NEW's commit)")
    parser.add_argument("--megatron-src", default=os.environ.get("MEGATRON_SRC"),
                        help="Megatron-LM checkout or git dir, to include Megatron's flag family in revisions")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--cited-only", action="store_true", help="list only the changes a page cites")
    return parser


def pages_commit(pages_root: Path) -> str | None:
    """The Miles commit the project's own capture read (what its pages' line numbers refer to)."""
    try:
        return json.loads((pages_root / "capture" / "miles" / "flags.json").read_text("utf-8"))["provenance"]["commit"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pages_side(old: Side, new: Side, pages_root: Path, pages_at: str) -> str:
    """Which side's line numbers the pages cite: OLD (a re-pin), unless the project's capture is NEW's commit."""
    if pages_at != "auto":
        return pages_at
    commit = pages_commit(pages_root)
    if commit and commit == new.provenance.get("commit") and commit != old.provenance.get("commit"):
        return "new"
    return "old"


def diff(old: Side, new: Side, pages_root: Path, pages_at: str = "auto") -> dict:
    """The report for two loaded sides and the pages under ``pages_root``."""
    pages, refs = load_refs(pages_root)
    at = pages_side(old, new, pages_root, pages_at)
    base, other = (old, new) if at == "old" else (new, old)
    changes = [*flag_changes(old, new), *family_changes(old, new), *metric_changes(old, new),
               *model_changes(old, new), *computed_changes(old, new), *src_changes(base, other, refs)]
    attach(changes, refs)
    return build(old, new, changes, pages, refs, str(pages_root), at)


def main(argv: list[str]) -> int:
    """Parse, load both sides, compare, print; 0 nothing cited changed, 1 something did, 2 bad input."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None) and isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        return 0 if exc.code in (0, None) else 2
    try:
        megatron = open_source(args.megatron_src) if args.megatron_src else None
    except SourceError as exc:
        print(f"capture/run.py diff: error: --megatron-src: {exc}", file=sys.stderr)
        return 2
    try:
        old = load_side(args.old, args.miles_src, megatron)
        new = load_side(args.new, args.miles_src, megatron)
        report = diff(old, new, args.pages_root.resolve(), args.pages_at)
    except (SideError, PagesError) as exc:
        print(f"capture/run.py diff: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
    else:
        print(text(report, cited_only=args.cited_only))
    return report["exit"]
