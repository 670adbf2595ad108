"""The book links its own repository: one setting, shown in the theme's footer, used by the pending boxes and R.3.

`m101_repository` in conf.py names it; left unset, it is found at config-inited (Read the Docs' clone
URL, else `git remote get-url origin`; miles101.repository). Only a public https URL is kept, in
`m101_repository_url` (an "env" setting, so a new URL re-reads the pages that print it); without one
the pages say "a clone of this book's repository" and link nothing.
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

from ..repository import discover
from ..kinds import record_command

FOOTER_NAME = "This book's source repository"
#: A plain "code" glyph (two chevrons), drawn in the footer's text colour.
FOOTER_ICON = ('<svg stroke="currentColor" fill="none" stroke-width="2" viewBox="0 0 24 24" aria-hidden="true" '
               'height="1em" width="1em" xmlns="http://www.w3.org/2000/svg"><path stroke-linecap="round" '
               'stroke-linejoin="round" d="M8 6l-6 6 6 6M16 6l6 6-6 6"/></svg>')


def resolve_repository(app: Sphinx, config: Config) -> None:
    """Find the repository's public URL once per build and show it in Furo's footer."""
    config.m101_repository_url = discover(Path(app.confdir), config.m101_repository) or ""
    url = config.m101_repository_url
    options = config.html_theme_options
    if url and config.html_theme == "furo" and "footer_icons" not in options:
        config.html_theme_options = {**options, "footer_icons": [
            {"name": FOOTER_NAME, "url": url, "html": FOOTER_ICON, "class": ""}]}


def repository_url(config: Config) -> str:
    """The book's repository as a public https URL, or "" when there is none to show."""
    return config.m101_repository_url


def clone_phrase(url: str) -> list[nodes.Node]:
    """'a clone of this book's repository', linked when the URL is public."""
    if not url:
        return [nodes.Text("a clone of this book's repository")]
    return [nodes.Text("a clone of "), nodes.reference("", "this book's repository", refuri=url)]


def record_yourself(run_id: str, url: str) -> list[nodes.Node]:
    """The pending boxes' last sentence: how a reader with a DGX Spark records the run."""
    return [nodes.Text(" Have a DGX Spark? Record it yourself: in "), *clone_phrase(url),
            nodes.Text(", run "), nodes.literal("", record_command(run_id)), nodes.Text(".")]


def setup_repository(app: Sphinx) -> None:
    app.add_config_value("m101_repository", None, "env", types=[str, type(None)])
    app.add_config_value("m101_repository_url", "", "env", types=[str])
    app.connect("config-inited", resolve_repository, priority=450)
