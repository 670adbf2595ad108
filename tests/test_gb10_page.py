"""6.4 as a reader gets it: the built page serves Dockerfile.gb10 byte for byte, with the file's own build line, the
base digest from capture/slime/gb10.json, and the untested mark (tests/test_gb10_dockerfile.py checks the file
against the record without a build)."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from miles101 import gb10_image

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parent.parent


def _section(page: str) -> str:
    return page[page.index('id="build-gb10"'):page.index('id="what-to-check"')]


def test_the_page_serves_the_file_with_its_build_line_digest_and_mark(manual) -> None:
    out = Path(manual.app.outdir)
    section = _section((out / "sections" / "6-4-pick-an-image.html").read_text(encoding="utf-8"))
    record = json.loads((ROOT / gb10_image.RECORD).read_text(encoding="utf-8"))
    links = re.findall(r'href="\.\./(_downloads/[0-9a-f]+/Dockerfile\.gb10)"', section)
    assert links, "the section links the served file"
    assert (out / links[0]).read_bytes() == gb10_image.DOCKERFILE.read_bytes()
    text = html.unescape(re.sub(r"<[^>]+>", "", section))
    assert gb10_image.read().build_command in text
    assert f"{record['base']['image']}@{record['base']['digest']}" in text
    assert "Not yet built by this book." in text
