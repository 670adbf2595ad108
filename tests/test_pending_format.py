"""A {measured} value's format spec is checked while its run is pending (issue 51 §6): a spec that fits no
number would only fail once the run is recorded, on the author's Spark, far from the page that typed it."""
from __future__ import annotations

from pathlib import Path

import pytest

from miles101.problems import Problem
from miles101.resolve import Resolved, resolve

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pending_key(real_capture_copies) -> tuple:
    capture = real_capture_copies()
    key = next(k for k in capture.value_keys("measured") if capture.value("measured", k).pending)
    return capture, key


@pytest.mark.parametrize("spec", [".1f", ",.0f", ".0%", "d", ""])
def test_a_spec_that_fits_a_number_is_taken_while_pending(pending_key, spec: str) -> None:
    capture, key = pending_key
    got = resolve(capture, "measured", f"{key}:{spec}" if spec else key)
    assert isinstance(got, Resolved) and got.extra["shown"] == "pending"


@pytest.mark.parametrize("spec", [".1q", "s", "zz"])
def test_a_spec_that_fits_no_number_is_refused_while_pending(pending_key, spec: str) -> None:
    capture, key = pending_key
    got = resolve(capture, "measured", f"{key}:{spec}")
    assert isinstance(got, Problem) and "fits no number" in got.message and spec in got.message
