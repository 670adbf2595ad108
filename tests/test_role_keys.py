"""One parser of reference keys: the scanner (`--check`, the drift report) reads what the build reads."""
from __future__ import annotations

import pytest

from miles101.pages import ROLE_KINDS, role_key, scan_text
from miles101.resolve import dependency

PAGE = """# A page

Held {crosscheck}`h200.qwen3-4B.held:.1f` GiB, {measured}`first-grpo.step_time:.2f`, {computed}`params.q:,.0f`,
{fact}`spark.memory`, {reference}`miles-ci.gsm8k-0.6b:.0%`, {src}`the check <miles/utils/arguments.py:143-150>`,
{src}`miles/ray/rollout.py:12`, {flag}`--colocate`, {default}`--lr`, {metric}`rollout/raw_reward`,
{issue}`radixark/miles#123`, {run-arg}`first-grpo --num-rollout`, {threshold}`reader.zero_std_watch:.0%`.
"""


def test_the_scanner_reads_the_keys_the_build_depends_on() -> None:
    refs = list(scan_text(PAGE, "sections/x.md"))
    assert {ref.kind for ref in refs} == set(ROLE_KINDS)
    for ref in refs:
        if ref.kind == "run-arg":  # the page depends on the whole run; the key names the run and the flag
            assert dependency(ref.kind, ref.text) == ("run", ref.key.partition(" ")[0])
        else:
            assert dependency(ref.kind, ref.text) == (ref.kind, ref.key), ref
    keys = {ref.kind: ref.key for ref in refs if ref.kind != "src"}
    assert keys["crosscheck"] == "h200.qwen3-4B.held"  # the format spec is not part of the key
    assert keys["reference"] == "miles-ci.gsm8k-0.6b"
    assert [r.key for r in refs if r.kind == "src"] == ["miles/utils/arguments.py", "miles/ray/rollout.py"]


@pytest.mark.parametrize(("kind", "text", "key"), [
    ("crosscheck", "h200.qwen3-4B.held:.1f", "h200.qwen3-4B.held"),
    ("measured", " first-grpo.step_time ", "first-grpo.step_time"),
    ("src", "text <miles/a.py:1-9>", "miles/a.py"),
    ("flag", "--sglang-mem-fraction-static", "--sglang-mem-fraction-static"),
    ("run-arg", "first-grpo --lr", "first-grpo --lr"),
])
def test_role_key(kind: str, text: str, key: str) -> None:
    assert role_key(kind, text) == key
