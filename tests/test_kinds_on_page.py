"""The front page's promises about numbers, held over the built book (web and EPUB).

1. Each kind of value is told apart on the page without hover: every value of a kind the kinds table
   tags wears that tag, a flag default and a run file's setting wear theirs, and the legend on the front
   page and in R.6 is the kinds table (`miles101.kinds.legend`), entry for entry.
2. No number is typed by hand: `numbercheck.typed_numbers` finds none in any page's prose (EXPECTED, empty,
   may list a finding on a page being edited, with why; a listed finding no longer found fails).
"""
from __future__ import annotations

import html as htmllib
import re
from collections import Counter
from pathlib import Path

import pytest
from numbercheck import ALLOWED, MARK, SKIP_CLASSES, Typed, prose_blocks, typed_in_block, typed_numbers

from miles101.kinds import BY_NAME, KINDS, legend


# ---- the allowlist, by class (unit) -------------------------------------------------------------------
#: For each class: digits it lets through, and typed numbers it must not.
EXAMPLES = {
    "name": (["GB10", "H200", "arm64", "sm_121", "fp32", "Qwen3-0.6B", "GSM8K", "x86_64"], ["4 GPUs", "20 steps"]),
    "hyphenated name": (["Llama-3.1-8B-Instruct", "GLM-4.5-Air", "glm4.5-106B-A12B"], ["20 to 50 steps"]),
    "product version": (["CUDA 13", "FlashAttention 3", "Python 3.11", "EPUBCheck 5.3.0", "needs Python 3",
                         "Miles v0.1"], ["Set 4 engines.", "after 20 steps"]),
    "protocol or address": (["HTTP/1.1", "127.0.0.1"], ["1.1 GiB"]),
    "book title": (["Miles 101"], ["101 steps"]),
    "section number": (["2.1", "R.3", "Part 6", "section 1.3", "Parts 1 to 3"], ["12 parts"]),
    "step or id": (["step 0", "steps 0 to 9", "rank 0", "rollout 39", "seeds 1234 to 1236"],
                   ["after 20 steps", "50 rollouts"]),
    "symbol arithmetic": (["step N−1", "rollout r+1"], ["N is 4"]),
    "arithmetic": ([f"2 × {MARK}", f"{MARK} / 2"], ["2 × 3"]),
    "arithmetic result": ([f"{MARK} {MARK} × {MARK} ≈ 34 min", f"{MARK} × {MARK} = 2.5"],
                          ["2 × 3 ≈ 6 min", f"{MARK} × 3 ≈ 6"]),
    "power": (["2³⁰ bytes", "1024³"], ["2 bytes"]),
    "date": (["2025-10-08", "2026/08"], ["2025 slime", "12/8"]),
}


def covered(text: str, name: str) -> bool:
    """Every run of digits in `text` lies inside a match of the class `name`."""
    regex = next(a.regex for a in ALLOWED if a.name == name)
    spans = [(m.start(), m.end()) for m in regex.finditer(text)]
    return all(any(s <= d.start() and d.end() <= e for s, e in spans) for d in re.finditer(r"\d+", text))


def test_the_allowlist_by_class() -> None:
    """Every allowlist entry, by class, with why; each class lets its examples through and not a typed number."""
    listing = [f"{a.name}: {a.regex.pattern}  — {a.why}" for a in ALLOWED]
    assert len({a.name for a in ALLOWED}) == len(ALLOWED) == len(listing)
    assert set(EXAMPLES) == {a.name for a in ALLOWED}, "every class has examples"
    for a in ALLOWED:
        assert len(a.why) > 30, f"{a.name}: say why its digits are not a typed number"
        good, bad = EXAMPLES[a.name]
        for text in good:
            assert covered(text, a.name), f"{a.name} should let {text!r} through"
        for text in bad:
            assert not covered(text, a.name), f"{a.name} lets the typed number in {text!r} through"
    for name, why in SKIP_CLASSES.items():
        assert why and " " in why, f"skipped class {name} says why"


def _block(inner: str) -> str:
    return prose_blocks(f"<article><p>{inner}</p></article>")[0]


def test_the_finder_catches_typed_numbers_and_passes_cited_ones() -> None:
    typed = ["The job ran out of memory after 20 to 50 steps on 4× H200.", "It holds 128 GB.",
             "Scoring a truncated answer 0 is a choice."]
    for text in typed:
        assert typed_in_block(_block(text)), text
    fine = ['It holds <a class="m101-value m101-fact" href="#m101-v-0" title="read 2026-12-02">'
            '<span class="m101-ref-tag">fact</span> 128 GB</a>.',
            'Set <code class="m101-flag">--actor-num-gpus-per-node</code> to <code>1</code> on a GB10 (see 2.1).',
            'Miles reads it at <a class="reference external m101-src" href="#">arguments.py:108</a>, step 0.',
            'Twice that: 2 × <a class="m101-value m101-computed" href="#m101-v-1" title="a formula">4 bytes</a>.']
    for text in fine:
        assert not typed_in_block(_block(text)), text


# ---- known findings (none) -------------------------------------------------------------------------------
#: page → (digits, context) of a typed number known on a page being edited, each page with a comment saying
#: why it is not fixed yet. Empty since issue 47's round: any finding fails the test, and so does an entry
#: no longer found (stale), so the list cannot outlive its findings.
EXPECTED: dict[str, list[tuple[str, str]]] = {}



def _core(context: str) -> str:
    return re.sub(r"[\s…]+", " ", context).strip()


def _unexpected(found: dict[str, list[Typed]]) -> tuple[list[str], list[str]]:
    """(findings not in EXPECTED, EXPECTED entries not found) over the pages read. An entry matches a finding
    of the same digits whose context holds the entry's, or is held in it (the EPUB's context may be shorter)."""
    new, stale = [], []
    for page, hits in found.items():
        left = list(EXPECTED.get(page, []))
        for hit in hits:
            match = next((e for e in left if e[0] == hit.digits and (_core(e[1]) in _core(hit.context)
                                                                     or _core(hit.context) in _core(e[1]))), None)
            if match is None:
                new.append(f"{page}: {hit}")
            else:
                left.remove(match)
        stale += [f"{page}: {d!r} in “{c}”" for d, c in left]
    return sorted(set(new)), stale


def test_a_listed_finding_that_is_gone_fails(monkeypatch) -> None:
    """_unexpected reports an unlisted finding as new and a listed one no longer found as stale."""
    hit = Typed("20", "on 20 prompts × 8 samples")
    monkeypatch.setitem(globals(), "EXPECTED", {"sections/x": [("20", "20 prompts")], "sections/y": [("8", "8 samples")]})
    new, stale = _unexpected({"sections/x": [hit, Typed("7", "the 7B row")], "sections/y": []})
    assert new == ["sections/x: '7' in “the 7B row”"]
    assert stale == ["sections/y: '8' in “8 samples”"]


# ---- over the built book --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(manual_textual) -> Path:
    """The session's text-diagram HTML build of the manual (tests/conftest.py), shared with test_built_prose."""
    assert manual_textual.app.statuscode == 0, manual_textual.warnings[:2000]
    return Path(manual_textual.app.outdir)


@pytest.fixture(scope="module")
def epub(manual_epub) -> Path:
    """The session's EPUB of the manual (tests/conftest.py: as Read the Docs builds it), shared with test_editions."""
    assert manual_epub.app.statuscode == 0, manual_epub.warnings[:2000]
    return Path(manual_epub.app.outdir)


def _pages(out: Path, suffix: str) -> dict[str, str]:
    files = [out / f"front{suffix}", *sorted((out / "sections").glob(f"*{suffix}"))]
    return {p.relative_to(out).with_suffix("").as_posix(): p.read_text(encoding="utf-8") for p in files}


@pytest.mark.build
def test_no_number_is_typed_on_the_web(site: Path) -> None:
    pages = _pages(site, ".html")
    assert len(pages) > 30
    new, stale = _unexpected({page: typed_numbers(text) for page, text in pages.items()})
    assert not new, ("a number typed by hand: cite it with a role ({fact}, {computed}, {reference}, ...), write it "
                     "as code if it is code's, or name it (AUTHORING.md):\n" + "\n".join(new))
    assert not stale, "fixed: remove these from EXPECTED in tests/test_kinds_on_page.py:\n" + "\n".join(stale)


@pytest.mark.build
def test_no_number_is_typed_in_the_epub(epub: Path) -> None:
    pages = _pages(epub, ".xhtml")
    assert len(pages) > 30
    new, _ = _unexpected({page: typed_numbers(text, whole=True) for page, text in pages.items()})
    assert not new, "a number typed by hand (EPUB):\n" + "\n".join(new)


def _text(fragment: str) -> str:
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", fragment))
    return re.sub(r"\s+", " ", text.replace("’", "'").replace("¶", "")).strip()


def front_legend(page: str) -> list[tuple[str, str | None, str]]:
    """(term, mark, meaning) of each entry of the front page's legend, as built."""
    out = []
    for item in re.findall(r'<li class="m101-kinds-legend-entry"><p>(.*?)</p>\s*</li>', page, re.S):
        mark_html, _, rest = item.partition("<strong>")
        term, _, meaning = rest.partition("</strong>")
        out.append((_text(term), _text(mark_html) or None, _text(meaning).removeprefix(": ")))
    return out


def glossary_legend(page: str) -> list[tuple[str, str | None, str]]:
    """(term, mark, meaning) of each glossary entry R.6 generates from the table, as built."""
    box = page.partition('m101-kinds-legend-glossary')[2].partition("</dl>")[0]
    out = []
    for term, definition in re.findall(r"<dt[^>]*>(.*?)</dt>\s*<dd>(.*?)</dd>", box, re.S):
        marks = re.match(r'\s*<p>((?:<span class="m101-(?:pending|legend-mark|[a-z-]+ m101-legend-mark)[^"]*">.*?</span>\s*</span>\s*)?)',
                         definition, re.S)
        mark = _text(marks[1]) if marks else ""
        out.append((_text(term), mark or None, _text(definition).removeprefix(mark).strip()))
    return out


def _table() -> list[tuple[str, str | None, str]]:
    return [(e.term, e.mark, e.meaning) for e in legend()]


def test_the_legend_covers_every_kind_a_page_cites() -> None:
    """Every value kind and every cited setting is in the legend, with a mark unless it is a GB10 measurement."""
    in_legend = {e.kind for e in legend()}
    assert {k.name for k in KINDS if k.value or k.tag} <= in_legend
    assert [e.term for e in legend() if e.mark is None] == ["measured"]
    assert len({e.mark for e in legend()}) == len(legend()), "two kinds share a mark"


@pytest.mark.build
@pytest.mark.parametrize("edition", ["web", "epub"])
def test_the_built_legends_are_the_kinds_table(edition: str, request) -> None:
    out = request.getfixturevalue("site" if edition == "web" else "epub")
    pages = _pages(out, ".html" if edition == "web" else ".xhtml")
    assert front_legend(pages["front"]) == _table()
    assert glossary_legend(pages["sections/r-6-glossary"]) == _table()


@pytest.mark.build
def test_every_value_wears_its_kinds_mark(site: Path) -> None:
    """Without hover: a value of a tagged kind shows its tag; a flag default and a run file's setting theirs."""
    wrong, seen = [], Counter()
    for page, text in _pages(site, ".html").items():
        for kind, body in re.findall(r'<a class="m101-value m101-([a-z]+)[^"]*"[^>]*>(.*?)</a>',
                                     text, re.S):
            seen[kind] += 1
            tag = BY_NAME[kind].tag
            mark = re.match(r'<span class="m101-ref-tag">(.*?)</span>', body, re.S)
            shown = _text(mark.group(1)) if mark else ""
            if (tag or "") != shown:
                wrong.append(f"{page}: a {kind} value shows {shown!r} before its number, not {tag!r}")
        for kind, cls in (("default", "m101-default"), ("run-arg", "m101-run-arg")):
            for before in re.findall(r'(.{0,160})<(?:code|span) class="' + cls + r'\b', text, re.S):
                seen[kind] += 1
                if f'm101-mark-{kind}">{BY_NAME[kind].tag}</span>' not in before:
                    wrong.append(f"{page}: a {kind} without its mark")
    assert not wrong, "\n".join(wrong[:20])
    assert {"computed", "fact", "reference", "threshold", "default", "run-arg"} <= set(seen), seen
