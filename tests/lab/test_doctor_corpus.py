"""The log doctor's corpus of public threads (tests/fixtures/doctor-corpus/): its form and its split.

Both sets are schema-checked here (URL, excerpt, cause, expected entry or "none"); each case sits in the set
its URL's hash names (tests/lab/doctor_corpus.py held_out). The held-out set's rankings are printed by
`python3 tests/lab/doctor_corpus.py`, never asserted: the rules are written against the development set alone.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from doctor_corpus import CORPUS, SETS, held_out, load_set

pytestmark = pytest.mark.unit

SCHEMA = json.loads((CORPUS / "case.schema.json").read_text(encoding="utf-8"))


def problems_of(doc: Any, name: str) -> list[str]:
    """Every schema error of one set's file, each naming the case's id (else its index) and the JSON path."""
    out = []
    for err in sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc), key=lambda e: list(e.absolute_path)):
        path = list(err.absolute_path)
        where = f"{name}.json"
        if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
            case = doc["cases"][path[1]]
            where += f" case {case.get('id', path[1]) if isinstance(case, dict) else path[1]}"
        out.append(f"{where} at /{'/'.join(map(str, path))}: {err.message}")
    return out


@pytest.mark.parametrize("name", SETS)
def test_each_set_is_well_formed(name):
    assert problems_of(load_set(name), name) == []


def test_a_malformed_case_is_named_by_its_id():
    doc = load_set("development")
    bad = json.loads(json.dumps(doc))
    bad["cases"][0]["url"] = "http://example.org/not-a-thread"
    del bad["cases"][1]["excerpt"]
    found = problems_of(bad, "development")
    assert any(f"case {doc['cases'][0]['id']} at /cases/0/url" in p for p in found), found
    assert any(f"case {doc['cases'][1]['id']}" in p and "'excerpt' is a required property" in p for p in found), found


def test_each_case_sits_in_the_set_its_url_hash_names():
    for name in SETS:
        for case in load_set(name)["cases"]:
            assert held_out(case["url"]) == (name == "held-out"), (name, case["id"])


def test_ids_and_threads_are_unique_across_the_sets():
    cases = [c for name in SETS for c in load_set(name)["cases"]]
    ids = [c["id"] for c in cases]
    urls = [c["url"] for c in cases]
    assert len(set(ids)) == len(ids)
    assert len(set(urls)) == len(urls)


def test_the_corpus_is_large_enough():
    cases = [c for name in SETS for c in load_set(name)["cases"]]
    failures = [c for c in cases if not c["healthy"]]
    assert len(failures) >= 60 and sum(c["healthy"] for c in cases) >= 10
    assert all(c["expected"] == "none" for c in cases if c["healthy"])


def test_the_split_is_sha256_parity():
    assert held_out("https://github.com/THUDM/slime/issues/2188") is True  # its digest ends in ...280e: even
    assert held_out("https://github.com/verl-project/verl/issues/2828") is False  # its digest ends in ...4101: odd


def test_the_scorer_reads_both_sets(capsys):
    from doctor_corpus import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("development:") and "\nheld-out:" in out and "first entry right" in out


def test_corpus_files_are_test_data_only():
    assert CORPUS.is_relative_to(Path(__file__).resolve().parents[1])


#: The commit that added the corpus and made the split, before any rule was written against it.
SPLIT_COMMIT = "429967b"


def test_the_held_out_set_only_grows():
    """Every held-out case of the split commit is still there, unchanged (additions only: git log -p shows them)."""
    import subprocess

    root = CORPUS.parents[2]
    res = subprocess.run(["git", "-C", str(root), "show", f"{SPLIT_COMMIT}:tests/fixtures/doctor-corpus/held-out.json"],
                         capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        pytest.skip(f"no git history with {SPLIT_COMMIT} here (a shallow clone or an export): {res.stderr.strip()}")
    then = {c["id"]: c for c in json.loads(res.stdout)["cases"]}
    now = {c["id"]: c for c in load_set("held-out")["cases"]}
    assert set(then) <= set(now), sorted(set(then) - set(now))
    changed = [i for i in then if then[i] != now[i]]
    assert not changed, changed


def test_cases_written_against_are_held_out_cases_left_out_of_the_figures():
    from doctor_corpus import WRITTEN_AGAINST, _read_run, score

    held = {c["id"] for c in load_set("held-out")["cases"]}
    assert set(WRITTEN_AGAINST) <= held
    s = score(load_set("held-out")["cases"], _read_run())
    assert s["written_against"] == len(WRITTEN_AGAINST)
    assert all(r["kind"] == "written against" for r in s["rows"] if r["id"] in WRITTEN_AGAINST)
