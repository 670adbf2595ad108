"""The book (manual.json) and the capture of the running build.

Both are loaded in the main process before any page is read, and held by the `m101` domain object
(`ManualDomain.book`, `ManualDomain.capture`): Sphinx makes a new domain object for every build and
never pickles it, so a saved environment never carries them and a `-j` reader, forked after
`builder-inited`, inherits them. Between `config-inited` (where the book sets `root_doc`, before
the environment exists) and `builder-inited`, the book waits on the config under a private name
(`Config` pickles no `_` name).

Both are cached by content in the doctree dir, so a build whose inputs did not change does little:
manual.json's schema check runs only when manual.json or the schema changed (`m101-book-valid.pickle`),
and the capture's intake (`miles101.intake.take_in`) reuses what the same bytes and code gave last time.

The environment is keyed on the book's structure (`Book.structure_digest`), not on all of it: a
change to a field that only some pages show (a part's summary, the front page's texts) re-reads those
pages alone, through the `book:` dependencies they note (`incremental.stale_docs`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

from ..book import Book, load_book
from ..intake import take_in
from .domain import domain_of
from .base import logger, warn


def load_book_into_config(app: Sphinx, config: Config) -> None:
    """Validate manual.json, set the root page and the sources, and key the environment on the book's digest."""
    book, problems = load_book(Path(app.confdir) / config.m101_book, Path(app.srcdir),
                               valid_cache=Path(app.doctreedir) / "m101-book-valid.pickle")
    for p in problems:
        if not p.fatal:
            warn(p.subtype, p.message, location=p.location, fix=p.fix)
    if book is None:
        # A book that cannot be read stops the build with the problems alone: no traceback, exit 2.
        for p in problems:
            logger.error(f"{p.message} Fix: {p.fix}", type="manual", subtype=p.subtype.value, location=p.location)
        raise SystemExit(2)
    config._m101_book = book
    config.root_doc = book.root_doc
    config.m101_book_digest = book.structure_digest
    config.m101_reference_docs = {s.id: s.docname for s in book.parts[-1].sections}
    # The sources are exactly the pages manual.json names: a stray venv/, notes.md or a page under
    # sections/ that the book does not list (book.py warns about it) is never read.
    config.include_patterns = book.page_files


def book_in_config(config: Config) -> Book | None:
    """The book as `load_book_into_config` left it on the config (priority 400): for the config-inited handlers
    that set configuration from it (the environment and its domain do not exist yet); None before then."""
    return config.__dict__.get("_m101_book")


def load_into_domain(app: Sphinx) -> None:
    """Hand the book to this build's domain object and load the capture (cached by content)."""
    state = domain_of(app.env).state
    state.book = app.config._m101_book
    # The capture read, checked (the rules of `capture/run.py --check`) and modelled once, cached by content.
    intake = take_in(Path(app.srcdir), Path(app.doctreedir))
    state.capture, problems = intake.capture, intake.problems
    state.capture_problems = len(problems)
    for problem in problems:
        warn(problem.subtype, problem.message, location=problem.location, fix=problem.fix)


def fail_on_capture_problems(app: Sphinx, exception: Exception | None) -> None:
    """Capture data that fails validation fails the build even without -W."""
    if exception is not None or app.env is None:
        return
    count = domain_of(app.env).state.capture_problems
    if count:
        logger.error("[miles101] %d problem(s) in the capture data (see the manual.capture warnings above).", count)
        app.statuscode = 1


def setup_loading(app: Sphinx) -> None:
    app.add_config_value("m101_book", "manual.json", "env", types=[str])
    app.add_config_value("m101_book_digest", "", "env", types=[str])
    app.add_config_value("m101_reference_docs", {}, "env", types=[dict])
    app.connect("config-inited", load_book_into_config, priority=400)
    app.connect("builder-inited", load_into_domain, priority=100)  # before anything reads them
    app.connect("build-finished", fail_on_capture_problems)
