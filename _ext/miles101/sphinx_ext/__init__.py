"""The Sphinx extension of Miles 101 (`extensions = ["miles101.sphinx_ext"]`): renders the core's book and capture.

One module per component, each with its `setup_<component>(app)` (sphinx-design's layout):

| module | what it adds |
| --- | --- |
| `build_data` | manual.json at config-inited, the capture at builder-inited, held by the domain object |
| `domain` | the `m101` domain: per-page records (cites, deps, flags, figures, tables), the flag index |
| `incremental` | which pages to read again and rewrite; failing the build on unresolved references |
| `elements` | the value and flag-facts nodes, written by every builder |
| `roles` | {flag}, {metric}, {src}, {measured}, {reference}, ... |
| `markup` | raw HTML off (escaped and refused), roles left open refused (`miles101.markup`) |
| `directives` | {flag}, {listing}, {run-command}, {until-recorded}/{once-recorded}, {pin} |
| `figures` | {diagram}: figure nodes, labels, the figure-id checks |
| `front` | the front page's {book-*} directives |
| `reference_tables` | R.1-R.5's generated tables, filled at doctree-resolved |
| `chrome` | toctrees from manual.json, section numbers, accents, the values list of each page |
| `assets`, `mathml` | stylesheets and the local mermaid; math as MathML |
| `calculator` | {fit-calculator} on 2.1 |
| `crosscheck` | {crosscheck-table}: a host's cross-check beside the computed trainer state |
| `valid_markup` | sphinx-design's tab input and label as well-formed XHTML and valid HTML; the EPUB manifest's MathML mark |
| `hosting` | the 404 page's body, link-preview descriptions, the sitemap's root, robots.txt, llms.txt, llms-full.txt |
| `editions` | EPUB, LaTeX/PDF, text: version and metadata from the book, the committed diagram drawings (checked against their sources), e-reader layout, the book as parts |
| `tables` | tables marked `m101-stack` read as one block per row when they do not fit |
| `repository` | the book's own repository URL (one setting): the footer link, the pending boxes, R.3 |
| `a11y` | fixes to Sphinx's and Furo's page markup (caption heading levels, named asides) |
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx

from .. import __version__


def setup(app: Sphinx) -> dict[str, Any]:
    from ..pages import DIRECTIVE_NAMES, ROLE_KINDS
    from .a11y import setup_a11y
    from .repository import setup_repository
    from .tables import setup_tables
    from .assets import setup_assets
    from .build_data import setup_build_data
    from .calculator import setup_calculator
    from .chrome import setup_chrome
    from .crosscheck import setup_crosscheck
    from .doctor import setup_doctor
    from .directives import setup_directives
    from .editions import setup_editions
    from .domain import setup_domain
    from .elements import setup_elements
    from .figures import setup_figures
    from .front import setup_front
    from .hosting import setup_hosting
    from .incremental import setup_incremental
    from .markup import setup_markup
    from .mathml import setup_mathml
    from .page_weight import setup_page_weight
    from .reference_tables import setup_reference_tables
    from .roles import setup_roles
    from .valid_markup import setup_valid_markup

    setup_build_data(app)
    setup_repository(app)
    setup_domain(app)
    setup_incremental(app)
    setup_elements(app)
    setup_roles(app)
    setup_markup(app)
    setup_directives(app)
    setup_figures(app)
    setup_front(app)
    setup_reference_tables(app)
    setup_chrome(app)
    setup_assets(app)
    setup_mathml(app)
    setup_calculator(app)
    setup_doctor(app)
    setup_crosscheck(app)
    setup_page_weight(app)
    setup_editions(app)
    setup_valid_markup(app)
    setup_hosting(app)
    setup_a11y(app)
    setup_tables(app)

    from . import directives, figures, front, reference_tables, roles

    assert set(roles.ROLES) == set(ROLE_KINDS), "miles101.pages.ROLE_KINDS lists the book's roles"
    registered = {*directives.DIRECTIVES, *figures.DIRECTIVES, *front.DIRECTIVES, *reference_tables.KINDS,
                  "fit-calculator", "fit-compare", "log-doctor", "crosscheck-table"}
    assert registered == set(DIRECTIVE_NAMES), "miles101.pages.DIRECTIVE_NAMES lists the book's directives"
    return {"version": __version__, "env_version": 6, "parallel_read_safe": True, "parallel_write_safe": True}
