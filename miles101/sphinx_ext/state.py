"""The book and the capture data of the running build, kept out of the pickled environment."""
from __future__ import annotations

from pathlib import Path

from sphinx.environment import BuildEnvironment

from ..book import Book
from ..capture import Capture, load_capture

_BOOKS: dict[str, Book] = {}
_CAPTURES: dict[str, Capture] = {}


def set_book(srcdir: Path, book: Book) -> None:
    _BOOKS[str(srcdir)] = book


def current_book(env: BuildEnvironment) -> Book:
    return _BOOKS[str(env.srcdir)]


def reload_capture(srcdir: Path) -> Capture:
    _CAPTURES[str(srcdir)] = capture = load_capture(srcdir)
    return capture


def current_capture(env: BuildEnvironment) -> Capture:
    key = str(env.srcdir)
    if key not in _CAPTURES:
        return reload_capture(Path(env.srcdir))
    return _CAPTURES[key]

_APPS: dict[str, object] = {}


def set_app(app) -> None:
    """Remember the running application (for post-transforms that need the builder)."""
    _APPS[str(app.srcdir)] = app


def current_app(env: BuildEnvironment):
    return _APPS[str(env.srcdir)]
