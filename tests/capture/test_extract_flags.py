"""Flag extraction on a fixture tree that has every registration pattern the design lists."""
from __future__ import annotations

from pathlib import Path

import pytest

from capture.extract.flags import extract_flags
from capture.extract.source import Source

TREE = Path(__file__).parent / "fixtures" / "flagtree"
ROOTS = [("miles/utils/arguments.py", "get_provider.add_all"),
         ("miles/backends/fsdp_utils/arguments.py", "build_toy_parser")]


def tree_source(root: Path) -> Source:
    blobs = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    return Source(commit="0" * 40, commit_date="2026-01-01", read_from="checkout", blobs=blobs)


@pytest.fixture(scope="module")
def result() -> dict:
    return extract_flags(tree_source(TREE), roots=ROOTS)


def one(result: dict, name: str, kind: str | None = None) -> dict:
    found = [r for r in result["flags"] if r["name"] == name and (kind is None or r["kind"] == kind)]
    assert len(found) == 1, (name, found)
    return found[0]


def test_nested_function_group_and_literal(result):
    r = one(result, "--num-nodes")
    assert (r["group"], r["type"], r["default"], r["default_kind"], r["kind"]) == ("cluster", "int", 1, "literal",
                                                                                   "add_argument")
    assert (r["file"], r["line"], r["backend"], r["family"]) == ("miles/utils/arguments.py", 27, "both", "miles")


def test_store_true_false_and_boolean_optional(result):
    colocate = one(result, "--colocate")
    assert (colocate["action"], colocate["default"], colocate["default_kind"], colocate["type"]) == (
        "store_true", False, "implicit", "bool")
    shuffle = one(result, "--disable-shuffle")
    assert (shuffle["dest"], shuffle["action"], shuffle["default"]) == ("shuffle", "store_false", True)
    offload = one(result, "--offload")
    assert offload["action"] == "BooleanOptionalAction"
    assert offload["aliases"] == ["--no-offload"]
    assert offload["default"] is None and offload["default_kind"] == "implicit"


def test_reset_arg_both_semantics(result):
    seed = one(result, "--seed")
    assert (seed["kind"], seed["default"], seed["default_kind"], seed["type"]) == ("reset_arg", 1234, "literal", "int")
    async_save = one(result, "--async-save")
    # no default given: on an existing option reset_arg changes nothing, so no default is claimed
    assert (async_save["kind"], async_save["action"], async_save["default"], async_save["default_kind"]) == (
        "reset_arg", "store_true", None, "none")


def test_constant_arithmetic_choices_json_and_computed(result):
    assert one(result, "--buffer-size")["default"] == 512 * 1024**2
    mode = one(result, "--mode")
    assert (mode["choices"], mode["choices_expr"], mode["default"]) == (["fast", "slow"], None, "fast")
    env = one(result, "--env-kwargs")
    assert (env["type"], env["default"], env["default_kind"]) == ("json", {}, "literal")
    port = one(result, "--port")
    assert (port["default"], port["default_kind"]) == (None, "computed")
    assert port["default_expr"] == 'int(os.environ.get("PORT", "9"))'


def test_nargs_const_append_required_alias(result):
    adapter = one(result, "--adapter")
    assert (adapter["action"], adapter["nargs"], adapter["default"]) == ("append", 2, [])
    session = one(result, "--session")
    assert (session["nargs"], session["const"], session["default"]) == ("?", True, False)
    batch = one(result, "--batch")
    assert (batch["required"], batch["aliases"], batch["default_kind"]) == (True, ["-b"], "implicit")


def test_fstring_flags_bound_from_call_site(result):
    r = one(result, "--heartbeat-interval")
    assert (r["file"], r["line"], r["type"], r["default"], r["group"]) == (
        "miles/utils/helper.py", 5, "float", 10.0, "data")
    assert one(result, "--heartbeat-threshold")["default"] == 3


def test_argument_group_title(result):
    r = one(result, "--dash")
    assert (r["group"], r["file"], r["default"]) == ("my dashboard", "miles/dashboard/args.py", False)


def test_set_defaults_on_a_name_defined_elsewhere(result):
    r = one(result, "--engine-flag")
    assert (r["kind"], r["dest"], r["default"], r["action"]) == ("set_defaults", "engine_flag", True, None)


def test_dataclass_parser(result):
    lr = one(result, "--lr")
    assert (lr["kind"], lr["type"], lr["default"], lr["backend"], lr["group"]) == (
        "dataclass_field", "float", 2e-5, "fsdp", "toy")
    ckpt = one(result, "--use-ckpt")
    assert (ckpt["action"], ckpt["aliases"], ckpt["default"]) == ("BooleanOptionalAction", ["--no-use-ckpt"], True)
    iters = one(result, "--decay-iters")
    assert (iters["type"], iters["default"], iters["default_kind"]) == ("int", None, "literal")
    config = [r for r in result["flags"] if r["name"] == "--config"]
    assert [c["kind"] for c in config] == ["add_argument"]  # the skipped field is not doubled


def test_conditional_hook(result):
    r = one(result, "--max-turns")
    assert r["conditional"].startswith("only when")
    assert "miles.rollout.hook.generate" in r["conditional"]
    assert (r["group"], r["default"]) == ("hook", 16)


def test_unreached_registrar_is_ignored(result):
    assert not [r for r in result["flags"] if r["name"] == "--never"]


def test_monkey_patched_passthrough_families(result):
    fams = {f["prefix"]: f for f in result["families"]}
    assert set(fams) == {"--engine-", "--eval-engine-"}
    assert (fams["--engine-"]["dest_prefix"], fams["--engine-"]["skipped"], fams["--engine-"]["inherit"]) == (
        "engine_", ["model_path", "port"], False)
    assert fams["--eval-engine-"]["skipped"] == ["model_path", "port", "tp_size"]
    assert fams["--eval-engine-"]["inherit"] is True
    assert fams["--engine-"]["members"] is None
    assert one(result, "--engine-concurrency")["default"] == 64


def test_sorted_by_name_then_site(result):
    keys = [(r["name"], r["file"], r["line"]) for r in result["flags"]]
    assert keys == sorted(keys)
