"""One side of a diff: the four extraction documents, and Miles's source text when it is at hand."""
from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from capture.extract.cli import documents
from capture.extract.source import Source, SourceError, open_source
from miles101.book_miles import EXTRACTION_RECORDS, extraction_shape
from miles101.derive import derive_all
from miles101.problems import ProblemError
from miles101.strict import read_bytes

from .linemap import LineMap

DOC_KEYS = {"flags.json": "flags", "metrics.json": "metrics", "models.json": "models", "files.json": "files"}


class SideError(RuntimeError):
    """An OLD or NEW argument that cannot be read (exit status 2)."""


@dataclass
class Side:
    """An extraction: documents by file name, the tree it came from (or None), derived values."""

    label: str  # what the user passed
    docs: dict[str, dict]
    source: Source | None = None
    computed: dict | None = None
    notes: list[str] = field(default_factory=list)
    _lines: dict[str, list[str] | None] = field(default_factory=dict, repr=False)
    _maps: dict[tuple[str, int], object] = field(default_factory=dict, repr=False)

    @property
    def provenance(self) -> dict:
        return self.docs["flags.json"].get("provenance", {})

    @property
    def flags(self) -> list[dict]:
        return self.docs["flags.json"]["flags"]

    @property
    def families(self) -> list[dict]:
        return self.docs["flags.json"].get("families", [])

    @property
    def metrics(self) -> list[dict]:
        return self.docs["metrics.json"]["metrics"]

    @property
    def models(self) -> list[dict]:
        return self.docs["models.json"]["models"]

    @property
    def files(self) -> dict[str, int]:
        return self.docs["files.json"]["files"]

    def lines(self, path: str) -> list[str] | None:
        """The file's lines when the source is at hand, else None."""
        if path not in self._lines:
            text = self.source.text(path) if self.source is not None else None
            self._lines[path] = None if text is None else text.splitlines()
        return self._lines[path]

    def linemap(self, other: Side, path: str):
        """The line map of ``path`` from this side to ``other`` (None without both texts); cached."""

        key = (path, id(other))
        if key not in self._maps:
            a, b = self.lines(path), other.lines(path)
            self._maps[key] = LineMap(a, b) if a is not None and b is not None else None
        return self._maps[key]

    def describe(self) -> str:
        prov = self.provenance
        how = "source text" if self.source is not None else "capture files only"
        return f"{str(prov.get('commit', '?'))[:9]} ({prov.get('commit_date', '?')}, {self.label}, {how})"


def capture_dir(path: Path) -> Path | None:
    """The folder holding flags.json etc.: ``path`` itself or its ``miles/`` (so ``capture/`` works too)."""
    for cand in (path, path / "miles"):
        if (cand / "flags.json").is_file():
            return cand
    return None


def read_dir(folder: Path, label: str) -> dict[str, dict]:
    """The four documents of a capture directory, checked for their top-level keys."""
    docs = {}
    for name, key in DOC_KEYS.items():
        path = folder / name
        if not path.exists() and not path.is_symlink():
            raise SideError(f"{label}: {path} is missing (a capture directory needs {', '.join(DOC_KEYS)})")
        try:  # the strict reader: a regular file only (a FIFO is refused, never waited on)
            doc = json.loads(read_bytes(path, str(path)).decode("utf-8"))
        except ProblemError as exc:
            raise SideError(f"{label}: cannot read {path}: {exc.problem.message}") from None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise SideError(f"{label}: cannot read {path}: {exc}") from None
        if not isinstance(doc, dict) or key not in doc:
            raise SideError(f"{label}: {path} has no {key!r} (not a Miles 101 capture file)")
        wrong = extraction_shape(doc, name) if name in EXTRACTION_RECORDS else None
        if wrong:
            raise SideError(f"{label}: {path}:{wrong[0]}: {wrong[1]} (not a Miles 101 capture file; re-run the "
                            "extraction, `python3 capture/run.py`, or restore it from git)")
        docs[name] = doc
    return docs


def derive(docs: dict[str, dict]) -> tuple[dict | None, str | None]:
    """computed.json's body for these documents, or None and why."""

    try:
        return derive_all(docs["models.json"], docs["flags.json"]), None
    except (ValueError, KeyError, TypeError) as exc:
        return None, f"computed values not derived: {exc}"


def extract(source: Source, megatron: Source | None) -> tuple[dict[str, dict], list[str]]:
    """The extractor's documents for one tree, and what it printed (kept as notes, not on our stdout)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        docs = documents(source, megatron) if megatron is not None else documents(source)
    return docs, [line for line in printed.getvalue().splitlines() if line.strip()]


def load_side(arg: str, miles_src: str | None, megatron: Source | None = None) -> Side:
    """A capture directory, or a revision of ``miles_src`` extracted in memory."""
    folder = capture_dir(Path(arg))
    if folder is not None:
        side = Side(label=str(folder), docs=read_dir(folder, arg))
        commit = side.provenance.get("commit")
        if miles_src and commit:
            try:  # the capture's own commit, for comparing cited lines
                side.source = open_source(miles_src, commit)
            except SourceError:
                side.notes.append(f"{arg}: commit {commit[:9]} is not in {miles_src}; cited lines not compared")
    elif Path(arg).is_dir() and not miles_src:
        raise SideError(f"{arg}: no flags.json here or in {arg}/miles (not a capture directory)")
    elif not miles_src:
        raise SideError(f"{arg}: not a capture directory; to read it as a revision pass --miles-src PATH "
                        "(a Miles checkout or git dir)")
    else:
        try:
            source = open_source(miles_src, arg)
        except SourceError as exc:
            raise SideError(f"{arg}: {exc}") from None
        docs, printed = extract(source, megatron)
        side = Side(label=f"{arg} in {miles_src}", docs=docs, source=source,
                    notes=[f"{arg}: extractor: {line}" for line in printed])
        for note in docs["flags.json"].get("notes", []):
            if "registrar" in note["what"]:
                side.notes.append(f"{arg}: extractor: {note['what']}: {note['file']}")
    side.computed, note = derive(side.docs)
    if note:
        side.notes.append(f"{arg}: {note}")
    return side
