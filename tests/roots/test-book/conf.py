# Test root: a two-part book with synthetic capture data (test data, never the manual's).
# miles101 is installed (`pip install -e .`). The book keeps no drawings: its diagrams show their source.
extensions = ["myst_parser", "miles101.sphinx_ext"]
myst_enable_extensions = ["colon_fence"]
exclude_patterns = ["_build", "capture"]
html_theme = "furo"
