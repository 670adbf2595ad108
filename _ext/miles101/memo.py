"""One answer kept between builds in a file of the build's doctree dir, valid for one key.

The project's one cache rule (`miles101.inputs`): the key is `inputs.memo_key(inputs.code_digest(), ...)`
over the bytes the answer was computed from, so a change to those bytes, to any core module or to a
schema meets no old answer (validity by content hash, never file time). A memo that cannot be read
or written only costs the time of computing the answer again.
"""
from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any


def recall(path: Path | None, key: str | None) -> Any:
    """The answer kept in `path` for `key`, or None (no memo, another key, or one that does not read)."""
    if path is None or key is None:
        return None
    try:
        got = pickle.loads(path.read_bytes())
    except Exception:  # noqa: BLE001 - no memo yet, or one from another version: compute afresh
        return None
    return got[1] if isinstance(got, tuple) and len(got) == 2 and got[0] == key else None


def remember(path: Path | None, key: str | None, answer: Any) -> None:
    """Keep `answer` (never None) for `key` in `path`, replacing the file whole."""
    if path is None or key is None or answer is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps((key, answer), pickle.HIGHEST_PROTOCOL))
        tmp.replace(path)
    except OSError:
        pass  # a memo that cannot be written only costs the next build the work
