"""One container run of one seed: stream, parse, watch, guard the heat, and say how it ended."""
from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable

from capture.lab import docker as dk
from capture.lab.heat import HeatGuard, read_temperature
from capture.lab.host import meminfo_gib
from capture.lab.logparse import LiveLog
from capture.lab.progress import Progress
from capture.lab.progress import line as progress_line
from miles101.tools.watchdog import Watchdog, probe


# SGLang's last words when its engine dies (sglang/srt/entrypoints/engine.py: the SIGQUIT handler's log line;
# managers/scheduler.py: a scheduler's exception). Before the engine's first good probe they end the run.
ENGINE_DEATH = ("Received sigquit from a child process", "Scheduler hit an exception")


@dataclass
class Options:
    """The recorder's thresholds (seconds, °C); tests shorten them."""

    poll: float = 30.0
    stall_after: float = 1800.0
    engine_failures: int = 3
    task_errors: int = 3
    probe_timeout: float = 10.0
    heat_poll: float = 15.0
    heat_pause: float = 85.0
    heat_resume: float = 75.0
    heat_stop: float = 92.0
    stop_timeout: float = 30.0
    pool_poll: float = 5.0


@dataclass
class Outcome:
    """How one container run ended."""

    ok: bool
    reason: str
    exit_code: int | None
    steps_done: int
    start: str
    end: str
    name: str
    command: list[str]
    oom_killed: bool = False
    kind: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled exactly as Ctrl-C (a KeyboardInterrupt) is."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def why(e: KeyboardInterrupt) -> tuple[str, int]:
    """The reason text and exit status of an interruption: 130 for Ctrl-C, 128 + N for signal N."""
    if isinstance(e, Stopped):
        return f"interrupted ({signal.Signals(e.signum).name})", 128 + e.signum
    return "interrupted (Ctrl-C)", 130


class _Sink:
    """Stands in for log.txt and steps.jsonl once the disk is full."""

    def write(self, data: bytes) -> int:
        return len(data)

    def flush(self) -> None:
        pass


class Session:
    """Runs `docker run` for one seed and follows it to the end."""

    def __init__(self, run: dict[str, Any], seed: int | None, name: str, log: BinaryIO, steps: BinaryIO,
                 opts: Options, event: Callable[[str, str], None], progress: Progress, utc: Callable[[], str],
                 pool: BinaryIO | None = None) -> None:
        self.run, self.seed, self.name, self.opts, self.event, self.progress, self.utc = (
            run, seed, name, opts, event, progress, utc)
        self.cmd = dk.run_command(run, seed, name)
        self.t0 = time.monotonic()
        self.live = LiveLog(log, steps, seed, self.t0)
        self.dog = Watchdog(opts.stall_after, opts.engine_failures, opts.task_errors, now=self.t0)
        self.heat = HeatGuard(opts.heat_pause, opts.heat_resume, opts.heat_stop)
        self.stop_reason: str | None = None
        self.stop_kind = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self.reason_rc = 1
        self.pool = pool
        self.early_fails = 0

    def start(self) -> None:
        """Write the marker line and launch the container in its own session (Ctrl-C reaches only us)."""
        label = f"seed {self.seed}" if self.seed is not None else "run"
        self.live.write_raw(f"# miles101: {label}: {shlex.join(self.cmd)}\n".encode())
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def follow(self) -> Outcome:
        """Stream until the container exits; stop it when the watchdog, the heat guard or the user says so."""
        start = self.utc()
        self.start()
        assert self.proc is not None and self.proc.stdout is not None
        chunks: queue.Queue[bytes | None] = queue.Queue()
        fd = self.proc.stdout.fileno()
        threading.Thread(target=_pump, args=(fd, chunks), daemon=True).start()
        next_check = next_heat = next_pool = time.monotonic()
        eof = False
        while not (eof and self.proc.poll() is not None):
            try:
                try:
                    chunk = chunks.get(timeout=0.05)
                    if chunk is None:
                        eof = True
                    else:
                        for ln in self.live.feed(chunk, time.monotonic()):
                            self.dog.feed(ln)
                            self._engine_death(ln)
                except queue.Empty:
                    pass
                now = time.monotonic()
                if eof and self.proc.poll() is None:
                    self.proc.wait(timeout=self.opts.stop_timeout + 30)
                if self.stop_reason is None and now >= next_heat:
                    next_heat = now + self.opts.heat_poll
                    self._heat()
                if now >= next_pool:
                    next_pool = now + self.opts.pool_poll
                    self._pool(now)
                if self.stop_reason is None and now >= next_check:
                    next_check = now + self.opts.poll
                    self._watch(now)
                self._show(now)
            except KeyboardInterrupt as e:
                if self.stop_reason is None:
                    self.reason_rc = why(e)[1]
                    self.stop(why(e)[0], "interrupt")
                else:
                    dk.docker("kill", self.name)
            except OSError as e:
                if self.stop_reason is not None and self.stop_kind == "disk":
                    raise
                which = "log.txt or steps.jsonl"
                self.live.log = self.live.steps = _Sink()
                self.stop(f"disk full while writing {which}: {e.strerror or e}", "disk")
        self.live.close(time.monotonic())
        self.progress.done()
        return self._outcome(start)

    def _engine_death(self, line: str) -> None:
        """Stop at once when SGLang says its engine died before it ever answered a probe."""
        if self.stop_reason is None and not self.dog.engine_seen_ok and any(m in line for m in ENGINE_DEATH):
            self.stop(f"the SGLang engine died before its first good health probe; the log says: {line.strip()[:200]}",
                      "watchdog")

    def _pool(self, now: float) -> None:
        """One pool.jsonl row: MemAvailable (the GPU's memory too, on a Spark) and the phase the log shows."""
        free = meminfo_gib("MemAvailable")
        if self.pool is None or free is None:
            return
        row = {"t": round(now - self.t0, 1), "seed": self.seed, "phase": self.dog.phase,
               "step": self.dog.last_step, "mem_available_gib": round(free, 3)}
        try:
            self.pool.write((json.dumps(row) + "\n").encode())
            self.pool.flush()
        except OSError:
            self.pool = None  # the disk is full: the log matters more; the write of log.txt will say so

    def _watch(self, now: float) -> None:
        if self.dog.engine_url is None and self.live.asm.engine_addr:
            self.dog.engine_url = "http://" + self.live.asm.engine_addr
        if self.dog.wants_probe():
            ok, detail = probe(self.dog.engine_url or "", self.opts.probe_timeout)
            self.dog.probed(ok, detail)
            if not ok and not self.dog.engine_seen_ok:  # it died before it ever answered
                self.early_fails += 1
                if self.early_fails >= self.opts.engine_failures and self.stop_reason is None:
                    self.stop(f"rollout engine {self.dog.engine_url} never answered /health_generate: "
                              f"{self.early_fails} probes failed during the first rollout ({detail})", "watchdog")
                    return
        reason = self.dog.check(time.monotonic())
        if reason:
            self.stop(reason, "watchdog")

    def _heat(self) -> None:
        temp = read_temperature()
        self.live.gpu_temp = temp
        action = self.heat.update(temp)
        if action == "pause":
            dk.docker("pause", self.name)
            self.dog.hold()
            self.event("heat", f"GPU at {temp:g} °C (pause at {self.opts.heat_pause:g}): container paused")
        elif action == "resume":
            dk.docker("unpause", self.name)
            self.dog.release()
            self.event("heat", f"GPU at {temp:g} °C (resume at {self.opts.heat_resume:g}): container resumed")
        elif action == "stop":
            self.stop(f"GPU at {temp:g} °C, at or above the stop threshold {self.opts.heat_stop:g} °C", "heat")

    def stop(self, reason: str, kind: str) -> None:
        """Record why and stop the container (SIGTERM, then SIGKILL after --stop-timeout)."""
        self.stop_reason, self.stop_kind = reason, kind
        self.event(kind, reason)
        if self.heat.paused or self.dog.held_at is not None:
            dk.docker("unpause", self.name)
        res = dk.docker("stop", "-t", str(int(self.opts.stop_timeout)), self.name, timeout=self.opts.stop_timeout + 30)
        if res.returncode != 0:
            dk.docker("kill", self.name)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=self.opts.stop_timeout + 30)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def _show(self, now: float) -> None:
        done = len(self.live.asm.finished)
        note = "(paused: GPU hot)" if self.heat.paused else ""
        label = self.run["id"] + (f" seed {self.seed}" if self.seed is not None else "")
        self.progress.show(progress_line(label, done, self.run["steps"], self.live.asm.last_reward, now - self.t0, note),
                           key=(done, note))

    def _outcome(self, start: str) -> Outcome:
        assert self.proc is not None
        rc = self.proc.returncode
        state = dk.inspect_state(self.name)
        dk.docker("rm", "-f", self.name)
        rc = state.get("exit_code", rc)
        oom = bool(state.get("oom_killed"))
        done = len(self.live.asm.finished)
        common = dict(exit_code=rc, steps_done=done, start=start, end=self.utc(), name=self.name,
                      command=self.cmd, oom_killed=oom)
        if self.stop_reason:
            return Outcome(False, self.stop_reason, kind=self.stop_kind, extra={"rc": self.reason_rc}, **common)
        if oom or rc == 137:
            why = "docker reports OOMKilled" if oom else "SIGKILL, most likely the kernel's OOM killer"
            reason = f"out of memory: the container was killed (exit {rc}, {why}) after {done} steps"
            self.event("oom", reason)
            return Outcome(False, reason, kind="oom", **common)
        if rc != 0:
            return Outcome(False, f"the container exited with code {rc} after {done} steps", kind="exit", **common)
        if done < self.run["steps"]:
            return Outcome(False, f"the container exited 0 but finished {done} of {self.run['steps']} steps",
                           kind="short", **common)
        return Outcome(True, "", **common)


def _pump(fd: int, chunks: "queue.Queue[bytes | None]") -> None:
    """Move the container's output into the queue as it comes."""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            chunks.put(None)
            return
        chunks.put(data)
