"""Miles's flags: the walker lives in the reader's served ``miles_tree.py``, so the reader's image and
the book's capture are read by one extractor (issue 48). This module keeps the lab's import path."""
from __future__ import annotations

from miles101.tools.miles_tree import (BOOL_ACTIONS, FOREIGN, ROOTS, TYPE_NAMES, VALIDATION_FILES, FlagWalker, Scope,
                                       backend_of, extract_flags, find_derived, find_hooks, group_name, make_record)

__all__ = ["BOOL_ACTIONS", "FOREIGN", "ROOTS", "TYPE_NAMES", "VALIDATION_FILES", "FlagWalker", "Scope", "backend_of",
           "extract_flags", "find_derived", "find_hooks", "group_name", "make_record"]
