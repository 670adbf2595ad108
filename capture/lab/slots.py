"""The measured slots the pages cite, and whether each is filled: what `rehearse` and `tox -e capture` count.

A slot is a measured value a page cites: a `{measured}` role, a `{fit-compare}` block, or a value
the front page's `{book-plate}` shows. It is filled when the run has a valid recording and that
recording's values.json holds the value (derived from its steps); otherwise it is pending, with why.
A run file with `record: {spark: false, why: ...}` (or a `not_recorded` reason) is not recorded on
the Spark: its slots are counted apart.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from miles101.book import load_book
from miles101.data import Capture
from miles101.intake import load_capture
from miles101.pages import scan_pages


@dataclass
class Slot:
    key: str  # run.value
    pages: list[str]
    filled: bool = False
    why: str = ""  # why it stays pending (empty when filled)
    apart: str = ""  # the run file's reason not to record it on the Spark


def spark_exempt(run: dict) -> str:
    """The run file's reason not to be recorded on the Spark (`record: {spark: false, why}`, or a
    `not_recorded` reason where run files have that field), or ''."""
    rec = run.get("record") or {}
    if not rec.get("spark", True):
        return str(rec.get("why") or "not recorded on the Spark")
    return str(run.get("not_recorded") or "")


def cited(root: Path, capture: Capture | None = None) -> dict[str, list[str]]:
    """Every measured key the pages cite → the pages (file:line) citing it (`capture`: taken in when not given)."""
    book, _ = load_book(root / "manual.json", root)
    files = book.page_files if book is not None else []
    out: dict[str, list[str]] = {}
    for ref in scan_pages(root, files):
        if ref.kind == "measured":
            out.setdefault(ref.key, []).append(f"{ref.file}:{ref.line}")
    capture = capture or load_capture(root)
    for file in files:
        text = (root / file).read_text(encoding="utf-8") if (root / file).is_file() else ""
        if "{book-plate}" in text:
            for run_id, run in capture.runs.items():
                for name in run.get("plate") or []:
                    out.setdefault(f"{run_id}.{name}", []).append(f"{file} (plate)")
    return out


def slots(root: Path, capture: Capture | None = None, logged: dict[str, set[str]] | None = None,
          constant: dict[str, dict[str, str]] | None = None) -> list[Slot]:
    """Every cited slot with its state.

    `logged` (run → the keys its log holds) sharpens the reasons; `constant` (run → key → why) names
    keys Miles writes with one value whatever the run does, so a slot over one is not filled.
    """
    capture = capture or load_capture(root)
    out = []
    for key, pages in sorted(cited(root, capture).items()):
        run_id, _, name = key.partition(".")
        slot = Slot(key, pages)
        run = capture.runs.get(run_id)
        if run is None:
            slot.why = f"run not declared: no capture/runs/{run_id}.yaml"
            out.append(slot)
            continue
        slot.apart = spark_exempt(run)
        decl = (run.get("values") or {}).get(name)
        if decl is None:
            slot.why = f"value not declared: {run_id}.yaml has no values/{name}"
            out.append(slot)
            continue
        value = capture.value("measured", key)
        fixed = (constant or {}).get(run_id, {}).get(decl["source"])
        if value is not None and not value.pending:
            slot.filled = fixed is None
            slot.why = f"statistic not derivable: {decl['source']} is {fixed}" if fixed else ""
            out.append(slot)
            continue
        rec = capture.recordings.get(run_id)
        if rec is None:
            slot.why = f"run {run_id} has no valid recording"
        else:
            missing = ((rec.get("run") or {}).get("missing_values") or {}).get(name)
            keys = (logged or {}).get(run_id)
            if keys is not None and decl["source"] not in keys and not decl["source"].startswith("lab/"):
                slot.why = f"key never logged: {decl['source']} is in no line of the log"
            else:
                slot.why = f"statistic not derivable: {missing or decl['statistic'] + ' of ' + decl['source']}"
        out.append(slot)
    return out


def tally(found: list[Slot]) -> tuple[int, int, list[Slot], list[Slot]]:
    """(filled, counted, pending, apart): slots of runs not recorded on the Spark are not counted."""
    counted = [s for s in found if not s.apart]
    pending = [s for s in counted if not s.filled]
    return len(counted) - len(pending), len(counted), pending, [s for s in found if s.apart]


def render(found: list[Slot], label: str) -> list[str]:
    """The pending slots with why, the apart line, then `<label>: N/M measured slots filled`."""
    filled, total, pending, apart = tally(found)
    lines = [f"  pending {s.key} ({', '.join(s.pages[:2])}{' ...' if len(s.pages) > 2 else ''}): {s.why}"
             for s in pending]
    if apart:
        lines.append(f"{label}: {len(apart)} slot(s) of runs not recorded on the Spark, not counted: "
                     + "; ".join(f"{s.key} ({s.apart})" for s in apart))
    lines.append(f"{label}: {filled}/{total} measured slots filled")
    return lines
