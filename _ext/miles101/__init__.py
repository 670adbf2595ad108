"""Miles 101: the book from manual.json, and roles that pull every number and flag from capture/."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the book, data and refs modules are used without Sphinx too
    from sphinx.application import Sphinx
    from sphinx.config import Config

__version__ = "1.0.0"


def load_book_into_config(app: Sphinx, config: Config) -> None:
    """Validate manual.json, set the root page, and key the environment on the book's digest."""
    from .book import load_book
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
    from .state import reload_capture, set_app

    set_app(app)
    capture = reload_capture(Path(app.srcdir))
    for problem in capture.problems:
        where = problem.where if ":" in problem.where else f"{problem.where}:1"
        warn("capture", problem.message, location=where, fix=problem.fix)
    install_assets(app)
    mermaid_only_where_drawn(app)


def setup(app: Sphinx) -> dict[str, Any]:
    from . import (
        assets,
        chrome,
        deps,
        directives,
        front,
        mathml,
        nodes,
        reference,
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
    app.connect("build-finished", assets.write_index)

    app.add_html_math_renderer("mathml", (mathml.visit_math, None), (mathml.visit_math_block, None))
    app.add_domain(ManualDomain)
    app.add_node(nodes.value_node, **nodes.VALUE_VISITORS)
    app.add_node(nodes.flag_facts, **nodes.FACTS_VISITORS)
    app.add_node(nodes.m101_generated)
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
    for name in reference.KINDS:
        app.add_directive(name, reference.GeneratedDirective)
    app.add_transform(chrome.SectionChrome)
    app.add_transform(chrome.ValuesOnPage)
    app.add_post_transform(reference.FillGenerated)
    from .calculator import setup_calculator

    setup_calculator(app)
    return {"version": __version__, "env_version": 5, "parallel_read_safe": True, "parallel_write_safe": True}
