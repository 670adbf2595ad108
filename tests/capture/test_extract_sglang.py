"""SGLang's ServerArgs options and sglang_router's RouterArgs options, with Miles's prefixing applied."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

from capture.extract.cli import add_passthrough
from capture.extract.sglang import (
    SERVER_ARGS,
    apply_wrapper,
    fill_router,
    fill_sglang,
    open_package,
    router_options,
    server_options,
)
from capture.extract.source import Source

TREE = Path(__file__).parent / "fixtures" / "sglangtree"
SKIPPED = ["config", "model_path"]


def tree(root: Path, commit: str = "2" * 40) -> Source:
    blobs = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}
    return Source(commit=commit, commit_date="2026-01-03", read_from="git", blobs=blobs)


def sglang_src() -> Source:
    return tree(TREE / "python")


def miles_src(extra: str = "") -> Source:
    code = 'ARGS = ["--sglang-new-option", "x", "--sglang-mem-fraction-static=0.5", "--sglang-", "--sglang-config"]\n'
    return Source(commit="3" * 40, commit_date="2026-01-04", read_from="git",
                  blobs={"miles/x.py": (code + extra).encode(), "scripts/run.py": b'A = "--sglang-script-only"\n'})


def family(prefix: str, skipped: list[str], inherit: bool, kind: str = "sglang-passthrough") -> dict:
    return {"prefix": prefix, "kind": kind, "package": "sglang", "registrar": "ServerArgs.add_cli_args",
            "file": "miles/backends/sglang_utils/arguments.py", "line": 1, "skipped": skipped,
            "dest_prefix": prefix[2:].replace("-", "_"), "inherit": inherit, "group": "sglang", "members": None}


def test_dataclass_fields_and_manual_options():
    path, options, notes = server_options(sglang_src())
    assert path == "sglang/srt/server_args.py" and notes == []
    by_first = {o.strings[0]: o for o in options}
    assert by_first["--model-path"].strings == ["--model-path", "--model"]
    assert by_first["--tp-size"].strings == ["--tp-size", "--tensor-parallel-size"]  # aliases from a constant
    assert by_first["--enable-thing"].action == "store_true"  # bool field
    assert by_first["--strict"].action == "BooleanOptionalAction"  # Arg(action=argparse.BooleanOptionalAction)
    assert by_first["--fp8-gemm-backend"].dest == "fp8_gemm_runner_backend"  # cli_name: dest is the field
    assert by_first["--mem-fraction-static"].dest is None
    assert "--hidden" not in by_first and "--plain" not in by_first  # no_cli, and no Arg/help string
    assert by_first["--twice"].strings == ["--twice", "--twice-alias"]  # a name annotated twice: the last one
    assert by_first["--old-model"].dest == "model_path" and by_first["-q"].action == "store_false"
    assert "--port" not in by_first  # another class's field
    assert len(options) == 12


def test_miles_wrapper_skips_prefixes_and_adds_no_twins():
    _, options, _ = server_options(sglang_src())
    members, negated, dropped = apply_wrapper(options, SKIPPED, inherit=False)
    assert dropped == ["config", "model_path"]
    assert "--model-path" not in members and "--model" not in members
    assert "--old-model" not in members  # its dest is a skipped name
    assert "--config" not in members
    assert {"--mem-fraction-static", "--tp-size", "--tensor-parallel-size", "--fp8-gemm-backend",
            "--cuda-graph-bs", "--q", "--quiet-mode"} <= set(members)  # -q becomes --sglang-q
    assert sorted(negated) == ["--strict"]  # only the native BooleanOptionalAction
    _, eval_negated, eval_dropped = apply_wrapper(options, SKIPPED + ["tp_size"], inherit=True)
    assert "tp_size" in eval_dropped
    assert sorted(eval_negated) == ["--enable-thing", "--old-flag", "--q", "--quiet-mode", "--strict"]


def test_fill_sglang_families_with_provenance_and_attested_members():
    fams = [family("--sglang-", SKIPPED, False), family("--eval-sglang-", SKIPPED + ["tp_size"], True)]
    report = fill_sglang(fams, sglang_src(), miles_src(), {"--sglang-config"}, "read from git")
    by = {f["prefix"]: f for f in fams}
    assert set(by) == {"--sglang-", "--eval-sglang-", "--no-sglang-", "--no-eval-sglang-"}
    sg = by["--sglang-"]
    assert sg["members"] == sorted(sg["members"]) and "--mem-fraction-static" in sg["members"]
    assert sg["members_attested"] == {"--new-option": "miles/x.py:1"}  # Miles's package code only, not scripts/
    assert "--script-only" not in sg["members"] and "--new-option" in by["--eval-sglang-"]["members"]
    assert "2222222222" in sg["members_source"] and "sglang/srt/server_args.py" in sg["members_source"]
    assert "--tp-size" in sg["members"] and "--tp-size" not in by["--eval-sglang-"]["members"]
    assert by["--no-eval-sglang-"]["negates"] == "--eval-sglang-"
    assert "--enable-thing" in by["--no-eval-sglang-"]["members"]
    assert by["--no-sglang-"]["members"] == ["--strict"]
    assert "members_attested" not in by["--no-sglang-"]
    assert any(line.startswith("--sglang-:") for line in report)


def test_router_options_follow_the_bound_branch():
    router = tree(TREE / "router")
    _, options, notes = router_options(router, {"use_router_prefix": True, "exclude_host_port": True})
    strings = [s for o in options for s in o.strings]
    assert notes == [] and strings == ["--worker-urls", "--router-policy", "--router-dp-aware", "--router-retries"]
    _, options, _ = router_options(router, {"use_router_prefix": False, "exclude_host_port": False})
    assert [o.strings[0] for o in options][:3] == ["--host", "--port", "--worker-urls"]
    fams = [family("--router-", ["host", "port"], False, kind="router-passthrough")]
    fill_router(fams, router, "read from git")
    assert fams[0]["members"] == ["--dp-aware", "--policy", "--retries"]
    assert "--worker-urls" in fams[0]["members_source"]  # registered unprefixed: outside the family
    assert fams[1]["prefix"] == "--no-router-" and fams[1]["members"] == ["--retries"]


def test_wheel_and_directory_sources(tmp_path):
    whl = tmp_path / "sglang-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        z.write(TREE / "python" / SERVER_ARGS, SERVER_ARGS)
        z.writestr("sglang-9.9.9.dist-info/METADATA", "Name: sglang\nVersion: 9.9.9\n")
    src = open_package(str(whl), (SERVER_ARGS,))
    assert src.paths() == [SERVER_ARGS] and "version 9.9.9" in src.read_from and src.commit.startswith("sha256:")
    assert len(server_options(src)[1]) == 12
    fams = [family("--sglang-", SKIPPED, False)]
    fill_sglang(fams, src, miles_src(), set(), "read from a release, NOT the commit the image uses")
    assert "NOT the commit" in fams[0]["members_source"] and "9.9.9" in fams[0]["members_source"]
    assert len(server_options(open_package(str(TREE / "python"), (SERVER_ARGS,)))[1]) == 12


def test_without_sources_the_previous_members_are_kept(tmp_path):
    fams = [family("--sglang-", SKIPPED, False), family("--eval-sglang-", SKIPPED + ["tp_size"], True)]
    fill_sglang(fams, sglang_src(), miles_src(), set(), "read from git")
    previous = tmp_path / "flags.json"
    previous.write_text(json.dumps({"families": fams}), encoding="utf-8")
    miles = Source(commit="3" * 40, commit_date="2026-01-04", read_from="git", blobs={})

    fresh = {"flags": [], "families": [family("--sglang-", SKIPPED, False),
                                       family("--eval-sglang-", SKIPPED + ["tp_size"], True),
                                       family("--router-", ["host", "port"], False, kind="router-passthrough")]}
    lines = add_passthrough(fresh, miles, None, None, previous)
    assert "kept from the previous flags.json: --sglang-, --eval-sglang-" in lines[0]
    by = {f["prefix"]: f for f in fresh["families"]}
    old = {f["prefix"]: f for f in fams}
    assert set(by) == set(old) | {"--router-"}
    for prefix in old:
        assert by[prefix]["members"] == old[prefix]["members"], prefix
    assert by["--router-"]["members"] is None  # nothing before: still unknown

    changed = {"flags": [], "families": [family("--sglang-", ["config"], False)]}  # Miles un-skipped model_path
    lines = add_passthrough(changed, miles, None, None, previous)
    assert "members unknown: --sglang-" in lines[0] and changed["families"][0]["members"] is None
