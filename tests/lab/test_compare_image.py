"""`preflight.py --compare-image` as a reader runs it (issue 48): the served preflight.py and miles_tree.py
copied alone into an empty directory, against a stand-in docker that serves two Miles trees (the drift
tests' fixtures) as two images; and the book's side, held equal to the capture, the run files and the pages."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from miles101 import book_miles
from miles101.tools import miles_tree, preflight

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "capture" / "fixtures"
STANDIN = Path(__file__).resolve().parent / "fixtures" / "imagedocker"
OLD, NEW = "a" * 40, "b" * 40
IMAGES = {
    "radixark/miles:book": {"tree": str(FIXTURES / "drift_old"), "commit": OLD, "date": "2026-08-21",
                            "digest": "sha256:" + "1" * 64},
    "radixark/miles:latest": {"tree": str(FIXTURES / "drift_new"), "commit": NEW, "date": "2026-11-02",
                              "digest": "sha256:" + "2" * 64},
    "ubuntu:24.04": {"tree": None, "commit": "", "date": "", "digest": "sha256:" + "3" * 64},
}


def tree(folder: Path, commit: str) -> miles_tree.Source:
    blobs = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    return miles_tree.Source(commit=commit, commit_date="2026-08-21", read_from="test", blobs=blobs)


def fixture_book(runs: dict[str, dict[str, str]], metric_reads: dict[str, list[str]]) -> dict:
    """A book read at drift_old whose page 1.1 shows the given runs' commands."""
    side = miles_tree.tree_tables(tree(FIXTURES / "drift_old", OLD))
    cited = {o for passed in runs.values() for o in passed}
    layout = {"order": side["layout"]["order"], "defs": {o: d for o, d in side["layout"]["defs"].items() if o in cited}}
    return {"schema": "miles101-book-miles/1", "read": {"commit": OLD, "date": "2026-08-21"},
            "pin": {"commit": "c" * 10, "date": "2026-10-15"},
            "pages": [{"file": "sections/1-1-run-grpo-on-one-gpu.md", "title": "1.1 Run GRPO on one GPU",
                       "runs": list(runs)}],
            "runs": runs, "passthrough": ["--sglang-mem-fraction-static"], "metric_reads": metric_reads,
            "flags": side["flags"], "metrics": side["metrics"], "layout": layout}


#: A book whose commands pass only flags drift_new keeps as they were, and read a key it still logs.
QUIET = fixture_book({"first": {"--colocate": "", "--log-dir": "/root/logs", "--update-weight-buffer-size": "1024"}},
                     {"rollout/raw_reward": ["1.1"]})
#: A book whose command passes flags drift_new changed or dropped, and reads a key it dropped.
LOUD = fixture_book({"first": {"--colocate": "", "--mode": "slow", "--num-nodes": "1", "--rollout-batch": "8"}},
                    {"rollout/old_metric": ["1.1"], "rollout/raw_reward": ["1.1"]})


def reader_dir(tmp_path: Path, book: dict) -> Path:
    """preflight.py and miles_tree.py alone in a directory, miles_tree.py carrying ``book`` as its BOOK."""
    d = tmp_path / "miles-logs"
    d.mkdir()
    shutil.copy(preflight.__file__, d / "preflight.py")
    src = Path(miles_tree.__file__).read_text(encoding="utf-8")
    (d / "miles_tree.py").write_text(book_miles.render(src, book), encoding="utf-8")
    return d


def compare(d: Path, image: str, *, docker: bool = True) -> tuple[int, str, str]:
    path = f"{STANDIN}{os.pathsep}" if docker else ""
    env = {"PATH": path + os.path.dirname(sys.executable), "FAKE_MILES_IMAGES": json.dumps(IMAGES),
           "HOME": str(d)}
    res = subprocess.run([sys.executable, "-B", "-E", "-s", str(d / "preflight.py"), "--compare-image", image],
                         capture_output=True, text=True, cwd=d, env=env, timeout=120)
    return res.returncode, res.stdout, res.stderr


def test_same_as_the_book(tmp_path: Path):
    d = reader_dir(tmp_path, QUIET)
    rc, out, err = compare(d, "radixark/miles:book")
    assert (rc, err) == (0, ""), err
    assert out.splitlines()[0] == f"image  radixark/miles:book: Miles {OLD[:9]} of 2026-08-21 (image sha256:{'1' * 64})"
    assert out.splitlines()[-1] == "verdict: same as the book: use the book's commands as they are"
    assert "no page's command" not in out and "by page and run" not in out
    assert "not compared: 1 flag the commands pass through" in out
    assert sorted(p.name for p in d.iterdir()) == ["miles_tree.py", "preflight.py"]  # nothing written
    # the command prints render() over compare(): what the pages' sample ({compare-image-sample}) renders
    side = miles_tree.tree_tables(tree(FIXTURES / "drift_old", OLD))
    side["date"], side["read_from"] = "2026-08-21", f"image sha256:{'1' * 64}"
    assert out == miles_tree.render(miles_tree.compare(QUIET, side), "radixark/miles:book") + "\n"


def test_differs_only_where_no_page_looks(tmp_path: Path):
    rc, out, err = compare(reader_dir(tmp_path, QUIET), "radixark/miles:latest")
    assert (rc, err) == (1, ""), err
    assert f"Miles {NEW[:9]} of 2026-11-02" in out.splitlines()[0]
    assert "by page and run" not in out and "no longer logs" not in out
    # drift_new adds, drops, renames and changes flags none of QUIET's commands pass, and swaps a metric key
    assert ("differs where no page's command or metric looks: 10 flags (--enable-foo, --legacy-mode, --mode, "
            "--new-feature, --num-nodes, --rollout-batch, --rollout-batch-size, --temperature, --use-foo, --uwbs); "
            "2 metric keys "
            "(rollout/new_metric, rollout/old_metric)") in out
    assert out.splitlines()[-1] == ("verdict: differs only where no page looks: use the book's commands as "
                                    "they are")


def test_differs_where_a_page_looks(tmp_path: Path):
    rc, out, err = compare(reader_dir(tmp_path, LOUD), "radixark/miles:latest")
    assert (rc, err) == (3, ""), err
    body = out.split("flags the book's commands pass that your image lacks or changed, by flag:\n")[1]
    assert body.startswith(
        "  --rollout-batch: your image has no such flag; probably renamed --rollout-batch-size: same dest "
        "'rollout_batch_size' (the commands pass --rollout-batch 8; 1 run, 1 page)\n"
        "    1.1 Run GRPO on one GPU: first\n"
        '  --mode: choices "fast", "slow" -> "fast", "slow", "auto" (the commands pass --mode slow; 1 run, 1 page)\n'
        "    1.1 Run GRPO on one GPU: first\n"
        "  --num-nodes: default 1 -> 2; the commands pass --num-nodes 1, so they run as the book's (1 run, 1 page)\n"
        "    1.1 Run GRPO on one GPU: first\n"
        "metric keys the pages read that your image no longer logs:\n"
        "  rollout/old_metric: 1.1\n"), body
    assert "--colocate" not in body  # unchanged: not listed
    assert "2 metric keys" not in body and "1 metric key (rollout/new_metric)" in body  # each key listed once
    assert "--rollout-batch-size" not in body.split("differs where no page")[1]  # the rename's new name is paired
    assert out.splitlines()[-1].startswith("verdict: differs where pages look: edit the flags listed above")


#: A book whose commands pass a flag drift_new gave another default (and flags it kept as they were).
DEFAULTS = fixture_book({"first": {"--colocate": "", "--num-nodes": "1", "--update-weight-buffer-size": "1024"},
                         "second": {"--num-nodes": "2"}}, {"rollout/raw_reward": ["1.1"]})


def test_default_only_drift_of_passed_flags_runs_as_the_books(tmp_path: Path):
    """A default the commands override anyway: its own verdict and exit status, not "edit the commands"."""
    rc, out, err = compare(reader_dir(tmp_path, DEFAULTS), "radixark/miles:latest")
    assert (rc, err) == (4, ""), err
    assert ("  --num-nodes: default 1 -> 2; the commands pass --num-nodes 1 / 2, so they run as the book's "
            "(2 runs, 1 page)\n    1.1 Run GRPO on one GPU: first, second\n") in out
    assert out.splitlines()[-1] == f"verdict: {miles_tree.VERDICTS['defaults'][1]}"
    assert miles_tree.VERDICTS["defaults"][1].startswith("runs as the book's")


@pytest.mark.parametrize("part, value", [("type", "str"), ("action", "append"), ("nargs", "+"), ("const", "3"),
                                         ("required", True), ("choices", '"1", "2"')])
def test_a_change_besides_the_default_is_never_default_only(part: str, value):
    """type, action, nargs, const, required or choices changed with the default: the commands may fail (exit 3)."""
    image = miles_tree.tree_tables(tree(FIXTURES / "drift_old", OLD))
    sig = image["flags"]["--colocate"][0]
    sig[1] = '"changed"'
    sig[1 + miles_tree.SIGNATURE.index(part)] = value
    report = miles_tree.compare(DEFAULTS, image)
    change = next(f for f in report["flags"] if f["flag"] == "--colocate")
    assert change["kind"] == "changed" and f"{part} " in change["what"], change
    assert (report["verdict"], report["exit"]) == ("pages", 3)


def test_flags_are_grouped_with_the_first_pages_runs_named_first_and_the_rest_under_all():
    book = fixture_book({"first": {"--num-nodes": "1"}, "other": {"--num-nodes": "1"}, "lab": {"--num-nodes": "1"}},
                        {"rollout/raw_reward": ["1.1"]})
    book["pages"][0]["runs"] = ["first"]
    book["pages"].append({"file": "sections/3-1-train-math-on-gsm8k.md", "title": "3.1 Train math on GSM8K",
                          "runs": ["other"]})
    report = miles_tree.compare(book, miles_tree.tree_tables(tree(FIXTURES / "drift_new", NEW)))
    (flag,) = report["flags"]
    assert (flag["flag"], flag["runs"], len(flag["pages"]), flag["lab_runs"]) == ("--num-nodes", 3, 2, ["lab"])
    short = miles_tree.render(report, "img")
    assert ("    1.1 Run GRPO on one GPU: first\n"
            "    and 1 more run on 1 more page; and 1 run the lab records that no page shows\n"
            "  (--all names every run)\n") in short
    assert "3.1 Train math" not in short
    full = miles_tree.render(report, "img", all_runs=True)
    assert ("    1.1 Run GRPO on one GPU: first\n    3.1 Train math on GSM8K: other\n"
            "    runs the lab records whose command no page shows: lab\n") in full
    assert "--all names" not in full


def test_a_type_change_is_a_change_where_pages_look():
    """drift_new makes --temperature a float: not the default, so not "runs as the book's"."""
    book = fixture_book({"first": {"--temperature": "1"}}, {"rollout/raw_reward": ["1.1"]})
    report = miles_tree.compare(book, miles_tree.tree_tables(tree(FIXTURES / "drift_new", NEW)))
    assert [(f["flag"], f["kind"], f["what"]) for f in report["flags"]] == [("--temperature", "changed", "type int -> float")]
    assert report["exit"] == 3


def test_a_lost_flag_is_listed_before_a_changed_default():
    report = miles_tree.compare(LOUD, miles_tree.tree_tables(tree(FIXTURES / "drift_new", NEW)))
    assert [f["kind"] for f in report["flags"]] == ["renamed", "changed", "default"]


def test_the_reader_and_the_drift_report_share_one_rename_heuristic():
    from capture.drift import flags as drift_flags
    from capture.drift import report as drift_report

    assert drift_flags.find_renames is miles_tree.find_renames
    assert drift_report.RENAME_HEURISTIC is miles_tree.RENAME_HEURISTIC


def test_a_rename_beside_a_flag_defined_in_two_files_is_paired_by_its_place():
    """Rule 3 reads each file's own places on both sides: --x, defined in a.py and b.py, is b.py's neighbour."""
    def rec(name: str, file: str, line: int) -> dict:
        return {"name": name, "dest": name[2:] + "_dest", "kind": "add_argument", "type": "int", "file": file,
                "line": line}

    old = [rec("--x", "a.py", 5), rec("--x", "b.py", 20), rec("--old", "b.py", 21), rec("--z", "b.py", 22)]
    new = [rec("--x", "a.py", 5), rec("--x", "b.py", 20), rec("--new", "b.py", 21), rec("--z", "b.py", 22)]
    book = {"flags": {o: [["both"]] for o in ("--old", "--x", "--z")},
            "layout": miles_tree.flag_layout(old, only={"--old", "--x", "--z"})}
    got = miles_tree.renames(book, {"flags": {}, "layout": miles_tree.flag_layout(new)}, ["--old"])
    assert got == {"--old": ("--new", "same place in b.py, between --x and --z")}


def test_the_json_report_carries_the_same_verdict():
    report = miles_tree.compare(LOUD, miles_tree.tree_tables(tree(FIXTURES / "drift_new", NEW)))
    assert report["verdict"] == "pages" and report["exit"] == 3
    assert [c["flag"] for c in report["pages"][0]["runs"][0]["flags"]] == ["--mode", "--num-nodes", "--rollout-batch"]
    assert report["metrics"] == [{"key": "rollout/old_metric", "pages": ["1.1"]}]


@pytest.mark.parametrize("image, docker, says, fix", [
    ("radixark/miles:gone", True, "docker pull of radixark/miles:gone failed: Error response from daemon: pull "
                                  "access denied for radixark/miles", "pull"),
    ("ubuntu:24.04", True, "reading the Miles commit at /root/miles of ubuntu:24.04 failed: fatal: cannot change "
                           "to '/root/miles'", "miles"),
    ("radixark/miles:latest", False, "cannot run 'docker'", "docker"),
])
def test_bad_input_is_one_line_with_its_fix(tmp_path: Path, image: str, docker: bool, says: str, fix: str):
    d = reader_dir(tmp_path, QUIET)
    rc, out, err = compare(d, image, docker=docker)
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"preflight: --compare-image: {says}"), err
    assert err.rstrip().endswith(f". Fix: {miles_tree.IMAGE_FIXES[fix]}"), err
    assert sorted(p.name for p in d.iterdir()) == ["miles_tree.py", "preflight.py"]


@pytest.mark.parametrize("argv", [["--compare-image", ""], ["--compare-image", " "], ["--compare-image=-x"]])
def test_an_empty_or_dashed_image_name_is_one_line_with_its_fix(argv: list[str], capsys: pytest.CaptureFixture[str]):
    """'' once fell through to the full preflight ("no image: pass --image"); docker reads "-x" as its option."""
    assert preflight.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("preflight: --compare-image: "), err
    assert "is not an image name. Fix: pass the image you run" in err


def test_an_extractor_crash_names_the_miles_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]):
    """A tree the extractor cannot walk (here: a walker that fails on one module): one line, naming the file."""
    def boom(self, stmts, scope):
        raise RecursionError("maximum recursion depth exceeded")

    src = tree(FIXTURES / "drift_new", NEW)
    monkeypatch.setattr(miles_tree.FlagWalker, "walk_block", boom)
    monkeypatch.setattr(miles_tree, "read_image", lambda image: src)
    assert preflight.compare_image("radixark/miles:latest") == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("preflight: --compare-image: the extractor could not read Miles in radixark/miles:latest "
                          "at miles/utils/arguments.py"), err
    assert "(RecursionError: maximum recursion depth exceeded). Fix: download miles_tree.py again" in err


def test_a_tree_the_extractor_cannot_read(tmp_path: Path):
    empty = tmp_path / "empty"
    (empty / "miles").mkdir(parents=True)
    (empty / "miles" / "x.py").write_text("def broken(:\n")
    IMAGES["radixark/miles:odd"] = {"tree": str(empty), "commit": NEW, "date": "2026-11-02", "digest": "sha256:9"}
    try:
        rc, out, err = compare(reader_dir(tmp_path, QUIET), "radixark/miles:odd")
    finally:
        del IMAGES["radixark/miles:odd"]
    assert rc == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "the extractor found no Miles flag in the tree (missing: miles/utils/arguments.py" in err
    assert err.rstrip().endswith(f". Fix: {miles_tree.IMAGE_FIXES['flags']}"), err  # 6.4: the line says the fix


def test_without_miles_tree_beside_it(tmp_path: Path):
    d = reader_dir(tmp_path, QUIET)
    (d / "miles_tree.py").unlink()
    rc, out, err = compare(d, "radixark/miles:book")
    assert rc == 2 and "download miles_tree.py (section 1.1, step 2)" in err and len(err.splitlines()) == 1


def test_a_python_that_cannot_parse_miles_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]):
    """Miles's source uses 3.10 grammar (`match`): on 3.9 the extractor would skip those files and give a wrong
    verdict for the book's own commit, so 6.4's "Python 3.10 or newer" is a refusal in one line."""
    monkeypatch.setattr(preflight.sys, "version_info", (3, 9, 18, "final", 0))
    assert preflight.compare_image("radixark/miles:book") == 2
    err = capsys.readouterr().err
    assert "needs Python 3.10 or newer, this is Python 3.9" in err and len(err.splitlines()) == 1, err
    assert "Python 3.10 or newer" in (ROOT / "sections" / "6-4-pick-an-image.md").read_text(encoding="utf-8")


# ---- the book's side, held equal to the project ------------------------------------------------

def test_the_served_book_equals_the_capture_the_run_files_and_the_pages():
    src = Path(miles_tree.__file__).read_text(encoding="utf-8")
    assert book_miles.render(src, book_miles.book_side(ROOT)) == src, "python3 -m miles101.book_miles --write"
    assert miles_tree.BOOK == book_miles.book_side(ROOT)


def test_the_book_side_reads_what_the_pages_show():
    book = miles_tree.BOOK
    flags = json.loads((ROOT / "capture" / "miles" / "flags.json").read_text())
    assert book["read"]["commit"] == flags["provenance"]["commit"]
    assert book["pin"]["commit"] == json.loads((ROOT / "manual.json").read_text())["pin"]["commit"]
    page11 = next(p for p in book["pages"] if p["file"] == "sections/1-1-run-grpo-on-one-gpu.md")
    assert {"first-grpo", "first-grpo-smoke"} <= set(page11["runs"])
    assert book["runs"]["first-grpo-smoke"]["--num-rollout"] == "2"
    text = (ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md").read_text()
    for key in re.findall(r"\{metric\}`([^`]+)`", text):
        assert "1.1" in book["metric_reads"][key]


def test_the_book_against_its_own_capture_is_the_same():
    """An image of the commit the book read gives the same tables (the extractor is one), so: same, exit 0."""
    image = {"commit": miles_tree.BOOK["read"]["commit"], "date": miles_tree.BOOK["read"]["date"],
             "read_from": "image sha256:<digest>", "flags": miles_tree.BOOK["flags"],
             "metrics": miles_tree.BOOK["metrics"]}
    report = miles_tree.compare(miles_tree.BOOK, image)
    assert (report["verdict"], report["exit"], report["pages"], report["metrics"]) == ("same", 0, [], [])


def test_the_pages_sample_is_what_the_command_prints_for_the_books_own_commit():
    """6.4's {compare-image-sample} renders book_miles.sample(): the served render() over the served BOOK."""
    text = book_miles.sample()
    assert text.splitlines()[0].startswith(f"image  {book_miles.SAMPLE_IMAGE}: Miles {miles_tree.BOOK['read']['commit'][:9]}")
    assert text.splitlines()[-1] == "verdict: same as the book: use the book's commands as they are"
    page = (ROOT / "sections" / "6-4-pick-an-image.md").read_text(encoding="utf-8")
    assert "```{compare-image-sample}\n```" in page
    assert "```{tools-download}" in page  # the page serves the tools' one download, which carries miles_tree.py


# ---- on a real Miles tree (--miles-src PATH or $MILES_SRC; skipped without one) ---------------------

BOOK_COMMIT, RENAMED_AT = "31f1ca961a94cb860cec3b2dea34ec332bfa8f76", "688cf82b9"


@pytest.fixture(scope="module")
def real_trees(request: pytest.FixtureRequest) -> dict[str, miles_tree.Source]:
    """The book's commit and 688cf82b9 read from --miles-src, by revision."""
    from capture.extract.source import SourceError, _resolve_git_dir, read_git

    src = request.config.getoption("--miles-src")
    if not src:
        pytest.skip("no Miles tree: pass --miles-src PATH (or set MILES_SRC) to run the image check on one")
    git_dir = _resolve_git_dir(Path(src).expanduser())
    if git_dir is None:
        pytest.fail(f"--miles-src {src}: not a Miles checkout or git dir")
    try:
        return {rev: read_git(git_dir, rev) for rev in (BOOK_COMMIT, RENAMED_AT)}
    except SourceError as e:
        pytest.skip(f"--miles-src {src} lacks {BOOK_COMMIT[:9]} or {RENAMED_AT}: {e}")


@pytest.mark.slow
def test_real_tree_the_books_own_commit_is_the_same(real_trees):
    report = miles_tree.compare(miles_tree.BOOK, miles_tree.tree_tables(real_trees[BOOK_COMMIT]))
    assert (report["verdict"], report["exit"], report["flags"]) == ("same", 0, [])


@pytest.mark.slow
def test_real_tree_one_passed_flags_default_edited_runs_as_the_books(real_trees):
    """31f1ca961 with --eps-clip-high's default edited (every run passes it): exit 4, one group, 1.1 first."""
    src = real_trees[BOOK_COMMIT]
    path = "miles/utils/arguments.py"
    old = b'parser.add_argument("--eps-clip-high", type=float, default=None,'
    assert src.blobs[path].count(old) == 1
    edited = miles_tree.Source(commit=src.commit, commit_date=src.commit_date, read_from="an edited checkout",
                               blobs={**src.blobs, path: src.blobs[path].replace(old, old.replace(b"None", b"0.3"))})
    report = miles_tree.compare(miles_tree.BOOK, miles_tree.tree_tables(edited))
    out = miles_tree.render(report, "radixark/miles:edited")
    assert (report["verdict"], report["exit"]) == ("defaults", 4), out
    (flag,) = report["flags"]
    runs = sum("--eps-clip-high" in passed for passed in miles_tree.BOOK["runs"].values())
    assert (flag["flag"], flag["kind"], flag["runs"]) == ("--eps-clip-high", "default", runs)
    lines = out.splitlines()
    head = lines.index("flags the book's commands pass that your image lacks or changed, by flag:")
    assert lines[head + 1].startswith("  --eps-clip-high: default null -> 0.3; the commands pass --eps-clip-high ")
    assert lines[head + 2] == "    1.1 Run GRPO on one GPU: first-grpo-smoke, first-grpo"
    assert lines[head + 3].startswith("    and ") and lines[head + 4] == "  (--all names every run)"
    assert len(lines) == head + 7 == 9  # no other flag, no metric key: issue 57 saw 81 lines here


@pytest.mark.slow
def test_real_tree_the_rename_to_688cf82b9_is_paired(real_trees):
    """--control-server-port became --api-server-port at 688cf82b9: a book passing it sees one probable rename."""
    doc = json.loads((ROOT / "capture" / "miles" / "flags.json").read_text(encoding="utf-8"))
    book = json.loads(json.dumps(miles_tree.BOOK))
    book["runs"]["first-grpo"]["--control-server-port"] = "8000"
    cited = {o for passed in book["runs"].values() for o in passed}
    book["layout"] = miles_tree.flag_layout(doc["flags"], only=cited, lines=doc["lines"])
    report = miles_tree.compare(book, miles_tree.tree_tables(real_trees[RENAMED_AT]))
    out = miles_tree.render(report, "radixark/miles@688cf82b9")
    change = next(f for f in report["flags"] if f["flag"] == "--control-server-port")
    assert (change["kind"], change["renamed_to"]) == ("renamed", "--api-server-port"), out
    assert "  --control-server-port: your image has no such flag; probably renamed --api-server-port: same " \
           "definition line (miles/utils/arguments.py:950 -> line 1070, line edited in a line diff)" in out
    assert "--api-server-port" not in report["elsewhere"]["flags"]
    assert report["exit"] == 3
