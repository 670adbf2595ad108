"""Run files inherit from a base (miles101.runfiles), carry 1.1's GB10 settings and seeds, and the recorder adds no seed the page does not show."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from miles101.catalog import Catalog
from capture.lab.docker import procedure
from miles101.runcheck import RunFileError, load_run, option_values
from labutil import base_run
from miles101.runfiles import BaseError, merge_args, resolve_run

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "capture" / "runs"
CATALOG = Catalog.load(ROOT / "capture/miles/flags.json", ROOT / "capture/miles/metrics.json")
RAW = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(RUNS.glob("*.yaml"))}
LOADED = {rid: load_run(RUNS / f"{rid}.yaml", CATALOG) for rid in RAW}
#: What 1.1 argues one GB10 needs, as first-grpo passes it: a run on one GPU carries each, or its file says why not.
GB10 = {"--colocate": [], "--actor-num-nodes": ["1"], "--actor-num-gpus-per-node": ["1"], "--num-gpus-per-node": ["1"],
        "--rollout-num-gpus-per-engine": ["1"], "--sglang-attention-backend": ["flashinfer"],
        "--observe-training-entropy": []}
SEEDS = {"--seed": ["1234"], "--rollout-seed": ["42"]}  # Miles's defaults, which 1.1 writes out


def dropped(run_id: str) -> dict[str, str]:
    """Every flag the run's base chain leaves out, with the reason its file gives."""
    out: dict[str, str] = {}
    while run_id:
        out.update(RAW[run_id].get("drop") or {})
        run_id = RAW[run_id].get("base")
    return out


def one_gpu(run: dict) -> bool:
    return option_values(run["args"]).get("--num-gpus-per-node", ["1"]) == ["1"]


# ---------------------------------------------------------------------------- the merge

def test_a_child_flag_replaces_the_bases_in_place_and_a_new_one_goes_after() -> None:
    base = ["--a", "1", "--b", "--c", "x", "y", "--d", "2"]
    assert merge_args(base, ["--c", "z", "--e", "3", "--a=5"], ["--b"]) == ["--a=5", "--c", "z", "--d", "2", "--e", "3"]


def test_bad_bases_are_named() -> None:
    raw = {"a": {"id": "a", "base": "b", "args": []}, "b": {"id": "b", "base": "a", "args": []},
           "c": {"id": "c", "base": "nope", "args": []}, "d": {"id": "d", "base": "e", "args": [], "drop": {"--x": "why"}},
           "e": {"id": "e", "args": ["--y"]}}
    with pytest.raises(BaseError, match="leads back to itself"):
        resolve_run("a", raw)
    with pytest.raises(BaseError, match="base 'nope' is not a run file"):
        resolve_run("c", raw)
    with pytest.raises(BaseError, match="drop names --x, which the base e does not pass"):
        resolve_run("d", raw)


def test_the_lab_loader_fills_the_base_in(tmp_path: Path) -> None:
    parent = base_run("parent", tmp_path)
    child = {"id": "child", "title": "Child", "purpose": "Lab tests.", "sections": ["1.1"], "base": "parent",
             "args": ["--num-rollout", 5, "--no-offload-train"], "drop": {"--colocate": "test"}, "steps": 5, "values": parent["values"]}
    for run in (parent, child):
        (tmp_path / f"{run['id']}.yaml").write_text(yaml.safe_dump(run))
    cat = Catalog.load(ROOT / "tests/lab/fixtures/flags.json", ROOT / "tests/lab/fixtures/metrics.json")
    got = load_run(tmp_path / "child.yaml", cat)
    assert got["image"] == parent["image"] and got["mounts"] == parent["mounts"] and got["seeds"] == [1234]
    assert "--colocate" not in got["args"] and got["args"][-1] == "--no-offload-train"
    assert option_values(got["args"])["--num-rollout"] == ["5"]
    (tmp_path / "parent.yaml").unlink()
    with pytest.raises(RunFileError, match="base 'parent': there is no parent.yaml"):
        load_run(tmp_path / "child.yaml", cat)


# ---------------------------------------------------------------------------- the book's run files

@pytest.mark.parametrize("run_id", sorted(RAW))
def test_one_gpu_runs_carry_the_gb10_settings_or_say_why_not(run_id: str) -> None:
    run = LOADED[run_id]
    if not one_gpu(run):
        assert run.get("not_recorded"), f"{run_id}: a run for more than one GPU must say why the lab does not record it"
        return
    given, why = option_values(run["args"]), dropped(run_id)
    for flag, value in GB10.items():
        assert given.get(flag) == value or why.get(flag), (
            f"{run_id}: passes {flag} {given.get(flag)}, not first-grpo's {value}; keep it or give the reason under drop")


@pytest.mark.parametrize("run_id", sorted(RAW))
def test_every_run_writes_its_seeds_and_the_recorder_adds_none_it_does_not_show(run_id: str) -> None:
    run = LOADED[run_id]
    given, seeds = option_values(run["args"]), run.get("seeds") or []
    assert given.get("--rollout-seed") == SEEDS["--rollout-seed"] or dropped(run_id).get("--rollout-seed"), run_id
    if len(seeds) > 1:  # one repeat per seed: the recorder passes --seed S, the page's loop shows --seed "$s"
        assert "--seed" not in given and dropped(run_id).get("--seed"), run_id
        for s in seeds:
            assert procedure(run, s)[1][-len(run["args"]) - 2:] == [*run["args"], "--seed", str(s)]
    else:  # one seed: the args give both, and the recorder's argv ends with the args exactly
        assert given.get("--seed") == [str(seeds[0] if seeds else 1234)], run_id
        assert given.get("--seed") == SEEDS["--seed"] or dropped(run_id).get("--seed"), run_id
        assert procedure(run, seeds[0] if seeds else None)[1][-len(run["args"]):] == run["args"]


def test_3_1_carries_1_1s_settings_and_seeds() -> None:
    """The issue's case: 3.1's run once dropped flashinfer and entropy and sampled with --rollout-seed 1234."""
    given = option_values(LOADED["recipe-gsm8k"]["args"])
    assert given["--sglang-attention-backend"] == ["flashinfer"] and "--observe-training-entropy" in given
    assert given["--seed"] == ["1234"] and given["--rollout-seed"] == ["42"]


def test_a_run_of_one_seed_without_its_rollout_seed_is_refused(tmp_path: Path) -> None:
    run = base_run("t", tmp_path)
    run["args"] = run["args"][:-2]  # no --rollout-seed: the recorder would have added one the page does not show
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(run))
    cat = Catalog.load(ROOT / "tests/lab/fixtures/flags.json", ROOT / "tests/lab/fixtures/metrics.json")
    with pytest.raises(RunFileError, match="args do not give --rollout-seed: write it out"):
        load_run(tmp_path / "t.yaml", cat)


def test_the_gb10_check_can_fail() -> None:
    """Without its drop, a sizing run that leaves out the entropy flag fails the GB10 test."""
    raw = dict(RAW, **{"weight-update": {k: v for k, v in RAW["weight-update"].items() if k != "drop"}})
    run = resolve_run("weight-update", raw)
    assert "--observe-training-entropy" in run["args"]  # no drop: it is inherited again
    run["args"] = [a for a in run["args"] if a != "--observe-training-entropy"]
    assert not (option_values(run["args"]).get("--observe-training-entropy") == [] or
                (raw["weight-update"].get("drop") or {}).get("--observe-training-entropy"))
