"""Which models' derived numbers a cross-check covers: a consistently tampered models.json.

Editing a layer count in models.json and re-deriving computed.json with the project's derive gives a
capture whose computed values re-derive cleanly; only a cross-check catches it. For a cross-checked
model `--check` fails on the parameter count; for one no cross-check covers, `--check` names it.
The runs share the session's intake cache (`intake_cache`): the tampered files are checked cold.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from capture.check import run_check
from capture.extract.writeout import write_json
from miles101.crosscheck_results import cited_models, covered_models, uncovered_models, uncovered_note
from miles101.derive import derive_all

ROOT = Path(__file__).resolve().parent.parent


def tamper(project: Path, model: str) -> tuple[int, int]:
    """Add one layer to `model` in models.json and re-derive computed.json: (params before, after)."""
    cap = project / "capture"
    models = json.loads((cap / "miles" / "models.json").read_text())
    flags = json.loads((cap / "miles" / "flags.json").read_text())
    before = derive_all(models, flags)["values"][f"params.{model}"]["value"]
    entry = next(m for m in models["models"] if m["name"] == model)
    entry["layers"] += 1
    write_json(cap / "miles" / "models.json", models)
    computed = derive_all(models, flags)
    write_json(cap / "computed.json", computed)
    return before, computed["values"][f"params.{model}"]["value"]


def not_cross_checked(notes: list[str]) -> list[str]:
    return [t for t in notes if t.startswith("not cross-checked:")]


def test_committed_capture_names_the_uncovered_models(project: Path, intake_cache: Path) -> None:
    report, _ = run_check(project, cache_dir=intake_cache)
    assert not [t for t in report.failures if "cross-check" in t or "computed.json" in t]
    [line] = not_cross_checked(report.notes)
    assert line.endswith("; their numbers rest on the extraction alone.")
    named = line.removeprefix("not cross-checked: ").split(";")[0].split(", ")
    assert "qwen3-30B-A3B" in named  # cited on 2.1, in no results file
    assert "qwen3-4B" not in named  # the H200 and H100 results cover it


def test_tampered_cross_checked_model_fails_on_its_parameter_count(project: Path, intake_cache: Path) -> None:
    before, after = tamper(project, "qwen3-4B")
    assert after != before
    report, _ = run_check(project, cache_dir=intake_cache)
    params = [t for t in report.failures if "cross-check qwen3-4B" in t and "parameters" in t]
    assert params, report.failures
    assert any(f"framework counts {before} parameters, computed.json params.qwen3-4B = {after}" in t for t in params)
    # the derivation itself agrees with the tampered shape: only the cross-check catches it
    assert not any("computed.json" in t and "edited by hand" in t for t in report.failures)


def test_tampered_uncovered_model_is_named_not_cross_checked(project: Path, intake_cache: Path) -> None:
    before, after = tamper(project, "qwen3-30B-A3B")
    assert after != before
    report, _ = run_check(project, cache_dir=intake_cache)
    assert not any("qwen3-30B-A3B" in t for t in report.failures)  # nothing measures it: it re-derives cleanly
    [line] = not_cross_checked(report.notes)
    assert "qwen3-30B-A3B" in line


def test_coverage_rule() -> None:
    docs = {"h": {"models": {"a": {"runs": [{"status": "ok"}]}, "b": {"runs": [{"status": "oom"}]}}}}
    assert covered_models(docs) == {"a"}
    keys = ["params.a", "trainer_state.b:.1f", "bytes_per_param.trainer_state", "params.c"]
    models = {"a", "b", "c"}.__contains__
    assert cited_models(keys, models) == {"a", "b", "c"}
    assert uncovered_models(keys, models, docs) == ["b", "c"]
    assert uncovered_note([]) == ""
    assert uncovered_note(["b", "c"]) == "not cross-checked: b, c; their numbers rest on the extraction alone."


@pytest.mark.build
def test_page_sentence_names_the_uncovered_rows(book_copy: Path) -> None:
    """{crosscheck-uncovered} names the models the page cites that no results file covers, generated at build."""
    from buildutil import build
    (book_copy / "sections" / "1-2-empty.md").write_text(
        "# Empty section\n\n```{crosscheck-uncovered}\n```\n\n| model | parameters |\n| --- | --- |\n"
        "| tiny | {computed}`params.qwen3-tiny:,.0f` |\n")
    built = build(book_copy)
    assert built.app.statuscode == 0, built.warnings
    html = built.html("sections/1-2-empty")
    assert 'No cross-check covers <code class="docutils literal notranslate"><span class="pre">qwen3-tiny</span>' \
           "</code>: its numbers rest on the extraction from Miles alone" in html
