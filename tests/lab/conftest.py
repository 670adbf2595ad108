"""The `lab` fixture: a sandbox with stand-in docker and nvidia-smi first on PATH."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from labutil import Lab  # noqa: E402


@pytest.fixture
def lab(tmp_path: Path):
    box = Lab(tmp_path)
    yield box
    box.cleanup()
