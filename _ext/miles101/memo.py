"""The one cache format and its one writer: an answer kept in a doctree-dir file for one key (`memo_key`).

The file holds the key, then the answer, as two pickles: an answer kept for another key is never read, and
a pickle may name only plain records (`Records`), so a planted memo runs nothing. Only a regular file of at
most `MAX_BYTES` is opened (a FIFO is not waited on); whatever reading raises, `SystemExit` included, is a
memo that does not read. The build trusts its doctree folder as Sphinx trusts `environment.pickle` there;
`capture/run.py --check` reads a memo only when told to (`--cache DIR`).
"""
from __future__ import annotations

import dataclasses
import enum
import io
import os
import pickle
import stat
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

MAX_BYTES = 64 * 2**20  # the capture's model, the largest memo, is under 1 MB
#: Globals besides the core's dataclasses and enums that a memo may name: what pickling the model writes, and the
#: dates YAML's safe loader makes (a parsed run file).
PLAIN_GLOBALS = frozenset({("pathlib", "PosixPath"), ("pathlib", "WindowsPath"), ("re", "_compile"),
                           *(("datetime", t) for t in ("date", "datetime", "time", "timedelta", "timezone"))})


class Records(pickle.Unpickler):
    """Builds data alone: a global is one of `PLAIN_GLOBALS` or a dataclass or enum of `miles101`."""

    def find_class(self, module: str, name: str) -> Any:
        plain = (module, name) in PLAIN_GLOBALS
        found = super().find_class(module, name) if plain or module.partition(".")[0] == "miles101" else None
        if plain or isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
            return found
        raise pickle.UnpicklingError(f"a memo may not name {module}.{name}")


def plain(data: bytes | io.BytesIO) -> Any:
    """The records a pickle holds (or the next pickle of a stream), read by `Records`; None where it names anything
    else or does not read (none left, cut short, another version's): a memo never chooses how a program ends."""
    try:
        return Records(data if isinstance(data, io.BytesIO) else io.BytesIO(data)).load()
    except (Exception, SystemExit, KeyboardInterrupt):  # noqa: BLE001
        return None


def memo_bytes(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file of at most `limit` (`MAX_BYTES`) bytes, else None; never blocks."""
    limit = MAX_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:  # checked on the open file: a FIFO, a device or a directory is never read
        info = os.fstat(fd)
        data = os.read(fd, info.st_size + 1) if stat.S_ISREG(info.st_mode) and info.st_size <= limit else None
    except OSError:
        data = None
    finally:
        os.close(fd)
    return data if data is not None and len(data) <= limit else None


def recall(path: Path | None, key: Any, kind: type = object) -> Any:
    """The answer kept in `path` for `key` (an instance of `kind`), or None: the key is read first, and the answer
    only when the key is the one asked for."""
    stream = io.BytesIO(memo_bytes(path) or b"") if path is not None and key is not None else None
    answer = plain(stream) if stream is not None and plain(stream) == key else None
    return answer if isinstance(answer, kind) else None


def remember(path: Path | None, key: Any, answer: Any) -> None:
    """Keep `answer` (not None) for `key` in `path`, replacing the file whole (a `-j` worker may write too)."""
    if path is None or key is None or answer is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(pickle.dumps(key, pickle.HIGHEST_PROTOCOL) + pickle.dumps(answer, pickle.HIGHEST_PROTOCOL))
        tmp.replace(path)
    except OSError:  # it only costs the next build the work
        with suppress(OSError):
            tmp.unlink(missing_ok=True)


def kept(path: Path | None, key: Any, compute: Callable[[], Any], kind: type = object) -> Any:
    """The answer kept for `key` in `path`, else `compute()`'s, then kept: a memo site in one call."""
    got = recall(path, key, kind)
    if got is None:
        remember(path, key, got := compute())
    return got


class Answers:
    """Many answers in one memo (`recall`/`remember` under `key`), each under a key of its own: `save` keeps those
    asked for (`get`) or given (`put`) since the memo was read, and drops the rest."""

    def __init__(self, path: Path | None, key: Any) -> None:
        self.path, self.key, self.new, self.old = path, key, {}, recall(path, key, dict) or {}

    def get(self, key: str) -> Any:
        if key in self.old:
            self.new[key] = self.old[key]
        return self.old.get(key)

    def put(self, key: str, answer: Any) -> None:
        self.new[key] = answer

    def save(self) -> None:
        if self.new != self.old:
            remember(self.path, self.key, self.new)
