"""A flag is documented by one ```{flag}``` block in the whole book: one rule for both gates (issue 51 §6).

The build's {flag} words its duplicates with `twice_on_page` and `documented_in`; `--check` runs
`book_flag_block_problems` over the page sources, naming each flag as the resolver does (its canonical name).
"""
from __future__ import annotations

from typing import Any

from .markup import directive_options
from .problems import Problem, Subtype
from .resolve import resolve

ON_PAGE_FIX = "keep one block and use {flag} inline elsewhere."
ACROSS_FIX = "keep the block in the section that teaches the flag; use {flag} inline in the other."


def twice_on_page(canonical: str) -> str:
    return f"the flag {canonical} is documented twice on this page."


def documented_in(canonical: str, first: str) -> str:
    return f"the flag {canonical} is documented here and in {first}."


def book_flag_block_problems(capture: Any, pages: list[tuple[str, str]]) -> list[Problem]:
    """Each {flag} block that documents a flag a block before it (on its page, or on an earlier page) documents."""
    out: list[Problem] = []
    first: dict[str, str] = {}
    for rel, text in pages:
        here: set[str] = set()
        for line, name, arg, _ in directive_options(text):
            if name != "flag":
                continue
            result = resolve(capture, "flag", arg)
            canonical = getattr(result, "extra", {}).get("canonical") if not isinstance(result, Problem) else None
            if not canonical:
                continue  # an unknown flag is named by the reference check
            doc = rel.removesuffix(".md")
            if canonical in here:
                out.append(Problem(Subtype.DUPLICATE, twice_on_page(canonical), ON_PAGE_FIX, f"{rel}:{line}"))
            elif canonical in first and first[canonical] != doc:
                out.append(Problem(Subtype.DUPLICATE, documented_in(canonical, first[canonical]), ACROSS_FIX,
                                   f"{rel}:{line}"))
            here.add(canonical)
            first.setdefault(canonical, doc)
    return out
