"""```{compare-run}```: paste or drop a Miles log, and the page puts its steps beside a public run's series, as
``read_run.py LOG --compare --against SERIES --at STEPS`` does, and draws the curves; no verdict.

The page reads the log with the log doctor's reader (``log-doctor-core.js``, read_run.py's step parser ported, and
the rule set ``log_doctor`` serves as ``m101-doctor-rules.json``); ``compare-run.js`` holds the table and the
drawing, and ``compare-run-worker.js`` reads a big file off the page's thread, started by the doctor's runner
(``worker-run.js``, served with the doctor's files). What it compares is data the page
carries: each public series' steps and the columns read_run.py puts in its table (``read_run.SERIES_THEIRS``),
with the keys and the no-verdict sentence read_run.py uses, so the two cannot disagree by construction of their
inputs; ``tests/lab/test_compare_run_parity.py`` runs both over the same logs.

Outside the web site (EPUB, LaTeX, text) it becomes a paragraph naming the read_run.py command.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from docutils import nodes
from jinja2.utils import htmlsafe_json_dumps
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.osutil import relative_uri

from .assets import serve, served_dir
from .base import ManualDirective
from .domain import domain_of
from .log_doctor import RULES_FILE

STATIC = Path(__file__).with_name("static")
FILES = ("compare-run.js", "compare-run-worker.js", "compare-run.css")
#: The public series the page offers, in this order (capture/series/<id>.json).
SERIES = ("verl-gsm8k-qwen2.5-0.5b-ppo", "verl-gsm8k-qwen2.5-0.5b-grpo-lora")
COMMAND = 'python3 read_run.py "$LOG" --compare --against verl-gsm8k-qwen2.5-0.5b-ppo --at 0,5,9'
NO_VERDICT = ("No verdict. The book has no recorded run of this recipe yet, and verdicts (each key of Miles's "
              "GATE_DEFAULTS in Miles's CI band, shadow and loose) are given only against the book's own recorded "
              "runs; a public run is someone else's (another framework, method, model and scorer), so it is drawn "
              "beside yours and never judges it.")


class compare_run(nodes.General, nodes.Element):
    """The component's mount point."""


class CompareRunDirective(ManualDirective):
    """```{compare-run}``` (no argument, no content)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        for sid in SERIES:  # the page carries these series: a change to one writes the page again
            self.env.note_dependency(str(Path(self.env.srcdir) / "capture" / "series" / f"{sid}.json"))
        node = compare_run("")
        self.set_source_info(node)
        return [node]


def page_data(root: Path) -> dict[str, Any]:
    """What the component compares: each public series (its steps and read_run's columns) and read_run's keys.
    read_run is imported here, when a page holds the component, not with the extension."""
    from ..tools import read_run

    series = []
    for sid in SERIES:
        doc = json.loads((root / "capture" / "series" / f"{sid}.json").read_text(encoding="utf-8"))
        series.append({"id": doc["id"], "title": doc["title"], "source": {"url": doc["source"]["url"]},
                       "settings": doc["settings"], "gpu_note": doc["gpu_note"], "steps": doc["steps"],
                       "metrics": {k: doc["metrics"][k] for k in read_run.SERIES_THEIRS if k in doc["metrics"]}})
    return {"series": series, "no_verdict": NO_VERDICT,
            "keys": {"yours": list(read_run.SERIES_YOURS), "theirs": list(read_run.SERIES_THEIRS),
                     "why_no_verdict": read_run.SERIES_NO_VERDICT}}


def visit_compare_html(self: Any, node: compare_run) -> None:
    offline = f"<code>{escape(COMMAND)}</code>"
    if self.builder.name.startswith("epub") or not (served_dir(self.builder) / RULES_FILE).is_file():
        self.body.append(f'<p class="m101-compare-edition"><em>Compare your run with a public one: in the web '
                         f"edition the page does it; here, run {offline}.</em></p>\n")
        raise nodes.SkipNode
    here = self.builder.get_target_uri(self.builder.current_docname)
    rules = relative_uri(here, f"_static/{RULES_FILE}")
    data = htmlsafe_json_dumps(page_data(Path(self.builder.srcdir)), separators=(",", ":"))  # Jinja's `tojson`
    self.body.append(
        f'<section class="m101-compare" data-rules="{escape(rules)}" aria-label="Compare your run">'
        f'<p class="m101-compare-nojs">Comparing your run in the page needs JavaScript. Without it, run {offline}: '
        "it prints the same table.</p>"
        f'<script type="application/json" class="m101-compare-data">{data}</script>'
        '<div class="m101-compare-app" hidden></div></section>\n')
    raise nodes.SkipNode


class CompareForEditions(SphinxPostTransform):
    """LaTeX, text and the other non-HTML writers: the component becomes a paragraph naming the command."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        if getattr(domain_of(self.env), "edition_writes_html", True):
            return
        for node in list(self.document.findall(compare_run)):
            para = nodes.paragraph("", "", classes=["m101-compare-edition"])
            para += nodes.emphasis("", "Compare your run with a public one: in the web edition the page does it; here, run ")
            para += nodes.literal("", COMMAND)
            para += nodes.Text(".")
            node.replace_self(para)


def _install(app: Sphinx) -> None:
    if app.builder.format != "html" or app.builder.name.startswith("epub"):
        return
    for name in FILES:
        serve(app, f"m101-{name}", (STATIC / name).read_bytes())


def _page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The component's stylesheet and module on the pages that hold one, and nowhere else (a module script is
    deferred)."""
    if doctree is None or doctree.next_node(compare_run) is None or app.builder.name.startswith("epub"):
        return
    app.add_css_file("m101-compare-run.css")
    app.add_js_file("m101-compare-run.js", type="module")


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


DIRECTIVES = {"compare-run": CompareRunDirective}


def setup_compare_run(app: Sphinx) -> None:
    """Register the directive, its node, the editions' stand-in, and the asset events."""
    app.add_node(compare_run, html=(visit_compare_html, None), text=(_skip, None), latex=(_skip, None),
                 man=(_skip, None), texinfo=(_skip, None))
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.add_post_transform(CompareForEditions)
    app.connect("builder-inited", _install, priority=601)
    app.connect("html-page-context", _page_assets)
