"""The heat guard: pause the container when the GPU runs hot, stop it when it runs too hot."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass

QUERY = ["nvidia-smi", "--query-gpu=temperature.gpu", "--format=csv,noheader,nounits"]


def read_temperature() -> float | None:
    """The hottest GPU's temperature in °C, or None when nvidia-smi cannot say."""
    try:
        out = subprocess.run(QUERY, capture_output=True, text=True, errors="replace", timeout=15).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    temps = []
    for line in out.splitlines():
        try:
            temps.append(float(line.strip()))
        except ValueError:
            continue
    return max(temps) if temps else None


@dataclass
class HeatGuard:
    """Thresholds in °C; `update` returns pause, resume, stop or None. The lab's choice, not NVIDIA's."""

    pause_at: float = 85.0
    resume_at: float = 75.0
    stop_at: float = 92.0
    paused: bool = False
    last: float | None = None

    def __post_init__(self) -> None:
        if not self.resume_at < self.pause_at <= self.stop_at:
            raise ValueError("heat thresholds need resume < pause <= stop")

    def update(self, temp: float | None) -> str | None:
        """Decide on one reading."""
        if temp is None:
            return None
        self.last = temp
        if temp >= self.stop_at:
            return "stop"
        if not self.paused and temp >= self.pause_at:
            self.paused = True
            return "pause"
        if self.paused and temp <= self.resume_at:
            self.paused = False
            return "resume"
        return None
