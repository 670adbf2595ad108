"""Miles step-log lines → steps.jsonl rows, live, while the recorder streams log.txt."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, BinaryIO

from miles101.tools.read_run import (  # the reader's parser, shared
    StepAssembler,
    parse_line,
    parse_log,
)

__all__ = ["LiveLog", "parse_line", "parse_log", "read_steps"]


class LiveLog:
    """Appends raw output to log.txt and parsed rows to steps.jsonl as they complete.

    Each row gets "seed" and a "lab" section: lab/step_interval, lab/elapsed, lab/gpu_temp
    (times in s, taken when the trainer's perf line of the step arrived).
    """

    def __init__(self, log: BinaryIO, steps: BinaryIO, seed: int | None, started: float) -> None:
        self.log, self.steps, self.seed, self.started = log, steps, seed, started
        self.asm = StepAssembler()
        self.last_finish = started
        self.lab: dict[int, dict[str, float]] = {}
        self.rows_written = 0
        self.gpu_temp: float | None = None
        self.partial = bytearray()  # the line being received: grown in place, never copied whole per chunk

    def write_raw(self, data: bytes) -> None:
        """Raw bytes into log.txt (flushed: a crash keeps what came)."""
        self.log.write(data)
        self.log.flush()

    def feed(self, raw: bytes, now: float) -> list[str]:
        """Log and parse a chunk of output; return its whole lines (\\r ends a line too)."""
        self.write_raw(raw)
        parts = re.split(rb"\r\n|\r|\n", raw)  # only the new bytes: a long line costs linear time, not quadratic
        if len(parts) == 1:
            self.partial += raw
            return []
        parts[0] = bytes(self.partial) + parts[0]
        self.partial = bytearray(parts.pop())
        lines = [p.decode("utf-8", errors="replace") for p in parts if p]
        for line in lines:
            self._parse(line, now)
        return lines

    def _parse(self, line: str, now: float) -> None:
        before = len(self.asm.finished)
        closed = self.asm.feed(line)
        for rid in self.asm.finished[before:]:
            lab = {"lab/step_interval": round(now - self.last_finish, 3), "lab/elapsed": round(now - self.started, 3)}
            if self.gpu_temp is not None:
                lab["lab/gpu_temp"] = self.gpu_temp
            self.lab[rid] = lab
            self.last_finish = now
        self._write(closed)

    def close(self, now: float) -> None:
        """Parse a last unterminated line and write every open row."""
        if self.partial:
            self._parse(self.partial.decode("utf-8", errors="replace"), now)
            self.partial = bytearray()
        self._write(self.asm.close())

    def _write(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["seed"] = self.seed
            if row["step"] in self.lab:
                row["lab"] = self.lab[row["step"]]
            self.steps.write((json.dumps(row, sort_keys=True) + "\n").encode())
            self.rows_written += 1
        if rows:
            self.steps.flush()


def read_steps(path: Path) -> list[dict[str, Any]]:
    """The rows of a steps.jsonl."""
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
