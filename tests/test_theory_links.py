"""The front page's "Theory to know first" lines link the glossary entry of what each lesson teaches (issue 47):
each topic of a lesson's title that names a glossary term becomes a link to R.6, and a line that names none warns."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from buildutil import build

from miles101.sphinx_ext.theory import glossary_term

GLOSSARY = "# Empty section\n\n```{glossary}\ntest lesson\n  What the test lesson teaches.\n```\n"


def with_theory(root: Path, glossary: str) -> None:
    """The test root's front page with the theory lines, and a glossary in section 1.2."""
    front = root / "front.md"
    front.write_text(front.read_text() + "\n```{book-related}\n```\n")
    (root / "sections" / "1-2-empty.md").write_text(glossary)


@pytest.mark.unit
def test_a_topic_names_a_term_by_its_words_plural_or_ing_form() -> None:
    terms = {"policy gradient": "policy gradient", "reward model": "reward model", "reinforce": "REINFORCE"}
    assert glossary_term("Policy gradients", terms) == "policy gradient"
    assert glossary_term("Reward modeling", terms) == "reward model"
    assert glossary_term("REINFORCE", terms) == "REINFORCE"
    assert glossary_term("Reinforcement learning", terms) is None  # a longer word is not the term
    assert glossary_term("Value models", terms) is None


@pytest.mark.build
def test_each_theory_line_links_its_glossary_term(book_copy: Path) -> None:
    with_theory(book_copy, GLOSSARY)
    built = build(book_copy)
    assert built.warnings == "", built.warnings
    html = re.sub(r"\s+", " ", built.html("front"))
    assert re.search(r'<li><p><strong><a class="[^"]*reference internal" href="sections/1-2-empty.html#term-test-lesson">'
                     r"<span>Test lesson</span></a></strong> — Basics</p></li>", html), html[html.find("Theory"):][:600]


@pytest.mark.build
def test_a_theory_line_that_names_no_term_warns(book_copy: Path) -> None:
    with_theory(book_copy, GLOSSARY.replace("test lesson", "other lesson"))
    book = json.loads((book_copy / "manual.json").read_text())
    assert book["related"] == ["phases/01-basics/02-test-lesson"]
    [message] = build(book_copy).messages("manual.book")
    assert message.startswith("the lesson 'phases/01-basics/02-test-lesson' under \"Theory to know first\" names no "
                              "glossary term") and "sections/r-6-glossary.md" in message
