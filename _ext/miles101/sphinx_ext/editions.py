"""The editions and their diagrams: the web site, EPUB, LaTeX/PDF, text.

Diagrams are written in mermaid and drawn once, never in a reader's browser: each is a vector image
drawn by mermaid's CLI (`tools/pdf/`, pinned, driven by Debian's Chromium, never a downloaded
browser). Read the Docs has no Chromium, so the drawings are made where it is (`python3 dev.py draw`,
i.e. `-D m101_diagrams=draw`) and kept in the repository (`drawings/`, with the hash of the source each
was drawn from in its `index.json`). Every edition shows them: the web page holds the SVG inline, its
colours taken from the theme's CSS variables so one drawing serves light and dark (`inline_svg`), the
EPUB embeds the SVG, LaTeX the PDF. Every build checks them: a drawing that is missing or was drawn
from another version of its diagram is a `manual.diagram_drawing` warning naming the figure and the
command that redraws it; there the web page shows the diagram's source and the other editions a line
that sends the reader to the web edition. `-D m101_diagrams=text` never uses drawings (the tests' text
and LaTeX builds).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from html import escape as html_escape
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.texescape import escape as tex_escape
from sphinx_design.shared import is_component

from ..palette import HUES, MEANINGS
from ..problems import Subtype
from .base import warn
from .calculator import VERDICT_TEXT, fit_calculator, worked_sum_rows, worked_sum_verdict
from .domain import book_of, domain_of
from .figures import diagram_source, figure_box, text_alternative
from .loading import book_in_config

logger = logging.getLogger(__name__)

#: Builders that write the web site: its pages hold each drawing inline.
SITE_BUILDERS = {"html", "dirhtml", "singlehtml"}
#: Image format per builder format / name: the drawing each edition shows.
IMAGE_FORMAT = {"latex": "pdf", "epub": "svg", "site": "svg"}
#: Chromium flags: headless, no GPU, and no sandbox (the build may run as root in a container).
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu"]
#: Mermaid's settings for drawn images: the site's strict security, labels as SVG text (e-readers
#: and PDF viewers draw <text>, not HTML inside <foreignObject>).
MERMAID_CONFIG = {"theme": "default", "securityLevel": "strict", "htmlLabels": False,
                  "flowchart": {"htmlLabels": False}}
TIMEOUT_S = 600

_SHAPES = ":is(rect, polygon, circle, ellipse, path.basic, .label-container)"


def set_version(app: Sphinx, config: Config) -> None:
    """version and release from manual.json's edition (EPUB requires one), unless given with -D."""
    book = book_in_config(config)
    if book is None:
        return
    # Escaped: themes write html_title (by default "<project> <release> documentation") as HTML.
    edition = html_escape(str(book.data.get("edition", "")))
    if not config.version:
        config.version = edition
    if not config.release:
        config.release = edition


def set_epub_metadata(app: Sphinx, config: Config) -> None:
    """The EPUB's identifier, description and contributor from manual.json (Sphinx writes "unknown")."""
    book = book_in_config(config)
    if book is None:
        return
    d = book.data
    if config.epub_identifier == "unknown" and config.epub_uid == "unknown":
        # Sphinx writes epub_uid both as the identifier's XML id and as toc.ncx's dtb:uid, which must
        # equal the identifier: one value that is also an XML name ("miles-101-2026.10").
        config.epub_identifier = config.epub_uid = f"{d['id']}-{d.get('edition', '')}".strip("-")
    if not config.epub_cover:
        config.epub_cover = ("_static/m101-cover.svg", "")  # drawn from manual.json (assets.cover)
    if config.epub_description == "unknown":
        config.epub_description = d["summary"]
    if config.epub_contributor == "unknown" and d.get("pin"):
        pin = d["pin"]
        config.epub_contributor = f"{pin['subject']} ({pin['source']}), whose source and issues the book cites"


def is_site(app: Sphinx) -> bool:
    return app.builder.name in SITE_BUILDERS


def image_format(app: Sphinx) -> str | None:
    """The image format this builder shows diagrams as, or None (text, man: a line in words)."""
    if app.builder.name in SITE_BUILDERS:
        return IMAGE_FORMAT["site"]
    if app.builder.name.startswith("epub"):
        return IMAGE_FORMAT["epub"]
    return IMAGE_FORMAT.get(app.builder.format)


def diagram_css() -> str:
    """The palette's figure classes for a drawn image: light-mode colours written out (no variables)."""
    rules = ["/* Generated by miles101.sphinx_ext.editions from miles101.palette. */"]
    for meaning, hue_name in MEANINGS.items():
        hue = HUES[hue_name]
        rules.append(
            f".node.{meaning} {_SHAPES} {{ fill: {hue.light_tint} !important; stroke: {hue.light_ink} !important; }}\n"
            f".node.{meaning} :is(.nodeLabel, .label, text, tspan, span, p) "
            f"{{ color: {hue.light_ink} !important; fill: {hue.light_ink} !important; }}\n"
            f":is(.actor.{meaning}, rect.{meaning}) {{ fill: {hue.light_tint} !important; "
            f"stroke: {hue.light_ink} !important; }}"
        )
    return "\n".join(rules) + "\n"


def mmdc_path(app: Sphinx) -> Path | None:
    found = Path(app.confdir) / "tools" / "pdf" / "node_modules" / ".bin" / "mmdc"
    return found if found.is_file() else None


def chromium_path() -> str | None:
    given = os.environ.get("PUPPETEER_EXECUTABLE_PATH")
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def drawings_dir(app: Sphinx) -> Path:
    return Path(app.confdir) / app.config.m101_drawings


def _settings_key() -> str:
    return json.dumps([MERMAID_CONFIG, diagram_css(), MAX_ASPECT, SVG_FIXES_VERSION], sort_keys=True)


def source_hash(code: str) -> str:
    """What a drawing was drawn from: the diagram's mermaid source and the drawing settings."""
    return hashlib.sha256(f"{_settings_key()}\n{code}".encode()).hexdigest()[:16]


def note_diagrams(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read: note each diagram of the page (figure id -> mermaid source) in its domain record,
    so a build checks the drawings without loading every page's doctree again."""
    diagrams: dict[str, str] = {}
    for node in doctree.findall(diagram_source):
        ids = node.parent.get("ids", []) if node.parent is not None else []
        if ids:
            diagrams.setdefault(ids[0], node["code"])
    domain_of(app.env).record(app.env.docname)["diagrams"] = diagrams


def book_diagrams(env: BuildEnvironment) -> dict[str, tuple[str, str]]:
    """Figure id -> (docname, mermaid source) for every diagram of the book (the first page wins)."""
    found: dict[str, tuple[str, str]] = {}
    docs = domain_of(env).data["docs"]
    for docname in sorted(env.found_docs & docs.keys()):
        for fig_id, code in docs[docname]["diagrams"].items():
            found.setdefault(fig_id, (docname, code))
    return found


def read_index(folder: Path) -> dict[str, dict]:
    index = folder / "index.json"
    try:
        return json.loads(index.read_text(encoding="utf-8")).get("figures", {})
    except (OSError, ValueError, AttributeError):
        return {}


def drawing_status(folder: Path, index: dict[str, dict], fig_id: str, code: str) -> str:
    """"ok", "stale" (drawn from another source) or "missing"."""
    entry = index.get(fig_id)
    if entry is None or not all((folder / entry.get(fmt, "")).is_file() for fmt in ("svg", "pdf")):
        return "missing"
    return "ok" if entry.get("source") == source_hash(code) else "stale"


def draw_stale(app: Sphinx, diagrams: dict[str, tuple[str, str]]) -> None:
    """`m101_diagrams=draw` (dev.py draw): draw every figure whose drawing is missing or stale, as SVG
    and PDF, into the drawings folder, and write its index; drop drawings of figures that are gone."""
    folder = drawings_dir(app)
    folder.mkdir(parents=True, exist_ok=True)
    mmdc, chromium = mmdc_path(app), chromium_path()
    if mmdc is None or chromium is None:
        missing = "mermaid's CLI (tools/pdf/node_modules)" if mmdc is None else "Chromium"
        warn(Subtype.MERMAID, f"drawing the diagrams needs {missing}, which is not installed.",
             location="tools/pdf/package.json", fix="run `python3 dev.py draw` (it installs tools/pdf) on a "
             "machine with Debian's Chromium (`apt-get install chromium`).")
        return
    index = read_index(folder)
    todo = {fig: code for fig, (_, code) in diagrams.items() if drawing_status(folder, index, fig, code) != "ok"}
    if todo:
        logger.info(f"drawing {len(todo)} diagrams with mermaid's CLI ...")
    for fmt in ("svg", "pdf"):
        items = list(todo.items())
        _draw(mmdc, chromium, folder, items, fmt)
        # A long left-to-right chain drawn at the width of a page (or a phone) leaves its labels
        # unreadably small: draw those top to bottom instead. Same nodes, same edges, other direction.
        turn = [(fig, LEFT_TO_RIGHT.sub(r"\1 TB", code, count=1)) for fig, code in items
                if LEFT_TO_RIGHT.match(code) and _aspect(folder / f"{fig}.{fmt}") > MAX_ASPECT]
        if turn:
            _draw(mmdc, chromium, folder, turn, fmt)
    for fig, code in todo.items():
        if all((folder / f"{fig}.{fmt}").is_file() for fmt in ("svg", "pdf")):
            fix_svg_for_epub(folder / f"{fig}.svg")
            index[fig] = {"page": diagrams[fig][0], "source": source_hash(code), "svg": f"{fig}.svg", "pdf": f"{fig}.pdf"}
    for fig in sorted(set(index) - set(diagrams)):
        for fmt in ("svg", "pdf"):
            (folder / f"{fig}.{fmt}").unlink(missing_ok=True)
        del index[fig]
    (folder / "index.json").write_text(json.dumps(
        {"about": "Diagrams drawn by `python3 dev.py draw` (mermaid's CLI on Chromium) for every edition: "
                  "the web pages and the EPUB show the SVG, LaTeX the PDF; `source` is the hash of the figure's "
                  "mermaid source and the drawing settings (miles101.sphinx_ext.editions.source_hash). "
                  "A build refuses a drawing whose source changed.",
         "figures": dict(sorted(index.items()))}, indent=1) + "\n", encoding="utf-8")


#: Bumped when fix_svg_for_epub changes, so every drawing is made again.
SVG_FIXES_VERSION = 1


def fix_svg_for_epub(path: Path) -> None:
    """What EPUBCheck refuses in mermaid's SVG: a `rect` without `width`/`height` (SVG 1.1 requires both;
    mermaid leaves empty label backgrounds bare) and ARIA roles EPUB does not know (the drawing is one image)."""
    text = path.read_text(encoding="utf-8")

    def sized(m: re.Match) -> str:
        tag = m.group(0)
        for attr in ("width", "height"):
            if not re.search(rf"\s{attr}=", tag):
                tag = tag.replace("<rect", f'<rect {attr}="0"', 1)
        return tag

    text = re.sub(r"<rect\b[^>]*>", sized, text)
    text = re.sub(r'\srole="[^"]*"', "", text, count=0)
    text = text.replace("<svg ", '<svg role="img" ', 1)
    path.write_text(text, encoding="utf-8")


#: Mermaid's own colours in a drawing (its default theme) and what the web page draws them with: the
#: theme's CSS variables (Furo's text and backgrounds, the palette's hues), so one SVG follows light and
#: dark. The palette's meaning classes (trainer, engine, ...) are coloured by the palette stylesheet.
THEME_COLOURS = {
    "#333333": "var(--color-foreground-primary)",  # lines, arrowheads
    "#333": "var(--color-foreground-primary)",  # labels
    "rgba(232,232,232, 0.8)": "var(--color-background-primary)",  # edge label backgrounds
    "rgba(232, 232, 232, 0.5)": "var(--color-background-primary)",
    "#ECECFF": "var(--m101-indigo-tint)",  # a node with no meaning class
    "#9370DB": "var(--m101-indigo)",
    "#ffffde": "var(--color-background-secondary)",  # subgraphs
    "#aaaa33": "var(--color-foreground-muted)",
}
_THEME_COLOUR = re.compile("|".join(re.escape(c) + (r"(?![0-9A-Fa-f])" if c.startswith("#") else "")
                                    for c in sorted(THEME_COLOURS, key=len, reverse=True)))


#: A start tag, and one `data-*` attribute in it (text between tags is never touched).
_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_DATA_ATTRIBUTE = re.compile(r'\sdata-[\w.-]+="[^"]*"')


def inline_svg(text: str, fig_id: str) -> str:
    """A drawing as a web page holds it inline: ids made unique on the page (mermaid calls every
    drawing `my-svg`), mermaid's colours turned into the theme's variables, the light palette written
    into the drawing for the EPUB and PDF dropped (the page's palette stylesheet colours the classes in
    both themes), no white background, no ARIA of mermaid's (the page names the image), and none of
    mermaid's `data-*` attributes (`data-id`, `data-points`, `data-et`, `data-edge`, `data-look`: its own
    bookkeeping, which no stylesheet or script of the site reads; the committed drawing keeps them)."""
    text = re.sub(r"^\s*<\?xml[^>]*>\s*", "", text)
    text = re.sub(r"<style>(?:(?!</style>).)*?Generated by miles101\.sphinx_ext\.editions.*?</style>", "", text,
                  flags=re.S)
    ids = set(re.findall(r'\sid="([^"]+)"', text))
    rename = {old: f"m101-{fig_id}-{old}" for old in ids}
    text = re.sub(r'(\sid=")([^"]+)(")', lambda m: m[1] + rename[m[2]] + m[3], text)
    text = re.sub(r"#([A-Za-z_][\w.-]*)", lambda m: f"#{rename[m[1]]}" if m[1] in rename else m[0], text)
    text = _THEME_COLOUR.sub(lambda m: THEME_COLOURS[m[0]], text)
    text = re.sub(r'\s(?:role|aria-roledescription)="[^"]*"', "", text)
    text = _TAG.sub(lambda m: _DATA_ATTRIBUTE.sub("", m[0]), text)
    used = {c for attr in re.findall(r'\sclass="([^"]*)"', text) for c in attr.split()}
    text = re.sub(r"(<style>)(.*?)(</style>)", lambda m: m[1] + used_rules(m[2], used) + m[3], text, flags=re.S)
    return text.replace(" background-color: white;", "", 1).strip()


def used_rules(css: str, classes: set[str]) -> str:
    """Mermaid's stylesheet for one drawing without the rules no element of it can match: a rule stays
    when one of its selectors names only classes the drawing has (tooltips, errors, icons, animations go)."""
    kept: list[tuple[str, str]] = []
    i = 0
    while (start := css.find("{", i)) >= 0:
        depth, end = 1, start + 1
        while depth and end < len(css):
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        prelude, block = css[i:start].strip(), css[start:end]
        i = end
        selectors = prelude.split(",")
        if prelude.startswith("@") or any(set(re.findall(r"\.([\w-]+)", s)) <= classes for s in selectors):
            kept.append((prelude, block))
    rules = "".join(p + b for p, b in kept if not p.startswith("@keyframes"))
    animated = {name for value in re.findall(r"animation(?:-name)?:([^;}]*)", rules)
                for name in re.findall(r"[\w-]+", value)}
    keyframes = "".join(p + b for p, b in kept if p.startswith("@keyframes") and p.split()[-1] in animated)
    return keyframes + rules + css[i:].strip()


def check_drawings(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Every build: each diagram's committed drawing must be drawn from its current source (or the
    build says which is not, and the command that draws it). The editions then use the drawings."""
    domain = domain_of(env)
    fmt = image_format(app)
    # What the post-transforms need of the builder, on this build's domain object (never pickled).
    domain.edition = "site" if is_site(app) else app.builder.name
    domain.edition_format = fmt
    domain.edition_writes_html = app.builder.format == "html"
    domain.drawn_diagrams = {}  # figure id -> file name in the output (EPUB, LaTeX)
    domain.inline_drawings = {}  # figure id -> its committed SVG, made inline (`inline_svg`) when a page is written
    domain.diagram_problems = {}  # figure id -> why it has no drawing
    folder = drawings_dir(app)
    mode = app.config.m101_diagrams
    if not folder.is_dir() and mode != "draw":
        return []  # a book that keeps no drawings (a test root): the editions use the line
    diagrams = book_diagrams(env)
    if mode == "draw":
        draw_stale(app, diagrams)
    index = read_index(folder)
    for fig, (docname, code) in diagrams.items():
        status = drawing_status(folder, index, fig, code)
        if status == "ok":
            continue
        why = "has no drawing" if status == "missing" else "was drawn from another version of its source"
        domain.diagram_problems[fig] = why
        warn(Subtype.DIAGRAM_DRAWING, f"the diagram {fig} {why}: the web page would show its mermaid source "
             "and the PDF and EPUB a line instead.",
             location=docname, fix="run `python3 dev.py draw` (mermaid's CLI on Chromium) and commit "
             f"{app.config.m101_drawings}/.")
    if fmt is None or mode == "text":
        return []
    if is_site(app):
        for fig in diagrams:
            if fig not in domain.diagram_problems and fig in index:
                domain.inline_drawings[fig] = folder / index[fig]["svg"]
        return []
    target_dir = Path(app.outdir) / ("" if app.builder.format == "latex" else "_images")
    target_dir.mkdir(parents=True, exist_ok=True)
    for fig in diagrams:
        if fig in domain.diagram_problems or fig not in index:
            continue
        path = folder / index[fig][fmt]
        target = target_dir / f"m101-diagram-{path.name}"
        if not target.is_file() or target.read_bytes() != path.read_bytes():
            shutil.copyfile(path, target)
        domain.drawn_diagrams[fig] = target.name
    return []


LEFT_TO_RIGHT = re.compile(r"^\s*(flowchart|graph)\s+LR\b")
#: Wider than this (width / height) and a left-to-right flowchart is drawn top to bottom.
MAX_ASPECT = 4.5


def _aspect(drawn: Path) -> float:
    """Width over height of a drawn PDF (its MediaBox) or SVG (its viewBox); 0 when unknown."""
    if not drawn.is_file():
        return 0.0
    head = drawn.read_bytes()[:200_000].decode("latin-1")
    box = re.search(r"/MediaBox\s*\[\s*[-\d.]+\s+[-\d.]+\s+([\d.]+)\s+([\d.]+)", head) or \
        re.search(r'viewBox="[-\d.]+\s+[-\d.]+\s+([\d.]+)\s+([\d.]+)"', head)
    if not box or float(box[2]) == 0:
        return 0.0
    return float(box[1]) / float(box[2])


def _draw(mmdc: Path, chromium: str, folder: Path, todo: list[tuple[str, str]], fmt: str) -> None:
    if not todo:
        return
    with tempfile.TemporaryDirectory(prefix="m101-mmdc-") as tmp:
        work = Path(tmp)
        (work / "puppeteer.json").write_text(json.dumps({"executablePath": chromium, "args": CHROMIUM_ARGS}))
        (work / "mermaid.json").write_text(json.dumps(MERMAID_CONFIG))
        (work / "palette.css").write_text(diagram_css())
        (work / "all.md").write_text("".join(f"```mermaid\n{code}\n```\n\n" for _, code in todo), encoding="utf-8")
        cmd = [str(mmdc), "-q", "-p", str(work / "puppeteer.json"), "-c", str(work / "mermaid.json"),
               "-C", str(work / "palette.css"), "-i", str(work / "all.md"), "-o", str(work / "out.md"),
               "-a", str(work / "img"), "-e", fmt]
        if fmt == "pdf":
            cmd.append("-f")
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            warn(Subtype.MERMAID, f"mermaid's CLI did not run: {exc}.", location="tools/pdf/package.json",
                 fix="reinstall it with `python3 dev.py draw`.")
            return
        if done.returncode:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            warn(Subtype.MERMAID, "mermaid's CLI failed: " + " / ".join(tail), location="tools/pdf/package.json",
                 fix="check the diagram's mermaid code at the line mermaid's CLI names.")
            return
        for i, (key, _) in enumerate(todo, start=1):
            drawn = work / "img" / f"out-{i}.{fmt}"
            if drawn.is_file():
                shutil.move(str(drawn), folder / f"{key}.{fmt}")


def fallback(node: nodes.Element, docname: str) -> nodes.paragraph:
    """The line that stands for a diagram no renderer drew: a link to it on the web where the
    build knows the site's address (Read the Docs sets READTHEDOCS_CANONICAL_URL)."""
    note = nodes.paragraph("", "", classes=["m101-diagram-fallback"])
    site = os.environ.get("READTHEDOCS_CANONICAL_URL", "").rstrip("/")
    figure = node.parent.get("ids", []) if node.parent is not None else []
    if site:
        url = f"{site}/{docname}.html" + (f"#{figure[0]}" if figure else "")
        note += nodes.emphasis("", "", nodes.Text("Diagram: drawn in the web edition, "),
                               nodes.reference(url, url, refuri=url), nodes.Text("."))
    else:
        note += nodes.emphasis("", "Diagram: drawn in the web edition.")
    return note


def web_edition_note(docname: str, what: str) -> nodes.paragraph:
    """A line saying that something lives in the web edition, with its address where the build knows it."""
    note = nodes.paragraph("", "", classes=["m101-web-only"])
    site = os.environ.get("READTHEDOCS_CANONICAL_URL", "").rstrip("/")
    if site:
        url = f"{site}/{docname}.html"
        note += nodes.emphasis("", "", nodes.Text(f"{what}: "), nodes.reference(url, url, refuri=url), nodes.Text("."))
    else:
        note += nodes.emphasis("", f"{what}.")
    return note


class diagram_svg(nodes.General, nodes.Element):
    """A diagram on a web page: `svg`, its drawing as `inline_svg` made it, and `alt` (title and caption)."""


def visit_svg_html(self: Any, node: diagram_svg) -> None:
    """The drawing inline, named by its figure's title and caption (a screen reader reads one image)."""
    label = text_alternative(node.parent) if isinstance(node.parent, figure_box) else ""
    svg = node["svg"].replace("<svg ", f'<svg role="img" aria-label="{self.attval(label)}" ', 1)
    self.body.append(f'<div class="m101-drawing">{svg}</div>\n')
    raise nodes.SkipNode


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


class diagram_image(nodes.General, nodes.Element):
    """A diagram drawn at build time: `file` (a file name in the image folder), `alt`."""


class DiagramsForEditions(SphinxPostTransform):
    """Each diagram becomes its drawing: inline SVG on the web site, an image in the EPUB and LaTeX.
    Without one (a build that warned, `m101_diagrams=text`) the web page keeps the mermaid source and
    the other editions get a line pointing to the web edition."""

    default_priority = 5  # before images are collected

    def run(self, **kwargs: Any) -> None:
        domain = domain_of(self.env)
        if getattr(domain, "edition", "site") == "site":  # set by check_drawings at env-updated
            inline = getattr(domain, "inline_drawings", {})
            for node in list(self.document.findall(diagram_source)):
                ids = node.parent.get("ids", []) if node.parent is not None else []
                if ids and ids[0] in inline:  # read when the page is written: most builds write few pages
                    svg = inline_svg(inline[ids[0]].read_text(encoding="utf-8"), ids[0])
                    node.replace_self(diagram_svg("", svg=svg, alt=node.get("alt", "")))
            return
        drawn = getattr(domain, "drawn_diagrams", {})
        for node in list(self.document.findall(diagram_source)):
            ids = node.parent.get("ids", []) if node.parent is not None else []
            name = drawn.get(ids[0]) if ids else None
            if name:
                title = node.parent.get("m101_title", "") if node.parent is not None else ""
                node.replace_self(diagram_image("", file=name, alt=node.get("alt") or title))
            else:
                node.replace_self(fallback(node, self.env.docname))


class WebOnlyDownloads(SphinxPostTransform):
    """Outside the web site, no "Download <run>.sh" line: the scripts are served beside the web pages only."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        if getattr(domain_of(self.env), "edition", "site") == "site":
            return
        for para in list(self.document.findall(nodes.paragraph)):
            if "m101-command-download" in para["classes"]:
                para.parent.remove(para)


class BookAsParts(SphinxPostTransform):
    """LaTeX: the one assembled document as a book. The front page's sections stay the opening
    chapters; each part of manual.json becomes a \\part and each of its pages a chapter (Sphinx
    would nest every page under the front page's last section). Pages keep their own numbers
    ("2.3 ..."), so LaTeX numbers nothing, and the web eyebrow above each title is left out."""

    default_priority = 6
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        book = book_of(self.env)
        files = {n["docname"]: n for n in self.document.findall(addnodes.start_of_file)}
        if not files:
            return  # not the assembled document
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None:
            return
        for wrapper in list(self.document.findall(nodes.compound)):
            if "toctree-wrapper" in wrapper["classes"]:
                wrapper.parent.remove(wrapper)
        for part in book.parts:
            top += nodes.raw("", f"\\part{{{_tex(part.caption)}}}\n", format="latex")
            for section in part.sections:
                node = files.get(section.docname)
                if node is not None:
                    if node.parent is not None:
                        node.parent.remove(node)
                    top += node
        for eyebrow in list(self.document.findall(nodes.paragraph)):
            if "m101-eyebrow" in eyebrow["classes"]:
                eyebrow.parent.remove(eyebrow)


class CalculatorForEditions(SphinxPostTransform):
    """Outside HTML the fit calculator is its worked sum: the build-time table and verdict the web
    page shows before (and without) JavaScript, and a line that the widget is in the web edition."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        domain = domain_of(self.env)
        if getattr(domain, "edition_writes_html", True):  # EPUB shows the HTML sum itself, and where the widget is
            if getattr(domain, "edition", "site") != "site":
                for node in self.document.findall(fit_calculator):
                    node.parent.insert(node.parent.index(node) + 1, web_edition_note(
                        self.env.docname, "The interactive calculator (any model, any setting) needs scripts: "
                        "it is in the web edition"))
            return
        for node in list(self.document.findall(fit_calculator)):
            doc, model, settings = node["doc"], node["model"], node["settings"]
            rows, b = worked_sum_rows(doc, model, settings)
            caption = nodes.paragraph("", "", classes=["m101-fit-caption"])
            caption += [nodes.strong("", f"Worked sum for {model['name']} with the settings of the run "),
                        nodes.literal("", node["run"]),
                        nodes.Text(" (computed at build time; inference from code, not measured)")]
            table = _table(["term", "how", "size"], [(label, how, val) for label, how, val, _ in rows])
            verdict = nodes.paragraph("", "")
            verdict += [nodes.Text("Verdict at these settings: "), nodes.strong("", VERDICT_TEXT[b["verdict"]]),
                        nodes.Text(f"; {worked_sum_verdict(b, settings.get('prompt_assumed', False))}")]
            note = nodes.paragraph("", "", nodes.emphasis(
                "", "The interactive calculator (any model, any setting) is in the web edition."))
            node.replace_self([caption, table, verdict, note])


class TabSetsAsHeadedBlocks(SphinxPostTransform):
    """EPUB: a tab-set becomes its tabs one after another, each under its label as a heading. Readers
    that ignore radio inputs would otherwise show the first tab alone."""

    default_priority = 150  # before sphinx-design turns tab-sets into inputs and labels (200)
    builders = ("epub",)

    def run(self, **kwargs: Any) -> None:
        for tab_set in list(self.document.findall(lambda n: is_component(n, "tab-set"))):
            blocks: list[nodes.Node] = []
            for item in tab_set.children:
                if not is_component(item, "tab-item"):
                    blocks.append(item.deepcopy())
                    continue
                label = next((c for c in item.children if isinstance(c, nodes.rubric)), None)
                if label is not None:
                    blocks.append(nodes.rubric("", "", *[c.deepcopy() for c in label.children],
                                               classes=["m101-tab-heading"]))
                for content in item.children:
                    if is_component(content, "tab-content"):
                        blocks.extend(c.deepcopy() for c in content.children)
            tab_set.replace_self(blocks)


#: Wider than this and a table is stacked row by row in the EPUB (a 6-inch screen holds about three
#: narrow columns).
EPUB_MAX_COLUMNS = 3


def stack_wide_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """EPUB: a table of more than three columns becomes one block per row: the first cell as its
    heading, then each other cell under its column's name. Runs last at doctree-resolved, so the
    Reference tables (filled there) are stacked too."""
    if not app.builder.name.startswith("epub"):
        return
    for table in list(doctree.findall(nodes.table)):
        group = next(iter(table.findall(nodes.tgroup)), None)
        if group is None or int(group.get("cols", 0)) <= EPUB_MAX_COLUMNS:
            continue
        head = next(iter(group.findall(nodes.thead)), None)
        names = [e.astext() for e in head.findall(nodes.entry)] if head is not None else []
        blocks: list[nodes.Node] = []
        title = next((c for c in table.children if isinstance(c, nodes.title)), None)
        if title is not None:
            blocks.append(nodes.rubric("", "", *[c.deepcopy() for c in title.children]))
        for body in group.findall(nodes.tbody):
            for row in body.children:
                cells = [c for c in row.children if isinstance(c, nodes.entry)]
                if not cells:
                    continue
                block = nodes.container(classes=["m101-stacked-row"])
                first = nodes.paragraph(classes=["m101-stacked-head"])
                first += nodes.strong("", "", *[n.deepcopy() for p in cells[0].children
                                               for n in (p.children if isinstance(p, nodes.paragraph) else [p])])
                block += first
                items = nodes.definition_list()
                for name, cell in zip(names[1:], cells[1:]):
                    if cell.astext().strip():
                        item = nodes.definition_list_item()
                        item += nodes.term("", name)
                        item += nodes.definition("", *[c.deepcopy() for c in cell.children])
                        items += item
                block += items
                blocks.append(block)
        table.replace_self(blocks)


def _table(header: list[str], rows: list[tuple[str, ...]]) -> nodes.table:
    table = nodes.table(classes=["m101-fit-sum"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in (24, 44, 12)[: len(header)]:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += nodes.row("", *(nodes.entry("", nodes.paragraph("", h)) for h in header))
    group += head
    body = nodes.tbody()
    for r in rows:
        body += nodes.row("", *(nodes.entry("", nodes.paragraph("", cell)) for cell in r))
    group += body
    return table


class BreakableUrls(SphinxPostTransform):
    """LaTeX: a URL written as plain text (a value's source in "Values on this page") becomes a
    link, so it breaks at the line end (xurl) instead of running off the page."""

    default_priority = 7
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for text in list(self.document.findall(nodes.Text)):
            parent = text.parent
            if parent is None or isinstance(parent, (nodes.reference, nodes.literal, nodes.literal_block, nodes.raw)):
                continue
            pieces = URL.split(text.astext())
            if len(pieces) == 1:
                continue
            new: list[nodes.Node] = []
            for i, piece in enumerate(pieces):
                if i % 2:
                    new.append(nodes.reference(piece, piece, refuri=piece))
                elif piece:
                    new.append(nodes.Text(piece))
            parent.replace(text, new)


URL = re.compile(r"(https?://[^\s<>()]+[^\s<>().,;:])")


def _tex(text: str) -> str:
    return tex_escape(text)


def visit_image_html(self: Any, node: diagram_image) -> None:
    src = f"{self.builder.imgpath}/{node['file']}"
    self.body.append(f'<img class="m101-diagram-image" src="{html_escape(src)}" alt="{html_escape(node["alt"])}" />\n')
    raise nodes.SkipNode


def visit_image_latex(self: Any, node: diagram_image) -> None:
    # Never wider than the text, never taller than 60% of the page (the figure stays with its title),
    # never enlarged (adjustbox's max keys, loaded in conf.py's preamble).
    self.body.append(f"\n\\begin{{center}}\\includegraphics[max width=\\linewidth,max height=0.6\\textheight]"
                     f"{{{{{Path(node['file']).stem}}}.pdf}}\\end{{center}}\n")
    raise nodes.SkipNode


def visit_image_text(self: Any, node: diagram_image) -> None:
    self.add_text(f"[diagram: {node['alt']}]")
    raise nodes.SkipNode


def setup_editions(app: Sphinx) -> None:
    app.add_config_value("m101_diagrams", "auto", "", types=[str])  # auto | text | draw
    app.add_config_value("m101_drawings", "drawings", "", types=[str])
    app.connect("config-inited", set_version, priority=450)
    app.connect("config-inited", set_epub_metadata, priority=450)
    app.connect("doctree-read", note_diagrams)
    app.connect("env-updated", check_drawings)
    app.add_post_transform(DiagramsForEditions)
    app.add_post_transform(BookAsParts)
    app.add_post_transform(CalculatorForEditions)
    app.add_post_transform(BreakableUrls)
    app.add_post_transform(TabSetsAsHeadedBlocks)
    app.add_post_transform(WebOnlyDownloads)
    app.connect("doctree-resolved", stack_wide_tables, priority=900)  # after the Reference tables
    # text: the site's page text (llms-full.txt) names the drawing, as the text edition does.
    app.add_node(diagram_svg, html=(visit_svg_html, None), latex=(_skip, None), text=(visit_image_text, None),
                 man=(_skip, None), texinfo=(_skip, None))
    app.add_node(diagram_image, html=(visit_image_html, None), latex=(visit_image_latex, None),
                 text=(visit_image_text, None), man=(visit_image_text, None), texinfo=(visit_image_text, None))
