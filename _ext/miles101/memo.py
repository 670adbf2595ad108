"""One answer kept between builds in a file of the build's doctree dir, valid for one key.

The project's one cache rule (`miles101.inputs`): the key is `inputs.memo_key(inputs.code_digest(), ...)`
over the bytes the answer was computed from, so a change to those bytes, to any core module or to a
schema meets no old answer (validity by content hash, never file time). A memo that cannot be read
or written only costs the time of computing the answer again.

A memo is read as data, never as code: only a regular file of at most `MAX_BYTES` is opened (a FIFO or a
device is not waited on), and its pickles may name only the plain records the book keeps (`Records`:
the core's dataclasses and enums, paths, compiled patterns), so a planted memo runs nothing; whatever
it raises, `SystemExit` and `KeyboardInterrupt` included, is a memo that does not read. The build trusts
its doctree folder's memos for their content as Sphinx trusts `environment.pickle` there;
`capture/run.py --check` reads them only when told to (`--cache DIR`).
"""
from __future__ import annotations

import dataclasses
import enum
import gc
import io
import os
import pickle
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

#: The largest memo read (the capture's model, the largest, is under 1 MB): a bigger file is not one of ours.
MAX_BYTES = 64 * 2**20
#: Globals other than the core's records that a memo may name: what pickling the capture's model writes.
PLAIN_GLOBALS = frozenset({("pathlib", "PosixPath"), ("pathlib", "PurePosixPath"), ("pathlib", "WindowsPath"),
                           ("pathlib", "PureWindowsPath"), ("re", "_compile"), ("builtins", "set"),
                           ("builtins", "frozenset"), ("builtins", "bytearray"), ("builtins", "complex")})


class Records(pickle.Unpickler):
    """An unpickler that builds data alone: a global must be one of `PLAIN_GLOBALS` or a dataclass or enum of
    the core (`miles101.*`), whose construction only stores fields; anything else (a function such as
    `os.system` or `sys.exit`, any other class) refuses the memo."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in PLAIN_GLOBALS:
            return super().find_class(module, name)
        if module == "miles101" or module.startswith("miles101."):
            found = super().find_class(module, name)
            if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
                return found
        raise pickle.UnpicklingError(f"a memo may not name {module}.{name}")


@contextmanager
def collector_paused() -> Iterator[None]:
    """The garbage collector off meanwhile: unpickling a memo (or importing jsonschema) makes thousands of
    objects that live on, and in a build's large heap each collection would walk them for nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def memo_bytes(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most `limit` bytes (`MAX_BYTES`), else None. Opened
    without blocking and checked on the open file (`fstat`), so a FIFO or a device put there is never waited on."""
    limit = MAX_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    info = os.fstat(fd)  # before fdopen, which raises IsADirectoryError for a directory
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1)
    return data if len(data) <= limit else None


def recall(path: Path | None, key: Any, kind: type = object) -> Any:
    """The answer kept in `path` for `key` (an instance of `kind`), or None (no memo, another key, or one that
    does not read). The file holds the key, then the answer, as two pickles: an answer kept for another key
    is never unpickled, and neither is anything but plain records (`Records`)."""
    if path is None or key is None:
        return None
    try:
        data = memo_bytes(path)
        if data is None:
            return None
        with collector_paused():
            stream = io.BytesIO(data)  # two pickles: a fresh unpickler each, as each has its own memo table
            if Records(stream).load() != key:
                return None
            answer = Records(stream).load()
    except (Exception, SystemExit, KeyboardInterrupt):  # noqa: BLE001 - no memo yet, one from another version
        return None  # or one that is not ours: compute afresh; a memo never chooses how the program ends
    return answer if isinstance(answer, kind) else None


def remember(path: Path | None, key: Any, answer: Any) -> None:
    """Keep `answer` (never None) for `key` in `path`, replacing the file whole."""
    if path is None or key is None or answer is None:
        return
    data = pickle.dumps(key, pickle.HIGHEST_PROTOCOL) + pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # a -j worker may write the same memo meanwhile
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)  # atomic: a reader meets the old file or the new one, never half of one
    except OSError:  # a memo that cannot be written only costs the next build the work
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
