"""The drift report on two synthetic Miles trees (fixtures/drift_old, drift_new) that differ in every way it reports."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from capture.drift.cli import main
from capture.drift.sides import load_side
from capture.extract.writeout import write_json

FIXTURES = Path(__file__).parent / "fixtures"
PAGE = """# First

Run with {flag}`--num-nodes`, which defaults to 1 node.

Set {flag}`--colocate` ({src}`miles/utils/arguments.py:11`).

The old {flag}`--legacy-mode` switch and {flag}`--rollout-batch` of 8.

Turn on {flag}`--use-foo` as ``--use-foo 3``.

{flag}`--temperature` takes an int; {flag}`--mode` is fast or slow.

Logs go to {flag}`--log-dir` (defined in miles/utils/arguments.py).

SGLang's {flag}`--sglang-mem-fraction-static`.

Watch {metric}`rollout/raw_reward` and {metric}`rollout/old_metric`.

The tiny model has hidden size 8: {computed}`params.qwen3-tiny:,.0f` parameters.

The timeout is ``TIMEOUT = 30`` ({src}`miles/utils/helper.py:2`).

See {src}`miles/utils/helper.py:9`, {src}`miles/rollout/gone.py:2` and {src}`miles/utils/helper.py:1`.
"""
QUIET_PAGE = "# First\n\nOnly {flag}`--colocate` and {metric}`rollout/raw_reward`.\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A git repo whose HEAD~1 is drift_old and HEAD is drift_new."""
    root = tmp_path_factory.mktemp("miles")
    git(root, "init", "-q")
    for side in ("drift_old", "drift_new"):
        for child in root.iterdir():
            if child.name != ".git":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        shutil.copytree(FIXTURES / side, root, dirs_exist_ok=True)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", side)
    return root


def make_book(root: Path, page: str) -> Path:
    """A minimal project: manual.json listing a front page and one section."""
    root.mkdir(parents=True, exist_ok=True)
    manual = json.loads((Path(__file__).parents[1] / "roots" / "test-book" / "manual.json").read_text())
    manual["parts"] = [{**manual["parts"][0], "sections": [{"id": "1.1", "file": "sections/1-1-first.md"}]}]
    manual["reference"]["sections"] = [{"id": "R.1", "file": "sections/r-1-flags.md"}]
    (root / "manual.json").write_text(json.dumps(manual))
    (root / "front.md").write_text("# Front\n\nNothing cited here.\n")
    (root / "sections").mkdir(exist_ok=True)
    (root / "sections" / "1-1-first.md").write_text(page)
    (root / "sections" / "r-1-flags.md").write_text("# Flags\n")
    return root


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return make_book(tmp_path_factory.mktemp("book"), PAGE)


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(PAGE.splitlines(), 1) if text in line)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def report(capsys, *argv: str) -> tuple[int, dict]:
    code, out, _ = run(capsys, *argv, "--json")
    return code, json.loads(out)


def by(rep: dict, group: str, category: str) -> dict[str, dict]:
    return {c["key"]: c for c in rep["changes"] if (c["group"], c["category"]) == (group, category)}


def cites(change: dict) -> list[tuple[str, int]]:
    return sorted((c["file"], c["line"]) for c in change.get("cited_by", []))


PAGE_FILE = "sections/1-1-first.md"


@pytest.fixture
def git_report(capsys, repo, book) -> dict:
    code, rep = report(capsys, "--miles-src", str(repo), "HEAD~1", "HEAD", "--pages-root", str(book))
    assert code == 1 and rep["exit"] == 1
    return rep


def test_flags_added_removed_renamed(git_report):
    assert set(by(git_report, "flags", "added")) == {"--new-feature"}
    assert by(git_report, "flags", "added")["--new-feature"]["cited_by"] == []
    removed = by(git_report, "flags", "removed")
    assert set(removed) == {"--legacy-mode"}
    assert cites(removed["--legacy-mode"]) == [(PAGE_FILE, line_of("--legacy-mode"))]
    renamed = by(git_report, "flags", "renamed")
    assert {k: c["new"] for k, c in renamed.items()} == {"--rollout-batch": "--rollout-batch-size",
                                                         "--use-foo": "--enable-foo"}
    assert renamed["--rollout-batch"]["detail"].startswith("same dest 'rollout_batch_size'")
    assert renamed["--use-foo"]["detail"].startswith("same definition line")
    assert renamed["--rollout-batch"]["cited_by"][0]["states_old"] == []
    assert renamed["--use-foo"]["cited_by"][0]["states_old"] == ["--use-foo"]


def test_flag_default_type_choices_moved_other(git_report):
    default = by(git_report, "flags", "default")["--num-nodes"]
    assert (default["old"], default["new"]) == ("1", "2")
    assert default["cited_by"] == [{"file": PAGE_FILE, "line": line_of("--num-nodes"), "kind": "flag",
                                    "text": "--num-nodes", "states_old": ["1"]}]
    types = by(git_report, "flags", "type")
    assert types["--temperature"]["fields"] == [{"field": "type", "old": '"int"', "new": '"float"'}]
    assert types["--temperature"]["cited_by"][0]["states_old"] == ["int"]
    assert types["--mode"]["fields"][0]["new"] == '["fast", "slow", "auto"]'
    moved = by(git_report, "flags", "moved")["--log-dir"]
    assert (moved["old"], moved["new"]) == ("miles/utils/arguments.py:21", "miles/utils/logging_args.py:5")
    assert moved["cited_by"][0]["states_old"] == ["miles/utils/arguments.py"]
    other = by(git_report, "flags", "other")
    assert other["--update-weight-buffer-size"]["fields"][0]["field"] == "aliases"
    assert "--colocate" not in {c["key"] for c in git_report["changes"]}


def test_family_metrics_models_computed(git_report):
    fam = by(git_report, "families", "changed")["--sglang-*"]
    assert "mem_fraction_static" in fam["detail"]
    assert cites(fam) == [(PAGE_FILE, line_of("--sglang-mem-fraction-static"))]
    assert set(by(git_report, "metrics", "added")) == {"rollout/new_metric"}
    removed = by(git_report, "metrics", "removed")
    assert set(removed) == {"rollout/old_metric"} and cites(removed["rollout/old_metric"]) == [
        (PAGE_FILE, line_of("rollout/old_metric"))]
    assert set(by(git_report, "models", "added")) == {"qwen3-fresh"}
    assert set(by(git_report, "models", "removed")) == {"qwen3-gone"}
    tiny = by(git_report, "models", "changed")["qwen3-tiny"]
    assert tiny["fields"] == [{"field": "hidden", "old": "8", "new": "16"}]
    assert tiny["cited_by"][0]["states_old"] == ["8"]
    params = by(git_report, "computed", "changed")["params.qwen3-tiny"]
    assert (params["old"], params["new"]) == ("1272", "2544")
    assert params["cited_by"][0]["states_old"] == []
    assert "params.qwen3-fresh" in by(git_report, "computed", "added")


def test_src_lines_compared_as_text(git_report):
    moved = by(git_report, "src", "line_moved")
    assert moved["miles/utils/arguments.py:11"]["new"] == "13"
    changed = by(git_report, "src", "line_changed")["miles/utils/helper.py:2"]
    assert (changed["old"], changed["new"]) == ("TIMEOUT = 30", "TIMEOUT = 60")
    assert changed["cited_by"][0]["states_old"] == ["TIMEOUT = 30"]
    assert set(by(git_report, "src", "past_end")) == {"miles/utils/helper.py:9"}
    assert set(by(git_report, "src", "file_missing")) == {"miles/rollout/gone.py:2"}
    assert "miles/utils/helper.py:1" not in {c["key"] for c in git_report["changes"]}
    assert git_report["pages_touched"].keys() == {PAGE_FILE}


def test_text_output(capsys, repo, book):
    code, out, _ = run(capsys, "--miles-src", str(repo), "HEAD~1", "HEAD", "--pages-root", str(book))
    assert code == 1
    assert "Flags renamed (heuristic)" in out and "same dest 'rollout_batch_size'" in out
    assert f"cited at {PAGE_FILE}:{line_of('--num-nodes')}" in out
    assert "prose states the old value: '1'" in out
    assert "Cited source lines moved in NEW" in out and "exit 1" in out


def test_capture_dirs_without_source(capsys, repo, book, tmp_path):
    """Committed capture files: no source text, so renames by neighbours and src by line count."""
    for rev, name in (("HEAD~1", "old"), ("HEAD", "new")):
        side = load_side(rev, str(repo))
        for doc_name, doc in side.docs.items():
            write_json(tmp_path / name / "miles" / doc_name, doc)
    code, rep = report(capsys, str(tmp_path / "old" / "miles"), str(tmp_path / "new"), "--pages-root", str(book))
    assert code == 1 and not rep["old"]["source_text"]
    renamed = by(rep, "flags", "renamed")
    assert renamed["--use-foo"]["detail"].startswith("same place in miles/utils/arguments.py, between --colocate "
                                                     "and --temperature")
    unverified = by(rep, "src", "unverified")
    assert set(unverified) == {"miles/utils/arguments.py:11", "miles/utils/helper.py:1", "miles/utils/helper.py:2"}
    assert "not compared" in unverified["miles/utils/helper.py:1"]["detail"]
    assert set(by(rep, "src", "past_end")) == {"miles/utils/helper.py:9"}
    assert set(by(rep, "src", "file_missing")) == {"miles/rollout/gone.py:2"}
    # with --miles-src the capture directories get their commits' text back
    code, rep = report(capsys, str(tmp_path / "old"), str(tmp_path / "new"), "--miles-src", str(repo),
                       "--pages-root", str(book))
    assert rep["old"]["source_text"] and "miles/utils/arguments.py:11" in by(rep, "src", "line_moved")


def test_exit_0_when_nothing_cited_changed(capsys, repo, tmp_path):
    quiet = make_book(tmp_path / "quiet", QUIET_PAGE)
    code, rep = report(capsys, "--miles-src", str(repo), "HEAD~1", "HEAD", "--pages-root", str(quiet))
    assert code == 0 and rep["changes"] and not rep["pages_touched"]
    code, rep = report(capsys, "--miles-src", str(repo), "HEAD", "HEAD", "--pages-root", str(quiet))
    assert code == 0 and rep["changes"] == []


@pytest.mark.parametrize("argv, message", [
    (["nowhere", "HEAD"], "not a capture directory"),
    (["HEAD~1"], "error"),
    (["--miles-src", "{repo}", "no-such-rev", "HEAD"], "no-such-rev"),
    (["--miles-src", "/nonexistent/miles", "HEAD~1", "HEAD"], "not a Miles checkout or git dir"),
    (["--miles-src", "{repo}", "HEAD~1", "HEAD", "--pages-root", "/nonexistent"], "no manual.json"),
])
def test_bad_arguments_exit_2(capsys, repo, book, argv, message):
    argv = [a.replace("{repo}", str(repo)) for a in argv]
    if "--pages-root" not in argv:
        argv += ["--pages-root", str(book)]
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err and out == ""


def test_unreadable_capture_dir_exit_2(capsys, book, tmp_path):
    (tmp_path / "flags.json").write_text("{not json")
    code, _, err = run(capsys, str(tmp_path), str(tmp_path), "--pages-root", str(book))
    assert code == 2 and "cannot read" in err
