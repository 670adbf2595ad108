"""The pages' references, and for each change the ones that cite it (and whether the prose states the old value)."""
from __future__ import annotations

import re
from pathlib import Path

from .change import Change

from miles101.book import load_book
from miles101.pages import ROLE, Ref, scan_pages
from miles101.registry import directive_citation

CITING_KINDS = ("flag", "metric", "src", "computed")


class PagesError(RuntimeError):
    """The book (manual.json) under --pages-root cannot be read."""


def page_files(root: Path) -> list[str]:
    """The front page and every section file manual.json lists."""
    if not (root / "manual.json").is_file():
        raise PagesError(f"--pages-root {root}: no manual.json there (point it at the Miles 101 project root)")
    book, problems = load_book(root / "manual.json", root)
    if book is None:
        raise PagesError(f"--pages-root {root}: " + "; ".join(str(p) for p in problems))
    return book.page_files


def load_refs(root: Path) -> tuple[list[str], list[Ref]]:
    """The page files and their flag, metric, src and computed references."""
    files = page_files(root)
    return files, [r for r in scan_pages(root, files) if r.kind in CITING_KINDS]


def prose(paragraph: str) -> str:
    """The paragraph without the roles and directive lines themselves (so a flag's own name is not 'prose')."""
    text = ROLE.sub(" ", paragraph)
    return "\n".join(line for line in text.splitlines() if not directive_citation(line))


def stated_in(paragraph: str, values: list[str]) -> list[str]:
    """Which of the old values the prose around a reference writes out."""
    text = prose(paragraph)
    found = []
    for value in values:
        if value and re.search(r"(?<![\w.\-])" + re.escape(value) + r"(?![\w\-]|\.\d)", text):
            found.append(value)
    return found


def attach(changes: list[Change], refs: list[Ref]) -> None:
    """Fill each change's ``cited_by`` with the references it touches."""
    for change in changes:
        for ref in refs:
            if change.match(ref):
                entry = {"file": ref.file, "line": ref.line, "kind": ref.kind, "text": ref.text}
                if change.stated:
                    entry["states_old"] = stated_in(ref.paragraph, change.stated)
                change.cited_by.append(entry)
