"""The recorder killed at every step of a commit: `record --recover` (or the next `record`) makes it whole.

A real process commits a new recording of the test root's tiny-recorded over the old one
(`--force`), and is killed with SIGKILL just before each step of `Attempt.commit`: the valid mark,
the first rename, the second, the removal of the old one, and half way through that removal. Both
gates (`miles101.validate`, the build's and `--check`'s rules) then name the stuck commit with the
one command that fixes it; after that command the recording is the new one (or, killed before the
valid mark, the old one) and both gates pass.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = "tiny-recorded"
NEW_DIGEST = "sha256:new-recording"

#: The child: an Attempt holding a valid new recording, committed with a kill before step KILL_AT.
CHILD = textwrap.dedent('''
    import json, os, shutil, signal, sys
    from pathlib import Path
    from capture.lab import store

    gpu, kill_at, sig = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    old = gpu / "tiny-recorded"
    run_json = json.loads((old / "run.json").read_text())
    run_json["image_digest"] = "sha256:new-recording"
    attempt = store.Attempt(gpu, "tiny-recorded", "20261204T120000Z", run_json)
    for name in ("host.json", "steps.jsonl", "values.json", "log.txt"):
        shutil.copy(old / name, attempt.dir / name)
    step = [0]

    def point():
        if step[0] == kill_at:
            os.kill(os.getpid(), sig)
        step[0] += 1

    save_run, rename, rmtree = store.Attempt.save_run, Path.rename, shutil.rmtree

    def save_run_(self):
        point()
        save_run(self)

    def rename_(self, target):
        point()
        return rename(self, target)

    def rmtree_(path, *a, **k):
        point()
        first = sorted(Path(path).iterdir())[0]
        first.unlink()
        point()  # half way through the removal
        rmtree(path, *a, **k)

    store.Attempt.save_run, Path.rename, store.shutil.rmtree = save_run_, rename_, rmtree_
    attempt.commit()
    print("committed")
''')
STEPS = ["the valid mark", "the first rename", "the second rename", "the removal of the old one", "mid-removal"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    dest = tmp_path / "book"
    shutil.copytree(ROOT / "tests" / "roots" / "test-book", dest)
    for run in ("tiny-pending", "tiny-recorded"):  # the run files `--check` accepts (as tests/test_fuzz_capture.py)
        path = dest / "capture" / "runs" / f"{run}.yaml"
        text = path.read_text(encoding="utf-8")
        import re

        path.write_text(re.sub(r"^args: .*$", 'args: [--colocate, --rollout-batch-size, "8", --seed, "1", --rollout-seed, "1"]', text, flags=re.M),
                        encoding="utf-8")
    return dest


def commit_killed(root: Path, kill_at: int, sig: int = signal.SIGKILL) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.run([sys.executable, "-c", CHILD, str(root / "capture" / "gpu"), str(kill_at), str(int(sig))],
                          capture_output=True, text=True, env=env, timeout=60)


def gate(root: Path) -> list[str]:
    from miles101.intake import validate_capture

    return [str(p) for p in validate_capture(root).problems]


def digest(root: Path) -> str:
    return json.loads((root / "capture" / "gpu" / RUN / "run.json").read_text())["image_digest"]


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "capture" / "gpu").iterdir() if p.name.startswith("."))


def test_the_root_passes_and_a_whole_commit_replaces_the_recording(root: Path) -> None:
    assert gate(root) == []
    done = commit_killed(root, kill_at=99)
    assert done.returncode == 0 and "committed" in done.stdout, done.stderr
    assert digest(root) == NEW_DIGEST and leftovers(root) == [] and gate(root) == []


@pytest.mark.parametrize("kill_at", range(len(STEPS)), ids=STEPS)
def test_a_kill_at_each_commit_step_is_recovered_by_one_command(root: Path, kill_at: int) -> None:
    from capture.lab.record import main as record_main

    done = commit_killed(root, kill_at)
    assert done.returncode == -signal.SIGKILL, (done.stdout, done.stderr)
    problems = gate(root)
    if kill_at == 0:  # killed before the valid mark: the old recording stands; the attempt is no data
        assert problems == [] and digest(root) != NEW_DIGEST
    else:
        assert problems, leftovers(root)
        assert all("record --recover" in p for p in problems), problems
    assert record_main(["--recover", "--gpu-dir", str(root / "capture" / "gpu")]) == 0
    assert gate(root) == []
    assert digest(root) == (NEW_DIGEST if kill_at else "sha256:test")
    assert [n for n in leftovers(root) if not n.startswith(".tmp-")] == []  # a failed .tmp-* is the next record's to sweep
    assert record_main(["--recover", "--gpu-dir", str(root / "capture" / "gpu")]) == 0  # idempotent


@pytest.mark.parametrize("kill_at", [1, 2, 3])
def test_a_sigterm_mid_commit_waits_until_the_commit_is_whole(root: Path, kill_at: int) -> None:
    done = commit_killed(root, kill_at, signal.SIGTERM)
    assert done.returncode == -signal.SIGTERM
    assert digest(root) == NEW_DIGEST and leftovers(root) == [] and gate(root) == []


def test_a_recording_in_progress_does_not_fail_the_gates(root: Path) -> None:
    """A .tmp-* whose run.json still says failed is an attempt being written: no gate reads it or suggests moving it."""
    tmp = root / "capture" / "gpu" / f".tmp-{RUN}-20261204T120000Z"
    tmp.mkdir()
    (tmp / "run.json").write_text(json.dumps({"status": "failed", "reason": "in progress"}))
    assert gate(root) == []


@pytest.mark.parametrize("bad", ["../../etc", "/tmp/x", "a/b", "UPPER", ".hidden"])
def test_run_ids_are_names(tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from capture.lab.record import main as record_main

    for extra in ([], ["--rederive"], ["--dry-run"]):
        assert record_main([bad, *extra, "--gpu-dir", str(tmp_path / "gpu"), "--runs-dir", str(tmp_path)]) == 2
        assert "is not a run id" in capsys.readouterr().err
    assert not (tmp_path / "gpu").exists()
    from capture.lab.preflight_lab import main as preflight_main

    assert preflight_main([bad, "--skip-smoke"]) == 2
    assert "is not a run id" in capsys.readouterr().err
