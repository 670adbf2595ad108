#!/usr/bin/env python3
"""Can this host run Miles on its GPU? One verdict per check, each failure with its fix.

    python3 preflight.py --image IMAGE [--mount HOST:CONTAINER ...] [--model PATH] [--data PATH]
                         [--attention-backend NAME] [--env KEY=VALUE ...] [--settings FILE.json]
                         [--skip-smoke] [--json]
    python3 preflight.py --compare-image IMAGE [--all] [--json]   # the Miles in IMAGE against the book's (miles_tree.py)

Standalone: Python 3.9+ (--compare-image: 3.10+, to parse Miles's source) and its standard library; the
two-rollout train step also needs `watchdog.py` beside this file (it counts the finished steps). Section
1.1 of Miles 101 serves this very file, and the book's lab imports it for `capture/run.py preflight <run>`,
passing the run file's settings in; the lab's recorder launches runs with the procedure defined here.

The checks, in order (a failed prerequisite skips the checks that need it): host arch · docker ·
image (present, its arch) · leftovers (the lab only: a recorder's container still running) · gpu ·
driver and CUDA · compute capability · kernels (the image's sgl-kernel and flashinfer carry code the
GPU runs) · ray memory monitor · memory (pool) · shared memory (the host's /dev/shm, which the
container shares: its size, and whether it lies in the unified pool) · disk · mounts, model and
data · generation (one prompt through SGLang in the image) · train step (the run's own procedure cut to two rollouts; only
when the settings carry the run's arguments). Every check has a timeout, so a hung docker or
driver fails its check instead of the preflight.

On a GB10 the GPU has no memory of its own: nvidia-smi answers "[N/A]" for memory.total/used/free
(NVIDIA's DGX Spark known issues). The probes read such an answer as "not reported" (None), never as
a value; the memory check reads the pool from /proc/meminfo.

Exit status: 0 every check passed (warnings allowed), 1 a check failed, 2 bad settings. With
--compare-image: 0 same, 1 differs where no page looks, 4 runs as the book's, 3 differs where pages look,
2 could not compare (compare_image()).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

# What the GB10 is (compute capability 12.1: sm_121). CUDA 12.9 is the first toolkit that builds for it.
GB10_CC = (12, 1)
MIN_CUDA = (12, 9)
#: The oldest Python that parses Miles's own source (its setup.py: python_requires=">=3.10"; it uses `match`).
#: An older one would skip those files unread, so --compare-image refuses it instead of a wrong verdict.
MILES_PYTHON = (3, 10)
# Ray's memory monitor, read by the raylet from its environment (src/ray/common/ray_config_def.h).
RAY_MONITOR = {"RAY_memory_usage_threshold": "0.95", "RAY_memory_monitor_refresh_ms": "250"}
#: The reader's session file (section 1.1, step 3): the shell that runs its `ray start` line has its
#: `export` lines above that line, so the raylet starts with them (section 2.3 adds one there).
SESSION_FILE = "~/miles101/session.sh"
KERNEL_PACKAGES = ("sgl_kernel", "flashinfer")
SMOKE_MARK = "miles101-preflight generated:"
# Where the book says what to do when a check fails: a section of 6.4 ("Pick an image"), named in
# words, since the book has no fixed web address (tests/lab/test_preflight_sections.py holds each title).
GUIDE = "6.4"
BUILD_GB10 = "Build an image for the GB10"
MISSING = "A mount, the model or the data is missing"
IMAGE = "The image is missing or built for another CPU"
SHM_MISSING = "The host has no /dev/shm"

# ---- the launch procedure (section 1.1): what runs in the image, and the container around it ----

# The flags Miles's install guide starts its image with (docs/getting-started/installation.md:17-21,
# docs/getting-started/quick-start.md:35-42): all GPUs, host IPC, unlimited locked memory, a 64 MiB
# stack, host networking (the watchdog reaches the engine's port on 127.0.0.1). The guide also passes
# --shm-size=32g; with --ipc=host Docker gives the container the host's /dev/shm and never reads that
# size (moby b985e2313a, daemon/container_operations_unix.go:242-246 sets ShmPath = "/dev/shm";
# daemon/container/container_unix.go:172-191 bind-mounts it; daemon/oci_linux.go:498-514 then drops
# the sized default mount it overrides), so it is left out: the host's tmpfs is what counts (check_shm).
RUN_FLAGS = ["--gpus", "all", "--ipc=host", "--ulimit", "memlock=-1",
             "--ulimit", "stack=67108864", "--network=host"]
SHM = "/dev/shm"  # with --ipc=host, the container's /dev/shm is this directory of the host
WORKDIR = "/root/miles"  # where the image clones Miles (docker/Dockerfile:238)
LABEL = "miles101.recorder"  # every container the lab's recorder starts carries LABEL=<run id>
RAY_DASHBOARD = "http://127.0.0.1:8265"
LOG_DIR = "/root/logs"  # the reader's logs: /root/logs/<submission id>.log
SEED_FLAGS = ("--seed", "--rollout-seed")


def option_values(args: list[str]) -> dict[str, list[str]]:
    """Each option's value tokens (last occurrence), without any checking."""
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        opt, eq, inline = args[i].partition("=")
        if opt.startswith("--"):
            vals = [inline] if eq else []
            j = i + 1
            while not eq and j < len(args) and not args[j].startswith("--"):
                vals.append(args[j])
                j += 1
            out[opt] = vals
            i = j if not eq else i + 1
        else:
            i += 1
    return out


def arg_groups(args: list[Any]) -> list[tuple[str, list[str]]]:
    """The arguments as (flag token, its value tokens), in order; a leading value gets the flag ''."""
    groups: list[tuple[str, list[str]]] = []
    for arg in map(str, args):
        if arg.startswith("--"):
            groups.append((arg, []))  # `--x=v` stays one token; _flag() reads its name
        elif groups:
            groups[-1][1].append(arg)
        else:
            groups.append(("", [arg]))
    return groups


def _flag(token: str) -> str:
    return token.partition("=")[0]


def submission_id(run: dict, seed: int | str | None = None) -> str:
    """The Ray job's name: the run id; with several seeds, the run id and the seed."""
    seeds = run.get("seeds") or []
    return f"{run['id']}-{seed}" if len(seeds) > 1 and seed is not None else str(run["id"])


def log_path(run: dict, seed: int | str | None = None) -> str:
    """Where the reader's launch keeps the driver log: /root/logs/<submission id>.log."""
    return f"{LOG_DIR}/{submission_id(run, seed)}.log"


def program(run: dict) -> list[str]:
    """The entry with a relative script made absolute under /root/miles (a Ray job does not run there)."""
    return [a if a.startswith("/") or not a.endswith(".py") else f"{WORKDIR}/{a}" for a in run["entry"]]


def added_seed_args(run: dict, seed: int | str | None) -> list[str]:
    """The seed flags a launch adds to the args: --seed S for a run of several seeds, else none.

    A run of one seed writes both seeds in its args (the check in capture/lab/runfile.py insists), so
    what a page shows is all the recorder passes.
    """
    if seed is None or len(run.get("seeds") or []) < 2:
        return []
    given = {_flag(f) for f, _ in arg_groups(run["args"])}
    return [] if "--seed" in given else ["--seed", str(seed)]


def ray_start(run: dict) -> list[str]:
    """Section 1.1's `ray start`, with the GPUs the run asks for (--num-gpus-per-node, else 1)."""
    gpus = "1"
    for flag, values in arg_groups(run["args"]):
        if flag == "--num-gpus-per-node" and values:
            gpus = values[-1]
    return ["ray", "start", "--head", "--node-ip-address", "127.0.0.1", "--num-gpus", gpus, "--disable-usage-stats"]


def job_env(run: dict) -> dict[str, str]:
    """The job's environment: the run file's, plus unbuffered Python so the log streams."""
    return {**(run.get("env") or {}), "PYTHONUNBUFFERED": "1"}


def job_submit(run: dict, seed: int | str | None) -> list[str]:
    """The `ray job submit` argv of one seed of the run, up to and including the program."""
    return ["ray", "job", "submit", "--address", RAY_DASHBOARD, "--submission-id", submission_id(run, seed),
            "--runtime-env-json", json.dumps({"env_vars": job_env(run)}), "--", *program(run)]


def miles_args(run: dict, seed: int | str | None) -> list[str]:
    """The arguments after the program: the run file's, then the seed flag a several-seed run adds."""
    return [*run["args"], *added_seed_args(run, seed)]


#: The name earlier callers used for the seed flags a launch adds.
seed_args = added_seed_args


def procedure(run: dict[str, Any], seed: int | None) -> list[list[str]]:
    """The commands run inside the container, in order: the one definition of the launch (the pages
    render it through miles101.runfiles, the recorder runs it, and a reader's preflight runs it).

    launch: ray-job (the default) is section 1.1's procedure, which follows Miles's launcher
    (miles/utils/external_utils/command_utils.py:183-188, 229-238): start Ray with the run's GPUs,
    then submit the entry as a Ray job that streams its log and exits non-zero if the job failed.
    launch: direct runs the entry as the container's command.
    """
    args = miles_args(run, seed)
    if run.get("launch", "ray-job") == "direct":
        return [[*run["entry"], *args]]
    return [ray_start(run), [*job_submit(run, seed), *args]]


def run_command(run: dict[str, Any], seed: int | None, name: str, label: str | None = None) -> list[str]:
    """The exact `docker run` argv of one seed of a run: the procedure in a container named `name`."""
    cmd = ["docker", "run", "--name", name, "--label", f"{LABEL}={label or run['id']}", *RUN_FLAGS, "-w", WORKDIR]
    for key in sorted(run.get("env") or {}):
        cmd += ["-e", f"{key}={run['env'][key]}"]
    for m in run.get("mounts") or []:
        cmd += ["-v", f"{os.path.expanduser(m['host'])}:{m['container']}{':ro' if m.get('readonly') else ''}"]
    steps = procedure(run, seed)
    if len(steps) == 1:
        return cmd + [run["image"], *steps[0]]
    # A shell runs the steps, as the reader's shell in the container does (the image's entrypoint stays).
    return cmd + [run["image"], "bash", "-c", " && ".join(shlex.join(s) for s in steps)]


#: The exit status `docker` gives a call that did not answer in time (as timeout(1) does).
NO_ANSWER = 124


def docker(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run one docker verb; never raises on a non-zero exit. One that does not answer within `timeout` seconds
    exits NO_ANSWER with a line that names it."""
    try:
        return subprocess.run(["docker", *args], capture_output=True, text=True, errors="replace", timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(["docker", *args], NO_ANSWER, "", f"`docker {' '.join(args[:2])}` did not "
                                           f"answer within {timeout:g} s (a hung daemon: `sudo systemctl restart docker`)")
    except OSError as e:
        return subprocess.CompletedProcess(["docker", *args], 127, "", str(e))


def image_digest(image: str) -> tuple[str | None, str]:
    """(repo digest, else image id; or None) and docker's error text."""
    res = docker("image", "inspect", "--format", "{{.Id}} {{join .RepoDigests \",\"}}", image, timeout=30)
    if res.returncode != 0:
        return None, (res.stderr or res.stdout).strip()
    image_id, _, digests = res.stdout.strip().partition(" ")
    return (digests.split(",")[0] if digests else image_id), ""


def leftovers() -> tuple[list[str], str]:
    """Running containers the lab's recorder started (by label), and docker's error text if it cannot list them."""
    res = docker("ps", "--filter", f"label={LABEL}", "--format", "{{.Names}}", timeout=30)
    if res.returncode != 0:
        return [], (res.stderr or res.stdout).strip()[:160]
    return [n for n in res.stdout.split() if n], ""


# ---- host probes: nvidia-smi and /proc ---------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SHAPES = {"driver_version": re.compile(r"[0-9]+(\.[0-9]+)+"), "compute_cap": re.compile(r"[0-9]+\.[0-9]+"),
          "memory.total": re.compile(r"[0-9.]+"), "memory.used": re.compile(r"[0-9.]+"),
          "memory.free": re.compile(r"[0-9.]+"), "temperature.gpu": re.compile(r"[0-9.]+"),
          "name": re.compile(r"[\w][\w .()/-]*")}
NOT_REPORTED = re.compile(r"^\[?\s*(n/?a|not supported|unknown error|insufficient permissions|gpu is lost)\s*\]?$", re.I)


def run_probe(cmd: list[str], timeout: float = 20) -> subprocess.CompletedProcess[str]:
    """Run a probe; a missing program is exit 127, a hang or an OS error exit 124, never an exception."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except FileNotFoundError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, 124, "", f"{type(e).__name__}: {e}")


def reported(text: str | None) -> str | None:
    """A field as nvidia-smi printed it, or None for '[N/A]', 'Not Supported' and the like."""
    text = (text or "").strip()
    return None if not text or NOT_REPORTED.match(text) else text


def query_gpu(fields: list[str], timeout: float = 20) -> list[dict[str, str | None]]:
    """One dict per GPU from `nvidia-smi --query-gpu`; a field it does not report is None. [] when it cannot run."""
    out = run_probe(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"], timeout).stdout
    rows = []
    for line in ANSI.sub("", out).splitlines():
        parts = [p.strip() for p in line.split(",")]
        row = {f: reported(p) for f, p in zip(fields, parts)}
        if len(parts) == len(fields) and any(row.values()) and all(_plausible(f, v) for f, v in row.items()):
            rows.append(row)
    return rows


def _plausible(field: str, value: str | None) -> bool:
    """A field's value has its field's shape (a garbled line is not a GPU)."""
    shape = SHAPES.get(field)
    return value is None or shape is None or bool(shape.fullmatch(value))


def cuda_version(timeout: float = 20) -> tuple[str | None, str | None]:
    """(driver version, the CUDA version the driver supports) from nvidia-smi's header."""
    text = run_probe(["nvidia-smi"], timeout).stdout
    driver = re.search(r"Driver Version:\s*([0-9.]+)", text)
    cuda = re.search(r"CUDA Version:\s*([0-9.]+)", text)
    return (driver[1] if driver else None), (cuda[1] if cuda else None)


def proc_field(path: str, key: str) -> str | None:
    """One `key: value` field of a /proc file, or None."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else None


def meminfo_gib(key: str, path: str = "/proc/meminfo") -> float | None:
    """A /proc/meminfo field (kB) in GiB, or None."""
    raw = proc_field(path, key)
    try:
        return int(raw.split()[0]) / 2**20 if raw else None
    except (ValueError, IndexError):
        return None


CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """Text a probe printed, fit for one line of the table: terminal escapes and control characters become a space;
    any other character a terminal does not print as itself (a bidi override that forges a `FAIL:` line, a
    zero-width one) is written as its Python escape (`\\u202e`)."""
    if not isinstance(text, str):
        return text
    return "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in CONTROL.sub(" ", text))


# ---- the checks -------------------------------------------------------------------------------

@dataclass
class Check:
    """One preflight verdict: pass, warn (go on, but read it), fail (fix it first) or skip."""

    name: str
    ok: bool
    message: str
    fix: str = ""
    status: str = ""
    seconds: float = 0.0

    def __post_init__(self) -> None:
        self.message, self.fix = printable(self.message), printable(self.fix)  # what a probe said stays one line
        self.status = self.status or ("pass" if self.ok else "fail")
        self.ok = self.status != "fail"


def arch_name(machine: str) -> str:
    """Docker's name for a CPU architecture: aarch64 → arm64, x86_64 → amd64."""
    return {"aarch64": "arm64", "x86_64": "amd64"}.get(machine.lower(), machine.lower())


def _cc(text: str) -> tuple[int, int] | None:
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", text or "")
    return (int(m[1]), int(m[2])) if m else None


def see(title: str) -> str:
    """The book's section for a failed check: `see 6.4, <its title>`."""
    return f"see {GUIDE}, {title}"


def check_arch(want: str) -> Check:
    have = arch_name(platform.machine())
    if have == want:
        return Check("host arch", True, f"{platform.machine()} ({have})")
    return Check("host arch", False, f"this host is {platform.machine()} ({have}); the runs are for {want} (the DGX Spark)",
                 f"record on the Spark; or pass --arch {have} to check this host anyway; {see('The host is not arm64')}")


def check_docker() -> Check:
    if shutil.which("docker") is None:
        return Check("docker", False, "docker is not on PATH",
                     f"install Docker and the NVIDIA container toolkit; {see('Docker does not answer')}")
    res = docker("version", "--format", "{{.Server.Version}}", timeout=30)
    if res.returncode != 0:
        if res.returncode == NO_ANSWER:
            return Check("docker", False, res.stderr, f"restart the daemon (`sudo systemctl restart docker`), then check "
                         f"that `docker info` answers; {see('Docker does not answer')}")
        return Check("docker", False, f"docker cannot reach its daemon: {(res.stderr or res.stdout).strip()[:160]}",
                     f"start it (`sudo systemctl start docker`) or add your user to the docker group; "
                     f"{see('Docker does not answer')}")
    return Check("docker", True, f"docker server {res.stdout.strip()}")


def check_image(image: str) -> tuple[Check, str | None]:
    digest, err = image_digest(image)
    if digest is None and "did not answer" in err:
        return Check("image", False, printable(err), f"check that Docker answers (`docker info`), then run the "
                     f"preflight again; {see('Docker does not answer')}"), None
    if digest is None:
        return Check("image", False, f"image {image} is not present ({err[:120]})",
                     f"docker pull {image}; {see(IMAGE)}"), None
    res = docker("image", "inspect", "--format", "{{.Architecture}}", image, timeout=30)
    arch, host = res.stdout.strip(), arch_name(platform.machine())
    if res.returncode == 0 and arch and arch != host:
        return Check("image", False, f"{image} is built for {arch}, this host is {host}",
                     f"docker pull --platform linux/{host} {image}; {see(IMAGE)}"), digest
    return Check("image", True, f"{image} ({arch or 'arch unknown'}) is {digest}"), digest


def check_leftovers() -> Check:
    names, err = leftovers()
    if err:
        return Check("leftovers", True, f"cannot list containers ({err})", status="warn")
    if names:
        return Check("leftovers", False, f"a recorder's container still runs on the GPU: {', '.join(names)}",
                     f"docker stop {' '.join(names)}   (or record with --stop-leftovers); "
                     f"{see('A recording container still runs')}")
    return Check("leftovers", True, "no container of an earlier recording is running")


def check_gpu() -> Check:
    res = run_probe(["nvidia-smi", "-L"], 30)
    gpus = [ln.strip() for ln in res.stdout.splitlines() if ln.startswith("GPU ")]
    if res.returncode == 127:
        return Check("gpu", False, f"nvidia-smi cannot run ({res.stderr.strip()[:120]})",
                     f"install the NVIDIA driver; {see('nvidia-smi sees no GPU')}")
    if res.returncode != 0 or not gpus:
        said = (res.stdout + res.stderr).strip().splitlines()
        return Check("gpu", False, f"nvidia-smi sees no GPU: {said[0][:160] if said else 'no output'}",
                     "check the driver with `nvidia-smi`; reboot after a driver update; "
                     f"{see('nvidia-smi sees no GPU')}")
    return Check("gpu", True, gpus[0])


def check_driver() -> Check:
    driver, cuda = cuda_version()
    if cuda is None:
        return Check("driver and CUDA", False, "nvidia-smi names no CUDA version",
                     f"check the driver with `nvidia-smi`; {see('The driver is too old for the GB10')}")
    have = tuple(int(x) for x in cuda.split(".")[:2])
    if have < MIN_CUDA:
        return Check("driver and CUDA", False, f"driver {driver} supports CUDA {cuda}; sm_121 needs CUDA "
                     f"{MIN_CUDA[0]}.{MIN_CUDA[1]} or newer",
                     f"update the driver (DGX OS updates); {see('The driver is too old for the GB10')}")
    return Check("driver and CUDA", True, f"driver {driver}, CUDA {cuda}")


def check_compute_cap() -> tuple[Check, tuple[int, int] | None]:
    rows = query_gpu(["name", "compute_cap"])
    cc = _cc(rows[0].get("compute_cap") or "") if rows else None
    if cc is None:
        return Check("compute capability", False, "nvidia-smi does not report compute_cap",
                     f"update the driver: `nvidia-smi --query-gpu=compute_cap --format=csv` must answer; "
                     f"{see('The driver is too old for the GB10')}"), None
    name = rows[0].get("name") or "the GPU"
    msg = f"{name}: {cc[0]}.{cc[1]} (sm_{cc[0]}{cc[1]})"
    if cc != GB10_CC:
        return Check("compute capability", True, msg + f"; this manual's numbers come from a GB10 ({GB10_CC[0]}."
                     f"{GB10_CC[1]}), yours will differ", status="warn"), cc
    return Check("compute capability", True, msg), cc


# Inside the image: every shared object of the kernel packages, with the cubins and PTX cuobjdump lists.
KERNEL_SCRIPT = r"""
import importlib.util, json, os, shutil, subprocess, sys
out = {"cuobjdump": shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump", "packages": {}}
for pkg in sys.argv[1:]:
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        out["packages"][pkg] = None
        continue
    found = {"elf": [], "ptx": [], "files": 0}
    for root in spec.submodule_search_locations:
        for d, _, files in os.walk(root):
            for f in files:
                if ".so" not in f:
                    continue
                found["files"] += 1
                for kind in ("elf", "ptx"):
                    try:
                        r = subprocess.run([out["cuobjdump"], "--list-" + kind, os.path.join(d, f)],
                                           capture_output=True, text=True, timeout=120)
                        found[kind] += r.stdout.split()
                    except Exception as e:
                        out["error"] = str(e)
    out["packages"][pkg] = found
print(json.dumps(out))
"""


def runs_on(entries: list[str], cc: tuple[int, int]) -> tuple[list[str], list[str]]:
    """(cubin arches the GPU runs, PTX arches it can JIT) among cuobjdump's file names.

    A cubin runs on its own major version at an equal or higher minor (sm_120 runs on 12.1); an
    arch-specific cubin (sm_120a) runs only on its exact version; a family cubin (sm_120f) on its
    family. PTX compiles for any later GPU, except arch-specific PTX (compute_120a).
    """
    cubins, ptx = set(), set()
    for e in entries:
        m = re.search(r"\b(sm|compute)_(\d+)(\d)([af]?)\b", e.replace(".", " "))
        if not m:
            continue
        major, minor, suffix = int(m[2]), int(m[3]), m[4]
        tag = f"sm_{major}{minor}{suffix}"
        if e.endswith(".ptx") or m[1] == "compute":
            if suffix != "a" and (major, minor) <= cc:
                ptx.add(tag)
        elif (major == cc[0] and ((suffix == "a" and minor == cc[1]) or (suffix != "a" and minor <= cc[1]))):
            cubins.add(tag)
    return sorted(cubins), sorted(ptx)


def check_kernels(image: str, cc: tuple[int, int], timeout: float) -> Check:
    """Static: cuobjdump over the installed wheels in the image. The generation check then runs them."""
    res = docker("run", "--rm", "--name", f"miles101-preflight-kernels-{os.getpid()}", "--label", f"{LABEL}=preflight",
                 "--entrypoint", "python3", image, "-c", KERNEL_SCRIPT, *KERNEL_PACKAGES, timeout=timeout)
    try:
        found = json.loads(res.stdout.strip().splitlines()[-1])["packages"]
    except (ValueError, IndexError, KeyError, TypeError):
        return Check("kernels", False, f"cannot list the image's kernels (exit {res.returncode}: "
                     f"{(res.stderr or res.stdout).strip()[:160]})", "check that the image starts: "
                     f"docker run --rm {image} python3 -c 'import sgl_kernel, flashinfer'; "
                     f"{see('The image has no kernels for the GB10')}")
    sm = f"sm_{cc[0]}{cc[1]}"
    notes, bad = [], []
    for pkg in KERNEL_PACKAGES:
        info = found.get(pkg)
        if not info:
            bad.append(f"{pkg} is not installed")
            continue
        cubins, ptx = runs_on(info.get("elf", []) + info.get("ptx", []), cc)
        if cubins:
            notes.append(f"{pkg}: {', '.join(cubins)}")
        elif ptx:
            notes.append(f"{pkg}: PTX {', '.join(ptx)} only (JIT-compiled on first use: a slow first start)")
        elif info.get("files"):
            bad.append(f"{pkg}: no cubin or PTX for {sm} in {info['files']} shared objects")
        else:
            notes.append(f"{pkg}: no shared objects (compiled at run time)")
    if bad:
        return Check("kernels", False, "; ".join(bad + notes), f"use an image built for {sm} (sgl-kernel and "
                     f"flashinfer wheels with {sm}a or PTX); {see(BUILD_GB10)}")
    return Check("kernels", True, "; ".join(notes))


def line_commands(line: str) -> list[list[str]]:
    """The simple commands of one shell line as words (split at `;`, `&`, `&&`, `|`, `||` outside quotes; a `#`
    comment dropped); none where shlex cannot read the line (an open quote)."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lex:
            if token and set(token) <= set(";&|"):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:
        return []
    return [c for c in commands if c]


def session_exports(text: str) -> dict[str, str]:
    """What a session file's `ray start` starts Ray with: each `export KEY=VALUE` (less each `unset KEY`) above the
    file's first `ray start` command, then the `KEY=VALUE` words in front of `ray start`; commands split at `;`,
    `&&` and `|` as bash splits them."""
    env: dict[str, str] = {}
    for line in text.splitlines():
        for words in line_commands(line):
            if words[:1] == ["export"]:
                env.update(w.split("=", 1) for w in words[1:] if "=" in w)
                continue
            if words[:1] == ["unset"]:
                for name in words[1:]:
                    env.pop(name, None)
                continue
            head = [w for w in words if "=" in w and not w.startswith("-")]
            rest = words[len(head):] if words[:len(head)] == head else []
            if rest[:2] == ["ray", "start"]:
                env.update(w.split("=", 1) for w in head)
                return env
    return env


def _unclosed_quote(text: str) -> int | None:
    """The line where a quote opens that no later line closes, or None: one pass over the text, reading quotes,
    backslashes and `#` comments as shell words are read (a pass per line over a growing chunk took minutes on a
    file of a few thousand lines after an open quote)."""
    quote, opened = "", None
    for number, line in enumerate(text.splitlines(), 1):
        i = 0
        while i < len(line):
            c = line[i]
            if quote == "'":
                quote = "" if c == "'" else quote
            elif c == "\\":
                i += 1
            elif quote:
                quote = "" if c == '"' else quote
            elif c == "#" and (i == 0 or line[i - 1] in " \t;"):
                break
            elif c in "'\"":
                quote, opened = c, number
            i += 1
    return opened if quote else None


def session_unparsed(text: str) -> str | None:
    """What is wrong with the session file as shell, or None: bash's own verdict (`bash -n`, which reads without
    running) where bash is here, with the line a quote opens on when bash says it looked for the matching one; without
    bash, the line of a quote nothing closes. bash stops at such an error, so a `ray start` after it never runs."""
    opened = _unclosed_quote(text)
    bash = shutil.which("bash")
    if bash:
        try:
            res = subprocess.run([bash, "-n"], input=text.encode("utf-8"), capture_output=True, timeout=10,
                                 check=False)
        except subprocess.TimeoutExpired:
            return "`bash -n` did not finish reading it in 10 s (a file this hard for bash to read is not a session file)"
        except OSError:
            res = None
        if res is not None:
            if res.returncode == 0:
                return None
            if res.returncode < 0:  # bash -n died (nested $( by the ten thousand): the session's bash would too
                return f"`bash -n` crashed reading it (signal {-res.returncode}), as the session's bash would"
            said = (res.stderr.decode("utf-8", "replace").strip().splitlines() or ["a syntax error"])[0]
            said = re.sub(r"^\S*bash: (line \d+: )?", "", said)
            where = f"line {opened}, " if opened and "matching" in said else ""
            return f"{where}bash says: {said!r}"
    return f"line {opened}: a quote opens that no later line closes" if opened else None


#: How the raylet reads RAY_<name>: `RayConfig::ReadEnv` → `ConvertValue<T>`, an `std::istringstream >> T` that
#: must reach the end of the text, else RAY_CHECK aborts with "Cannot parse" (ray-project/ray
#: src/ray/common/ray_config.h:27-35 at 01567b92ef33353eb20cd397703d1f9e2acb41bd; Miles pins no Ray version:
#: requirements.txt:23 `ray[default]`). The stream skips leading white space, then reads the number in the C
#: locale, then nothing may follow: no `_`, no full-width digit, no trailing space, no `inf`/`nan`, no hex.
RAY_FLOAT = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
RAY_UINT = re.compile(r"[ \t\n\v\f\r]*\+?([0-9]+)")
#: The smallest normal 32-bit float: a smaller value is 0 (or a denormal) to the raylet's `float`.
FLT_MIN = 1.17549435e-38


def ray_float(value: str) -> float | None:
    """The value of a Ray `float` setting as `ConvertValue<float>` reads it (the 32-bit float), or None when the
    raylet would refuse it or read it as 0 (underflow) or infinity (overflow)."""
    import struct

    m = RAY_FLOAT.fullmatch(value)
    if not m:
        return None
    try:
        v = struct.unpack("<f", struct.pack("<f", float(m[1])))[0]
    except OverflowError:  # past the largest float
        return None
    return v if abs(v) >= FLT_MIN else None


def ray_setting_problem(key: str, value: str) -> str | None:
    """Why the raylet would stop at `key`=`value` or take it as no setting (the value quoted), or None."""
    if "threshold" in key:
        v = ray_float(value)
        if v is None:
            return (f"{key}={value!r} is not a number Ray reads (digits, one point, an optional exponent, nothing "
                    "after; Ray's raylet stops with \"Cannot parse\" or reads it as 0)")
        if not 0 < v <= 1:
            return f"{key}={value!r} is {v:.9g} to Ray, not a fraction in (0, 1]"
        return None
    m = RAY_UINT.fullmatch(value)
    if not m or int(m[1]) >= 2**64:
        return f"{key}={value!r} is not whole ms >= 0 as Ray reads it (ASCII digits only, nothing after)"
    return None


def check_ray_monitor(run: dict[str, Any], image: str) -> Check:
    """RAY_memory_* as the raylet sees them: the image's environment, the run's env (docker -e), then
    the session file's `export` lines above its `ray start` line (run["session_env"], the reader's)."""
    if run.get("session_unparsed"):
        return Check("ray memory monitor", False, f"{SESSION_FILE}: {run['session_unparsed']}; bash stops the file "
                     "at such an error, so nothing from there on runs, a `ray start` there included",
                     f"correct that line of {SESSION_FILE} (close the quote), then start the session again; "
                     f"{see('The Ray memory setting has a bad value')}")
    res = docker("image", "inspect", "--format", "{{json .Config.Env}}", image)
    env: dict[str, str] = {}
    try:
        env = dict(kv.split("=", 1) for kv in json.loads(res.stdout or "[]") if "=" in kv)
    except (ValueError, TypeError):
        pass
    env.update(run.get("env") or {})
    env.update(run.get("session_env") or {})
    seen, problems = [], []
    for key, default in RAY_MONITOR.items():
        value = env.get(key)
        seen.append(f"{key}={value if value is not None else default + ' (default)'}")
        if value is None:
            continue
        problem = ray_setting_problem(key, value)
        if problem:
            problems.append(problem)
    if problems:
        return Check("ray memory monitor", False, "; ".join(problems),
                     f"fix the value in its export line in {SESSION_FILE}, above `ray start` (the lab: env: in "
                     f"the run file), then start the session again; {see('The Ray memory setting has a bad value')}")
    if all(k not in env for k in RAY_MONITOR):
        return Check("ray memory monitor", True, ", ".join(seen) + ": on a GB10 the GPU's memory is this pool, so Ray "
                     "kills a worker when the pool passes the threshold", status="warn",
                     fix=f"section 2.3: add its `export RAY_memory_usage_threshold=...` line to {SESSION_FILE}, "
                         "above `ray start`, then start the session again (the lab: env: in the run file)")
    return Check("ray memory monitor", True, ", ".join(seen))


def check_memory(min_gib: float) -> Check:
    free = meminfo_gib("MemAvailable")
    if free is None:
        return Check("memory", True, "cannot read MemAvailable in /proc/meminfo; not checked", status="warn")
    ok = free >= min_gib
    return Check("memory", ok, f"{free:.1f} GiB available in the pool (MemAvailable)" + ("" if ok else f", below {min_gib:g} GiB"),
                 "" if ok else f"stop other jobs: on a Spark the GPU shares this memory; {see('Memory or disk is short')}")


def mount_type(path: str, mounts: str = "/proc/mounts") -> str | None:
    """The filesystem type mounted exactly at `path` (the last such line of /proc/mounts), or None."""
    try:
        lines = Path(mounts).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    found = None
    for line in lines:
        parts = line.split()
        if len(parts) >= 3 and parts[1].replace("\\040", " ") == path:
            found = parts[2]
    return found


def check_shm(path: str = SHM, mounts: str = "/proc/mounts", gpu_own_memory: bool | None = None) -> Check:
    """The host's /dev/shm, which a --ipc=host container shares: its size, and whether it is pool memory.

    gpu_own_memory: None asks nvidia-smi (memory.total: a GB10 reports none, its GPU uses the pool).
    """
    if not Path(path).is_dir():
        return Check("shared memory", False, f"{path} is not there; Docker refuses --ipc=host without it "
                     "(\"/dev/shm is not mounted, but must be for --ipc=host\")",
                     f"make the directory and mount a tmpfs on it (`sudo mkdir -p {path} && "
                     f"sudo mount -t tmpfs -o mode=1777 shm {path}`); {see(SHM_MISSING)}")
    try:
        st = os.statvfs(path)
    except OSError as e:
        return Check("shared memory", True, f"cannot read {path}: {e.strerror or e}; not checked", status="warn")
    size, used = st.f_blocks * st.f_frsize / 2**30, (st.f_blocks - st.f_bfree) * st.f_frsize / 2**30
    fs = mount_type(path, mounts)
    head = f"{path}: {fs or 'unknown filesystem'}, {size:.1f} GiB limit, {used:.1f} GiB used"
    if fs != "tmpfs":
        return Check("shared memory", True, f"{head}; not a tmpfs, so not memory")
    if gpu_own_memory is None:
        rows = query_gpu(["name", "memory.total"])  # a GB10 answers [N/A] for memory.total
        gpu_own_memory = any(r.get("memory.total") for r in rows) if rows else None
    where = ("in the unified pool (a tmpfs is memory; this GPU has none of its own)" if gpu_own_memory is False
             else "in host memory, apart from the GPU's own" if gpu_own_memory
             else "in host memory (no GPU answered: whether it shares that memory is not known)")
    return Check("shared memory", True, f"{head}; {where}; the container shares it (--ipc=host), "
                                        "and files written there take that memory, up to the limit")


def check_disk(path: Path, min_gib: float) -> Check:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = shutil.disk_usage(probe).free / 2**30
    except OSError as e:
        return Check("disk", False, f"cannot read free space at {path}: {e.strerror or e}",
                     f"pass --disk on a disk that exists; {see('Memory or disk is short')}")
    ok = free >= min_gib
    return Check("disk", ok, f"{free:.1f} GiB free at {probe}" + ("" if ok else f", below {min_gib:g} GiB"),
                 "" if ok else f"make room, or pass --disk on another disk; {see('Memory or disk is short')}")


def host_path(run: dict[str, Any], container_path: str) -> str | None:
    """The host path behind a container path, through the run's mounts."""
    for m in run.get("mounts") or []:
        c = m["container"].rstrip("/")
        if container_path == c or container_path.startswith(c + "/"):
            return os.path.expanduser(m["host"]) + container_path[len(c):]
    return None


def check_mounts(run: dict[str, Any]) -> list[Check]:
    out = []
    for m in run.get("mounts") or []:
        host = os.path.expanduser(m["host"])
        ok = os.path.exists(host)
        out.append(Check(f"mount {m['container']}", ok, f"{host} exists" if ok else f"{host} does not exist",
                         "" if ok else f"download it there (section 1.1) or fix the mount; {see(MISSING)}"))
    return out


def check_data(run: dict[str, Any]) -> list[Check]:
    """The model (its config.json) and the prompt data, on the host, where the args point."""
    given = option_values(run["args"])
    out = []
    for flag, need in (("--hf-checkpoint", "config.json"), ("--prompt-data", "")):
        for value in given.get(flag) or []:
            host = host_path(run, value)
            if host is None:
                out.append(Check(flag, False, f"{value} is under no mount",
                                 f"add a mount for it (--mount HOST:CONTAINER, or mounts: in the run file); {see(MISSING)}"))
                continue
            target = os.path.join(host, need) if need else host
            ok = os.path.exists(target)
            out.append(Check(flag, ok, f"{target} exists" if ok else f"{target} does not exist",
                             "" if ok else f"download it (section 1.1) or fix the path; {see(MISSING)}"))
    return out


def smoke_run(run: dict[str, Any], name: str, argv: list[str], timeout: float) -> tuple[int | None, list[str]]:
    """Run one short container with the run's flags and mounts; (exit code or None on timeout, output lines)."""
    cmd = run_command(dict(run, launch="direct", entry=argv[:1], args=argv[1:], seeds=None), None, name, "preflight")
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                             stdin=subprocess.DEVNULL)
        return res.returncode, (res.stdout + res.stderr).splitlines()
    except subprocess.TimeoutExpired as e:
        docker("kill", name)
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
        return None, out.splitlines()
    except OSError as e:
        return 127, [str(e)]


def check_generation(run: dict[str, Any], timeout: float) -> Check:
    """One prompt through SGLang's offline engine in the image, on the run's model and attention backend."""
    given = option_values(run["args"])
    model = (given.get("--hf-checkpoint") or [""])[-1]
    backend = (given.get("--sglang-attention-backend") or [None])[-1]
    kw = {"model_path": model, "mem_fraction_static": 0.3, **({"attention_backend": backend} if backend else {})}
    code = ("import sglang as sgl\n"
            f"e = sgl.Engine(**{kw!r})\n"
            "o = e.generate('The capital of France is', {'max_new_tokens': 8, 'temperature': 0})\n"
            f"print({SMOKE_MARK!r}, repr(o['text']))\ne.shutdown()\n")
    rc, lines = smoke_run(run, f"miles101-preflight-gen-{os.getpid()}", ["python3", "-c", code], timeout)
    said = [ln for ln in lines if SMOKE_MARK in ln]
    if rc == 0 and said:
        return Check("generation", True, said[-1].split(SMOKE_MARK, 1)[1].strip()[:120])
    tail = " | ".join(lines[-3:])[-240:] or "no output"
    what = f"timed out after {timeout:g} s" if rc is None else f"exit {rc}"
    return Check("generation", False, f"SGLang could not generate one answer ({what}): {tail}",
                 f"the message ends with the engine's last lines; {see('SGLang cannot generate one answer')}")


def check_train_step(run: dict[str, Any], timeout: float) -> Check:
    """The run's own procedure (Ray, then the job) with --num-rollout 2: one full step and the next."""
    try:
        Watchdog = _watchdog()
    except ImportError as e:
        return Check("train step", False, f"cannot import watchdog.py: {e}",
                     f"download watchdog.py (section 1.2) into the directory that holds preflight.py; "
                     f"{see('The two-step train run fails')}")
    args = list(run["args"])
    if "--num-rollout" in args:
        args[args.index("--num-rollout") + 1] = "2"
    else:
        args += ["--num-rollout", "2"]
    short = dict(run, id=f"{run['id']}-preflight", args=args, steps=2)
    seed = (run.get("seeds") or [None])[0]
    steps = procedure(short, seed)
    script = " && ".join(shlex.join(s) for s in steps)
    launch = ["bash", "-c", script] if len(steps) > 1 else steps[0]
    rc, lines = smoke_run(dict(run, args=[]), f"miles101-preflight-train-{os.getpid()}", launch, timeout)
    dog = Watchdog()
    for ln in lines:
        dog.feed(ln)
    if rc == 0 and dog.steps_done >= 2:
        return Check("train step", True, f"{dog.steps_done} steps finished with the run's own flags")
    what = f"timed out after {timeout:g} s" if rc is None else f"exit {rc}"
    tail = " | ".join(lines[-3:])[-240:] or "no output"
    return Check("train step", False, f"{dog.steps_done} of 2 steps finished ({what}): {tail}",
                 f"the message ends with the run's last lines; {see('The two-step train run fails')}")


def _watchdog() -> Any:
    """The Watchdog class of watchdog.py: the package's sibling in the lab, the file beside this one for a reader."""
    if __package__:
        from .watchdog import Watchdog
    else:
        from watchdog import Watchdog
    return Watchdog


# ---- the whole preflight ----------------------------------------------------------------------

def timed(fn: Callable[[], Any]) -> Any:
    """Run one check; stamp its time on every Check it returns; a crash becomes a failed check."""
    t0 = time.monotonic()
    try:
        got = fn()
    except Exception as e:  # a probe must never crash the preflight
        got = Check(getattr(fn, "__name__", "check"), False, f"the check itself failed: {type(e).__name__}: {e}",
                    f"report this as a bug in preflight.py; {see('A check crashes')}")
    for c in got if isinstance(got, list) else [got[0] if isinstance(got, tuple) else got]:
        c.seconds = round(time.monotonic() - t0, 2)
    return got


def pair(got: Any) -> tuple[Check, Any]:
    """A (Check, value) check's result; a crash (one failed Check from timed) gives (it, None)."""
    return got if isinstance(got, tuple) else (got, None)


def listed(got: Any) -> list[Check]:
    """A list-of-Checks check's result; a crash (one failed Check from timed) gives [it]."""
    return got if isinstance(got, list) else [got]


def skip(name: str, why: str) -> Check:
    return Check(name, True, f"not checked: {why}", status="skip")


def preflight(run: dict[str, Any], disk: Path, min_mem_gib: float, min_disk_gib: float, arch: str = "arm64",
              smoke: bool = False, timeouts: dict[str, float] | None = None,
              lab: bool = False) -> tuple[list[Check], str | None]:
    """Every check for one run (the smoke tests only with smoke=True), and the image digest when present.

    `run` holds the settings: image, args (Miles's arguments), env, mounts, and for the train step
    id, entry and seeds. lab=True adds the check for containers an earlier recording left running.
    """
    t = {"kernels": 300.0, "generation": 900.0, "train": 1800.0, **(timeouts or {})}
    checks = [timed(lambda: check_arch(arch)), timed(check_docker)]
    digest = None
    docker_ok = checks[-1].ok
    image_ok = False
    if docker_ok:
        img, digest = pair(timed(lambda: check_image(run["image"])))
        checks.append(img)
        image_ok = img.ok
        if lab:
            checks.append(timed(check_leftovers))
    checks.append(timed(check_gpu))
    gpu_ok = checks[-1].ok
    cc = None
    if gpu_ok:
        checks.append(timed(check_driver))
        cap, cc = pair(timed(check_compute_cap))
        checks.append(cap)
    else:
        checks += [skip("driver and CUDA", "no GPU"), skip("compute capability", "no GPU")]
    checks.append(timed(lambda: check_kernels(run["image"], cc, t["kernels"])) if image_ok and cc
                  else skip("kernels", "needs the image and the GPU's compute capability"))
    checks.append(timed(lambda: check_ray_monitor(run, run["image"])) if image_ok else skip("ray memory monitor", "needs the image"))
    checks += [timed(lambda: check_memory(min_mem_gib)), timed(check_shm), timed(lambda: check_disk(disk, min_disk_gib)),
               *listed(timed(lambda: check_mounts(run))), *listed(timed(lambda: check_data(run)))]
    ready = all(c.ok for c in checks)
    trains = bool(run.get("entry")) and bool(run.get("id"))
    if not smoke:
        checks += [skip("generation", "--skip-smoke"), skip("train step", "--skip-smoke")]
    elif not ready:
        checks += [skip("generation", "an earlier check failed"), skip("train step", "an earlier check failed")]
    else:
        checks.append(timed(lambda: check_generation(run, t["generation"])))
        if not checks[-1].ok:
            checks.append(skip("train step", "the generation failed"))
        elif not trains:
            checks.append(skip("train step", "no run given (--settings with id, entry and args); "
                                             "section 1.1's two-rollout smoke run is this check"))
        else:
            checks.append(timed(lambda: check_train_step(run, t["train"])))
    return checks, digest


def table(checks: list[Check], total: float) -> str:
    """The verdicts as a plain-text table, each failure and warning with its fix, then the total time; what a
    probe printed stays on its row (Check keeps its text `printable`)."""
    width = max(len(c.name) for c in checks)
    rows = [f"{'check'.ljust(width)}  verdict  time    what it found / the fix"]
    for c in checks:
        rows.append(f"{c.name.ljust(width)}  {c.status.upper():<7}  {c.seconds:5.1f}s  {c.message}")
        if c.fix and c.status in ("fail", "warn"):
            rows.append(f"{''.ljust(width)}  {'':<7}  {'':6}  fix: {c.fix}")
    failed = sum(c.status == "fail" for c in checks)
    rows.append(f"preflight: {failed} failed, {sum(c.status == 'warn' for c in checks)} warnings, "
                f"{sum(c.status == 'pass' for c in checks)} passed in {total:.1f} s")
    return "\n".join(rows)


def report(run: dict[str, Any], checks: list[Check], total: float, as_json: bool) -> int:
    """Print the verdicts (a table, or JSON with --json); the exit status: 0 all passed, 1 a check failed."""
    ok = all(c.ok for c in checks)
    if as_json:
        print(json.dumps({"schema": "preflight/1", "run": run.get("id"), "ok": ok, "seconds": total,
                          "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(table(checks, total))
    return 0 if ok else 1


def add_common_options(ap: argparse.ArgumentParser) -> None:
    """The options the reader's command and the lab's `capture/run.py preflight` share."""
    ap.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    ap.add_argument("--skip-smoke", action="store_true", help="skip the one-prompt generation and the two-step train run")
    ap.add_argument("--arch", default="arm64", help="the host architecture the runs are for (default arm64, the Spark)")
    ap.add_argument("--min-free-mem-gb", type=float, default=32.0, help="GiB of MemAvailable needed (default 32)")
    ap.add_argument("--min-free-disk-gb", type=float, default=20.0, help="GiB free on the disk needed (default 20)")
    for name, default in (("kernels", 300), ("generation", 900), ("train", 1800)):
        ap.add_argument(f"--{name}-timeout", type=float, default=default, help=f"seconds (default {default})")


def run_checks(run: dict[str, Any], args: argparse.Namespace, disk: Path, lab: bool = False) -> int:
    """Run the preflight with the shared options and print its report; the exit status."""
    t0 = time.monotonic()
    checks, _ = preflight(run, disk, args.min_free_mem_gb, args.min_free_disk_gb, args.arch,
                          smoke=not args.skip_smoke, lab=lab,
                          timeouts={"kernels": args.kernels_timeout, "generation": args.generation_timeout,
                                    "train": args.train_timeout})
    return report(run, checks, round(time.monotonic() - t0, 2), args.json)


#: The largest --settings or --session file read (a session file of section 1.1 is a few hundred bytes).
MAX_INPUT_BYTES = 1 << 20


def read_small(path: str | Path, cap: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `cap` bytes; OSError (its strerror says why) otherwise. Opened
    without blocking and checked on the open file, so a FIFO or /dev/zero is refused, never waited on."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
        raise OSError(0, f"it is {kind}, not a file")
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise OSError(0, f"it is over {cap >> 10} KiB, the most preflight reads; pass the small file itself")
    return data


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings from --settings (JSON) and the flags; a flag wins. ValueError names the problem."""
    run: dict[str, Any] = {}
    if args.settings:
        try:
            run = json.loads(read_small(args.settings).decode("utf-8"))
        except OSError as e:
            raise ValueError(f"{args.settings}: cannot read: {e.strerror or e}") from e
        except ValueError as e:
            raise ValueError(f"{args.settings}: not JSON: {e}") from e
        if not isinstance(run, dict):
            raise ValueError(f"{args.settings}: the top level must be an object with image, args, env, mounts")
    run = {"args": [], "env": {}, "mounts": [], **run}
    for key, kind in (("args", list), ("env", dict), ("mounts", list)):
        if not isinstance(run[key], kind):
            raise ValueError(f"{args.settings}: {key} must be a JSON {'array' if kind is list else 'object'}")
    for i, m in enumerate(run["mounts"]):
        if not (isinstance(m, dict) and isinstance(m.get("host"), str) and isinstance(m.get("container"), str)
                and m["host"] and m["container"].startswith("/")):
            raise ValueError(f"{args.settings}: mounts[{i}] is {json.dumps(m)}: write "
                             '{"host": "HOST_PATH", "container": "/CONTAINER_PATH"}')
    run["args"] = [str(a) for a in run["args"]]
    run["env"] = {**run["env"]}
    if args.image:
        run["image"] = args.image
    if not run.get("image"):
        raise ValueError("no image: pass --image IMAGE (or image in --settings)")
    for text in args.mount:
        host, sep, container = text.rpartition(":")
        if not sep or not host or not container.startswith("/"):
            raise ValueError(f"--mount {text!r}: write HOST:CONTAINER, the container path absolute")
        run["mounts"] = [*run["mounts"], {"host": host, "container": container}]
    for text in args.env:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise ValueError(f"--env {text!r}: write KEY=VALUE")
        run["env"][key] = value
    for flag, value in (("--hf-checkpoint", args.model), ("--prompt-data", args.data),
                        ("--sglang-attention-backend", args.attention_backend)):
        if value:
            run["args"] += [flag, value]
    if not option_values(run["args"]).get("--hf-checkpoint"):
        raise ValueError("no model: pass --model CONTAINER_PATH (the --hf-checkpoint of your run)")
    session = Path(args.session).expanduser() if args.session else Path(SESSION_FILE).expanduser()
    if args.session or session.is_file():
        try:
            text = read_small(session).decode("utf-8")
            run["session_env"], run["session_unparsed"] = session_exports(text), session_unparsed(text)
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"--session {printable(str(session))}: cannot read: {getattr(e, 'strerror', None) or e}. Fix: pass the "
                             f"session file of section 1.1, step 3 ({SESSION_FILE})") from e
    return run


# ---- --compare-image: the reader's image against the book's Miles ----------------------------

def _miles_tree() -> Any:
    """miles_tree.py: the package's sibling in the lab, the file beside this one for a reader."""
    if __package__:
        from . import miles_tree
    else:
        import miles_tree
    return miles_tree


def compare_image(image: str, as_json: bool = False, all_runs: bool = False) -> int:
    """Read /root/miles out of IMAGE with the book's extractor and compare it with the book's side.

    Exit status: 0 same as the book, 1 differs only where no page looks, 4 runs as the book's (only
    defaults of flags the commands pass changed), 3 differs where pages look, 2 it could not compare
    (one line on stderr says what failed and the fix; nothing is written)."""
    if not image.strip() or image.startswith("-") or not image.isprintable():  # "-x": docker's own option
        print(f"preflight: --compare-image: {image!r} is not an image name. Fix: pass the image you run, as "
              "`docker images` lists it (REPOSITORY:TAG)", file=sys.stderr)
        return 2
    if sys.version_info[:2] < MILES_PYTHON:
        print(f"preflight: --compare-image: needs Python {MILES_PYTHON[0]}.{MILES_PYTHON[1]} or newer, this is Python "
              f"{sys.version_info[0]}.{sys.version_info[1]}: Miles's source uses grammar it cannot parse, and the files it "
              "cannot parse would go unread. Fix: run it with a newer python3 (e.g. python3.12)", file=sys.stderr)
        return 2
    try:
        tree = _miles_tree()
    except ImportError as e:
        print(f"preflight: --compare-image: cannot import miles_tree.py ({e}). Fix: download miles_tree.py "
              "(section 1.1, step 2) into the directory that holds preflight.py", file=sys.stderr)
        return 2
    try:
        image_side = tree.tree_tables(tree.read_image(image))
    except tree.SourceError as e:
        print(f"preflight: --compare-image: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the extractor meeting a tree it cannot parse: one line, never a traceback
        where = tree.where_it_failed(e)
        print(f"preflight: --compare-image: the extractor could not read Miles in {image}"
              f"{f' at {where}' if where else ''} ({type(e).__name__}: {printable(str(e))[:200]}). Fix: download "
              "miles_tree.py again from the book; if it still fails, the image's Miles is newer than the book's "
              "extractor: use the book's commands with care", file=sys.stderr)
        return 2
    report = tree.compare(tree.BOOK, image_side)
    print(json.dumps(report, indent=1) if as_json else tree.render(report, image, all_runs))
    return report["exit"]


def parser() -> argparse.ArgumentParser:
    """The reader's command line."""
    ap = argparse.ArgumentParser(
        prog="preflight.py",
        description="Check that this host can run Miles on its GPU: one verdict per check, each failure with its fix. "
                    "Run it on the host (it starts its own short containers of the image).",
        epilog="Exit status: 0 every check passed (warnings allowed), 1 a check failed, 2 bad settings. "
               "With --compare-image: 0 same as the book, 1 differs only where no page looks, "
               "4 runs as the book's, 3 differs where pages look, 2 it could not compare.")
    ap.add_argument("--settings", metavar="FILE.json",
                    help="the run's settings as JSON: image, args (Miles's arguments), env, mounts "
                         "([{\"host\": ..., \"container\": ...}]); with id and entry the train step runs too")
    ap.add_argument("--image", help="the Miles image, e.g. the one you pulled")
    ap.add_argument("--mount", action="append", default=[], metavar="HOST:CONTAINER",
                    help="a host directory and where the container sees it, as in docker run -v (repeat)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="an environment variable the container gets, as in docker run -e (repeat)")
    ap.add_argument("--model", help="the model directory as the container sees it (Miles's --hf-checkpoint)")
    ap.add_argument("--data", help="the prompt file as the container sees it (Miles's --prompt-data)")
    ap.add_argument("--attention-backend", help="SGLang's attention backend (Miles's --sglang-attention-backend)")
    ap.add_argument("--disk", type=Path, default=Path.home(), help="where free disk space is checked (default: your home)")
    ap.add_argument("--session", metavar="FILE",
                    help=f"the session file whose `export` lines above `ray start` Ray starts with, for the Ray "
                         f"memory-monitor check (default: {SESSION_FILE}, when it exists)")
    ap.add_argument("--compare-image", metavar="IMAGE",
                    help="only compare the Miles in IMAGE with the book's (needs miles_tree.py beside this file; "
                         "pulls IMAGE when absent): its commit, the flags the book's commands pass that it lacks or "
                         "changed (one flag a group; --all names every run), the metric keys the pages read that "
                         "it no longer logs, and a verdict. Exit status: 0 same as the book, 1 differs only where "
                         "no page looks, 4 runs as the book's (only defaults of flags the commands pass changed), "
                         "3 differs where pages look, 2 it could not compare")
    ap.add_argument("--all", action="store_true", dest="all_runs",
                    help="with --compare-image: name every run a changed flag touches, not only the first page's")
    add_common_options(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    """The reader's preflight: parse the settings (exit 2 when they are bad), check, report."""
    args = parser().parse_args(argv)
    if args.compare_image is not None:
        return compare_image(args.compare_image, args.json, args.all_runs)
    try:
        run = settings(args)
    except ValueError as e:
        print(f"preflight: {e}", file=sys.stderr)
        return 2
    return run_checks(run, args, args.disk.expanduser())


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while a check or docker runs: one line, never a traceback
        print("preflight: interrupted (Ctrl-C): stopped", file=sys.stderr)
        sys.exit(130)
