"""The campaign's run-file drift (issue 48): the refreshed extraction against the previous one, by page and run;
a run whose flags drifted is refused unless --accept-drift names each of them."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from capture.drift.runfiles import drifted, refused, run_file_report, text
from capture.lab.campaign import Result, hold_drifted, parse_args
from miles101.tools import miles_tree

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "capture" / "miles"


def refreshed(tmp_path: Path, edit) -> Path:
    """A copy of capture/miles whose flags.json ``edit`` changed, at another commit."""
    out = tmp_path / "new"
    out.mkdir()
    flags = json.loads((CAPTURE / "flags.json").read_text())
    flags = copy.deepcopy(flags)
    flags["provenance"]["commit"] = "e" * 40
    edit(flags["flags"])
    (out / "flags.json").write_text(json.dumps(flags))
    (out / "metrics.json").write_text((CAPTURE / "metrics.json").read_text())
    return out


def drop_num_rollout_and_change_eps(records: list[dict]) -> None:
    records[:] = [r for r in records if r["name"] != "--num-rollout"]
    for r in records:
        if r["name"] == "--eps-clip-high":
            r["default"] = 0.3


def test_an_unchanged_extraction_refuses_nothing():
    report = run_file_report(CAPTURE, CAPTURE, ROOT)
    assert report["verdict"] == "same" and drifted(report) == {} and refused(report, set()) == {}


def test_a_drifted_flag_is_reported_by_page_and_run_and_refused(tmp_path: Path):
    report = run_file_report(CAPTURE, refreshed(tmp_path, drop_num_rollout_and_change_eps), ROOT)
    assert report["verdict"] == "pages" and report["exit"] == 3
    out = text(report, "the refreshed extraction")
    assert "  --num-rollout: your image has no such flag (the commands pass --num-rollout 1 / 2 / 8 / ... " in out
    assert "    1.1 Run GRPO on one GPU: first-grpo-smoke, first-grpo\n" in out
    runs = drifted(report)
    assert runs["first-grpo"] == ["--eps-clip-high", "--num-rollout"]
    assert set(runs) == {run for run, passed in miles_tree.BOOK["runs"].items()
                         if "--num-rollout" in passed or "--eps-clip-high" in passed}
    assert refused(report, {"--num-rollout"})["first-grpo"] == ["--eps-clip-high"]
    assert "first-grpo" not in refused(report, {"--num-rollout", "--eps-clip-high"})


def test_refused_runs_are_held_back_with_the_fix():
    todo, held = hold_drifted(["first-grpo", "seed-repeats"], {"first-grpo": ["--eps-clip-high", "--num-rollout"]})
    assert todo == ["seed-repeats"]
    assert held == [Result("first-grpo", "refused", held[0].detail)]
    assert "pass --accept-drift=--eps-clip-high,--num-rollout" in held[0].detail
    assert "capture/runs/first-grpo.yaml" in held[0].detail


def test_accept_drift_is_repeatable():
    args = parse_args(["--accept-drift=--lr", "--accept-drift=--eps-clip,--num-rollout"])
    assert args.accept_drift == ["--lr", "--eps-clip,--num-rollout"]


def test_the_gate_prints_the_run_files_report_and_returns_the_refusals(tmp_path: Path, capsys):
    import io

    from capture.lab.campaign import Display, Setup, run_file_gate

    root = tmp_path / "book"
    for name in ("manual.json", "front.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes((ROOT / name).read_bytes())
    for folder in ("sections", "capture/runs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for f in (ROOT / folder).glob("*.*"):
            (root / folder / f.name).write_bytes(f.read_bytes())
    new = refreshed(tmp_path, drop_num_rollout_and_change_eps)
    (root / "capture" / "miles").mkdir(parents=True)
    for f in new.iterdir():
        (root / "capture" / "miles" / f.name).write_bytes(f.read_bytes())
    buf = io.StringIO()
    setup = Setup(root, {}, label="campaign", accept_drift=["--num-rollout"])
    got = run_file_gate(setup, CAPTURE, Display(buf, tty=False, label="campaign"))
    printed = buf.getvalue()
    assert "campaign: the run files against the refreshed extraction (the previous one as the book):" in printed
    assert "  verdict: differs where pages look" in printed
    assert got["first-grpo"] == ["--eps-clip-high"] and all("--num-rollout" not in v for v in got.values())


def test_a_refreshed_extraction_that_does_not_read_stops_the_gate_with_its_file_and_line(tmp_path: Path):
    """A truncated flags.json ended the campaign in a JSONDecodeError traceback (a second JSON reader); it is read
    by the strict reader now, and the gate prints the file, the line and the fix, then refuses to go on."""
    import io

    import pytest

    from capture.lab.campaign import Display, Setup, run_file_gate
    from miles101.problems import ProblemError

    new = refreshed(tmp_path, lambda records: None)
    (new / "flags.json").write_text((new / "flags.json").read_text()[:1000])
    with pytest.raises(ProblemError, match=r"flags\.json:1:\d+: invalid JSON"):
        run_file_report(CAPTURE, new, ROOT)
    buf = io.StringIO()
    assert run_file_gate(Setup(ROOT, {}, label="campaign"), new, Display(buf, tty=False)) is None
    printed = buf.getvalue()
    assert "campaign: the run files cannot be held against the refreshed extraction:" in printed
    assert "flags.json:1:" in printed and "restore it from git, or re-run the extraction" in printed


def _without_provenance(doc: dict) -> None:
    del doc["provenance"]


def _flags_as_object(doc: dict) -> None:
    doc["flags"] = {rec["name"]: rec for rec in doc["flags"]}


def _provenance_a_list(doc: dict) -> None:
    doc["provenance"] = []


def _a_record_a_string(doc: dict) -> None:
    doc["flags"][3] = "--lr"


def _aliases_a_string(doc: dict) -> None:
    doc["flags"][0]["aliases"] = "--x"


@pytest.mark.parametrize(("damage", "where"), [
    (_without_provenance, "$.provenance"), (_flags_as_object, "$.flags"), (_provenance_a_list, "$.provenance"),
    (_a_record_a_string, "$.flags[3]"), (_aliases_a_string, "$.flags[0].aliases"),
])
def test_a_refreshed_flags_json_of_another_shape_stops_the_gate_with_its_json_path(tmp_path: Path, damage,
                                                                                  where: str) -> None:
    """A flags.json without its provenance block or with `flags` as an object was a KeyError/AttributeError
    traceback in the gate (and in `capture/run.py diff`); both name the file and the JSON path now."""
    import io

    from capture.drift.sides import SideError, read_dir
    from capture.lab.campaign import Display, Setup, run_file_gate
    from miles101.problems import ProblemError

    new = tmp_path / "new"
    new.mkdir()
    doc = json.loads((CAPTURE / "flags.json").read_text())
    damage(doc)
    (new / "flags.json").write_text(json.dumps(doc))
    for name in ("metrics.json", "models.json", "files.json"):
        (new / name).write_text((CAPTURE / name).read_text())
    with pytest.raises(ProblemError) as got:
        run_file_report(CAPTURE, new, ROOT)
    assert got.value.problem.where == f"{new / 'flags.json'}:{where}"
    buf = io.StringIO()
    assert run_file_gate(Setup(ROOT, {}, label="campaign"), new, Display(buf, tty=False)) is None
    assert f"flags.json:{where}" in buf.getvalue() and "Traceback" not in buf.getvalue()
    with pytest.raises(SideError, match=re.escape(f"flags.json:{where}: ")):
        read_dir(new, "NEW")
