"""The tree's parsed modules, from the reader's served ``miles_tree.py`` (one extractor for the book and the reader)."""
from __future__ import annotations

from miles101.tools.miles_tree import Module, Modules, decorator_names, method, module_name, parse_module

__all__ = ["Module", "Modules", "decorator_names", "method", "module_name", "parse_module"]
