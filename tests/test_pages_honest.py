"""The pages keep the manual's promises as text: no quantity typed by hand, no colour literal."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from buildutil import ROOT

PAGES = sorted((ROOT / "sections").glob("*.md")) + [ROOT / "front.md"]
UNITS = r"(?:GB|GiB|MB|MiB|TB|KB|KiB|ms|s|sec|seconds|minutes|hours|%|tok/s|tokens/s|W|°C|GHz|TFLOPS|bytes)"
QUANTITY = re.compile(r"(?<![\w.`/#-])\d[\d,]*(?:\.\d+)?\s?" + UNITS + r"(?![\w/])")
# A fence may be indented (a code block inside a list item, as in 1.1's checklist).
FENCE = re.compile(r"(?ms)^(?P<indent> *)(?P<fence>`{3,}|:{3,})(?P<head>[^\n]*)\n.*?^(?P=indent)(?P=fence)\s*$")
COLOUR = re.compile(r"(?<![\w/])#[0-9a-fA-F]{6}\b|\b(?:rgb|hsl)a?\(")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """Lines of prose: code and diagram fences blanked, roles and inline code removed."""
    def blank(m: re.Match) -> str:
        head = m["head"]
        if head.startswith("{flag}"):  # a flag block's text is prose
            return m.group(0)
        return "\n" * m.group(0).count("\n")

    text = FENCE.sub(blank, text)
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"\{[a-z-]+\}`[^`]*`", "", line)
        line = re.sub(r"`[^`]*`", "", line)
        line = re.sub(r"\]\([^)]*\)", "]", line)
        out.append((i, line))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_quantity_typed_by_hand(page: Path) -> None:
    found = [f"{page.name}:{i}: {m.group(0)!r}" for i, line in prose_lines(page.read_text(encoding="utf-8"))
             for m in QUANTITY.finditer(line)]
    assert not found, "quantities belong in {measured}, {computed} or {fact}: " + "; ".join(found)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_colour_literal(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not COLOUR.search(text), "colour nodes by meaning with the palette classes (AUTHORING.md)"


def test_the_lint_catches_a_typed_quantity() -> None:
    lines = dict(prose_lines("A step takes 12.5 s.\n\n```text\n40 GB in code is fine\n```\n{fact}`x` is 9 GB.\n"
                             "1. a step\n\n   ```text\n   0s in an indented block is code\n   ```\n   but 3 s here is prose\n"))
    assert QUANTITY.search(lines[1]) and not QUANTITY.search(lines[3]) and QUANTITY.search(lines[6])
    assert not QUANTITY.search(lines[4]) and not QUANTITY.search(lines[10]) and QUANTITY.search(lines[12])


def reference_pairs(capture) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(page, measured key) slots of the book, and those that carry a public reference on the same page.

    A slot is paired when a {reference} on that page lists the measured key in its `beside`.
    """
    from miles101.book import load_book
    from miles101.pages import scan_pages

    book, _ = load_book(ROOT / "manual.json", ROOT)
    slots: set[tuple[str, str]] = set()
    beside: set[tuple[str, str]] = set()
    for ref in scan_pages(ROOT, book.page_files):
        if ref.kind == "measured":
            slots.add((ref.file, ref.key))
        elif ref.kind == "reference" and (value := capture.value("reference", ref.key)) is not None:
            beside.update((ref.file, key) for key in value.detail.get("beside", []))
    return slots, slots & beside


def test_pending_values_carry_public_references(real_capture) -> None:
    """Issue 13's target: at least 40 pending slots of the book have a cited public reference beside them."""
    slots, paired = reference_pairs(real_capture)
    assert len(paired) >= 40, f"{len(paired)} of {len(slots)} measured slots have a public reference beside them"


def test_every_beside_key_is_declared(real_capture) -> None:
    """A reference's `beside` names measured values that exist, so the pairing count cannot lie."""
    capture = real_capture
    bad = [(key, b) for key in capture.value_keys("reference")
           for b in capture.value("reference", key).detail.get("beside", []) if capture.value("measured", b) is None]
    assert not bad, f"beside keys that no run file declares: {bad}"


def test_authoring_tables_are_current() -> None:
    """AUTHORING's tables of roles, directives and warnings are the ones `python3 dev.py authoring` writes from
    the kinds, markup and problem tables (every role, directive and `manual.*` subtype, and no other)."""
    from miles101.authoring import render

    text = (ROOT / "AUTHORING.md").read_text(encoding="utf-8")
    assert render(text) == text, "AUTHORING.md's tables are stale: run `python3 dev.py authoring` and commit it"
