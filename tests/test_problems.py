"""The one problem type (miles101.problems.Problem): how it prints, where it points, how it survives the caches."""
from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

import miles101
from miles101.intake import load_capture
from miles101.problems import Problem, ProblemError, Subtype, capture_problem
from miles101.strict import parse_json_bytes
from miles101.intake import validate_capture

CORE = Path(miles101.__file__).parent


@pytest.mark.parametrize(("where", "location", "printed"), [
    ("manual.json:$.parts[1].accent", "manual.json:$.parts[1].accent", "manual.json:$.parts[1].accent: m. Fix: f."),
    ("capture/x.json:4:3", "capture/x.json:4:3", "capture/x.json:4:3: m. Fix: f."),
    ("sections/a.md:7", "sections/a.md:7", "sections/a.md:7: m. Fix: f."),
    ("capture/computed.json", "capture/computed.json:1", "capture/computed.json: m. Fix: f."),
    ("", "", "m. Fix: f."),
])
def test_a_problem_prints_where_it_is_then_what_and_the_fix(where: str, location: str, printed: str) -> None:
    problem = Problem(Subtype.BOOK, "m.", "f.", where)
    assert (problem.location, str(problem)) == (location, printed)
    assert problem.file == where.split(":")[0] and problem.fatal
    assert str(Problem(Subtype.BOOK, "m.", "", where)).endswith("m.")  # no fix, no "Fix:"


def test_a_reader_raises_the_problem_and_it_pickles() -> None:
    with pytest.raises(ProblemError) as exc:
        parse_json_bytes(b'{"a": ', "capture/x.json", "restore it")
    problem = exc.value.problem
    assert problem.subtype is Subtype.CAPTURE and problem.where == "capture/x.json:1:7"
    again = pickle.loads(pickle.dumps(exc.value))
    assert again.problem == problem and str(again) == str(problem) == str(exc.value)


def test_the_capture_holds_problems_not_exceptions(tmp_path: Path) -> None:
    (tmp_path / "capture" / "miles").mkdir(parents=True)
    (tmp_path / "capture" / "miles" / "flags.json").write_text('{"flags": [', encoding="utf-8")
    capture = load_capture(tmp_path)
    assert capture.problems and all(type(p) is Problem and p.subtype is Subtype.CAPTURE for p in capture.problems)
    assert any(p.where.startswith("capture/miles/flags.json:1:") for p in capture.problems)
    assert pickle.loads(pickle.dumps(capture)).problems == capture.problems  # the build's capture cache


def test_cached_validation_gives_the_same_problems(tmp_path: Path) -> None:
    (tmp_path / "capture").mkdir()
    (tmp_path / "capture" / "facts.json").write_text('{"facts": 3}', encoding="utf-8")
    cache = tmp_path / "valid.json"
    first = validate_capture(tmp_path, cache)
    second = validate_capture(tmp_path, cache)
    assert second.cached and second.problems == first.problems
    assert any(p.where.startswith("capture/facts.json:") and p.subtype is Subtype.CAPTURE for p in second.problems)


def test_the_core_has_one_problem_type() -> None:
    found = {f"{path.relative_to(CORE)}: {m[0]}" for path in CORE.rglob("*.py")
             for m in re.finditer(r"^class \w*(?:Problem|CaptureError)\w*\b", path.read_text(encoding="utf-8"), re.M)}
    assert found == {"problems.py: class Problem", "problems.py: class ProblemError"}


def test_a_capture_problem_is_a_manual_capture_warning() -> None:
    assert capture_problem("capture/x.json:$.a", "m.", "f.") == Problem(Subtype.CAPTURE, "m.", "f.", "capture/x.json:$.a")
    assert str(Subtype.CAPTURE) == "manual.capture"


def test_a_broken_base_run_file_is_named_once_and_its_runs_point_at_it(tmp_path: Path) -> None:
    """A schema problem in a run file that others build on (`base:`) was printed again under every such run, with
    this machine's absolute path; each of those runs now says once, at its `base`, which file to correct."""
    import shutil

    root = Path(miles101.__file__).resolve().parents[2]
    shutil.copytree(root / "capture", tmp_path / "capture", ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "capture" / "runs" / "recipe-gsm8k.yaml"
    derived = [p.stem for p in base.parent.glob("*.yaml") if "\nbase: recipe-gsm8k\n" in p.read_text(encoding="utf-8")]
    assert derived
    base.write_text(base.read_text(encoding="utf-8").replace("statistic: last\n", "statistic: lastest\n", 1), encoding="utf-8")
    problems = validate_capture(tmp_path).problems
    said = [p for p in problems if p.where.startswith("capture/runs/")]
    [own] = [p for p in said if p.where.startswith("capture/runs/recipe-gsm8k.yaml:")]
    assert own.where.endswith(".statistic") and "'lastest'" in own.message, own
    assert not [p for p in said if str(tmp_path) in p.message], said
    for stem in derived:
        [mine] = [p for p in said if p.where.startswith(f"capture/runs/{stem}.yaml")]
        assert mine.where.endswith(":$.base") and "capture/runs/recipe-gsm8k.yaml" in mine.message, mine
