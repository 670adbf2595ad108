"""A recorded value in a real browser: built from the test root's synthetic recording (test data)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .browser_support import ROOT, Server
from .test_browser_features import _check_tip


@pytest.fixture(scope="module")
def recorded_site(browser_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/roots/test-book, which holds one valid recording (tiny-recorded), built to HTML."""
    src = tmp_path_factory.mktemp("recorded") / "book"
    shutil.copytree(ROOT / "tests" / "roots" / "test-book", src)
    out = src / "_build" / "html"
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(out)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return out


def test_recorded_value_tip_on_hover_and_focus(page: Any, recorded_site: Path) -> None:
    with Server(recorded_site) as server:
        page.goto(server.base + "sections/2-1-values.html", wait_until="load")
        value = page.locator(".m101-value.m101-measured:not(.m101-pending)").first
        assert (value.text_content() or "").strip() == "12.3 s"
        problems = _check_tip(page, value, "2-1-values recorded value")
        tip = page.locator("#m101-tip").text_content() or ""
        assert not problems, "\n".join(problems)
        assert "median of 3 samples" in tip and "tiny-recorded" in tip and "GB10" in tip
