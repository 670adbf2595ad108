"""The log doctor's rule set: what the page's JavaScript reads, taken from the run reader's own sources.

The browser's log doctor (_ext/miles101/sphinx_ext/static/log-doctor-core.js) and read_run.py answer
from one rule set: 7.1's symptoms (capture/symptoms.json), the reader's thresholds
(capture/references/reader.json), and read_run.py's line patterns, key names and signals. This
module gathers them into one JSON document; the build writes it to
``_static/m101-doctor-rules.json``. Nothing here is a rule of its own.

    python3 -m miles101.doctor_rules [ROOT] > rules.json
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from miles101.inputs import code_digest, memo_key
from miles101.memo import kept, memo_bytes
from miles101.rulefiles import READER, SYMPTOMS as SYMPTOMS_FILE, load_cutoffs, load_symptoms

SCHEMA = "m101-doctor/1"


def js_pattern(rx: re.Pattern[str]) -> str:
    """A Python pattern as JavaScript source: named groups are `(?<name>` there, not `(?P<name>`."""
    src = rx.pattern
    if "(?P=" in src or "\\Z" in src or "\\A" in src or rx.flags & ~re.UNICODE:
        raise ValueError(f"read_run pattern {src!r} uses syntax the page's port does not translate")
    return src.replace("(?P<", "(?<")


SYMPTOMS = Path("capture") / "symptoms.json"
READER_REFS = Path("capture") / "references" / "reader.json"


def cutoffs(root: Path) -> dict[str, float]:
    """The reader's thresholds by key (capture/references/reader.json), as read_run.py embeds them."""
    return load_cutoffs(root)  # read strictly and checked, as both gates read it


def rules(root: Path) -> dict[str, Any]:
    """The whole rule set of the book at `root`, JSON-ready."""
    from miles101.tools import read_run as rr  # the run reader: only when the rule set is gathered afresh

    data = load_symptoms(root)  # read strictly and checked (miles101.rulefiles), as both gates read it
    return {
        "schema": SCHEMA,
        "from": ["capture/symptoms.json", "capture/references/reader.json", "_ext/miles101/tools/read_run.py"],
        "page_path": rr.PAGE_PATH,
        "patterns": {name: js_pattern(getattr(rr, name)) for name in
                     ("LINE_RE", "LOOKS_LIKE_RE", "ANSI_RE", "REPEATED_RE", "MEMORY_RE", "ENGINE_RE", "TIMER_RE",
                      "BATCH_DUMP_RE", "WANT_RE", "UNALLOC_RE", "RESERVED_OLD_RE", "MARGIN_RE", "SAMPLE_RE",
                      "MOVE_RE", "SETTING_DUMP_RE")},
        "units": dict(rr.UNITS),
        "default_backend": rr.DEFAULT_BACKEND,
        "backends": list(rr.BACKENDS),
        "no_match": rr.NO_MATCH,
        "notes_only": rr.NOTES_ONLY,
        "evidence": data.get("evidence"),
        "rollout_side_key": rr.ROLLOUT_SIDE_KEY,
        "newer_reward_key": rr.NEWER_REWARD_KEY,
        "memory_fields": list(rr.MEMORY_FIELDS),
        "zero_std_count": rr.ZERO_STD_COUNT,
        "zero_std_shares": list(rr.ZERO_STD_SHARES),
        "zero_std_shared_rewards": list(rr.SHARED_REWARDS),
        "zero_std_signal": rr.ZERO_STD_SIGNAL,
        "cutoffs": cutoffs(root),
        "signals": [{"name": name, "head": head, "keys": list(keys), "format": fmt}
                    for name, head, keys, _, fmt in rr.SIGNALS],
        "symptoms": data["symptoms"],
    }


def rules_text(root: Path, memo: Path | None = None) -> str:
    """`rules(root)` as the build serves it (JSON text); ProblemError when a rule file is broken. With `memo` (a
    doctree-dir file), kept for symptoms.json's and reader.json's bytes and the code; a broken set is never kept."""
    key = None if memo is None else memo_key(code_digest(), "doctor-rules",
                                             *(memo_bytes(root / r) for r in (SYMPTOMS_FILE, READER)))
    return kept(memo, key, lambda: json.dumps(rules(root), indent=1, sort_keys=True) + "\n", str)


if __name__ == "__main__":
    sys.stdout.write(rules_text(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
