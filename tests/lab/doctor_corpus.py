"""The log doctor scored on real cases: the corpus of public threads in tests/fixtures/doctor-corpus/.

    python3 tests/lab/doctor_corpus.py          # both sets: first right, in the top 3, no match, false alarms
    python3 tests/lab/doctor_corpus.py --cases  # and each case's expected entry beside the doctor's first three
    python3 tests/lab/doctor_corpus.py --read-run OLD.py   # the same figures for another read_run.py

The corpus is split by thread, mechanically, before any rule is written against it (`held_out`): the rules
are written against the development set alone; the held-out set is only scored (its file changes only by
additions, which `git log -p` shows). Standard library only, like read_run.py, which it loads by path and
runs as `read_run.py LOG --diagnose` does (`diagnosis`).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "doctor-corpus"
SETS = ("development", "held-out")
READ_RUN = ROOT / "_ext" / "miles101" / "tools" / "read_run.py"


def held_out(url: str) -> bool:
    """The split: a thread whose URL's SHA-256, read as a number, is even is held out."""
    return int(hashlib.sha256(url.encode("utf-8")).hexdigest(), 16) % 2 == 0


def load_set(name: str) -> dict[str, Any]:
    """One set's file (development.json or held-out.json), parsed."""
    return json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))


def _read_run(path: Path = READ_RUN) -> Any:
    spec = importlib.util.spec_from_file_location("m101_read_run_scored", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def diagnosis(rr: Any, excerpt: str) -> list[dict[str, Any]]:
    """The doctor's matches for one excerpt, read as `read_run.py LOG --diagnose` reads a file."""
    lines = rr.decode_log(excerpt.encode("utf-8")).splitlines()
    _, _, report = rr.report_of(lines, 10, rr.groups_in_log(lines))
    return rr.diagnose(lines, report, rr.settings_in_log(lines))


#: Held-out cases a rule was written from after the split, by mistake: each stays in its file (the held-out set only
#: grows) but is left out of the figures and listed apart, with how the rule came to see it. A held-out thread
#: that 7.1 cites is left out the same way, found by `cited_by_7_1`.
WRITTEN_AGAINST = {
    "sglang-10856": "engine-health-check-failed's health-check and 503 strings were taken from a gatherer's report "
                    "quoting this held-out thread (commit dfa5fc3); no development excerpt holds them",
}


PAGE_7_1 = ROOT / "sections" / "7-1-troubleshoot-by-symptom.md"
THREAD = re.compile(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)")


def cited_by_7_1(case: dict[str, Any]) -> bool:
    """Whether 7.1 cites the case's thread (as `owner/repo#N` or by URL): an entry that cites its own case was
    written with it in view, so the case is no evidence for it (the issue that asked for the entry named it)."""
    page = PAGE_7_1.read_text(encoding="utf-8")
    m = THREAD.match(case["url"])
    return case["url"] in page or bool(m and re.search(rf"{re.escape(m[1])}#{m[2]}(?!\d)", page))


def score(cases: list[dict[str, Any]], rr: Any, leave_out_cited: bool = False) -> dict[str, Any]:
    """The set's figures: of the failure cases with an error line and an expected entry, how many get it
    first and in the top three, and how many get no entry at all; false alarms on the healthy logs."""
    out: dict[str, Any] = {"cases": len(cases), "scored": 0, "first_right": 0, "top3": 0, "no_match": 0,
                           "described_only": 0, "outside_7_1": 0, "outside_named": 0, "healthy": 0,
                           "false_alarms": 0, "written_against": 0, "rows": []}
    for case in cases:
        ids = [m["id"] for m in diagnosis(rr, case["excerpt"])]
        row = {"id": case["id"], "expected": case["expected"], "got": ids[:3], "kind": "scored"}
        if case["id"] in WRITTEN_AGAINST or (leave_out_cited and cited_by_7_1(case)):
            out["written_against"] += 1
            row["kind"] = "written against"
        elif case["healthy"]:
            out["healthy"] += 1
            out["false_alarms"] += bool(ids)
            row["kind"] = "healthy"
        elif not case["has_error_line"]:
            out["described_only"] += 1
            row["kind"] = "described only"
        elif case["expected"] == "none":
            out["outside_7_1"] += 1
            out["outside_named"] += bool(ids)
            row["kind"] = "outside 7.1"
        else:
            out["scored"] += 1
            out["first_right"] += bool(ids) and ids[0] == case["expected"]
            out["top3"] += case["expected"] in ids[:3]
            out["no_match"] += not ids
        out["rows"].append(row)
    return out


def render(name: str, s: dict[str, Any], cases: bool) -> str:
    n = s["scored"]
    lines = [f"{name}: {s['cases']} cases; {n} with an error line and an entry to expect",
             f"  first entry right      {s['first_right']}/{n}",
             f"  right entry in top 3   {s['top3']}/{n}",
             f"  no match (error line)  {s['no_match']}/{n}",
             f"  healthy logs named     {s['false_alarms']}/{s['healthy']}  (false alarms)",
             f"  cause outside 7.1      {s['outside_7_1']} (an entry named for {s['outside_named']}); "
             f"description only {s['described_only']}"]
    if s["written_against"]:
        lines.append(f"  left out: {s['written_against']} case(s) a rule was written from (WRITTEN_AGAINST, or a "
                     "thread 7.1 cites)")
    if cases:
        for r in s["rows"]:
            mark = ""
            if r["kind"] == "scored":
                mark = "ok " if r["got"][:1] == [r["expected"]] else ("top3" if r["expected"] in r["got"] else "MISS")
            lines.append(f"    {mark:4} {r['id']:<34} {r['kind']:<15} expected {r['expected']:<32} got {r['got']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score read_run.py --diagnose on the corpus of public threads.")
    ap.add_argument("--cases", action="store_true", help="list each case's expected entry and the first three found")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--set", choices=SETS, action="append", dest="sets",
                    help="score this set only (repeatable; default both). Write rules against the development set's "
                    "cases alone: list the held-out set's cases only to report them")
    ap.add_argument("--read-run", type=Path, default=READ_RUN, metavar="FILE",
                    help="score another read_run.py (say, an earlier commit's: git show REV:PATH > FILE)")
    args = ap.parse_args(argv)
    rr = _read_run(args.read_run)
    names = args.sets or list(SETS)
    figures = {name: score(load_set(name)["cases"], rr, leave_out_cited=name == "held-out") for name in names}
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print("\n".join(render(name, figures[name], args.cases) for name in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
