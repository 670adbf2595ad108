"""Every problem the book can have, by subtype: the build warns `manual.<subtype>`, --check prints the same.

Warnings are an API (MyST-Parser's `MystWarnings` is the model): tests and `suppress_warnings`
use these names, and each member's docstring-comment says when it is raised.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Subtype(Enum):
    """The `manual.<subtype>` warning types."""

    BOOK = "book"  #: manual.json invalid: JSON, schema or cross-check
    UNLISTED_PAGE = "unlisted_page"  #: a page under sections/ that manual.json does not list
    UNKNOWN_FLAG = "unknown_flag"  #: a flag Miles does not have (or has no extracted default)
    UNKNOWN_METRIC = "unknown_metric"  #: a metric key Miles does not log
    UNKNOWN_SOURCE = "unknown_source"  #: a {src} file or line not in Miles
    UNKNOWN_VALUE = "unknown_value"  #: a measured / computed / fact key or a run not declared
    BAD_FORMAT = "bad_format"  #: a format spec that does not fit the value
    BAD_REFERENCE = "bad_reference"  #: malformed role text (issue links, keys), no single default
    DUPLICATE = "duplicate"  #: a flag documented twice, a figure id used twice
    MARKUP = "markup"  #: raw HTML in a page, a role left open, a page that is not UTF-8 (miles101.markup)
    CAPTURE = "capture"  #: a capture file missing, unreadable or failing its schema
    MERMAID = "mermaid"  #: drawing the diagrams: mermaid's CLI or Chromium is missing, or the CLI failed
    DIAGRAM_DRAWING = "diagram_drawing"  #: a diagram's committed drawing is missing or drawn from another source
    SERVED_TOOL = "served_tool"  #: a served tool's generated block (miles_tree.py's BOOK) is stale

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
