"""Sphinx configuration for Miles 101. Plain settings only: the book lives in manual.json."""
from __future__ import annotations

project = "Miles 101"
author = "The Miles 101 authors"
copyright = "2026, the Miles 101 authors"

extensions = [
    "myst_parser",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinxcontrib.mermaid",
    "miles101.sphinx_ext",  # installed by `pip install -e .` (dev.py does it)
]
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = [
    "_build", ".venv", ".tox", "node_modules", "README.md", "AUTHORING.md", "tests", "capture",
    "benchmarks", "tools", "miles101", "pyproject.toml", ".pytest_cache", "test-artifacts",
]

html_theme = "furo"
html_title = "Miles 101"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": True}
html_copy_source = False
html_show_sourcelink = False

html_math_renderer = "mathml"  # MathML written at build time (miles101.mathml): no CDN script

mermaid_use_local = "mermaid/mermaid.esm.min.mjs"
mermaid_version = "11.12.1"
mermaid_init_config = {"startOnLoad": False, "securityLevel": "strict"}
mermaid_fullscreen = False
mermaid_height = "auto"

copybutton_exclude = ".linenos, .gp, .go"
