"""Incremental builds by content: a page is read again when, and only when, what it cites changed.

Also: the Reference pages are rewritten when the inputs of their generated tables change, the flag
index is written when what it shows changed, and unresolved references fail the build even without -W.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.environment import BuildEnvironment

from ..data import fingerprint
from ..kinds import broken_sources
from ..memo import recall, remember
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


#: The domain's own index (the flag index) and the builders that write it only when it changed.
FLAG_INDEX, INDEX_BUILDERS = "m101-flags", ("html", "dirhtml")
#: What the flag index was last written from (`index_digest`), one memo a builder in the doctree dir (miles101.memo),
#: kept under the output folder and the size and time of the file written then.
INDEX_MEMO = "m101-flag-index-{builder}.pickle"


def index_digest(builder: Builder, name: str, heading: str, content: Any, collapse: bool) -> str:
    """What an index page shows: its heading and entries and the parts of every page around it (the
    navigation's titles and toctrees, the configuration and tags, the templates). Static files are left
    out, as Sphinx leaves them out when it decides which pages to write."""
    env = builder.env
    build_info = builder.build_info  # type: ignore[attr-defined]
    return fingerprint([
        name, heading, content, collapse, {doc: str(title) for doc, title in env.titles.items()},
        {doc: str(toc) for doc, toc in env.tocs.items() if doc in env.toctree_includes},
        env.toctree_includes, build_info.config_hash, build_info.tags_hash,
        builder.templates.newest_template_mtime(),  # type: ignore[attr-defined]
    ])


def write_changed_indices(app: Sphinx, builder: Builder) -> None:
    """Sphinx writes every domain index on every build, a no-change build too. The flag index is
    written only when its digest (`index_digest`) moved, every page is written (a full build), or the
    file on disk is not the one this memo wrote; otherwise the page from the last build stays.

    Set on the builder instance at write-started, so the list the pages are rendered with
    (`domain_indices`, which feeds each page's related links) stays whole."""
    if builder.name not in INDEX_BUILDERS:
        return
    write_all, state = builder.write_domain_indices, domain_of(builder.env).state  # type: ignore[attr-defined]
    memo = Path(builder.doctreedir) / INDEX_MEMO.format(builder=builder.name)
    page = Path(builder.get_outfilename(FLAG_INDEX))

    def on_disk() -> tuple[str, tuple[int, int] | None]:
        """The memo's key: the output folder, and the size and time of the file there (None: none)."""
        st = page.stat() if page.is_file() else None
        return os.fspath(builder.outdir), st and (st.st_size, st.st_mtime_ns)

    def write_domain_indices() -> None:
        indices = builder.domain_indices  # type: ignore[attr-defined]
        digest = next((index_digest(builder, name, str(index_cls.localname), content, collapse)
                       for name, index_cls, content, collapse in indices if name == FLAG_INDEX), None)
        skip = digest is not None and state.resolved_docs < len(builder.env.found_docs) \
            and recall(memo, on_disk(), str) == digest
        builder.domain_indices = [e for e in indices if not (skip and e[0] == FLAG_INDEX)]  # type: ignore[attr-defined]
        try:
            write_all()
        finally:
            builder.domain_indices = indices  # type: ignore[attr-defined]
        if digest is not None and not skip:
            remember(memo, on_disk(), digest)

    builder.write_domain_indices = write_domain_indices  # type: ignore[attr-defined]


def count_resolved(app: Sphinx, doctree: Any, docname: str) -> None:
    """One more page written this build (doctree-resolved runs in the main process, -j or not)."""
    domain_of(app.env).state.resolved_docs += 1


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
    app.connect("write-started", write_changed_indices)
    app.connect("doctree-resolved", count_resolved)
    app.connect("build-finished", fail_on_problems)
