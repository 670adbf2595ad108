"""The book's side of the reader's image comparison, generated into the served ``tools/miles_tree.py``.

    python3 -m miles101.book_miles --write   # regenerate miles_tree.py's BOOK block
    python3 -m miles101.book_miles           # check: exit 1 and say how to fix when it is stale

``miles_tree.py`` is one standard-library file the reader downloads beside ``preflight.py``, so it
cannot read the capture at run time; it carries the book's side (BOOK_JSON): the commit the flags were
read at and the pin, every flag's default and choices and every metric key of capture/miles/, the flags
each run file passes (base filled in), the pages that show each run's command (``{run-command}``), and
the metric keys the pages name (``{metric}``) or the run files record. A test holds it equal to this.
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from .book import Book, load_book
from .problems import ProblemError, capture_problem
from .pages import ROLE, role_key
from .runfiles import resolve_runs
from .strict import parse_json_bytes, parse_yaml_bytes, read_bytes
from .tools.preflight import _flag, arg_groups

# The served tool itself (tools/miles_tree.py, with tarfile) is imported by the functions that use it: the build
# imports this module for its check of BOOK, which a build whose inputs are unchanged answers from a memo.

ROOT = Path(__file__).resolve().parents[2]
TOOL = Path(__file__).with_name("tools") / "miles_tree.py"
START = "# --- book: generated from capture/miles/, capture/runs/ and the pages by `python3 -m miles101.book_miles --write`; do not edit ---\n"
END = "# --- end book ---\n"
RUN_COMMAND = re.compile(r"^\s*(`{3,}|:{3,})\{run-command\}\s+(?P<run>\S+)\s*$", re.M)


def page_title(root: Path, rel: str) -> str:
    """``1.1 Run GRPO on one GPU`` for sections/1-1-..., ``front page`` for the front page."""
    text = (root / rel).read_text(encoding="utf-8")
    heading = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), rel)
    number = re.match(r"sections/(\d+|[A-Z])-(\d+)-", rel)
    return f"{number[1]}.{number[2]} {heading}" if number else f"front page: {heading}"


#: Each extraction file's list of records, and the string field every record has.
EXTRACTION_RECORDS = {"flags.json": ("flags", "name"), "metrics.json": ("metrics", "key")}


def extraction_doc(capture: Path, name: str) -> Any:
    """``flags.json`` or ``metrics.json`` of an extraction directory, through the strict reader (a ProblemError
    naming the file and line when it does not read), in the shape the comparison reads (`extraction_shape`)."""
    path = capture / name
    fix = "restore it from git, or re-run the extraction (`python3 capture/run.py`)"
    doc = parse_json_bytes(read_bytes(path, str(path)), str(path), fix)
    wrong = extraction_shape(doc, name)
    if wrong:
        where, what = wrong
        raise ProblemError(capture_problem(f"{path}:{where}", f"{what}: this is not an extraction's {name}.", f"{fix}."))
    return doc


def extraction_shape(doc: Any, name: str) -> tuple[str, str] | None:
    """(JSON path, what is wrong) where `doc` is not an extraction's flags.json or metrics.json as the comparison
    reads it: a provenance block of strings, and a list of records each with its name (aliases a list of names)."""
    records, field = EXTRACTION_RECORDS[name]
    if not isinstance(doc, dict):
        return "$", f"the top level is a JSON {type(doc).__name__}"
    prov = doc.get("provenance")
    if not isinstance(prov, dict):
        return "$.provenance", "there is no provenance block (commit, commit_date, read_from)"
    for key in ("commit", "commit_date", "read_from"):
        if not isinstance(prov.get(key), str):
            return f"$.provenance.{key}", f"provenance.{key} is {json.dumps(prov.get(key))[:40]}, not a string"
    items = doc.get(records)
    if not isinstance(items, list):
        return f"$.{records}", f"{records} is a JSON {type(items).__name__ if items is not None else 'null'}, not a list"
    for i, rec in enumerate(items):
        if not isinstance(rec, dict) or not isinstance(rec.get(field), str):
            return f"$.{records}[{i}]", f"{records}[{i}] is not a record with a string {field!r}"
        aliases = rec.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            return f"$.{records}[{i}].aliases", f"{records}[{i}].aliases is not a list of names"
        odd = _non_finite(rec)
        if odd is not None:
            return f"$.{records}[{i}]{odd[0]}", f"{records}[{i}]{odd[0]} is {odd[1]}, a number no extraction writes"
    return None


def _non_finite(node: Any, at: str = "") -> tuple[str, str] | None:
    """(JSON path under `node`, the value) of the first Infinity or NaN in it (JSON's parser takes them), or None."""
    if isinstance(node, float) and not math.isfinite(node):
        return at, json.dumps(node)
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found = _non_finite(value, f"{at}.{key}" if isinstance(key, str) else f"{at}[{key}]")
        if found is not None:
            return found
    return None


def load_runs(runs_dir: Path) -> dict[str, dict]:
    """Every run file, its base filled in (the core's resolve_runs)."""
    raw = {p.stem: parse_yaml_bytes(read_bytes(p, str(p)), str(p)) for p in sorted(runs_dir.glob("*.yaml"))}
    runs, errors = resolve_runs(raw)
    if errors:
        raise ValueError("; ".join(errors))
    return runs


def book_side(root: Path = ROOT, capture: Path | None = None, book: Book | None = None) -> dict[str, Any]:
    """BOOK: what the book's pages and run files depend on in Miles, from the project under ``root``
    (its extraction from ``capture``, default ``root/capture/miles``: the campaign passes the previous one).

    ``book`` is ``root/manual.json`` loaded already (the build's); without it, it is loaded here."""
    from .tools.miles_tree import PREFIXES, flag_layout, flag_table, metric_table

    capture = capture or root / "capture" / "miles"
    flags_doc, metrics_doc = extraction_doc(capture, "flags.json"), extraction_doc(capture, "metrics.json")
    if book is None:
        book, problems = load_book(root / "manual.json", root)
        if book is None:
            raise ValueError("; ".join(map(str, problems)))
    flags = flag_table(flags_doc["flags"])
    runs_raw = load_runs(root / "capture" / "runs")
    pages, metric_reads, shown_by = [], {}, {}
    for rel in book.page_files:
        text = (root / rel).read_text(encoding="utf-8")
        shown = list(dict.fromkeys(m["run"] for m in RUN_COMMAND.finditer(text)))
        title = page_title(root, rel)
        pages.append({"file": rel, "title": title, "runs": shown})
        for run_id in shown:
            shown_by.setdefault(run_id, []).append(title.split(" ", 1)[0] if rel != book.data["front"] else "front")
        for m in ROLE.finditer(text):
            if m["kind"] == "metric":
                metric_reads.setdefault(role_key("metric", m["text"]), []).append(title.split(" ", 1)[0])
    runs, passthrough = {}, set()
    for run_id, run in sorted(runs_raw.items()):
        values = {_flag(f): " ".join(v) if v else "" for f, v in arg_groups(run["args"]) if f}
        passthrough |= {o for o in values if o not in flags}
        runs[run_id] = {o: values[o] for o in sorted(values) if o in flags}
        for value in (run.get("values") or {}).values():
            src = str(value.get("source", ""))
            if src.split("/", 1)[0] in PREFIXES:
                where = shown_by.get(run_id) or [f"run {run_id}"]
                metric_reads.setdefault(src, []).extend(where)
    prov = flags_doc["provenance"]
    pin = book.data["pin"]
    return {
        "schema": "miles101-book-miles/1",
        "read": {"commit": prov["commit"], "date": prov["commit_date"]},
        "pin": {"commit": pin["commit"], "date": pin.get("date")},
        "pages": [p for p in pages if p["runs"]],
        "runs": runs,
        "passthrough": sorted(passthrough),
        "metric_reads": {k: sorted(set(v)) for k, v in sorted(metric_reads.items())},
        "flags": flags,
        "metrics": metric_table(metrics_doc["metrics"]),
        "layout": flag_layout(flags_doc["flags"], only={o for passed in runs.values() for o in passed},
                              lines=flags_doc.get("lines")),
    }


def block(data: dict[str, Any]) -> str:
    """The generated block: one JSON document, one page, run, flag or metric key a line."""
    def dump(v: Any) -> str:
        return json.dumps(v, ensure_ascii=True)

    parts = []
    for key, value in data.items():
        if key == "layout":  # each file's flag order a line, then each passed flag's place a line
            body = ",\n".join(f"  {dump(k)}: {{\n" + ",\n".join(f"   {dump(a)}: {dump(b)}" for a, b in v.items()) + "\n  }"
                              for k, v in value.items())
            parts.append(f" {dump(key)}: {{\n{body}\n }}")
        elif isinstance(value, dict) and key in ("runs", "metric_reads", "flags", "metrics"):
            body = ",\n".join(f"  {dump(k)}: {dump(v)}" for k, v in value.items())
            parts.append(f" {dump(key)}: {{\n{body}\n }}")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            body = ",\n".join(f"  {dump(v)}" for v in value)
            parts.append(f" {dump(key)}: [\n{body}\n ]")
        else:
            parts.append(f" {dump(key)}: {dump(value)}")
    text = "{\n" + ",\n".join(parts) + "\n}"
    assert "'''" not in text and json.loads(text) == data
    return START + "BOOK_JSON = r'''" + text + "'''\n" + END


def render(src: str, data: dict[str, Any]) -> str:
    """miles_tree.py's source with its BOOK block brought up to date."""
    a, b = src.index(START), src.index(END) + len(END)
    return src[:a] + block(data) + src[b:]


#: How the sample names the image: one pulled by its digest (the digest itself is the reader's).
SAMPLE_IMAGE = "radixark/miles@sha256:<digest>"


def sample(book: dict[str, Any] | None = None) -> str:
    """What ``preflight.py --compare-image`` prints for an image built from the commit the book read
    (``book``: the served tool's BOOK by default).

    The image's side is the book's own tables: the extractor is one, so an image of that commit reads
    the same (tests/lab/test_compare_image.py runs the command itself on two stand-in images)."""
    from .tools.miles_tree import BOOK, compare, render as render_report

    book = BOOK if book is None else book
    image = {"commit": book["read"]["commit"], "date": book["read"]["date"],
             "read_from": SAMPLE_IMAGE.split("@", 1)[1].join(["image ", ""]),
             "flags": book["flags"], "metrics": book["metrics"], "layout": book.get("layout")}
    return render_report(compare(book, image), SAMPLE_IMAGE)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    src = TOOL.read_text(encoding="utf-8")
    new = render(src, book_side())
    if "--write" in argv:
        if new != src:
            TOOL.write_text(new, encoding="utf-8")
        print(f"{TOOL.relative_to(ROOT)}: BOOK {'written' if new != src else 'unchanged'}")
        return 0
    if new != src:
        print(f"{TOOL.relative_to(ROOT)}: its BOOK block is stale (the capture, a run file or a page changed); "
              "run `python3 -m miles101.book_miles --write`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
