"""Incremental builds by content: a page is read again when, and only when, what it cites changed.

Also: the Reference pages are rewritten when the inputs of their generated tables change, and
unresolved references fail the build even without -W.
"""
from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..data import fingerprint
from ..problems import broken_sources
from .base import logger
from .domain import domain_of
from .reference_tables import table_inputs


def stale_docs(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """Pages whose cited data (or what they read of manual.json) hash differently now, and pages that had problems last time."""
    domain = domain_of(env)  # holds the book and the capture from builder-inited, before this event
    stale = []
    for docname, record in domain.data["docs"].items():
        if docname in changed or docname in removed or docname not in env.all_docs:
            continue
        if record["problems"]:
            stale.append(docname)
            continue
        for dep, digest in record["deps"].items():
            kind, _, key = dep.partition(":")
            if domain.fingerprint_of(kind, key) != digest:
                stale.append(docname)
                break
    if stale:
        logger.info("[miles101] %d page(s) cite changed data: %s", len(stale), ", ".join(sorted(stale)))
    return stale


#: With -j, Sphinx reads even one page in a forked process and pickles the whole environment back,
#: and writes every page but the first in forked processes too (each about 0.13 s here, more than the
#: work). When a build reads only this many pages, it reads and writes in the main process.
SERIAL_MAX = 3


def few_pages_serially(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """With -j and only a few pages to read, read and write them in the main process (Sphinx's -j is
    decided from `app.parallel` when reading starts and again before writing; it is set back at
    write-started, once the writer has chosen)."""
    if app.parallel > 1 and 0 < len(docnames) <= SERIAL_MAX:
        domain_of(env).state.parallel = app.parallel
        app.parallel = 1


def restore_parallel(app: Sphinx, builder: object) -> None:
    """The -j the build was started with, once the writer has chosen serial or parallel."""
    state = domain_of(app.env).state
    if state.parallel is not None:
        app.parallel, state.parallel = state.parallel, None


def rewritten_docs(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The Reference pages whose generated tables would change: their inputs' digest moved.

    The digest is kept in the page's record of the domain, so a page read again starts without one.
    """
    rewrite = []
    for doc, kinds in domain_of(env).generated_docs().items():
        record = domain_of(env).record(doc)
        now = fingerprint([table_inputs(env, kind) for kind in kinds])
        if record.get("generated_digest") != now:
            record["generated_digest"] = now
            rewrite.append(doc)
    return sorted(rewrite)


def fail_on_problems(app: Sphinx, exception: Exception | None) -> None:
    """Unresolved references fail the build even without -W (and even on an incremental build)."""
    if exception is not None:
        return
    count = domain_of(app.env).problem_count()
    if count:
        broken = sorted(set(broken_sources(domain_of(app.env).capture).values()))
        held = (f"; references that read {', '.join(broken)} are not listed one by one: that file is broken "
                "(named above), fix it first" if broken else "")
        logger.error("[miles101] %d problem(s) in the pages: unresolved references or duplicate ids (see the warnings "
                     "above%s).", count, held)
        app.statuscode = 1


def setup_incremental(app: Sphinx) -> None:
    app.connect("env-get-outdated", stale_docs)
    app.connect("env-before-read-docs", few_pages_serially, priority=900)  # after any handler that adds pages
    app.connect("write-started", restore_parallel)
    app.connect("env-get-updated", rewritten_docs)
    app.connect("build-finished", fail_on_problems)
