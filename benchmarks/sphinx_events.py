"""sphinx-build, writing down the pages Sphinx read, from its own event (for bench.py).

    python benchmarks/sphinx_events.py EVENTS.json <sphinx-build arguments>

Under -j the "reading sources" progress line names only the first and last page of each chunk;
the `env-before-read-docs` event names every page Sphinx is about to read, after every
extension (the book's incremental rules among them) had its say.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import sphinx.cmd.build
from sphinx.application import Sphinx

READ: list[str] = []


class _Recording(Sphinx):
    """The application sphinx-build makes, listening last to `env-before-read-docs`."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.connect("env-before-read-docs", lambda app, env, docnames: READ.extend(docnames), priority=999)


def main(argv: list[str]) -> int:
    events, *args = argv
    sphinx.cmd.build.Sphinx = _Recording  # build_main makes its application by this name
    code = sphinx.cmd.build.build_main(args)
    Path(events).write_text(json.dumps({"read": sorted(set(READ))}), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
