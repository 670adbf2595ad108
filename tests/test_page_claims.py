"""Sentences of the pages that state a fact about every run file of the book: each holds while the run files do.

6.3 says every run file passes --num-rollout, so no save of the book's runs falls on an epoch boundary
(miles/ray/placement_group.py:192-197); R.6 says the run files score with the `math` reward and train GRPO.
"""
from __future__ import annotations

import pytest
import yaml

from buildutil import ROOT
from miles101.runfiles import resolve_runs

CLAIMS = {  # page: the sentence the run files must keep true
    "sections/6-3-survive-failures.md": "Every run file of this book passes {flag}`--num-rollout`",
    "sections/r-6-glossary.md": "The run files of this book use `math`.",
}


def run_args() -> dict[str, list[str]]:
    raw = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in (ROOT / "capture" / "runs").glob("*.yaml")}
    runs, errors = resolve_runs(raw)
    assert not errors, errors
    return {run_id: [str(a) for a in run["args"]] for run_id, run in runs.items()}


def value_of(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


@pytest.mark.parametrize("page", sorted(CLAIMS))
def test_the_claim_is_on_its_page(page: str) -> None:
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())  # the sentence, wherever its lines break
    assert CLAIMS[page] in text, f"{page} no longer says it: update CLAIMS"


def test_every_run_file_sets_its_length_by_rollouts_not_epochs() -> None:
    for run_id, args in run_args().items():
        assert "--num-rollout" in args and "--num-epoch" not in args, run_id


def test_every_run_file_scores_with_the_math_reward_and_trains_grpo() -> None:
    for run_id, args in run_args().items():
        assert value_of(args, "--rm-type") == "math" and "--custom-rm-path" not in args, run_id
        assert value_of(args, "--advantage-estimator") in (None, "grpo"), run_id

