"""What every role and directive of the book shares: its warnings, its dependency notes, its problems.

Warnings are an API (MyST-Parser's `MystWarnings` is the model): each has the type `manual` and a
subtype from `miles101.problems.Subtype` (AUTHORING.md lists them for `suppress_warnings`), and ends
with how to fix it. `capture/run.py --check` prints the same problems.

A role or directive notes what it cites (`note`), so its page is read again exactly when that
changes, and reports what it cannot resolve (`report`): once per root cause (a reference into a
capture file that cannot be read at all is a follow-on, counted, not listed), and counted on the
page so the build fails and the page is read again next time.
"""
from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from ..kinds import broken_sources
from ..problems import Problem, Subtype
from ..resolve import Resolved, dependency, resolve
from .domain import capture_of, domain_of

logger = logging.getLogger("miles101")

#: The reference kind an "unknown" subtype is about, to tell a follow-on of a broken capture file.
KIND_OF_SUBTYPE = {Subtype.UNKNOWN_FLAG: "flag", Subtype.UNKNOWN_METRIC: "metric"}


def warn(subtype: Subtype, message: str, *, location: Any = None, fix: str = "") -> None:
    """Log a `manual.<subtype>` warning at `location`, ending with how to fix it."""
    if not isinstance(subtype, Subtype):
        raise TypeError(f"miles101: a warning's subtype is a Subtype member, not {subtype!r}")
    text = f"{message} Fix: {fix}" if fix else message
    logger.warning(text, type="manual", subtype=subtype.value, location=location)


def warn_problem(problem: Problem, *, location: Any = None) -> None:
    """Log a problem as its `manual.<subtype>` warning."""
    warn(problem.subtype, problem.message, location=location, fix=problem.fix)


class Cites:
    """The shared half of the book's roles and directives (mixed into SphinxRole and SphinxDirective)."""

    #: The kind of reference a role resolves (`flag`, `measured`, ...); empty for a directive.
    kind = ""
    env: Any  # `env` and `get_location()` come from SphinxRole / SphinxDirective

    def note(self, kind: str, key: str) -> None:
        """The page shows what `kind:key` resolves to: read it again when that changes."""
        domain = domain_of(self.env)
        domain.note_dep(self.env.docname, kind, key, domain.fingerprint_of(kind, key))

    def report(self, problem: Problem) -> None:
        """Warn about `problem` here (unless a broken capture file explains it) and count it on the page."""
        kind = self.kind or KIND_OF_SUBTYPE.get(problem.subtype)
        if kind not in broken_sources(capture_of(self.env)):
            warn_problem(problem, location=self.get_location())
        domain_of(self.env).note_problem(self.env.docname)


class ResolvedRole(Cites, SphinxRole):
    """A role of the book: resolves its text with the core resolver, renders it, or reports why it cannot."""

    #: Whether the page is read again when what the role resolves to changes (an issue link never does).
    follows_data = True

    def run(self) -> tuple[list[nodes.Node], list]:
        if self.follows_data:
            self.note(*dependency(self.kind, self.text))
        result = resolve(capture_of(self.env), self.kind, self.text)
        if isinstance(result, Problem):
            self.report(result)
            return [nodes.inline(self.rawtext, self.text, classes=["m101-unresolved"])], []
        return self.render(result), []

    def render(self, result: Resolved) -> list[nodes.Node]:
        raise NotImplementedError


class ManualDirective(Cites, SphinxDirective):
    """A directive of the book: what it cannot show, it reports and leaves out."""

    def problem(self, subtype: Subtype, message: str, fix: str) -> list[nodes.Node]:
        """Report a problem found here and show nothing in its place."""
        self.report(Problem(subtype=subtype, message=message, fix=fix))
        return []

    def refuse(self, problem: Problem) -> list[nodes.Node]:
        """Report a resolver's problem and show nothing in its place."""
        self.report(problem)
        return []

    def resolved_argument(self, kind: str) -> Resolved | None:
        """What the argument names as a `kind` (the page now follows it); None once its problem is reported."""
        key = self.arguments[0].strip()
        self.note(kind, key)
        result = resolve(capture_of(self.env), kind, key)
        if isinstance(result, Problem):
            self.report(result)
            return None
        return result


def skip_node(self: Any, node: nodes.Node) -> None:
    """A visitor for a node a builder does not write."""
    raise nodes.SkipNode


def add_markup(app: Sphinx, roles: dict[str, Any], directives: dict[str, type]) -> None:
    """Register a component's roles and directives under their names."""
    for name, role in roles.items():
        app.add_role(name, role)
    for name, directive in directives.items():
        app.add_directive(name, directive)
