"""The JSON Schemas of the capture: which schema each file follows, and what of a document survives it.

The schemas (`schema/*.json`) are rules of the book, shipped with the core package, not part of the
data under test. `miles101.validate` reports what a file breaks; the loader (`miles101.data`) reads
only what `usable` keeps, so no reader meets a record of the wrong shape. A file the validation
found clean in the same intake is read as it is (`miles101.inputs.Inputs.clean`).
"""
from __future__ import annotations

import gc
import hashlib
import json
import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .capturefiles import row_for, schema_globs

if TYPE_CHECKING:
    import jsonschema

#: capture file glob (relative to capture/) → its schema file: a view of the table of capture files
#: (`miles101.capturefiles.FILES`), so a new file is validated by its row alone.
SCHEMAS = schema_globs()


def schema_dir() -> Path:
    """The JSON Schemas: rules of the book, shipped with the core package, not part of the data under test."""
    return Path(__file__).resolve().parent / "schema"


def schema_name_for(rel: str) -> str | None:
    """The schema file of a capture file (`capture/...` path), or None."""
    row = row_for(rel)
    return None if row is None else row.schema


@contextmanager
def collector_paused() -> Iterator[None]:
    """The garbage collector off meanwhile: an import that makes tens of thousands of long-lived objects would
    otherwise have each collection in a build's large heap walk them for nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def jsonschema_module() -> ModuleType:
    """jsonschema, imported when a validation first runs: a build whose capture and book are unchanged validates
    nothing and never imports it. The import makes tens of thousands of objects that live as long as the process,
    so the collector is paused meanwhile (`collector_paused`)."""
    with collector_paused():
        import jsonschema
    return jsonschema


@cache
def validator(schema_file: str, schema_text: str) -> jsonschema.Draft202012Validator:
    """The compiled validator of one schema's text (once per process)."""
    return jsonschema_module().Draft202012Validator(json.loads(schema_text))


#: JSON Schema keywords that look at a number's value (2020-12); `const` and `enum` do when they hold a number.
VALUE_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems"})


def _holds_number(value: Any) -> bool:
    if isinstance(value, (dict, list)):
        return any(map(_holds_number, value.values() if isinstance(value, dict) else value))
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _blind(node: Any) -> bool:
    if isinstance(node, dict):
        return all(k not in VALUE_KEYWORDS and not (k in ("const", "enum") and _holds_number(v))
                   and not (k in ("$ref", "$dynamicRef") and not str(v).startswith("#"))  # another file: unseen here
                   and _blind(v) for k, v in node.items())
    return all(_blind(v) for v in node) if isinstance(node, list) else True


@cache
def number_blind(schema_text: str) -> bool:
    """Whether the schema's verdict on a document never depends on the value of a number in it, only on its kind:
    no bound, multipleOf, uniqueItems, const or enum holding a number, nor reference to another schema file (its
    keywords are not read here). Conservative: such a keyword anywhere, even as a property's name, counts."""
    return _blind(json.loads(schema_text))


def number_shape(doc: Any) -> str:
    """The document as JSON with each number a stand-in of its kind for JSON Schema: 0 for an integer, 0.0 for a
    whole float (an "integer" too), 0.5 for any other (NaN and infinities too). Under a number-blind schema
    (`number_blind`) every document of one shape gets one verdict; what is not JSON is a shape of its own."""
    def stand_in(node: Any) -> Any:
        if isinstance(node, (dict, list)):
            return {k: stand_in(v) for k, v in node.items()} if isinstance(node, dict) else list(map(stand_in, node))
        if isinstance(node, bool) or not isinstance(node, (int, float)):
            return node
        return 0 if isinstance(node, int) else 0.0 if node.is_integer() else 0.5
    return json.dumps(stand_in(doc), default=repr)


def shape_errors(schema_name: str, schema_text: str, doc: Any, passed: Any, note: Callable[[str], None]) -> list[Any]:
    """The schema's errors in `doc`. Under a number-blind schema (`number_blind`: facts, computed) a document whose
    shape (`number_shape`) last passed it (`passed`: the digest of the schema and that shape, kept by the intake) is
    not checked again, so a file whose numbers alone changed keeps that verdict; `note(digest)` is told a shape that
    passes."""
    blind = number_blind(schema_text)
    digest = hashlib.sha256(f"{schema_text}\0{number_shape(doc)}".encode()).hexdigest() if blind else None
    if digest is not None and digest == passed:
        return []
    errors = list(validator(schema_name, schema_text).iter_errors(doc))
    if digest is not None and not errors:
        note(digest)
    return errors


def non_finite(doc: Any, path: tuple = ()) -> Iterable[tuple[tuple, float]]:
    """(path, number) for every NaN or infinity in a parsed document."""
    if isinstance(doc, float) and not math.isfinite(doc):
        yield path, doc
    elif isinstance(doc, dict):
        for k, v in doc.items():
            yield from non_finite(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from non_finite(v, (*path, i))


def usable(rel: str, doc: Any) -> Any:
    """`doc` less what fails its schema or is not finite, so no reader meets a record of the wrong shape.

    A bad record (`$.flags[3]`, `$.values["k"]`, `$.models.m`) is dropped, a bad top-level field too;
    a document that is not an object becomes {}. The problems themselves are `file_problems`'s to report.
    """
    name = schema_name_for(rel)
    if name is None or not isinstance(doc, dict):
        return doc if name is None else {}
    text = (schema_dir() / name).read_text(encoding="utf-8")
    compiled = validator(name, text)
    for _ in range(50):  # each pass drops at least one thing
        bad = {tuple(e.absolute_path)[:2] for e in compiled.iter_errors(doc)
               if tuple(e.absolute_path) or e.validator not in ("required", "additionalProperties")}
        bad |= {tuple(path)[:2] for path, _ in non_finite(doc)}
        if not bad:
            return doc
        if () in bad:
            return {}
        for path in sorted(bad, key=lambda p: [str(x) if not isinstance(x, int) else f"{x:012d}" for x in p],
                           reverse=True):
            parent = doc if len(path) == 1 else doc.get(path[0])
            try:
                del parent[path[-1]]
            except (KeyError, IndexError, TypeError):
                pass
    return {}
