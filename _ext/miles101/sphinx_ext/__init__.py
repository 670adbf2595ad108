"""The Sphinx extension of Miles 101 (`extensions = ["miles101.sphinx_ext"]`): renders the core's book and capture.

One module per component, each with its `setup_<component>(app)` (sphinx-design's layout); the
roles and directives of a component live together, on one shared base (`base`):

| module | what it adds |
| --- | --- |
| `base` | the shared base of the book's roles and directives: `manual.*` warnings, dependency notes, problems |
| `loading` | manual.json at config-inited, the capture at builder-inited, held by the domain object |
| `domain` | the `m101` domain: per-page records (cites, deps, flags, figures, tables; cites, flags and figures collected from each doctree), fingerprints, the flag index |
| `incremental` | which pages to read again and rewrite; failing the build on unresolved references |
| `page_source` | raw HTML off (escaped and refused), roles left open refused (`miles101.markup`) |
| `page_numbers` | time products recomputed, `≈` values and numbers in commands held to the run files or the reviewed list (`miles101.pagenumbers`) |
| `parts` | the book by part: toctrees from manual.json, section numbers, eyebrows and accents |
| `flags` | {flag}, {default}, {metric}; the {flag} block and its facts |
| `folds` | the `fold` node: a native `<details>` on the web, open in the EPUB and LaTeX; `{dropdown}` builds one |
| `values` | {measured}, {computed}, {fact}, {reference}, {threshold}, {crosscheck}; each page's list of values; {crosscheck-table}; {crosscheck-uncovered} |
| `runs` | {run-arg}, {run-command}, {listing}, {until-recorded}/{once-recorded}; pending boxes; the served launch scripts |
| `sources` | {src}, {issue}, {pin} |
| `figures` | {diagram}: figure nodes, labels, the figure-id checks |
| `front` | the front page's {book-*} directives |
| `reference_tables` | R.1-R.5's generated tables, filled at doctree-resolved |
| `calculator` | {fit-calculator} and {fit-compare} on 2.1 |
| `log_doctor` | {log-doctor} on 7.1 and 1.3 |
| `compare_run` | {compare-run} on 5.1: a reader's log beside a public series, as `read_run.py --compare --against` |
| `image_compare` | {compare-image-sample}: what `preflight.py --compare-image` prints, rendered by the served tool |
| `gb10_image` | {gb10-build}: the served Dockerfile.gb10's build line and its base by digest, held to capture/slime/gb10.json |
| `tools_download` | {tools-download}: the reader's tools in one file (miles101-tools.pyz), written into the site, fetched with its SHA-256 |
| `editions` | the web site, EPUB, LaTeX/PDF, text: version and metadata from the book, the committed diagram drawings every edition shows (checked against their sources; inline SVG on the web), e-reader layout, the book as parts |
| `valid_markup` | sphinx-design's tab input and label as well-formed XHTML and valid HTML; the EPUB manifest's MathML mark |
| `hosting` | the 404 page's body, link-preview descriptions, the sitemap's root, robots.txt, llms.txt, llms-full.txt |
| `repository` | the book's own repository URL (one setting): the footer link, the pending boxes, R.3 |
| `assets`, `mathml`, `page_weight` | stylesheets and scripts (deferred), the extension's `_static` files served through `html_static_path`; math as MathML; sphinx-design's assets only where used |
| `stacked_tables` | tables marked `m101-stack` read as one block per row when they do not fit |
| `code_refs` | a `{ref}` to a section titled by code shows as code |
| `a11y` | fixes to Sphinx's and Furo's page markup (caption heading levels, named asides) |
| `lean_html` | the same text in fewer elements: a role's one-word code without `span.pre`, highlighted whitespace as text |
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import __version__
from . import (a11y, assets, calculator, code_refs, compare_run, domain, editions, figures, flags, folds, front,
               gb10_image, hosting, image_compare, incremental, lean_html, loading, log_doctor, marks, mathml, page_numbers,
               page_source, page_weight, parts, plots, reference_tables, repository, runs, sources, stacked_tables,
               tools_download, valid_markup, values)

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: The components in the order they connect (a handler's order among equal priorities follows it).
SETUPS = (
    loading.setup_loading, repository.setup_repository, domain.setup_domain, incremental.setup_incremental,
    page_source.setup_page_source, page_numbers.setup_page_numbers, marks.setup_marks, flags.setup_flags,
    folds.setup_folds, values.setup_values, runs.setup_runs, sources.setup_sources,
    figures.setup_figures, plots.setup_plots, front.setup_front, reference_tables.setup_reference_tables, parts.setup_parts,
    assets.setup_assets, mathml.setup_mathml, calculator.setup_calculator, log_doctor.setup_log_doctor,
    compare_run.setup_compare_run, image_compare.setup_image_compare, gb10_image.setup_gb10_image,
    tools_download.setup_tools_download,
    page_weight.setup_page_weight, editions.setup_editions, valid_markup.setup_valid_markup,
    hosting.setup_hosting, code_refs.setup_code_refs, a11y.setup_a11y, stacked_tables.setup_stacked_tables,
    lean_html.setup_lean_html,
)
#: The components that register a class for the markup registry's names (miles101.registry; tests/test_registry.py
#: holds every name to a class): each has `ROLES` and `DIRECTIVES` (reference_tables: `KINDS`, one class for all).
ROLE_MODULES = (flags, values, runs, sources)
DIRECTIVE_MODULES = (flags, values, runs, sources, figures, plots, front, calculator, log_doctor, compare_run,
                     image_compare, gb10_image, tools_download)


#: A change here makes Sphinx read every page again. 8: the page texts kept for llms-full.txt are stored with
#: their blank runs already folded (hosting.keep_page_text), so an older build's texts must be made again. 9: folds are the book's `fold` node,
#: no longer sphinx-design's dropdown. 10: a value's `Cite` holds its provenance sentence and its entry's id in
#: "Values on this page" (a value is one link to that entry), and toctree titles carry their section number as text.
ENV_VERSION = 10


def setup(app: Sphinx) -> dict[str, Any]:
    for setup_component in SETUPS:
        setup_component(app)
    return {"version": __version__, "env_version": ENV_VERSION, "parallel_read_safe": True, "parallel_write_safe": True}
