"""Miles 101's model of the book, with no Sphinx import.

`book` reads and validates manual.json; `capturefiles` is the one table of capture files, which
`intake` reads (through `strict`, checked by `schemas` and `validate`) into `data`'s model
(flags, metrics, files, computed values, facts, references, runs, recordings); `kinds` is the table of
value kinds and `registry` of roles and directives; `pages` lists and scans the pages; `resolve` turns
one role (kind, key) into a value or a `problems.Problem`. The Sphinx extension (`miles101.sphinx_ext`),
`capture/run.py --check`, the drift report and the benchmark all use them; `tools/` holds the reader's
standard-library tools, and `authoring` writes AUTHORING.md's tables from the kinds, registry and problem
tables (`python3 dev.py authoring`).
"""
from __future__ import annotations

__version__ = "1.0.0"
