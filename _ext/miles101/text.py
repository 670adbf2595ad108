"""Text shared by the build, the checks and the lab: the advice lines and the ANSI stripper."""
from __future__ import annotations

import re

#: An ANSI SGR escape (colour, bold) as Sphinx, pytest and the lab's progress line write them.
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """`text` without terminal colour codes."""
    return ANSI.sub("", text)


def record_command(run_id: str) -> str:
    """The command that records a run on the DGX Spark."""
    return f"python3 capture/run.py record {run_id}"


def record_advice(run_id: str) -> str:
    """The one sentence that tells a reader how a pending run gets recorded."""
    return f"On a DGX Spark, `{record_command(run_id)}` records it."
