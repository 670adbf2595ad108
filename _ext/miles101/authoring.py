"""AUTHORING.md's tables, written from the tables they document, never typed.

The roles come from the kinds table (`miles101.kinds`, each role's `examples`), the directives from the
markup registry (`miles101.registry.DIRECTIVES`), the warnings from `miles101.problems.Subtype` (each
member's `when`). Each table sits between two marker comments in AUTHORING.md;
`python3 dev.py authoring` (`python3 -m miles101.authoring --write`) rewrites what lies between them,
and tests/test_authoring.py holds the committed file to this module. No Sphinx imports.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from .kinds import KINDS
from .problems import Subtype
from .registry import DIRECTIVES, Markup

ROOT = Path(__file__).resolve().parents[2]
AUTHORING = ROOT / "AUTHORING.md"


def _cell(text: str) -> str:
    """Markdown for one table cell (a `|` inside it would end the cell)."""
    return text.replace("|", "\\|")


def roles_table() -> str:
    """The table of roles: what an author writes, what it renders, when the build fails (one row per example)."""
    rows = ["| you write | it renders | it fails when |", "| --- | --- | --- |"]
    for kind in KINDS:
        for example in kind.examples:
            written = f"`` {{{kind.name}}}`{example.text}` ``"
            rows.append(f"| {written} | {_cell(example.renders)} | {_cell(example.fails or 'same')} |")
    return "\n".join(rows)


def _cites(row: Markup) -> str:
    return f"a `{row.cites}` key" if row.cites else "nothing by key"


def directives_table() -> str:
    """The table of directives: each name, what its argument cites, the options `--check` holds it to."""
    rows = ["| directive | its argument cites | options (`--check` refuses others) |", "| --- | --- | --- |"]
    for name in sorted(DIRECTIVES):
        row = DIRECTIVES[name]
        options = ", ".join(f"`:{o}:`" for o in row.options) if row.options else "its own (not checked)"
        rows.append(f"| `{{{name}}}` | {_cites(row)} | {options} |")
    return "\n".join(rows)


def warnings_table() -> str:
    """The table of warnings: each `manual.<subtype>` and when the extension (and `--check`) gives it."""
    rows = ["| warning | when |", "| --- | --- |"]
    rows += [f"| `{subtype}` | {_cell(subtype.when)} |" for subtype in Subtype]
    return "\n".join(rows)


#: Each generated table: its marker name, the code it is written from, the function that writes it.
TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "roles": ("miles101.kinds.KINDS", roles_table),
    "directives": ("miles101.registry.DIRECTIVES", directives_table),
    "warnings": ("miles101.problems.Subtype", warnings_table),
}


def begin_marker(name: str) -> str:
    source = TABLES[name][0]
    return f"<!-- table {name}: written by `python3 dev.py authoring` from {source}; edit that, not this -->"


def end_marker(name: str) -> str:
    return f"<!-- end of table {name} -->"


def render(text: str, where: str = "AUTHORING.md") -> str:
    """`text` with each table between its markers written afresh; ValueError naming a marker that is missing."""
    for name, (_, write) in TABLES.items():
        begin, end = begin_marker(name), end_marker(name)
        head, sep, rest = text.partition(begin)
        _, sep2, tail = rest.partition(end)
        if not sep or not sep2:
            raise ValueError(f"{where}: the markers of table {name!r} are missing or out of order; put the lines\n"
                             f"{begin}\n{end}\nwhere the table belongs, then run `python3 dev.py authoring`")
        text = f"{head}{begin}\n{write()}\n{end}{tail}"
    return text


def main(argv: list[str] | None = None) -> int:
    """Check AUTHORING.md's tables (exit 1 when stale), or `--write` them."""
    argv = sys.argv[1:] if argv is None else argv
    old = AUTHORING.read_text(encoding="utf-8")
    try:
        new = render(old)
    except ValueError as exc:  # a marker missing: named with the fix, never a traceback
        print(exc, file=sys.stderr)
        return 1
    if "--write" in argv:
        if new != old:
            AUTHORING.write_text(new, encoding="utf-8")
        print(f"AUTHORING.md: tables {'written' if new != old else 'unchanged'}")
        return 0
    if new != old:
        print("AUTHORING.md: its tables are stale (a kind, a directive or a warning changed); "
              "run `python3 dev.py authoring`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
