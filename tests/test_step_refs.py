"""References to 1.1's checklist go through its steps' anchors (issue 57 item 8), and a number in the link
text is the step's place in the list: renumber the steps and this test names every link that went stale."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md"
#: A step of the checklist: its anchor, then its heading (so the page menu lists it): `(first-run-x)=` and
#: `### Step N: Title · prompt`.
STEP = re.compile(r"^\((?P<label>first-run-[a-z-]+)\)=\n### Step (?P<n>\d+): ", re.M)
#: A link to a step: {ref}`step 5 <first-run-preflight>`, {ref}`steps 7 <...>`, {ref}`9 <...>`.
REF = re.compile(r"\{ref\}`(?P<text>[^`<]*?)\s*<(?P<label>first-run-[a-z-]+)>`")
#: A step of 1.1 named by number in plain text from another page.
PLAIN = re.compile(r"[Ss]teps? \d+ of \{doc\}`1-1-run-grpo-on-one-gpu`|\{doc\}`1-1-run-grpo-on-one-gpu`,? \(?steps? \d+")


def steps() -> dict[str, int]:
    found = [(int(m["n"]), m["label"]) for m in STEP.finditer(PAGE.read_text(encoding="utf-8"))]
    assert [n for n, _ in found] == list(range(1, len(found) + 1)), found
    return {label: n for n, label in found}


def pages() -> list[Path]:
    return sorted((ROOT / "sections").glob("*.md")) + [ROOT / "front.md"]


def test_every_checklist_step_has_an_anchor() -> None:
    """Each numbered heading of "Do this, in order" (up to the next part of the page) has its anchor."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("(first-run-checklist)=\n## "):].split("\n", 2)[2]
    section = re.split(r"^## ", section, flags=re.M)[0]
    headings = re.findall(r"^### Step \d+: ", section, re.M)
    assert len(headings) == len(steps()) >= 9


def test_a_step_number_in_a_link_is_the_steps_place() -> None:
    places = steps()
    stale = []
    for page in pages():
        for m in REF.finditer(page.read_text(encoding="utf-8")):
            assert m["label"] in places, f"{page.name}: {m[0]} names no step of 1.1's checklist"
            number = re.search(r"\d+", m["text"])
            if number and int(number[0]) != places[m["label"]]:
                stale.append(f"{page.name}: {m[0]} (that step is number {places[m['label']]})")
    assert not stale, stale


def test_no_page_names_a_step_of_1_1_by_number_alone() -> None:
    plain = [f"{p.name}: {m[0]}" for p in pages() for m in PLAIN.finditer(p.read_text(encoding="utf-8"))]
    assert not plain, f"link the step instead: {{ref}}`step N <first-run-...>`: {plain}"
