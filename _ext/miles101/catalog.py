"""What Miles accepts and logs, read from the extraction (capture/miles/flags.json, metrics.json).

The index is the core's (`miles101.data.index_flags`, `index_metrics`, `passthrough_family`): the
build, --check and the lab read flags.json one way, through the one strict reader (`miles101.strict`).
`Catalog.from_capture` reuses a loaded capture; `Catalog.from_docs` the documents an intake parsed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miles101.data import Capture, closest_family, index_flags, index_metrics, passthrough_family
from miles101.problems import ProblemError
from miles101.strict import parse_json_bytes, read_bytes

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
        data = _read(flags_path, "the flag list")
        return cls.from_docs(data, _read(metrics_path, "the metric list") if metrics_path else None,
                             flags_path, metrics_path)

    @classmethod
    def from_docs(cls, data: dict[str, Any], metrics_doc: dict[str, Any] | None, flags_path: Path,
                  metrics_path: Path | None) -> "Catalog":
        """The catalog of flags.json and metrics.json as parsed already (by an intake's `Inputs`)."""
        metrics, patterns = index_metrics(metrics_doc) if metrics_doc is not None else ({}, [])
        return cls(flags=index_flags(data)[0], families=data.get("families") or [], metric_keys=set(metrics),
                   metric_patterns=[regex for regex, _ in patterns], flags_path=str(flags_path),
                   metrics_path=str(metrics_path or ""))

    @classmethod
    def from_capture(cls, capture: Capture) -> "Catalog":
        """The catalog of a loaded capture (what --check and the build read), without reading the files again."""
        miles = capture.root / "capture" / "miles"
        return cls(flags=capture.flags, families=capture.families, metric_keys=set(capture.metrics),
                   metric_patterns=[regex for regex, _ in capture.metric_patterns],
                   flags_path=str(miles / "flags.json"), metrics_path=str(miles / "metrics.json"))

    def family(self, opt: str) -> dict[str, Any] | None:
        """The passthrough family (--sglang-*, --router-*, ...) an option belongs to, if any.

        Membership is the core's rule (`miles101.data.passthrough_family`, the one the build
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
    try:  # the one strict reader: a regular file, UTF-8, no duplicate key; ValueError names the file and the fix
        return parse_json_bytes(read_bytes(path, str(path), fix="restore it from git"), str(path), "restore it from git")
    except ProblemError as exc:
        raise ValueError(str(exc.problem)) from None
