"""Split a run into parts that run side by side (`--m101-shard K/N`; `dev.py test` runs the whole suite as
two, one a core), keeping together the tests that share a costly session fixture.

Each test names the keys of what it must share: the session fixtures it reads that are built once in the
run (SHARED: the text-diagram and EPUB builds of the manual, tests/conftest.py; the browser's surveys of
every page, tests/browser/conftest.py) and its module when it uses a module-scoped fixture (or asks for
one by name, as `request.getfixturevalue` does, which its module covers). Tests whose keys meet form one
group (union-find), and a group runs in one part. The HTML build of the manual (`manual`, PER_PART) joins
no group: many modules read it, and a part that holds any of them builds it once, which costs less than
keeping them all in one part. The groups go to the parts longest first, each to the part where it ends
soonest (rough seconds from WEIGHTS, a PER_PART build counted once in each part that needs it). A part
keeps the collection order.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

#: The session fixtures the parts must not make twice, with their rough seconds: two builds of the manual
#: (tests/conftest.py) and the browser's two surveys of every page, axe included (tests/browser/conftest.py;
#: their setups in the browser run of 2026-12-08, load 5-8, benchmarks/README.md).
SHARED: dict[str, float] = {"manual_textual": 30, "manual_epub": 30, "survey_desktop": 190, "survey_phone": 170}
#: The session build each part that needs it makes once (tests/conftest.py), costing SHARED_BUILD_SECONDS there.
PER_PART = ("manual",)
#: Rough seconds of the modules that take longest, their own builds included but not the SHARED fixtures,
#: on the loaded 2-core machine; a module's weight is spread evenly over its tests, so a module whose tests
#: fall in several groups lends each its share. The browser set and the readers of `manual` from one run's
#: `--durations=0` (2026-12-08, load 5-8, benchmarks/README.md); test_editions' EPUB and text half and the
#: lab's from part 2's `--durations=15` (2026-12-07); the rest estimates from the builds each makes, not a
#: measurement per module. Only the balance of the parts reads them; a module not listed weighs
#: DEFAULT_SECONDS a test.
WEIGHTS: dict[str, float] = {
    "tests/test_hosting.py": 15, "tests/test_recorded_state.py": 15, "tests/test_fit_compare.py": 15,
    "tests/test_commands.py": 10, "tests/test_editions.py": 60,  # text, LaTeX, EPUB builds, EPUBCheck, HTML checker
    "tests/browser/test_browser_a11y.py": 35, "tests/browser/test_browser_pages.py": 2,
    "tests/browser/test_browser_reading.py": 140, "tests/browser/test_browser_doctor.py": 100,
    "tests/browser/test_browser_calculator.py": 55, "tests/browser/test_browser_compare.py": 20,
    "tests/browser/test_browser_features.py": 15, "tests/browser/test_browser_drawings.py": 15,
    "tests/browser/test_browser_recorded.py": 7, "tests/browser/test_browser_tables.py": 3,
    "tests/lab/test_record.py": 120, "tests/lab/test_rehearsal.py": 50, "tests/lab/test_preflight.py": 60,
    "tests/lab/test_recover.py": 30, "tests/scenarios/test_read_run_verdicts.py": 60,
    "tests/capture/test_crosscheck.py": 25, "tests/test_kinds_on_page.py": 15,
    "tests/test_book_build.py": 60, "tests/test_incremental_book.py": 60, "tests/test_book_errors.py": 30,
    "tests/test_fuzz_capture.py": 30,
    # issue 60's hostile suite in two halves: 316 cases, 258 s with -n 0 at load 0.5-0.6 (commit e2a5082)
    "tests/lab/test_hostile60.py": 125, "tests/lab/test_hostile60_odd.py": 125,
}
SHARED_BUILD_SECONDS = 30.0  # the manual's HTML build: 36.5 s in-process at load 5-8 (the first reader's setup)
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


def _count(items: Iterable[pytest.Item]) -> dict[str, int]:
    """How many of `items` each module holds."""
    counts: dict[str, int] = {}
    for item in items:
        module = Path(_module(item)).as_posix()
        counts[module] = counts.get(module, 0) + 1
    return counts


def keys(item: pytest.Item) -> set[str]:
    """What `item` shares: the SHARED fixtures in its fixture closure, and its module if it uses a fixture
    kept for the module (or none of them: then its module stands for any it asks for by name)."""
    found: set[str] = set()
    module_scoped = False
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in getattr(item, "fixturenames", ()):
        if name in SHARED:
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


def per_part(group: list[pytest.Item]) -> set[str]:
    """The PER_PART builds the group reads."""
    return {name for item in group for name in PER_PART if name in getattr(item, "fixturenames", ())}


def weight(group: list[pytest.Item], tests: dict[str, int] | None = None) -> float:
    """The group's share of its modules' seconds (`tests`: each module's count of tests in the run; a module
    not in WEIGHTS weighs DEFAULT_SECONDS a test) and the seconds of the SHARED fixtures it reads; its
    PER_PART builds are counted by the part (`part`)."""
    modules = _count(group)
    tests = tests or modules
    shared = {name for item in group for name in SHARED if name in getattr(item, "fixturenames", ())}
    return (sum(WEIGHTS[m] * count / tests[m] if m in WEIGHTS else DEFAULT_SECONDS * count
                for m, count in modules.items()) + sum(SHARED[name] for name in shared))


def part(items: list[pytest.Item], k: int, n: int) -> set[int]:
    """The positions in `items` of the K-th of N parts (1-based): each group, longest first, goes to the part
    where it would end soonest, a PER_PART build it needs and the part lacks counted there."""
    loads = [0.0] * n
    builds: list[set[str]] = [set() for _ in range(n)]
    chosen: list[set[int]] = [set() for _ in range(n)]
    index = {id(item): i for i, item in enumerate(items)}
    tests = _count(items)
    found = groups(items)
    weights = {id(g[0]): weight(g, tests) for g in found}
    ranked = sorted(found, key=lambda g: (-weights[id(g[0])], index[id(g[0])]))
    for group in ranked:
        needs = per_part(group)

        def end(p: int) -> float:
            return loads[p] + weights[id(group[0])] + SHARED_BUILD_SECONDS * len(needs - builds[p])

        best = min(range(n), key=lambda p: (end(p), p))
        loads[best] = end(best)
        builds[best] |= needs
        chosen[best].update(index[id(item)] for item in group)
    return chosen[k - 1]
