"""Every problem the book can have, by subtype: the build warns `manual.<subtype>`, --check prints the same.

Warnings are an API (MyST-Parser's `MystWarnings` is the model): tests and `suppress_warnings`
use these names, and each member says when it is given (`Subtype.when`, AUTHORING.md's table).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Subtype(Enum):
    """The `manual.<subtype>` warning types, each with when it is given (AUTHORING.md's table, written by
    `python3 dev.py authoring` from these members)."""

    when: str  #: when the warning is given (Markdown)

    def __new__(cls, value: str, when: str) -> Subtype:
        member = object.__new__(cls)
        member._value_ = value
        member.when = when
        return member

    BOOK = ("book",
        "`manual.json` is not valid: its JSON, its schema, or a cross-check such as a part's accent or a "
        "section's file")
    UNLISTED_PAGE = ("unlisted_page",
        "a page under `sections/` that `manual.json` does not list")
    UNKNOWN_FLAG = ("unknown_flag",
        "a flag Miles does not have, or one with no extracted default for `{default}`")
    UNKNOWN_METRIC = ("unknown_metric",
        "a metric key Miles does not log")
    UNKNOWN_SOURCE = ("unknown_source",
        "a `{src}` file or line that is not in Miles at the captured commit")
    UNKNOWN_VALUE = ("unknown_value",
        "a measured, computed, fact, reference, threshold or cross-check key, or a run, that is not "
        "declared; a flag a run file does not pass (`{run-arg}`); a plate value its run does not declare; "
        "an option, model or coefficient the calculator (`{fit-calculator}`, `{fit-compare}`) lacks")
    BAD_FORMAT = ("bad_format",
        "a format spec that does not fit its value, a directive option that cannot be used, a formula "
        "MathML cannot show")
    BAD_REFERENCE = ("bad_reference",
        "role text that cannot be read (an issue link, a `{src}`, a `{run-arg}`), a key cited as a "
        "reference when it is a threshold or the other way round, a flag with no single default, a figure "
        "whose id is not a slug or that lacks a title, caption or diagram, a plate without a diagram; a "
        "time product off by more than its rounding, a `≈ N`, a number in a command or a quantity in "
        "words with no source (see \"Numbers the gates recompute or hold to a source\")")
    DUPLICATE = ("duplicate",
        "a flag documented twice, a figure id used twice")
    MARKUP = ("markup",
        "raw HTML in a page, a role left open, a page that is not UTF-8")
    CAPTURE = ("capture",
        "a file under `capture/` missing, unreadable, or failing its schema or the data rules")
    MERMAID = ("mermaid",
        "drawing the diagrams (`dev.py draw`): mermaid's CLI or Chromium is missing, or the CLI fails")
    DIAGRAM_DRAWING = ("diagram_drawing",
        "a diagram's committed drawing (`drawings/`, shown by every edition, the web included) is missing "
        "or was drawn from another version: run `python3 dev.py draw` and commit `drawings/`")
    SERVED_TOOL = ("served_tool",
        "`miles_tree.py`'s BOOK block (what `preflight.py --compare-image` compares an image with) no "
        "longer matches `capture/miles/`, the run files, the pin in `manual.json` or the pages (their "
        "titles, `{run-command}` and `{metric}`); `python3 -m miles101.book_miles --write` regenerates it")

    def __str__(self) -> str:
        return f"manual.{self.value}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong, where it is, and how to fix it: the one problem type of the book and `--check`.

    `where` is "file", "file:line", "file:line:col" or "file:$.json.path"; it is empty for a page
    reference, whose place the caller knows. A problem that is not `fatal` lets the build go on.
    """

    subtype: Subtype
    message: str
    fix: str
    where: str = ""
    fatal: bool = True

    @property
    def file(self) -> str:
        """The file `where` names (`where` less its place)."""
        return self.where.split(":", 1)[0]

    @property
    def location(self) -> str:
        """What Sphinx prints before the warning: `where`, with line 1 when it names a whole file."""
        return self.where if ":" in self.where or not self.where else f"{self.where}:1"

    def __str__(self) -> str:
        text = f"{self.message} Fix: {self.fix}" if self.fix else self.message
        return f"{self.where}: {text}" if self.where else text


class ProblemError(Exception):
    """A reader that cannot go on raises its `problem` (pickled and printed as the problem itself)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


def capture_problem(where: str, message: str, fix: str) -> Problem:
    """A problem of a capture file (`manual.capture`) at `where`."""
    return Problem(Subtype.CAPTURE, message, fix, where)


def json_path(parts: Iterable[Any]) -> str:
    """The place of a value inside a parsed document, as a problem's `where` names it: `$.flags[3].name`."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(p)):
            out += f".{p}"
        else:
            out += f"[{json.dumps(str(p))}]"
    return out
