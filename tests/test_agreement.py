"""The build and `capture/run.py --check` report the same problems for the same broken pages.

Both resolve through `miles101.resolve`; this test feeds one page of broken references to each
and compares what they report, page and message.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from buildutil import build

from capture.check import page_problems
from miles101.intake import load_capture
from miles101.pages import scan_pages
from sphinx.util.console import strip_escape_sequences as strip_ansi

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

BROKEN = """# Values

The flag {flag}`--no-such-flag` and the passthrough {default}`--sglang-mem-fraction-static`.
The batch size default {default}`--rollout-batch-size`, a metric {metric}`rollout/no_such_key`.
A range backwards {src}`miles/utils/arguments.py:9-3`, past the end {src}`miles/utils/arguments.py:99`,
a file Miles lacks {src}`miles/nowhere.py`, and text {src}`the parser <miles/nowhere.py:3>`.
Values: {measured}`tiny-recorded.nope`, {computed}`params.qwen3-tiny:.2q`, {fact}`box.nothing`.
An issue {issue}`not an issue`. A public number {reference}`no.such.reference`.
A run's setting {run-arg}`tiny-pending --no-such-flag`, and one misread {run-arg}`tiny-pending steps`.

```{flag} --also-missing
Text.
```

```{listing} no-such-run
```

:::{until-recorded} no-such-run-either
Text.
:::
"""

WARNING = re.compile(r"^(?P<file>[^:\s]+\.md):(?P<line>\d+): WARNING: (?P<text>.*) \[manual\.(?P<subtype>\w+)\]$")


def test_build_and_check_agree(book_copy: Path) -> None:
    page = "sections/2-1-values.md"
    (book_copy / page).write_text(BROKEN, encoding="utf-8")

    checked = Counter((ref.file, str(problem), problem.subtype.value)
                      for ref, problem in page_problems(load_capture(book_copy), scan_pages(book_copy, [page])))

    built = build(book_copy)
    warned: Counter = Counter()
    for line in built.warnings.splitlines():
        m = WARNING.match(strip_ansi(line).replace(str(book_copy) + "/", ""))
        if m:
            warned[(m["file"], m["text"], m["subtype"])] += 1

    assert sum(checked.values()) == 17, sorted(checked)
    assert checked == warned


CAPTURE_WARNING = re.compile(r"^(?P<where>\S+): WARNING: (?P<text>.*) \[manual\.capture\]$")


def both_gates(book: Path) -> tuple[Counter, Counter, object]:
    """The manual.capture problems --check fails on, those the build warns about, and the build."""
    from capture.check import run_check

    checked = Counter(f.removesuffix(" [manual.capture]") for f in run_check(book)[0].failures
                      if f.endswith("[manual.capture]"))
    built = build(book)
    warned: Counter = Counter()
    for line in strip_ansi(built.warnings).splitlines():
        m = CAPTURE_WARNING.match(line.replace(str(book) + "/", ""))
        if m:
            warned[f"{m['where']}: {m['text']}"] += 1
    return checked, warned, built


def test_build_and_check_agree_on_capture_data(book_copy: Path) -> None:
    """Broken capture data: the build warns exactly the manual.capture problems --check fails on, and both fail."""
    from test_trust import CASES

    for case in ("nan in facts.json", "tampered computed.json", "hand-edited values.json", "a fraction above 1",
                 "flags.json wrong field types"):
        CASES[case][0](book_copy)
    checked, warned, built = both_gates(book_copy)
    assert len(checked) >= 7, sorted(checked)
    assert checked == warned
    assert built.app.statuscode != 0


def test_build_and_check_agree_on_a_crosscheck(book_copy: Path) -> None:
    """A host's cross-check that disagrees with computed.json: one rule, the same problems from both gates."""
    import json

    from test_fuzz_capture import XC, crosscheck_result

    import capture.crosscheck.verify
    import miles101.crosscheck_results

    # one implementation: the cross-check program's verify is the core's
    assert capture.crosscheck.verify.verify is miles101.crosscheck_results.verify
    doc = crosscheck_result(book_copy)
    doc["models"]["qwen3-tiny"]["runs"][1]["held_bytes"] *= 2
    doc["models"]["qwen3-tiny"]["params"] += 1
    (book_copy / XC).parent.mkdir(parents=True)
    (book_copy / XC).write_text(json.dumps(doc), encoding="utf-8")

    checked, warned, built = both_gates(book_copy)
    assert sorted(checked) == [
        f"{XC}:$.models[\"qwen3-tiny\"].params: cross-check qwen3-tiny on NVIDIA H200 (test data): framework counts "
        "187201 parameters, computed.json params.qwen3-tiny = 187200. Fix: re-run `python3 capture/run.py crosscheck` "
        "on that host, or find why _ext/miles101/derive.py and the allocator disagree.",
        f"{XC}:$.models[\"qwen3-tiny\"].runs[1].held_bytes: cross-check qwen3-tiny on NVIDIA H200 (test data) (gradient "
        "checkpointing on, 64 tokens): holds 5990400 bytes after the step, computed.json trainer_state.qwen3-tiny = "
        "0.0027894973754882812 GiB = 2995200 bytes (ratio 2.0000, tolerance 2%). Fix: re-run `python3 capture/run.py "
        "crosscheck` on that host, or find why _ext/miles101/derive.py and the allocator disagree.",
    ], sorted(checked)
    assert checked == warned
    assert built.app.statuscode != 0
