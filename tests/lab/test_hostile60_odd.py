"""Issue 60's hostile suite, its odd-numbered cases (test_hostile60.py runs the even ones and says why)."""
from __future__ import annotations

import pytest
from hostile60 import CASES, Case, run_case

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("c", CASES[1::2], ids=[c.id for c in CASES[1::2]])
def test_hostile_case(c: Case) -> None:
    cls, why = run_case(c)
    assert cls == "good", f"{c.id} ({c.klass}): {cls}: {why}"
