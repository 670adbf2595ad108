"""What hosted docs give readers and their tools, configured from the book (README: Hosting).

- the 404 page's body (sphinx-notfound-page renders it in the theme): the front page, each part, search;
- link previews (sphinxext-opengraph): a section's description is its first paragraph without the
  part eyebrow, the front page's the book's summary;
- the sitemap (sphinx-sitemap, loaded by conf.py only when Read the Docs gives a canonical URL):
  the root URL beside the pages, and a `robots.txt` that names it;
- `llms.txt` (an index by part, from manual.json) and `llms-full.txt` (the whole book as text, every
  value as the page shows it with its kind named), written from the resolved doctrees of this build;
- each page's "view source" link, at the commit being built (`READTHEDOCS_GIT_COMMIT_HASH`, else
  `git rev-parse HEAD`), for a repository on GitHub, GitLab or Bitbucket (Furo's `source_view_link`;
  another host gets no link rather than a wrong one);
- freshness: each page ends with the Miles commit its facts were last checked against
  (capture/factcheck.json), beside the "Last updated" date Git gives (sphinx-last-updated-by-git).

Each page's text is kept in the doctree directory when the page is written, so a rebuild that
rewrites one page renders one page's text; the two files are assembled at build-finished.
"""
from __future__ import annotations

import functools
import html
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import MethodType
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit, urlunsplit

from docutils import nodes
from sphinx.errors import ConfigError
from sphinx.transforms import SphinxTransform
from sphinx.writers.text import TextTranslator

from ..kinds import KINDS

from .assets import write_if_changed
from .domain import book_of
from .values import value_node

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

#: The web builders: the editions (EPUB, LaTeX, text) get none of this.
WEB_BUILDERS = ("html", "dirhtml")
#: How each kind of value is named in llms-full.txt (the glossary's words).
KIND_WORDS = {k.name: k.llms for k in KINDS if k.llms}
DESCRIPTION_LENGTH = 200
TEXT_DIR = "m101-llms"


def page_url(app: Sphinx, docname: str) -> str:
    """A page's URL: absolute under the canonical URL when there is one, else relative to the site root."""
    return (app.config.html_baseurl or "") + app.builder.get_target_uri(docname)


# -- the canonical URL ------------------------------------------------------------------------------

#: A host as a URL may name it: letters, digits, dots and hyphens (an IPv6 literal in brackets), a port.
HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?")
#: What stays as it is in the path (RFC 3986's pchar and "/" less the quote and the apostrophe, which
#: an HTML attribute or a Markdown link would end at); everything else is percent-encoded.
PATH_SAFE = "/-._~!$&()*+,;=:@%"


def canonical_url(app: Sphinx, config: Config) -> None:
    """Refuse a canonical URL (html_baseurl, from READTHEDOCS_CANONICAL_URL) that is not http(s); percent-encode
    its path, so the 404 page, the links of llms.txt and robots.txt quote no raw `"`, `<` or space."""
    url = config.html_baseurl or ""
    if not url:
        return
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not HOST.fullmatch(parts.netloc or "") or parts.query or parts.fragment:
        raise ConfigError(
            f"html_baseurl (READTHEDOCS_CANONICAL_URL) {url!r} is not an http(s) address of a site "
            "(scheme http or https, a host, a path, no ? or #). Fix: set READTHEDOCS_CANONICAL_URL to the site's "
            "address, e.g. https://<project>.readthedocs.io/en/latest/, or unset it for a local build.")
    path = quote(parts.path, safe=PATH_SAFE)
    path = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", path)  # a lone % is a character, not an escape
    clean = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    if clean != url:
        config.html_baseurl = clean
    if getattr(config, "notfound_urls_prefix", None) == parts.path:  # conf.py took the prefix from the raw URL
        config.notfound_urls_prefix = path or "/"


# -- the 404 page -----------------------------------------------------------------------------------

def notfound_body(app: Sphinx, config: Config) -> None:
    """Fill sphinx-notfound-page's body from the book: links to the front page, each part's first page, search."""
    if "notfound.extension" not in app.extensions:
        return
    book = config._m101_book
    prefix = config.notfound_urls_prefix or "/"
    parts = "".join(
        f'<li><a href="{prefix}{html.escape(p.sections[0].docname)}.html">{html.escape(p.caption)}</a></li>'
        for p in book.parts if p.sections)
    title = html.escape(book.data["title"])
    config.notfound_context = {
        "title": "Page not found",
        "body": (f"<h1>Page not found</h1><p>This address is not a page of {title}. "
                 f'Start from <a href="{prefix}{book.root_doc}.html">the front page</a>, '
                 f'<a href="{prefix}search.html">search the book</a>, or open a part:</p><ul>{parts}</ul>'),
    }


# -- view the page's source ------------------------------------------------------------------------

#: How each known host shows a file at a commit; {repo}, {commit}, and Furo's own {filename}.
SOURCE_VIEW = {"github.com": "{repo}/blob/{commit}/{{filename}}", "gitlab.com": "{repo}/-/blob/{commit}/{{filename}}",
               "bitbucket.org": "{repo}/src/{commit}/{{filename}}"}


def built_commit(root: Path) -> str | None:
    """The commit being built: Read the Docs says it; else the checkout's HEAD; None outside Git."""
    given = os.environ.get("READTHEDOCS_GIT_COMMIT_HASH", "").strip()
    if given:
        return given
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def view_source_link(app: Sphinx, config: Config) -> None:
    """Point Furo's "view this page" at the page's file in the book's repository, at this build's commit."""
    url = config.m101_repository_url  # repository.setup_repository declares it ("" without a repository)
    host = urlsplit(url).hostname if url else None
    template = SOURCE_VIEW.get(host or "")
    if not template or config.html_theme != "furo" or "source_view_link" in config.html_theme_options:
        return
    commit = built_commit(Path(app.confdir))
    if commit:
        config.html_theme_options = {**config.html_theme_options,
                                     "source_view_link": template.format(repo=url, commit=commit)}


# -- link previews ----------------------------------------------------------------------------------

def first_paragraph(doctree: nodes.document) -> str:
    """The text of a page's first paragraph of prose: not the part eyebrow, an admonition or a figure."""
    for para in doctree.findall(nodes.paragraph):
        if "m101-eyebrow" in para["classes"] or any(
                isinstance(a, (nodes.Admonition, nodes.Invisible, nodes.figure, nodes.table, nodes.field_list))
                for a in _ancestors(para)):
            continue
        text = " ".join(para.astext().split())
        if text:
            return text
    return ""


def _ancestors(node: nodes.Node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def shorten(text: str, length: int = DESCRIPTION_LENGTH) -> str:
    """Cut at a word boundary, with an ellipsis when cut."""
    if len(text) <= length:
        return text
    return text[:length].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def describe_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                  doctree: nodes.document | None) -> None:
    """Give sphinxext-opengraph the page's description through the page's own meta fields."""
    if app.builder.name not in WEB_BUILDERS or doctree is None:
        return
    book = book_of(app.env)
    text = book.data["summary"] if pagename == book.root_doc else first_paragraph(doctree)
    if text:
        context["meta"] = {**(context.get("meta") or {}), "og:description": shorten(" ".join(text.split()))}
    sitemap_links = getattr(app, "sitemap_links", None)  # sphinx-sitemap's queue, where it is loaded
    if pagename == book.root_doc and sitemap_links is not None:
        sitemap_links.put(("", None))  # the root URL: index.html is the front page (assets.write_index)


# -- freshness: when the facts of a page were last checked --------------------------------------------

#: The fact-check record (miles101.factcheck.FILE; tests/test_hosting.py holds the two equal).
FACTCHECK_FILE = "capture/factcheck.json"
#: page -> ((commit, date, by an independent reader) of its last check, the date of its last independent check
#: when that is another one); a page with no check is not in it.
LastChecks = dict[str, tuple[tuple[str, str, bool], "str | None"]]


def checks_table(srcdir: Path) -> LastChecks:
    """What FactsLastChecked prints for each page, from capture/factcheck.json (ValueError: not JSON): parsed once
    a process for the record's bytes, not for each page read (about 10 ms a parse; no memo is kept between
    builds: it saved less than a cache must, benchmarks/README.md)."""
    path = srcdir / FACTCHECK_FILE
    return _checks_of(srcdir, path.read_bytes() if path.is_file() else None)


@functools.lru_cache(maxsize=1)
def _checks_of(srcdir: Path, record_bytes: bytes | None) -> LastChecks:
    """checks_table's work; the record's bytes are the key (a changed record is parsed again)."""
    from ..factcheck import load_factcheck

    record = load_factcheck(srcdir)
    got: LastChecks = {}
    for page in record.pages():
        last, independent = record.last_checked(page), record.last_checked(page, independent=True)
        if last is not None:
            got[page] = ((last.commit, last.date, last.independent),
                         independent.date if independent is not None and independent is not last else None)
    return got


class FactsLastChecked(SphinxTransform):
    """End each page of the book with the Miles commit its facts were last checked against, and by whom."""

    default_priority = 890  # after the page's values list (chrome.ValuesOnPage, 880)

    def apply(self, **kwargs: Any) -> None:
        book = book_of(self.env)
        docname = self.env.docname
        page = next((f for f in book.page_files if f.removesuffix(".md") == docname), None)
        top = next(iter(self.document.findall(nodes.section)), None)
        if page is None or top is None or any("m101-unwritten" in p["classes"] for p in top.findall(nodes.paragraph)):
            return  # not a page of the book, or one not written yet: no facts to have checked
        if (Path(self.env.srcdir) / FACTCHECK_FILE).is_file():  # a missing dependency would re-read the page every build
            self.env.note_dependency(FACTCHECK_FILE)
        try:
            checks = checks_table(Path(self.env.srcdir))
        except ValueError:  # not JSON: the intake's check of the file names the line and the fix (manual.capture)
            return
        last, independent = checks.get(page, (None, None))
        line = nodes.paragraph(classes=["m101-checked"])
        if last is None:
            line += nodes.Text(f"No fact-check of this page against Miles's source is recorded yet ({FACTCHECK_FILE}).")
        else:
            commit, date, by_independent = last
            line += nodes.Text("Facts on this page last checked against Miles ")
            line += nodes.literal("", commit[:9])
            who = "an independent reader" if by_independent else "the writer of the change"
            line += nodes.Text(f" on {date}, by {who}")
            if independent is not None:
                line += nodes.Text(f"; last by an independent reader on {independent}")
            line += nodes.Text(f" ({FACTCHECK_FILE}).")
        # After the page's last words: inside its last subsection when it has one (no body text may
        # follow a subsection in a docutils section).
        last_section = top
        while last_section.children and isinstance(last_section.children[-1], nodes.section):
            last_section = last_section.children[-1]
        last_section += line


# -- llms-full.txt: each page as text --------------------------------------------------------------

def _visit_value(self: TextTranslator, node: value_node) -> None:
    kind = KIND_WORDS.get(node["kind"], node["kind"])
    facts = [kind]
    if node.get("run"):
        facts.append(f"run {node['run']}")
    if node.get("source"):
        facts.append(node["source"])
    if node["text"] == "pending":
        self.add_text(f"pending ({', '.join(facts)}; not recorded yet)")
    else:
        self.add_text(f"{node['text']} ({', '.join(facts)})")
    raise nodes.SkipNode


def _visit_literal(self: TextTranslator, node: nodes.literal) -> None:
    self.add_text("`")


def _depart_literal(self: TextTranslator, node: nodes.literal) -> None:
    self.add_text("`")


def _pass(self: TextTranslator, node: nodes.Node) -> None:
    """A node only the web draws (sphinx-design's tab inputs, say): its children's text stands for it."""


class UnwrappedText(TextTranslator):
    """The text builder's translator without rewrapping: a paragraph keeps the source's line breaks.
    A reader of llms-full.txt needs no wrapping, Sphinx's wrapper (it measures each character's width)
    cost more than the rest of the page, and it split flags and paths at their hyphens."""

    def end_state(self, wrap: bool = True, end: Sequence[str] | None = ("",), first: str | None = None) -> None:
        super().end_state(False, end, first)

    def visit_Text(self, node: nodes.Text) -> None:
        """Text keeps its line breaks where a page's source wrote them; in a paragraph the build made from data
        (no source line: a part's thesis, a run's title) a break is a space, so no data starts a line of its own."""
        text = node.astext()
        block = node.parent
        while block is not None and not isinstance(block, (nodes.TextElement, nodes.Structural)):
            block = block.parent
        if "\n" in text and isinstance(block, nodes.paragraph) and block.line is None:
            text = _BREAKS.sub(" ", text)
        self.add_text(text)


def page_text(app: Sphinx, doctree: nodes.document) -> str:
    """A resolved page as plain text, with the text builder's visitors for the book's own nodes."""
    translator = UnwrappedText(doctree, app.builder)
    for name, (visit, depart) in app.registry.translation_handlers.get("text", {}).items():
        setattr(translator, f"visit_{name}", MethodType(visit, translator))
        if depart:
            setattr(translator, f"depart_{name}", MethodType(depart, translator))
    translator.visit_value_node = MethodType(_visit_value, translator)
    translator.visit_literal = MethodType(_visit_literal, translator)
    translator.unknown_visit = MethodType(_pass, translator)
    translator.unknown_departure = MethodType(_pass, translator)
    translator.depart_literal = MethodType(_depart_literal, translator)
    doctree.walkabout(translator)
    return translator.body


def keep_page_text(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Keep the written page's text in the doctree directory (doctree-resolved runs in the main process).

    The translator only reads the doctree (tests/test_hosting.py holds it), so it walks the page itself,
    not a copy."""
    if app.builder.name not in WEB_BUILDERS:
        return
    out = Path(app.doctreedir) / TEXT_DIR / f"{docname}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_BLANK_RUNS.sub("\n\n", page_text(app, doctree)).strip(), encoding="utf-8")


#: Two or more blank lines: one in llms-full.txt (applied as each page's text is kept, so the whole file is a join).
_BLANK_RUNS = re.compile(r"\n{3,}")
#: A line break (and every other control or separator character) in data: one space in llms.txt.
_BREAKS = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
#: What Markdown would read as a block of its own at the start of a line: a heading, a quote, a list item.
_BLOCK_START = re.compile(r"^(#|>|[-*+](\s|$)|[0-9]+[.)](\s|$)|=|`{3}|~{3})")


def md_text(text: str, *, block: bool = False) -> str:
    """Data as Markdown text of one line: breaks become spaces, `\\ [ ] < >` are escaped (no link, no tag),
    and with `block` (a line of its own) a heading, quote or list marker at its start is escaped too."""
    text = _BREAKS.sub(" ", str(text)).strip()
    text = re.sub(r"([\\\[\]<>])", r"\\\1", text)
    if not block or not _BLOCK_START.match(text):
        return text
    numbered = re.match(r"([0-9]+)([.)].*)", text, re.S)  # "1. x" is escaped as "1\. x"
    return f"{numbered[1]}\\{numbered[2]}" if numbered else "\\" + text


def llms_index(app: Sphinx) -> str:
    """llms.txt: the book's title and summary, then each part's thesis and its sections' links.

    Every piece of data is one line of text (md_text): a newline in a thesis adds no heading, a bracket no link.
    """
    book = book_of(app.env)
    d = book.data
    lines = [f"# {md_text(d['title'])}", "", f"> {md_text(d['summary'])}", "", md_text(d.get("subtitle", ""), block=True),
             "", f"The whole book as text, every value with its kind: {app.config.html_baseurl or ''}llms-full.txt"]
    titles = app.env.titles
    for part in book.parts:
        lines += ["", f"## {md_text(part.caption)}", "", md_text(part.thesis, block=True), ""]
        for s in part.sections:
            title = titles[s.docname].astext() if s.docname in titles else s.id
            lines.append(f"- [{md_text(title)}]({page_url(app, s.docname)})")
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def write_llms(app: Sphinx, exception: Exception | None) -> None:
    """Write robots.txt, llms.txt and llms-full.txt into the site."""
    if exception is not None or app.builder.name not in WEB_BUILDERS:
        return
    out = Path(app.outdir)
    book = book_of(app.env)
    robots = "User-agent: *\nAllow: /\n"
    if app.config.html_baseurl and "sphinx_sitemap" in app.extensions:
        robots += f"Sitemap: {app.config.html_baseurl}{app.config.sitemap_filename}\n"
    write_if_changed(out / "robots.txt", robots)
    write_if_changed(out / "llms.txt", llms_index(app))
    texts = Path(app.doctreedir) / TEXT_DIR
    pages = [book.root_doc, *(s.docname for s in book.sections)]
    body = [(texts / f"{doc}.txt").read_text(encoding="utf-8") for doc in pages if (texts / f"{doc}.txt").is_file()]
    write_if_changed(out / "llms-full.txt", "\n\n\n".join(body) + "\n")


def setup_hosting(app: Sphinx) -> None:
    app.add_transform(FactsLastChecked)
    app.connect("config-inited", canonical_url, priority=100)  # before anything quotes html_baseurl
    app.connect("config-inited", notfound_body, priority=800)  # after build_data set the book
    app.connect("config-inited", view_source_link, priority=850)  # after the repository is found
    app.connect("html-page-context", describe_page, priority=400)  # before sphinxext-opengraph (500)
    app.connect("doctree-resolved", keep_page_text, priority=900)  # after the Reference tables are filled
    app.connect("build-finished", write_llms)
