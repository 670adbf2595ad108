"""Incremental builds by content: a page is read again when, and only when, what it cites changed."""
from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..capture import fingerprint
from .domain import domain_of
from .messages import logger
from .reference_tables import generated_docs, table_inputs
from .state import current_capture


def stale_docs(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """Pages whose cited data hashes differ from now, and pages that had problems last time."""
    capture = current_capture(env)  # loaded fresh at builder-inited, before this event
    stale = []
    for docname, record in domain_of(env).data["docs"].items():
        if docname in changed or docname in removed or docname not in env.all_docs:
            continue
        if record["problems"]:
            stale.append(docname)
            continue
        for dep, digest in record["deps"].items():
            kind, _, key = dep.partition(":")
            if capture.fingerprint_of(kind, key) != digest:
                stale.append(docname)
                break
    if stale:
        logger.info("[miles101] %d page(s) cite changed data: %s", len(stale), ", ".join(sorted(stale)))
    return stale


def rewritten_docs(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The Reference pages whose generated tables would change: their inputs' digest moved."""
    before: dict[str, str] = getattr(env, "m101_generated_digests", {})
    now = {doc: fingerprint([table_inputs(env, kind) for kind in kinds])
           for doc, kinds in generated_docs(env).items()}
    env.m101_generated_digests = now
    return sorted(doc for doc, digest in now.items() if before.get(doc) != digest)


def check_consistency(app: Sphinx, env: BuildEnvironment) -> None:
    """A flag is documented in one section only; a second block is a warning on the second page."""
    from .messages import warn

    for name, first, other in domain_of(env).duplicate_flags():
        warn("duplicate", f"the flag {name} is documented here and in {first}.", location=(other, None),
             fix="keep the block in the section that teaches the flag; use {flag} inline in the other.")


def fail_on_problems(app: Sphinx, exception: Exception | None) -> None:
    """Unresolved references fail the build even without -W (and even on an incremental build)."""
    if exception is not None:
        return
    count = domain_of(app.env).problem_count()
    if count:
        logger.error("[miles101] %d unresolved reference(s) in the pages (see the warnings above).", count)
        app.statuscode = 1
