"""Every documented snippet builds: one per role example (the kinds table's `examples`, AUTHORING.md's table of
roles) and one per directive (the markup registry's `example`, bare when it has none), each written from its
row onto one page of the test book over the manual's real capture, all in ONE build (sphinx-design's
tests/test_snippets.py is the model). A snippet whose build warns, or that reaches the page unrendered, fails
with its name."""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from buildutil import ROOT, Built, build
from miles101.kinds import KINDS
from miles101.registry import DIRECTIVES

pytestmark = pytest.mark.build

PAGE = "sections/1-1-first.md"


@dataclass(frozen=True)
class Snippet:
    """One snippet: its name (the test id), the Markdown written from its row, and the text it must not show."""

    name: str
    markdown: str
    raw: str  # the markup as typed: seen in the HTML, the snippet was not rendered


def snippets() -> list[Snippet]:
    """A snippet per role example and per directive, in the tables' order."""
    out = [Snippet(f"{{{kind.name}}}`{example.text}`", f"{{{kind.name}}}`{example.text}`", f"{{{kind.name}}}`")
           for kind in KINDS for example in kind.examples]
    for name, row in DIRECTIVES.items():
        head, _, body = row.example.partition("\n")
        out.append(Snippet(f"{{{name}}}", f"````{{{name}}}{head}\n{body}\n````".replace("\n\n````", "\n````"),
                           f"{{{name}}}"))
    return out


SNIPPETS = snippets()


def page_text() -> tuple[str, dict[str, range]]:
    """The page of every snippet, each under its own heading, and the lines each snippet occupies."""
    lines = ["# Snippets", ""]
    where: dict[str, range] = {}
    for i, snippet in enumerate(SNIPPETS):
        lines += [f"## Snippet {i}", ""]
        start = len(lines) + 1
        lines += [*snippet.markdown.splitlines(), ""]
        where[snippet.name] = range(start, len(lines) + 1)
    return "\n".join(lines) + "\n", where


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, rootdir: Path) -> tuple[Built, dict[str, range]]:
    """The test book over the real capture, its first section holding every snippet, built once."""
    book = tmp_path_factory.mktemp("snippets") / "book"
    shutil.copytree(rootdir / "test-book", book)
    shutil.rmtree(book / "capture")
    shutil.copytree(ROOT / "capture", book / "capture", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "_ext" / "miles101" / "tools", book / "_ext" / "miles101" / "tools")  # {gb10-build} reads it
    text, where = page_text()
    (book / PAGE).write_text(text, encoding="utf-8")
    (book / "sections" / "2-1-values.md").write_text("# Values\n", encoding="utf-8")  # its keys are the test data's
    front = (book / "front.md").read_text(encoding="utf-8")  # the book has one plate: the snippet's
    plate = front.index("```{book-plate}")
    (book / "front.md").write_text(front[:plate] + front[front.index("```\n\n", plate + 3) + 5:], encoding="utf-8")
    return build(book), where


def test_the_page_holds_every_row() -> None:
    """A role with no example, or a directive the page lacks, would go untested."""
    assert all(kind.examples for kind in KINDS if kind.role), "a role without an example row in miles101.kinds"
    assert {s.name for s in SNIPPETS} >= {f"{{{name}}}" for name in DIRECTIVES}


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_snippet_builds(built: tuple[Built, dict[str, range]], snippet: Snippet) -> None:
    result, where = built
    lines = where[snippet.name]
    warned = [w for w in result.warned
              if w.location.partition(PAGE + ":")[2].split(":")[0].isdigit()
              and int(w.location.partition(PAGE + ":")[2].split(":")[0]) in lines]
    assert not warned, f"{snippet.name} warns: {warned}"
    html = result.html(PAGE.removesuffix(".md"))
    section = html.split(f'id="snippet-{SNIPPETS.index(snippet)}"', 1)[1].split('<section id="snippet-', 1)[0]
    assert snippet.raw not in section, f"{snippet.name} reached the page as typed"
