"""Miles's metric keys: the scanner lives in the reader's served ``miles_tree.py``, so the reader's image
and the book's capture are read by one extractor (issue 48). This module keeps the lab's import path."""
from __future__ import annotations

from miles101.tools.miles_tree import BATCH_RULE, PREFIXES, TIMER_RULE, Found, MetricScanner, extract_metrics

__all__ = ["BATCH_RULE", "PREFIXES", "TIMER_RULE", "Found", "MetricScanner", "extract_metrics"]
