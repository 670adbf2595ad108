"""The `lab` fixture: a sandbox with stand-in docker and nvidia-smi first on PATH."""
from __future__ import annotations

from pathlib import Path

import pytest
from labutil import Lab


@pytest.fixture
def lab(tmp_path: Path):
    box = Lab(tmp_path)
    yield box
    box.cleanup()
