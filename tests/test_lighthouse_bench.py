"""benchmarks/lighthouse.py's own parts: the drawing counter, the page lookup, the gzipping server."""
from __future__ import annotations

import gzip
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import lighthouse  # noqa: E402


def test_drawings_and_plots_are_counted_not_the_theme_icons(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text('<p>x</p><svg class="theme-icon"><use href="#a"/></svg>'
                    '<svg role="img" aria-label="d"><g><text>a</text><path d="M0"/></g></svg>'
                    '<svg class="m101-plot-svg"><rect/><line/></svg><p>after</p>', encoding="utf-8")
    assert lighthouse.svg_elements(page) == 4 + 3


def test_static_dom_counts_every_element_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book, plain = tmp_path / "book", tmp_path / "plain"
    for d, body in ((book, '<p>a <a class="m101-value">1</a></p><svg role="img"><g><path d="M0"/></g></svg>'),
                    (plain, "<p>a <code>1</code></p>")):
        d.mkdir()
        (d / "index.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    assert lighthouse.static_dom(book / "index.html") == (7, 3)
    lighthouse.print_static_dom({"front": "index.html"}, book, plain)
    assert "| front | 7 / 4 | 4 / 4 = 1.00x | ok |" in capsys.readouterr().out


def test_pages_by_number_and_a_clear_error() -> None:
    pages = lighthouse.page_paths(ROOT, ["front", "1.3"])
    assert pages["front"] == "index.html"
    assert pages["1.3"].startswith("sections/1-3-") and pages["1.3"].endswith(".html")
    with pytest.raises(SystemExit, match="no page '9.9'"):
        lighthouse.page_paths(ROOT, ["9.9"])


def test_served_gzipped_when_asked(tmp_path: Path) -> None:
    (tmp_path / "a.css").write_text("body{color:red}" * 50, encoding="utf-8")
    httpd, url = lighthouse.serve(tmp_path)
    try:
        req = urllib.request.Request(url + "a.css", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req) as r:
            assert r.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(r.read()).decode() == "body{color:red}" * 50
        with urllib.request.urlopen(url + "a.css") as r:
            assert r.headers.get("Content-Encoding") is None and len(r.read()) == 15 * 50
    finally:
        httpd.shutdown()
