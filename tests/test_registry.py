"""The markup registry (issue 49): one row per role and directive in the core, each held to a class by this test."""
from __future__ import annotations

import pytest
from docutils.parsers.rst import Directive

from miles101.kinds import BY_NAME
from miles101.pages import scan_text
from miles101.registry import DIRECTIVES, FENCE, ROLES, WORD, directive_citation

pytestmark = pytest.mark.unit


def _component_roles() -> dict[str, object]:
    from miles101 import sphinx_ext

    return {name: role for module in sphinx_ext.ROLE_MODULES for name, role in module.ROLES.items()}


def _component_directives() -> dict[str, type]:
    from miles101 import sphinx_ext
    from miles101.sphinx_ext import reference_tables

    found = {name: cls for module in sphinx_ext.DIRECTIVE_MODULES for name, cls in module.DIRECTIVES.items()}
    return {**found, **{name: reference_tables.GeneratedDirective for name in reference_tables.KINDS}}


def test_every_role_has_a_class_and_every_class_a_role() -> None:
    classes = _component_roles()
    assert sorted(set(ROLES) - set(classes)) == [], "a role in miles101.registry that no component registers"
    assert sorted(set(classes) - set(ROLES)) == [], "a component registers a role miles101.registry lacks"
    assert all(callable(role) for role in classes.values())


def test_every_directive_has_a_class_and_every_class_a_directive() -> None:
    classes = _component_directives()
    assert sorted(set(DIRECTIVES) - set(classes)) == [], "a directive in miles101.registry that no component registers"
    assert sorted(set(classes) - set(DIRECTIVES)) == [], "a component registers a directive miles101.registry lacks"
    assert all(isinstance(cls, type) and issubclass(cls, Directive) for cls in classes.values())


def test_the_options_check_refuses_are_the_directives_own() -> None:
    classes = _component_directives()
    for name, row in DIRECTIVES.items():
        if row.options is not None:
            assert set(row.options) == set(classes[name].option_spec or {}), name


def test_each_cited_kind_is_a_kind_of_the_book() -> None:
    for row in [*ROLES.values(), *DIRECTIVES.values()]:
        assert row.cites is None or row.cites in BY_NAME, row
    assert {name for name, row in DIRECTIVES.items() if row.argument == WORD} == {
        "flag", "listing", "run-command", "until-recorded", "once-recorded", "fit-compare", "run-plot", "series-plot"}


@pytest.mark.parametrize(("line", "found"), [
    ("```{flag} --lr", ("flag", "--lr")),
    ("  ::::{listing} first-grpo   ", ("run", "first-grpo")),
    ("```{fit-compare} first-grpo.peak", ("measured", "first-grpo.peak")),
    ("```{flag}--lr", None),  # no space: not an argument
    ("```{flag} --lr --x", None),  # two words: not a key
    ("```{flag}", None),
    ("```{diagram} rollout", None),  # cites nothing
    ("```python", None),
    ("``{flag} --lr", None),  # two backticks: no fence
])
def test_one_fence_syntax_for_citing_directives(line: str, found: tuple[str, str] | None) -> None:
    got = directive_citation(line)
    assert (None if got is None else (got[0].cites, got[1])) == found
    opens = line.strip().lstrip("`:") != line.strip() and len(line.strip()) - len(line.strip().lstrip("`:")) >= 3
    assert bool(FENCE.match(line)) == (opens and line.strip().lstrip("`:").startswith("{")), line


def test_the_scanner_reads_roles_and_directives_through_the_registry() -> None:
    text = "Set {flag}`--lr` to {computed}`a.b:.2f`.\n\n```{listing} first-grpo\n:head: 3\n```\n"
    assert [(r.kind, r.key, r.line) for r in scan_text(text, "p.md")] == [
        ("flag", "--lr", 1), ("computed", "a.b", 1), ("run", "first-grpo", 3)]
