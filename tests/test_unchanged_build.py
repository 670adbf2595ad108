"""What a build whose inputs did not change skips (issue 50): imports, the log doctor's rule set, the check of
the served BOOK; and manual.json's cross-check reads each page once, with the messages it always gave."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from buildutil import ROOT
from miles101 import book_miles, doctor_rules
from miles101.book import load_book
from miles101.problems import ProblemError
from miles101.rulefiles import READER, SYMPTOMS
from miles101.sphinx_ext import image_compare

pytestmark = pytest.mark.unit

#: Modules the extension imports only when a page, a cold check or a tool needs them.
LAZY = ("jsonschema", "tarfile", "statistics", "miles101.runcheck", "miles101.values", "miles101.catalog",
        "miles101.tools.read_run", "miles101.tools.miles_tree")


def _python(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "_ext"), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_extension_imports_no_validator_and_no_tool() -> None:
    code = f"import json, sys, miles101.sphinx_ext; print(json.dumps([m for m in {LAZY!r} if m in sys.modules]))"
    assert _python(code) == []


WARM = f"""
import json, sys
from pathlib import Path
from miles101.book import load_book
from miles101.doctor_rules import rules_text
from miles101.intake import take_in
root, cache = Path(sys.argv[1]), Path(sys.argv[2])
book, _ = load_book(root / "manual.json", root, valid_cache=cache / "m101-book-valid.pickle")
intake = take_in(root, cache)
rules_text(root, cache / "doctor.pickle")
print(json.dumps({{"book": book is not None, "loaded": [m for m in {LAZY!r} if m in sys.modules]}}))
"""


def test_a_second_intake_of_the_same_bytes_imports_no_validator(project: Path, tmp_path: Path) -> None:
    """The first intake validates (jsonschema, the run file checks, the recordings' re-derivation); the second
    answers every check from the memos and imports none of it."""
    cache = tmp_path / "doctrees"
    first = _python(WARM, str(project), str(cache))
    assert first["book"] and "jsonschema" in first["loaded"]  # the memos were empty: it validated
    assert _python(WARM, str(project), str(cache)) == {"book": True, "loaded": []}




def test_the_doctors_rules_are_kept_for_the_same_bytes(rules_root: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    memo = tmp_path / "doctrees" / "rules.pickle"
    text = doctor_rules.rules_text(rules_root, memo)
    assert text == json.dumps(doctor_rules.rules(rules_root), indent=1, sort_keys=True) + "\n"
    gathered = []
    real = doctor_rules.rules
    monkeypatch.setattr(doctor_rules, "rules", lambda root: gathered.append(root) or real(root))
    assert doctor_rules.rules_text(rules_root, memo) == text and gathered == []  # the memo answered
    doc = json.loads((rules_root / SYMPTOMS).read_text(encoding="utf-8"))
    doc["symptoms"] = doc["symptoms"][:1]
    (rules_root / SYMPTOMS).write_text(json.dumps(doc), encoding="utf-8")
    assert json.loads(doctor_rules.rules_text(rules_root, memo))["symptoms"] == doc["symptoms"]
    assert gathered == [rules_root]  # new bytes: gathered afresh


def test_a_broken_rule_file_raises_as_without_a_memo(rules_root: Path, tmp_path: Path) -> None:
    memo = tmp_path / "rules.pickle"
    doctor_rules.rules_text(rules_root, memo)
    doc = json.loads((rules_root / SYMPTOMS).read_text(encoding="utf-8"))
    doc["symptoms"][0].pop("grep")
    (rules_root / SYMPTOMS).write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ProblemError) as without:
        doctor_rules.rules(rules_root)
    for _ in range(2):  # never kept: raised again, the same problem
        with pytest.raises(ProblemError) as got:
            doctor_rules.rules_text(rules_root, memo)
        assert got.value.problem == without.value.problem
    shutil.copy(ROOT / SYMPTOMS, rules_root / SYMPTOMS)
    (rules_root / READER).unlink()
    (rules_root / READER).mkdir()  # a directory: the key cannot be read, the gathering names it
    with pytest.raises(ProblemError, match="directory"):
        doctor_rules.rules_text(rules_root, memo)


def _app(doctrees: Path) -> SimpleNamespace:
    book, problems = load_book(ROOT / "manual.json", ROOT)
    assert book is not None, problems
    config = SimpleNamespace(m101_book="manual.json", _m101_book=book)
    return SimpleNamespace(srcdir=str(ROOT), confdir=str(ROOT), doctreedir=str(doctrees), config=config)


def test_the_served_book_check_is_kept_for_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from miles101.tools.miles_tree import BOOK

    warned: list[str] = []
    monkeypatch.setattr(image_compare, "warn", lambda subtype, message, **kw: warned.append(message))
    sides: list[dict] = []
    monkeypatch.setattr(book_miles, "book_side", lambda root, book=None: sides.append(book) or dict(BOOK))
    app = _app(tmp_path / "fresh")
    image_compare.check_book(app)
    assert len(sides) == 1 and sides[0] is app.config._m101_book  # the build's book, not a second load
    image_compare.check_book(app)
    assert len(sides) == 1 and warned == []  # the memo answered: BOOK matches
    monkeypatch.setattr(book_miles, "book_side", lambda root, book=None: {**BOOK, "pin": {}})
    stale = _app(tmp_path / "stale")
    image_compare.check_book(stale)
    image_compare.check_book(stale)  # from the memo, the same warning
    assert len(warned) == 2 and all("no longer matches" in w for w in warned)


def test_the_served_book_checks_key_holds_what_book_side_reads(tmp_path: Path) -> None:
    root = tmp_path
    for rel in ("manual.json", "front.md", "sections/a.md", "capture/miles/flags.json", "capture/miles/metrics.json",
                "capture/runs/r.yaml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel, encoding="utf-8")
    book = SimpleNamespace(page_files=["front.md", "sections/a.md"])
    keys = {image_compare.check_key(root, book)}
    for rel in ("manual.json", "sections/a.md", "capture/miles/metrics.json", "capture/runs/r.yaml"):
        (root / rel).write_text(rel + " changed", encoding="utf-8")
        keys.add(image_compare.check_key(root, book))
    (root / "capture/runs/s.yaml").write_text("a new run", encoding="utf-8")
    keys.add(image_compare.check_key(root, book))
    (root / "sections/a.md").unlink()
    os.mkfifo(root / "sections/a.md")  # never blocks: a FIFO is no regular file
    keys.add(image_compare.check_key(root, book))
    assert len(keys) == 7


@pytest.mark.parametrize(("text", "titled"), [
    ("# Title\n\ntext\n", True), ("intro\r\n# Title\r\n", True), ("intro\r# Title\r", True),
    ("intro\n\n## Only a subtitle\n", False), ("", False), ("\ufeff# A BOM before the title\n", False),
], ids=["first line", "CRLF", "CR", "no title", "empty", "BOM"])
def test_a_pages_title_is_found_as_before(book_copy: Path, text: str, titled: bool) -> None:
    """The cross-check reads each page once (the title from the text the strict reader read), as
    `Path.read_text` would: a page that opens with a BOM has no '# ' line (it was so before)."""
    (book_copy / "sections" / "1-1-first.md").write_bytes(text.encode("utf-8"))
    _, problems = load_book(book_copy / "manual.json", book_copy)
    untitled = [p for p in problems if "has no '# Title' line" in p.message]
    assert (untitled == []) == titled
    if not titled:
        assert untitled[0].message == "the section file 'sections/1-1-first.md' has no '# Title' line (empty?)."


def test_a_page_linked_out_of_the_book_is_named_twice_as_before(book_copy: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Out\n", encoding="utf-8")
    page = book_copy / "sections" / "1-1-first.md"
    page.unlink()
    page.symlink_to(outside)
    book, problems = load_book(book_copy / "manual.json", book_copy)
    assert book is None
    assert [p.message for p in problems if "sections/1-1-first.md" in p.message or "1-1-first" in p.where] == [
        "it is a symlink to a file outside the project, which is never read or published.",
        "the page 'sections/1-1-first.md' is a symlink out of the book's directory.",
    ]


def test_the_served_commands_come_from_this_builds_runs_and_stay_in_the_site(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Every script is rendered from the model each build (no memo's text is served), and a model whose run ids
    are not names (a doctree folder altered by hand) writes nothing outside `_commands/`: a warning names it."""
    from miles101.runfiles import resolve_runs
    from miles101.sphinx_ext import runs as runs_ext
    from miles101.strict import parse_yaml_bytes

    raw = {p.stem: parse_yaml_bytes(p.read_bytes(), p.name) for p in sorted((ROOT / "capture" / "runs").glob("*.yaml"))}
    model, errors = resolve_runs(raw)
    assert not errors and model
    capture = SimpleNamespace(runs=model)
    monkeypatch.setattr(runs_ext, "capture_of", lambda env: capture)
    warned: list[str] = []
    monkeypatch.setattr(runs_ext, "warn", lambda subtype, message, **kw: warned.append(message))
    app = SimpleNamespace(builder=SimpleNamespace(name="html"), outdir=str(tmp_path / "html"),
                          doctreedir=str(tmp_path / "doctrees"), env=None, srcdir=str(ROOT))
    runs_ext.write_command_files(app, None)
    served_dir = tmp_path / "html" / runs_ext.COMMANDS_DIR
    served = {p.stem: p.read_text(encoding="utf-8") for p in served_dir.glob("*.sh")}
    assert served == {run_id: runs_ext.command_file(run) for run_id, run in model.items()} and warned == []
    assert not (tmp_path / "doctrees").exists()  # nothing kept between builds
    first = sorted(model)[0]
    capture.runs = {**model, first: {**model[first], "title": "another title"}}
    runs_ext.write_command_files(app, None)
    assert "another title" in (served_dir / f"{first}.sh").read_text(encoding="utf-8")
    hostile = {"../../escaped": {**model[first], "id": "../../escaped"}, "/tmp/abs": {**model[first], "id": "/tmp/abs"},
               "Upper": {**model[first], "id": "Upper"}, "not-its-id": {**model[first]}, "x\n": model[first],
               "undeclared": {**model[first], "id": "undeclared"}}
    capture.runs = hostile
    runs_ext.write_command_files(app, None)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file() and p.parent != served_dir) == []
    assert not (served_dir / "not-its-id.sh").exists() and len(warned) == len(hostile)
    assert all("not a declared run's id" in w for w in warned)


def test_a_facts_value_change_is_not_held_against_the_schema_again(project: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """facts.json's schema never looks at a number's value: a file whose numbers alone changed keeps the verdict
    its shape had, while every rule that reads the numbers (finite, unit range) runs on the new file."""
    from miles101 import intake, schemas

    cache = tmp_path / "doctrees" / intake.CHECKS_CACHE
    facts = project / "capture" / "facts.json"
    doc = json.loads(facts.read_text(encoding="utf-8"))
    key = "ray.memory_monitor_refresh_ms"

    def put(value: object) -> list[str]:
        doc["facts"][key]["value"] = value
        facts.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        return [p.message for p in intake.validate_capture(project, cache).problems if "facts.json" in p.where]

    assert put(doc["facts"][key]["value"]) == []  # the first check holds the file against its schema
    compiled: list[str] = []
    real = schemas.validator
    monkeypatch.setattr(schemas, "validator", lambda name, text: compiled.append(name) or real(name, text))
    assert put(777) == [] and compiled == []  # a new number: the shape's verdict
    assert put(-5) == ["-5 ms is out of range (a ms is never negative)."] and compiled == []  # the rules still run
    assert put("777") and compiled == ["facts.schema.json"]  # a string where a number was: a new shape, checked
    assert "is not of type 'number'" in put("777")[0]
    assert put(778) == []


@pytest.mark.parametrize(("schema", "blind"), [
    ({"type": "object", "properties": {"v": {"type": ["number", "null"]}}}, True),
    ({"properties": {"v": {"minimum": 0}}}, False),
    ({"properties": {"v": {"exclusiveMaximum": 10}}}, False),
    ({"properties": {"v": {"multipleOf": 2}}}, False),
    ({"properties": {"v": {"enum": [1, 2]}}}, False),
    ({"properties": {"v": {"const": {"a": 1}}}}, False),
    ({"properties": {"v": {"enum": ["a", None]}}}, True),
    ({"items": {"type": "number"}, "uniqueItems": True}, False),
    ({"$defs": {"n": {"type": "number"}}, "properties": {"v": {"$ref": "#/$defs/n"}}}, True),
    ({"properties": {"v": {"$ref": "common.schema.json#/$defs/n"}}}, False),  # keywords in another file
])
def test_a_schema_is_number_blind_only_when_no_keyword_reads_a_number(schema: dict, blind: bool) -> None:
    from miles101 import schemas

    assert schemas.number_blind(json.dumps(schema)) is blind


@pytest.mark.parametrize("schema", [
    {"type": "integer"},
    {"type": "array", "items": {"type": "integer"}, "minItems": 2},
    {"if": {"type": "integer"}, "then": {"required": ["x"]}, "else": {"type": "number"}},
    {"contains": {"type": "integer"}, "minContains": 2},
    {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "dependentSchemas": {"a": {"required": ["b"]}},
     "additionalProperties": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
])
def test_documents_of_one_number_shape_get_one_verdict(schema: dict) -> None:
    """What `schemas.shape_errors` relies on: under a number-blind schema, two documents of one `number_shape` pass or
    fail together, whether a number is an integer (1, 1.0, 10**30) or not (1.5, NaN, infinity) included."""
    from miles101 import schemas

    text = json.dumps(schema)
    assert schemas.number_blind(text)
    numbers = [0, 1, -7, 10**30, 1.0, 2.0, 1e300, 1.5, -0.25, float("nan"), float("inf"), True, None]
    docs = [*numbers, [1, 1.5], [1, 2], [1.0, 2], [float("nan"), 3], {"a": 1, "b": 2.5}, {"a": 1.5},
            {"a": 1, "b": 2}, {"ab": 10**40}, {"A": 1}]
    verdicts: dict[str, set[bool]] = {}
    for doc in docs:
        valid = not list(schemas.validator("probe", text).iter_errors(doc))
        verdicts.setdefault(schemas.number_shape(doc), set()).add(valid)
    assert all(len(v) == 1 for v in verdicts.values()), verdicts
    assert schemas.number_shape(1) != schemas.number_shape(1.5) == schemas.number_shape(float("nan"))
