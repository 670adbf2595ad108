"""Issue 60's hostile suite (tests/lab/hostile60.py), one pytest case an input: each must be `good`.

A case runs its tool as a child killed after 55 s (a hang is its class, never a stuck run), in a temporary
folder removed afterwards. `python tests/lab/hostile60.py [FILTER]` prints the counts per class. This module runs the
even-numbered cases and test_hostile60_odd.py the others: a module is one group for `dev.py test`'s two parts
(tests/sharding.py), so two modules let the parts share the suite; within a module the cases run three at a time (`run_cases`).
"""
from __future__ import annotations

import pytest
from hostile60 import CASES, Case, run_case, run_cases

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results(request: pytest.FixtureRequest) -> dict[str, tuple[str, str]]:
    """The module's chosen cases run together (`run_cases`), before its first test reads its own; none under
    pytest-xdist, whose worker runs only some of them (each test then runs its own case)."""
    if hasattr(request.config, "workerinput"):
        return {}
    chosen = [item.callspec.params["c"] for item in request.session.items
              if item.module is request.module and hasattr(item, "callspec")]
    return run_cases(chosen)


@pytest.mark.parametrize("c", CASES[0::2], ids=[c.id for c in CASES[0::2]])
def test_hostile_case(c: Case, results: dict[str, tuple[str, str]]) -> None:
    cls, why = results[c.id] if c.id in results else run_case(c)
    assert cls == "good", f"{c.id} ({c.klass}): {cls}: {why}"


def test_suite_is_large_and_ids_unique() -> None:
    assert len(CASES) >= 120
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.klass for c in CASES} == {"a", "b", "c", "d", "e"}
