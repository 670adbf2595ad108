"""sphinx-design's stylesheet only on the pages that use sphinx-design, its tab script only where tabs are.

sphinx-design adds both to every page (about 62 KB). The book's folds ("Values on this page", a page's
`{dropdown}`) are its own native `<details>` (miles101.sphinx_ext.folds), so a page needs the stylesheet
only where it draws a sphinx-design component (a tab set, a grid, a card...), the tab script only where
it has tabs. At html-page-context, after sphinx-design has added both, the page's own asset lists
(`css_files`, `script_files`: the context Sphinx documents for that event) are filtered by what its doctree
draws, so a reader downloads each only where it draws something.
"""
from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

DESIGN_ASSETS = ("sphinx-design.min.css", "design-tabs.js")
TAB_ASSETS = ("design-tabs.js",)
#: An element with one of sphinx-design's classes, in a page's written HTML.
COMPONENT = re.compile(r'class="(?:[^"]* )?sd-')


def _uses(doctree: nodes.document) -> tuple[bool, bool]:
    """Whether the page draws anything with sphinx-design, and whether it has tabs: one walk of the doctree."""
    design = False
    for node in doctree.findall(nodes.Element):
        for c in node.get("classes", ()):
            if c.startswith("sd-"):
                if c.startswith("sd-tab"):
                    return True, True
                design = True
    return design, False


def drop_unused_design_assets(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                              doctree: nodes.document | None) -> None:
    """Remove sphinx-design's CSS and JS from a page that draws nothing with it, its tab script from one
    without tabs."""
    if doctree is None:  # a page made from a template (search, the index, 404, the flag index): its body says
        body = str(context.get("body", ""))
        design, tabs = bool(COMPONENT.search(body)), "sd-tab" in body
    else:
        design, tabs = _uses(doctree)
    unused = DESIGN_ASSETS if not design else TAB_ASSETS if not tabs else ()
    for key in ("css_files", "script_files"):
        if key in context and unused:
            context[key] = [a for a in context[key] if not str(getattr(a, "filename", a)).endswith(unused)]


def setup_page_weight(app: Sphinx) -> None:
    app.connect("html-page-context", drop_unused_design_assets, priority=900)
