"""Accessibility fixes to markup that Sphinx and Furo write, applied to each rendered HTML page.

- Sphinx writes a toctree's caption as `<p class="caption" role="heading">` with no `aria-level`
  (sphinx/writers/html5.py, visit_title): a heading role needs a level. Furo's sidebar shows one per
  part, so every page had nine of them. They get `aria-level="2"` (the page's own title is the h1).
- Furo's page has two `<aside>` landmarks (the site navigation and the page's contents) with no
  names, so a screen reader's landmark list offers two identical "complementary" entries. Each
  gets an `aria-label`.
- Furo's search page has no h1 (Sphinx's search script adds an h2 for the results): it gets one.

Furo writes the asides outside any template block, so the fix is a pass over the rendered page
(the builder's template renderer is wrapped once), not a copy of Furo's page.html.
"""
from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

#: Furo's asides and the names they get (the class each starts with, the label).
ASIDE_LABELS = {"sidebar-drawer": "Site navigation", "toc-drawer": "On this page"}

_CAPTION = re.compile(r'(<p class="caption"[^>]*?role="heading")(?![^>]*aria-level)')
_ASIDE = re.compile(r'<aside class="(' + "|".join(map(re.escape, ASIDE_LABELS)) + r')((?: [^"]*)?)"(?![^>]*aria-label)')


SEARCH_RESULTS = '<div id="search-results"></div>'


def fix_page(html: str) -> str:
    """The page with a level on every toctree caption heading, a name on Furo's asides, an h1 on search."""
    html = _CAPTION.sub(r'\1 aria-level="2"', html)
    if SEARCH_RESULTS in html and "<h1" not in html.split(SEARCH_RESULTS, 1)[0].rsplit("<article", 1)[-1]:
        html = html.replace(SEARCH_RESULTS, f"<h1>Search</h1>\n{SEARCH_RESULTS}", 1)
    return _ASIDE.sub(lambda m: f'<aside class="{m[1]}{m[2]}" aria-label="{ASIDE_LABELS[m[1]]}"', html)


def wrap_renderer(app: Sphinx) -> None:
    """Pass every page the HTML builders render through fix_page."""
    if app.builder.format != "html" or not hasattr(app.builder, "templates"):
        return
    templates = app.builder.templates
    render = templates.render
    if getattr(render, "m101_a11y", False):
        return

    def render_fixed(template: str, context: dict[str, Any]) -> str:
        return fix_page(render(template, context))

    render_fixed.m101_a11y = True  # type: ignore[attr-defined]
    templates.render = render_fixed  # type: ignore[method-assign]


def setup_a11y(app: Sphinx) -> None:
    app.connect("builder-inited", wrap_renderer)
