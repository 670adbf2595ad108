"""The capture's inputs of one intake: each file read once through the strict reader, parsed once.

`Inputs` is what `miles101.intake` hands to the validation (`miles101.validate`) and to the model's
builder, so the two passes share one read of every file and one parse of it, and never talk through
a process-wide global. Every memo kept between builds is keyed by `code_digest()` beside the bytes
it answers for: a change to any core module or schema meets no old answer (validity by content
hash, never file time).
"""
from __future__ import annotations

import hashlib
import io
import pickle
from functools import cache
from pathlib import Path
from typing import Any

from . import schemas
from .memo import Records
from .problems import ProblemError
from .strict import parse_json_bytes, parse_yaml_bytes, read_bytes


def shaping_code() -> list[Path]:
    """The code and schemas that shape an intake: the core package (its Sphinx extension aside) and the
    JSON Schemas the validation checks files against and the loader prunes refused records by."""
    core = Path(__file__).resolve().parent
    files = [p for p in sorted(core.rglob("*.py")) if "sphinx_ext" not in p.relative_to(core).parts]
    return [*files, *sorted(schemas.schema_dir().glob("*.json"))]


@cache
def _modules_digest() -> bytes:
    """sha256 over the source of every core module: once a process (the code it runs is the code it loaded)."""
    h = hashlib.sha256()
    core = Path(__file__).resolve().parent
    for path in (p for p in shaping_code() if p.suffix == ".py"):
        h.update(b"\0" + path.relative_to(core).as_posix().encode() + b"\0" + path.read_bytes())
    return h.digest()


def code_digest() -> bytes:
    """sha256 over the source of every core module and schema (`shaping_code`): the salt of every memo.

    The schemas are hashed at each call, from where `schemas.schema_dir()` says they are now.
    """
    h = hashlib.sha256(_modules_digest())
    for path in sorted(schemas.schema_dir().glob("*.json")):  # shaping_code's schemas, without its walk of the modules
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.digest()


def memo_key(code: bytes, *parts: bytes | str | None) -> str:
    """The key of one memo: `code` (`code_digest()`), then each part length-prefixed (None: a missing one),
    so no two lists of parts share a key."""
    h = hashlib.sha256(code)
    for part in parts:
        data = b"\x00<none>" if part is None else part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


class Inputs:
    """The capture files of one intake under `root`: bytes read once, documents parsed once.

    `parsed` hands out fresh objects (the loader prunes what its schema refuses in place); `clean`
    holds the files the validation found nothing wrong in, at the bytes read here. `memo` is the
    parse memo carried between builds: key (code and bytes) → the parsed document, pickled.
    """

    def __init__(self, root: Path, memo: dict[str, tuple[str, bytes]] | None = None) -> None:
        self.root = root
        self.code = code_digest()  # the code and schemas this intake runs under, hashed once
        self.memo: dict[str, tuple[str, bytes]] = memo if memo is not None else {}
        self.clean: set[str] = set()
        self._raw: dict[str, bytes | ProblemError] = {}
        self._sums: dict[str, str] = {}
        self._docs: dict[str, bytes | ProblemError] = {}

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def read(self, path: Path, fix: str) -> bytes:
        """The file's bytes through the strict reader (once); ProblemError as the reader raised it."""
        rel = self.rel(path)
        got = self._raw.get(rel)
        if got is None:
            try:
                got = read_bytes(path, rel, self.root, fix)
            except ProblemError as exc:
                got = exc
            self._raw[rel] = got
        if isinstance(got, ProblemError):
            raise got
        return got

    def bytes_or_none(self, path: Path, fix: str) -> bytes | None:
        """`read`, or None when the file is missing or unreadable (for a cache key)."""
        if not path.exists() and not path.is_symlink():
            return None
        try:
            return self.read(path, fix)
        except ProblemError:
            return None

    def sha(self, path: Path, fix: str) -> str | None:
        """sha256 of the file's bytes (`bytes_or_none`; None when missing or unreadable), hashed once an intake:
        what a memo key holds for a file, so a key over several large files does not hash them again."""
        rel = self.rel(path)
        known = self._sums.get(rel)
        if known is None:
            raw = self.bytes_or_none(path, fix)
            if raw is None:
                return None
            known = self._sums[rel] = hashlib.sha256(raw).hexdigest()
        return known

    def parsed(self, path: Path, fix: str) -> Any:
        """The document of a JSON or YAML file, a fresh copy each call; ProblemError when it does not read."""
        rel = self.rel(path)
        got = self._docs.get(rel)
        if got is None:
            try:
                raw = self.read(path, fix)
                digest = memo_key(self.code, self.sha(path, fix))
                known = self.memo.get(rel)
                if known is not None and known[0] == digest and _plain(known[1]):
                    got = known[1]
                else:
                    doc = parse_yaml_bytes(raw, rel) if rel.endswith(".yaml") else parse_json_bytes(raw, rel, fix)
                    got = pickle.dumps(doc, pickle.HIGHEST_PROTOCOL)
                    self.memo[rel] = (digest, got)
            except ProblemError as exc:
                got = exc
            self._docs[rel] = got
        if isinstance(got, ProblemError):
            raise got
        return pickle.loads(got)


def _plain(data: Any) -> bool:
    """Whether a parse memo's document (pickled bytes) reads as plain data (`memo.Records`): the outer memo is read as
    plain data, but its documents are bytes unpickled later by `pickle.loads`, so a planted one that names a callable
    (os.system) would run there. Such an entry is parsed afresh instead."""
    try:
        Records(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 - not bytes, not a pickle, or one that names code: not ours
        return False
    return True
