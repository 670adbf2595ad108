"""What a built page carries for assistive technology, and the book's link to its own repository.

Built from tests/roots/test-book: toctree captions with a heading level, named asides, each diagram
(its inline drawing, or its source where it has none) an image named by its title and caption, stackable tables with cell labels, and the repository URL
(m101_repository) in Furo's footer, the pending boxes and R.3, or nowhere when it is not https.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from buildutil import build

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

URL = "https://example.org/owner/book"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_captions_asides_and_diagram_names(book_copy: Path) -> None:
    html = build(book_copy, m101_repository="").html("sections/1-1-first")
    assert 'role="heading">' not in html  # every caption heading carries its level
    assert html.count('<p class="caption" role="heading" aria-level="2">') == 3
    assert '<aside class="sidebar-drawer" aria-label="Site navigation">' in html
    assert re.search(r'<aside class="toc-drawer[^"]*" aria-label="On this page">', html)
    # The test book keeps no drawings: the diagram shows its source, named as the image it stands for.
    assert '<pre class="m101-diagram-source" role="img" aria-label="The test loop. What to notice: the arrow."' in html


def test_a_drawing_is_one_image_named_by_its_figure(book_copy: Path) -> None:
    """The inline drawing is one image (role=img) named by the figure's title and caption, in plain text."""
    from buildutil import add_drawings, diagram_sources

    add_drawings(book_copy, diagram_sources(book_copy))
    built = build(book_copy, m101_repository="")
    assert built.warnings == ""
    html = built.html("sections/1-1-first")
    assert '<svg role="img" aria-label="The test loop. What to notice: the arrow." id="m101-fig-test-loop-my-svg"' in html
    svg = html.split('<div class="m101-drawing">', 1)[1].split("</svg>", 1)[0]
    assert svg.count('role="') == 1  # mermaid's own roles are gone: one image, not a document of parts


def test_stackable_table_gets_cell_labels(book_copy: Path) -> None:
    page = book_copy / "sections" / "1-1-first.md"
    page.write_text(page.read_text() + "\n:::{table}\n:class: m101-stack\n\n| signal | healthy | worrying |\n"
                    "| --- | --- | --- |\n| reward | up | flat |\n:::\n")
    built = build(book_copy, m101_repository="")
    assert built.warnings == ""
    html = built.html("sections/1-1-first")
    assert '<table class="m101-stack' in html
    labels = re.findall(r'<span class="m101-cell-label">(.*?)</span>', html)
    assert labels == ["healthy: ", "worrying: "]  # the first column names the row: no label
    text = build(book_copy, buildername="text", m101_repository="").app.outdir / "sections" / "1-1-first.txt"
    assert "healthy: up" not in text.read_text(encoding="utf-8")  # other editions keep the plain table


def test_repository_link_in_footer_pending_boxes_and_lab_notes(book_copy: Path) -> None:
    built = build(book_copy, m101_repository=URL + ".git")
    assert built.warnings == ""
    values = built.html("sections/2-1-values")
    assert f'href="{URL}" aria-label="This book\'s source repository"' in values  # Furo's footer
    box = values.split('m101-pending-box m101-pending-run', 1)[1].split("</p>", 1)[0]
    assert "The author records the run <strong>tiny-pending</strong>" in box
    assert f'Have a DGX Spark? Record it yourself: in a clone of <a class="reference external" href="{URL}">' in box
    assert "python3 capture/run.py record tiny-pending" in _text(box)
    front = built.html("front")
    assert f'href="{URL}">this book’s repository</a>' in front or f'href="{URL}">this book\'s repository</a>' in front
    lab = built.html("sections/r-3-lab")
    assert f"git clone {URL}" in _text(lab) and "python3 capture/run.py record &lt;run-id&gt;" in _text(lab)


@pytest.mark.parametrize("remote", ["git@github.com:owner/book.git", "ssh://git@github.com/owner/book",
                                    "/srv/git/book.git", "http://example.org/owner/book"])
def test_no_link_without_a_public_https_url(book_copy: Path, remote: str) -> None:
    built = build(book_copy, m101_repository=remote)
    assert built.warnings == ""
    values = built.html("sections/2-1-values")
    assert "a clone of this book" in values and "owner/book" not in values and "/srv/git" not in values
    assert "source repository" not in values
    assert "git clone" not in built.html("sections/r-3-lab")
