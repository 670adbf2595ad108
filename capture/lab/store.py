"""Where recordings live: a temp dir inside capture/gpu/, renamed into place only when valid.

capture/gpu/<id>/                   a valid recording (run.json "status": "valid")
capture/gpu/_attempts/<id>-<stamp>/ a failed, killed or interrupted attempt ("status": "failed")
capture/gpu/.tmp-<id>-<stamp>/      an attempt in progress; its run.json says failed until the commit
capture/gpu/.old-<id>-<stamp>/      the recording a `--force` commit replaces, until the new one is in place

A commit is: run.json says valid (the last write), <id> → .old-<id>-<stamp>, .tmp-<id>-<stamp> → <id>,
remove .old-<id>-<stamp>. A recorder killed at any of these steps leaves a state `recover` finishes:
the new recording when its run.json says valid, else the old one put back. `record` recovers on
start; `python3 capture/run.py record --recover` does it alone (the build names that command).
"""
from __future__ import annotations

import datetime as dt
import errno
import json
import re
import shlex
import shutil
import signal
import threading
from pathlib import Path
from typing import Any

RESERVE = 16384  # bytes kept for run.json, so the failure record fits even on a full disk
UNFINISHED = "the recorder did not finish (killed, or the machine stopped)"


def utc_stamp() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def utc_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_valid(path: Path) -> bool:
    """A directory holding a run.json that says valid."""
    try:
        return json.loads((path / "run.json").read_text(encoding="utf-8")).get("status") == "valid"
    except (OSError, ValueError):
        return False


class Attempt:
    """One recording attempt of one run."""

    def __init__(self, gpu_dir: Path, run_id: str, stamp: str, run_json: dict[str, Any]) -> None:
        self.gpu_dir, self.run_id, self.stamp = gpu_dir, run_id, stamp
        self.dir = gpu_dir / f".tmp-{run_id}-{stamp}"
        self.dir.mkdir(parents=True)
        self.run_json = dict(run_json, status="failed", reason=UNFINISHED)
        with open(self.dir / "run.json", "wb") as fh:
            fh.write(b" " * RESERVE)
        self.save_run()

    def save_run(self) -> None:
        """Rewrite run.json in its reserved bytes (no new disk blocks needed)."""
        data = (json.dumps(self.run_json, indent=2) + "\n").encode()
        with open(self.dir / "run.json", "r+b") as fh:
            fh.write(data)
            if len(data) < RESERVE:
                fh.write(b" " * (RESERVE - len(data)))
            fh.truncate()

    def write_json(self, name: str, data: Any) -> None:
        (self.dir / name).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    def fail(self, reason: str) -> Path:
        """Keep the attempt under _attempts/ as failed; return where."""
        self.run_json.update(status="failed", reason=reason)
        self.save_run()
        dest = self.gpu_dir / "_attempts" / f"{self.run_id}-{self.stamp}"
        dest.parent.mkdir(exist_ok=True)
        self.dir.rename(_free(dest))
        return dest

    def commit(self) -> Path:
        """Mark valid and move into capture/gpu/<id>/, replacing an old recording only now.

        SIGINT, SIGTERM and SIGHUP wait until the commit is done (they arrive right after); a SIGKILL
        or a power cut mid-way leaves a state `recover` finishes.
        """
        held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        blocked = threading.current_thread() is threading.main_thread()
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held) if blocked else None
        try:
            return self._commit()
        finally:
            if before is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)

    def _commit(self) -> Path:
        self.run_json["status"] = "valid"
        self.run_json.pop("reason", None)
        self.save_run()
        dest = self.gpu_dir / self.run_id
        old = None
        if dest.exists():
            old = self.gpu_dir / f".old-{self.run_id}-{self.stamp}"
            dest.rename(old)
        self.dir.rename(dest)
        if old is not None:
            shutil.rmtree(old)
        return dest


class StrayEntry(OSError):
    """An entry named like one the recorder leaves (`.old-<id>-<stamp>`) that it cannot have left: not a directory."""

    def __init__(self, path: Path) -> None:
        kind = "a symlink" if path.is_symlink() else "a file" if path.is_file() else "not a directory"
        self.message = (f"{path} is {kind}, not a recording the recorder set aside; remove it "
                        f"(rm {shlex.quote(str(path))}) and run it again")
        super().__init__(errno.ENOTDIR, self.message)

    def __str__(self) -> str:
        return self.message


def recovery_problem(exc: OSError, gpu_dir: Path) -> str:
    """What went wrong while recovering, with the fix that fits: "fix the permissions" only for a permission
    or read-only error."""
    if isinstance(exc, StrayEntry):
        return str(exc)
    where = exc.filename or gpu_dir
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (f"{where}: {exc.strerror or exc}; fix the permissions (ls -ld {shlex.quote(str(where))}), or pass "
                "--gpu-dir DIR on a writable disk, and run it again")
    return (f"{where}: {exc.strerror or exc}; look at what stands there (ls -la {shlex.quote(str(gpu_dir))}), "
            "move aside what the recorder did not make, and run it again")


def recover(gpu_dir: Path) -> list[str]:
    """Finish or undo every commit a killed recorder left half done; one line per thing done.

    A `.tmp-<id>-<stamp>` whose run.json says valid was committed (it is set valid only after every
    check): it becomes <id>, and the `.old-*` it replaced is removed. An `.old-*` with no valid
    recording to replace it is put back as <id>. Run while no recorder runs.
    """
    done = []
    stamps = re.compile(r"\.(old|tmp)-(?P<id>[a-z0-9][a-z0-9-]*?)-(?P<stamp>\d{8}T\d{6}Z)")
    for old in sorted(gpu_dir.glob(".old-*")):
        m = stamps.fullmatch(old.name)
        if not m:
            continue
        if old.is_symlink() or not old.is_dir():  # removing or putting back a file would be wrong either way
            raise StrayEntry(old)
        dest, tmp = gpu_dir / m["id"], gpu_dir / f".tmp-{m['id']}-{m['stamp']}"
        if not dest.exists() and is_valid(tmp):
            tmp.rename(dest)
            done.append(f"finished the commit of {m['id']}: {tmp.name} is now {dest.name}")
        if dest.exists():
            shutil.rmtree(old)
            done.append(f"removed {old.name}, the recording {m['id']} replaced")
        else:
            old.rename(dest)
            done.append(f"put back {old.name} as {dest.name} (no valid new recording)")
    for tmp in sorted(gpu_dir.glob(".tmp-*")):
        m = stamps.fullmatch(tmp.name)
        if m and is_valid(tmp):
            dest = gpu_dir / m["id"]
            if dest.exists():  # killed after marking valid, before the first rename: finish it
                old = gpu_dir / f".old-{m['id']}-{m['stamp']}"
                dest.rename(old)
                tmp.rename(dest)
                shutil.rmtree(old)
            else:
                tmp.rename(dest)
            done.append(f"finished the commit of {m['id']}: {tmp.name} is now {dest.name}")
    return done


def sweep_unfinished(gpu_dir: Path, run_id: str) -> list[Path]:
    """Move attempts a killed recorder left behind into _attempts/ (their run.json already says failed)."""
    moved = []
    for tmp in sorted(gpu_dir.glob(f".tmp-{run_id}-*")):
        if not re.fullmatch(rf"\.tmp-{re.escape(run_id)}-\d{{8}}T\d{{6}}Z", tmp.name):
            continue  # another run's attempt (`a` and `a-b`)
        dest = _free(gpu_dir / "_attempts" / tmp.name[len(".tmp-"):])
        dest.parent.mkdir(exist_ok=True)
        tmp.rename(dest)
        moved.append(dest)
    return moved


def _free(path: Path) -> Path:
    """`path`, or path-2, path-3, ... when taken."""
    n, candidate = 1, path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate
