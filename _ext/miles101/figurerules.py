"""The figure rules, one copy for both gates (issue 51 §6): a figure's id, its title and caption, its drawing,
and one id per figure in the whole book (the front page's plate, from manual.json, included).

The build's {diagram} and {book-plate} apply `figure_problems` and word their duplicates with `twice_on_page`
and `also_used_in`; `--check` runs `book_figure_problems` over the page sources.
"""
from __future__ import annotations

import re

from .markup import directive_options
from .problems import Problem, Subtype

FIGURE_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SAME_ID_FIX = "give each figure its own id."


def figure_problems(fig_id: str, options: dict[str, str], code: str) -> list[tuple[str, str]]:
    """(message, fix) for what one {diagram} cannot be: an id that is no slug, no :title: or :caption:, no drawing."""
    if not FIGURE_ID.match(fig_id):
        return [(f"figure id {fig_id!r} is not a lowercase slug.", "use lowercase letters, digits and hyphens, e.g. fig-grpo-step.")]
    missing = [o for o in ("title", "caption") if not (options.get(o) or "").strip()]
    if missing:
        return [(f"the figure {fig_id} has no :{missing[0]}:.",
                 "give every figure a :title: and a :caption: that says what to notice.")]
    if not code.strip():
        return [(f"the figure {fig_id} has no diagram.", "add the mermaid code.")]
    return []


def twice_on_page(fig_id: str) -> str:
    return f"the figure id {fig_id} is used twice on this page."


def also_used_in(fig_id: str, first: str) -> str:
    return f"the figure id {fig_id} is also used in {first}."


def _content(lines: list[str], start: int) -> str:
    """The body of the fenced directive opening at line `start` (1-based): after its options, up to its fence."""
    fence = re.match(r"\s*(`{3,}|:{3,})", lines[start - 1])[1]
    body = []
    for line in lines[start:]:
        if line.strip() == fence:
            break
        body.append(line)
    text = "\n".join(body)
    if text.lstrip().startswith("---"):  # a YAML options block
        text = text.lstrip()[3:].partition("\n---")[2]
    return "\n".join(ln for ln in text.split("\n") if not re.match(r"\s*:[\w-]+:", ln))


def book_figure_problems(pages: list[tuple[str, str]], plate_id: str | None = None) -> list[Problem]:
    """Every figure rule over the book's pages, (page file, text) in book order: each at its page and line.

    The plate's id (manual.json's plate.figure) counts as a figure of the page that holds {book-plate}.
    """
    out: list[Problem] = []
    first: dict[str, str] = {}
    for rel, text in pages:
        lines = text.split("\n")
        here: set[str] = set()
        for line, name, arg, options in directive_options(text):
            if name == "diagram":
                fig_id = arg
                for message, fix in figure_problems(fig_id, options, _content(lines, line)):
                    out.append(Problem(Subtype.BAD_REFERENCE, message, fix, f"{rel}:{line}"))
                if not FIGURE_ID.match(fig_id) or any(p.where == f"{rel}:{line}" for p in out):
                    continue
            elif name == "book-plate" and plate_id:
                fig_id = plate_id
            elif name in ("run-plot", "series-plot") and FIGURE_ID.match(options.get("id", "")):
                fig_id = options["id"]  # a plot is a figure too: its id is unique in the book
            else:
                continue
            if fig_id in here:
                out.append(Problem(Subtype.DUPLICATE, twice_on_page(fig_id), SAME_ID_FIX, f"{rel}:{line}"))
                continue
            here.add(fig_id)
            doc = rel.removesuffix(".md")
            if fig_id in first and first[fig_id] != doc:
                out.append(Problem(Subtype.DUPLICATE, also_used_in(fig_id, first[fig_id]), SAME_ID_FIX, f"{rel}:{line}"))
            first.setdefault(fig_id, doc)
    return out
