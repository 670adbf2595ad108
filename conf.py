"""Sphinx configuration for Miles 101. Plain settings only: the book lives in manual.json."""
from __future__ import annotations

import os
from urllib.parse import urlparse

project = "Miles 101"
author = "The Miles 101 authors"
copyright = "2026, the Miles 101 authors"

extensions = [
    "myst_parser",
    "sphinx_design",
    "sphinx_copybutton",
    "miles101.sphinx_ext",  # installed by `pip install -e .` (dev.py does it)
    "notfound.extension",  # 404.html (README: Hosting)
    "sphinxext.opengraph",  # og:title, og:description, og:site_name on every page
    "sphinx_last_updated_by_git",  # "Last updated" on each page, from the page file's last commit
]
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = [
    "_build", ".venv", ".tox", "node_modules", "README.md", "AUTHORING.md", "tests", "capture",
    "benchmarks", "tools", "_ext", "_static", "pyproject.toml", ".pytest_cache", "test-artifacts",
]

# Hosting (README: Hosting). Read the Docs gives the canonical URL; a local build has none, so it
# gets no sitemap and no absolute URLs, and its 404 page loads assets from the site's root.
html_baseurl = os.environ.get("READTHEDOCS_CANONICAL_URL", "")
if html_baseurl:
    extensions.append("sphinx_sitemap")
sitemap_url_scheme = "{link}"  # html_baseurl already holds the language and version
sitemap_excludes = ["404.html", "genindex.html", "search.html", "m101-flags.html"]
notfound_urls_prefix = urlparse(html_baseurl).path if html_baseurl else "/"
ogp_site_name = "Miles 101"
ogp_enable_meta_description = True
ogp_social_cards = {"enable": False}  # no preview image (it would need matplotlib)
html_last_updated_fmt = "%Y-%m-%d"
git_untracked_show_sourcelink = True  # a page without Git dates (a copy) keeps its "view source" link
# A build without Git history (a copied tree, a tarball, the tests' and the benchmark's copies) has no
# dates to show: git.subprocess_error (not a repository) and git.command_not_found (no git) would fail
# -W there, so those two are silent and the pages simply show no date. git.too_shallow stays loud: it
# means a clone that needs `git fetch --unshallow` (.readthedocs.yaml does it).
suppress_warnings = ["git.subprocess_error", "git.command_not_found"]

html_theme = "furo"
html_title = "Miles 101"
html_static_path = ["_static"]  # the book's hand-made files; the palette CSS and the favicon are generated
html_css_files = ["book.css"]
html_theme_options = {"navigation_with_keys": True}
html_copy_source = False
html_show_sourcelink = False

html_math_renderer = "mathml"  # MathML written at build time (miles101.mathml): no CDN script

copybutton_exclude = ".linenos, .gp, .go"

# Editions other than the web site (EPUB, LaTeX/PDF). version and release come from manual.json's
# edition (miles101.sphinx_ext.editions). Every edition, the web included, shows each diagram as its
# committed drawing (drawings/, drawn by `python3 dev.py draw`): no page loads mermaid.
epub_basename = "Miles101"
epub_show_urls = "no"  # a link reads as its text (a source path, a page title): no bracketed URL after it
epub_exclude_files = ["_static/m101-fit-coefficients.json"]  # the calculator's data: e-readers run no modules

latex_engine = "xelatex"  # the pages are Unicode (×, ≥, →, …): pdflatex cannot set them
latex_table_style = ["booktabs", "colorrows"]
latex_show_urls = "no"
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    "figure_align": "H",
    "extraclassoptions": "openany,oneside",  # read on a screen: no blank pages before chapters
    "fncychap": "",  # plain chapter heads: each title already says "2.3 ..."
    # Long commands and log lines wrap inside their boxes instead of running off the page.
    "sphinxsetup": "verbatimforcewraps=true, verbatimmaxunderfull=2",
    # Every page title carries its own number ("2.3 Stop Ray killing the job"): LaTeX numbers nothing.
    # xurl: long source links break at any character instead of running into the margin;
    # adjustbox: diagrams shrink to the text width and 60% of the page height, never grow.
    # XeTeX interchar classes: a line may break after "/" or "_", so a file path or a metric key in
    # a narrow table column wraps instead of running off the page.
    "preamble": "\\setcounter{secnumdepth}{-2}\n\\usepackage{xurl}\n\\usepackage[export]{adjustbox}\n"
                "\\XeTeXinterchartokenstate=1\n\\newXeTeXintercharclass\\mOneBreak\n"
                "\\XeTeXcharclass`\\/=\\mOneBreak\n\\XeTeXcharclass`\\_=\\mOneBreak\n"
                "\\XeTeXinterchartoks\\mOneBreak 0={\\penalty50\\relax}\n",
}


def setup(app):
    """The process is this project's: the loaded heap stays out of the garbage collector's scans while the
    pages are built, and at exit (miles101.heap; a process setting, so not the extension's to make)."""
    from miles101.heap import setup_heap

    setup_heap(app)
