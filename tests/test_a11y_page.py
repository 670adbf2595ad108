"""miles101.sphinx_ext.a11y.fix_page: the markup fixes, on snippets of Sphinx's and Furo's output."""
from __future__ import annotations

from miles101.sphinx_ext.a11y import fix_page


def test_caption_heading_gets_a_level_once() -> None:
    html = '<p class="caption" role="heading"><span class="caption-text">Part 1</span></p>'
    fixed = fix_page(html)
    assert fixed == '<p class="caption" role="heading" aria-level="2"><span class="caption-text">Part 1</span></p>'
    assert fix_page(fixed) == fixed


def test_asides_get_names_once() -> None:
    html = '<aside class="sidebar-drawer">x</aside><aside class="toc-drawer no-toc">y</aside><aside class="other">'
    fixed = fix_page(html)
    assert '<aside class="sidebar-drawer" aria-label="Site navigation">' in fixed
    assert '<aside class="toc-drawer no-toc" aria-label="On this page">' in fixed
    assert '<aside class="other">' in fixed
    assert fix_page(fixed) == fixed


def test_search_page_gets_an_h1_once() -> None:
    html = '<article role="main">\n<div id="search-results"></div></article>'
    fixed = fix_page(html)
    assert fixed.count("<h1>Search</h1>") == 1 and fix_page(fixed) == fixed
    assert fix_page("<p>no search here</p>") == "<p>no search here</p>"
