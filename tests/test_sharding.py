"""tests/sharding.py: the parts of a run keep the tests that share a costly session fixture together, spread
the readers of the manual's HTML build (each part that holds one builds it once), and cover every test once."""
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
    item("tests/browser/test_g.py::test_1", manual="session", survey_desktop="session"),
    item("tests/browser/test_h.py::test_1", manual="session", survey_desktop="session"),
]


def test_keys_name_the_shared_fixtures_and_the_module_a_module_fixture_needs() -> None:
    assert sharding.keys(ITEMS[0]) == {"tests/test_a.py"}  # the HTML build joins nothing: each part makes its own
    assert sharding.keys(ITEMS[6]) == {"tests/browser/test_e.py"}
    assert sharding.keys(ITEMS[9]) == {"survey_desktop"}
    assert sharding.keys(ITEMS[1]) == {"tests/test_a.py"}
    assert sharding.keys(ITEMS[2]) == {"manual_epub", "tests/test_b.py"}
    assert sharding.keys(ITEMS[3]) == {"tests/test_b.py"}
    assert sharding.keys(ITEMS[7]) == {"tests/test_f.py"}  # a plugin's module fixture (sphinx.testing's cache) shares nothing


def test_tests_that_share_a_build_or_a_module_fixture_are_one_group() -> None:
    found = sorted(sorted(i.nodeid for i in g) for g in sharding.groups(ITEMS))
    assert ["tests/browser/test_e.py::test_1"] in found and ["tests/test_a.py::test_1", "tests/test_a.py::test_2"] in found
    assert ["tests/browser/test_g.py::test_1", "tests/browser/test_h.py::test_1"] in found  # one survey
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


def test_the_html_builds_readers_spread_over_the_parts_when_that_ends_sooner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two long readers of `manual` go to two parts, each building it once."""
    monkeypatch.setattr(sharding, "SHARED_BUILD_SECONDS", 30.0)
    monkeypatch.setattr(sharding, "WEIGHTS", {"tests/test_x.py": 300, "tests/test_y.py": 300})
    items = [item("tests/test_x.py::test_1", manual="session"), item("tests/test_y.py::test_1", manual="session")]
    assert [sharding.part(items, k, 2) for k in (1, 2)] == [{0}, {1}]  # 330 s each beats 630 s in one part


def test_a_short_reader_joins_a_part_that_has_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """z (15 s) would end sooner in w's part (310 s against x's 330) but for the build it would add there (30 s)."""
    monkeypatch.setattr(sharding, "SHARED_BUILD_SECONDS", 30.0)
    monkeypatch.setattr(sharding, "WEIGHTS", {"tests/test_x.py": 300, "tests/test_w.py": 310, "tests/test_z.py": 15})
    items = [item("tests/test_x.py::test_1", manual="session"), item("tests/test_w.py::test_1"),
             item("tests/test_z.py::test_1", manual="session")]
    parts = [sharding.part(items, k, 2) for k in (1, 2)]
    assert {0, 2} in parts and {1} in parts


def test_a_part_without_the_html_builds_readers_does_not_count_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sharding, "SHARED_BUILD_SECONDS", 100.0)
    monkeypatch.setattr(sharding, "WEIGHTS", {"tests/test_x.py": 50, "tests/test_y.py": 50, "tests/test_w.py": 120})
    items = [item("tests/test_x.py::test_1", manual="session"), item("tests/test_y.py::test_1", manual="session"),
             item("tests/test_w.py::test_1")]
    # x and y together cost 200 s (one build); apart one part would hold 150 s and w's part 120 + 150: together wins
    parts = [sharding.part(items, k, 2) for k in (1, 2)]
    assert {0, 1} in parts and {2} in parts


def test_a_module_split_over_groups_lends_each_its_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module whose tests read two surveys: each group weighs its tests' share of the module and its survey."""
    monkeypatch.setattr(sharding, "WEIGHTS", {"tests/browser/test_m.py": 100})
    monkeypatch.setattr(sharding, "SHARED", {"survey_desktop": 30, "survey_phone": 20})
    items = [item("tests/browser/test_m.py::test_1", survey_desktop="session"),
             item("tests/browser/test_m.py::test_2", survey_phone="session"),
             item("tests/browser/test_m.py::test_3", survey_phone="session"),
             item("tests/browser/test_m.py::test_4", survey_phone="session")]
    found = sharding.groups(items)
    assert sorted(sharding.weight(g, {"tests/browser/test_m.py": 4}) for g in found) == [55.0, 95.0]
    parts = [sharding.part(items, k, 2) for k in (1, 2)]
    assert {0} in parts and {1, 2, 3} in parts
