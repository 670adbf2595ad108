"""A hostile suite on issue 60's surfaces (caches, unbounded reads, damaged inputs, silent answers, weak messages).

Written from the issue's classes, not from the earlier tests' cases. Each case sets its inputs up in a temporary
folder, runs one tool (a child process, or in-process through a small driver), and is classified:
good / weak / silent / traceback / hang / injection / XSS. `tests/lab/test_hostile60.py` runs each case as a
pytest case with a 60 s limit (a hang fails); `python tests/lab/hostile60.py` prints the counts per class.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
TOOLS = ROOT / "_ext" / "miles101" / "tools"
CORE = ROOT / "_ext" / "miles101" / "sphinx_ext" / "static" / "log-doctor-core.js"
LIMIT = 60.0
ESC = "\x1b"


@dataclass
class Got:
    """What one run gave."""

    rc: int | None
    out: str
    err: str
    tmp: Path
    hung: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Case:
    id: str
    klass: str  # a..e of the issue
    run: Callable[[Path], Got]
    judge: Callable[[Got], tuple[str, str]]


CASES: list[Case] = []


def case(id: str, klass: str, judge: Callable[[Got], tuple[str, str]]):
    def deco(fn: Callable[[Path], Got]) -> Callable[[Path], Got]:
        CASES.append(Case(id, klass, fn, judge))
        return fn
    return deco


def sh(cmd: list[str], tmp: Path, env: dict[str, str] | None = None, stdin: bytes | None = None,
       timeout: float = LIMIT - 5, sigint_after: float | None = None) -> Got:
    """Run a child in its own process group; a hang is killed with its group."""
    e = {**os.environ, "PYTHONPATH": str(ROOT / "_ext") + os.pathsep + str(ROOT), "HOME": str(tmp),
         "NO_COLOR": "1", **(env or {})}
    p = subprocess.Popen(cmd, cwd=tmp, env=e, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        if sigint_after is not None:
            time.sleep(sigint_after)
            os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(stdin, timeout=timeout)
        return Got(p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), tmp)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return Got(None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), tmp, hung=True)


def tool(name: str, args: list[str], tmp: Path, **kw: Any) -> Got:
    return sh([PY, str(TOOLS / f"{name}.py"), *args], tmp, **kw)


def driver(code: str, tmp: Path, **kw: Any) -> Got:
    """Python code run in a child with the project importable; it prints one JSON line as its last line."""
    return sh([PY, "-c", textwrap.dedent(code)], tmp, **kw)


def last_json(g: Got) -> Any:
    lines = [ln for ln in g.out.splitlines() if ln.strip()]
    try:
        return json.loads(lines[-1]) if lines else None
    except ValueError:
        return None


def fifo(tmp: Path, name: str = "pipe") -> Path:
    p = tmp / name
    os.mkfifo(p)
    return p


def sparse(tmp: Path, size: int, name: str = "big") -> Path:
    p = tmp / name
    with open(p, "wb") as fh:
        fh.truncate(size)
    return p


def fake_docker(tmp: Path, body: str) -> dict[str, str]:
    """A `docker` on PATH (and MILES101_DOCKER) that runs `body` (sh)."""
    bindir = tmp / "bin"
    bindir.mkdir(exist_ok=True)
    d = bindir / "docker"
    d.write_text("#!/bin/sh\n" + body + "\n")
    d.chmod(0o755)
    return {"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "MILES101_DOCKER": str(d)}


# ---- common judges ----------------------------------------------------------------------------------------------

def base_class(g: Got) -> str | None:
    if g.hung:
        return "hang"
    if "Traceback (most recent call last)" in g.text:
        return "traceback"
    if (g.tmp / "PWNED").exists():
        return "injection"
    return None


def refused(*words: str, rc_ok: tuple[int, ...] = (1, 2, 3, 4)) -> Callable[[Got], tuple[str, str]]:
    """Good when the tool refuses (non-zero), says all `words` (case-insensitive) and echoes no raw escape."""
    def judge(g: Got) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        if g.rc == 0 or g.rc not in rc_ok:
            return "silent", f"rc {g.rc}: {g.text[-300:]}"
        if ESC in g.text or "\u202e" in g.text:
            return "weak", "raw control characters echoed"
        low = g.text.lower()
        missing = [w for w in words if w.lower() not in low]
        return ("weak", f"message lacks {missing}: {g.text[-300:]}") if missing else ("good", "")
    return judge


def says(*words: str, rc: tuple[int, ...] | None = None, absent: tuple[str, ...] = ()) -> Callable[[Got], tuple[str, str]]:
    """Good when the output holds all `words` and none of `absent` (and the exit status is in `rc`)."""
    def judge(g: Got) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        if ESC in g.text or "\u202e" in g.text:
            return "weak", "raw control characters echoed"
        low = g.text.lower()
        if rc is not None and g.rc not in rc:
            return "silent", f"rc {g.rc}: {g.text[-300:]}"
        bad = [w for w in absent if w.lower() in low]
        missing = [w for w in words if w.lower() not in low]
        if bad:
            return "silent", f"says {bad}: {g.text[-300:]}"
        return ("weak", f"lacks {missing}: {g.text[-300:]}") if missing else ("good", "")
    return judge


def json_is(want: Any) -> Callable[[Got], tuple[str, str]]:
    """Good when the driver's last JSON line equals `want` (else silent)."""
    def judge(g: Got) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        got = last_json(g)
        return ("good", "") if got == want else ("silent", f"got {got!r}, want {want!r}; {g.err[-200:]}")
    return judge


def no_pwn_ok(g: Got) -> tuple[str, str]:
    b = base_class(g)
    if b:
        return b, g.text[-300:]
    if g.rc not in (0, 1):
        return "weak", f"rc {g.rc}: {g.text[-300:]}"
    return "good", ""


# ==== (a) caches that run code or replace content ===================================================================

PWN = "import os; open('PWNED','w').write('x')"


def evil_pickle(tmp: Path, kind: str) -> bytes:
    """A pickle that, when loaded, runs code (touches PWNED in the cwd), exits, or interrupts."""
    class Run:
        def __reduce__(self):  # noqa: D401
            if kind == "exit":
                return (sys.exit, (7,))
            if kind == "kbi":
                return (eval, ("(_ for _ in ()).throw(KeyboardInterrupt())",))
            return (os.system, (f"touch {tmp / 'PWNED'}",))
    import pickle
    return pickle.dumps(Run())


MEMOS = ["m101-capture.pickle", "m101-capture-files.pickle", "m101-capture-shapes.pickle", "m101-doctor-rules.pickle",
         "m101-served-book.pickle", "m101-book-valid.pickle", "m101-indices-html.pickle"]


def plant_check(tmp: Path, memo: str, kind: str, extra: list[str], where: str = "self",
                correct_key: bool = False) -> Got:
    """Plant `memo` in a doctree folder, run `capture/run.py --check` (with `extra`), then remove it."""
    if where == "other":
        other = tmp / "other"
        other.mkdir()
        sh(["bash", "-c", f"git -C {ROOT} archive HEAD | tar -x -C {other}"], tmp)
        cache = other / "_build" / "doctrees"
        extra = [*extra, "--root", str(other)]
    else:
        cache = tmp / "doctrees"
    cache.mkdir(parents=True)
    payload = evil_pickle(tmp, kind)
    if correct_key:
        code = f"""
import pickle, sys
from pathlib import Path
from miles101.inputs import Inputs
from miles101.intake import input_sums, model_key
i = Inputs(Path({str(ROOT if where == 'self' else tmp / 'other')!r}))
key = model_key(i.code, input_sums(i))
sys.stdout.buffer.write(pickle.dumps(key))
"""
        g = sh([PY, "-c", code], tmp)
        payload = g.out.encode("latin-1", "replace") if False else subprocess.run(
            [PY, "-c", code], capture_output=True, cwd=tmp,
            env={**os.environ, "PYTHONPATH": str(ROOT / "_ext")}).stdout + payload
    if memo == "fifo":
        os.mkfifo(cache / "m101-capture.pickle")
    elif memo == "zero":
        (cache / "m101-capture.pickle").symlink_to("/dev/zero")
    elif memo == "huge":
        sparse(cache, 200 * 2**20, "m101-capture.pickle")
    else:
        (cache / memo).write_bytes(payload)
    args = [a.replace("CACHE", str(cache)) for a in extra]
    return sh([PY, str(ROOT / "capture" / "run.py"), "--check", *args], tmp)


def check_ok(g: Got) -> tuple[str, str]:
    b = base_class(g)
    if b:
        return b, g.text[-400:]
    if g.rc == 7:
        return "injection", "a memo chose the exit status"
    if g.rc != 0 or "check passed" not in g.text:
        return "weak", f"rc {g.rc}: {g.text[-400:]}"
    return "good", ""


for _memo in ("m101-capture.pickle", "m101-capture-files.pickle", "m101-capture-shapes.pickle"):
    for _kind in ("run", "exit", "kbi"):
        for _mode, _extra in (("cache", ["--cache", "CACHE"]),):
            def _f(tmp: Path, memo=_memo, kind=_kind, extra=_extra) -> Got:
                return plant_check(tmp, memo, kind, extra)
            case(f"a-check-{_mode}-{_memo.split('.')[0]}-{_kind}", "a", check_ok)(_f)


@case("a-check-default-correct-key-run", "a", check_ok)
def _a1(tmp: Path) -> Got:
    # the build's own folder is not read by default: plant it there by running in a copy
    return plant_check(tmp, "m101-capture.pickle", "run", [], where="other", correct_key=True)


@case("a-check-root-other-correct-key-run", "a", check_ok)
def _a2(tmp: Path) -> Got:
    return plant_check(tmp, "m101-capture.pickle", "run", [], where="other", correct_key=True)


@case("a-check-cache-correct-key-run", "a", check_ok)
def _a3(tmp: Path) -> Got:
    return plant_check(tmp, "m101-capture.pickle", "run", ["--cache", "CACHE"], correct_key=True)


@case("a-check-cache-correct-key-exit7", "a", check_ok)
def _a4(tmp: Path) -> Got:
    return plant_check(tmp, "m101-capture.pickle", "exit", ["--cache", "CACHE"], correct_key=True)


INNER = """
import os, pickle, sys
from pathlib import Path
from miles101.inputs import Inputs, memo_key
from miles101.intake import PARSED_CACHE
root, cache = Path(sys.argv[1]), Path(sys.argv[2])
i = Inputs(root)
class Run:
    def __reduce__(self):
        return (os.system, ("touch " + str(Path.cwd() / "PWNED"),))
memo = {}
for p in sorted((root / "capture" / "runs").glob("*.yaml"))[:3] + [root / "capture" / "miles" / "flags.json"]:
    memo[p.relative_to(root).as_posix()] = (memo_key(i.code, i.sha(p, "x")), pickle.dumps(Run()))
(cache / PARSED_CACHE).write_bytes(pickle.dumps(i.code) + pickle.dumps(memo))
"""


@case("a-check-cache-parse-memo-plain-outer-code-inner", "a", check_ok)
def _a7(tmp: Path) -> Got:
    """The parse memo's outer pickles are plain data (str, dict, tuple, bytes), its documents pickles of their own."""
    cache = tmp / "doctrees"
    cache.mkdir()
    sh([PY, "-c", INNER, str(ROOT), str(cache)], tmp)
    return sh([PY, str(ROOT / "capture" / "run.py"), "--check", "--cache", str(cache)], tmp)


for _m in ("fifo", "zero", "huge"):
    def _g(tmp: Path, m=_m) -> Got:
        return plant_check(tmp, m, "run", ["--cache", "CACHE"])
    case(f"a-check-cache-memo-{_m}", "a", check_ok)(_g)


CMD_PATH = """
import json
from pathlib import Path
from miles101.sphinx_ext.runs import command_path
out = Path('site/_commands'); out.mkdir(parents=True)
got = command_path(out, {rid})
print(json.dumps(None if got is None else str(got.resolve().relative_to(out.resolve()))))
"""
for _i, _rid in enumerate(["../evil", "../../etc/x", "a/b", "..", ".", "", "x\x00y", "first-grpo\n", "/abs",
                           "-rf", "évil", "x/../../y"]):
    def _h(tmp: Path, rid=_rid) -> Got:
        return driver(CMD_PATH.format(rid=repr(rid)), tmp)
    case(f"a-command-path-{_i}", "a", json_is(None))(_h)


@case("a-command-path-int", "a", json_is(None))
def _a5(tmp: Path) -> Got:
    return driver(CMD_PATH.format(rid=5), tmp)


@case("a-command-path-good", "a", json_is("first-grpo.sh"))
def _a6(tmp: Path) -> Got:
    return driver(CMD_PATH.format(rid=repr("first-grpo")), tmp)


# ==== (b) reads that never end =====================================================================================

STEP = "step 0: {'perf/step_time': 10.0, 'rollout/raw_reward': 0.5}\n"


def log_file(tmp: Path, text: str = STEP, name: str = "log.txt") -> Path:
    p = tmp / name
    p.write_text(text)
    return p


for _what in ("fifo", "zero", "dir", "huge"):
    for _mode in ([], ["--diagnose"], ["--samples"], ["--compare"]):
        def _r(tmp: Path, what=_what, mode=_mode) -> Got:
            target = {"fifo": lambda: fifo(tmp), "zero": lambda: Path("/dev/zero"),
                      "dir": lambda: tmp, "huge": lambda: sparse(tmp, (1 << 30) + 10)}[what]()
            return tool("read_run", [str(target), *mode], tmp)
        case(f"b-read-run-log-{_what}{'-' + _mode[0][2:] if _mode else ''}", "b",
             refused("cannot read", {"fifo": "fifo", "zero": "device", "dir": "directory", "huge": "MiB"}[_what]))(_r)

for _what in ("fifo", "zero", "dir", "huge"):
    for _mode in ([], ["--diagnose"]):
        def _rr(tmp: Path, what=_what, mode=_mode) -> Got:
            target = {"fifo": lambda: fifo(tmp), "zero": lambda: Path("/dev/zero"),
                      "dir": lambda: tmp, "huge": lambda: sparse(tmp, 10 << 20)}[what]()
            return tool("read_run", [str(log_file(tmp)), "--run", str(target), *mode], tmp)
        case(f"b-read-run-run-{_what}{'-diagnose' if _mode else ''}", "b",
             refused("cannot read", {"fifo": "fifo", "zero": "device", "dir": "directory", "huge": "MiB"}[_what]))(_rr)


PATHOLOGICAL = {"open-braces": " step 0: {" * 3_000_000, "ansi-starts": "\x1b[" * 5_000_000,
                "repeats": "ab" * 10_000_000, "spaces": " " * 30_000_000 + "x", "colons": "step 1: " * 3_000_000,
                "many-short-lines": "step 0: {\n" * 2_000_000, "cr-only": "step 0: {'a': 1}\r" * 1_000_000,
                "timer-lines": "Timer train start\n" * 1_000_000, "osc-starts": "\x1b]" * 5_000_000,
                "spaces-repeated": " " * 30_000_000 + "[repeated 2x across cluster] x",
                "oom-digits": "Timer train start\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                              + "1" * 400_000 + "\n"}
for _name, _text in PATHOLOGICAL.items():
    for _mode in ([], ["--diagnose"]):
        def _pl(tmp: Path, text=_text, mode=_mode) -> Got:
            (tmp / "log.txt").write_text(text)
            return tool("read_run", [str(tmp / "log.txt"), *mode], tmp)
        case(f"b-read-run-pathological-{_name}{'-diagnose' if _mode else ''}", "b", says(rc=(0, 1, 2)))(_pl)


@case("b-read-run-against-fifo", "b", refused("fifo"))
def _b1(tmp: Path) -> Got:
    return tool("read_run", [str(log_file(tmp)), "--compare", "--against", str(fifo(tmp, "s.json"))], tmp)


@case("b-read-run-base-fifo", "b", says("fsdp", absent=("megatron",)))
def _b2(tmp: Path) -> Got:
    fifo(tmp, "first-grpo.yaml")
    run = tmp / "mine.yaml"
    run.write_text("base: first-grpo\nargs:\n  - --train-backend\n  - fsdp\n")
    return tool("read_run", [str(log_file(tmp, "Timer train start\n" + STEP)), "--run", str(run), "--diagnose"], tmp)


@case("b-read-run-against-fifo-outside-checkout", "b", refused("fifo"))
def _b5(tmp: Path) -> Got:
    lone = tmp / "tools"
    lone.mkdir()
    shutil.copy(TOOLS / "read_run.py", lone / "read_run.py")  # a reader's copy: no checkout around it
    return sh([PY, str(lone / "read_run.py"), str(log_file(tmp)), "--compare", "--against", str(fifo(tmp, "s.json"))],
              tmp)


@case("b-read-run-against-huge", "b", refused("MiB"))
def _b6(tmp: Path) -> Got:
    return tool("read_run", [str(log_file(tmp)), "--compare", "--against", str(sparse(tmp, 1 << 30, "s.json"))], tmp)


for _what in ("fifo", "zero", "dir", "huge"):
    for _flag in ("--session", "--settings"):
        def _p(tmp: Path, what=_what, flag=_flag) -> Got:
            target = {"fifo": lambda: fifo(tmp), "zero": lambda: Path("/dev/zero"),
                      "dir": lambda: tmp, "huge": lambda: sparse(tmp, 200 << 20)}[what]()
            env = fake_docker(tmp, "exit 1")
            return tool("preflight", ["--image", "img", "--model", "/m", flag, str(target), "--skip-smoke", "--json"],
                        tmp, env=env)
        case(f"b-preflight{_flag[1:]}-{_what}", "b",
             refused({"fifo": "fifo", "zero": "device", "dir": "directory", "huge": "KiB"}[_what]))(_p)


@case("b-preflight-image-inspect-never-answers", "b", says("did not answer", rc=(1,)))
def _b7(tmp: Path) -> Got:
    env = fake_docker(tmp, 'case "$1" in version) echo 27.0;; image) sleep 1000;; *) exit 1;; esac')
    return tool("preflight", ["--image", "img", "--model", "/m", "--skip-smoke"], tmp, env=env)


@case("b-preflight-docker-version-never-answers", "b", says("did not answer", rc=(1,)))
def _b8(tmp: Path) -> Got:
    env = fake_docker(tmp, "sleep 1000")
    return tool("preflight", ["--image", "img", "--model", "/m", "--skip-smoke"], tmp, env=env)


def watchdog(tmp: Path, log: Path, *more: str, timeout: float = 30) -> Got:
    return tool("watchdog", ["--log", str(log), "--poll", "0.2", "--stall-after", "2", "--steps", "1", *more], tmp,
                timeout=timeout)


for _what in ("fifo", "zero", "dir"):
    for _start in ([], ["--from-start"]):
        def _w(tmp: Path, what=_what, start=_start) -> Got:
            target = {"fifo": lambda: fifo(tmp), "zero": lambda: Path("/dev/zero"), "dir": lambda: tmp}[what]()
            return watchdog(tmp, target, *start)
        case(f"b-watchdog-{_what}{'-from-start' if _start else ''}", "b",
             refused({"fifo": "fifo", "zero": "device", "dir": "directory"}[_what], rc_ok=(1, 2, 3)))(_w)


@case("b-watchdog-huge-from-start", "b", says(rc=(0, 1, 2, 3)))
def _w2(tmp: Path) -> Got:
    big = sparse(tmp, (1 << 30) + 5, "log.txt")
    return watchdog(tmp, big, "--from-start")


def watchdog_log_replaced(tmp: Path, make: str) -> Got:
    """The watchdog following a log that is removed after 1.5 s and `make` (os.mkfifo, os.mkdir) put in its place."""
    log = log_file(tmp, "")
    code = f"""
import os, time, subprocess, sys
p = subprocess.Popen([{PY!r}, {str(TOOLS / 'watchdog.py')!r}, '--log', {str(log)!r}, '--poll', '0.2',
                      '--stall-after', '20'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
time.sleep(1.5)
os.unlink({str(log)!r}); {make}({str(log)!r})
try:
    out, _ = p.communicate(timeout=20)
except subprocess.TimeoutExpired:
    p.kill(); out, _ = p.communicate(); print(out); print('HUNG'); sys.exit(99)
print(out); sys.exit(p.returncode)
"""
    g = driver(code, tmp)
    g.hung = g.hung or "HUNG" in g.out
    return g


@case("b-watchdog-log-becomes-fifo", "b", refused("fifo", rc_ok=(1, 2, 3)))
def _w3(tmp: Path) -> Got:
    return watchdog_log_replaced(tmp, "os.mkfifo")


def compare_image(tmp: Path, body: str, image: str = "img:1", timeouts: tuple[float, float] = (3, 3),
                  timeout: float = LIMIT - 5) -> Got:
    env = fake_docker(tmp, body)
    code = f"""
import sys
sys.path.insert(0, {str(TOOLS)!r})
import miles_tree, preflight
miles_tree.DOCKER_TIMEOUTS.update(inspect={timeouts[0]}, run={timeouts[1]})
miles_tree.PULL_QUIET_S = 1
sys.exit(preflight.main(['--compare-image', {image!r}]))
"""
    return sh([PY, "-c", code], tmp, env=env, timeout=timeout)


INSPECT_OK = 'case "$1 $2" in "image inspect") echo "sha256:' + "a" * 64 + ' img@sha256:' + "b" * 64 + '";; '
DOCKER_BODIES = {
    "inspect-hangs": ("sleep 1000", refused("did not answer")),
    "inspect-hangs-child-holds-pipe": ("sleep 1000 & sleep 1000", refused("did not answer")),
    "run-hangs": (INSPECT_OK + '*) sleep 1000;; esac', refused("did not answer")),
    "pull-hangs": ('case "$1" in pull) sleep 1000;; *) echo "Error: No such image" >&2; exit 1;; esac',
                   lambda g: ("good", "") if g.hung and "no progress for" in g.err else ("hang", g.text[-300:])),
    "inspect-garbage": ("echo 'hello world'", refused("hello world")),
    "inspect-non-utf8": ("printf '\\377\\376\\200garbage\\n'", refused("docker image inspect")),
    "inspect-ansi-error": ("printf 'Error: \\033[31mFAIL: forged\\033[0m\\n' >&2; exit 1", refused("failed")),
    "inspect-huge-output": ("head -c 50000000 /dev/zero | tr '\\0' a", refused("docker image inspect")),
    "git-log-garbage": (INSPECT_OK + '*) printf "\\377\\376 no commit\\n";; esac', refused("commit")),
    "tar-garbage": (INSPECT_OK + '"run --rm") case "$*" in *--format*) echo "abcdef1 2026-01-01";; '
                    '*) echo "not a tar";; esac;; esac', refused("files")),
    "tar-huge-member-name": (INSPECT_OK + '"run --rm") case "$*" in *--format*) echo "abcdef1 2026-01-01";; '
                             '*) head -c 3000000 /dev/urandom;; esac;; esac', refused("files")),
    "daemon-down": ("echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock.' >&2; exit 1",
                    refused("daemon")),
    "not-executable": ("", None),
}
for _name, (_body, _judge) in DOCKER_BODIES.items():
    def _d(tmp: Path, body=_body, name=_name) -> Got:
        if name == "not-executable":
            env = fake_docker(tmp, "")
            Path(env["MILES101_DOCKER"]).chmod(0o644)
            return tool("preflight", ["--compare-image", "img:1"], tmp, env=env)
        return compare_image(tmp, body, timeout=8 if name == "pull-hangs" else LIMIT - 5)
    case(f"b-compare-image-{_name}", "b",
         _judge or refused("docker" if _name == "not-executable" else "pull"))(_d)


@case("b-extraction-docker-hangs", "b", refused("did not answer"))
def _b3(tmp: Path) -> Got:
    env = fake_docker(tmp, "sleep 1000")
    code = f"""
import sys
from miles101.tools import miles_tree
miles_tree.DOCKER_TIMEOUTS.update(inspect=3, run=3)
from capture.extract.cli import main
sys.exit(main(['--image', 'img:1', '--out', {str(tmp / 'out')!r}]))
"""
    return sh([PY, "-c", code], tmp, env=env)


@case("b-extraction-docker-non-utf8", "b", refused("docker"))
def _b4(tmp: Path) -> Got:
    env = fake_docker(tmp, "printf '\\377\\376\\200\\n' >&2; exit 1")
    code = f"""
import sys
from capture.extract.cli import main
sys.exit(main(['--image', 'img:1', '--out', {str(tmp / 'out')!r}]))
"""
    return sh([PY, "-c", code], tmp, env=env)


# ==== (c) tracebacks on damaged inputs ===============================================================================

def flags_doc(mutate: Callable[[dict], Any]) -> str:
    doc = json.loads((ROOT / "capture" / "miles" / "flags.json").read_text())
    got = mutate(doc)
    return json.dumps(doc if got is None else got)


FLAG_DAMAGE: dict[str, Callable[[], str]] = {
    "no-provenance": lambda: flags_doc(lambda d: d.pop("provenance") and None),
    "flags-object": lambda: flags_doc(lambda d: d.update(flags={"--lr": {}})),
    "flags-strings": lambda: flags_doc(lambda d: d.update(flags=["--lr"])),
    "provenance-string": lambda: flags_doc(lambda d: d.update(provenance="x")),
    "record-no-name": lambda: flags_doc(lambda d: d["flags"][0].pop("name") and None),
    "top-list": lambda: "[]",
    "not-json": lambda: "{",
    "empty": lambda: "",
    "huge-number": lambda: flags_doc(lambda d: d["flags"][0].update(default=10 ** 4000)),
    "deep-nesting": lambda: "[" * 100000 + "]" * 100000,
    "infinity": lambda: flags_doc(lambda d: None).replace('"default": 8', '"default": Infinity', 1),
}
def shadow_root(tmp: Path, flags_text: str | None) -> Path:
    """A copy of the project (git archive) whose capture/miles/flags.json is `flags_text`."""
    other = copy_root(tmp)
    if flags_text is not None:
        (other / "capture" / "miles" / "flags.json").write_text(flags_text)
    return other


def copy_root(tmp: Path) -> Path:
    other = tmp / "root"
    other.mkdir()
    sh(["bash", "-c", f"git -C {ROOT} archive HEAD | tar -x -C {other}"], tmp)
    return other


GATE = """
from pathlib import Path
from capture.lab.campaign import run_file_gate, Setup
class D:
    def print(self, t): print(t)
got = run_file_gate(Setup(root=Path({root!r}), env={{}}), Path({prev!r}), D())
print('REFUSED' if got is None else 'GATE ' + str(len(got)))
"""

for _name, _make in FLAG_DAMAGE.items():
    def _c(tmp: Path, make=_make) -> Got:
        other = shadow_root(tmp, make())
        return driver(GATE.format(root=str(other), prev=str(ROOT / "capture" / "miles")), tmp)
    case(f"c-drift-gate-{_name}", "c", says("flags.json", "REFUSED"))(_c)


@case("c-drift-gate-intact", "c", says("GATE 0"))
def _c0(tmp: Path) -> Got:
    other = shadow_root(tmp, None)
    return driver(GATE.format(root=str(other), prev=str(ROOT / "capture" / "miles")), tmp)


BATCH_VALUES = {"5000-digits": "9" * 5000, "1e999": "1e999", "negative": "-5", "zero": "0", "float": "2.5",
                "fullwidth": "３２", "underscore": "3_2", "inf": "inf", "hex": "0x20", "nul": "3\x002",
                "var": "$N", "empty": "''"}
for _name, _v in BATCH_VALUES.items():
    def _bv(tmp: Path, v=_v) -> Got:
        run = tmp / "run.sh"
        run.write_text(f"python3 train.py --rollout-batch-size {v} --num-rollout 3\n")
        return tool("read_run", [str(log_file(tmp)), "--run", str(run)], tmp)
    case(f"c-read-run-batch-{_name}", "c", refused("rollout-batch-size"))(_bv)


STEP_VALUES = {"Infinity": "Infinity", "1e999": "1e999", "NaN": "NaN", "true": "true", "string": '"5"',
               "5000-digits": "9" * 5000, "negative": "-3", "zero": "0", "1e300": "1e300", "null": "null"}
for _name, _v in STEP_VALUES.items():
    def _sv(tmp: Path, v=_v) -> Got:
        gpu = tmp / "gpu" / "r1"
        gpu.mkdir(parents=True)
        (gpu / "steps.jsonl").write_text(
            '{"lab": {"lab/step_interval": 30}}\n' + '{"lab": {"lab/step_interval": ' + v + '}}\n')
        code = f"""
import json
from pathlib import Path
from capture.lab.campaign import recorded_step_time
refused = []
t = recorded_step_time(Path({str(tmp / 'gpu')!r}), refused)
print(json.dumps([t, len(refused)]))
"""
        return driver(code, tmp)
    case(f"c-step-time-{_name}", "c", json_is([30.0, 0 if _name == "null" else 1]))(_sv)


LINE_SHAPES = {"list": "[1, 2]", "string": '"x"', "number": "5", "lab-list": '{"lab": [1]}', "deep": "[" * 50000,
               "non-utf8": "\udcff", "lab-null": '{"lab": null}'}
for _name, _v in LINE_SHAPES.items():
    def _ls(tmp: Path, v=_v) -> Got:
        gpu = tmp / "gpu" / "r1"
        gpu.mkdir(parents=True)
        data = ('{"lab": {"lab/step_interval": 30}}\n' + v + "\n").encode("utf-8", "surrogateescape")
        (gpu / "steps.jsonl").write_bytes(data)
        code = f"""
import json
from pathlib import Path
from capture.lab.campaign import recorded_step_time
refused = []
t = recorded_step_time(Path({str(tmp / 'gpu')!r}), refused)
print(json.dumps([t, len(refused)]))
"""
        return driver(code, tmp)
    case(f"c-steps-line-{_name}", "c", json_is([30.0, 1]))(_ls)


@case("c-steps-jsonl-fifo", "c", json_is([30.0, 1]))
def _c1(tmp: Path) -> Got:
    (tmp / "gpu" / "r1").mkdir(parents=True)
    (tmp / "gpu" / "r1" / "steps.jsonl").write_text('{"lab": {"lab/step_interval": 30}}\n')
    (tmp / "gpu" / "r2").mkdir(parents=True)
    os.mkfifo(tmp / "gpu" / "r2" / "steps.jsonl")
    code = f"""
import json
from pathlib import Path
from capture.lab.campaign import recorded_step_time
refused = []
t = recorded_step_time(Path({str(tmp / 'gpu')!r}), refused)
print(json.dumps([t, len(refused)]))
"""
    return driver(code, tmp)


LOG_STEP_VALUES = {"Infinity": "Infinity", "1e999": "1e999", "NaN": "NaN", "true": "True", "5000-digits": "9" * 5000,
                   "list": "[1, 2]", "nested": "[" * 5000 + "]" * 5000, "string": "'x'"}
for _name, _v in LOG_STEP_VALUES.items():
    def _lv(tmp: Path, v=_v) -> Got:
        text = "".join(f"step {i}: {{'perf/step_time': {v if i == 1 else 10.0}, "
                       f"'rollout/raw_reward': 0.5}}\n" for i in range(3))
        return tool("read_run", [str(log_file(tmp, text))], tmp)
    case(f"c-read-run-step-{_name}", "c", says(rc=(0, 1)))(_lv)


for _name, _argv in {"record": ["record", "first-grpo", "--dry-run"], "campaign": ["campaign", "--no-record"],
                     "check": ["--check"], "preflight": ["preflight", "first-grpo"]}.items():
    def _ci(tmp: Path, argv=_argv) -> Got:
        return sh([PY, str(ROOT / "capture" / "run.py"), *argv], tmp, sigint_after=0.4, env={"PATH": "/usr/bin:/bin"})
    case(f"c-ctrl-c-{_name}", "c", says(rc=(0, 1, 2, 130, -2)))(_ci)


for _when in (0.05, 0.15, 0.25):
    for _name, _argv in {"record": ["record", "first-grpo"], "campaign": ["campaign"]}.items():
        def _cw(tmp: Path, argv=_argv, when=_when) -> Got:
            env = {**fake_docker(tmp, "sleep 1000"), "MILES101_DOCKER": "docker"}
            return sh([PY, str(ROOT / "capture" / "run.py"), *argv], tmp, sigint_after=when, env=env, timeout=30)
        case(f"c-ctrl-c-{_name}-at-{_when}", "c", says(rc=(1, 2, 130, -2)))(_cw)


@case("c-ctrl-c-read-run-huge", "c", says(rc=(1, 2, 130, -2)))
def _c2(tmp: Path) -> Got:
    big = tmp / "log.txt"
    with open(big, "w") as fh:
        for i in range(200000):
            fh.write(f"step {i}: {{'perf/step_time': 10.0}}\n")
    return tool("read_run", [str(big), "--steps", "200000", "--diagnose"], tmp, sigint_after=0.5)


@case("c-ctrl-c-watchdog", "c", says(rc=(1, 2, 3, 130, -2)))
def _c3(tmp: Path) -> Got:
    return tool("watchdog", ["--log", str(log_file(tmp, "")), "--poll", "0.2"], tmp, sigint_after=1.5)


@case("c-ctrl-c-compare-image-pull", "c", says(rc=(1, 2, 130, -2)))
def _c4(tmp: Path) -> Got:
    env = fake_docker(tmp, 'case "$1" in pull) sleep 1000;; *) echo "Error: No such image" >&2; exit 1;; esac')
    return tool("preflight", ["--compare-image", "img:1"], tmp, env=env, sigint_after=2.0)


@case("c-ctrl-c-compare-image-inspect", "c", says(rc=(1, 2, 130, -2)))
def _c5(tmp: Path) -> Got:
    env = fake_docker(tmp, "sleep 1000")
    return tool("preflight", ["--compare-image", "img:1"], tmp, env=env, sigint_after=1.5)


@case("c-ctrl-c-preflight-checks", "c", says(rc=(1, 2, 130, -2)))
def _c6(tmp: Path) -> Got:
    env = fake_docker(tmp, "sleep 1000")
    return tool("preflight", ["--image", "img", "--model", "/m", "--skip-smoke"], tmp, env=env, sigint_after=1.5)


# ==== (d) silent wrong answers =======================================================================================

ARG_CASES: dict[str, tuple[str, str | None, str | None]] = {
    # name: (text, backend (None: unknown), dynamic batching (None: unknown))
    "commented-line": ("python train.py \\\n  --hf-checkpoint /m\n# --train-backend fsdp\n", "megatron", "off"),
    "comment-after": ("python train.py --hf-checkpoint /m  # --use-dynamic-batch-size\n", "megatron", "off"),
    "var": ("python train.py --train-backend $BACKEND\n", None, "off"),
    "braced-var": ("python train.py --train-backend ${BACKEND:-fsdp}\n", None, "off"),
    "cmd-subst": ("python train.py --train-backend $(cat b)\n", None, "off"),
    "json-string": ('{"cmd": "--train-backend fsdp"}\n', None, None),
    "single-quoted": ("python train.py '--train-backend' 'fsdp'\n", "fsdp", "off"),
    "double-quoted": ('python train.py "--train-backend" "fsdp"\n', "fsdp", "off"),
    "equals": ("python train.py --train-backend=fsdp\n", "fsdp", "off"),
    "continuation": ("python train.py \\\n   --train-backend \\\n   fsdp \\\n   --use-dynamic-batch-size\n", "fsdp", "on"),
    "crlf": ("python train.py --train-backend fsdp\r\n", "fsdp", "off"),
    "last-wins": ("python t.py --train-backend fsdp --train-backend megatron\n", "megatron", "off"),
    "not-a-choice": ("python t.py --train-backend torch\n", None, "off"),
    "no-value": ("python t.py --train-backend\n", None, "off"),
    "heredoc": ("cat > args <<'EOF'\n--train-backend fsdp\nEOF\npython t.py --hf-checkpoint /m\n", "megatron", "off"),
    "echoed": ("echo 'run with --train-backend fsdp'\npython t.py --hf-checkpoint /m\n", "megatron", "off"),
    "escaped-hash": ("python t.py --hf-checkpoint /m \\#--use-dynamic-batch-size\n", "megatron", "off"),
    "hash-in-word": ("python t.py --x=a#b --use-dynamic-batch-size\n", "megatron", "on"),
    "base-page": ("base: first-grpo\nargs:\n  - --hf-checkpoint\n  - /m\n", None, None),
    "base-with-own": ("base: first-grpo\nargs:\n  - --train-backend\n  - fsdp\n", "fsdp", None),
    "runfile-quoted": ('args:\n  - "--train-backend"\n  - "fsdp"\n', "fsdp", "off"),
    "runfile-comment": ("args:\n  - --hf-checkpoint\n  - /m\n  # - --train-backend\n  # - fsdp\n", "megatron", "off"),
    "runfile-flow": ('args: ["--train-backend", "fsdp"]\n', "fsdp", "off"),
    "nul-in-value": ("python t.py --train-backend fs\x00dp\n", None, "off"),
    "ansi-in-value": ("python t.py --train-backend \x1b[31mfsdp\n", None, "off"),
    "unicode-dash": ("python t.py \u2014train-backend fsdp --hf-checkpoint /m\n", "megatron", "off"),
    "array": ("ARGS=(\n  --train-backend fsdp\n  --use-dynamic-batch-size\n)\npython t.py \"${ARGS[@]}\"\n", "fsdp", "on"),
}


def settings_py(text: str, tmp: Path) -> Got:
    code = f"""
import json, sys
sys.path.insert(0, {str(TOOLS)!r})
import read_run as rr
text = {text!r}
s = rr.settings_of_args(text, 'run') if rr.passes_arguments(text) else 'REFUSED'
print(json.dumps(s))
"""
    return driver(code, tmp)


def settings_js(text: str, tmp: Path) -> Got:
    rules = tmp / "rules.json"
    code = f"""
import json
from pathlib import Path
from miles101 import doctor_rules
Path({str(rules)!r}).write_text(json.dumps(doctor_rules.rules(Path({str(ROOT)!r}))))
"""
    driver(code, tmp)
    js = tmp / "a.mjs"
    js.write_text(textwrap.dedent(f"""
        import {{ readFileSync }} from "node:fs";
        import {{ pathToFileURL }} from "node:url";
        const m = await import(pathToFileURL({json.dumps(str(CORE))}).href);
        const R = m.compile(JSON.parse(readFileSync({json.dumps(str(rules))}, "utf-8")));
        const text = JSON.parse(readFileSync(0, "utf-8"));
        const s = m.passesArguments(text) ? m.settingsOfArgs(R, text, "run") : "REFUSED";
        process.stdout.write(JSON.stringify(s) + "\\n");
    """))
    return sh(["node", str(js)], tmp, stdin=json.dumps(text).encode())


def settings_judge(backend: str | None, dyn: str | None, side: str) -> Callable[[Got], tuple[str, str]]:
    def judge(g: Got) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        s = last_json(g)
        if s == "REFUSED":
            return ("good", "") if backend is None and dyn is None else ("silent", "refused a text with flags")
        if not isinstance(s, dict):
            return "traceback", g.text[-300:]
        got = (s.get("backend"), s.get("dynamic_batch"))
        if got != (backend, dyn):
            return "silent", f"{side}: got {got}, want {(backend, dyn)}; unknown {s.get('unknown')}"
        for v in (s.get("unknown") or {}).values():
            if any(c in str(v) for c in (ESC, "\x00")):
                return "weak", f"raw control character in {v!r}"
        return "good", ""
    return judge


for _name, (_text, _be, _dy) in ARG_CASES.items():
    def _sp(tmp: Path, text=_text) -> Got:
        return settings_py(text, tmp)
    case(f"d-settings-py-{_name}", "d", settings_judge(_be, _dy, "py"))(_sp)
    if _name in ("commented-line", "var", "json-string", "base-page", "heredoc", "runfile-flow", "nul-in-value",
                 "array", "escaped-hash", "hash-in-word"):
        def _sj(tmp: Path, text=_text) -> Got:
            return settings_js(text, tmp)
        case(f"d-settings-js-{_name}", "d", settings_judge(_be, _dy, "js"))(_sj)


for _name, _text in {"no-flag": "hello world\n", "empty": "", "only-comment": "# --train-backend fsdp\n",
                     "single-dash": "python t.py -v\n"}.items():
    def _nf(tmp: Path, text=_text) -> Got:
        run = tmp / "run.sh"
        run.write_text(text)
        return tool("read_run", [str(log_file(tmp, "Timer train start\n" + STEP)), "--run", str(run), "--diagnose"], tmp)
    case(f"d-no-flag-{_name}", "d", refused("no --flag"))(_nf)


@case("d-cli-base-beside", "d", says("fsdp", rc=(0,)))
def _d1(tmp: Path) -> Got:
    (tmp / "parent.yaml").write_text("args:\n  - --train-backend\n  - fsdp\n")
    run = tmp / "child.yaml"
    run.write_text("base: parent\nargs:\n  - --hf-checkpoint\n  - /m\n")
    log = log_file(tmp, "Timer train start\n" + STEP + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    return tool("read_run", [str(log), "--run", str(run), "--diagnose", "--json"], tmp)


@case("d-cli-base-loop", "d", says(rc=(0,), absent=('"backend": "megatron"',)))
def _d2(tmp: Path) -> Got:
    (tmp / "a.yaml").write_text("base: b\nargs:\n  - --hf-checkpoint\n  - /m\n")
    (tmp / "b.yaml").write_text("base: a\nargs:\n  - --hf-checkpoint\n  - /m\n")
    log = log_file(tmp, "Timer train start\n" + STEP)
    return tool("read_run", [str(log), "--run", str(tmp / "a.yaml"), "--diagnose", "--json"], tmp)


@case("d-cli-base-traversal", "d", says(rc=(0,), absent=('"backend": "fsdp"',)))
def _d3(tmp: Path) -> Got:
    (tmp / "secret.yaml").write_text("args:\n  - --train-backend\n  - fsdp\n")
    (tmp / "sub").mkdir()
    run = tmp / "sub" / "r.yaml"
    run.write_text("base: ../secret\nargs:\n  - --hf-checkpoint\n  - /m\n")
    return tool("read_run", [str(log_file(tmp, "Timer train start\n" + STEP)), "--run", str(run), "--diagnose", "--json"], tmp)


RAY_VALUES = {  # value: Ray accepts it (ConvertValue<float>, then (0, 1])
    "0.9_8": False, "\uff10.\uff19\uff18": False, "0.98 ": False, " 0.98": True, "1e-320": False, "0": False,
    "1": True, "inf": False, "nan": False, "0x0.8p0": False, ".98": True, "98.": False, "+0.98": True,
    "-0.5": False, "0.98e": False, "0.98e+": False, "1e-38": False, "2": False, "0.98f": False, "0,98": False,
    "9.8e-1": True, "0.98\t": False, "1.00000001": True, "": False, "true": False, "0.98\x00": False,
}


def ray_case(value: str, tmp: Path) -> Got:
    code = f"""
import json, sys
sys.path.insert(0, {str(TOOLS)!r})
import preflight
print(json.dumps(preflight.ray_setting_problem('RAY_memory_usage_threshold', {value!r}) is None))
"""
    return driver(code, tmp)


for _i, (_v, _ok) in enumerate(RAY_VALUES.items()):
    def _rv(tmp: Path, v=_v) -> Got:
        return ray_case(v, tmp)
    case(f"d-ray-threshold-{_i}-{_v.strip() or 'blank'!r}", "d", json_is(_ok))(_rv)


SESSIONS = {  # session text: the threshold Ray starts with (None: Ray's default)
    "plain": ("export RAY_memory_usage_threshold=0.98\nray start --head\n", "0.98"),
    "after-ray": ("ray start --head\nexport RAY_memory_usage_threshold=0.98\n", None),
    "unset": ("export RAY_memory_usage_threshold=0.98\nunset RAY_memory_usage_threshold\nray start --head\n", None),
    "same-line": ("export RAY_memory_usage_threshold=0.98; ray start --head\n", "0.98"),
    "prefix": ("RAY_memory_usage_threshold=0.5 ray start --head\n", "0.5"),
    "commented": ("# export RAY_memory_usage_threshold=0.98\nray start --head\n", None),
    "quoted": ('export RAY_memory_usage_threshold="0.98"\nray start --head\n', "0.98"),
    "twice": ("export RAY_memory_usage_threshold=0.5\nexport RAY_memory_usage_threshold=0.98\nray start --head\n", "0.98"),
    "indented": ("  export RAY_memory_usage_threshold=0.98\n    ray start --head\n", "0.98"),
    "and-chain": ("export RAY_memory_usage_threshold=0.7 && ray start --head\n", "0.7"),
    "comment-after": ("export RAY_memory_usage_threshold=0.98  # the book's value\nray start --head\n", "0.98"),
    "quoted-semicolon": ("export RAY_memory_usage_threshold='0.9;8'\nray start --head\n", "0.9;8"),
    "export-list": ("export A=1 RAY_memory_usage_threshold=0.6 B=2\nray start --head\n", "0.6"),
}


def session_case(text: str, tmp: Path) -> Got:
    s = tmp / "session.sh"
    s.write_text(text)
    code = f"""
import json, sys
sys.path.insert(0, {str(TOOLS)!r})
import preflight
t = open({str(s)!r}).read()
print(json.dumps(preflight.session_exports(t).get('RAY_memory_usage_threshold')))
"""
    return driver(code, tmp)


for _name, (_text, _want) in SESSIONS.items():
    def _se(tmp: Path, text=_text) -> Got:
        return session_case(text, tmp)
    case(f"d-session-{_name}", "d", json_is(_want))(_se)


SIG_CHANGES = {"type": ("type", "int"), "action": ("action", "store_true"), "nargs": ("nargs", "+"),
               "const": ("const", "1"), "required": ("required", True), "choices": ("choices", ["a", "b"])}
for _name, (_key, _val) in SIG_CHANGES.items():
    def _sg(tmp: Path, key=_key, val=_val) -> Got:
        code = f"""
import json, copy, sys
sys.path.insert(0, {str(TOOLS)!r})
import miles_tree as t
from miles101.tools.miles_tree import BOOK
recs = json.load(open({str(ROOT / 'capture' / 'miles' / 'flags.json')!r}))
metrics = json.load(open({str(ROOT / 'capture' / 'miles' / 'metrics.json')!r}))
flags = recs['flags']
for r in flags:
    if r['name'] == '--lr':
        r[{key!r}] = {val!r}
side = {{'commit': 'x', 'date': '2026-01-01', 'read_from': 'image', 'flags': t.flag_table(flags),
        'metrics': t.metric_table(metrics['metrics']), 'layout': t.flag_layout(flags, lines=recs.get('lines'))}}
rep = t.compare(t.BOOK, side)
print(json.dumps(rep['exit']))
"""
        return driver(code, tmp)
    case(f"d-signature-lr-{_name}", "d", json_is(3))(_sg)


for _name, (_key, _val) in SIG_CHANGES.items():
    def _dg(tmp: Path, key=_key, val=_val) -> Got:
        def change(d: dict) -> None:
            for r in d["flags"]:
                if r["name"] == "--lr":
                    r[key] = val
        other = shadow_root(tmp, flags_doc(change))
        return driver(GATE.format(root=str(other), prev=str(ROOT / "capture" / "miles")), tmp)

    def _judge_dg(g: Got) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        n = next((int(ln.split()[1]) for ln in g.out.splitlines() if ln.startswith("GATE ")), 0)
        return ("good", "") if n > 0 and "runs as the book's" not in g.out else ("silent", g.out[-300:])
    case(f"d-drift-gate-lr-{_name}", "d", _judge_dg)(_dg)


def check_root(other: Path, tmp: Path) -> Got:
    return sh([PY, str(ROOT / "capture" / "run.py"), "--check", "--root", str(other)], tmp)


@case("d-check-nul-in-run-value", "d", refused("first-grpo"))
def _d4(tmp: Path) -> Got:
    other = copy_root(tmp)
    p = other / "capture" / "runs" / "first-grpo.yaml"
    p.write_text(p.read_text().replace("--hf-checkpoint\n  - ", "--hf-checkpoint\n  - \\0", 1).replace(
        "/root/models", "/root/mo\x00dels", 1))
    return check_root(other, tmp)


@case("d-check-esc-in-run-value", "d", refused("first-grpo"))
def _d5(tmp: Path) -> Got:
    other = copy_root(tmp)
    p = other / "capture" / "runs" / "first-grpo.yaml"
    text = p.read_text()
    i = text.index("/root/")
    p.write_text(text[:i] + "/root/\x1b[2J" + text[i + 6:])
    return check_root(other, tmp)


@case("d-check-time-product-off", "d", refused("4-3-roll-out-in-fp8"))
def _d6(tmp: Path) -> Got:
    other = copy_root(tmp)
    p = other / "sections" / "4-3-roll-out-in-fp8.md"
    p.write_text(p.read_text().replace("`slime-gb10.step-time` ≈ 14 min", "`slime-gb10.step-time` ≈ 140 min", 1))
    return check_root(other, tmp)


@case("d-check-time-product-hours", "d", refused("3-4-train-a-moe-model"))
def _d7(tmp: Path) -> Got:
    other = copy_root(tmp)
    p = other / "sections" / "3-4-train-a-moe-model.md"
    p.write_text(p.read_text().replace("`slime-gb10.step-time` ≈ 7 min", "`slime-gb10.step-time` ≈ 7 h", 1))
    return check_root(other, tmp)


# ==== (e) weak messages ==============================================================================================

EVIL = "x\x1b[2J\x1b[31mFAIL: forged\u202e\nline"


@case("e-read-run-log-name-escapes", "e", refused("cannot read"))
def _e1(tmp: Path) -> Got:
    return tool("read_run", [str(tmp / EVIL)], tmp)


@case("e-read-run-run-name-escapes", "e", refused("cannot read"))
def _e2(tmp: Path) -> Got:
    return tool("read_run", [str(log_file(tmp)), "--run", str(tmp / EVIL)], tmp)


@case("e-read-run-diagnose-log-name-escapes-empty", "e", refused("no text"))
def _e3(tmp: Path) -> Got:
    p = tmp / EVIL.replace("\n", "")
    p.write_text("")
    return tool("read_run", [str(p), "--diagnose"], tmp)


@case("e-read-run-no-steps-name-escapes", "e", refused("no miles step"))
def _e4(tmp: Path) -> Got:
    p = tmp / EVIL.replace("\n", "")
    p.write_text("hello\n")
    return tool("read_run", [str(p)], tmp)


@case("e-read-run-malformed-step-escapes", "e", refused("does not parse"))
def _e5(tmp: Path) -> Got:
    return tool("read_run", [str(log_file(tmp, "step 0: {'a': \x1b[2J\u202e}\n"))], tmp)


@case("e-watchdog-log-name-escapes", "e", refused("fifo", rc_ok=(1, 2, 3)))
def _e6(tmp: Path) -> Got:
    p = fifo(tmp, EVIL.replace("\n", "").replace("/", ""))
    return watchdog(tmp, p, "--from-start")


@case("e-watchdog-engine-url-escapes", "e", refused("engine", rc_ok=(2,)))
def _e7(tmp: Path) -> Got:
    return watchdog(tmp, log_file(tmp, ""), "--engine", "http://x\x1b[2J:1/")


@case("e-preflight-session-name-escapes", "e", refused("session"))
def _e8(tmp: Path) -> Got:
    env = fake_docker(tmp, "exit 1")
    return tool("preflight", ["--image", "img", "--model", "/m", "--session", str(tmp / EVIL), "--skip-smoke"],
                tmp, env=env)


@case("e-preflight-mount-escapes", "e", refused("mount"))
def _e9(tmp: Path) -> Got:
    return tool("preflight", ["--image", "img", "--model", "/m", "--mount", "a\x1b[2J"], tmp)


@case("e-compare-image-name-escapes", "e", refused("not an image name"))
def _e10(tmp: Path) -> Got:
    return compare_image(tmp, "echo 'Error: No such image' >&2; exit 1", image="img\x1b[2J\u202e:1")


@case("e-compare-image-stderr-ansi", "e", refused("\\x1b"))
def _e11(tmp: Path) -> Got:
    return compare_image(tmp, "printf 'Error: \\033[2Jgone\\n' >&2; exit 1")


@case("e-compare-image-quotes-docker", "e", refused("manifest unknown"))
def _e12(tmp: Path) -> Got:
    return compare_image(tmp, "echo 'Error response from daemon: manifest unknown' >&2; exit 1")


@case("e-explain-key-escapes", "e", refused("no "))
def _e13(tmp: Path) -> Got:
    return sh([PY, str(ROOT / "capture" / "run.py"), "explain", "flag:--x" + EVIL], tmp)


@case("e-explain-kind-escapes", "e", refused("kind"))
def _e14(tmp: Path) -> Got:
    return sh([PY, str(ROOT / "capture" / "run.py"), "explain", "\x1b[2Jbogus:key"], tmp)


@case("e-read-run-against-name-escapes", "e", refused("series"))
def _e15(tmp: Path) -> Got:
    return tool("read_run", [str(log_file(tmp)), "--compare", "--against", "no\x1b[2Jsuch"], tmp)


@case("e-preflight-settings-not-json-escapes", "e", refused("not json"))
def _e16(tmp: Path) -> Got:
    s = tmp / "s.json"
    s.write_text("{\x1b[2J")
    return tool("preflight", ["--settings", str(s)], tmp)


@case("e-preflight-env-escapes", "e", refused("env"))
def _e17(tmp: Path) -> Got:
    return tool("preflight", ["--image", "img", "--model", "/m", "--env", "\x1b[2J"], tmp)


@case("e-read-run-at-escapes", "e", refused("--at"))
def _e18(tmp: Path) -> Got:
    text = "".join(f"step {i}: {{'perf/step_time': 10.0}}\n" for i in range(3))
    return tool("read_run", [str(log_file(tmp, text)), "--compare", "--against", "x", "--at", "1,\x1b[2J"], tmp)


FORGED = {"rlo": "\u202e", "bell": "\x07", "cr-forge": "\rFAIL: forged ", "osc": "\x1b]0;title\x07", "csi": "\x1b[2J",
          "nul": "\x00", "backspace": "\x08\x08\x08", "del": "\x7f"}
for _name, _bad in FORGED.items():
    def _fd(tmp: Path, bad=_bad) -> Got:
        text = ("Timer train start\n" + STEP + f"error {bad}: the following arguments are required: "
                f"--rollout-batch-size {bad}tail\n")
        (tmp / "log.txt").write_bytes(text.encode("utf-8"))
        return tool("read_run", [str(tmp / "log.txt"), "--diagnose"], tmp)

    def _judge(g: Got, bad=_bad) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        raw = [c for c in bad if not c.isprintable() and c in g.out]
        if raw:
            return "weak", f"raw {raw!r} in the diagnosis"
        return ("good", "") if "rollout-batch-size" in g.out else ("silent", g.text[-300:])
    case(f"e-diagnose-log-line-{_name}", "e", _judge)(_fd)


for _name, _bad in FORGED.items():
    def _fs(tmp: Path, bad=_bad) -> Got:
        text = ("Timer train start\n" + STEP + f"First rollout sample: text_preview=Q {bad} A, label=7{bad}, "
                f"reward_summary=1.0{bad}\n")
        (tmp / "log.txt").write_bytes(text.encode("utf-8"))
        return tool("read_run", [str(tmp / "log.txt"), "--samples"], tmp)

    def _judge_s(g: Got, bad=_bad) -> tuple[str, str]:
        b = base_class(g)
        if b:
            return b, g.text[-300:]
        raw = [c for c in bad if not c.isprintable() and c in g.out]
        return ("weak", f"raw {raw!r} in the samples") if raw else ("good", "")
    case(f"e-samples-{_name}", "e", _judge_s)(_fs)


@case("e-watchdog-log-becomes-directory", "e", says("directory", rc=(1, 2, 3), absent=("permission", "chmod")))
def _e19(tmp: Path) -> Got:
    return watchdog_log_replaced(tmp, "os.mkdir")


@case("e-preflight-settings-args-control", "e", says(rc=(0, 1, 2, 3)))
def _e20(tmp: Path) -> Got:
    s = tmp / "s.json"
    s.write_text(json.dumps({"image": "img", "args": ["--hf-checkpoint", "/m\x1b[2J\u202e"], "env": {"A\x1b": "1"}}))
    env = fake_docker(tmp, "exit 1")
    return tool("preflight", ["--settings", str(s), "--skip-smoke"], tmp, env=env)


@case("e-preflight-settings-args-numbers", "e", says(rc=(0, 1, 2, 3)))
def _e21(tmp: Path) -> Got:
    s = tmp / "s.json"
    s.write_text('{"image": "img", "args": ["--hf-checkpoint", 1e999, null, true, {"a": 1}], "env": {"X": 5}}')
    env = fake_docker(tmp, "exit 1")
    return tool("preflight", ["--settings", str(s), "--skip-smoke"], tmp, env=env)


# ---- running ---------------------------------------------------------------------------------------------------------

def run_case(c: Case) -> tuple[str, str]:
    tmp = Path(tempfile.mkdtemp(prefix="h60-"))
    try:
        try:
            g = c.run(tmp)
        except Exception as e:  # noqa: BLE001 - the harness's own failure
            return "harness", f"{type(e).__name__}: {e}"
        return c.judge(g)
    finally:
        for p in tmp.rglob("*"):
            try:
                if p.is_dir() and not p.is_symlink():
                    p.chmod(p.stat().st_mode | stat.S_IRWXU)
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    only = argv[0] if argv else ""
    counts: Counter[str] = Counter()
    start = time.time()
    load = os.getloadavg()
    for c in CASES:
        if only and only not in c.id:
            continue
        t = time.time()
        cls, why = run_case(c)
        counts[cls] += 1
        print(f"{cls:10} {time.time() - t:5.1f}s {c.id}" + (f"  -- {why[:300]!r}" if cls != "good" else ""), flush=True)
    print(f"\n{sum(counts.values())} cases in {time.time() - start:.0f} s, load {load[0]:.2f} -> "
          f"{os.getloadavg()[0]:.2f}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
