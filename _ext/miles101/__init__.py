"""Miles 101's model of the book, with no Sphinx import.

`book` reads and validates manual.json; `capture` loads what capture/ holds (flags, families,
metrics, files, computed values, facts, runs, recordings); `pages` lists and scans the pages;
`resolve` turns one role (kind, key) into a value or a problem. The Sphinx extension
(`miles101.sphinx_ext`), `capture/run.py --check`, the drift report and the benchmark all use them.
"""
from __future__ import annotations

__version__ = "1.0.0"
