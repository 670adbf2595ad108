"""The Sphinx extension of Miles 101 (`extensions = ["miles101.sphinx_ext"]`): renders the core's book and capture."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

from .. import __version__


def load_book_into_config(app: Sphinx, config: Config) -> None:
    """Validate manual.json, set the root page, and key the environment on the book's digest."""
    from ..book import load_book
    from .messages import logger, warn
    from .state import set_book

    book, problems = load_book(Path(app.confdir) / config.m101_book, Path(app.srcdir))
    for p in problems:
        if not p.fatal:
            warn(p.subtype, p.message, location=p.location, fix=p.fix)
    if book is None:
        # A book that cannot be read stops the build with the problems alone: no traceback, exit 2.
        for p in problems:
            logger.error(f"{p.message} Fix: {p.fix}", type="manual", subtype=p.subtype, location=p.location)
        raise SystemExit(2)
    set_book(Path(app.srcdir), book)
    config.root_doc = book.root_doc
    config.m101_book_digest = book.digest
    config.m101_reference_docs = {s.id: s.docname for s in book.parts[-1].sections}
    listed = {s.file for s in book.sections}
    for page in sorted(Path(app.srcdir).glob("sections/*.md")):
        rel = page.relative_to(app.srcdir).as_posix()
        if rel not in listed:
            config.exclude_patterns.append(rel)


def on_builder_inited(app: Sphinx) -> None:
    from .assets import install_assets, mermaid_only_where_drawn
    from .messages import warn
    from ..validate import capture_problems
    from .state import reload_capture, set_app

    set_app(app)
    capture = reload_capture(Path(app.srcdir))
    # The rules of `capture/run.py --check`, cached by content under the doctree dir.
    problems, _ = capture_problems(Path(app.srcdir), capture, Path(app.doctreedir) / "m101-capture-valid.json")
    app.m101_capture_problems = len(problems)
    for problem in problems:
        where = problem.where if ":" in problem.where else f"{problem.where}:1"
        warn("capture", problem.message, location=where, fix=problem.fix)
    install_assets(app)
    mermaid_only_where_drawn(app)


def fail_on_capture_problems(app: Sphinx, exception: Exception | None) -> None:
    """Capture data that fails validation fails the build even without -W."""
    from .messages import logger

    count = getattr(app, "m101_capture_problems", 0)
    if exception is None and count:
        logger.error("[miles101] %d problem(s) in the capture data (see the manual.capture warnings above).", count)
        app.statuscode = 1


def setup(app: Sphinx) -> dict[str, Any]:
    from . import (
        assets,
        chrome,
        deps,
        directives,
        front,
        mathml,
        elements,
        reference_tables,
        roles,
    )
    from .domain import ManualDomain

    app.add_config_value("m101_book", "manual.json", "env", types=[str])
    app.add_config_value("m101_book_digest", "", "env", types=[str])
    app.add_config_value("m101_reference_docs", {}, "env", types=[dict])
    app.add_config_value("m101_mermaid_root", ".", "html", types=[str])
    app.connect("config-inited", load_book_into_config, priority=400)
    app.connect("builder-inited", on_builder_inited)
    app.connect("source-read", chrome.add_toctrees)
    app.connect("env-get-outdated", deps.stale_docs)
    app.connect("env-get-updated", deps.rewritten_docs)
    app.connect("env-check-consistency", deps.check_consistency)
    app.connect("build-finished", deps.fail_on_problems)
    app.connect("build-finished", fail_on_capture_problems)
    app.connect("build-finished", assets.write_index)

    app.add_html_math_renderer("mathml", (mathml.visit_math, None), (mathml.visit_math_block, None))
    app.add_domain(ManualDomain)
    app.add_node(elements.value_node, **elements.VALUE_VISITORS)
    app.add_node(elements.flag_facts, **elements.FACTS_VISITORS)
    app.add_node(elements.m101_generated)
    for name, role in roles.ROLES.items():
        app.add_role(name, role)
    app.add_directive("flag", directives.FlagDirective)
    app.add_directive("diagram", directives.DiagramDirective)
    app.add_directive("listing", directives.ListingDirective)
    app.add_directive("pin", directives.PinDirective)
    app.add_directive("run-command", directives.RunCommandDirective)
    app.add_directive("until-recorded", directives.UntilRecordedDirective)
    app.add_directive("once-recorded", directives.OnceRecordedDirective)
    for name, cls in front.DIRECTIVES.items():
        app.add_directive(name, cls)
    for name in reference_tables.KINDS:
        app.add_directive(name, reference_tables.GeneratedDirective)
    app.add_transform(chrome.SectionChrome)
    app.add_transform(chrome.ValuesOnPage)
    app.add_post_transform(reference_tables.FillGenerated)
    from ..pages import DIRECTIVE_NAMES, ROLE_KINDS

    assert set(roles.ROLES) == set(ROLE_KINDS), "miles101.pages.ROLE_KINDS lists the book's roles"
    registered = {"flag", "diagram", "listing", "pin", "run-command", "until-recorded", "once-recorded", "fit-calculator", "crosscheck-table", *front.DIRECTIVES, *reference_tables.KINDS}
    assert registered == set(DIRECTIVE_NAMES), "miles101.pages.DIRECTIVE_NAMES lists the book's directives"
    from .calculator import setup_calculator
    from .crosscheck import setup_crosscheck
    from .page_weight import setup_page_weight

    setup_calculator(app)
    setup_crosscheck(app)
    setup_page_weight(app)
    return {"version": __version__, "env_version": 5, "parallel_read_safe": True, "parallel_write_safe": True}
