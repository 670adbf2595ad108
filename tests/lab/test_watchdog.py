"""watchdog.py as a reader runs it: a real process beside a log and a stand-in engine."""
from __future__ import annotations

import http.server
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from capture.lab.rehearsal import mileslog as ml

SCRIPT = Path(__file__).resolve().parents[2] / "_ext" / "miles101" / "tools" / "watchdog.py"


def watchdog(*args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def engine():
    """A stand-in engine on 127.0.0.1: /health_generate answers 200 until `state['ok']` is False."""
    state = {"ok": True, "hits": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            state["hits"] += 1
            self.send_response(200 if state["ok"] and self.path == "/health_generate" else 503)
            self.end_headers()

        def log_message(self, *a: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # A short poll: shutdown() waits for serve_forever to look (0.5 s by default, on every test that uses it).
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    state["addr"] = f"127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()


def test_normal_end_exits_0(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("\n".join(ml.healthy(3)) + "\n")
    res = watchdog("--log", str(log), "--from-start", "--poll", "0.1")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ended normally after 3 steps" in res.stdout


def test_retry_exhaustion_stops_the_pid(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("\n".join(ml.healthy(3)[:3] + ml.step_lines(0) + [ml.rollout_bar(), *ml.retry_lines()]) + "\n")
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        res = watchdog("--log", str(log), "--from-start", "--poll", "0.1", "--pid", str(victim.pid))
        assert res.returncode == 3
        assert "watchdog: STOP Miles logged 'Max retries (60) reached'" in res.stdout
        assert victim.wait(timeout=5) == -15  # SIGTERM
    finally:
        victim.kill()


def test_dead_engine_runs_on_dead(tmp_path, engine):
    log = tmp_path / "log.txt"
    marker = tmp_path / "why.txt"
    log.write_text("\n".join(ml.healthy(3)[:2] + [ml.engine_line_at(engine["addr"])] + ml.step_lines(0)
                             + [ml.rollout_bar()]) + "\n")
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--log", str(log), "--from-start", "--poll", "0.2", "--engine-failures", "2",
                             "--on-dead", f"echo \"$WATCHDOG_REASON\" > {marker}"], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while engine["hits"] < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None and engine["hits"] >= 2  # healthy engine: keeps watching
    engine["ok"] = False
    out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 3
    assert "watchdog: ok 1 steps, phase rollout" in out
    assert "watchdog: STOP rollout engine http://" in out and "HTTP 503" in out
    assert "/health_generate" in marker.read_text()


def test_probe_failures_while_training_are_not_death(tmp_path, engine):
    """A colocated engine sleeps while the trainer runs: once the log says the rollout ended, the watchdog
    stops probing, so the engine's failures then are no death; the stall clock still runs.

    The engine answers during the rollout first (a failure only counts after one healthy probe), so a
    watchdog that probed or counted failures while training would stop on the engine here."""
    log = tmp_path / "log.txt"
    log.write_text("\n".join(ml.healthy(3)[:2] + [ml.engine_line_at(engine["addr"]), ml.rollout_bar()]) + "\n")
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--log", str(log), "--from-start", "--poll", "0.1",
                             "--engine-failures", "2", "--stall-after", "1.5"], stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    try:
        deadline = time.monotonic() + 10
        while engine["hits"] < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None and engine["hits"] >= 2  # probed, and healthy, during the rollout
        with log.open("a") as f:
            f.write(ml.rollout_perf(0) + "\n")  # the rollout's perf line: the trainer takes over
        while not any("phase train" in line for line in lines) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any("phase train" in line for line in lines), lines
        engine["ok"], probed = False, engine["hits"]
        assert proc.wait(timeout=10) == 3
    finally:
        proc.kill()
    reader.join(timeout=5)
    out = "".join(lines)
    assert "STOP no step finished" in out and "STOP rollout engine" not in out, out
    assert engine["hits"] <= probed + 1, "the watchdog probed the engine while the trainer ran"  # +1: one in flight


def test_task_exceptions_and_steps_option(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("\n".join(ml.step_lines(0) + [ml.task_exception()] * 3) + "\n")
    res = watchdog("--log", str(log), "--from-start", "--poll", "0.1")
    assert res.returncode == 3 and "3 rollout tasks raised exceptions" in res.stdout
    log.write_text("\n".join(ml.healthy(2, ray_end=False)) + "\n")
    assert watchdog("--log", str(log), "--from-start", "--poll", "0.1", "--steps", "2").returncode == 0


def test_bad_arguments_exit_2_and_help_explains():
    assert watchdog("--poll", "1").returncode == 2  # --log missing
    assert watchdog("--log", "x", "--pid", "1", "--on-dead", "true").returncode == 2
    assert watchdog("--log", "x", "--stall-after", "-1").returncode == 2
    helptext = watchdog("--help").stdout
    for opt in ("--log", "--from-start", "--engine", "--stall-after", "--poll", "--pid", "--on-dead"):
        assert opt in helptext


def test_standalone_stdlib_only():
    import ast
    for name in ("watchdog.py", "read_run.py"):
        tree = ast.parse((SCRIPT.parent / name).read_text())
        mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert mods <= set(sys.stdlib_module_names) | {"__future__"}, (name, mods)
