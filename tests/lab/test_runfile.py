"""Run-file checks against the schema and a small flags/metrics fixture."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from miles101.catalog import Catalog
from miles101.runcheck import RunFileError, load_run
from labutil import HERE, ROOT, base_run

CAT = Catalog.load(HERE / "fixtures" / "flags.json", HERE / "fixtures" / "metrics.json")


def errors(tmp_path: Path, run: dict, name: str = "t") -> list[str]:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(run))
    try:
        load_run(path, CAT)
    except RunFileError as e:
        return e.errors
    return []


def with_args(tmp_path: Path, *args) -> list[str]:
    run = base_run("t", tmp_path)
    seeds = [a for flag, value in (("--seed", 1234), ("--rollout-seed", 42)) if flag not in args for a in (flag, value)]
    run["args"] = ["--rollout-batch-size", 8, "--num-rollout", 3, *args, *seeds]
    return errors(tmp_path, run)


def test_valid_file_loads(tmp_path):
    assert errors(tmp_path, base_run("t", tmp_path)) == []


@pytest.mark.parametrize("args, expected", [
    (["--colocat"], "args[4] '--colocat': Miles has no such flag; nearest: --colocate"),
    (["--train-backend", "fsdb"], "args[4] --train-backend: 'fsdb' is not one of megatron, fsdp"),
    (["--n-samples-per-prompt", "eight"], "args[4] --n-samples-per-prompt: 'eight' is not an int"),
    (["--lr", "fast"], "args[4] --lr: 'fast' is not a float"),
    (["--colocate", "yes"], "args[5] 'yes': --colocate takes no value"),
    (["--no-offload-train", "1"], "args[5] '1': --no-offload-train takes no value"),
    (["--hf-checkpoint"], "args[4] --hf-checkpoint: needs a value"),
    (["--eval-prompt-data"], "args[4] --eval-prompt-data: needs a value"),
    (["--sglang-port", "3"], "args[4] --sglang-port: Miles sets port itself"),
    (["--router-polcy", "x"], "args[4] '--router-polcy': --router-* passes router-passthrough through"),
    (["--seed", "1"], "args give --seed 1 but seeds is [1234]"),
    (["--lr", "1", "--lr", "2"], "args[6] --lr: given twice"),
])
def test_bad_args(tmp_path, args, expected):
    errs = with_args(tmp_path, *args)
    assert any(expected in e for e in errs), errs
    assert all(e.startswith(str(tmp_path / "t.yaml")) for e in errs)


def test_megatron_family(tmp_path):
    assert with_args(tmp_path, "--num-layers", "28") == []  # default backend: megatron
    errs = with_args(tmp_path, "--train-backend", "fsdp", "--num-layers", "28")
    assert any("--num-layers: a megatron flag" in e and "--train-backend is fsdp" in e for e in errs), errs
    errs = with_args(tmp_path, "--num-layer", "28")
    assert any("'--num-layer': Miles has no such flag; nearest: --num-layers" in e for e in errs), errs


def test_real_extraction_names_the_nearest_flag(tmp_path):
    flags = HERE.parents[1] / "capture" / "miles" / "flags.json"
    if not flags.exists():
        pytest.skip("capture/miles/flags.json not extracted yet")
    cat = Catalog.load(flags, None)
    from miles101.runcheck import check_args
    errs = check_args(["--train-backend", "fsdp", "--colocat", "--rollout-batch-size", "8"], cat, "f.yaml")
    assert any("args[2] '--colocat': Miles has no such flag; nearest: --colocate" in e for e in errs), errs


def test_good_args(tmp_path):
    assert with_args(tmp_path, "--lr=2e-6", "--eval-prompt-data", "gsm8k", "/d/test.parquet", "--no-offload-train",
                     "--sglang-mem-fraction-static", "0.4", "--router-policy", "round_robin", "--train-backend", "fsdp") == []


def test_required_flag_and_steps_mismatch(tmp_path):
    run = base_run("t", tmp_path)
    run["args"] = ["--num-rollout", 4]
    errs = errors(tmp_path, run)
    assert any("--rollout-batch-size is required" in e for e in errs)
    assert any("steps is 3 but --num-rollout is 4" in e for e in errs)


def test_values_sources_steps_plate_and_id(tmp_path):
    run = base_run("t", tmp_path)
    run["values"]["bad"] = {"source": "perf/step_tme", "statistic": "median", "unit": "s", "what": "x"}
    run["values"]["mem"] = {"source": "log: [Rank 0] Memory-Usage after offload model: used_GB", "statistic": "max",
                            "unit": "GiB", "what": "x"}
    run["values"]["late"] = {"source": "perf/step_time", "statistic": "max", "unit": "s", "what": "x", "steps": "1-3"}
    run["values"]["other"] = {"source": "perf/step_time", "statistic": "max", "unit": "s", "what": "x", "seed": 9}
    run["plate"] = ["nothing"]
    errs = errors(tmp_path, run, name="other-name")
    joined = "\n".join(errs)
    assert "nearest: perf/step_time" in joined
    assert "write memory/after_offload_model/used_GB" in joined
    assert "steps '1-3' is outside the run's steps 0-2" in joined
    assert "seed 9 is not one of seeds [1234]" in joined
    assert "plate names 'nothing'" in joined
    assert "id 't' differs from the file name 'other-name'" in joined


def test_schema_errors_name_the_path(tmp_path):
    run = base_run("t", tmp_path)
    run["env"] = {"X": 1}
    run["values"]["reward"]["statistic"] = "mode"
    del run["image"]
    errs = errors(tmp_path, run)
    assert any(": env/X: 1 is not of type 'string'" in e for e in errs)
    assert any("values/reward/statistic: 'mode' is not one of" in e for e in errs)
    assert any("(top level): 'image' is a required property" in e for e in errs)


def test_one_index_of_flags_json_for_the_book_and_the_lab(real_capture) -> None:
    """The lab's catalog is the core's index (miles101.data): read from the files, or taken from a capture."""
    capture = real_capture
    shared = Catalog.from_capture(capture)
    assert shared.flags is capture.flags and shared.families is capture.families
    read = Catalog.load(ROOT / "capture" / "miles" / "flags.json", ROOT / "capture" / "miles" / "metrics.json")
    assert read.flags == capture.flags and read.metric_keys == set(capture.metrics)
    assert [r.pattern for r in read.metric_patterns] == [r.pattern for r, _ in capture.metric_patterns]
    for name in ("--colocate", "--no-offload-train", "--sglang-mem-fraction-static"):
        assert bool(read.flags.get(name) or read.family(name)) == (capture.flag(name) is not None), name


@pytest.mark.parametrize(("kind", "value", "words"), [
    ("float", "1e999", "is inf to Miles"), ("float", "Infinity", "is inf to Miles"), ("float", "-inf", "is -inf"),
    ("float", "nan", "is nan to Miles"), ("int", "9" * 20, "is past 9223372036854775807"),
    ("int", "9" * 5000, "(5000 characters) is not an int"), ("int", "true", "'true' is not an int"),
    ("float", "1e-6", None), ("int", "32", None),
])
def test_a_value_miles_would_read_as_no_usable_number_is_refused(kind: str, value: str, words: str | None) -> None:
    from miles101.runcheck import value_error

    got = value_error({"type": kind}, value)
    assert (got is None) if words is None else (got is not None and words in got and len(got) < 120), got


def test_a_long_value_outside_a_flags_choices_is_quoted_cut() -> None:
    from miles101.runcheck import value_error

    got = value_error({"type": "str", "choices": ["megatron", "fsdp"]}, "x" * 5000)
    assert got is not None and "(5000 characters) is not one of megatron, fsdp" in got and len(got) < 120, got
