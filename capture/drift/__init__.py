"""The drift report: what changed in Miles between two extractions, and which pages cite it (its command line: ``cli``).

``capture/run.py diff OLD NEW`` loads two sides (``sides``), compares flags, families, metric keys,
models, computed values and cited source lines (``compare``, ``srclines``), attaches the page
references each change touches (``pages``) and prints it (``report``).
"""
from __future__ import annotations

SCHEMA = "miles101-drift/1"
