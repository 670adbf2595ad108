"""Write capture files atomically, and only when their content changed."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def dumps(data: object) -> str:
    """The canonical text of a capture file: sorted-free, two-space JSON with a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` through a temp file and rename; skip when equal. True if written."""
    path = Path(path)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return True


def write_json(path: Path, data: object) -> bool:
    """Serialise first (so a bad value never leaves a half file), then write if changed."""
    return write_if_changed(path, dumps(data))
