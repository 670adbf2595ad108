"""Megatron's option strings: literal add_argument calls and ArgumentGroupFactory dataclass fields."""
from __future__ import annotations

from pathlib import Path

from capture.extract.megatron import megatron_family, megatron_options
from capture.extract.source import Source

TREE = Path(__file__).parent / "fixtures" / "megatrontree"


def source() -> Source:
    blobs = {p.relative_to(TREE).as_posix(): p.read_bytes() for p in TREE.rglob("*.py")}
    return Source(commit="1" * 40, commit_date="2026-01-02", read_from="checkout", blobs=blobs)


def test_literal_options_and_boolean_optional():
    opts, notes = megatron_options(source())
    assert notes == []
    for name in ("--swiglu", "--rotary-base", "--lr", "--wandb", "--no-wandb"):
        assert opts[name][0] == "megatron/training/arguments.py", name
    assert opts["--swiglu"][1] == 10


def test_factory_fields_as_argument_utils_names_them():
    opts, _ = megatron_options(source())
    assert opts["--num-layers"] == ("megatron/core/cfg.py", 10)
    assert opts["--tensor-parallel-size"] == ("megatron/core/base.py", 7)  # a base dataclass's field
    assert "--qk-layernorm" in opts and "--sequence-parallel" in opts  # bool default False: store_true
    for name in ("--no-add-bias-linear", "--disable-add-bias-linear", "--no-fp8", "--disable-fp8"):
        assert name in opts, name  # bool default True or None: store_false under --no-/--disable-
    assert "--add-bias-linear" not in opts and "--fp8" not in opts
    assert "--num-experts" in opts and "--num-moe-experts" not in opts  # argparse_meta arg_names
    assert "--vocab-size" not in opts  # excluded
    assert "--internal" not in opts and "--registry" not in opts  # init=False, ClassVar
    assert opts["--train-iters"] == ("megatron/training/train_cfg.py", 7)  # class imported in the function


def test_family_leaves_miles_flags_out():
    fam = megatron_family(source(), {"--lr"}, "radixark/Megatron-LM@miles-main", ("miles/utils/arguments.py", 9))
    assert (fam["prefix"], fam["kind"], fam["backend"], fam["line"]) == ("--", "megatron", "megatron", 9)
    assert "--lr" not in fam["members"] and "--swiglu" in fam["members"]
    assert fam["members"] == sorted(fam["members"])
    assert "1111111111" in fam["members_source"] and "1 of them also Miles flags" in fam["members_source"]
