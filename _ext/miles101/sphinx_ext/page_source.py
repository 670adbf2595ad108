"""Raw HTML off, open roles refused: `miles101.markup`'s rules, applied to each page as it is read.

A page's raw HTML is escaped before MyST reads it (it shows as text, never runs) and warned about,
so `-nW` fails; a role left open is warned about. `capture/run.py --check` applies the same rules.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..markup import escape_html, listed, markup_problems
from .base import warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def refuse_markup(app: Sphinx, docname: str, source: list[str]) -> None:
    """Warn for each raw HTML tag and open role in the page; escape the HTML in the text MyST reads."""
    problems = markup_problems(source[0], str(app.env.doc2path(docname)))
    for p in listed(problems):
        warn(p.subtype, p.message, location=p.location, fix=p.fix)
    if problems:
        source[0] = escape_html(source[0])


def setup_page_source(app: Sphinx) -> None:
    app.connect("source-read", refuse_markup, priority=100)  # before parts.add_toctrees adds the toctrees
