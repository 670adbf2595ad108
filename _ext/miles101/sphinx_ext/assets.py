"""Static assets: the extension's stylesheet and script, the generated palette, and the pages' scripts deferred.

The files the extension serves from ``_static`` (its own and the components') are written as served
(compacted, under their served names) into a folder of their own outside the site, which joins
``html_static_path`` (sphinx-design's way): Sphinx's static copy serves them, replacing a served copy
whose bytes differ. The sources in ``static/`` are not on that path: served as they are, they would
overwrite the compacted copies.

No page loads mermaid: every diagram is its committed drawing (miles101.sphinx_ext.editions).
"""
from __future__ import annotations

import re
import shutil
from html import escape
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders import Builder

from ..palette import HUES, stylesheet

STATIC = Path(__file__).with_name("static")


def write_if_changed(path: Path, data: str | bytes) -> None:
    """Write a file of the site's root (robots.txt, llms.txt, index.html...) only when its bytes differ
    (text is UTF-8): a page cache or a file watcher sees no change where there is none."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not path.is_file() or path.read_bytes() != raw:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)


def served_dir(builder: Builder) -> Path:
    """The folder of the files this build serves from _static: beside the doctrees, one per builder
    (the web site and the EPUB serve different files), never inside the site itself."""
    return Path(builder.doctreedir) / "m101-static" / builder.name


def serve(app: Sphinx, name: str, data: str | bytes) -> None:
    """Serve `data` as ``_static/<name>`` in this build (text is UTF-8); Sphinx copies it."""
    write_if_changed(served_dir(app.builder) / name, data)


def stage_served_files(app: Sphinx) -> None:
    """Empty the served folder and add it to html_static_path, so it holds this build's files alone.

    Runs first at `builder-inited` (every build, full or incremental); the components write into it
    at the same event. Sphinx copies it after reading, before writing, and replaces a served file
    whose bytes differ (`copy_asset(..., force=True)`)."""
    if app.builder.format != "html":
        return
    folder = served_dir(app.builder)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    app.config.html_static_path.append(str(folder))


def install_assets(app: Sphinx) -> None:
    """Serve the CSS and the script and add them to every page."""
    if app.builder.format != "html":
        return
    site = app.builder.name in {"html", "dirhtml", "singlehtml"}
    # One stylesheet, the generated palette first, then the components' rules (the order of the two files
    # they were): one render-blocking request less on every page (issue 61). EPUB: drawings keep their
    # light colours.
    serve(app, "miles101.css", stylesheet(diagrams=site) + compact((STATIC / "miles101.css").read_text(encoding="utf-8")))
    serve(app, "miles101.js", compact((STATIC / "miles101.js").read_text(encoding="utf-8")))
    serve(app, "m101-favicon.svg", favicon())
    app.connect("html-page-context", _favicon_url)
    app.add_css_file("miles101.css")
    app.add_js_file("miles101.js", loading_method="defer")
    if app.builder.name.startswith("epub"):
        serve(app, "m101-epub.css", EPUB_CSS)
        book = app.config._m101_book
        serve(app, "m101-cover.svg", cover(book.data["title"], book.data.get("subtitle", ""),
                                           str(book.data.get("edition", ""))))
        app.add_css_file("m101-epub.css")


#: The e-book's own rules: long code lines wrap on a small screen, stacked tables read as blocks.
EPUB_CSS = """pre, .highlight pre { white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-all; }
code, .m101-value { overflow-wrap: anywhere; }
.m101-stacked-row { margin: 0.8em 0; padding-top: 0.4em; border-top: 1px solid currentColor; }
.m101-stacked-row dl { margin: 0.2em 0 0 0; }
.m101-stacked-row dt { font-weight: bold; font-size: 0.9em; }
.m101-stacked-row dd { margin: 0 0 0.3em 1em; }
.m101-tab-heading { font-weight: bold; margin-top: 1em; }
"""


def compact(text: str) -> str:
    """The served copy of our own CSS or JS: block comments, whole-line // comments and indentation dropped.

    The sources keep their comments for the reader of this repository; the page weight budget
    (tests/browser/test_browser_calculator.py) counts what a reader downloads.
    Kept over rjsmin/rcssmin 1.3.0 (tried 2026-12-07): 1.9 KB less gzipped over all nine files, but rjsmin
    rewrote the inside of fit-calculator.js's nested template literal (the pool sentence lost its spaces).
    """
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = (ln.strip() for ln in text.splitlines())
    return "\n".join(ln for ln in lines if ln and not ln.startswith("//")) + "\n"


def cover(title: str, subtitle: str, edition: str) -> str:
    """The e-book's cover from manual.json: title, subtitle and edition over a band of the palette's hues."""
    band = "".join(f'<rect x="{i * 1600 // len(HUES)}" y="1900" width="{1600 // len(HUES) + 1}" height="140" '
                   f'fill="{hue.light_ink}"/>' for i, hue in enumerate(HUES.values()))
    words, lines, line = subtitle.split(), [], ""
    for word in words:  # the subtitle on lines of about 34 characters
        if len(line) + len(word) > 34 and line:
            lines.append(line)
            line = ""
        line = f"{line} {word}".strip()
    lines.append(line)
    sub = "".join(f'<text x="120" y="{980 + 90 * i}" font-size="64">{escape(text)}</text>' for i, text in enumerate(lines))
    ink = HUES["blue"].light_ink
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1600 2560" width="1600" height="2560">'
        f'<rect x="0" y="0" width="1600" height="2560" fill="{HUES["blue"].light_tint}"/>'
        f'<g font-family="sans-serif" fill="{ink}"><text x="120" y="800" font-size="190" font-weight="bold">'
        f'{escape(title)}</text>{sub}<text x="120" y="2300" font-size="56">Edition {escape(edition)}</text></g>'
        f"{band}</svg>\n"
    )


def favicon() -> str:
    """The book's icon from the palette: the engine (violet) and the trainer (blue) taking turns."""
    engine, trainer = HUES["violet"].light_ink, HUES["blue"].light_ink
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
        f'<rect width="32" height="32" rx="7" fill="{HUES["blue"].light_tint}"/>'
        f'<path d="M16 5a11 11 0 0 0 0 22z" fill="{engine}"/>'
        f'<path d="M16 5a11 11 0 0 1 0 22z" fill="{trainer}"/>'
        '<circle cx="16" cy="16" r="4" fill="#fff"/></svg>\n'
    )


def _favicon_url(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if not context.get("favicon_url"):
        context["favicon_url"] = context["pathto"]("_static/m101-favicon.svg", 1)


def write_index(app: Sphinx, exception: Exception | None) -> None:
    """Give the site a root index.html that names the front page as the canonical one.

    With `html`, index.html is the front page itself (hosts and browsers open index.html by default)
    with a canonical link to the front page's own file, so the two are one page to a search engine.
    With `dirhtml`, the front page is front/index.html and the root gets a redirect to it.
    """
    if exception is not None or app.builder.format != "html" or app.config.root_doc == "index":
        return
    out = Path(app.outdir)
    root = app.config.root_doc
    if app.builder.name == "dirhtml":
        target = f"{root}/"
        write_if_changed(out / "index.html", (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<title>{app.config.html_title}</title><link rel="canonical" href="{target}">'
            f'<meta http-equiv="refresh" content="0; url={target}"></head>'
            f'<body><p><a href="{target}">{app.config.html_title}</a></p></body></html>\n'))
        return
    front = out / f"{root}.html"
    if front.is_file():
        html = front.read_text(encoding="utf-8")
        canonical = f'<link rel="canonical" href="{root}.html">'
        if 'rel="canonical"' not in html:  # html_baseurl already gives every page its canonical URL
            html = html.replace("</head>", f"{canonical}\n</head>", 1)
        write_if_changed(out / "index.html", html)


def defer_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """On a book page, every script file that would run as the parser meets it runs after parsing
    instead (`defer`, their order kept): Sphinx's, Furo's and copybutton's scripts wait for
    DOMContentLoaded anyway. Search and the index keep theirs (their templates call them inline)."""
    if doctree is None:
        return
    files = context.get("script_files")
    if not isinstance(files, list):
        return
    files[:] = [_deferred(js) for js in files]


def _deferred(js: Any) -> Any:
    """The script entry with `defer` added. Sphinx's entries are immutable and their class is private
    (sphinx.builders.html._assets), and its public `add_js_file` appends rather than replaces: so the
    entry's own class makes the copy, with the keyword arguments `add_js_file` passes it. An old-style
    entry (a plain path, which Sphinx writes without attributes) stays as it is."""
    attrs = getattr(js, "attributes", None)
    if attrs is None or not js.filename or "body" in attrs or {"defer", "async"} & attrs.keys() or attrs.get("type") == "module":
        return js
    return type(js)(js.filename, priority=js.priority, **{**attrs, "defer": "defer"})


def setup_assets(app: Sphinx) -> None:
    app.connect("builder-inited", stage_served_files, priority=400)  # before anything serves a file
    app.connect("builder-inited", install_assets)
    app.connect("html-page-context", defer_scripts, priority=900)  # after every handler that adds a script
    app.connect("build-finished", write_index)
