"""Static assets: the extension's stylesheet, the generated palette, and the local mermaid copy."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from sphinx.application import Sphinx

from .messages import warn
from ..palette import stylesheet

STATIC = Path(__file__).with_name("static")
MERMAID_ENTRY = "mermaid/mermaid.esm.min.mjs"


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def install_assets(app: Sphinx) -> None:
    """Write the CSS into a build-side static folder and put mermaid where the pages load it."""
    if app.builder.format != "html":
        return
    out = Path(app.outdir) / "_static"
    out.mkdir(parents=True, exist_ok=True)
    _write_if_changed(out / "m101-palette.css", stylesheet())
    _write_if_changed(out / "miles101.css", (STATIC / "miles101.css").read_text(encoding="utf-8"))
    app.add_css_file("m101-palette.css")
    app.add_css_file("miles101.css")
    if app.builder.name in {"html", "dirhtml", "singlehtml"}:
        # Only the web site draws in the browser; EPUB gets drawn images (miles101.sphinx_ext.editions).
        install_mermaid(app)


def _pinned_version(root: Path) -> str | None:
    lock = root / "package-lock.json"
    if not lock.is_file():
        return None
    packages = json.loads(lock.read_text(encoding="utf-8")).get("packages", {})
    return packages.get("node_modules/mermaid", {}).get("version")


def install_mermaid(app: Sphinx) -> None:
    """Copy mermaid's ESM build from node_modules (pinned by package-lock.json) into _static/mermaid."""
    root = Path(app.confdir) / app.config.m101_mermaid_root
    pinned = _pinned_version(root)
    package = root / "node_modules" / "mermaid"
    installed = None
    if (package / "package.json").is_file():
        installed = json.loads((package / "package.json").read_text(encoding="utf-8")).get("version")
    if installed is None or installed != pinned:
        found = f"version {installed}" if installed else "nothing"
        warn("mermaid", f"diagrams need mermaid {pinned} in node_modules/, found {found}.",
             location="package-lock.json", fix="run `npm ci` in the project root.")
        return
    dest = Path(app.outdir) / "_static" / "mermaid"
    stamp = dest / "VERSION"
    if stamp.is_file() and stamp.read_text() == installed:
        return
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "chunks" / "mermaid.esm.min").mkdir(parents=True)
    dist = package / "dist"
    shutil.copy2(dist / "mermaid.esm.min.mjs", dest / "mermaid.esm.min.mjs")
    for chunk in (dist / "chunks" / "mermaid.esm.min").glob("*.mjs"):
        shutil.copy2(chunk, dest / "chunks" / "mermaid.esm.min" / chunk.name)
    shutil.copy2(package / "LICENSE", dest / "LICENSE")
    stamp.write_text(installed)


def write_index(app: Sphinx, exception: Exception | None) -> None:
    """Serve the front page as index.html too: hosts and browsers open index.html by default."""
    if exception is not None or app.builder.format != "html" or app.config.root_doc == "index":
        return
    out = Path(app.outdir)
    front = out / f"{app.config.root_doc}.html"
    if front.is_file():
        _write_if_changed(out / "index.html", front.read_text(encoding="utf-8"))


def mermaid_only_where_drawn(app: Sphinx) -> None:
    """Load mermaid only on pages that draw a diagram.

    sphinxcontrib-mermaid adds its loader to every page without a doctree (search, genindex).
    Its handler is wrapped so those pages, which never draw, stay light.
    """
    try:
        from sphinxcontrib.mermaid import install_js
    except ImportError:
        return
    for listener in list(app.events.listeners.get("html-page-context", [])):
        if listener.handler is install_js:
            app.disconnect(listener.id)

            def install_where_drawn(app: Sphinx, pagename, templatename, context, doctree) -> None:
                if doctree is not None:
                    install_js(app, pagename, templatename, context, doctree)

            app.connect("html-page-context", install_where_drawn, priority=listener.priority)


def setup_assets(app: Sphinx) -> None:
    app.add_config_value("m101_mermaid_root", ".", "html", types=[str])
    app.connect("builder-inited", install_assets)
    app.connect("builder-inited", mermaid_only_where_drawn)
    app.connect("build-finished", write_index)
