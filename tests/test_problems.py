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
from miles101.validate import validate_capture

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
