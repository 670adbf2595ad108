"""Markup that parses everywhere: third-party nodes written as well-formed XHTML and valid HTML.

An EPUB chapter is XHTML, and a strict reader stops at the first error; the web pages are checked
with the Nu HTML checker. Two of sphinx-design's tab visitors fail one or the other, so the
HTML-family visitors are replaced here (for every HTML-family builder at once: registering `epub=`
visitors for a node would drop its `html` ones from the EPUB build):

- the tab's radio `<input>` is written without its end, which XHTML refuses (`empty=True` writes `<input ... />`);
- the tab's `<label>` carries `aria-controls`, which HTML does not allow on a label bound to a
  control: the input, the element that is operated, names the panel it shows instead.

And the EPUB's manifest marks the chapters that hold MathML (`properties="mathml"`), which EPUB 3
requires and Sphinx's `content.opf` does not write.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx_design.tabs import sd_tab_input, sd_tab_label


def visit_tab_input(self: Any, node: nodes.Element) -> None:
    attributes = {"ids": [node["id"]], "type": node["type"], "name": node["set_id"]}
    if node["checked"]:
        attributes["checked"] = "checked"
    label = next((n for n in node.parent.children[node.parent.index(node) + 1:]
                  if n.tagname == "sd_tab_label"), None) if node.parent is not None else None
    if label is not None and "aria_controls" in label:
        attributes["aria-controls"] = label["aria_controls"]
    self.body.append(self.starttag(node, "input", empty=True, **attributes))


def visit_tab_label(self: Any, node: nodes.Element) -> None:
    attributes = {"for": node["input_id"]}
    if "sync_id" in node and "sync_group" in node:
        attributes["data-sync-id"] = node["sync_id"]
        attributes["data-sync-group"] = node["sync_group"]
    self.body.append(self.starttag(node, "label", **attributes))


def depart_tab_label(self: Any, node: nodes.Element) -> None:
    self.body.append("</label>")


def _nothing(self: Any, node: nodes.Element) -> None:
    pass


MANIFEST_ITEM = re.compile(r'<item id="[^"]*" href="(?P<href>[^"]+\.xhtml)" media-type="application/xhtml\+xml"(?P<rest>[^>]*?)/>')


def mark_mathml_chapters(outdir: Path) -> None:
    """Add `properties="mathml"` to the manifest items of chapters that contain `<math`."""
    opf = outdir / "content.opf"
    text = opf.read_text(encoding="utf-8")

    def mark(m: re.Match) -> str:
        item = m.group(0)
        chapter = outdir / m["href"]
        if "properties=" in item or not chapter.is_file() or "<math" not in chapter.read_text(encoding="utf-8"):
            return item
        return item[:-2].rstrip() + ' properties="mathml" />'

    opf.write_text(MANIFEST_ITEM.sub(mark, text), encoding="utf-8")


def wrap_epub_content(app: Sphinx) -> None:
    """On the EPUB builder, mark MathML chapters right after Sphinx writes content.opf (before zipping)."""
    if not app.builder.name.startswith("epub"):
        return
    builder = app.builder
    build_content = builder.build_content

    def build_content_then_mark(*args: Any, **kwargs: Any) -> None:
        build_content(*args, **kwargs)
        mark_mathml_chapters(Path(builder.outdir))

    builder.build_content = build_content_then_mark  # type: ignore[method-assign]


def setup_valid_markup(app: Sphinx) -> None:
    app.add_node(sd_tab_input, override=True, html=(visit_tab_input, _nothing))
    app.add_node(sd_tab_label, override=True, html=(visit_tab_label, depart_tab_label))
    app.connect("builder-inited", wrap_epub_content)
