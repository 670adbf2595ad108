"""7.1's symptoms: one data file (capture/symptoms.json), embedded in read_run.py, checked against the page.

    python3 -m capture.lab.symptoms --write   # regenerate read_run.py's embedded tables
    python3 -m capture.lab.symptoms           # check: exit 1 and say what differs

read_run.py is one standard-library file that readers download alone, so it cannot read the data
file at run time; it carries a copy (SYMPTOMS_JSON, CUTOFFS) that this module writes and checks.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from miles101.problems import ProblemError
from miles101.rulefiles import load_cutoffs, load_symptoms

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "capture" / "symptoms.json"
READER_REFS = ROOT / "capture" / "references" / "reader.json"
READ_RUN = ROOT / "_ext" / "miles101" / "tools" / "read_run.py"

SYM_START = "# --- symptoms: generated from capture/symptoms.json by `python3 -m capture.lab.symptoms --write`; do not edit ---\n"
SYM_END = "# --- end symptoms ---\n"
CUT_START = "# --- cut-offs: generated from capture/references/reader.json; do not edit by hand ---\n"
CUT_END = "# --- end cut-offs ---\n"


def load() -> dict[str, Any]:
    """capture/symptoms.json through the gate's reader and checks (miles101.rulefiles)."""
    return load_symptoms(ROOT)


def cutoffs() -> dict[str, float]:
    """The reader's thresholds (capture/references/reader.json), checked: each one number."""
    return load_cutoffs(ROOT)


def symptoms_block(data: dict[str, Any]) -> str:
    text = json.dumps(data, indent=1, ensure_ascii=True)
    assert "'''" not in text
    return SYM_START + "SYMPTOMS_JSON = r'''" + text + "'''\n" + SYM_END


def cutoffs_block(cuts: dict[str, float]) -> str:
    body = "".join(f"    {json.dumps(k)}: {v!r},\n" for k, v in cuts.items())
    return CUT_START + "CUTOFFS: dict[str, float] = {\n" + body + "}\n" + CUT_END


def _replace(src: str, start: str, end: str, block: str) -> str:
    a, b = src.index(start), src.index(end) + len(end)
    return src[:a] + block + src[b:]


def render(src: str) -> str:
    """read_run.py's source with both generated blocks brought up to date."""
    src = _replace(src, SYM_START, SYM_END, symptoms_block(load()))
    return _replace(src, CUT_START, CUT_END, cutoffs_block(cutoffs()))


# --- the page -------------------------------------------------------------------------------

#: An entry's paragraphs, in order: the symptom, then the check and the fix for its first cause, then the
#: causes (further ones numbered, each with what tells it apart and its fix), then the source.
FIELDS = ("**Symptom.**", "**Check.**", "**Fix.**", "**Cause.**", "**Source.**")
OLD_ORDER = ("**Symptom.**", "**Cause.**", "**Check.**", "**Fix.**", "**Source.**")
#: The opening (the Check and Fix paragraphs' prose, code blocks left out) is at most this many words.
OPENING_WORDS = 80
#: Entries still in the old order, each with why (empty when none waits).
OPENING_PENDING: dict[str, str] = {
    "gb10-ptxas-sm121a": "its Fix is reworded in parallel (issue 45, the TRITON_PTXAS_PATH fix); reorder it after that merge",
}


def opening_words(body: str) -> int:
    """Words of an entry's Check and Fix paragraphs, without their code blocks."""
    check, fix, cause, end = (body.find(f) for f in ("**Check.**", "**Fix.**", "**Cause.**", "**Source.**"))
    stop = cause if fix < cause < end else end
    prose = re.sub(r"```.*?```", " ", body[check:stop], flags=re.S)
    return len(prose.split())


ENTRY_RE = re.compile(r"^\((?P<label>[a-z0-9-]+)\)=\n### (?P<title>[^\n]+)\n(?P<body>.*?)(?=^\([a-z0-9-]+\)=\n|^## |\Z)",
                      re.M | re.S)


def page_entries(page: str) -> dict[str, dict[str, str]]:
    """label → {title, body, section} for every labelled ### entry of 7.1."""
    out = {}
    for m in ENTRY_RE.finditer(page):
        before = page[: m.start()]
        sec = re.findall(r"^## (.+)$", before, re.M)
        out[m["label"]] = {"title": m["title"], "body": m["body"], "section": sec[-1] if sec else ""}
    return out


def check_page(page: str, data: dict[str, Any]) -> list[str]:
    """Where the page and the data file disagree (empty when they agree)."""
    errs: list[str] = []
    entries = page_entries(page)
    headings = re.findall(r"^### (.+)$", page, re.M)
    if len(headings) != len(entries):
        errs.append(f"{len(headings)} ### headings but {len(entries)} carry a (label)= line")
    ids = [s["id"] for s in data["symptoms"]]
    if list(entries) != ids:
        errs.append(f"entries differ in set or order: page {list(entries)} vs data {ids}")
    for s in data["symptoms"]:
        e = entries.get(s["id"])
        if e is None:
            continue
        where = f"7.1 ({s['id']})"
        if e["title"] != s["title"]:
            errs.append(f"{where}: heading {e['title']!r} != data title {s['title']!r}")
        if e["section"] != s["section"]:
            errs.append(f"{where}: under {e['section']!r}, data says {s['section']!r}")
        body = e["body"]
        for field in FIELDS:
            if field not in body:
                errs.append(f"{where}: no {field} paragraph")
        fields = OLD_ORDER if s["id"] in OPENING_PENDING else FIELDS
        order = [body.find(f) for f in fields]
        if -1 not in order and order != sorted(order):
            errs.append(f"{where}: fields out of order ({', '.join(f.strip('*.').lower() for f in fields)})")
        words = opening_words(body)
        if s["id"] not in OPENING_PENDING and words > OPENING_WORDS:
            errs.append(f"{where}: the opening check and fix run {words} words; keep them to {OPENING_WORDS} "
                        "(the first cause's check and fix; move further causes' checks and fixes into the Cause list)")
        for g in s["grep"]:
            if f"`{g}`" not in body:
                errs.append(f"{where}: the grep string `{g}` is not quoted on the page")
        block = re.search(r"\*\*Check\.\*\*.*?```(?:bash|text)\n(.*?)\n```", body, re.S)
        if not block:
            errs.append(f"{where}: no check code block")
        elif block[1] != s["check"]:
            errs.append(f"{where}: check block {block[1]!r} != data {s['check']!r}")
        causes = s.get("causes")
        if causes:
            start = body.find("**Cause.**")
            ends = [body.find(f, start + 1) for f in FIELDS] + [len(body)]
            cause = body[start: min(x for x in ends if x > start)]
            listed = re.findall(r"^(\d+)\. ", cause, re.M)
            if listed != [str(i) for i in range(1, len(causes) + 1)]:
                errs.append(f"{where}: the data lists {len(causes)} causes in the order to check; the page's Cause "
                            f"paragraph numbers {len(listed)} (one numbered item per cause, in the data's order)")
        for flag in re.findall(r"--[a-z][a-z0-9-]+", s["fix"]):
            fix = body[body.find("**Fix.**"): body.find("**Source.**")]
            if flag not in fix:
                errs.append(f"{where}: the tool's fix names {flag}, the page's Fix does not")
    return errs


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    src = READ_RUN.read_text(encoding="utf-8")
    try:
        new = render(src)
    except ProblemError as exc:  # a broken rule file: named with its place and fix, never a traceback
        print(exc.problem, file=sys.stderr)
        return 1
    if "--write" in argv:
        READ_RUN.write_text(new, encoding="utf-8")
        print(f"wrote {READ_RUN.relative_to(ROOT)}")
        return 0
    errs = [] if new == src else ["read_run.py's embedded tables are stale: python3 -m capture.lab.symptoms --write"]
    data = load()
    errs += check_page((ROOT / data["page"]).read_text(encoding="utf-8"), data)
    for e in errs:
        print(e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
