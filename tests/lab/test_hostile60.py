"""Issue 60's hostile suite (tests/lab/hostile60.py), one pytest case an input: each must be `good`.

A case runs its tool as a child killed after 55 s (a hang is its class, never a stuck run), in a temporary
folder removed afterwards. `python tests/lab/hostile60.py [FILTER]` prints the counts per class. This module runs the
even-numbered cases and test_hostile60_odd.py the others: a module is one group for `dev.py test`'s two parts
(tests/sharding.py), so two modules let the parts share the suite's four minutes.
"""
from __future__ import annotations

import pytest
from hostile60 import CASES, Case, run_case

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("c", CASES[0::2], ids=[c.id for c in CASES[0::2]])
def test_hostile_case(c: Case) -> None:
    cls, why = run_case(c)
    assert cls == "good", f"{c.id} ({c.klass}): {cls}: {why}"


def test_suite_is_large_and_ids_unique() -> None:
    assert len(CASES) >= 120
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.klass for c in CASES} == {"a", "b", "c", "d", "e"}
