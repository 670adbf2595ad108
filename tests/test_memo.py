"""miles101.memo: an answer is kept for one key, read back whole or not at all, and leaves no stray file."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from miles101.memo import recall, remember


def test_an_answer_is_recalled_for_its_key_alone(tmp_path: Path) -> None:
    memo = tmp_path / "sub" / "m.pickle"
    remember(memo, "k1", {"a": 1})
    assert recall(memo, "k1", dict) == {"a": 1}
    assert recall(memo, "k2", dict) is None  # another key
    assert recall(memo, "k1", list) is None  # another kind
    memo.write_bytes(pickle.dumps("k1"))  # the key alone: a file cut short
    assert recall(memo, "k1") is None
    assert [p.name for p in memo.parent.iterdir()] == ["m.pickle"]


def test_an_answer_kept_for_another_key_is_never_unpickled(tmp_path: Path) -> None:
    memo = tmp_path / "m.pickle"
    memo.write_bytes(pickle.dumps("old") + b"not a pickle at all")
    assert recall(memo, "new") is None and recall(memo, "old") is None


def test_a_memo_that_cannot_be_written_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memo = tmp_path / "m.pickle"

    def refuse(self: Path, target: Path) -> Path:
        raise OSError("read-only")

    monkeypatch.setattr(Path, "replace", refuse)
    remember(memo, "k", "answer")  # no error: it only costs the next build the work
    assert list(tmp_path.iterdir()) == []
