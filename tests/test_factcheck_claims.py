"""The fact-check record's universal claims (issue 47 item 4): each listed sentence is still on its page, once,
and its source resolves (Miles lines at the captured commit, or another page that says the same)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from miles101.book import load_book
from miles101.factcheck import FILE, claim_problems, load_factcheck
from miles101.intake import validate_capture

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def capture(real_capture_copies):
    return real_capture_copies()


def _pages(root: Path) -> list[str]:
    book, _ = load_book(root / "manual.json", root)
    return book.page_files


def test_every_listed_claim_is_on_its_page(capture) -> None:
    record = load_factcheck(ROOT)
    assert len(record.claims) >= 3
    assert not claim_problems(record, _pages(ROOT), ROOT, capture)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dest = tmp_path / "p"
    dest.mkdir()
    shutil.copy(ROOT / "manual.json", dest / "manual.json")
    shutil.copy(ROOT / "front.md", dest / "front.md")
    shutil.copytree(ROOT / "sections", dest / "sections")
    (dest / "capture").mkdir()
    shutil.copy(ROOT / FILE, dest / FILE)
    return dest


def _set_claims(root: Path, claims: dict) -> None:
    doc = json.loads((root / FILE).read_text(encoding="utf-8"))
    doc["universal_claims"] = claims
    (root / FILE).write_text(json.dumps(doc), encoding="utf-8")


def test_a_sentence_that_left_its_page_is_named(project: Path, capture) -> None:
    page = "sections/8-2-the-correction-methods.md"
    _set_claims(project, {page: [{"sentence": "It clamps that log-weight at `20` either way",
                                  "source": {"src": "examples/infra_features/train_infer_mismatch_helper/mis.py:189"}}]})
    assert not claim_problems(load_factcheck(project), _pages(project), project, capture)
    text = (project / page).read_text(encoding="utf-8")
    (project / page).write_text(text.replace("either way", "on both sides"), encoding="utf-8")
    problems = claim_problems(load_factcheck(project), _pages(project), project, capture)
    assert [p.where for p in problems] == [f'{FILE}:$.universal_claims["{page}"][0].sentence']
    assert "is no longer on sections/8-2" in problems[0].message and "check the new sentence" in problems[0].fix


def test_a_fragment_found_twice_a_bad_src_and_another_page_that_disagrees(project: Path, capture) -> None:
    _set_claims(project, {
        "sections/3-1-train-math-on-gsm8k.md": [
            {"sentence": "scores `0` on", "source": {"src": "miles/rollout/rm_hub/__init__.py:9999"}}],
        "sections/3-2-train-with-the-dapo-filter.md": [
            {"sentence": "the `math` reward is the integer `0` or `1`",
             "source": {"page": "sections/3-1-train-math-on-gsm8k.md", "says": "the `math` reward is a float"}}],
        "sections/9-9-no-such-page.md": [{"sentence": "every page is here", "source": {"command": "ls", "output": "x"}}],
    })
    problems = {p.where: p.message for p in claim_problems(load_factcheck(project), _pages(project), project, capture)}
    base = f"{FILE}:$.universal_claims"
    assert "is on 2 places of" in problems[f'{base}["sections/3-1-train-math-on-gsm8k.md"][0].sentence']
    assert "9999" in problems[f'{base}["sections/3-1-train-math-on-gsm8k.md"][0].source.src']
    assert "must agree with" in problems[f'{base}["sections/3-2-train-with-the-dapo-filter.md"][0].source']
    assert "is not a page of the book" in problems[f'{base}["sections/9-9-no-such-page.md"][0]']


def test_the_schema_refuses_a_claim_without_a_source(project: Path) -> None:
    _set_claims(project, {"sections/3-1-train-math-on-gsm8k.md": [{"sentence": "The score is `+1` or `-1`"}]})
    for sub in ("miles", "runs", "references"):
        (project / "capture" / sub).mkdir(exist_ok=True)
    result = validate_capture(project)
    said = [str(p) for p in result.problems if FILE in str(p)]
    assert said and any("universal_claims" in s and "source" in s for s in said), said


def test_a_claim_decided_by_the_readers_evidence_is_held_to_its_page(project: Path, capture) -> None:
    """The fourth source form: what an independent reader read or ran, where no single Miles line decides it."""
    page = "sections/8-2-the-correction-methods.md"
    claim = {"sentence": "It clamps that log-weight at `20` either way",
             "source": {"evidence": "mis.py:189-223 read, and the clamp run on a tensor of +-50"}}
    _set_claims(project, {page: [claim]})
    schema = json.loads((ROOT / "_ext/miles101/schema/factcheck.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads((project / FILE).read_text(encoding="utf-8")), schema)
    record = load_factcheck(project)
    assert record.claims[0].evidence.startswith("mis.py")
    assert not claim_problems(record, _pages(project), project, capture)
    text = (project / page).read_text(encoding="utf-8")
    (project / page).write_text(text.replace("either way", "on both sides"), encoding="utf-8")
    assert any("is no longer on" in p.message for p in claim_problems(load_factcheck(project), _pages(project),
                                                                       project, capture))


@pytest.mark.parametrize("claim", [
    {"sentence": 5, "source": {"evidence": "mis.py:189-223 read"}},
    {"sentence": "It clamps that log-weight at `20` either way", "source": {"src": 5}},
    {"sentence": "It clamps that log-weight at `20` either way", "source": {"page": "front.md", "says": 12345678}},
])
def test_a_claim_with_a_field_of_the_wrong_type_is_named_by_the_schema_not_a_traceback(project: Path, capture,
                                                                                         claim: dict) -> None:
    """A number where a sentence or a source string goes ended --check in a TypeError/AttributeError; now the entry
    is left out of the record and the schema names its JSON path."""
    page = "sections/8-2-the-correction-methods.md"
    _set_claims(project, {page: [claim]})
    record = load_factcheck(project)
    assert record.claims == ()
    assert not claim_problems(record, _pages(project), project, capture)
    for sub in ("miles", "runs", "references"):
        (project / "capture" / sub).mkdir(exist_ok=True)
    said = [str(p) for p in validate_capture(project).problems if FILE in str(p)]
    assert any(f'$.universal_claims["{page}"][0]' in s for s in said), said
