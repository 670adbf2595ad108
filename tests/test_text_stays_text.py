"""Text stays text where structure is made (issue 51, item 3).

llms.txt turns no newline or bracket of the data into a heading or a link; the calculator's embedded JSON
holds no `<`; a canonical URL that is not http(s) is refused at config-inited, and its path is
percent-encoded, so the 404 page and robots.txt quote no raw `"` or `<`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.errors import ConfigError

from buildutil import build
from miles101.sphinx_ext import calculator
from miles101.sphinx_ext.hosting import canonical_url, md_text

HOSTILE_THESIS = "Real thesis.\n## Part 99\n\n- [Evil](https://evil.example/)\r\n# Title"
HOSTILE_URL = 'https://docs.example.org/a"b<script>/'


@pytest.mark.unit
def test_md_text_keeps_data_on_one_line() -> None:
    assert md_text(HOSTILE_THESIS, block=True) == "Real thesis. ## Part 99 - \\[Evil\\](https://evil.example/) # Title"
    assert md_text("## x", block=True) == "\\## x" and md_text("1. x", block=True) == "1\\. x"
    assert md_text("- y") == "- y" and md_text("1.5 GB fits", block=True) == "1.5 GB fits"


@pytest.mark.unit
@pytest.mark.parametrize("url", ["javascript:alert(1)//", "ftp://x.org/", "https://", "https://x.org/?a=<b>",
                                 'https://x"><script>/', "//x.org/"])
def test_a_canonical_url_that_is_not_http_is_refused(url: str) -> None:
    config = SimpleNamespace(html_baseurl=url, notfound_urls_prefix="/")
    with pytest.raises(ConfigError, match=r"READTHEDOCS_CANONICAL_URL.*Fix: set READTHEDOCS_CANONICAL_URL"):
        canonical_url(None, config)


@pytest.mark.unit
def test_a_canonical_urls_path_is_percent_encoded() -> None:
    config = SimpleNamespace(html_baseurl=HOSTILE_URL, notfound_urls_prefix='/a"b<script>/')
    canonical_url(None, config)
    assert config.html_baseurl == "https://docs.example.org/a%22b%3Cscript%3E/"
    assert config.notfound_urls_prefix == "/a%22b%3Cscript%3E/"
    plain = SimpleNamespace(html_baseurl="https://x.readthedocs.io/en/latest/", notfound_urls_prefix="/en/latest/")
    canonical_url(None, plain)
    assert plain.html_baseurl == "https://x.readthedocs.io/en/latest/" and plain.notfound_urls_prefix == "/en/latest/"


@pytest.mark.unit
def test_the_calculators_payload_cannot_end_or_bend_its_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calculator, "worked_sum_html", lambda *a: "")
    doc = {"pool": {"label": "<!--<script"}, "gpu": "GB10</script><script>alert(1)</script>", "note": "a & b 'c' > d"}
    node = {"doc": doc, "model": {"name": "m<!--"}, "settings": {"fraction": 0.5}, "fit_id": "f", "run": "r"}
    translator = SimpleNamespace(body=[])
    with pytest.raises(calculator.nodes.SkipNode):
        calculator.visit_fit_html(translator, node)
    html = "".join(translator.body)
    payload = re.search(r'<script type="application/json" class="m101-fit-data">(.*?)</script>', html, re.S)[1]
    assert not set("<>&'") & set(payload), payload  # Jinja's htmlsafe_json_dumps escapes all four
    assert json.loads(payload)["pool"]["label"] == "<!--<script" and json.loads(payload)["note"] == doc["note"]


@pytest.mark.build
def test_hostile_thesis_and_canonical_url_publish_as_text(book_copy: Path) -> None:
    manual = json.loads((book_copy / "manual.json").read_text(encoding="utf-8"))
    manual["parts"][0]["thesis"] = HOSTILE_THESIS
    (book_copy / "manual.json").write_text(json.dumps(manual), encoding="utf-8")
    with open(book_copy / "conf.py", "a", encoding="utf-8") as fh:  # as the manual's conf.py does on Read the Docs
        fh.write(f"\nfrom urllib.parse import urlparse\nextensions += ['notfound.extension', 'sphinx_sitemap']\n"
                 f"html_baseurl = {HOSTILE_URL!r}\nsitemap_url_scheme = '{{link}}'\n"
                 "notfound_urls_prefix = urlparse(html_baseurl).path\n")
    built = build(book_copy)
    out = Path(built.app.outdir)
    llms = (out / "llms.txt").read_text(encoding="utf-8")
    assert not [ln for ln in llms.splitlines() if ln.startswith(("## Part 99", "- [Evil]", "# Title"))], llms
    assert "Real thesis. ## Part 99 - \\[Evil\\](https://evil.example/) # Title" in llms
    full = (out / "llms-full.txt").read_text(encoding="utf-8")
    assert "Real thesis." in full and not [ln for ln in full.splitlines() if ln.lstrip().startswith(
        ("## Part 99", "- [Evil]", "# Title"))], "a newline in the thesis starts a line of llms-full.txt"
    for name in ("404.html", "robots.txt", "llms.txt"):
        text = (out / name).read_text(encoding="utf-8")
        assert "docs.example.org/a%22b%3Cscript%3E/" in text or "/a%22b%3Cscript%3E/" in text, name
        assert 'a"b' not in text and "<script>/" not in text, f"{name} quotes the raw URL"


@pytest.mark.build
def test_a_javascript_canonical_url_stops_the_build(book_copy: Path) -> None:
    with open(book_copy / "conf.py", "a", encoding="utf-8") as fh:
        fh.write("\nhtml_baseurl = 'javascript:alert(1)//'\n")
    with pytest.raises(ConfigError, match="is not an http\\(s\\) address"):
        build(book_copy)
