"""The one table of value kinds (`miles101.kinds`) and `capture/run.py explain KIND:KEY`."""
from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from capture.explain import explain
from miles101 import kinds
from miles101.pages import ROLE_KINDS
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
    assert kinds.SOURCE_OF_KIND["computed"] == "capture/computed.json"
    assert "measured" not in kinds.SOURCE_OF_KIND, "a run file's values are not one capture file"


#: A real key of each kind that is not a value (a value kind's key is the first the committed capture holds).
NAMED_KEYS = {"flag": "--num-rollout", "default": "--num-rollout", "metric": "train/loss",
              "src": "miles/utils/arguments.py:1", "issue": "radixark/miles#1", "run": "first-grpo",
              "run-arg": "first-grpo --num-rollout", "series": "verl-gsm8k-qwen2.5-0.5b-ppo"}


def test_a_new_kind_is_its_row_its_loader_and_its_css() -> None:
    """Nothing else keeps a list of kinds: the schemas, the intake's inputs, the fingerprints, the fix of a broken
    file, the roles and the legend all read the tables (issue 49: the throwaway-kind branch shows a kind added that
    way; issue 59: a kind's own file is one row of miles101.capturefiles)."""
    from miles101 import capturefiles, intake, schemas
    from miles101.sphinx_ext import values
    from miles101.validate import fix_for

    own = [f for f in capturefiles.FILES if set(f.kinds) & set(kinds.VALUE_KINDS)]
    assert own, "the value kinds' own files"
    for f in own:
        rel = "capture/" + f.glob.replace("*", "x")
        if f.schema is not None:  # a failed attempt's run.json has none: it is read, never published
            assert schemas.SCHEMAS[f.glob] == f.schema and (schemas.schema_dir() / f.schema).is_file(), f
        assert schemas.schema_name_for(rel) == f.schema
        assert f"capture/{f.glob}" in intake.CAPTURE_INPUTS, f
        assert fix_for(rel) == f.fix.format(restore=f"restore it from git (`git checkout -- {rel}`)", file=rel,
                                            run="x", attempt="capture/gpu/_attempts/x"), f
    assert list(values.ROLES) == list(kinds.VALUE_KINDS)
    assert all(role.kind == name for name, role in values.ROLES.items())
    assert [e.kind for e in kinds.legend() if e.term != "pending"] == [k.name for k in kinds.KINDS if k.term
                                                                        and k.value and not k.inline_source] + [
        k.name for k in kinds.KINDS if k.term and not k.value] + [k.name for k in kinds.KINDS if k.term and k.inline_source]
    assert kinds.LEGEND_ORDER[:2] == ("measured", "pending")


def _one_key(capture, kind: str) -> str | None:
    """A key of `kind` the real capture resolves; None for a value kind with no value in the capture yet."""
    if kind in kinds.VALUE_KINDS:
        keys = capture.value_keys(kind)
        return keys[0] if keys else None
    assert kind in NAMED_KEYS, f"kind {kind!r} is not a value: name one real key of it in NAMED_KEYS"
    return NAMED_KEYS[kind]


def explains_a_kind_with_no_value(capture, kind: str) -> str:
    """What `explain` answers for a value kind the capture holds no value of yet: the resolver's refusal,
    naming the file to declare one in (asserted), returned to be reported."""
    lines, ok = explain(ROOT, capture, f"{kind}:any.key")
    assert not ok and len(lines) == 1, lines
    assert f"no {kind} value 'any.key'." in lines[0] and f"declare it in {kinds.kind(kind).home}" in lines[0], lines
    return lines[0]


@pytest.mark.parametrize("kind", [k.name for k in kinds.KINDS])
def test_explain_answers_for_every_kind(capture, kind: str) -> None:
    """Every row of the table, with one real key from the committed capture; a value kind with none yet is
    reported (a warning in pytest's summary naming the kind), never passed over in silence."""
    key = _one_key(capture, kind)
    if key is None:
        warnings.warn(f"kinds: {kind!r} has no value in the committed capture yet; explain answers: "
                      f"{explains_a_kind_with_no_value(capture, kind)}", stacklevel=1)
        return
    lines, ok = explain(ROOT, capture, f"{kind}:{key}")
    assert ok, lines
    assert lines[0].startswith(f"{kind}:"), lines
    assert lines[1] == f"  kind: {kind} (declared in {kinds.kind(kind).home})"
    assert any(line.startswith("  cited ") for line in lines)
    if kind != "issue":  # an issue lives in its thread: explain gives its link
        assert lines[2].startswith("  file: capture/"), lines
    if kind in kinds.VALUE_KINDS:
        [source] = [line for line in lines if line.startswith("  where it comes from: ")]
        assert source == f"  where it comes from: {kinds.provenance_text(capture.value(kind, key))}"


def test_explain_names_the_recording_a_measured_value_comes_from(capture) -> None:
    """A pending measured value points at its run file; once its run is recorded, at the recording's values.json
    (the file the value is read from), the run file named as where it is declared."""
    import copy

    key = _one_key(capture, "measured")
    assert key is not None, "the committed capture declares no measured value"
    run = capture.value("measured", key).detail["run"]
    pending, _ = explain(ROOT, capture, f"measured:{key}")
    assert pending[2] == f"  file: capture/runs/{run}.yaml", pending
    recorded = copy.copy(capture)
    recorded.recordings = {**capture.recordings, run: {"run": {}, "host": {}, "values": {}}}
    lines, ok = explain(ROOT, recorded, f"measured:{key}")
    assert ok, lines
    assert lines[2] == f"  file: capture/gpu/{run}/values.json", lines
    assert lines[3] == f"  declared in: capture/runs/{run}.yaml", lines


def test_a_value_kind_with_no_value_yet_is_reported(capture) -> None:
    """The branch above for a kind the capture holds nothing of: the capture less every cross-check value."""
    import copy

    empty = copy.copy(capture)
    empty.values = {k: v for k, v in capture.values.items() if k[0] != "crosscheck"}
    assert _one_key(empty, "crosscheck") is None
    with pytest.warns(UserWarning, match="'crosscheck' has no value in the committed capture yet"):
        test_explain_answers_for_every_kind(empty, "crosscheck")
    assert "declare it in capture/crosscheck/results/<host>.json" in explains_a_kind_with_no_value(empty, "crosscheck")


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


@pytest.mark.parametrize("key", ["fact:\x1b[2J\x1b[31mspark", "fact:spark\nFAIL: everything", "fact:\u202espark.memory",
                                 "fact:spark\x7f\x07", "\x1b]0;title\x07:x"])
def test_explain_echoes_a_key_as_text_never_as_terminal_control(key: str) -> None:
    """A key's ANSI escapes, newlines and right-to-left override came back raw (a forged `FAIL:` line): every
    printed line is text now, each control character written as its escape."""
    done = subprocess.run([sys.executable, "capture/run.py", "explain", key], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert not any(c in done.stdout for c in "\x1b\x00\x07\u202e")
    assert len(done.stdout.strip().splitlines()) == 1 and "FAIL:" not in done.stdout.splitlines()[0][:5]
