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
    return {"schema": "miles101-book-miles/1", "read": {"commit": OLD, "date": "2026-08-21"},
            "pin": {"commit": "c" * 10, "date": "2026-10-15"},
            "pages": [{"file": "sections/1-1-run-grpo-on-one-gpu.md", "title": "1.1 Run GRPO on one GPU",
                       "runs": list(runs)}],
            "runs": runs, "passthrough": ["--sglang-mem-fraction-static"], "metric_reads": metric_reads,
            "flags": side["flags"], "metrics": side["metrics"]}


#: A book whose commands pass only flags drift_new keeps as they were, and read a key it still logs.
QUIET = fixture_book({"first": {"--colocate": "", "--log-dir": "/root/logs", "--temperature": "1"}},
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
    assert ("differs where no page's command or metric looks: 9 flags (--enable-foo, --legacy-mode, --mode, "
            "--new-feature, --num-nodes, --rollout-batch, --rollout-batch-size, --use-foo, --uwbs); 2 metric keys "
            "(rollout/new_metric, rollout/old_metric)") in out
    assert out.splitlines()[-1] == ("verdict: differs only where no page looks: use the book's commands as "
                                    "they are")


def test_differs_where_a_page_looks(tmp_path: Path):
    rc, out, err = compare(reader_dir(tmp_path, LOUD), "radixark/miles:latest")
    assert (rc, err) == (3, ""), err
    body = out.split("flags the book's commands pass that your image lacks or changed, by page and run:\n")[1]
    assert body.startswith(
        "  1.1 Run GRPO on one GPU (sections/1-1-run-grpo-on-one-gpu.md)\n"
        "    run first\n"
        '      --mode: choices "fast", "slow" -> "fast", "slow", "auto" (the command passes --mode slow)\n'
        '      --num-nodes: default 1 -> 2 (the command passes --num-nodes 1)\n'
        "      --rollout-batch: your image has no such flag (the command passes --rollout-batch 8)\n"
        "metric keys the pages read that your image no longer logs:\n"
        "  rollout/old_metric: 1.1\n"), body
    assert "--colocate" not in body  # unchanged: not listed
    assert "2 metric keys" not in body and "1 metric key (rollout/new_metric)" in body  # each key listed once
    assert out.splitlines()[-1].startswith("verdict: differs where pages look: edit the flags listed above")


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
    assert "_ext/miles101/tools/miles_tree.py" in page  # the page serves the file the command needs
