"""The log doctor's rule set: what the page's JavaScript reads, taken from the run reader's own sources.

The browser's log doctor (miles101/sphinx_ext/static/log-doctor-core.js) and read_run.py answer
from one rule set: 7.1's symptoms (capture/symptoms.json), the reader's thresholds
(capture/references/reader.json), and read_run.py's line patterns, key names and signals. This
module gathers them into one JSON document; the build writes it into the page and to
``_static/m101-doctor-rules.json``. Nothing here is a rule of its own.

    python3 -m capture.lab.doctor_rules > rules.json
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any

from capture.lab import read_run as rr
from capture.lab import symptoms

SCHEMA = "m101-doctor/1"


def js_pattern(rx: re.Pattern[str]) -> str:
    """A Python pattern as JavaScript source: named groups are `(?<name>` there, not `(?P<name>`."""
    src = rx.pattern
    if "(?P=" in src or "\\Z" in src or "\\A" in src or rx.flags & ~re.UNICODE:
        raise ValueError(f"read_run pattern {src!r} uses syntax the page's port does not translate")
    return src.replace("(?P<", "(?<")


def rules() -> dict[str, Any]:
    """The whole rule set, JSON-ready."""
    data = symptoms.load()
    return {
        "schema": SCHEMA,
        "from": ["capture/symptoms.json", "capture/references/reader.json", "capture/lab/read_run.py"],
        "page_path": rr.PAGE_PATH,
        "patterns": {name: js_pattern(getattr(rr, name)) for name in
                     ("LINE_RE", "LOOKS_LIKE_RE", "ANSI_RE", "REPEATED_RE", "MEMORY_RE", "ENGINE_RE", "TIMER_RE")},
        "rollout_side_key": rr.ROLLOUT_SIDE_KEY,
        "newer_reward_key": rr.NEWER_REWARD_KEY,
        "memory_fields": list(rr.MEMORY_FIELDS),
        "cutoffs": symptoms.cutoffs(),
        "signals": [{"name": name, "head": head, "keys": list(keys), "format": fmt}
                    for name, head, keys, _, fmt in rr.SIGNALS],
        "symptoms": data["symptoms"],
    }


if __name__ == "__main__":
    json.dump(rules(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
