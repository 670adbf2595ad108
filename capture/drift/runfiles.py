"""The run files against a new extraction: which flags each run passes that the new Miles lacks or changed.

The campaign (``capture/run.py campaign``, ``tox -e capture``) adds this to its drift report after it
refreshes capture/miles/ from the image, and refuses to record a run whose flags drifted unless
``--accept-drift`` names each of them. The comparison is the reader's own (``miles_tree.compare`` and
``render``, which ``preflight.py --compare-image`` prints): the book's side is built from the previous
extraction, the pages and the run files (``miles101.book_miles.book_side``), the new side from the
refreshed extraction.
"""
from __future__ import annotations

from pathlib import Path

from miles101.book_miles import book_side, extraction_doc
from miles101.tools.miles_tree import compare, flag_layout, flag_table, metric_table, render


def extraction_side(capture: Path) -> dict:
    """A capture directory's flags and metric keys in the shape ``compare`` reads for an image."""
    flags, metrics = extraction_doc(capture, "flags.json"), extraction_doc(capture, "metrics.json")
    prov = flags["provenance"]
    return {"commit": prov["commit"], "date": prov["commit_date"], "read_from": prov["read_from"],
            "flags": flag_table(flags["flags"]), "metrics": metric_table(metrics["metrics"]),
            "layout": flag_layout(flags["flags"], lines=flags.get("lines"))}


def run_file_report(previous: Path, current: Path, root: Path) -> dict:
    """The reader's comparison, with the previous extraction as the book and the refreshed one as the image."""
    return compare(book_side(root, previous), extraction_side(current))


def drifted(report: dict) -> dict[str, list[str]]:
    """Run id -> the flags it passes that the new extraction lacks or changed (shown on a page or not)."""
    out: dict[str, list[str]] = {}
    runs = [r for page in report["pages"] for r in page["runs"]] + report["lab_runs"]
    for run in runs:
        out[run["run"]] = sorted({*out.get(run["run"], []), *(c["flag"] for c in run["flags"])})
    return out


def refused(report: dict, accepted: set[str]) -> dict[str, list[str]]:
    """Run id -> its drifted flags that ``--accept-drift`` does not name (a run listed here is not recorded)."""
    return {run: left for run, flags in drifted(report).items() if (left := [f for f in flags if f not in accepted])}


def text(report: dict, label: str) -> str:
    """The report as the reader's command prints it, the refreshed extraction in the image's place."""
    return render(report, label)
