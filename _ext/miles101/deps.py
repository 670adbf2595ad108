"""Incremental builds by content: a page is read again when, and only when, what it cites changed."""
from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .data import fingerprint
from .domain import domain_of
from .messages import logger
from .reference import generated_docs
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
    """The Reference pages with generated tables, when anything their tables show has changed."""
    digest = generated_inputs_digest(env)
    if getattr(env, "m101_generated_digest", None) == digest:
        return []
    env.m101_generated_digest = digest
    return generated_docs(app, env)


def generated_inputs_digest(env: BuildEnvironment) -> str:
    """A hash of everything the generated tables read: every page's records and the capture data."""
    capture = current_capture(env)
    records = {doc: {k: v for k, v in rec.items() if k != "deps"} for doc, rec in domain_of(env).data["docs"].items()}
    data = [capture.provenance, capture.flags, capture.families, capture.metrics,
            [rec for _, rec in capture.metric_patterns], capture.runs, capture.recordings, capture.attempts,
            {f"{k}:{n}": [v.value, v.unit, v.what, v.detail] for (k, n), v in capture.values.items()},
            sorted(env.titles.keys()), {d: env.titles[d].astext() for d in env.titles}]
    return fingerprint([records, data])


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
