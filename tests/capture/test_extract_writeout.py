"""Atomic writes: no half-written file on error, and unchanged content is not rewritten."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from capture.extract import writeout


def test_unchanged_content_is_not_rewritten(tmp_path: Path):
    path = tmp_path / "x.json"
    assert writeout.write_json(path, {"a": 1}) is True
    os.utime(path, (1, 1))
    assert writeout.write_json(path, {"a": 1}) is False
    assert path.stat().st_mtime == 1
    assert writeout.write_json(path, {"a": 2}) is True
    assert path.read_text() == '{\n  "a": 2\n}\n'


def test_a_failed_serialisation_leaves_the_old_file(tmp_path: Path):
    path = tmp_path / "x.json"
    writeout.write_json(path, {"a": 1})
    with pytest.raises(TypeError):
        writeout.write_json(path, {"a": object()})
    assert path.read_text() == '{\n  "a": 1\n}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


def test_a_failed_write_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "x.json"
    writeout.write_json(path, {"a": 1})

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(writeout.os, "replace", boom)
    with pytest.raises(OSError):
        writeout.write_json(path, {"a": 2})
    assert path.read_text() == '{\n  "a": 1\n}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]
