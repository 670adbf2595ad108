"""What Miles accepts and logs, read from the extraction (capture/miles/flags.json, metrics.json)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miles101.capture import closest_family, index_flags, passthrough_family

# Sources the lab itself measures or parses beside Miles's metric keys (see run.schema.json).
LAB_SOURCES = {
    "lab/step_interval": "s: wall time between the ends of two steps, seen by the recorder (step 1: from launch)",
    "lab/elapsed": "s: wall time from launch to the end of the step",
    "lab/gpu_temp": "°C: the last GPU temperature the heat guard read before the end of the step",
}
# `[Rank 0] Memory-Usage <msg>: {...}` lines (miles/utils/memory_utils.py:41-43), GiB.
MEMORY_SOURCE_RE = re.compile(r"memory/[a-z0-9_]+/(total|free|used|allocated|reserved)_GB")


@dataclass
class Catalog:
    """Flags by option string, passthrough families, and metric keys."""

    flags: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    families: list[dict[str, Any]] = field(default_factory=list)
    metric_keys: set[str] = field(default_factory=set)
    metric_patterns: list[re.Pattern[str]] = field(default_factory=list)
    flags_path: str = ""
    metrics_path: str = ""

    @classmethod
    def load(cls, flags_path: Path, metrics_path: Path | None) -> "Catalog":
        """Read both files; a missing file is an error that says how to make it."""
        cat = cls(flags_path=str(flags_path), metrics_path=str(metrics_path or ""))
        data = _read(flags_path, "the flag list")
        cat.flags = index_flags(data)[0]
        cat.families = sorted(data.get("families") or [], key=lambda f: -len(f["prefix"]))
        if metrics_path is not None:
            for rec in _read(metrics_path, "the metric list").get("metrics", []):
                if rec.get("kind") == "pattern" and rec.get("regex"):
                    cat.metric_patterns.append(re.compile(rec["regex"]))
                else:
                    cat.metric_keys.add(rec["key"])
        return cat

    def family(self, opt: str) -> dict[str, Any] | None:
        """The passthrough family (--sglang-*, --router-*, ...) an option belongs to, if any.

        Membership is the core's rule (`miles101.capture.passthrough_family`, the one the build
        uses); for a non-member the family whose prefix it carries comes back, so the caller
        can say why it is refused (skipped by Miles, or not among the members).
        """
        return passthrough_family(self.families, opt) or closest_family(self.families, opt)

    def known_source(self, key: str) -> bool:
        """A metric key Miles logs, or a source the lab defines."""
        return (key in self.metric_keys or key in LAB_SOURCES or bool(MEMORY_SOURCE_RE.fullmatch(key))
                or any(p.fullmatch(key) for p in self.metric_patterns))

    def source_names(self) -> list[str]:
        """Every literal source name, for suggestions."""
        return sorted(self.metric_keys | set(LAB_SOURCES))


def _read(path: Path, what: str) -> dict[str, Any]:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: {what} is missing; run `python3 capture/run.py --miles-src <miles>` to extract it")
    return json.loads(path.read_text(encoding="utf-8"))
