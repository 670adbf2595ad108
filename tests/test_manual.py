"""The real manual: it builds with zero warnings, and its front page and sections show the book."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from buildutil import ROOT

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

BOOK = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))


def test_builds_without_warnings(manual) -> None:
    assert manual.warnings == "", manual.warnings[:3000]
    assert manual.app.statuscode == 0


def test_front_page_shows_the_book(manual) -> None:
    html = manual.html("front")
    for part in BOOK["parts"]:
        assert f'<p class="m101-card-number">Part {part["number"]}</p>' in html
        assert f'<p class="m101-card-title">{part["title"]}</p>' in html
        assert f"m101-card m101-accent-{part['accent']}" in html
    assert BOOK["pin"]["commit"] in html
    assert html.count('class="m101-swatch m101-accent-') == len(BOOK["palette"])
    assert f'id="{BOOK["plate"]["figure"]}"' in html
    index = (Path(manual.app.outdir) / "index.html").read_text(encoding="utf-8")
    assert index.replace('<link rel="canonical" href="front.html">\n', "") == html  # the same page, one canonical
    assert '<link rel="canonical" href="front.html">' in index


def test_sections_show_id_and_accent(manual) -> None:
    for part in [*BOOK["parts"], BOOK["reference"]]:
        for section in part["sections"]:
            html = manual.html(section["file"].removesuffix(".md"))
            assert re.search(rf'<span class="m101-secnum">{re.escape(section["id"])} </span>', html), section
            assert f"m101-eyebrow m101-accent-{part['accent']}" in html, section


def test_every_section_is_written(manual) -> None:
    for part in BOOK["parts"]:
        for section in part["sections"]:
            assert "m101-unwritten" not in manual.html(section["file"].removesuffix(".md")), section["id"]


class _Anchors(HTMLParser):
    """The ids a page defines and the links it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value or "")
            elif name == "href" and tag == "a" and value:
                self.links.append(value)


def site_anchors(outdir: Path) -> dict[Path, _Anchors]:
    pages = {}
    for page in sorted(outdir.rglob("*.html")):
        if page.relative_to(outdir).parts[0] in ("_static", "_downloads", "_sources"):
            continue
        parser = _Anchors()
        parser.feed(page.read_text(encoding="utf-8"))
        pages[page] = parser
    return pages


def broken_fragments(outdir: Path) -> list[str]:
    """Every internal link `page#fragment` whose page or fragment does not exist in the built site."""
    outdir = outdir.resolve()
    pages = site_anchors(outdir)
    broken = []
    for page, parsed in pages.items():
        for href in parsed.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.fragment:
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(outdir)} → {href}"
            if target not in pages:
                broken.append(f"{where} (no such page)")
            elif unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{where} (no id {parts.fragment!r} on {target.relative_to(outdir)})")
    return broken


def test_every_internal_fragment_exists(manual) -> None:
    """A link to `page#fragment` lands on an element of that page, never on its top (issue 16)."""
    broken = broken_fragments(Path(manual.app.outdir))
    assert not broken, f"{len(broken)} links to fragments that do not exist:\n" + "\n".join(broken[:40])


def test_cited_passthrough_flags_have_entries(manual) -> None:
    """The passthrough flags the pages cite have a row of their own in R.1, under the flag's anchor."""
    out = Path(manual.app.outdir)
    pages = {p: p.read_text(encoding="utf-8") for p in (out / "sections").glob("*.html")}
    r1 = pages[out / "sections" / "r-1-flags-by-job.html"]
    assert "Passthrough flags the book cites" in r1
    for name in ("--sglang-decode-log-interval", "--sglang-attention-backend", "--sglang-context-length",
                 "--router-policy"):  # a row in R.1, or a flag block of its own on a page
        anchor = f'id="flag-{name.lstrip("-")}"'
        assert any(anchor in html for html in pages.values()), name
