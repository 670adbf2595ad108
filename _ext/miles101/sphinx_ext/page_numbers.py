"""The number rules of `miles101.pagenumbers` applied to each page as it is read: time products recomputed,
`≈` values and numbers in commands held to the run files or the reviewed list. `capture/run.py --check` applies
the same rules (`book_number_problems`).

A page notes what its numbers rest on (the reviewed entries it uses, the run files they name), so it is read
again when one changes; the roles of a time product note their run and reference themselves.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..pagenumbers import Reviewed, Used, load_reviewed, page_number_problems
from .base import warn_problem
from .domain import domain_of, register_derived

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: The reviewed list of this build (read at builder-inited; a forked reader inherits it).
_REVIEWED: dict[str, Reviewed] = {}


def load_reviewed_list(app: Sphinx) -> None:
    """Read the reviewed list once a build; its own problems fail the build as the capture's do."""
    domain = domain_of(app.env)
    reviewed = _REVIEWED[app.srcdir] = load_reviewed(Path(app.srcdir), domain.capture)
    domain.state.capture_problems += len(reviewed.problems)
    for problem in reviewed.problems:
        warn_problem(problem, location=problem.location)


def check_numbers(app: Sphinx, docname: str, source: list[str]) -> None:
    """Warn for each number rule the page breaks, at its line, and count it on the page."""
    domain = domain_of(app.env)
    reviewed = _REVIEWED.get(app.srcdir) or load_reviewed(Path(app.srcdir), domain.capture)
    used = Used()
    rel = str(app.env.doc2path(docname, False))
    for problem in page_number_problems(domain.capture, rel, source[0], reviewed, used):
        warn_problem(problem, location=(docname, int(problem.location.rsplit(":", 1)[1])))
        domain.note_problem(docname)
    for key in used.entries:
        domain.note_dep(docname, "reviewed-number", key, reviewed.digest(key))
    for run_id in used.runs:
        domain.note_dep(docname, "run", run_id, domain.fingerprint_of("run", run_id))


def setup_page_numbers(app: Sphinx) -> None:
    register_derived("reviewed-number", lambda capture, key: load_reviewed(capture.root, capture).digest(key))
    app.connect("builder-inited", load_reviewed_list, priority=200)  # after loading puts the capture in the domain
    app.connect("source-read", check_numbers, priority=100)  # the page as written, before toctrees are added
