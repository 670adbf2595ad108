#!/usr/bin/env python3
"""Stop a Miles run whose rollout engine died or that stopped making progress.

    python3 watchdog.py --log FILE [--from-start] [--engine URL] [--stall-after SECONDS] [--poll SECONDS]
                        [--pid PID | --on-dead CMD]

It follows an existing log from its end (start it before the job), and reads the log again from its
first byte when a new run truncates or replaces it; --from-start reads an existing log from byte 0.

Standalone (Python 3.9+, standard library only). The Miles 101 recorder uses the same class.
What it watches, all verified at radixark/miles 31f1ca961:
- the engine's /health_generate, which really generates (what Miles itself polls,
  miles/backends/sglang_utils/sglang_engine.py:99, 294-314); it probes only while a rollout runs
  (after the "Rollout generation" bar appears), because a colocated engine sleeps while the trainer runs;
- Miles giving up on an HTTP call: "Max retries (60) reached, failing... (url=...)"
  (miles/utils/http_utils.py:230). Without fault tolerance a dead engine does not crash the
  run: every group fails and the rollout loop keeps submitting new ones
  (miles/rollout/inference_rollout/inference_rollout_train.py:121-126);
- "[rollout] Task raised exception: ..." (inference_rollout_train.py:125), counted per step;
- steps that stop finishing: a step is finished when the trainer prints its `perf N: {...}`
  line (miles/utils/train_metric_utils.py:56).
Exit status: 0 the log shows the run ended normally (Ray's "Job '...' succeeded", or --steps N done), 3 the watchdog stopped the run,
1 the run ended otherwise, 2 bad arguments.
"""
from __future__ import annotations

import argparse
import codecs
import math
import os
import re
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable

RETRY_RE = re.compile(r"Max retries \((?P<n>\d+)\) reached, failing\.\.\. \(url=(?P<url>[^)]*)\)")
TASK_RE = re.compile(r"\[rollout\] Task raised exception: (?P<err>.*)")
PERF_RE = re.compile(r"(?:^|\s)perf (?P<id>\d+): \{")
# The rollout manager's perf line holds perf/rollout_time (miles/ray/rollout/metrics.py:89, 141).
ROLLOUT_PERF_KEY = "'perf/rollout_time'"
TRAINER_ROLLOUT_RE = re.compile(r"(?:^|\s)rollout (?P<id>\d+): \{")
# The rollout's progress bar (inference_rollout_train.py:109): the engine is serving now.
ROLLOUT_BAR = "Rollout generation"
ENGINE_RE = re.compile(r"Launch HttpServerEngineAdapter at: (?P<addr>[\w.\-\[\]:]+:\d+)")
# Ray's `ray job submit` prints how the job ended (ray dashboard/modules/job/cli.py, _log_job_status).
JOB_OK_RE = re.compile(r"Job '[^']+' succeeded")
JOB_BAD_RE = re.compile(r"Job '[^']+' (?:failed|was stopped)")

#: How many of the last bytes read the follower compares to notice a log rewritten in place.
TAIL_BYTES = 256
#: The most a read takes of a log at once (a --from-start on a 1 GB log is read in pieces of this size), and the
#: longest line kept (Miles's step lines are a few KB; the rest of a longer line is dropped, never buffered).
CHUNK_BYTES = 8 << 20
MAX_LINE = 1 << 20

DEFAULTS = {"stall_after": 1800.0, "poll": 30.0, "engine_failures": 3, "task_errors": 3, "probe_timeout": 10.0}


class Watchdog:
    """Decides, from log lines and engine probes, whether a run is dead. Times are seconds."""

    def __init__(self, stall_after: float = DEFAULTS["stall_after"], engine_failures: int = DEFAULTS["engine_failures"],
                 task_errors: int = DEFAULTS["task_errors"], now: float | None = None) -> None:
        self.stall_after = stall_after
        self.engine_failures = engine_failures
        self.task_errors = task_errors
        self.last_progress = time.monotonic() if now is None else now
        self.phase = "start"  # start → rollout → train → update → rollout ...
        self.steps_done = 0
        self.last_step: int | None = None
        self.engine_url: str | None = None
        self.engine_seen_ok = False
        self.fail_streak = 0
        self.last_probe = "not probed"
        self.step_task_errors = 0
        self.first_task_error = ""
        self.ended: str | None = None  # "ok" or "failed" once the log says the job ended
        self.reason: str | None = None
        self.held_at: float | None = None

    def feed(self, line: str) -> None:
        """Read one log line."""
        if self.reason:
            return
        m = PERF_RE.search(line)
        if m:
            if ROLLOUT_PERF_KEY in line:  # rollout finished; the trainer takes over
                self.phase, self.step_task_errors = "train", 0
            else:  # trainer finished the step; weights go back to the engine (train.py:129-134)
                self.phase = "update"
                self.steps_done += 1
                self.last_step = int(m["id"])
                self.last_progress = self._now()
            return
        if TRAINER_ROLLOUT_RE.search(line):
            self.phase = "train"
        elif ROLLOUT_BAR in line:
            self.phase = "rollout"
        elif (m := RETRY_RE.search(line)):
            self.reason = (f"Miles logged 'Max retries ({m['n']}) reached' for {m['url']} (http_utils.py:230): "
                           f"it gave up after {m['n']} retries, the rollout engine is unreachable")
        elif (m := TASK_RE.search(line)):
            self.step_task_errors += 1
            self.first_task_error = self.first_task_error or m["err"][:160]
            if self.step_task_errors >= self.task_errors:
                self.reason = (f"{self.step_task_errors} rollout tasks raised exceptions in one step "
                               f"(inference_rollout_train.py:125), first: {self.first_task_error}")
        elif (m := ENGINE_RE.search(line)):
            self.engine_url = self.engine_url or "http://" + m["addr"]
        elif JOB_OK_RE.search(line):
            self.ended = "ok"
        elif JOB_BAD_RE.search(line):
            self.ended = "failed"

    def wants_probe(self) -> bool:
        """Probe only while the engine serves a rollout: a colocated engine is offloaded while the
        trainer runs, and Miles pauses its own health monitor then (miles/ray/rollout/rollout_manager.py:286-287)."""
        return bool(self.engine_url) and self.phase == "rollout" and self.held_at is None and not self.reason

    def probed(self, ok: bool, detail: str) -> None:
        """Record one /health_generate probe."""
        self.last_probe = detail
        if ok:
            self.engine_seen_ok, self.fail_streak = True, 0
        elif self.engine_seen_ok and self.phase == "rollout" and self.held_at is None:
            self.fail_streak += 1
            if self.fail_streak >= self.engine_failures and not self.reason:
                self.reason = (f"rollout engine {self.engine_url} failed {self.fail_streak} /health_generate "
                               f"probes in a row during rollout ({detail})")

    def hold(self, now: float | None = None) -> None:
        """Stop the stall clock (the run is paused on purpose, e.g. by the heat guard)."""
        if self.held_at is None:
            self.held_at = self._now() if now is None else now

    def release(self, now: float | None = None) -> None:
        """Restart the stall clock, not counting the time held."""
        if self.held_at is not None:
            self.last_progress += (self._now() if now is None else now) - self.held_at
            self.held_at = None

    def check(self, now: float | None = None) -> str | None:
        """The reason to stop the run now, or None."""
        now = self._now() if now is None else now
        if not self.reason and self.held_at is None and not self.ended:
            idle = now - self.last_progress
            if idle > self.stall_after:
                last = "none yet" if self.last_step is None else f"step {self.last_step}"
                self.reason = f"no step finished for {idle:.0f} s (limit {self.stall_after:g} s; last finished: {last})"
        return self.reason

    def status(self, now: float | None = None) -> str:
        """One line for the log of checks."""
        now = self._now() if now is None else now
        ago = (self.held_at if self.held_at is not None else now) - self.last_progress
        engine = f"engine {self.last_probe}" if self.engine_url else "engine unknown"
        held = " (held)" if self.held_at is not None else ""
        return f"watchdog: ok {self.steps_done} steps, phase {self.phase}, last step {ago:.0f}s ago, {engine}{held}"

    @staticmethod
    def _now() -> float:
        return time.monotonic()


def url_problem(url: str) -> str | None:
    """Why an engine address cannot be probed (no http scheme, no host, a bad port, a space), or None."""
    base = url if "://" in url else "http://" + url
    try:
        parts = urllib.parse.urlsplit(base)
        parts.port  # noqa: B018 -- raises ValueError on a port that is not a number in 0-65535
    except ValueError as e:
        return str(e)
    if parts.scheme not in ("http", "https"):
        return f"the scheme is {parts.scheme!r}, not http"
    if not parts.hostname or any(c.isspace() or ord(c) < 32 for c in base):
        return "no host, or a space or control character in it"
    return None


def probe(url: str, timeout: float) -> tuple[bool, str]:
    """GET <url>/health_generate directly (no proxy); (ok, short detail)."""
    base = url if "://" in url else "http://" + url
    problem = url_problem(base)
    if problem:  # urllib raises ValueError/InvalidURL on these: a crash would leave the run unguarded
        return False, f"not a URL: {problem}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(base.rstrip("/") + "/health_generate", timeout=timeout) as resp:
            return resp.status == 200, f"HTTP {resp.status}"
    except urllib.error.HTTPError as e:
        return False, f"HTTP {e.code}"
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        return False, f"no answer: {reason}"


class LogUnreadable(Exception):
    """A --log path the follower can never read (a directory, no permission, a directory that does not exist)."""


class LogFollower:
    """Reads whole new lines from a growing file (\\r counts as a line end, for progress bars).

    An existing file is followed from its end unless `from_start`; a file that does not exist yet is
    read from its first byte once it appears. When the file shrinks, is replaced (another inode, as
    after `mv` and a new `tee`) or its last bytes read change (`tee` without -a truncated it and wrote
    past the old end between two reads), it is read again from byte 0 and `restarted` is set.
    When the path is deleted after a read, the file last read is followed on (`unlinked`), as `tail -f`
    does: a `tee` that still runs writes on into it. `started` says in words which of these the
    follower did first. A path it can never read raises LogUnreadable, which says why and the fix.
    """

    def __init__(self, path: str, from_start: bool = False) -> None:
        self.path, self.pos = path, 0
        self.pieces: list[str] = []  # the line being written, in the chunks it came in
        self.ident: tuple[int, int] | None = None  # (device, inode) of the file being read
        self.tail = b""  # the last bytes read, to notice a file rewritten past the old end
        self.restarted = False
        self.behind = False  # more bytes wait than the last read took (CHUNK_BYTES)
        self.held = 0  # characters kept in `pieces`
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._kept: Any = None  # the file last read: still readable after `rm` while `tee` writes on
        self.unlinked = False  # the path is gone and the file last read is followed, as `tail -f` does
        try:
            st = os.stat(path)
        except FileNotFoundError:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):  # a typo: the log would never appear, and the stall check would stop the run
                raise LogUnreadable(f"its directory {folder} does not exist: fix the path, or create the "
                                    "directory before you start the watchdog") from None
            self.started = "the log does not exist yet: reading it from the start when it appears"
            return
        except OSError as e:
            raise LogUnreadable(f"{e.strerror or e}: pass the log file the job's `tee` writes") from None
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
            raise LogUnreadable(f"it is {kind}, not a file: pass the log file the job's `tee` writes")
        self.ident = (st.st_dev, st.st_ino)
        if from_start:
            self.started = "reading the log from the start (--from-start)"
            return
        self.pos = st.st_size
        try:
            with open(path, "rb") as fh:
                fh.seek(max(0, self.pos - TAIL_BYTES))
                self.tail = fh.read(self.pos - max(0, self.pos - TAIL_BYTES))
        except OSError as e:
            raise LogUnreadable(f"{e.strerror or e}: make it readable by this user (or run the watchdog as "
                                "the user that runs the job)") from None
        self.started = (f"following from the end of an existing log ({st.st_size} bytes skipped); "
                        "reading from the start when it is truncated or replaced")

    def read(self) -> list[str]:
        """The lines completed since the last read ([] until the file first appears), from at most CHUNK_BYTES
        new bytes: `behind` says more is waiting (a --from-start on a large log is read a chunk at a time)."""
        fh = self._open()
        if fh is None:
            self.behind = False
            return []
        st = os.fstat(fh.fileno())
        ident = (st.st_dev, st.st_ino)
        if self.ident is not None and (ident != self.ident or st.st_size < self.pos or not self._same_tail(fh)):
            self.pos, self.tail, self.pieces, self.held, self.restarted = 0, b"", [], 0, True
            self._decoder.reset()
        self.ident = ident
        fh.seek(self.pos)
        data = fh.read(CHUNK_BYTES)
        self.pos += len(data)
        self.behind = self.pos < st.st_size
        self.tail = (self.tail + data[-TAIL_BYTES:])[-TAIL_BYTES:]
        chunk = self._decoder.decode(data)
        parts = re.split(r"\r\n|\r|\n", chunk)  # only the new text: a long line costs linear time, not quadratic
        if len(parts) == 1:
            self._hold(chunk)
            return []
        parts[0] = "".join([*self.pieces, parts[0]])[:MAX_LINE]
        self.pieces, self.held = [], 0
        self._hold(parts.pop())
        return [p for p in parts if p]

    def _open(self) -> Any:
        """The log opened without blocking (a FIFO or device put in its place is refused, never waited on);
        once the path is gone, the file last read, which a `tee` that still runs keeps writing; None before
        the log first appears."""
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            self.unlinked = self._kept is not None
            return self._kept
        except PermissionError as e:
            raise LogUnreadable(f"{e.strerror or e}: make it readable by this user (or run the watchdog as "
                                "the user that runs the job)") from None
        except OSError as e:  # a symlink loop (ELOOP), a path through a file (ENOTDIR): no user can read it
            raise LogUnreadable(f"{e.strerror or e}: the path no longer leads to the log the job's `tee` writes: "
                                "put the log back (or pass the file `tee` writes now) and start the watchdog "
                                "again") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
            raise LogUnreadable(f"it is now {kind}, not the log the job's `tee` writes: put the log back (or pass "
                                "the file `tee` writes now) and start the watchdog again")
        self.close()
        self._kept, self.unlinked = os.fdopen(fd, "rb"), False
        return self._kept

    def close(self) -> None:
        """Let go of the file last read."""
        if self._kept is not None:
            self._kept.close()
            self._kept = None

    def _hold(self, text: str) -> None:
        """Keep the start of the line being written, at most MAX_LINE characters (its rest is never a signal)."""
        room = MAX_LINE - self.held
        if room > 0 and text:
            self.pieces.append(text[:room])
            self.held += min(len(text), room)

    def _same_tail(self, fh: Any) -> bool:
        """Whether the bytes just before the read position are still the ones read there."""
        if not self.tail:
            return True
        fh.seek(self.pos - len(self.tail))
        return fh.read(len(self.tail)) == self.tail


def alive(pid: int) -> bool:
    """Whether a process exists (and is not a zombie we could reap)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """The CLI loop: one check per --poll seconds until the run ends or is stopped."""
    def fresh() -> Watchdog:
        dog = Watchdog(args.stall_after, args.engine_failures, args.task_errors)
        dog.engine_url = args.engine and (args.engine if "://" in args.engine else "http://" + args.engine)
        return dog

    dog = fresh()
    follower = LogFollower(args.log, from_start=args.from_start)
    out(f"watchdog: {follower.started}")
    told_unlinked = False
    while True:
        lines = follower.read()
        if follower.unlinked != told_unlinked:
            told_unlinked = follower.unlinked
            out("watchdog: the log was deleted; following the deleted file, which the job's `tee` may still be "
                "writing (a job that writes nothing more is judged a stall, as before)" if told_unlinked else
                "watchdog: the log is back at its path")
        if follower.restarted:  # a new run writes the log now: judge it alone
            follower.restarted = False
            dog = fresh()
            out("watchdog: the log was truncated or replaced: reading it from the start")
        for line in lines:
            dog.feed(line)
        if args.steps and dog.steps_done >= args.steps and not dog.reason:
            dog.ended = "ok"
        if dog.ended == "ok":
            out(f"watchdog: the run ended normally after {dog.steps_done} steps")
            return 0
        if dog.ended == "failed":
            out("watchdog: the log says the job failed or was stopped")
            return 1
        if dog.wants_probe():
            dog.probed(*probe(dog.engine_url, args.probe_timeout))
        reason = dog.check()
        if reason:
            out(f"watchdog: STOP {reason}")
            stop(args, reason, out)
            return 3
        if args.pid and not alive(args.pid):
            while True:  # the whole rest of the log, a chunk at a time
                for line in follower.read():
                    dog.feed(line)
                if not follower.behind:
                    break
            if dog.ended == "ok" or (args.steps and dog.steps_done >= args.steps):
                out(f"watchdog: the run ended normally after {dog.steps_done} steps")
                return 0
            out(f"watchdog: process {args.pid} exited and the log shows no normal end")
            return 1
        if follower.behind:  # more of the log waits: read on before sleeping
            continue
        out(dog.status())
        time.sleep(args.poll)


def stop(args: argparse.Namespace, reason: str, out: Callable[[str], None]) -> None:
    """SIGTERM --pid, or run --on-dead with WATCHDOG_REASON in its environment."""
    if args.pid:
        try:
            os.kill(args.pid, signal.SIGTERM)
            out(f"watchdog: sent SIGTERM to {args.pid}")
        except ProcessLookupError:
            out(f"watchdog: process {args.pid} was already gone")
    elif args.on_dead:
        rc = subprocess.call(args.on_dead, shell=True, env={**os.environ, "WATCHDOG_REASON": reason})
        out(f"watchdog: --on-dead exited {rc}")


def parser() -> argparse.ArgumentParser:
    """The CLI's arguments."""
    ap = argparse.ArgumentParser(
        prog="watchdog.py",
        description="Stop a Miles run whose rollout engine died or whose steps stopped arriving. "
                    "Prints one line per check and 'watchdog: STOP <reason>' when it stops the run.",
        epilog="Exit status: 0 the run ended normally (the log shows Ray's \"Job '...' succeeded\"), "
               "3 the watchdog stopped it, 1 it ended otherwise, 2 bad arguments.")
    ap.add_argument("--log", required=True, metavar="FILE",
                    help="the Miles log to follow (the driver's stdout, e.g. from `ray job submit ... | tee FILE`)")
    ap.add_argument("--from-start", action="store_true",
                    help="read an existing log from its first byte (a finished run, or a job started before "
                         "the watchdog); default: follow it from its end, and from the start once it is "
                         "truncated or replaced, as `tee` does when a new run starts")
    ap.add_argument("--engine", metavar="URL",
                    help="the SGLang engine, e.g. http://127.0.0.1:15000; default: read from the log's "
                         "'Launch HttpServerEngineAdapter at:' line")
    ap.add_argument("--stall-after", type=float, default=DEFAULTS["stall_after"], metavar="SECONDS",
                    help="stop when no step has finished for this long (default %(default)g); "
                         "the first step counts from the watchdog's start, or from when it finds the log "
                         "truncated or replaced")
    ap.add_argument("--poll", type=float, default=DEFAULTS["poll"], metavar="SECONDS",
                    help="seconds between checks (default %(default)g)")
    ap.add_argument("--steps", type=int, metavar="N",
                    help="the run's --num-rollout: it counts as ended normally once N steps finished "
                         "(needed when the log comes from train.py itself, not `ray job submit`)")
    ap.add_argument("--engine-failures", type=int, default=DEFAULTS["engine_failures"], metavar="N",
                    help="stop after N failed /health_generate probes in a row during a rollout (default %(default)s)")
    ap.add_argument("--task-errors", type=int, default=DEFAULTS["task_errors"], metavar="N",
                    help="stop after N '[rollout] Task raised exception' lines in one step (default %(default)s)")
    ap.add_argument("--probe-timeout", type=float, default=DEFAULTS["probe_timeout"], metavar="SECONDS",
                    help="how long one probe may take (default %(default)g)")
    who = ap.add_mutually_exclusive_group()
    who.add_argument("--pid", type=int, metavar="PID",
                     help="send SIGTERM to this process when the run is dead; also end when it exits")
    who.add_argument("--on-dead", metavar="CMD",
                     help="run this shell command when the run is dead (WATCHDOG_REASON holds why)")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Parse arguments (exit 2 on bad ones) and watch."""
    ap = parser()
    args = ap.parse_args(argv)
    for name in ("stall_after", "poll", "probe_timeout", "engine_failures", "task_errors"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):  # nan passes `<= 0`, and time.sleep(nan) raises
            ap.error(f"--{name.replace('_', '-')} must be a positive number, not {value}")
    if args.steps is not None and args.steps <= 0:
        ap.error("--steps must be positive")
    if args.pid is not None and args.pid <= 0:
        ap.error("--pid must be a process id")
    if args.engine is not None and url_problem(args.engine):
        ap.error(f"--engine {args.engine!r}: {url_problem(args.engine)}; pass the engine's address, "
                 "e.g. http://127.0.0.1:15000")
    if args.pid is not None and not alive(args.pid):
        ap.error(f"--pid {args.pid}: no such process: pass the id of a process that runs now, "
                 "or use --on-dead")
    try:
        return run(args, out=lambda s: print(s, flush=True))
    except LogUnreadable as e:
        shown = "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in args.log)
        print(f"watchdog: cannot read --log {shown}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
