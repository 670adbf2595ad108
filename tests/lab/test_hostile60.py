"""Issue 60's hostile suite (tests/lab/hostile60.py), one pytest case an input: each must be `good`.

A case runs its tool as a child killed after 55 s (a hang is its class, never a stuck run), in a temporary
folder removed afterwards; the counts per class are printed at the end of the module
(`python tests/lab/hostile60.py [FILTER]` prints them alone).
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import pytest
from hostile60 import CASES, Case, run_case

pytestmark = pytest.mark.slow
COUNTS: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def counts(request: pytest.FixtureRequest) -> Iterator[Counter[str]]:
    load = os.getloadavg()[0]
    yield COUNTS
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if capture is not None and COUNTS:
        with capture.global_and_fixture_disabled():
            print(f"\nhostile60: {sum(COUNTS.values())} cases, load {load:.2f} -> {os.getloadavg()[0]:.2f}: "
                  + ", ".join(f"{k} {v}" for k, v in COUNTS.most_common()))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_hostile_case(c: Case) -> None:
    cls, why = run_case(c)
    COUNTS[cls] += 1
    assert cls == "good", f"{c.id} ({c.klass}): {cls}: {why}"


def test_suite_is_large_and_ids_unique() -> None:
    assert len(CASES) >= 120
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.klass for c in CASES} == {"a", "b", "c", "d", "e"}
