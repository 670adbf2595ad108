"""```{tools-download}```: the reader's tools in one download, miles101-tools.pyz (miles101.tools_archive).

Sphinx's `{download}` serves a file of the source tree; this archive is made by the build, so the
extension writes it itself, at a fixed path of the web site (`_downloads/miles101-tools.pyz`, at
build-finished, only when its bytes change). The directive leaves a placeholder that is filled when a
page is written, for the builder writing it:

- the web site: a link to the archive, its SHA-256 and one copyable block that fetches it with its full
  address (`curl -fLO`) and checks it (`sha256sum -c`) when the build knows the book's canonical URL
  (`html_baseurl`, from `READTHEDOCS_CANONICAL_URL`); else the link is relative to the page, and a
  sentence says to copy its address, with the check line still copyable;
- the EPUB, the PDF (LaTeX) and the text editions: where to fetch it (the full address when known, else
  the web edition's `_downloads/`) and its SHA-256, with the same lines.

The archive's bytes follow the tools, the dispatcher and 7.1's address (read_run.py prints it), so
the page is read again when a tool changes, and rewritten with every page when `html_baseurl` does.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.errors import ConfigError
from sphinx.util.osutil import relative_uri

from .. import tools_archive
from ..archive_main import MIN_PYTHON
from ..problems import Subtype
from .assets import write_if_changed
from .base import ManualDirective, skip_node
from .hosting import WEB_BUILDERS
from .log_doctor import PAGE_DOC

#: Where the web site serves the archive, from its root.
SERVED = f"_downloads/{tools_archive.NAME}"
#: A directory the block may `mkdir -p` and `cd` into: a path of plain characters, `~/` allowed at its start; no
#: `-` first (`cd -` goes to the previous directory, `mkdir -p -x` reads an option).
INTO = re.compile(r"(~/)?[A-Za-z0-9_./][A-Za-z0-9_./-]*")


class tools_download(nodes.General, nodes.Element):
    """The placeholder a page's `{tools-download}` leaves; filled per builder at doctree-resolved."""


class ToolsDownloadDirective(ManualDirective):
    """```{tools-download}``` with an optional `:into: DIR` (the block then starts `mkdir -p DIR && cd DIR`)."""

    has_content = False
    option_spec = {"into": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        into = self.options.get("into", "").strip()
        if into and not INTO.fullmatch(into):
            return self.problem(Subtype.BAD_FORMAT, f"{{tools-download}}: :into: {into!r} is not a plain directory "
                                "path (letters, digits, _ . / -, ~/ at its start).", fix="write e.g. `:into: ~/miles-logs`")
        for path in (*(tools_archive.TOOLS_DIR / n for n in tools_archive.TOOLS), tools_archive.MAIN,
                     Path(tools_archive.__file__)):
            self.env.note_dependency(str(path))  # the archive's bytes, hence its SHA-256 on the page
        node = tools_download("", into=into)
        self.set_source_info(node)
        return [node]


DIRECTIVES = {"tools-download": ToolsDownloadDirective}


def page_7_1(app: Sphinx) -> str | None:
    """7.1's full address on the web site, when the build knows the canonical URL."""
    base = app.config.html_baseurl or ""
    if not base:
        return None
    path = app.builder.get_target_uri(PAGE_DOC) if app.builder.name in WEB_BUILDERS else f"{PAGE_DOC}.html"
    return base + path


def archive(app: Sphinx) -> bytes:
    """This build's archive, made once."""
    made = getattr(app, "_m101_tools_archive", None)
    if made is None:
        try:
            made = app._m101_tools_archive = tools_archive.archive_bytes(page_7_1(app))
        except ValueError as e:
            raise ConfigError(f"{{tools-download}}: {e}") from None
    return made


def fetch_block(address: str | None, sha: str, into: str) -> nodes.literal_block:
    """The copyable lines: make and enter `into`, fetch (with a full address), check the SHA-256."""
    lines = [f"mkdir -p {into} && cd {into}"] if into else []
    if address:
        lines.append(f"curl -fLO {shlex.quote(address)}")  # html_baseurl's text, one word that runs nothing
    lines.append(f"echo '{sha}  {tools_archive.NAME}' | sha256sum -c")
    text = "\n".join(lines)
    return nodes.literal_block(text, text, language="bash")


def rendered(app: Sphinx, docname: str, into: str) -> list[nodes.Node]:
    """What the placeholder becomes in the edition being written."""
    sha = tools_archive.sha256(archive(app))
    base = app.config.html_baseurl or ""
    address = base + SERVED if base else None
    name = nodes.literal("", tools_archive.NAME)
    para = nodes.paragraph()
    if app.builder.name in WEB_BUILDERS:
        href = relative_uri(app.builder.get_target_uri(docname), SERVED)
        para += nodes.Text("The book's tools in one file: ")
        para += nodes.reference("", "", name, refuri=href, classes=["m101-tools-download"])
        para += nodes.Text(", SHA-256 ")
        para += nodes.literal("", sha)
        if address:
            para += nodes.Text(". Fetch it and check it:")
        else:
            para += nodes.Text(". This build has no fixed web address: copy the link's address (long-press on a "
                               "phone), fetch it with ")
            para += nodes.literal("", "curl -fLO '<the address>'")
            para += nodes.Text((" after the first line below" if into else "") + ", then check it:")
    else:
        para += nodes.Text("The book's tools come in one file, ")
        para += name
        para += nodes.Text(", SHA-256 ")
        para += nodes.literal("", sha)
        if address:
            para += nodes.Text(", which the web edition serves. Fetch it and check it:")
        else:
            para += nodes.Text(", which the web edition of this book serves from its root as ")
            para += nodes.literal("", SERVED)
            para += nodes.Text(". Fetch it from there" + (" into the directory of the first line below" if into else "")
                               + ", then check it:")
    after = nodes.paragraph()
    after += nodes.literal("", "sha256sum -c")
    after += nodes.Text(" prints ")
    after += nodes.literal("", f"{tools_archive.NAME}: OK")
    after += nodes.Text(". Run a tool as ")
    after += nodes.literal("", f"python3 {tools_archive.NAME} TOOL ...")
    after += nodes.Text(f" (Python {'.'.join(map(str, MIN_PYTHON))} or newer; no tool: the list); ")
    after += nodes.literal("", "unzip")
    after += nodes.Text(" gives the files loose.")
    return [para, fetch_block(address, sha, into), after]


def fill(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Replace each placeholder with its edition's rendering."""
    for node in list(doctree.findall(tools_download)):
        node.replace_self(rendered(app, docname, node["into"]))


def write_archive(app: Sphinx, exception: Exception | None) -> None:
    """Write the archive into the web site, at SERVED."""
    if exception is None and app.builder.name in WEB_BUILDERS:
        write_if_changed(Path(app.outdir) / SERVED, archive(app))


def setup_tools_download(app: Sphinx) -> None:
    """Register the directive, its placeholder, and the archive's writer."""
    skip: Any = (skip_node, None)
    app.add_node(tools_download, html=skip, latex=skip, text=skip)  # (an "epub" key would hide the "html" ones)
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("doctree-resolved", fill)
    app.connect("build-finished", write_archive)
