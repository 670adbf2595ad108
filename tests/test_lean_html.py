"""Lean HTML (miles101.sphinx_ext.lean_html): fewer elements, the same text."""
from __future__ import annotations

import re
from html import unescape

import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer

from miles101.sphinx_ext.lean_html import lean_formatter

pytestmark = pytest.mark.unit

CODE = 'docker run --rm \\\n  --gpus all  "$IMAGE" \\\n  python3 train.py --num-rollout 48  # a comment\n'


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_highlighted_whitespace_is_text_and_the_code_reads_the_same() -> None:
    plain = highlight(CODE, BashLexer(), HtmlFormatter())
    lean = highlight(CODE, BashLexer(), lean_formatter(HtmlFormatter)())
    assert 'class="w"' in plain and 'class="w"' not in lean
    assert _text(lean) == _text(plain) and _text(lean).startswith(CODE)
    assert lean.count("<span") < plain.count("<span")
    # every other token keeps its class
    classes = lambda h: sorted(set(re.findall(r'class="(\w+)"', h)) - {"w"})  # noqa: E731
    assert classes(lean) == classes(plain)
