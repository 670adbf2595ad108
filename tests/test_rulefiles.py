"""The doctor's rule files are read through the gate (issue 51 §2): strict reader, schema, and the rules a schema
cannot say; doctor_rules and capture.lab.symptoms read them only through miles101.rulefiles."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildutil import ROOT
from miles101 import doctor_rules
from miles101.problems import ProblemError
from miles101.rulefiles import READER, SYMPTOMS, doctor_blocks, load_cutoffs, load_symptoms, missing_rules

pytestmark = pytest.mark.unit


def low_high(rec: dict) -> None:
    """A threshold given as a range (legal for the references schema): no one number to compare with."""
    value = rec.pop("value")
    rec.update(low=value / 2, high=value * 2)


@pytest.fixture
def root(rules_root: Path) -> Path:
    return rules_root  # the shared copy of the rule files (tests/conftest.py)


def test_the_books_rule_files_pass(root: Path) -> None:
    assert load_symptoms(root)["symptoms"] and load_cutoffs(root)
    assert doctor_rules.rules(root)["cutoffs"] == load_cutoffs(root)


def _first_condition(doc: dict, fact: str | None = None) -> dict:
    """The first `rank`/`when` condition of the symptoms (on `fact`, when given; else on another fact than phase)."""
    def walk(node):
        if isinstance(node, dict):
            if "fact" in node and "in" in node and (node["fact"] == fact if fact else node["fact"] != "phase"):
                yield node
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)
    return next(walk(doc["symptoms"]))


@pytest.mark.parametrize(("rel", "breaks", "says"), [
    (SYMPTOMS, lambda d: d["symptoms"][0].pop("grep"), "'grep' is a required property"),
    (SYMPTOMS, lambda d: d["symptoms"][1].update(grep=["    "]), "has no visible character"),
    (SYMPTOMS, lambda d: d["symptoms"][1].update(id=d["symptoms"][0]["id"]), "is used 2 times"),
    (READER, lambda d: low_high(next(iter(d["references"].values()))), "has no value"),
    (SYMPTOMS, lambda d: _first_condition(d).update({"in": ["fdsp"]}), "is not one the doctor reads from a log"),
    (SYMPTOMS, lambda d: _first_condition(d, "phase").update({"in": ["trainr"]}), "evidence.phases (their ids)"),
], ids=["no grep", "a blank grep", "a duplicated id", "a threshold without value", "an unknown fact value",
        "an unknown phase"])
def test_a_broken_rule_file_is_a_problem_not_a_crash(root: Path, rel: str, breaks, says: str) -> None:
    doc = json.loads((root / rel).read_text(encoding="utf-8"))
    breaks(doc)
    (root / rel).write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ProblemError) as info:
        doctor_rules.rules(root)  # read through the gate: never a KeyError or a TypeError
    problem = info.value.problem
    assert problem.where.startswith(f"{rel}:$") and says in problem.message and problem.fix, problem


def test_not_json_and_a_fifo_are_named(root: Path) -> None:
    (root / SYMPTOMS).write_text("{ broken", encoding="utf-8")
    with pytest.raises(ProblemError, match="invalid JSON"):
        load_symptoms(root)
    (root / SYMPTOMS).unlink()
    (root / SYMPTOMS).mkdir()
    with pytest.raises(ProblemError, match="it is a directory"):
        load_symptoms(root)


def test_a_missing_rule_file_is_named_at_the_doctors_block(root: Path) -> None:
    page = "Text.\n\n```{log-doctor}\n```\n\n::::{log-doctor}\n::::\n"
    assert doctor_blocks(page) == [3, 6]
    assert missing_rules(root, "p.md", 3) is None
    (root / SYMPTOMS).unlink()
    problem = missing_rules(root, "p.md", 3)
    assert problem is not None and problem.where == "p.md:3" and "does not exist" in problem.message


def test_the_lab_tool_says_what_is_wrong(monkeypatch: pytest.MonkeyPatch, root: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from capture.lab import symptoms

    doc = json.loads((root / SYMPTOMS).read_text(encoding="utf-8"))
    doc["symptoms"][1]["grep"] = ["\t\t\t\t"]
    (root / SYMPTOMS).write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(symptoms, "ROOT", root)
    assert symptoms.main([]) == 1
    assert "capture/symptoms.json:$.symptoms[1].grep[0]" in capsys.readouterr().err
