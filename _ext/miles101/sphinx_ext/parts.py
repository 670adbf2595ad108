"""The book by part: one toctree per part from manual.json, section numbers, the part's eyebrow and accent."""
from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from .domain import book_of, domain_of


def add_toctrees(app: Sphinx, docname: str, source: list[str]) -> None:
    """Append one hidden, captioned toctree per part (then the Reference) to the root page."""
    book = book_of(app.env)
    if docname != book.root_doc:
        return
    blocks = []
    for part in book.parts:
        entries = "\n".join(s.docname for s in part.sections)
        blocks.append(f"\n\n```{{toctree}}\n:caption: {part.caption}\n:hidden:\n\n{entries}\n```\n")
    source[0] += "".join(blocks)


class SectionChrome(SphinxTransform):
    """Number the title ("2.3 ..."), add the part eyebrow in its accent, mark unwritten pages."""

    default_priority = 400

    def apply(self, **kwargs) -> None:
        section = book_of(self.env).section_for(self.env.docname)
        if section is None:
            return
        domain_of(self.env).note_book(self.env.docname, f"section:{self.env.docname}")
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None or not isinstance(top[0], nodes.title):
            return
        title = top[0]
        title.insert(0, nodes.inline("", f"{section.id} ", classes=["m101-secnum"]))
        part = section.part
        eyebrow = nodes.paragraph(classes=["m101-eyebrow", f"m101-accent-{part.accent}"])
        eyebrow += nodes.inline("", part.caption if part.key != "R" else "Reference", classes=["m101-part"])
        eyebrow += nodes.inline("", f" · {section.id}", classes=["m101-secid"])
        unwritten = all(isinstance(child, (nodes.title, nodes.target, nodes.comment)) for child in top)
        top.insert(1, eyebrow)
        self.document["classes"].append(f"m101-accent-{part.accent}")
        if unwritten:
            top.insert(2, nodes.paragraph("", part.thesis, classes=["m101-thesis", "m101-unwritten"]))


def plain_secnum_in_titles(app: Sphinx, doctree: nodes.document) -> None:
    """The title that toctrees, the sidebar and the next/previous links show keeps its section number as text:
    the `m101-secnum` span styles the page's own heading, and one span for each entry of every page's sidebar
    (44 elements a page) shows nothing a reader needs there."""
    docname = app.env.docname
    for titles in (app.env.titles, app.env.longtitles, app.env.tocs):  # the page's title; its table of contents
        title = titles.get(docname)
        if title is None:
            continue
        for number in list(title.findall(lambda n: isinstance(n, nodes.inline) and "m101-secnum" in n["classes"])):
            number.parent.replace(number, nodes.Text(number.astext()))


def setup_parts(app: Sphinx) -> None:
    app.connect("source-read", add_toctrees)
    app.add_transform(SectionChrome)
    app.connect("doctree-read", plain_secnum_in_titles, priority=900)  # after Sphinx's title collector (500)
