"""```{log-doctor}```: paste or drop a Miles log, and the page answers as ``read_run.py --diagnose`` does.

The rule set is ``miles101.doctor_rules.rules()`` (7.1's symptoms, the reader's thresholds,
read_run.py's patterns): the build serves it as ``_static/m101-doctor-rules.json`` with the
page's modules (the matching in ``log-doctor-core.js``, a worker and ``worker-run.js``, which starts it or reads
on the page's thread where none can start, the component). The pages
that hold the directive, and no other, get a small deferred loader (``log-doctor-loader.js``) that
imports the component, which then fetches the rules, when the reader comes to the doctor: the page
itself loads none of it. The JavaScript holds no rule of its own.

Outside the web site (EPUB, LaTeX, text) the component cannot run: it becomes a paragraph that says
what it is, how to get the same answer with read_run.py, and where the web page is.
"""
from __future__ import annotations

from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.osutil import relative_uri

from ..doctor_rules import SYMPTOMS, rules_text
from ..problems import ProblemError
from ..rulefiles import missing_rules
from .assets import serve, served_dir
from .base import ManualDirective
from .domain import domain_of

STATIC = Path(__file__).with_name("static")
#: worker-run.js is the one worker runner of the doctor and of ``compare-run`` (which mounts only where these are served).
FILES = ("log-doctor-core.js", "worker-run.js", "log-doctor-worker.js", "log-doctor.js", "log-doctor-loader.js",
         "log-doctor.css")
RULES_FILE = "m101-doctor-rules.json"
#: The rule set the last build served, kept in the doctree dir for the same rule files and code.
RULES_MEMO = "m101-doctor-rules.pickle"
#: The page whose entries the doctor links to (read_run.PAGE_PATH without its suffix).
PAGE_DOC = "sections/7-1-troubleshoot-by-symptom"
WHAT = ("The log doctor: paste or drop a Miles log, and it shows each entry of 7.1 the log points at, the one "
        "the log's evidence supports first and why (its first matching line and how many lines match, or for open "
        "timers where the latest started and how many are open; the entry's check, and its causes in the order to "
        "check with the fixes your run's arguments allow) and the first ten steps against "
        "the cut-offs of 1.3's table (ours and Miles's published ones), read in the page without uploading anything.")


class log_doctor(nodes.General, nodes.Element):
    """The log doctor's mount point."""


class LogDoctorDirective(ManualDirective):
    """```{log-doctor}``` (no argument, no content)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        missing = missing_rules(Path(self.env.srcdir), self.env.doc2path(self.env.docname, False), self.lineno)
        if missing is not None:  # no page mounts a doctor without rules (a FIFO or a directory: validate names it)
            return self.refuse(replace(missing, where=""))
        node = log_doctor("")
        self.set_source_info(node)
        return [node]


def _web_page(config: Any) -> str:
    base = config.html_baseurl or ""
    return f"{base}{PAGE_DOC}.html" if base else ""


def visit_doctor_html(self: Any, node: log_doctor) -> None:
    here = self.builder.current_docname
    if self.builder.name.startswith("epub"):
        web = _web_page(self.builder.config)
        link = f' <a href="{escape(web)}">{escape(web)}</a>' if web else ""
        self.body.append(f'<p class="m101-doctor-edition"><em>{escape(WHAT)} It runs in the web edition'
                         f"{' at' if web else ''}{link}. Here, run <code>python3 miles101-tools.pyz read_run \"$LOG\" --diagnose</code>.</em></p>\n")
        raise nodes.SkipNode
    if not (served_dir(self.builder) / RULES_FILE).is_file():  # no rules served: no doctor mounted
        self.body.append('<p class="m101-doctor-nojs">The log doctor has no rules in this build. Run '
                         '<code>python3 miles101-tools.pyz read_run "$LOG" --diagnose</code>: it prints the entries of 7.1.</p>\n')
        raise nodes.SkipNode
    target = self.builder.get_target_uri(here)
    rules = relative_uri(target, f"_static/{RULES_FILE}")
    page = self.builder.get_relative_uri(here, PAGE_DOC)
    self.body.append(
        f'<section class="m101-doctor" data-rules="{escape(rules)}" data-page="{escape(page)}" aria-label="Log doctor">'
        '<p class="m101-doctor-nojs">The log doctor needs JavaScript. Without it, run '
        '<code>python3 miles101-tools.pyz read_run "$LOG" --diagnose</code>: it prints the same entries.</p>'
        '<div class="m101-doctor-app" hidden></div></section>\n')
    raise nodes.SkipNode


class DoctorForEditions(SphinxPostTransform):
    """LaTeX, text and the other non-HTML writers: the component becomes a paragraph saying what it is."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        if getattr(domain_of(self.env), "edition_writes_html", True):  # EPUB: the HTML visitor's note
            return
        web = _web_page(self.config)
        for node in list(self.document.findall(log_doctor)):
            para = nodes.paragraph("", "", classes=["m101-doctor-edition"])
            para += nodes.emphasis("", f"{WHAT} It runs in the web edition")
            if web:
                para += nodes.Text(" at ")
                para += nodes.reference("", web, refuri=web)
            para += nodes.Text(". Here, run ")
            para += nodes.literal("", 'python3 miles101-tools.pyz read_run "$LOG" --diagnose')
            para += nodes.Text(": it prints the same entries.")
            node.replace_self(para)


def _install(app: Sphinx) -> None:
    """Serve the modules and the rule set from the build's _static."""
    if app.builder.format != "html" or app.builder.name.startswith("epub"):
        return  # e-readers run no modules: the page says where the web edition is
    text = None
    if (Path(app.srcdir) / SYMPTOMS).is_file():
        try:
            text = rules_text(Path(app.srcdir), Path(app.doctreedir) / RULES_MEMO)
        except ProblemError:
            pass  # a broken rule file: both gates name it (miles101.validate); no stale rules stay served
    if text is None:
        (Path(app.outdir) / "_static" / RULES_FILE).unlink(missing_ok=True)  # an earlier build's copy
        return  # a book without 7.1's symptoms has no log doctor to serve
    for name in FILES:
        serve(app, f"m101-{name}", (STATIC / name).read_bytes())
    serve(app, RULES_FILE, text)


def _page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The component's stylesheet and loader on the pages that hold one, and nowhere else: the loader
    imports the component when the reader comes to it."""
    if doctree is None or doctree.next_node(log_doctor) is None or app.builder.name.startswith("epub"):
        return
    app.add_css_file("m101-log-doctor.css")
    app.add_js_file("m101-log-doctor-loader.js", loading_method="defer")


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


DIRECTIVES = {"log-doctor": LogDoctorDirective}


def setup_log_doctor(app: Sphinx) -> None:
    """Register the directive, its node, the editions' stand-in, and the asset events."""
    app.add_node(log_doctor, html=(visit_doctor_html, None), text=(_skip, None), latex=(_skip, None),
                 man=(_skip, None), texinfo=(_skip, None))
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.add_post_transform(DoctorForEditions)
    app.connect("builder-inited", _install, priority=600)
    app.connect("html-page-context", _page_assets)
