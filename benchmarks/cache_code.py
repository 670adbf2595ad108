"""Count the book's cache code by named definitions (issue 59, item 4): the same command before and after.

    .venv/bin/python benchmarks/cache_code.py            # a row per definition, a line per file, the total
    .venv/bin/python benchmarks/cache_code.py --total    # the total alone

A definition is a top-level function, class or assignment (or `Class.method`), with its decorators and the
`#` comment lines right above it; `*` is the whole file. A definition that is gone counts 0 and is named as
gone, so the list stays the issue's while the code shrinks. The list is the issue's: the memo module, the
checks' cache and the number-blind schema shortcut, the fingerprint table, and the memo sites (each site's
memo file name, its key, its reads and writes) of the extension and of the book's schema stamp. A site's
function that does the real work besides its memo (image_compare.check_book, hosting's table) is counted
only where it exists for the memo.
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = "_ext/miles101"

#: file (under the project root) → the definitions of today's cache code in it.
CACHE_CODE: dict[str, tuple[str, ...]] = {
    f"{CORE}/memo.py": ("*",),
    f"{CORE}/validate.py": ("SHAPES_CACHE", "SchemaCheck", "_cache_entries", "Cache"),
    # shape_errors: SchemaCheck's number-blind check, moved from validate.py (cache59d), counted where it is now
    f"{CORE}/schemas.py": ("VALUE_KEYWORDS", "_holds_number", "_blind", "number_blind", "number_shape", "shape_errors"),
    f"{CORE}/data.py": ("FINGERPRINT_INPUTS", "Capture.digest_of", "Capture.unchanged_kinds"),
    f"{CORE}/sphinx_ext/incremental.py": ("INDEX_MEMO", "index_digest", "_stat", "write_changed_indices"),
    f"{CORE}/sphinx_ext/runs.py": (),  # no memo site today: its scripts are rendered from the model every build
    f"{CORE}/sphinx_ext/log_doctor.py": ("RULES_MEMO",),
    f"{CORE}/doctor_rules.py": ("rules_text",),
    f"{CORE}/sphinx_ext/image_compare.py": ("CHECK_MEMO", "_bytes", "check_key"),
    f"{CORE}/sphinx_ext/hosting.py": ("CHECKED_MEMO", "LastChecks", "last_checks"),
    f"{CORE}/book.py": ("_schema_key", "_known_valid", "_remember_valid"),
}


def _names(node: ast.stmt) -> list[str]:
    """The names a top-level statement defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _span(node: ast.stmt, lines: list[str]) -> int:
    """The lines of a definition: its decorators, its body, and the `#` comment lines right above it."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    return node.end_lineno - first + 1  # type: ignore[operator]


def definitions(path: Path) -> dict[str, int]:
    """Each top-level definition and each method (`Class.method`) of a module → its lines."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: dict[str, int] = {}
    for node in ast.parse("\n".join(lines)).body:
        for name in _names(node):
            out[name] = _span(node, lines)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                for name in _names(member):
                    out[f"{node.name}.{name}"] = _span(member, lines)
    return out


def count(root: Path = ROOT) -> list[tuple[str, str, int | None]]:
    """(file, definition, lines) for every named definition; lines None where the definition (or file) is gone."""
    rows: list[tuple[str, str, int | None]] = []
    for rel, names in CACHE_CODE.items():
        path = root / rel
        if not path.is_file():
            rows += [(rel, name, None) for name in names]
            continue
        if names == ("*",):
            rows.append((rel, "*", len(path.read_text(encoding="utf-8").splitlines())))
            continue
        found = definitions(path)
        rows += [(rel, name, found.get(name)) for name in names]
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--total", action="store_true", help="print the total alone")
    ap.add_argument("--root", type=Path, default=ROOT, help="the project to count (default: this one)")
    args = ap.parse_args(argv)
    rows = count(args.root)
    total = sum(n or 0 for _, _, n in rows)
    if args.total:
        print(total)
        return 0
    for rel in CACHE_CODE:
        mine = [(name, n) for r, name, n in rows if r == rel]
        print(f"{sum(n or 0 for _, n in mine):5d}  {rel}")
        for name, n in mine:
            print(f"{'' if n is None else n:>11}  {name}{'  (gone)' if n is None else ''}")
    files = sum(1 for rel in CACHE_CODE if any(r == rel and n for r, _, n in rows))
    print(f"{total:5d}  lines of cache code in {files} files ({sum(1 for *_, n in rows if n)} definitions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
