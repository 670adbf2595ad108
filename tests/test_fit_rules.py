"""The {fit-calculator} and {fit-compare} rules, one copy for both gates (issue 51 §6).

`miles101.fit.fit_block` is the rule for one block; the build's directives call it, and `--check`
runs it over the page sources through `fit_directive_problems`. Each case here (an unknown model, a
missing :model: or :run:, a run file without the flag, the pool reference gone from the capture) is
refused by the core function directly and by `--check` on a copy of the project, at the block's
page and line, with the words the build prints. The real book has none.

The real capture is the session's (`real_capture`); the copies are taken in, and checked, through the
session's intake cache (`intake_of`, `intake_cache`): their changed files are checked cold.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from buildutil import ROOT
from capture.check import page_sources, run_check
from miles101.book import load_book
from miles101.fit import POOL_KEY, fit_block, fit_directive_problems
from miles101.problems import Problem, Subtype

pytestmark = pytest.mark.unit

PAGE = "sections/2-1-pick-a-model-size.md"
NO_FLAG_RUN = "no-fraction"
POOL_FILE = "capture/references/part5-8.json"

#: (block as written, the message the build and --check give for it).
CASES = {
    "unknown model": ("```{fit-calculator}\n:model: no-such-model\n:run: model-size-sweep\n```",
                      "fit-calculator: no model 'no-such-model' with computed sizes."),
    "no :model:": ("```{fit-calculator}\n:run: model-size-sweep\n```", "fit-calculator has no :model:."),
    "no :run:": ("```{fit-calculator}\n:model: qwen3-4B\n```", "fit-calculator has no :run:."),
    "run without the flag": (f"```{{fit-calculator}}\n:model: qwen3-4B\n:run: {NO_FLAG_RUN}\n```",
                             f"fit-calculator: capture/runs/{NO_FLAG_RUN}.yaml does not pass --sglang-mem-fraction-static."),
    "compare: unknown model": ("```{fit-compare} model-size-sweep.used_after_wake_up\n:model: no-such-model\n```",
                               "fit-compare: no model 'no-such-model' with computed sizes."),
    "compare: no :model:": ("```{fit-compare} model-size-sweep.used_after_wake_up\n```", "fit-compare has no :model:."),
    "compare: unknown term": ("```{fit-compare} model-size-sweep.used_after_wake_up\n:model: qwen3-4B\n:term: lunch\n```",
                              "fit-compare: no term 'lunch'."),
}
POOL_GONE = f"the calculator needs reference `{POOL_KEY}`, which capture/ does not hold."


def _project(dest: Path) -> Path:
    """The pages and capture of the project, copied, with a run file that drops the calculator's flag."""
    dest.mkdir()
    for name in ("manual.json", "front.md"):
        shutil.copy(ROOT / name, dest / name)
    shutil.copytree(ROOT / "sections", dest / "sections")
    shutil.copytree(ROOT / "capture", dest / "capture", ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "capture" / "runs" / f"{NO_FLAG_RUN}.yaml").write_text(
        f"id: {NO_FLAG_RUN}\ntitle: The size sweep without SGLang's fraction\npurpose: a test of the calculator's rule.\n"
        'sections: ["2.1"]\nbase: model-size-sweep\ndrop:\n  --sglang-mem-fraction-static: the case under test\n',
        encoding="utf-8")
    return dest


def _with_blocks(root: Path) -> dict[str, int]:
    """Each case's block appended to 2.1 in `root`; the line each one starts on."""
    path = root / PAGE
    text = path.read_text(encoding="utf-8")
    lines: dict[str, int] = {}
    for case, (block, _) in CASES.items():
        text += "\n\n"
        lines[case] = text.count("\n") + 1
        text += block + "\n"
    path.write_text(text, encoding="utf-8")
    return lines


def _drop_pool(root: Path) -> None:
    doc = json.loads((root / POOL_FILE).read_text(encoding="utf-8"))
    del doc["references"][POOL_KEY]
    (root / POOL_FILE).write_text(json.dumps(doc, indent=1), encoding="utf-8")


def _pages(root: Path) -> list[tuple[str, str]]:
    book, problems = load_book(root / "manual.json", root)
    assert book is not None, problems
    return page_sources(root, book.page_files)


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    root = _project(tmp_path_factory.mktemp("fit") / "blocks")
    return root, _with_blocks(root)


def test_the_real_book_has_no_refused_block(real_capture) -> None:
    capture, pages = real_capture, _pages(ROOT)
    blocks = [p for p in pages if "```{fit-calculator}" in p[1] or "```{fit-compare}" in p[1]]
    assert blocks, "the book holds a calculator (2.1)"
    assert fit_directive_problems(capture, pages) == []


@pytest.mark.parametrize("case", list(CASES))
def test_the_core_rule_refuses_each_case(broken, case: str, intake_of) -> None:
    root, lines = broken
    found = fit_directive_problems(intake_of(root).capture, _pages(root))
    mine = [p for p in found if p.where == f"{PAGE}:{lines[case]}"]
    assert len(mine) == 1, found
    assert mine[0].message.startswith(CASES[case][1]) and mine[0].subtype is Subtype.UNKNOWN_VALUE and mine[0].fix


def test_check_refuses_each_case_at_its_line(broken, intake_cache: Path) -> None:
    root, lines = broken
    failures = run_check(root, cache_dir=intake_cache)[0].failures
    for case, (_, message) in CASES.items():
        assert any(f.startswith(f"{PAGE}:{lines[case]}: {message}") and f.endswith("[manual.unknown_value]")
                   for f in failures), (case, failures)


def test_both_gates_refuse_the_calculator_when_the_pool_reference_is_gone(tmp_path: Path, intake_cache: Path,
                                                                            intake_of) -> None:
    """Without the pool (a public reference) there are no coefficients: every block is refused, by name."""
    root = _project(tmp_path / "project")
    _drop_pool(root)
    pages = _pages(root)
    where = {f"{rel}:{line}" for rel, text in pages for line, name in
             [(i + 1, ln) for i, ln in enumerate(text.split("\n"))] if name.startswith("```{fit-")}
    assert where
    core = fit_directive_problems(intake_of(root).capture, pages)
    assert {p.where for p in core} == where and {p.message for p in core} == {POOL_GONE}
    failures = run_check(root, cache_dir=intake_cache)[0].failures
    for place in where:
        assert any(f.startswith(f"{place}: {POOL_GONE}") for f in failures), (place, failures)


def test_one_block_is_its_problem_without_a_place(real_capture) -> None:
    """`fit_block` (what the directives call) gives the Problem with no place; the directive adds its own."""
    got = fit_block(real_capture, "fit-calculator", "", {"model": "no-such-model", "run": "model-size-sweep"})
    assert isinstance(got, Problem) and got.where == "" and got.message == CASES["unknown model"][1]
    ok = fit_block(real_capture, "fit-calculator", "", {"model": "qwen3-4B", "run": "model-size-sweep"})
    assert not isinstance(ok, Problem) and ok.model["name"] == "qwen3-4B" and ok.run == "model-size-sweep"
