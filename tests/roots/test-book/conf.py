# Test root: a two-part book with synthetic capture data (test data, never the manual's).
# miles101 is installed (`pip install -e .`); tests/buildutil.py points m101_mermaid_root at the project.
extensions = ["myst_parser", "sphinxcontrib.mermaid", "miles101.sphinx_ext"]
myst_enable_extensions = ["colon_fence"]
exclude_patterns = ["_build", "capture"]
html_theme = "furo"
mermaid_use_local = "mermaid/mermaid.esm.min.mjs"
