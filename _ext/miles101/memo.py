"""One answer kept between builds in a file of the build's doctree dir, valid for one key.

The project's one cache rule (`miles101.inputs`): the key is `inputs.memo_key(inputs.code_digest(), ...)`
over the bytes the answer was computed from, so a change to those bytes, to any core module or to a
schema meets no old answer (validity by content hash, never file time). A memo that cannot be read
or written only costs the time of computing the answer again.
"""
from __future__ import annotations

import gc
import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any


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


def recall(path: Path | None, key: Any, kind: type = object) -> Any:
    """The answer kept in `path` for `key` (an instance of `kind`), or None (no memo, another key, or one that
    does not read). The file holds the key, then the answer, as two pickles: an answer kept for another key
    is never unpickled."""
    if path is None or key is None:
        return None
    try:
        with collector_paused(), path.open("rb") as fh:
            if pickle.load(fh) != key:
                return None
            answer = pickle.load(fh)
    except Exception:  # noqa: BLE001 - no memo yet, or one from another version: compute afresh
        return None
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
