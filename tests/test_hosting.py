"""Hosting: the 404 page, the sitemap, link previews, robots.txt, llms.txt and llms-full.txt.

Two builds of the real manual: the local one of the `manual` fixture (no canonical URL) and one
with Read the Docs' environment variables set, as its builders set them.
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from buildutil import ROOT, build_manual_copy

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

BOOK = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))
SECTIONS = [s for part in [*BOOK["parts"], BOOK["reference"]] for s in part["sections"]]
PAGES = ["front", *(s["file"].removesuffix(".md") for s in SECTIONS)]
CANONICAL = "https://miles101.example.org/en/latest/"
REPOSITORY = "https://github.com/example/miles101"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
RTD_ENV = {"READTHEDOCS": "True", "READTHEDOCS_CANONICAL_URL": CANONICAL, "READTHEDOCS_VERSION": "latest",
           "READTHEDOCS_LANGUAGE": "en", "READTHEDOCS_GIT_CLONE_URL": f"https://ci:secret-token@github.com/example/miles101.git",
           "READTHEDOCS_GIT_COMMIT_HASH": COMMIT}


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory):
    """The manual built as Read the Docs builds it (its environment variables set while conf.py runs)."""
    mp = pytest.MonkeyPatch()
    for key, value in RTD_ENV.items():
        mp.setenv(key, value)
    try:
        return build_manual_copy(tmp_path_factory.mktemp("hosted") / "src")
    finally:
        mp.undo()


def out(built) -> Path:
    return Path(built.app.outdir)


class _Meta(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.og: dict[str, str] = {}
        self.assets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("property") or "").startswith("og:"):
            self.og[a["property"]] = a.get("content") or ""
        if tag == "link" and a.get("rel") == "stylesheet" or tag == "script" and a.get("src"):
            self.assets.append(a.get("href") or a.get("src") or "")


def meta(html: str) -> _Meta:
    parser = _Meta()
    parser.feed(html)
    return parser


def test_the_hosted_build_is_clean(hosted) -> None:
    assert hosted.warnings == "", hosted.warnings[:3000]


def test_404_loads_its_assets_from_the_site_root_locally(manual) -> None:
    page = (out(manual) / "404.html").read_text(encoding="utf-8")
    assets = meta(page).assets
    assert assets and all(a.startswith("/_static/") for a in assets), assets
    assert 'href="/front.html"' in page and 'href="/search.html"' in page
    for part in BOOK["parts"]:
        first = part["sections"][0]["file"].removesuffix(".md")
        assert f'href="/{first}.html"' in page, part["title"]


def test_404_uses_read_the_docs_prefix_when_hosted(hosted) -> None:
    page = (out(hosted) / "404.html").read_text(encoding="utf-8")
    assets = meta(page).assets
    assert assets and all(a.startswith("/en/latest/_static/") for a in assets), assets
    assert 'href="/en/latest/front.html"' in page


def test_local_build_has_no_sitemap_and_robots_names_none(manual) -> None:
    assert not (out(manual) / "sitemap.xml").exists()
    assert "Sitemap:" not in (out(manual) / "robots.txt").read_text(encoding="utf-8")


def test_sitemap_lists_each_book_page_once_and_the_root(hosted) -> None:
    tree = ET.parse(out(hosted) / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in tree.getroot().findall("s:url/s:loc", ns)]
    expected = [CANONICAL] + [f"{CANONICAL}{page}.html" for page in PAGES]
    assert sorted(locs) == sorted(expected), set(locs) ^ set(expected)
    robots = (out(hosted) / "robots.txt").read_text(encoding="utf-8")
    assert f"Sitemap: {CANONICAL}sitemap.xml" in robots


@pytest.mark.parametrize("page", PAGES)
def test_every_page_has_a_link_preview(manual, page: str) -> None:
    og = meta((out(manual) / f"{page}.html").read_text(encoding="utf-8")).og
    assert og.get("og:title") and og.get("og:site_name") == "Miles 101", og
    description = og.get("og:description", "")
    assert description.strip(), f"{page}: no og:description"
    assert not re.match(r"(Part \d|Reference) ·", description), f"{page}: the eyebrow leaked: {description!r}"


def test_front_page_preview_is_the_book_summary(manual) -> None:
    og = meta((out(manual) / "front.html").read_text(encoding="utf-8")).og
    assert og["og:description"] == BOOK["summary"][:200] or BOOK["summary"].startswith(og["og:description"][:-1])


def test_llms_txt_lists_every_section_by_part(hosted) -> None:
    text = (out(hosted) / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith(f"# {BOOK['title']}\n")
    positions = []
    for part in [*BOOK["parts"], BOOK["reference"]]:
        heading = text.index(f"\n## ", text.index(part["thesis"]) - 200)
        for s in part["sections"]:
            link = f"({CANONICAL}{s['file'].removesuffix('.md')}.html)"
            assert text.count(link) == 1, link
            assert text.index(link) > heading
            positions.append(text.index(link))
    assert positions == sorted(positions), "sections out of the book's order"


def test_llms_full_reads_as_the_pages_do(manual) -> None:
    text = (out(manual) / "llms-full.txt").read_text(encoding="utf-8")
    assert not re.search(r"\{[a-z-]+\}`", text), "a raw role reached llms-full.txt"
    assert "m101-tip" not in text and "m101-" not in text, "HTML classes reached llms-full.txt"
    flat = " ".join(text.split())
    for kind in ("pending (measured, run first-grpo", "(computed", "(fact", "(public reference"):
        assert kind in flat, kind
    assert "`--colocate`" in flat, "flags read as code"
    assert flat.startswith(BOOK["title"]), "the front page comes first"
    titles = [s["id"] for s in SECTIONS]
    at = [flat.find(f"{sid} ") for sid in titles]
    assert all(i >= 0 for i in at), "a section is missing"
    pending_pages = [p for p in PAGES if "m101-pending" in (out(manual) / f"{p}.html").read_text(encoding="utf-8")]
    assert flat.count("not recorded yet)") >= len(pending_pages)


def test_the_page_text_leaves_the_page_as_it_was(manual) -> None:
    from miles101.sphinx_ext.hosting import page_text

    app = manual.app
    for doc in sorted(app.env.found_docs):
        doctree = app.env.get_and_resolve_doctree(doc, app.builder, tags=app.builder.tags)
        before = doctree.pformat()
        assert page_text(app, doctree).strip(), doc
        assert doctree.pformat() == before, f"{doc}: the text translator changed the page it reads"


def test_each_page_says_when_its_facts_were_last_checked(manual) -> None:
    from miles101.factcheck import load_factcheck

    record = load_factcheck(ROOT)
    for page in PAGES:
        html = (out(manual) / f"{page}.html").read_text(encoding="utf-8")
        assert html.count('class="m101-checked"') == 1, page
        last = record.last_checked("front.md" if page == "front" else f"{page}.md")
        if last is None:
            assert "No fact-check of this page" in html, page
        else:
            assert last.commit[:9] in html and last.date in html, page


def test_each_page_links_its_source_at_the_built_commit(hosted, manual) -> None:
    for page in PAGES:
        html = (out(hosted) / f"{page}.html").read_text(encoding="utf-8")
        assert f'href="{REPOSITORY}/blob/{COMMIT}/{page}.md"' in html, page
        assert "secret-token" not in html
    # a copy without a repository (no origin, no Read the Docs) links no source and stays clean under -nW
    assert 'class="view-this-page"' not in (out(manual) / "sections/1-1-run-grpo-on-one-gpu.html").read_text(encoding="utf-8")


def test_the_last_checks_are_read_from_the_record_as_it_is(tmp_path: Path) -> None:
    """FactsLastChecked's table comes from capture/factcheck.json's bytes now (no memo is kept between builds:
    it saved less than a cache must, benchmarks/README.md)."""
    from miles101 import factcheck
    from miles101.sphinx_ext import hosting

    assert hosting.FACTCHECK_FILE == factcheck.FILE
    record = tmp_path / hosting.FACTCHECK_FILE
    record.parent.mkdir(parents=True)
    record.write_bytes((ROOT / hosting.FACTCHECK_FILE).read_bytes())
    first = hosting.checks_table(tmp_path)
    assert first and all(len(commit) >= 9 for (commit, _date, _by), _ in first.values())
    doc = json.loads(record.read_text(encoding="utf-8"))
    doc["checks"] = doc["checks"][:1]
    record.write_text(json.dumps(doc), encoding="utf-8")
    assert len(hosting.checks_table(tmp_path)) == 1
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")] == ["capture", hosting.FACTCHECK_FILE]
