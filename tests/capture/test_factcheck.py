"""The fact-check record (capture/factcheck.json): its reader in the core and the checks beyond its schema."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema

from miles101.book import load_book
from miles101.data import Capture
from miles101.factcheck import Check, FactChecks, factcheck_problems, load_factcheck
from miles101.problems import Problem, Subtype

ROOT = Path(__file__).resolve().parents[2]
DOC = json.loads((ROOT / "capture" / "factcheck.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((ROOT / "_ext" / "miles101" / "schema" / "factcheck.schema.json").read_text(encoding="utf-8"))


def problems_of(doc: dict, capture: Capture) -> list[Problem]:
    record = FactChecks(classes=doc["classes"], checks=tuple(Check.from_record(r, i) for i, r in enumerate(doc["checks"])))
    book, _ = load_book(ROOT / "manual.json", ROOT)
    return factcheck_problems(record, book.page_files, capture)


def test_committed_record_is_valid_and_readable(real_capture: Capture) -> None:
    jsonschema.validate(DOC, SCHEMA)
    assert problems_of(DOC, real_capture) == []
    record = load_factcheck(ROOT)
    last = record.last_checked("sections/2-4-size-the-weight-update.md")
    assert last is not None and last.commit == real_capture.provenance["commit"]
    assert last.wrong_found == last.fixed == len(last.fixes) and last.claims_checked >= last.wrong_found
    independent = record.last_checked("sections/2-4-size-the-weight-update.md", independent=True)
    assert independent is not None and independent.independent and independent.checker != last.checker or independent is last
    assert record.last_checked("sections/no-such-page.md") is None


def test_later_check_wins() -> None:
    doc = copy.deepcopy(DOC)
    later = {**doc["checks"][0], "date": "2027-01-02", "commit": "a" * 40, "checker": "an independent reader",
             "independent": True, "fixes": [], "wrong_found": 0, "fixed": 0}
    doc["checks"].append(later)
    record = FactChecks(classes=doc["classes"], checks=tuple(Check.from_record(r, i) for i, r in enumerate(doc["checks"])))
    assert record.last_checked(later["page"]).commit == "a" * 40
    assert record.last_checked(later["page"], independent=False).commit == DOC["checks"][0]["commit"]


def test_problems_a_schema_cannot_see(real_capture: Capture) -> None:
    doc = copy.deepcopy(DOC)
    first = doc["checks"][0]
    first["page"] = "sections/9-9-nowhere.md"
    first["classes_checked"] = [*first["classes_checked"], "vibes"]
    first["wrong_found"] = first["claims_checked"] + 1
    first["fixes"][0]["src"] = ["miles/utils/arguments.py:999999", "book:no/such/file.py"]
    found = problems_of(doc, real_capture)
    assert {p.subtype for p in found} == {Subtype.CAPTURE}
    text = " | ".join(f"{p.where}: {p.message}" for p in found)
    assert "capture/factcheck.json:$.checks[0].page: 'sections/9-9-nowhere.md' is not a page of the book." in text
    assert "unknown class(es) vibes." in text
    assert "the counts do not add up" in text
    assert "miles/utils/arguments.py has" in text and "999999 is not a range of them." in text
    assert "this repository has no 'no/such/file.py'." in text


def test_schema_refuses_a_check_without_its_commit() -> None:
    doc = copy.deepcopy(DOC)
    del doc["checks"][0]["commit"]
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc))
    assert errors and "'commit' is a required property" in errors[0].message
