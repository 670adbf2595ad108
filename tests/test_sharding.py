"""tests/sharding.py: the parts of a run keep the tests that share a build together, and cover every test once."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import sharding


@dataclass
class _Def:
    scope: str
    baseid: str = "tests"  # where the fixture is defined; "" for a plugin's


@dataclass
class _Info:
    name2fixturedefs: dict[str, list[_Def]] = field(default_factory=dict)


@dataclass
class _Item:
    """What sharding reads of a pytest item: its node id, its fixture closure and the fixtures' scopes."""

    nodeid: str
    fixturenames: list[str]
    _fixtureinfo: _Info


def item(nodeid: str, **fixtures: str) -> _Item:
    return _Item(nodeid, list(fixtures), _Info({name: [_Def(scope, "" if name.startswith("_") else "tests")]
                                                for name, scope in fixtures.items()}))


ITEMS = [
    item("tests/test_a.py::test_1", manual="session"),
    item("tests/test_a.py::test_2", tmp_path="function"),
    item("tests/test_b.py::test_1", manual_epub="session", both="module"),
    item("tests/test_b.py::test_2", request="function"),  # may ask for `both` by name: stays with its module
    item("tests/test_c.py::test_1", manual_epub="session", manual_textual="session"),
    item("tests/test_d.py::test_1", manual_textual="session"),
    item("tests/browser/test_e.py::test_1", manual="session", chromium="session", _shared_result_cache="module"),
    item("tests/test_f.py::test_1", _shared_result_cache="module"),
    item("tests/test_f.py::test_2"),
]


def test_keys_name_the_shared_builds_and_the_module_a_module_fixture_needs() -> None:
    assert sharding.keys(ITEMS[0]) == {"manual"}
    assert sharding.keys(ITEMS[6]) == {"manual"}
    assert sharding.keys(ITEMS[1]) == {"tests/test_a.py"}
    assert sharding.keys(ITEMS[2]) == {"manual_epub", "tests/test_b.py"}
    assert sharding.keys(ITEMS[3]) == {"tests/test_b.py"}
    assert sharding.keys(ITEMS[7]) == {"tests/test_f.py"}  # a plugin's module fixture (sphinx.testing's cache) shares nothing


def test_tests_that_share_a_build_or_a_module_fixture_are_one_group() -> None:
    found = sorted(sorted(i.nodeid for i in g) for g in sharding.groups(ITEMS))
    assert ["tests/browser/test_e.py::test_1", "tests/test_a.py::test_1"] in found
    assert ["tests/test_b.py::test_1", "tests/test_b.py::test_2", "tests/test_c.py::test_1",
            "tests/test_d.py::test_1"] in found  # b and c share the EPUB, c and d the text-diagram build


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_parts_cover_every_test_once(n: int) -> None:
    parts = [sharding.part(ITEMS, k, n) for k in range(1, n + 1)]
    assert sorted(i for p in parts for i in p) == list(range(len(ITEMS)))
    for group in sharding.groups(ITEMS):
        where = {k for k, p in enumerate(parts) for i, it in enumerate(ITEMS) if it in group and i in p}
        assert len(where) == 1, [it.nodeid for it in group]


def test_a_bad_shard_is_refused() -> None:
    assert sharding.parse(None) is None and sharding.parse("2/2") == (2, 2)
    for bad in ("0/2", "3/2", "a/b", "1"):
        with pytest.raises(pytest.UsageError, match="--m101-shard"):
            sharding.parse(bad)
