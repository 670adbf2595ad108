"""Warnings are an API: every warning the extension emits has a type, a subtype and a fix."""
from __future__ import annotations

from typing import Any

from sphinx.util import logging

logger = logging.getLogger("miles101")

#: The warning subtypes, each `manual.<subtype>`; tests and `suppress_warnings` use these names.
SUBTYPES = frozenset(
    {
        "book",  # manual.json invalid: JSON, schema or cross-check
        "unlisted_page",  # a page under sections/ that manual.json does not list
        "unknown_flag",
        "unknown_metric",
        "unknown_source",  # {src} file or line not in Miles
        "unknown_value",  # measured / computed / fact key not declared
        "bad_format",  # a format spec that does not fit the value
        "bad_reference",  # malformed role text (issue links, keys)
        "duplicate",  # a flag documented twice, a figure id used twice
        "capture",  # a capture file missing, unreadable or failing its schema
        "mermaid",  # the local mermaid copy is missing or stale
    }
)


def warn(subtype: str, message: str, *, location: Any = None, fix: str = "") -> None:
    """Log a `manual.<subtype>` warning at `location`, ending with how to fix it."""
    assert subtype in SUBTYPES, subtype
    text = f"{message} Fix: {fix}" if fix else message
    logger.warning(text, type="manual", subtype=subtype, location=location)
