"""The files the extension serves from _static reach the site through html_static_path (issue 49, item 5).

sphinx-design's way: the extension writes each file as it is served (compacted, under its served name)
into a folder of its own beside the doctrees, one per builder, adds that folder to html_static_path,
and Sphinx's own static copy serves it. The extension writes none of them into the site, and its
sources (sphinx_ext/static/, commented) are not on the path, where they would overwrite the compacted
copies. tests/test_incremental_book.py holds that an edited source reaches the site on the next build.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sphinx.builders.html import StandaloneHTMLBuilder

from buildutil import build
from miles101.sphinx_ext import assets

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

#: Files every HTML build of the test root serves (the extension's own and the calculator's).
SERVED = {"miles101.css", "miles101.js", "m101-favicon.svg", "m101-fit-calculator.js",
          "m101-fit-calculator.css"}


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_served_files_reach_the_site_through_html_static_path(book_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    web = build(book_copy)
    folder, out = assets.served_dir(web.app.builder), Path(web.app.outdir)
    assert str(folder) in web.app.config.html_static_path
    assert not folder.is_relative_to(out)  # outside the site: nothing of it is published as it is
    static_path = {(Path(web.app.confdir) / entry).resolve() for entry in web.app.config.html_static_path}
    assert assets.STATIC.resolve() not in static_path  # the commented sources are never served
    assert SERVED <= names(folder)
    for name in names(folder):  # every file of the folder is served, byte for byte
        assert (out / "_static" / name).read_bytes() == (folder / name).read_bytes(), name
    served_js = (out / "_static" / "miles101.js").read_bytes()
    assert served_js == assets.compact((assets.STATIC / "miles101.js").read_text(encoding="utf-8")).encode("utf-8")

    # The EPUB shares the doctrees here (buildutil: _build/doctrees): its folder is its own.
    epub = build(book_copy, buildername="epub")
    epub_folder = assets.served_dir(epub.app.builder)
    assert epub_folder != folder and {"m101-epub.css", "m101-cover.svg"} <= names(epub_folder)
    assert "m101-epub.css" not in names(folder) and SERVED <= names(folder)  # the web site's folder kept as it was

    # Without Sphinx's copy of html_static_path none of them reaches the site: the extension writes none itself.
    shutil.rmtree(book_copy / "_build")
    monkeypatch.setattr(StandaloneHTMLBuilder, "copy_html_static_files", lambda self, context: None)
    bare = build(book_copy)
    assert SERVED <= names(assets.served_dir(bare.app.builder))
    assert not names(Path(bare.app.outdir) / "_static") & names(assets.served_dir(bare.app.builder))
