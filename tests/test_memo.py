"""miles101.memo: an answer is kept for one key, read back whole or not at all, and leaves no stray file."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from miles101 import memo as memo_module
from miles101.data import Capture
from miles101.memo import memo_bytes, recall, remember


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


class _Runs:
    """An answer whose unpickling would call `what(*args)`."""

    def __init__(self, what: object, *args: object) -> None:
        self.what, self.args = what, args

    def __reduce__(self) -> tuple:
        return (self.what, self.args)


@pytest.mark.parametrize("answer", [
    _Runs(sys.exit, 7), _Runs(os.system, "true"), _Runs(print, "ran"), _Runs(eval, "1"),
    _Runs(subprocess.Popen, ["true"]), _Runs(getattr, Path, "home"),
])
def test_a_memo_that_names_code_is_refused_with_its_right_key(tmp_path: Path, answer: object, capsys) -> None:
    """Only plain records unpickle (the core's dataclasses and enums, paths, patterns): a memo naming a function
    or any other class is one that does not read, under its correct key too, and chooses no exit."""
    memo = tmp_path / "m.pickle"
    memo.write_bytes(pickle.dumps("k") + pickle.dumps(answer))
    assert recall(memo, "k") is None
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("raised", [SystemExit(7), KeyboardInterrupt()])
def test_an_exit_raised_while_reading_a_memo_is_a_memo_that_does_not_read(tmp_path: Path, raised: BaseException,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    memo = tmp_path / "m.pickle"
    remember(memo, "k", {"a": 1})

    def load(self: object) -> object:
        raise raised

    monkeypatch.setattr(memo_module.Records, "load", load)
    assert recall(memo, "k", dict) is None


def test_the_capture_model_and_plain_data_still_round_trip(tmp_path: Path, real_capture_copies) -> None:
    capture = real_capture_copies()
    memo = tmp_path / "model.pickle"
    remember(memo, "k", capture)
    back = recall(memo, "k", Capture)
    assert isinstance(back, Capture) and back.runs == capture.runs
    remember(memo, "k", {"s": {1, 2}, "f": frozenset({"a"}), "p": Path("x"), "t": (1.5, b"b", None)})
    assert recall(memo, "k", dict)["s"] == {1, 2}


def test_a_fifo_a_device_or_a_huge_file_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo that is not a regular file is never waited on; one over the cap is not read."""
    fifo = tmp_path / "fifo.pickle"
    os.mkfifo(fifo)
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(recall(fifo, "k")), daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive() and got == [None]
    assert recall(Path("/dev/zero"), "k") is None
    memo = tmp_path / "m.pickle"
    remember(memo, "k", "x" * 1000)
    monkeypatch.setattr(memo_module, "MAX_BYTES", 100)
    assert recall(memo, "k") is None
    assert memo_bytes(memo, 100) is None and memo_bytes(memo, 10**6) is not None
    assert memo_bytes(tmp_path) is None  # a directory in a memo's place is no memo, never an IsADirectoryError


@pytest.mark.parametrize("answer", [[["error", "w", "m", "f"]], "no problems", [None], 0, {"a": 1}])
def test_a_damaged_or_planted_checks_memo_is_no_answer(book_copy: Path, tmp_path: Path, answer: object) -> None:
    """The checks' memo (`memo.Answers`, under the code's digest) answers a check only with a list of problems:
    any other answer kept under a check's key is no answer, and the check runs again."""
    from miles101.inputs import code_digest
    from miles101.intake import CHECKS_CACHE, validate_capture

    cache = tmp_path / "doctrees" / CHECKS_CACHE
    cold = validate_capture(book_copy, cache)
    assert validate_capture(book_copy, cache).cached == cold.checked > 0  # warm: every check answered by the memo
    kept = recall(cache, code_digest(), dict)
    assert kept and all(isinstance(v, list) for k, v in kept.items() if not k.startswith("shape "))
    remember(cache, code_digest(), {k: answer for k in kept})
    again = validate_capture(book_copy, cache)
    assert (again.cached, again.checked, again.problems) == (0, cold.checked, cold.problems)


def test_answers_keep_what_was_asked_for_or_given(tmp_path: Path) -> None:
    """`Answers.save` keeps the answers asked for or given since the memo was read, and writes nothing new else."""
    path = tmp_path / "m.pickle"
    first = memo_module.Answers(path, "k")
    first.put("a", [1])
    first.put("b", [2])
    first.save()
    second = memo_module.Answers(path, "k")
    assert second.get("a") == [1] and second.get("c") is None
    second.save()
    assert recall(path, "k", dict) == {"a": [1]} and memo_module.Answers(path, "other").get("a") is None


def test_a_memo_site_computes_once_for_its_key(tmp_path: Path) -> None:
    """`kept`: the answer kept for the key, else computed and kept; without a file or a key, computed each time."""
    from miles101.memo import kept

    memo, calls = tmp_path / "m.pickle", []
    assert kept(memo, "k", lambda: calls.append(1) or "a", str) == "a"
    assert kept(memo, "k", lambda: calls.append(1) or "b", str) == "a" and calls == [1]
    assert kept(memo, "k2", lambda: "b", str) == "b" and kept(memo, "k", lambda: "c", str) == "c"
    assert kept(None, "k", lambda: "d") == "d" and kept(memo, None, lambda: "e") == "e"


def test_a_parse_memo_that_names_code_runs_nothing_under_its_right_key(book_copy: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The parse memo (`Inputs.parsed`) is read by the memo's unpickler too: a code-running pickle kept for every
    file under its correct key (the code, the file's bytes) runs nothing, and each file is parsed again."""
    from miles101 import inputs as inputs_module
    from miles101.intake import PARSED_CACHE, take_in

    marker = tmp_path / "ran"
    inputs = inputs_module.Inputs(book_copy)
    files = sorted(p for p in (book_copy / "capture").rglob("*") if p.suffix in (".json", ".yaml"))
    planted = {inputs.rel(p): (inputs_module.memo_key(inputs.code, inputs.sha(p, "")),
                               pickle.dumps(_Runs(Path.touch, marker))) for p in files}
    cold = take_in(book_copy).capture
    for read in (memo_module.plain, pickle.loads):  # the second is the plain unpickler this test guards against
        cache = tmp_path / f"doctrees-{read.__name__}"
        remember(cache / PARSED_CACHE, inputs.code, planted)
        monkeypatch.setattr(inputs_module, "plain", read)
        got = take_in(book_copy, cache).capture
        assert marker.exists() == (read is pickle.loads)  # the plant is under the right key: a plain read runs it
        assert got.values == cold.values and got.runs == cold.runs
