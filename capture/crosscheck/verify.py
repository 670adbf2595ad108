"""Hold a host's cross-check results against computed.json (no torch needed).

The rule lives once, in `miles101.crosscheck_results` (the build and `--check` apply it through
`miles101.validate`); this module re-exports it for the cross-check program and its tests.
"""
from __future__ import annotations

from miles101.crosscheck_results import TOLERANCE, crosscheck_problems, ratios, verify

__all__ = ["TOLERANCE", "crosscheck_problems", "ratios", "verify"]
