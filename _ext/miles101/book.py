"""The book: manual.json, validated against its JSON Schema and cross-checked.

No Sphinx imports here: `load_book` is used by the extension, by `capture/run.py --check`
and by the tests alike. Problems come back as `miles101.problems.Problem`s that name the file, the
JSON path or line, and the fix.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .memo import recall, remember
from .palette import HUES
from .problems import Problem, ProblemError, Subtype, json_path
from .strict import decode, outside, parse_json_bytes, read_bytes

if TYPE_CHECKING:
    import jsonschema

SCHEMA_PATH = Path(__file__).with_name("manual.schema.json")


@dataclass(frozen=True)
class Section:
    """A section as the book lists it."""

    id: str
    file: str
    docname: str
    part: "Part"


@dataclass
class Part:
    """A part (or the Reference) with its sections."""

    key: str  # "1" ... "8", or "R"
    title: str
    thesis: str
    summary: str
    accent: str
    sections: list[Section] = field(default_factory=list)

    @property
    def caption(self) -> str:
        return self.title if self.key == "R" else f"Part {self.key} · {self.title}"


#: manual.json's fields that only the pages citing them show. A page reading one notes a `book:`
#: dependency (`Book.fingerprint_of`) and is read again alone when it changes: the `{book-*}`
#: directives read the whole book ("front"); a section's chrome reads its part ("section:<docname>").
#: Every other field is part of `Book.structure_digest`, which rebuilds every page (each sidebar
#: shows the parts and sections).
PAGE_FIELDS = ("subtitle", "summary", "plate", "audience", "outcomes", "palette", "related")
PART_PAGE_FIELDS = ("summary", "thesis")


def _fingerprint(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass
class Book:
    """manual.json, loaded: the raw data plus the parts and sections as objects."""

    data: dict
    digest: str
    parts: list[Part]

    @property
    def sections(self) -> list[Section]:
        return [s for p in self.parts for s in p.sections]

    @property
    def page_files(self) -> list[str]:
        """The book's one page list: the front page, then every section file, in reading order."""
        return [self.data["front"], *(s.file for s in self.sections)]

    def section_for(self, docname: str) -> Section | None:
        return self._by_doc().get(docname)

    def _by_doc(self) -> dict[str, Section]:
        return {s.docname: s for s in self.sections}

    @property
    def root_doc(self) -> str:
        return self.data["front"].removesuffix(".md")

    @property
    def structure_digest(self) -> str:
        """The digest of everything but the fields pages track themselves (PAGE_FIELDS, PART_PAGE_FIELDS)."""
        data = {k: v for k, v in self.data.items() if k not in PAGE_FIELDS}
        for key in ("parts", "reference"):
            if key in data:
                parts = data[key] if key == "parts" else [data[key]]
                trimmed = [{k: v for k, v in p.items() if k not in PART_PAGE_FIELDS} for p in parts]
                data[key] = trimmed if key == "parts" else trimmed[0]
        return _fingerprint(data)

    def fingerprint_of(self, key: str) -> str:
        """Content hash of what a page read from the book under `key` ('missing' when nothing answers it).

        "front": the whole book (the {book-*} directives show a bit of everything);
        "section:<docname>": what the section's chrome shows (its id, its part's caption, accent, thesis).
        """
        if key == "front":
            return _fingerprint(self.data)
        if key.startswith("section:"):
            section = self.section_for(key.partition(":")[2])
            if section is None:
                return "missing"
            part = section.part
            return _fingerprint([section.id, part.key, part.caption, part.accent, part.thesis])
        return "missing"


@cache
def _validator() -> jsonschema.Draft202012Validator:
    from .schemas import jsonschema_module

    jsonschema = jsonschema_module()  # only when manual.json is validated (not on a build whose book is unchanged)
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def _schema_problem(file: str, error: jsonschema.ValidationError) -> Problem:
    found = json.dumps(error.instance)
    if len(found) > 60:
        found = found[:57] + "..."
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return Problem(
            Subtype.BOOK, f"missing required key {missing[0]!r}.",
            f"add {missing[0]!r} to the object at {error.json_path}.", f"{file}:{error.json_path}",
        )
    if error.validator == "additionalProperties":
        return Problem(Subtype.BOOK, error.message + ".", "remove the key or fix its spelling.",
                       f"{file}:{error.json_path}")
    expected = {
        "type": f"a value of type {error.validator_value}",
        "enum": f"one of {error.validator_value}",
        "pattern": f"a string matching {error.validator_value}",
        "minItems": f"at least {error.validator_value} item(s)",
        "minLength": "a non-empty string",
        "format": f"a valid {error.validator_value}",
    }.get(str(error.validator), f"{error.validator} {error.validator_value}")
    return Problem(
        Subtype.BOOK, f"expected {expected}, found {found}.",
        f"change the value at {error.json_path}.", f"{file}:{error.json_path}",
    )


def _value_problems(file: str, data: object) -> list[Problem]:
    """Values JSON Schema accepts that manual.json may not hold: a NaN or an infinity (anywhere), a part number
    written with a fraction (2.0 passes "integer"), a link that is not https (pin.source)."""
    from .schemas import non_finite

    out = [Problem(Subtype.BOOK, f"{number} is not a number a page can show.", "write the real number there.",
                   f"{file}:{json_path(path)}") for path, number in non_finite(data)]
    if not isinstance(data, dict):
        return out
    for i, part in enumerate(data.get("parts") or []):
        number = part.get("number") if isinstance(part, dict) else None
        if isinstance(number, float) and math.isfinite(number):
            whole = f"write {int(number)}" if number.is_integer() else "write a whole number (1, 2, 3 ...)"
            out.append(Problem(Subtype.BOOK, f"the part number {number!r} is not written as a whole number.",
                               f"{whole}; a section id is <part>.<n> (2.1), so the part number has no fraction.",
                               f"{file}:$.parts[{i}].number"))
    source = (data.get("pin") or {}).get("source") if isinstance(data.get("pin"), dict) else None
    if isinstance(source, str) and not source.startswith("https://"):
        out.append(Problem(Subtype.BOOK, f"the pin's source {source[:60]!r} is not an https:// address; the front "
                           "page links it.", "give the https:// address of the repository (https://github.com/...).",
                           f"{file}:$.pin.source"))
    return out


def _cross_check(file: str, data: dict, srcdir: Path) -> list[Problem]:
    """What the schema cannot say: files exist, ids unique and in order, colours defined."""
    problems: list[Problem] = []
    known = ", ".join(HUES)
    for i, entry in enumerate(data["palette"]):
        if entry["hue"] not in HUES:
            problems.append(Problem(
                Subtype.BOOK, f"the hue {entry['hue']!r} has no colour defined.",
                f"use one of {known}, or add it to _ext/miles101/palette.py.",
                f"{file}:$.palette[{i}].hue", fatal=False,
            ))
    groups = [(f"$.parts[{i}]", str(p["number"]), p) for i, p in enumerate(data["parts"])]
    groups.append(("$.reference", "R", data["reference"]))
    seen: dict[str, str] = {}
    files: dict[str, str] = {}
    texts: dict[str, str] = {}  # each page's text, read once (`_unreadable_page`)
    for n, (path, key, part) in enumerate(groups):
        if key != "R" and part["number"] != n + 1:
            problems.append(Problem(
                Subtype.BOOK, f"part number {part['number']} is out of order (expected {n + 1}).",
                "number the parts 1, 2, 3 ... in the order they appear.", f"{file}:{path}.number", fatal=False,
            ))
        if part["accent"] not in HUES:
            problems.append(Problem(
                Subtype.BOOK, f"the accent {part['accent']!r} has no colour defined.",
                f"use one of {known}, or add it to _ext/miles101/palette.py.", f"{file}:{path}.accent", fatal=False,
            ))
        for j, sec in enumerate(part["sections"]):
            spath = f"{path}.sections[{j}]"
            sid = sec["id"]
            if sid in seen:
                problems.append(Problem(
                    Subtype.BOOK, f"duplicate section id {sid!r} (first at {seen[sid]}).",
                    "give each section its own id.", f"{file}:{spath}.id", fatal=False,
                ))
            seen.setdefault(sid, spath)
            prefix, _, number = sid.partition(".")
            if prefix != key:
                problems.append(Problem(
                    Subtype.BOOK, f"section id {sid!r} does not belong to part {key}.",
                    f"number it {key}.{j + 1}.", f"{file}:{spath}.id", fatal=False,
                ))
            elif number != str(j + 1):
                problems.append(Problem(
                    Subtype.BOOK, f"section id {sid!r} is out of order (expected {key}.{j + 1}).",
                    "number the sections of a part 1, 2, 3 ... in order.", f"{file}:{spath}.id", fatal=False,
                ))
            page = srcdir / sec["file"]
            if sec["file"] in files:
                problems.append(Problem(
                    Subtype.BOOK, f"the file {sec['file']!r} is listed twice (first at {files[sec['file']]}).",
                    "give each section its own file.", f"{file}:{spath}.file", fatal=False,
                ))
            files.setdefault(sec["file"], spath)
            unreadable = _unreadable_page(srcdir, sec["file"], texts) if page.exists() else None
            if unreadable:
                problems.append(unreadable)
            elif not page.is_file():
                problems.append(Problem(
                    Subtype.BOOK, f"the section file {sec['file']!r} does not exist.",
                    f"create {sec['file']} (a '# Title' line is enough) or fix the path.",
                    f"{file}:{spath}.file", fatal=False,
                ))
            elif not _has_title(page, texts.get(sec["file"])):
                problems.append(Problem(
                    Subtype.BOOK, f"the section file {sec['file']!r} has no '# Title' line (empty?).",
                    f"give {sec['file']} a '# Title' line and its text, or remove the section.",
                    f"{file}:{spath}.file", fatal=False,
                ))
    for spath, rel in [("$.front", data["front"])] + [(f"{p}.sections[{j}].file", sec["file"])
                                                      for p, _, part in groups for j, sec in enumerate(part["sections"])]:
        why = _outside_problem(srcdir, rel, read=rel in texts)
        if why:
            problems.append(Problem(Subtype.BOOK, why, "name a page inside the book's directory, by a relative "
                                    "path without '..' (and not a symlink out of it).",
                                    f"{file}:{spath}"))
    if any(p.where.endswith(".file") or p.where == f"{file}:$.front" for p in problems if p.fatal):
        return problems
    front_problem = _unreadable_page(srcdir, data["front"], texts) if (srcdir / data["front"]).exists() else None
    if front_problem:
        problems.append(front_problem)
    elif not (srcdir / data["front"]).is_file():
        problems.append(Problem(
            Subtype.BOOK, f"the front page {data['front']!r} does not exist.",
            "create it or fix the path.", f"{file}:$.front",
        ))
    listed = {s["file"] for _, _, p in groups for s in p["sections"]}
    for page in sorted((srcdir / "sections").glob("*.md")):
        rel = page.relative_to(srcdir).as_posix()
        if rel not in listed:
            problems.append(Problem(
                Subtype.UNLISTED_PAGE, "this page is not listed in manual.json.",
                "add it to a part's sections in manual.json, or delete it.", f"{rel}:1", fatal=False,
            ))
    return problems


def _outside_problem(srcdir: Path, rel: str, read: bool = False) -> str | None:
    """Why a page path of manual.json does not name a file inside the source directory, or None.

    `read`: the strict reader read the page inside `srcdir` already (so no link leads out of it)."""
    if Path(rel).is_absolute() or ".." in Path(rel).parts or "\\" in rel:
        return f"the page {rel!r} lies outside the book's directory."
    if not read and (srcdir / rel).exists() and outside(srcdir / rel, srcdir):
        return f"the page {rel!r} is a symlink out of the book's directory."
    return None


def _unreadable_page(srcdir: Path, rel: str, texts: dict[str, str] | None = None) -> Problem | None:
    """A page that is not a regular UTF-8 file inside the book (Sphinx would crash or block on it), or None.

    A page that reads goes into `texts` (rel → its text as `Path.read_text` gives it, a BOM kept), so one
    cross-check reads each page once."""
    try:
        restore = f"restore it from git (`git checkout -- {rel}`)"
        raw = read_bytes(srcdir / rel, rel, srcdir, restore)
        text = decode(raw, rel, restore)
    except ProblemError as exc:
        return replace(exc.problem, subtype=Subtype.MARKUP, where=exc.problem.location)
    if texts is not None:
        texts[rel] = "\ufeff" + text if raw.startswith(b"\xef\xbb\xbf") else text
    return None


def _has_title(page: Path, text: str | None = None) -> bool:
    """Whether a page has a level-1 heading (an empty or untitled page breaks the toctree); `text`: the page's,
    read already."""
    if text is None:
        try:
            text = page.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return True  # the build reports an unreadable page itself
    if text.startswith("# ") or "\n# " in text:  # the usual page, without splitting it into lines
        return True
    return any(line.startswith("# ") for line in text.splitlines())


def load_book(path: Path, srcdir: Path | None = None,
              valid_cache: Path | None = None) -> tuple[Book | None, list[Problem]]:
    """Read, validate and cross-check manual.json. The book is None when it cannot be built.

    With `valid_cache` (a file in the build's doctree dir), the JSON Schema check, and the import of
    jsonschema, is skipped when manual.json and the schema are byte for byte the ones that last passed
    it. The cross-checks against the pages always run.
    """
    srcdir = srcdir or path.parent
    file = path.name
    try:  # the one strict reader (miles101.strict), as for every capture file
        raw = read_bytes(path, file, fix="restore manual.json")
        data = parse_json_bytes(raw, file, "fix the JSON syntax there (a missing comma or quote is the usual cause)")
    except ProblemError as exc:
        return None, [replace(exc.problem, subtype=Subtype.BOOK, where=exc.problem.location)]
    odd = _value_problems(file, data)  # what the schema lets through: NaN, 2.0 for 2, a javascript: link
    if odd:
        return None, odd
    key = hashlib.sha256(raw + b"\0" + SCHEMA_PATH.read_bytes()).hexdigest()  # what the schema check reads
    if recall(valid_cache, key) is not True:
        errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            return None, [_schema_problem(file, e) for e in errors]
        remember(valid_cache, key, True)
    problems = _cross_check(file, data, srcdir)
    if any(p.fatal for p in problems):
        return None, problems
    parts: list[Part] = []
    for p in [*data["parts"], data["reference"]]:
        key = str(p.get("number", "R"))
        part = Part(key, p["title"], p["thesis"], p.get("summary", ""), p["accent"])
        part.sections = [Section(s["id"], s["file"], s["file"].removesuffix(".md"), part) for s in p["sections"]]
        parts.append(part)
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return Book(data, digest, parts), problems
