"""The file index: every text file in Miles's tree and its line count (for ``{src}`` links)."""
from __future__ import annotations

from .source import Source


def line_count(text: str) -> int:
    """Lines as an editor numbers them: a final line without newline still counts."""
    return len(text.splitlines())


def extract_files(source: Source) -> dict[str, int]:
    """Path -> line count for every text file (binary files are left out)."""
    out = {}
    for path in source.paths():
        text = source.text(path)
        if text is not None:
            out[path] = line_count(text)
    return out
