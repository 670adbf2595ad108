"""`python3 capture/run.py explain KIND:KEY`: where one cited thing comes from, from its file to the pages.

It reads the kinds table (`miles101.kinds`) for where the kind is declared, resolves the key as the
build does (`miles101.resolve`), says the sentence a reader sees on hover for a value, and lists
every page line that cites it. Exit 1 when the key does not resolve (the resolver's problem is printed).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from miles101.book import load_book
from miles101.data import Capture, Value
from miles101.intake import load_capture
from miles101.kinds import BY_NAME, provenance_text
from miles101.pages import Ref, role_key, scan_pages
from miles101.problems import Problem
from miles101.resolve import Resolved, dependency, resolve

ROOT = Path(__file__).resolve().parent.parent


def record_file(kind: str, result: Resolved, capture: Capture) -> str:
    """The file that holds the record a reference resolves to (the kind's home when no one file does): for a
    measured value, its recording's values.json once the run is recorded, its run file while it is pending."""
    if isinstance(result.value, Value):
        d = result.value.detail
        if d.get("file"):
            return str(d["file"])
        if kind == "measured":
            run = d["run"]
            return f"capture/gpu/{run}/values.json" if capture.recorded(run) else f"capture/runs/{run}.yaml"
    if kind in ("run", "run-arg"):
        return f"capture/runs/{dependency(kind, result.key)[1]}.yaml"
    if kind == "series":
        return f"capture/series/{result.key}.json"
    return BY_NAME[kind].reads or BY_NAME[kind].home


def page_refs(root: Path) -> list[Ref]:
    """Every reference of the book's pages, read once for all the keys `explain` is asked about."""
    book, _ = load_book(root / "manual.json")
    return scan_pages(root, book.page_files if book else [])


def explain(root: Path, capture: Capture, spec: str, refs: list[Ref] | None = None) -> tuple[list[str], bool]:
    """The lines `explain` prints for `KIND:KEY`, and whether the key resolved (`refs`: `page_refs(root)`, read
    here when not given)."""
    kind, sep, text = spec.partition(":")
    if not sep or kind not in BY_NAME:
        known = ", ".join(BY_NAME)
        return [f"cannot read {spec!r} as KIND:KEY. Fix: name one of the kinds ({known}), e.g. fact:spark.memory."], False
    row = BY_NAME[kind]
    result = resolve(capture, kind, text)
    if isinstance(result, Problem):
        return [f"{spec}: {result}"], False
    lines = [f"{kind}:{result.key}", f"  kind: {kind} (declared in {row.home})"]
    if kind != "issue":  # an issue lives in its thread: the link below
        lines.append(f"  file: {record_file(kind, result, capture)}")
    if kind == "measured" and isinstance(result.value, Value) and capture.recorded(result.value.detail["run"]):
        lines.append(f"  declared in: capture/runs/{result.value.detail['run']}.yaml")
    if isinstance(result.value, Value):
        lines.append(f"  shown: {result.extra['shown']}")
        lines.append(f"  where it comes from: {provenance_text(result.value)}")
    elif kind == "flag":
        rec = result.value[0]
        lines.append(f"  defined at: {rec.get('file')}:{rec.get('line')} (Miles {str(capture.provenance.get('commit'))[:9]})")
    elif kind in ("default", "run-arg"):
        lines.append(f"  shown: {result.extra.get('text', result.value)}")
    elif "url" in result.extra:
        lines.append(f"  link: {result.extra['url']}")
    key = role_key(kind, text) if kind not in ("run", "series") else text
    refs = page_refs(root) if refs is None else refs
    cites = sorted((r for r in refs if r.kind == kind and r.key == key), key=lambda r: (r.file, r.line))
    lines.append(f"  cited on {len(cites)} page line(s):" if cites else "  cited by no page.")
    lines.extend(f"    {r.file}:{r.line}" for r in cites)
    return lines, True


def terminal_line(text: str) -> str:
    """One printed line as text: a key's (or a record's) escapes, line breaks and bidi overrides written as their
    Python escapes (`\\x1b`, `\\n`, `\\u202e`), so no echoed input moves the cursor or forges a `FAIL:` line."""
    return "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="capture/run.py explain", description=__doc__.splitlines()[0])
    parser.add_argument("refs", nargs="+", metavar="KIND:KEY", help="e.g. fact:spark.memory or flag:--num-rollout")
    args = parser.parse_args(argv)
    capture = load_capture(ROOT)
    refs = page_refs(ROOT)
    ok = True
    for spec in args.refs:
        lines, found = explain(ROOT, capture, spec, refs)
        print("\n".join(map(terminal_line, lines)))
        ok = ok and found
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
