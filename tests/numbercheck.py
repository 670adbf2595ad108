"""The front page's promise made mechanical: no number typed by hand in a page's prose.

`typed_numbers(html)` reads a built page (web or EPUB) and returns each run of digits in its running
text that is none of what may hold digits: a cited value (a value node, its tag and its tip), a flag,
a flag default or a run file's setting, code, a citation (a link to Miles's source, an issue or a
thread), a figure's drawing, a block the build generates from data (the page's list of values, the
pin box, a pending box), or a run of digits matched by one of ALLOWED's classes: a name that holds
digits, a section or step number, a version, or arithmetic whose operands are shown beside it. Each
class says why its digits are not a typed number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"}
BLOCKS = {"p", "li", "td", "th", "div", "dt", "dd", "tr", "table", "section", "caption", "figcaption",
          "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "ul", "ol", "dl", "figure", "aside"}
#: Elements whose text is never running prose: code, drawings, scripts.
SKIP_TAGS = {"code", "pre", "kbd", "samp", "tt", "svg", "script", "style", "math", "textarea", "select"}
#: Classes whose element is a cited thing or a block generated from data, each with why.
SKIP_CLASSES = {
    "m101-value": "a cited value: the number, its tag, its inline source and its tooltip come from the capture",
    "m101-ref-tag": "a kind's mark (a word, never a number)",
    "m101-value-cell": "a cell of the cross-check table: a cited value whose source the table's heading gives once",
    "m101-run-arg": "a run file's setting ({run-arg}), read from the run file",
    "m101-src": "a citation: a link to a line of Miles's source",
    "m101-issue": "a citation: a link to an issue thread",
    "m101-values-list": "the page's list of values, generated from the capture",
    "m101-pin": "the pin box: the commit and date the capture read, generated",
    "m101-pin-meaning": "the pin box's note, generated with it",
    "m101-pin-mismatch": "the pin box's mismatch note, generated with it",
    "m101-checked": "the facts' read dates, generated from the fact-check record",
    "m101-edition": "the edition line of the front page, generated from manual.json",
    "m101-figure": "a figure: its drawing and its labels (mermaid source)",
    "m101-pending-box": "a pending box, generated from the run file",
    "m101-crosscheck-intro": "the cross-check table's heading, generated from the results file",
    "m101-crosscheck-table": "the cross-check table, every cell from the results file and computed.json",
    "m101-flag-block": "a flag's entry: name, default, type, file and line, all extracted",
    "m101-flag-facts": "a flag's extracted facts",
    "m101-generated": "a Reference table generated from the capture (R.1 to R.5): every cell is extracted data",
    "external": "a citation: a link to a source outside the book (a commit, a thread, a page), its text the source's",
    "section-number": "a section number Sphinx prints before a title",
    "headerlink": "the pilcrow of a heading link",
    "m101-doctor-edition": "the log doctor's note in an edition, generated",
}
MARK = "\x00"  # where a skipped element stood: arithmetic may take it as an operand


@dataclass(frozen=True)
class Allowed:
    """A class of digit runs that are not typed numbers: its name, its regex and why."""

    name: str
    regex: re.Pattern[str]
    why: str


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


#: Every allowlist entry, by class. A run of digits inside a match of any of these is not a typed number.
ALLOWED: tuple[Allowed, ...] = (
    Allowed("name", _rx(r"\b[A-Za-z][A-Za-z_]*\d[\w.]*(?:[-/][\w.]+)*"),
            "a name that holds digits, letters first (GB10, H200, arm64, sm_121, fp32, Qwen3-0.6B, GSM8K, "
            "x86_64): an identifier, not a quantity"),
    Allowed("hyphenated name", _rx(r"\b[A-Za-z][\w.]*(?:-[\w.]+)*-\d[\w.]*(?:-[\w.]+)*"),
            "a model or product name joined by hyphens (Llama-3.1-8B, GLM-4.5-Air, DeepSeek-V3): an identifier"),
    Allowed("product version", _rx(r"\b(?:[A-Z]{2,}[A-Za-z]*|[A-Z][a-z]+[A-Z]\w*|[A-Z][a-z]+)\s+v?\d+(?:\.\d+)+\b"
                                   r"|\b(?:[A-Z]{2,}[A-Za-z]*|[A-Z][a-z]+[A-Z]\w*)\s+\d+(?:\s*(?:and|or|,)\s*\d+)*\b"
                                   r"|(?<=[a-z,(] )[A-Z][a-z]+\s+\d+\b|\bv\d+(?:\.\d+)*\b"),
            "a version after its product's name: dotted after any capitalised name (Python 3.11), whole after an "
            "acronym or a CamelCase name (CUDA 13, FlashAttention 3) or a capitalised name inside a sentence "
            "(Python 3, Nemotron 3), or written v0.1: part of the name"),
    Allowed("protocol or address", _rx(r"\b[A-Z]+/\d+(?:\.\d+)?\b|\b\d{1,3}(?:\.\d{1,3}){3}\b"),
            "a protocol's version or a network address (HTTP/1.1, 127.0.0.1): a name, not a quantity"),
    Allowed("book title", _rx(r"\bMiles 101\b"), "this book's own title (Miles 101): a name, not a quantity"),
    Allowed("section number", _rx(r"\b(?:[1-9]|R)\.\d+\b"
                                  r"|\b(?:[Pp]arts?|[Ss]ections?|[Cc]hapters?)\s+(?:[1-9]|R)(?:\.\d+)?(?:\s*(?:,|and|or|to|–)\s*\d+(?:\.\d+)?)*\b"),
            "a section of this book (2.1, R.3, Part 6): a place, not a quantity"),
    Allowed("step or id", _rx(r"\b(?:[Ss]teps?|[Rr]ollouts?|[Ee]pochs?|[Ll]ines?|[Rr]anks?|[Ee]ngines?|[Vv]ersions?|"
                              r"[Pp]ull requests?|[Ss]eeds?)\s+\d+(?:\s*(?:,|and|or|to|through|–|-)\s*\d+)*\b"),
            "a step, rollout, line, rank, engine, version, seed or pull request named by its id (step 0, rank 0, "
            "seeds 1234 to 1236): a place or a name, counted as Miles counts it, not a quantity"),
    Allowed("symbol arithmetic", _rx(r"\b[A-Za-z]\s*[+−-]\s*\d+\b"),
            "an offset of one of the text's own symbols (step N−1, rollout r+1): arithmetic of the text"),
    Allowed("arithmetic", _rx(r"\d+(?:\.\d+)?\s*[×÷*/]\s*" + MARK + "|" + MARK + r"\s*[×÷*/+−=]\s*\d+(?:\.\d+)?\b"),
            "arithmetic of the text: a factor or divisor whose other operand is a cited value beside it"),
    Allowed("arithmetic result",
            _rx("(?:" + MARK + r"\s*)+[×÷*/+−]\s*(?:" + MARK + r"\s*)+[≈=]\s*\d+(?:\.\d+)?\b"),
            "the result of arithmetic of the text whose operands are both cited beside it "
            "({run-arg} × {reference} ≈ 34 min): the reader can redo the sum from the values shown, and both gates "
            "recompute a time product (miles101.pagenumbers)"),
    Allowed("power", _rx(r"\b\d+(?=[⁰¹²³⁴⁵⁶⁷⁸⁹])"),
            "a unit written as a power (GiB: 2³⁰ bytes, 1024³): the unit's definition, not a measurement"),
    Allowed("date", _rx(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{4}/\d{2}\b"),
            "a calendar date (2025-10-08, 2026/08) of a cited commit, release or post: when, not how much"),
)

DIGITS = re.compile(r"\d+")


class _Prose(HTMLParser):
    """The blocks of running text of a page's main content; skipped elements leave MARK."""

    def __init__(self, skip_classes: frozenset[str] = frozenset()) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_classes = frozenset(SKIP_CLASSES) | skip_classes
        self.stack: list[tuple[str, bool, bool]] = []
        self.blocks: list[list[str]] = [[]]
        self.main = self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        main = tag == "article"
        skip = tag in SKIP_TAGS or bool(classes & self.skip_classes) or (a.get("id") == "values-on-this-page")
        self.stack.append((tag, main, skip))
        self.main += main
        self.skip += skip
        if tag in BLOCKS:
            self.blocks.append([])
        if skip and self.main and self.skip == 1:
            self.blocks[-1].append(f" {MARK} ")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while self.stack:
            t, main, skip = self.stack.pop()
            self.main -= main
            self.skip -= skip
            if t in BLOCKS:
                self.blocks.append([])
            if t == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.main and not self.skip:
            self.blocks[-1].append(data)


def prose_blocks(html: str, *, whole: bool = False, skip: frozenset[str] = frozenset()) -> list[str]:
    """The page's blocks of running text (inside <article>, or the whole page when `whole`), less the
    elements of SKIP_CLASSES and of `skip`."""
    parser = _Prose(skip)
    if whole:
        parser.main = 1
    parser.feed(html)
    parser.close()
    return [t for t in (re.sub(r"\s+", " ", "".join(b)).strip() for b in parser.blocks) if t.strip(MARK + " ")]


def allowed_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) of every allowlisted match in a block."""
    return [(m.start(), m.end(), a.name) for a in ALLOWED for m in a.regex.finditer(text)]


@dataclass(frozen=True)
class Typed:
    """A run of digits typed in prose, and the words around it (where a skipped element stood: …)."""

    digits: str
    context: str

    def __str__(self) -> str:
        return f"{self.digits!r} in “{self.context}”"


def typed_in_block(text: str) -> list[Typed]:
    """Each run of digits in one block of prose that no allowlist class covers, with its context."""
    spans = allowed_spans(text)
    found = []
    for m in DIGITS.finditer(text):
        if any(s <= m.start() and m.end() <= e for s, e, _ in spans):
            continue
        context = text[max(0, m.start() - 24):m.end() + 24].replace(MARK, "…").strip()
        found.append(Typed(m.group(), context))
    return found


def typed_numbers(html: str, *, whole: bool = False, skip: frozenset[str] = frozenset()) -> list[Typed]:
    """Each typed number of a built page, with its context."""
    return [hit for block in prose_blocks(html, whole=whole, skip=skip) for hit in typed_in_block(block)]
