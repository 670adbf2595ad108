"""A page's records (what it cites, the flags it documents, the figures it draws) are collected from its
doctree once it is read (issue 49, item 5): the roles and directives leave a typed record on their node, and
the m101 domain's `process_doc` gathers them in document order, as sphinx.ext.todo does. A figure or flag
twice on one page is still refused while reading, where the directive stands.
"""
from __future__ import annotations

from html import escape

from pathlib import Path

import pytest

from buildutil import build
from miles101.sphinx_ext.domain import Cite, domain_of, page_cites
from miles101.sphinx_ext.figures import figure_box

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

FIGURE = "```{{diagram}} {id}\n:title: {title}\n:caption: Another.\n\nflowchart LR\n  A --> B\n```\n"


def test_records_come_from_the_doctree_in_document_order(book_copy: Path) -> None:
    page = book_copy / "sections" / "1-1-first.md"
    page.write_text(page.read_text().replace("take turns.", "take turns on {fact}`box.memory`."))
    built = build(book_copy)
    assert built.app.statuscode == 0, built.warnings
    env, doc = built.app.env, "sections/1-1-first"
    record, doctree = domain_of(env).record(doc), env.get_doctree(doc)
    assert record["cites"] == [cite for _, cite in page_cites(doctree)]
    # The flag block comes before the value its text cites, as on the page (while parsing, its text is read first).
    assert [(c.kind, c.key, c.documented) for c in record["cites"]][-2:] == [("flag", "--colocate", True),
                                                                            ("fact", "box.memory", False)]
    fact = record["cites"][-1]
    # the value links to its one entry in "Values on this page", its provenance sentence built once and kept here
    assert fact.tip_id and fact.tip_id.startswith("m101-v-") and fact.shown and fact.provenance
    html = built.html(doc)
    assert f'href="#{fact.tip_id}"' in html and f'<li id="{fact.tip_id}">' in html
    assert f'title="{escape(fact.provenance)}"' in html  # the value's title and its entry in the list: one sentence
    assert escape(fact.provenance, quote=False) in html.split('id="values-on-this-page"', 1)[1]
    assert record["flags"] == {"--colocate": "flag-colocate"}
    assert list(record["figures"]) == [n["ids"][0] for n in doctree.findall(figure_box)] == ["fig-test-loop"]
    assert record["figures"]["fig-test-loop"].title == "The test loop"
    assert all(isinstance(c, Cite) for c in record["cites"])


def test_a_figure_twice_in_one_container_is_refused_where_it_stands(book_copy: Path) -> None:
    """The second figure of an id is refused while reading, also inside a block not yet on the page."""
    page = book_copy / "sections" / "1-2-empty.md"
    page.write_text("# Empty section\n\n:::{note}\n" + FIGURE.format(id="fig-twice", title="One") + "\n"
                    + FIGURE.format(id="fig-twice", title="Two") + ":::\n")
    built = build(book_copy)
    assert "1-2-empty.md:12: WARNING: the figure id fig-twice is used twice on this page." in built.warnings
    record = domain_of(built.app.env).record("sections/1-2-empty")
    assert record["figures"]["fig-twice"].title == "One" and record["problems"] == 1


def test_a_flag_block_twice_in_one_container_is_refused_where_it_stands(book_copy: Path) -> None:
    page = book_copy / "sections" / "1-1-first.md"
    page.write_text(page.read_text() + "\n:::{note}\n```{flag} --colocate\nAgain.\n```\n:::\n")
    built = build(book_copy)
    assert [w for w in built.warnings.splitlines()
            if "1-1-first.md:19: WARNING: the flag --colocate is documented twice on this page." in w], built.warnings
    record = domain_of(built.app.env).record("sections/1-1-first")
    assert [c for c in record["cites"] if c.documented] == [Cite("flag", "--colocate", documented=True)]
