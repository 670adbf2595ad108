"""A `{ref}` to a section whose title holds code shows that code as code (`miles101.sphinx_ext.code_refs`),
on the same page and from another page, so a quoted log line such as 7.1's `Max retries (60) reached` never
reads as prose with a typed number in it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from docutils import nodes
from sphinx.testing.util import SphinxTestApp

from miles101.sphinx_ext.code_refs import code_runs

CONF = '''
from miles101.sphinx_ext.code_refs import setup_code_refs
extensions = ["myst_parser"]
def setup(app):
    setup_code_refs(app)
'''
SYMPTOMS = '''# Symptoms

- {ref}`max-retries`
- {ref}`flat-zero`
- {ref}`plain`

(max-retries)=
## `Max retries (60) reached, failing...`

Text.

(flat-zero)=
## `rollout/raw_reward` at `0` in every step

Text.

(plain)=
## A plain title

Text.
'''
INDEX = '''# Index

See {ref}`max-retries` and {ref}`plain`.

```{toctree}
symptoms
```
'''


def _section(*title: nodes.Node) -> nodes.section:
    return nodes.section("", nodes.title("", "", *title), nodes.paragraph("", "text"))


def test_a_title_is_read_as_runs_of_code_and_text() -> None:
    assert code_runs(_section(nodes.Text("A plain title"))) is None
    assert code_runs(_section(nodes.literal("x 60", "x 60"))) == ((True, "x 60"),)
    linked = nodes.reference("", "", nodes.literal("rollout/raw_reward", "rollout/raw_reward"))
    assert code_runs(_section(linked, nodes.Text(" at "), nodes.literal("0", "0"))) == (
        (True, "rollout/raw_reward"), (False, " at "), (True, "0"))
    assert code_runs(nodes.paragraph("", "not a section")) is None


def _html(tmp_path: Path) -> dict[str, str]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.md").write_text(INDEX, encoding="utf-8")
    (src / "symptoms.md").write_text(SYMPTOMS, encoding="utf-8")
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "out")
    try:
        app.build()
        out = Path(app.outdir)
    finally:
        app.cleanup()
    return {name: (out / f"{name}.html").read_text(encoding="utf-8") for name in ("index", "symptoms")}


def _link(page: str, anchor: str) -> str:
    return re.search(r'<a class="reference internal" href="[^"]*#' + anchor + r'">(.*?)</a>', page, re.S)[1]


@pytest.mark.build
def test_links_to_code_titles_show_code_on_the_page_and_across_pages(tmp_path: Path) -> None:
    html = _html(tmp_path)
    for page in ("index", "symptoms"):
        link = _link(html[page], "max-retries")
        assert re.search(r'<code class="docutils literal[^"]*">.*\(60\).*</code>', link), link
        assert "<code" not in _link(html[page], "plain"), "a plain title stays plain"
    mixed = _link(html["symptoms"], "flat-zero")
    assert re.findall(r"<code[^>]*>(.*?)</code>", mixed) and " at " in re.sub(r"<code.*?</code>", "", mixed)
    assert mixed.count("<code") == 2, mixed
