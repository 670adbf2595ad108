"""The one table of capture files (`miles101.capturefiles`, issue 59): its rows hold together, the other tables are
views of it, and a file the model reads without a row is an error of the table, not a stale cache."""
from __future__ import annotations

import pytest

from buildutil import ROOT
from miles101 import capturefiles, intake, kinds, schemas, validate
from miles101.capturefiles import FILES, TableError, input_row, row_for

#: Kinds a fingerprint is made for that are no row of the kinds table: the pinned commit (flags.json's provenance).
DEPENDENCY_KINDS = {"pin"}


def test_each_glob_is_one_row_with_its_schema_and_its_kinds() -> None:
    assert len({f.glob for f in FILES}) == len(FILES), "a glob given twice"
    for f in FILES:
        assert f.schema is None or (schemas.schema_dir() / f.schema).is_file(), f"{f.glob}: no schema file {f.schema}"
        unknown = set(f.kinds) - set(kinds.BY_NAME) - DEPENDENCY_KINDS
        assert not unknown, f"{f.glob} feeds kinds the book does not have: {sorted(unknown)}"
        for other in f.reads:
            assert row_for(other.format(run="x")) is not None, f"{f.glob}'s checks read {other}, which has no row"


def test_every_value_kind_is_fed_by_a_row() -> None:
    fed = {kind for f in FILES for kind in f.kinds}
    assert set(kinds.VALUE_KINDS) <= fed, f"value kinds no row feeds: {sorted(set(kinds.VALUE_KINDS) - fed)}"
    for name, rel in kinds.SOURCE_OF_KIND.items():  # a kind's references read a file that has its row
        assert row_for(rel.replace("*", "x")) is not None, (name, rel)


def test_the_other_tables_are_views_of_it() -> None:
    assert list(schemas.SCHEMAS.items()) == [(f.glob, f.schema) for f in FILES if f.schema]
    assert validate.REQUIRED == ("miles/flags.json", "miles/metrics.json", "miles/models.json", "miles/files.json",
                                 "computed.json", "facts.json")
    assert set(intake.CAPTURE_INPUTS) == {f"capture/{f.glob}" for f in FILES if f.kinds}
    assert validate.fix_for is capturefiles.fix_for


@pytest.mark.parametrize(("rel", "fix"), [
    ("capture/miles/flags.json", "re-run the extraction (`python3 capture/run.py --miles-src PATH`) or restore it "
                                 "from git (`git checkout -- capture/miles/flags.json`)"),
    ("capture/gpu/first-grpo/steps.jsonl", "restore it from git (`git checkout -- capture/gpu/first-grpo/steps.jsonl`), "
                                           "or record the run again (`python3 capture/run.py record first-grpo --force`)"),
    ("capture/gpu/_attempts/first-grpo-1/run.json",
     "restore it from git (`git checkout -- capture/gpu/_attempts/first-grpo-1/run.json`), or remove the attempt "
     "(`rm -r capture/gpu/_attempts/first-grpo-1`) once you have read it"),
    ("capture/nowhere.json", "re-run the extraction (`python3 capture/run.py --miles-src PATH`) or restore it from "
                             "git (`git checkout -- capture/nowhere.json`)"),
], ids=["extraction", "recording", "attempt", "no-row"])
def test_a_fix_is_its_rows(rel: str, fix: str) -> None:
    assert capturefiles.fix_for(rel) == fix


def test_a_glob_stays_inside_one_folder() -> None:
    assert row_for("capture/gpu/first-grpo/run.json").glob == "gpu/*/run.json"
    assert row_for("capture/gpu/_attempts/x/run.json").glob == "gpu/_attempts/*/run.json"
    assert row_for("capture/references/sub/x.json") is None


def test_a_file_the_model_reads_without_a_row_is_an_error_of_the_table() -> None:
    with pytest.raises(TableError, match=r"capture/nowhere\.json .*add its row"):
        input_row("capture/nowhere.json")
    with pytest.raises(TableError, match="miles/models.json"):  # a row that feeds no kind: its changes reach no one
        input_row("capture/miles/models.json")
    assert input_row("capture/facts.json").kinds == ("fact",)


def test_the_intake_refuses_a_table_that_misses_an_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the facts row gone, the model would read facts.json with no fingerprint to change: the intake stops."""
    monkeypatch.setattr(capturefiles, "FILES", tuple(f for f in FILES if f.glob != "facts.json"))
    with pytest.raises(TableError, match=r"capture/facts\.json is read by the model"):
        intake.take_in(ROOT)


@pytest.mark.parametrize(("changed", "rechecked"), [
    ("miles/models.json", 2),  # its own schema check, and computed.json's check (its row reads models.json)
    ("facts.json", 1),  # its own schema check: no row's check reads facts.json
])
def test_a_check_is_answered_again_when_a_file_its_row_reads_changes(tmp_path, changed: str, rechecked: int) -> None:
    """The memo keys of `validate_capture` are made from the rows: a change to a file some row `reads` re-runs
    that row's check, and only the checks of the files that read it."""
    import shutil

    shutil.copytree(ROOT / "capture", tmp_path / "capture")
    cache = tmp_path / "valid.json"
    first = intake.validate_capture(tmp_path, cache)
    assert not first.problems and not first.cached and first.checked
    assert intake.validate_capture(tmp_path, cache).checked == 0
    path = tmp_path / "capture" / changed
    path.write_bytes(path.read_bytes() + b"\n")
    again = intake.validate_capture(tmp_path, cache)
    assert (again.checked, again.problems) == (rechecked, []), again


def test_the_one_pass_has_code_only_for_rows_that_need_it() -> None:
    """The intake's rules and takers are keyed by rows of the table; a row whose records are values has no taker
    (`add_records` loads it), and every other row the model reads is taken by its own taker or its recording's."""
    globs = {f.glob for f in FILES}
    assert set(intake.ROW_RULES) <= globs and set(intake.TAKERS) <= globs
    assert not {f.glob for f in intake.RECORD_ROWS} & set(intake.TAKERS)
    read_by_a_recording = {"gpu/*/host.json", "gpu/*/values.json"}  # Builder.model reads them beside run.json
    untaken = {f.glob for f in FILES if f.kinds} - {f.glob for f in intake.RECORD_ROWS} - set(intake.TAKERS)
    assert untaken == read_by_a_recording


def test_a_row_of_records_becomes_values_from_the_row_alone() -> None:
    """A new kind with its own files is one row: its records become values of its kind, each naming its file (a
    glob row), and a key two of its files define is a problem of the second, never a silent overwrite."""
    row = capturefiles.CaptureFile("trials/*.json", None, capturefiles.BY_HAND, kinds=("fact",), records="trials")
    values: dict = {}
    problems: list = []
    intake.add_records(row, "capture/trials/a.json", {"trials": {"t.x": {"value": 3, "unit": "s", "source": "S"}}},
                       values, problems)
    intake.add_records(row, "capture/trials/b.json", {"trials": {"t.x": {"value": 4}}}, values, problems)
    got = values["fact", "t.x"]
    assert (got.value, got.unit, got.what, got.detail) == (3, "s", "t.x", {"source": "S", "file": "capture/trials/a.json"})
    assert [(p.file, p.message) for p in problems] == [
        ("capture/trials/b.json", "the fact key 't.x' is also defined in capture/trials/a.json.")]


def test_a_reference_record_is_the_kind_its_kind_field_names() -> None:
    row = row_for("capture/references/x.json")
    values: dict = {}
    intake.add_records(row, "capture/references/x.json", {"references": {
        "a": {"value": 1, "kind": "threshold", "reasoning": "r"}, "b": {"value": 2}}}, values, [])
    assert sorted(values) == [("reference", "b"), ("threshold", "a")]
    assert values["threshold", "a"].detail == {"reasoning": "r", "file": "capture/references/x.json"}
