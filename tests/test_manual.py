"""The real manual: it builds with zero warnings, and its front page and sections show the book."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from buildutil import ROOT, build

BOOK = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))
IGNORE = shutil.ignore_patterns("_build", ".venv", ".tox", "node_modules", ".git", "tests", "benchmarks",
                                "test-artifacts", "__pycache__", ".pytest_cache")


@pytest.fixture(scope="session")
def manual(tmp_path_factory: pytest.TempPathFactory):
    src = tmp_path_factory.mktemp("manual") / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    return build(src, parallel=2)


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
    assert (Path(manual.app.outdir) / "index.html").read_text(encoding="utf-8") == html


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
