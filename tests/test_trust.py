"""Trust at the gate (issue 19): `--check` and the build refuse the same broken inputs, with no traceback.

Each case breaks one thing in a copy of tests/roots/test-book. Both tools must then fail, name the
file, and never print a traceback; on the unbroken root both pass (the run-file checks, which only
--check makes, aside).
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from buildutil import ROOT

from capture.check import run_check

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

CRASH = ("Traceback", "Sphinx error", "Exception occurred", "Extension error")


def _json(root: Path, rel: str, change: Callable[[dict], None]) -> None:
    path = root / rel
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")  # NaN is written as NaN


def _page(root: Path, text: str) -> None:
    path = root / "sections" / "2-1-values.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text + "\n", encoding="utf-8")


def _manual(root: Path, change: Callable[[dict], None]) -> None:
    _json(root, "manual.json", change)


def _set(doc: dict, path: list, value) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _flags_types(doc: dict) -> None:
    doc["flags"][0]["line"] = "ten"
    doc["flags"][0]["aliases"] = "--x"
    doc["flags"][1]["name"] = 7


def _dup_key(root: Path) -> None:
    path = root / "manual.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"front":', '"front": "front.md",\n  "front":', 1), encoding="utf-8")


def _two_sections(doc: dict) -> None:
    doc["parts"][0]["sections"][1]["file"] = doc["parts"][0]["sections"][0]["file"]


def _recording(name: str) -> str:
    return f"capture/gpu/tiny-recorded/{name}"


#: case → (break it, a file both must name)
CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "nan in computed.json": (lambda r: _json(r, "capture/computed.json",
                                             lambda d: _set(d, ["values", "params.qwen3-tiny", "value"], math.nan)),
                             "capture/computed.json"),
    "nan in facts.json": (lambda r: _json(r, "capture/facts.json",
                                          lambda d: _set(d, ["facts", "box.memory", "value"], math.nan)),
                          "capture/facts.json"),
    "inf in a reference": (lambda r: _json(r, "capture/references/test.json",
                                           lambda d: _set(d, ["references", "test.baseline", "value"], math.inf)),
                           "capture/references/test.json"),
    "a fraction above 1": (lambda r: _json(r, "capture/references/test.json",
                                           lambda d: _set(d, ["references", "test.baseline", "value"], 7.1)),
                           "capture/references/test.json"),
    "a negative size": (lambda r: _json(r, "capture/facts.json",
                                        lambda d: _set(d, ["facts", "box.memory", "value"], -64)),
                        "capture/facts.json"),
    "hand-edited values.json": (lambda r: _json(r, _recording("values.json"),
                                                lambda d: _set(d, ["values", "step_time", "value"], 1.0)),
                                _recording("values.json")),
    "tampered computed.json": (lambda r: _json(r, "capture/computed.json",
                                               lambda d: _set(d, ["values", "params.qwen3-tiny", "value"], 374400)),
                               "capture/computed.json"),
    "a fact that is a string": (lambda r: _json(r, "capture/facts.json",
                                                lambda d: _set(d, ["facts", "box.memory", "value"], "one hundred")),
                                "capture/facts.json"),
    "flags.json wrong field types": (lambda r: _json(r, "capture/miles/flags.json", _flags_types),
                                     "capture/miles/flags.json"),
    "flags.json invalid UTF-8": (lambda r: (r / "capture/miles/flags.json").write_bytes(
        (r / "capture/miles/flags.json").read_bytes().replace(b'"cluster"', b'"clu\xffster"', 1)),
        "capture/miles/flags.json"),
    "garbled steps.jsonl": (lambda r: (r / _recording("steps.jsonl")).write_text('{"step": 0, "seed": 1,\n'),
                            _recording("steps.jsonl")),
    "missing steps.jsonl": (lambda r: (r / _recording("steps.jsonl")).unlink(), _recording("steps.jsonl")),
    "front names a missing file": (lambda r: _manual(r, lambda d: _set(d, ["front"], "nowhere.md")), "manual.json"),
    "duplicate key in manual.json": (_dup_key, "manual.json"),
    "an empty section file": (lambda r: (r / "sections" / "1-2-empty.md").write_text(""), "manual.json"),
    "a file in two sections": (lambda r: _manual(r, _two_sections), "manual.json"),
    "a {src} line 0": (lambda r: _page(r, "See {src}`miles/utils/arguments.py:0`."), "sections/2-1-values.md"),
    "a reversed {src} range": (lambda r: _page(r, "See {src}`miles/utils/arguments.py:9-3`."),
                               "sections/2-1-values.md"),
}


def sphinx_build(root: Path) -> subprocess.CompletedProcess:
    """The real command line (-nW --keep-going), as CI runs it."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-nW", "--keep-going", "-q", str(root), str(root / "_build" / "html"),
         "-d", str(root / "_build" / "doctrees")],
        capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, timeout=300)


def check_failures(root: Path) -> list[str]:
    """--check's failures, less the run-file checks that only --check makes (the test root's run files are partial)."""
    return [f for f in run_check(root)[0].failures if not f.startswith("capture/runs/")]


def test_unbroken_root_passes_both(book_copy: Path) -> None:
    assert check_failures(book_copy) == []
    done = sphinx_build(book_copy)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("case", list(CASES))
def test_build_and_check_refuse_it(book_copy: Path, case: str) -> None:
    breaks, file = CASES[case]
    breaks(book_copy)
    failed = check_failures(book_copy)
    assert failed, f"--check accepts {case}"
    assert any(f.startswith(file) or f" {file}" in f for f in failed), failed
    cli = subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "--check", "--root", str(book_copy)],
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 1 and not any(c in cli.stdout + cli.stderr for c in CRASH), cli.stdout + cli.stderr
    done = sphinx_build(book_copy)
    out = done.stdout + done.stderr
    assert done.returncode != 0, f"the build accepts {case}"
    assert not any(c in out for c in CRASH), out
    assert file in out, out


def test_loader_skips_the_schema_only_for_bytes_found_clean(book_copy: Path) -> None:
    """The validation notes a clean file in its intake's inputs, so the model reads it as it is; new bytes are checked again."""
    from miles101.inputs import Inputs
    from miles101.intake import take_in
    from miles101.intake import validate_capture

    rel = "capture/facts.json"
    raw = (book_copy / rel).read_bytes()
    inputs = Inputs(book_copy)
    assert validate_capture(book_copy, None, inputs).problems == []
    assert rel in inputs.clean
    key = next(iter(json.loads(raw)["facts"]))
    assert ("fact", key) in take_in(book_copy).capture.values
    _json(book_copy, rel, lambda doc: doc["facts"][next(iter(doc["facts"]))].update(value="many"))
    inputs = Inputs(book_copy)
    validate_capture(book_copy, None, inputs)
    assert rel not in inputs.clean  # new bytes: the model applies the schema itself
    assert ("fact", key) not in take_in(book_copy).capture.values  # the refused record is dropped, as before
