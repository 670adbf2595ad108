"""Split a run into parts that run side by side (`--m101-shard K/N`; `dev.py test` runs the whole suite as
two, one a core), keeping together the tests that share a build.

Each test names the keys of what it must share: the session's builds of the manual it reads (tests/
conftest.py: `manual`, `manual_textual`, `manual_epub`) and its module when it uses a module-scoped
fixture (or asks for one by name, as `request.getfixturevalue` does, which its module covers). Tests whose
keys meet form one group (union-find), and a group runs in one part, so each shared build is built once in
the run. The groups go to the parts longest first, each to the part with the least so far (rough seconds
from WEIGHTS). A part keeps the collection order.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

#: The session-scoped builds the parts must not build twice (tests/conftest.py).
SHARED_BUILDS = ("manual", "manual_textual", "manual_epub")
#: Rough seconds of the modules that take longest, their own builds included, on the loaded 2-core
#: machine: the browser set's from one run's durations, the rest estimates from the builds each makes
#: and one interrupted run's progress (2026-12-07), not a measurement per module. Only the balance of the
#: parts reads them; a module not listed weighs DEFAULT_SECONDS a test, and each shared build a group
#: reads SHARED_BUILD_SECONDS once.
WEIGHTS: dict[str, float] = {
    "tests/test_hosting.py": 90, "tests/test_recorded_state.py": 90, "tests/test_fit_compare.py": 90,
    "tests/test_editions.py": 200,  # the text and LaTeX builds of the manual, EPUBCheck, the HTML checker
    # the browser set: from part 1's `--durations=60` at load 10-13 (2026-12-07, benchmarks/README.md)
    "tests/browser/test_browser_a11y.py": 770, "tests/browser/test_browser_pages.py": 125,
    "tests/browser/test_browser_reading.py": 250, "tests/browser/test_browser_doctor.py": 60,
    "tests/browser/test_browser_calculator.py": 45, "tests/browser/test_browser_compare.py": 25,
    "tests/browser/test_browser_tables.py": 35, "tests/browser/test_browser_drawings.py": 20,
    "tests/lab/test_record.py": 120, "tests/lab/test_rehearsal.py": 60, "tests/lab/test_preflight.py": 60,
    "tests/lab/test_recover.py": 30, "tests/scenarios/test_read_run_verdicts.py": 60,
    "tests/test_book_build.py": 60, "tests/test_incremental_book.py": 60, "tests/test_book_errors.py": 30,
    "tests/test_fuzz_capture.py": 30,
}
SHARED_BUILD_SECONDS = 30.0  # 11-20 s in-process at load 10-13
DEFAULT_SECONDS = 0.05


def parse(value: str | None) -> tuple[int, int] | None:
    """`K/N` as (K, N), 1 <= K <= N; None for no sharding."""
    if not value:
        return None
    try:
        k, n = (int(part) for part in value.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--m101-shard {value!r}: write K/N, e.g. 1/2") from None
    if not 1 <= k <= n:
        raise pytest.UsageError(f"--m101-shard {value!r}: K must be between 1 and N")
    return k, n


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def keys(item: pytest.Item) -> set[str]:
    """What `item` shares: the shared builds in its fixture closure, and its module if it uses a fixture
    kept for the module (or none at all: then its module stands for any it asks for by name)."""
    found: set[str] = set()
    module_scoped = False
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in getattr(item, "fixturenames", ()):
        if name in SHARED_BUILDS:
            found.add(name)
        fixturedefs = defs.get(name)
        # A plugin's module fixture (baseid "": sphinx.testing's result cache, autouse) shares no build.
        if fixturedefs and fixturedefs[-1].scope in ("module", "package", "class") and fixturedefs[-1].baseid:
            module_scoped = True
    if module_scoped or not found:
        found.add(_module(item))
    return found


def groups(items: Iterable[pytest.Item]) -> list[list[pytest.Item]]:
    """The items in groups whose keys meet, each group in collection order."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    items = list(items)
    first: list[str] = []
    for item in items:
        ks = sorted(keys(item))
        first.append(ks[0])
        for other in ks[1:]:
            parent[find(other)] = find(ks[0])
    by_root: dict[str, list[pytest.Item]] = {}
    for item, key in zip(items, first):
        by_root.setdefault(find(key), []).append(item)
    return list(by_root.values())


def weight(group: list[pytest.Item]) -> float:
    """The measured seconds of the group's modules (DEFAULT_SECONDS a test for a module not in WEIGHTS)."""
    modules: dict[str, int] = {}
    for item in group:
        modules[_module(item)] = modules.get(_module(item), 0) + 1
    builds = {name for item in group for name in SHARED_BUILDS if name in getattr(item, "fixturenames", ())}
    return (sum(WEIGHTS.get(Path(m).as_posix(), DEFAULT_SECONDS * count) for m, count in modules.items())
            + SHARED_BUILD_SECONDS * len(builds))


def part(items: list[pytest.Item], k: int, n: int) -> set[int]:
    """The positions in `items` of the K-th of N parts (1-based)."""
    loads = [0.0] * n
    chosen: list[set[int]] = [set() for _ in range(n)]
    index = {id(item): i for i, item in enumerate(items)}
    ranked = sorted(groups(items), key=lambda g: (-weight(g), index[id(g[0])]))
    for group in ranked:
        least = min(range(n), key=lambda p: (loads[p], p))
        loads[least] += weight(group)
        chosen[least].update(index[id(item)] for item in group)
    return chosen[k - 1]
