"""Warnings are an API: every warning the extension emits has a type, a subtype and a fix.

The subtypes are `miles101.problems.Subtype` (shared with `capture/run.py --check`).
"""
from __future__ import annotations

from typing import Any

from sphinx.util import logging

from ..problems import Problem, Subtype

logger = logging.getLogger("miles101")


def warn(subtype: Subtype | str, message: str, *, location: Any = None, fix: str = "") -> None:
    """Log a `manual.<subtype>` warning at `location`, ending with how to fix it."""
    subtype = Subtype(subtype)
    text = f"{message} Fix: {fix}" if fix else message
    logger.warning(text, type="manual", subtype=subtype.value, location=location)


def warn_problem(problem: Problem, *, location: Any = None) -> None:
    """Log a resolver's problem."""
    warn(problem.subtype, problem.message, location=location, fix=problem.fix)
