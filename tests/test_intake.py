"""The intake (issue 49): capture/ taken in once, and a cached intake never older than the code that made it."""
from __future__ import annotations

import builtins
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from buildutil import ROOT

CORE = ROOT / "_ext" / "miles101"
BOOK = ROOT / "tests" / "roots" / "test-book"

#: Takes in the project given, with the cache dir given (or none); prints its problems and its model's values as JSON.
TAKE_IN = """
import json, sys
from pathlib import Path
from miles101.intake import take_in
cache = Path(sys.argv[2]) if len(sys.argv) > 2 else None
got = take_in(Path(sys.argv[1]), cache)
values = sorted(f"{kind}:{key}={value.value}" for (kind, key), value in got.capture.values.items())
print(json.dumps({"problems": [str(p) for p in got.problems], "values": values}))
"""


def _take_in(ext: Path, book: Path, cache: Path | None) -> dict[str, list[str]]:
    """The problems and values `take_in` gives when the core is imported from `ext` (a fresh process: nothing held over)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ext), str(ROOT)])}
    argv = [sys.executable, "-c", TAKE_IN, str(book), *([str(cache)] if cache else [])]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=True)
    return json.loads(done.stdout)


def _tighten_strict(core: Path) -> None:
    """The reproduction of issue 49: one strict rule tightened, MAX_DIGITS 400 → 2."""
    strict = core / "strict.py"
    text = strict.read_text(encoding="utf-8")
    assert "\nMAX_DIGITS = 400\n" in text
    strict.write_text(text.replace("\nMAX_DIGITS = 400\n", "\nMAX_DIGITS = 2\n"), encoding="utf-8")


def _tighten_facts_schema(core: Path) -> None:
    """A schema tightened: facts.json may hold no field at all."""
    schema = core / "schema" / "facts.schema.json"
    doc = json.loads(schema.read_text(encoding="utf-8"))
    schema.write_text(json.dumps({**doc, "maxProperties": 0}), encoding="utf-8")


@pytest.fixture(scope="module")
def warmed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, list[str]]]:
    """A copy of the test book and a cache dir warmed by today's core: (book, cache, what it takes in).

    Warm equals cold here, before any change; each change below starts from its own copy of the cache.
    """
    tmp = tmp_path_factory.mktemp("intake")
    book, cache = tmp / "book", tmp / "doctrees"
    shutil.copytree(BOOK, book)
    before = _take_in(ROOT / "_ext", book, cache)  # warms every memo: the model, each check, each parsed file
    assert _take_in(ROOT / "_ext", book, cache) == before == _take_in(ROOT / "_ext", book, None)
    return book, cache, before


@pytest.mark.parametrize("change", [_tighten_strict, _tighten_facts_schema], ids=["strict.py", "facts.schema.json"])
def test_a_warm_intake_equals_a_cold_one_after_the_core_changes(tmp_path: Path, warmed, change) -> None:
    book, warm, before = warmed
    cache, ext = tmp_path / "doctrees", tmp_path / "ext"
    shutil.copytree(warm, cache)  # the memos the old code left
    shutil.copytree(CORE, ext / "miles101", ignore=shutil.ignore_patterns("__pycache__"))
    change(ext / "miles101")
    cold = _take_in(ext, book, None)
    assert cold != before, "the tightened rule should find something in the test book"
    assert _take_in(ext, book, cache) == cold  # warm caches from the old code give no stale answer


def test_check_reads_each_capture_file_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--check` takes the capture in once: every capture file passes the strict reader's open once."""
    import miles101.strict as strict
    from capture.check import run_check

    reads: Counter[str] = Counter()

    def counting_open(path, *args, **kwargs):
        reads[Path(path).resolve().relative_to(BOOK.resolve()).as_posix()] += 1
        return builtins.open(path, *args, **kwargs)

    monkeypatch.setattr(strict, "open", counting_open, raising=False)
    run_check(BOOK)
    captured = {rel: n for rel, n in reads.items() if rel.startswith("capture/")}
    assert len(captured) >= 8, sorted(reads)  # flags, metrics, files, models, computed, facts, runs, references ...
    assert {rel: n for rel, n in captured.items() if n > 1} == {}


def test_the_model_module_imports_nothing_but_the_problem_type_and_the_files_table() -> None:
    import ast

    tree = ast.parse((CORE / "data.py").read_text(encoding="utf-8"))
    local = {(node.level, node.module) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert local <= {(1, "problems"), (1, "capturefiles")}  # both on the ground floor: standard library only
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import) and any(a.name.startswith("miles101") for a in n.names)]


def test_no_process_wide_memo_is_left() -> None:
    import miles101.data
    import miles101.schemas

    assert not hasattr(miles101.schemas, "_CLEAN") and not hasattr(miles101.data, "_PARSED")


def test_each_test_gets_its_own_copy_of_the_sessions_capture(real_capture, real_capture_copies) -> None:
    """tests/conftest.py takes the real capture in once a session; a test that changes its copy changes no other."""
    other = real_capture_copies()
    assert other == real_capture and other is not real_capture
    assert real_capture.runs and real_capture.values and real_capture.flags
    real_capture.runs.clear()
    real_capture.values.clear()
    real_capture.flags.clear()
    assert other.runs and other.values and other.flags
    assert real_capture_copies() == other
