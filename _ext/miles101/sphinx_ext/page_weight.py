"""sphinx-design's stylesheet and tab script only on the pages that use sphinx-design.

sphinx-design adds both to every page (about 62 KB); the manual uses its tabs on a few pages. At
html-page-context the page's own asset lists are filtered when its doctree holds no sphinx-design
node, so a reader on a phone downloads them only where they draw something.
"""
from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

DESIGN_ASSETS = ("sphinx-design.min.css", "design-tabs.js")


def _uses_design(doctree: nodes.document) -> bool:
    return any(any(c.startswith("sd-") for c in node.get("classes", []))
               for node in doctree.findall(nodes.Element))


def drop_unused_design_assets(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                              doctree: nodes.document | None) -> None:
    """Remove sphinx-design's CSS and JS from a page that draws nothing with it."""
    if doctree is None or _uses_design(doctree):
        return
    for key in ("css_files", "script_files"):
        if key in context:
            context[key] = [a for a in context[key] if not str(getattr(a, "filename", a)).endswith(DESIGN_ASSETS)]


def setup_page_weight(app: Sphinx) -> None:
    app.connect("html-page-context", drop_unused_design_assets, priority=900)
