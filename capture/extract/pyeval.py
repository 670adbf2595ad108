"""The whitelist evaluator, from the reader's served ``miles_tree.py`` (one extractor for the book and the reader)."""
from __future__ import annotations

from miles101.tools.miles_tree import SUPPRESS, Unresolved, dotted, evaluate, module_constants, try_evaluate

__all__ = ["SUPPRESS", "Unresolved", "dotted", "evaluate", "module_constants", "try_evaluate"]
