"""Building test roots and copies of the manual (shared by the test modules)."""
from __future__ import annotations

import copy
import logging
import shutil
import time
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from unittest import mock

import sphinx.util.logging
from sphinx.testing.util import SphinxTestApp
from sphinx.util.logging import NAMESPACE, WarningLogRecordTranslator, is_suppressed_warning

from sphinx.util.console import strip_escape_sequences as strip_ansi

ROOT = Path(__file__).resolve().parent.parent
#: What a copy of the manual leaves out (builds, environments, the tests themselves, Git history).
MANUAL_IGNORE = shutil.ignore_patterns("_build", ".venv", ".tox", "node_modules", ".git", "tests", "benchmarks",
                                       "test-artifacts", "__pycache__", ".pytest_cache")


@dataclass(frozen=True)
class Warned:
    """One warning as Sphinx's logger received it: its type and subtype, where, and the message."""

    type: str | None
    subtype: str | None
    location: str
    message: str


class _Collect(logging.Handler):
    """Keeps every warning record Sphinx's logger handles (with -j, those the workers send back too).

    The first handler of Sphinx's logger, so it sees each record as logged, before the warning
    stream's own filters add the location and the `[type.subtype]` suffix to the text; a record Sphinx
    holds back (`pending_warnings`) and hands over again is kept once. It drops what
    `suppress_warnings` does, as the stream does.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.app: SphinxTestApp | None = None
        self.records: list[Warned] = []
        self._seen: list[logging.LogRecord] = []

    def attach(self, app: SphinxTestApp) -> None:
        """Join the logger Sphinx has just set up for `app` (so warnings at config-inited count too)."""
        self.app = app
        logging.getLogger(NAMESPACE).handlers.insert(0, self)

    def detach(self) -> None:
        logging.getLogger(NAMESPACE).removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        if any(record is seen for seen in self._seen):
            return
        self._seen.append(record)
        kind, subtype = getattr(record, "type", None), getattr(record, "subtype", None)
        if is_suppressed_warning(kind or "", subtype or "", getattr(self.app.config, "suppress_warnings", ())):
            return
        placed = copy.copy(record)
        try:
            WarningLogRecordTranslator(self.app).filter(placed)  # (docname, line) -> "path:line", as the stream shows it
        except AttributeError:  # a docname before the environment exists: keep the location as given
            pass
        self.records.append(Warned(kind, subtype, str(getattr(placed, "location", "") or ""),
                                   logging.LogRecord.getMessage(record)))


def _logging_setup_with(collect: _Collect):
    """Sphinx's `logging.setup`, then `collect` joins the handlers it made."""
    setup = sphinx.util.logging.setup

    def setup_and_collect(app, *args, **kwargs) -> None:
        setup(app, *args, **kwargs)
        collect.attach(app)

    return setup_and_collect


class Built:
    """A finished build: the app, its warnings, and helpers to read the output."""

    def __init__(self, app: SphinxTestApp, warnings: str) -> None:
        self.app, self.warnings = app, warnings
        #: The pages Sphinx read in this build, as its `env-before-read-docs` event named them.
        self.read: list[str] = []
        #: The warnings as records from Sphinx's logger: assert on `subtypes` and `messages`, not the text stream.
        self.warned: list[Warned] = []
        #: How long `app.build` took, in seconds.
        self.seconds = 0.0

    @property
    def subtypes(self) -> list[str]:
        """`type.subtype` of each warning, in order (`manual.unknown_flag`, ...)."""
        return [f"{w.type}.{w.subtype}" for w in self.warned]

    def messages(self, subtype: str | None = None) -> list[str]:
        """The warnings' messages, or only those of one `type.subtype`."""
        return [w.message for w in self.warned if subtype is None or f"{w.type}.{w.subtype}" == subtype]

    def html(self, docname: str) -> str:
        return (Path(self.app.outdir) / f"{docname}.html").read_text(encoding="utf-8")


def build(srcdir: Path, *, parallel: int = 0, buildername: str = "html", force_all: bool = False,
          **confoverrides) -> Built:
    """Build `srcdir` (already a private copy) and return the result (`force_all`: every page, as `-a`)."""
    status, warning = StringIO(), StringIO()
    collect = _Collect()
    with mock.patch.object(sphinx.util.logging, "setup", _logging_setup_with(collect)):
        app = SphinxTestApp(buildername, srcdir=srcdir, builddir=srcdir / "_build", status=status, warning=warning,
                            parallel=parallel, confoverrides=confoverrides)
    read: list[str] = []
    # Last in line, so the list is what Sphinx reads after every extension had its say.
    app.connect("env-before-read-docs", lambda app, env, docnames: read.extend(docnames), priority=999)
    start = time.perf_counter()
    try:
        app.build(force_all)
    finally:
        collect.detach()
        app.cleanup()
    built = Built(app, warning.getvalue())
    built.seconds = time.perf_counter() - start
    built.warned = collect.records
    built.read = sorted(read)
    built.status = strip_ansi(status.getvalue())
    return built


def build_manual_copy(dest: Path, **kwargs) -> Built:
    """Copy the manual (without its Git history) to `dest` and build it."""
    shutil.copytree(ROOT, dest, ignore=MANUAL_IGNORE)
    return build(dest, **kwargs)


#: A drawing as mermaid's CLI writes one (its id, its colours, the light palette for the EPUB and PDF),
#: small: what the test roots' drawings hold.
TEST_SVG = (
    '<svg id="my-svg" width="100%" xmlns="http://www.w3.org/2000/svg" class="flowchart" '
    'style="max-width: 200px; background-color: white;" viewBox="0 0 200 100" role="graphics-document document" '
    'aria-roledescription="flowchart-v2"><style>#my-svg{fill:#333;}#my-svg .flowchart-link{stroke:#333333;}'
    '#my-svg .error-icon{fill:#552222;}@keyframes dash{to{stroke-dashoffset:0;}}</style>'
    '<marker id="my-svg_flowchart-v2-pointEnd"><path/></marker>'
    '<path class="flowchart-link" marker-end="url(#my-svg_flowchart-v2-pointEnd)" d="M0,0L10,10"/>'
    '<g class="node default trainer" id="flowchart-A-0"><rect width="50" height="20"/><text>A</text></g>'
    '<style>/* Generated by miles101.sphinx_ext.editions from miles101.palette. */\n'
    '.node.trainer rect { fill: #dbeafe !important; }</style></svg>\n'
)


def add_drawings(src: Path, sources: dict[str, str], svg: str = TEST_SVG) -> Path:
    """Give the book at `src` a drawings folder whose entries claim `sources` (figure id -> source hash)."""
    import json

    folder = src / "drawings"
    folder.mkdir(parents=True, exist_ok=True)
    figures = {}
    for fig, source in sources.items():
        (folder / f"{fig}.svg").write_text(svg, encoding="utf-8")
        (folder / f"{fig}.pdf").write_text("test data", encoding="utf-8")
        figures[fig] = {"source": source, "svg": f"{fig}.svg", "pdf": f"{fig}.pdf"}
    (folder / "index.json").write_text(json.dumps({"figures": figures}), encoding="utf-8")
    return src


def diagram_sources(src: Path) -> dict[str, str]:
    """The source hash of each diagram of the book at `src`, as the build computes it (a dummy build)."""
    from miles101.sphinx_ext.editions import book_diagrams, source_hash

    built = build(src, buildername="dummy")
    return {fig: source_hash(code) for fig, (_, code) in book_diagrams(built.app.env).items()}
