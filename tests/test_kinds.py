"""The one table of value kinds (`miles101.kinds`) and `capture/run.py explain KIND:KEY`."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from capture.explain import explain
from miles101 import kinds
from miles101.pages import ROLE_KINDS
from miles101.problems import SOURCE_OF_KIND
from miles101.resolve import KINDS as RESOLVED_KINDS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def capture(real_capture_copies):
    return real_capture_copies()


def test_every_kind_the_resolver_knows_has_one_row() -> None:
    assert set(RESOLVED_KINDS) == set(kinds.BY_NAME)
    assert len(kinds.KINDS) == len(kinds.BY_NAME), "a kind has two rows"
    assert ROLE_KINDS == kinds.ROLE_KINDS and "run" not in ROLE_KINDS


def test_every_value_kind_says_where_its_values_come_from() -> None:
    for row in kinds.KINDS:
        if row.value:
            assert row.source is not None and row.llms and row.home, row.name
        if row.name in ("reference", "threshold", "crosscheck"):  # not the book's own number: its source inline
            assert row.tag and row.inline_source is not None, row.name


def test_twins_point_at_each_other_and_read_the_same_records() -> None:
    for row in kinds.KINDS:
        if row.twin:
            twin = kinds.kind(row.twin)
            assert twin.twin == row.name and row.words and twin.words
            assert row.record_kind and twin.record_kind, "twins are told apart by the records' kind field"


def test_the_problems_follow_on_table_comes_from_the_rows() -> None:
    assert SOURCE_OF_KIND["computed"] == "capture/computed.json"
    assert "measured" not in SOURCE_OF_KIND, "a run file's values are not one capture file"


def _one_key(capture, kind: str) -> str:
    """A key of `kind` the real capture resolves."""
    if kind in kinds.VALUE_KINDS:
        return capture.value_keys(kind)[0]
    return {"flag": "--num-rollout", "default": "--num-rollout", "metric": "train/loss",
            "src": "miles/utils/arguments.py:1", "issue": "radixark/miles#1", "run": "first-grpo",
            "run-arg": "first-grpo --num-rollout"}[kind]


@pytest.mark.parametrize("kind", [k.name for k in kinds.KINDS])
def test_explain_answers_for_every_kind(capture, kind: str) -> None:
    lines, ok = explain(ROOT, capture, f"{kind}:{_one_key(capture, kind)}")
    assert ok, lines
    assert lines[1] == f"  kind: {kind} (declared in {kinds.kind(kind).home})"
    assert any(line.startswith("  cited ") for line in lines)
    if kind in kinds.VALUE_KINDS:
        assert any(line.startswith("  where it comes from: ") for line in lines)


def test_explain_names_the_pages_that_cite_a_value(capture) -> None:
    lines, ok = explain(ROOT, capture, "fact:spark.memory")
    assert ok and "  file: capture/facts.json" in lines
    assert "    front.md:8" in lines or any(line.startswith("    front.md:") for line in lines)


def test_explain_refuses_an_unknown_key_or_kind(capture) -> None:
    lines, ok = explain(ROOT, capture, "fact:spark.memroy")
    assert not ok and "Did you mean spark.memory" in lines[0]
    lines, ok = explain(ROOT, capture, "wattage:spark")
    assert not ok and "cannot read 'wattage:spark' as KIND:KEY" in lines[0]


def test_explain_from_the_command_line(capture) -> None:
    done = subprocess.run([sys.executable, "capture/run.py", "explain", "threshold:" + capture.value_keys("threshold")[0]],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Our threshold: a cut-off this manual sets itself" in done.stdout
