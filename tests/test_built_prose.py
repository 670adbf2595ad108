"""The built pages read as one story: steps counted from 0 (Miles's rollout ids), and no unit said twice.

A cited value renders its own unit (AUTHORING.md), so a sentence that names the unit again beside
it prints it twice ("compute capability 12.1 compute capability"). And Miles numbers rollouts from
0, as read_run.py prints them, so no page may count the first ten steps from 1.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from buildutil import ROOT

from miles101.runcheck import step_range

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

VOID = {"area", "base", "br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"}
#: Elements whose text is one unit of reading: a window never crosses from one to the next.
BLOCKS = {"p", "li", "td", "th", "div", "dt", "dd", "tr", "table", "section", "caption", "figcaption",
          "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}
#: A value's tooltip (its title, and the page's one tip the script makes) and its "public ref" tag are not running
#: text; nor is its inline source, "(…)" after the number of a tagged value (`values.visit_value_html`).
NOT_PROSE = {"m101-tip", "m101-ref-tag"}
INLINE_SOURCE = re.compile(r"\s\([^()]*\)$")
MARK = "\x00"  # a cited value's shown text is kept as one token, between two marks


class _Prose(HTMLParser):
    """The text blocks of a page's <article>, each cited value one token; code, tooltips and tags left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None]] = []
        self.blocks: list[list[str]] = [[]]
        self.article = self.skip = 0
        self.shown: list[str] | None = None
        self.tagged = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        mode = ("article" if tag == "article" else "skip" if classes & NOT_PROSE or tag in ("pre", "script", "style")
                else "shown" if classes & {"m101-value", "m101-shown"} else None)
        self.stack.append((tag, mode))
        if mode == "article":
            self.article += 1
        elif mode == "skip":
            self.skip += 1
        elif mode == "shown":
            self.shown, self.tagged = [], False
        if "m101-ref-tag" in classes:
            self.tagged = True
        if tag in BLOCKS:
            self.blocks.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while self.stack:
            t, mode = self.stack.pop()
            if mode == "article":
                self.article -= 1
            elif mode == "skip":
                self.skip -= 1
            elif mode == "shown" and self.shown is not None:
                shown = "".join(self.shown).strip()
                if self.tagged:
                    shown = INLINE_SOURCE.sub("", shown)
                self.blocks[-1].append(f" {MARK}{shown}{MARK} ")
                self.shown = None
            if t in BLOCKS:
                self.blocks.append([])
            if t == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self.article or self.skip:
            return
        (self.shown if self.shown is not None else self.blocks[-1]).append(data)


def prose_blocks(html: str) -> list[str]:
    """The page's blocks of running text, whitespace collapsed; a cited value reads \\x00shown\\x00."""
    parser = _Prose()
    parser.feed(html)
    parser.close()
    return [t for t in (re.sub(r"\s+", " ", "".join(b)).strip() for b in parser.blocks) if t]


# ---- units said twice ---------------------------------------------------------------------------------
STOP = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "per", "the", "to"}
TOKEN = re.compile(MARK + "[^" + MARK + "]*" + MARK + r"|[\w%°/-]+")
WINDOW = 8  # words either side of a value that may not repeat its unit


def _has(words: list[str], phrase: list[str]) -> bool:
    return any(words[j:j + len(phrase)] == phrase for j in range(len(words) - len(phrase) + 1))


def unit_repeats(block: str) -> list[str]:
    """Each value whose unit (or a telling part of it) the sentence says again right beside it.

    A part of two or more words may not recur within WINDOW words; a one-word unit may not recur
    within three. A part must hold a word that is not a stop word. A unit that names its denominator ("of node
    memory") may not be followed by another ("of the pool").
    """
    found = []
    for sentence in re.split(r"[.;:!?](?=\s|$)", block):
        tokens = TOKEN.findall(sentence)
        words = ["#" if t.startswith(MARK) else t.lower() for t in tokens]
        for i, t in enumerate(tokens):
            if not t.startswith(MARK):
                continue
            shown = t.strip(MARK).split()
            first_number = next((k for k, w in enumerate(shown) if re.search(r"\d", w)), None)
            if first_number is None:
                continue  # pending: no unit shown
            unit = [w.lower() for w in shown[first_number + 1:]]
            after, before = words[i + 1:i + 1 + WINDOW], words[max(0, i - WINDOW):i]
            hit = None
            for n in range(len(unit), 0 if len(unit) == 1 else 1, -1):
                for s in range(len(unit) - n + 1):
                    part = unit[s:s + n]
                    if all(w in STOP or len(w) < 3 for w in part):
                        continue
                    near = WINDOW if n > 1 else 3
                    if _has(after[:near], part) or _has(before[len(before) - near:], part):
                        hit = " ".join(part)
                        break
                if hit:
                    break
            if hit is None and "of" in unit and after[:1] == ["of"]:
                hit = "of … of"
            if hit:
                found.append(f"{' '.join(shown)!r} then {hit!r}: {sentence.replace(MARK, '').strip()[:200]}")
    return found


# ---- steps counted from 1 -----------------------------------------------------------------------------
COUNT_FROM_ONE = re.compile(r"\b(?:counts?|counted|counting|numbers?|numbered)\s+(?:\w+\s+)?(?:from|at)\s+(?:1|one)\b",
                            re.I)
ONE_TO_TEN = re.compile(r"\bsteps\s+1\s*(?:to|through|-|–)\s*10\b", re.I)
STEP_IS_ROLLOUT = re.compile(r"\bstep\s+(\d+)\s+is\s+(?:\w+'s\s+|\w+’s\s+)?rollout\s+(\d+)", re.I)


def one_based_steps(block: str) -> list[str]:
    """Language that counts steps from 1, against Miles's rollout ids (0 is the first step)."""
    text = block.replace(MARK, "")
    says = []
    steps = set(re.findall(r"\bsteps?\s+(\d+)\b", text, re.I))
    if "step" in text.lower() and COUNT_FROM_ONE.search(text):
        says.append(f"counts from 1: {COUNT_FROM_ONE.search(text)[0]!r}")
    if ONE_TO_TEN.search(text):
        says.append(f"the first ten as {ONE_TO_TEN.search(text)[0]!r}")
    if {"1", "10"} <= steps and "0" not in steps:
        says.append("step 1 and step 10 with no step 0 (the first ten counted from 1)")
    if "10" in steps and re.search(r"\bfirst ten\b", text, re.I):
        says.append("step 10 beside 'the first ten' (the first ten steps are 0 to 9)")
    says += [f"{m[0]!r} maps two numberings" for m in STEP_IS_ROLLOUT.finditer(text) if m[1] != m[2]]
    return [f"{s}: {text[:200]}" for s in says]


# ---- the checkers can fail ----------------------------------------------------------------------------
def _block(html: str) -> str:
    return prose_blocks(f"<article>{html}</article>")[0]


def _value(shown: str) -> str:
    return (f'<a class="m101-value" href="#m101-v-0" title="tip of groups"><span class="m101-ref-tag">public ref</span> '
            f'{shown} (a source)</a>')


def test_the_unit_check_finds_a_unit_said_twice() -> None:
    bad = [f"The GB10 has compute capability {_value('12.1 compute capability')}, so SGLang picks FlashInfer.",
           f"The sum stays under {_value('0.95 of node memory')} of the pool.",
           f"Keep it below {_value('0.5 fraction of groups')} (median) of groups.",
           f"A step over {_value('3 ratio to the median step time')} times the median."]
    for html in bad:
        assert unit_repeats(_block(html)), html
    good = [f"The GB10 has {_value('12.1 compute capability')}, so SGLang picks FlashInfer.",
            f"The sum stays under {_value('0.95 of node memory')}.",
            f"A step takes {_value('12 s')}, the next {_value('13 s')}.",
            f"A later step over {_value('3 times the median step time')}.",
            f"Keep it {_value('pending')} of groups.",
            f"All-zero: {_value('3 groups a step')}. Groups where every sample was right: {_value('2 groups a step')}."]
    for html in good:
        assert not unit_repeats(_block(html)), html


def test_the_step_check_finds_steps_counted_from_1() -> None:
    bad = ["Steps below count from 1, as the run reader does; step 1 is Miles's rollout 0.",
           "Reward at step 1 and at step 10.", "Read steps 1 to 10.", "The first ten steps end at step 10."]
    for text in bad:
        assert one_based_steps(_block(f"<p>{text}</p>")), text
    good = ["Steps count from 0: the first ten are steps 0 to 9.", "Compare step 0 with step 1.",
            "Reward at step 0 and at step 9.", "From step 1 on, used_GB should sit below the line."]
    for text in good:
        assert not one_based_steps(_block(f"<p>{text}</p>")), text


def test_value_names_number_steps_as_miles_does() -> None:
    """A run file's value named `*_stepN` reads Miles's rollout N (its first or last step is N)."""
    wrong = []
    for path in sorted((ROOT / "capture" / "runs").glob("*.yaml")):
        run = yaml.safe_load(path.read_text(encoding="utf-8"))
        for name, spec in (run.get("values") or {}).items():
            m = re.search(r"_step(\d+)$", name)
            if not m or spec["statistic"] not in ("first", "last"):
                continue
            lo, hi = step_range(spec.get("steps", "0-"), run["steps"])
            if (lo if spec["statistic"] == "first" else hi) != int(m[1]):
                wrong.append(f"{path.name}: {name} reads step {lo if spec['statistic'] == 'first' else hi}")
    assert not wrong, wrong


# ---- over the built manual ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def manual_html(manual_textual) -> dict[str, list[str]]:
    """The prose of each page of the session's text-diagram build of the manual (tests/conftest.py)."""
    built = manual_textual
    assert built.app.statuscode == 0, built.warnings[:2000]
    out = Path(built.app.outdir)
    pages = sorted(out.glob("sections/*.html")) + [out / "front.html"]
    return {p.relative_to(out).as_posix(): prose_blocks(p.read_text(encoding="utf-8")) for p in pages}


def test_no_unit_is_said_twice(manual_html: dict[str, list[str]]) -> None:
    found = [f"{page}: {r}" for page, blocks in manual_html.items() for b in blocks for r in unit_repeats(b)]
    assert not found, "the role renders the unit; drop it from the sentence (or the data):\n" + "\n".join(found)


def test_steps_count_from_0_on_every_page(manual_html: dict[str, list[str]]) -> None:
    assert len(manual_html) > 30
    found = [f"{page}: {r}" for page, blocks in manual_html.items() for b in blocks for r in one_based_steps(b)]
    assert not found, "Miles's rollout ids count from 0; so does the book:\n" + "\n".join(found)
