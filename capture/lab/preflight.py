"""`python3 capture/run.py preflight <id> [--json]`: can this host record the run? One verdict per check, with the fix.

Also run by `record` before it launches. Every check has a timeout, so a hung docker or driver
fails its check instead of the preflight. The checks, in order (a failed prerequisite skips the
checks that need it):

host arch · docker · image (present, its arch) · leftovers (a recorder's container still running) ·
gpu · driver and CUDA · compute capability · kernels (the image's sgl-kernel and flashinfer carry
code the GPU runs) · ray memory monitor · memory (pool) · disk · model and dataset · generation
(one prompt through SGLang in the image) · train step (the run's own procedure with two rollouts).
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

from capture.lab import docker as dk
from capture.lab.host import cuda_version, meminfo_gib, query_gpu

# What the GB10 is (compute capability 12.1: sm_121). CUDA 12.9 is the first toolkit that builds for it.
GB10_CC = (12, 1)
MIN_CUDA = (12, 9)
# Ray's memory monitor, read by the raylet from its environment (src/ray/common/ray_config_def.h).
RAY_MONITOR = {"RAY_memory_usage_threshold": "0.95", "RAY_memory_monitor_refresh_ms": "250"}
KERNEL_PACKAGES = ("sgl_kernel", "flashinfer")
SMOKE_MARK = "miles101-preflight generated:"


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
        self.status = self.status or ("pass" if self.ok else "fail")
        self.ok = self.status != "fail"


def arch_name(machine: str) -> str:
    """Docker's name for a CPU architecture: aarch64 → arm64, x86_64 → amd64."""
    return {"aarch64": "arm64", "x86_64": "amd64"}.get(machine.lower(), machine.lower())


def _cc(text: str) -> tuple[int, int] | None:
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", text or "")
    return (int(m[1]), int(m[2])) if m else None


# ---- the checks -------------------------------------------------------------------------------

def check_arch(want: str) -> Check:
    have = arch_name(platform.machine())
    if have == want:
        return Check("host arch", True, f"{platform.machine()} ({have})")
    return Check("host arch", False, f"this host is {platform.machine()} ({have}); the runs are for {want} (the DGX Spark)",
                 f"record on the Spark; or pass --arch {have} to check this host anyway")


def check_docker() -> Check:
    if shutil.which("docker") is None:
        return Check("docker", False, "docker is not on PATH", "install Docker and the NVIDIA container toolkit")
    res = dk.docker("version", "--format", "{{.Server.Version}}", timeout=30)
    if res.returncode != 0:
        return Check("docker", False, f"docker cannot reach its daemon: {(res.stderr or res.stdout).strip()[:160]}",
                     "start it (`sudo systemctl start docker`) or add your user to the docker group")
    return Check("docker", True, f"docker server {res.stdout.strip()}")


def check_image(image: str) -> tuple[Check, str | None]:
    digest, err = dk.image_digest(image)
    if digest is None:
        return Check("image", False, f"image {image} is not present ({err[:120]})", f"docker pull {image}"), None
    res = dk.docker("image", "inspect", "--format", "{{.Architecture}}", image)
    arch, host = res.stdout.strip(), arch_name(platform.machine())
    if res.returncode == 0 and arch and arch != host:
        return Check("image", False, f"{image} is built for {arch}, this host is {host}",
                     f"docker pull --platform linux/{host} {image}"), digest
    return Check("image", True, f"{image} ({arch or 'arch unknown'}) is {digest}"), digest


def check_leftovers() -> Check:
    names, err = dk.leftovers()
    if err:
        return Check("leftovers", True, f"cannot list containers ({err})", status="warn")
    if names:
        return Check("leftovers", False, f"a recorder's container still runs on the GPU: {', '.join(names)}",
                     f"docker stop {' '.join(names)}   (or record with --stop-leftovers)")
    return Check("leftovers", True, "no container of an earlier recording is running")


def check_gpu() -> Check:
    res = _run(["nvidia-smi", "-L"], 30)
    gpus = [ln.strip() for ln in res.stdout.splitlines() if ln.startswith("GPU ")]
    if res.returncode == 127:
        return Check("gpu", False, f"nvidia-smi cannot run ({res.stderr.strip()[:120]})", "install the NVIDIA driver")
    if res.returncode != 0 or not gpus:
        said = (res.stdout + res.stderr).strip().splitlines()
        return Check("gpu", False, f"nvidia-smi sees no GPU: {said[0][:160] if said else 'no output'}",
                     "check the driver with `nvidia-smi`; reboot after a driver update")
    return Check("gpu", True, gpus[0])


def check_driver() -> Check:
    driver, cuda = cuda_version()
    if cuda is None:
        return Check("driver and CUDA", False, "nvidia-smi names no CUDA version", "check the driver with `nvidia-smi`")
    have = tuple(int(x) for x in cuda.split(".")[:2])
    if have < MIN_CUDA:
        return Check("driver and CUDA", False, f"driver {driver} supports CUDA {cuda}; sm_121 needs CUDA "
                     f"{MIN_CUDA[0]}.{MIN_CUDA[1]} or newer", "update the driver (DGX OS updates)")
    return Check("driver and CUDA", True, f"driver {driver}, CUDA {cuda}")


def check_compute_cap() -> tuple[Check, tuple[int, int] | None]:
    rows = query_gpu(["name", "compute_cap"])
    cc = _cc(rows[0].get("compute_cap") or "") if rows else None
    if cc is None:
        return Check("compute capability", False, "nvidia-smi does not report compute_cap",
                     "update the driver: `nvidia-smi --query-gpu=compute_cap --format=csv` must answer"), None
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
    res = dk.docker("run", "--rm", "--name", f"miles101-preflight-kernels-{os.getpid()}", "--label", f"{dk.LABEL}=preflight",
                    "--entrypoint", "python3", image, "-c", KERNEL_SCRIPT, *KERNEL_PACKAGES, timeout=timeout)
    try:
        found = json.loads(res.stdout.strip().splitlines()[-1])["packages"]
    except (ValueError, IndexError, KeyError, TypeError):
        return Check("kernels", False, f"cannot list the image's kernels (exit {res.returncode}: "
                     f"{(res.stderr or res.stdout).strip()[:160]})", "check that the image starts: "
                     f"docker run --rm {image} python3 -c 'import sgl_kernel, flashinfer'")
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
                     f"flashinfer wheels with {sm}a or PTX): see section 6.4")
    return Check("kernels", True, "; ".join(notes))


def check_ray_monitor(run: dict[str, Any], image: str) -> Check:
    """RAY_memory_* as the raylet sees them: the image's environment, then the run file's env (docker -e)."""
    res = dk.docker("image", "inspect", "--format", "{{json .Config.Env}}", image)
    env: dict[str, str] = {}
    try:
        env = dict(kv.split("=", 1) for kv in json.loads(res.stdout or "[]") if "=" in kv)
    except (ValueError, TypeError):
        pass
    env.update(run.get("env") or {})
    seen, problems = [], []
    for key, default in RAY_MONITOR.items():
        value = env.get(key)
        seen.append(f"{key}={value if value is not None else default + ' (default)'}")
        if value is None:
            continue
        try:
            v = float(value)
            fine = 0 < v <= 1 if "threshold" in key else v >= 0 and v.is_integer()
        except ValueError:
            fine = False
        if not fine:
            problems.append(f"{key}={value!r} is not {'a fraction in (0, 1]' if 'threshold' in key else 'whole ms >= 0'}")
    if problems:
        return Check("ray memory monitor", False, "; ".join(problems), "fix the value under env: in the run file")
    if all(k not in env for k in RAY_MONITOR):
        return Check("ray memory monitor", True, ", ".join(seen) + ": on a GB10 the GPU's memory is this pool, so Ray "
                     "kills a worker when the pool passes the threshold", status="warn",
                     fix="set RAY_memory_usage_threshold (or RAY_memory_monitor_refresh_ms: 0 to turn it off) under env:")
    return Check("ray memory monitor", True, ", ".join(seen))


def check_memory(min_gib: float) -> Check:
    free = meminfo_gib("MemAvailable")
    if free is None:
        return Check("memory", True, "cannot read MemAvailable in /proc/meminfo; not checked", status="warn")
    ok = free >= min_gib
    return Check("memory", ok, f"{free:.1f} GiB available in the pool (MemAvailable)" + ("" if ok else f", below {min_gib:g} GiB"),
                 "" if ok else "stop other jobs: on a Spark the GPU shares this memory")


def check_disk(path: Path, min_gib: float) -> Check:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = shutil.disk_usage(probe).free / 2**30
    except OSError as e:
        return Check("disk", False, f"cannot read free space at {path}: {e.strerror or e}", "pass --gpu-dir on a disk that exists")
    ok = free >= min_gib
    return Check("disk", ok, f"{free:.1f} GiB free at {probe}" + ("" if ok else f", below {min_gib:g} GiB"),
                 "" if ok else "make room, or pass --gpu-dir on another disk")


def host_path(run: dict[str, Any], container_path: str) -> str | None:
    """The host path behind a container path, through the run file's mounts."""
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
                         "" if ok else "download it there (section 1.1) or fix mounts in the run file"))
    return out


def check_data(run: dict[str, Any]) -> list[Check]:
    """The model (its config.json) and the prompt data, on the host, where the args point."""
    given = dk.option_values(run["args"])
    out = []
    for flag, need in (("--hf-checkpoint", "config.json"), ("--prompt-data", "")):
        for value in given.get(flag) or []:
            host = host_path(run, value)
            if host is None:
                out.append(Check(flag, False, f"{value} is under no mount", "add a mount for it in the run file"))
                continue
            target = os.path.join(host, need) if need else host
            ok = os.path.exists(target)
            out.append(Check(flag, ok, f"{target} exists" if ok else f"{target} does not exist",
                             "" if ok else "download it (section 1.1) or fix the path in the run file"))
    return out


def smoke_run(run: dict[str, Any], name: str, argv: list[str], timeout: float) -> tuple[int | None, list[str]]:
    """Run one short container with the run's flags and mounts; (exit code or None on timeout, output lines)."""
    cmd = dk.run_command(dict(run, launch="direct", entry=argv[:1], args=argv[1:], seeds=None), None, name)
    cmd[cmd.index("--label") + 1] = f"{dk.LABEL}=preflight"
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return res.returncode, (res.stdout + res.stderr).splitlines()
    except subprocess.TimeoutExpired as e:
        dk.docker("kill", name)
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
        return None, out.splitlines()
    except OSError as e:
        return 127, [str(e)]


def check_generation(run: dict[str, Any], timeout: float) -> Check:
    """One prompt through SGLang's offline engine in the image, on the run's model and attention backend."""
    given = dk.option_values(run["args"])
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
                 "read the whole output with `python3 capture/run.py preflight <id> --json`; section 7.1 lists the known causes")


def check_train_step(run: dict[str, Any], timeout: float) -> Check:
    """The run's own procedure (Ray, then the job) with --num-rollout 2: one full step and the next."""
    from capture.lab.watchdog import Watchdog

    args = list(run["args"])
    if "--num-rollout" in args:
        args[args.index("--num-rollout") + 1] = "2"
    else:
        args += ["--num-rollout", "2"]
    short = dict(run, id=f"{run['id']}-preflight", args=args, steps=2)
    seed = (run.get("seeds") or [None])[0]
    steps = dk.procedure(short, seed)
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
                 "run `python3 capture/lab/read_run.py LOG --diagnose` on the output; section 7.1 lists the known causes")


# ---- the whole preflight ----------------------------------------------------------------------

def _run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, 124, "", f"{type(e).__name__}: {e}")


def timed(fn: Callable[[], Any]) -> Any:
    """Run one check; stamp its time on every Check it returns; a crash becomes a failed check."""
    t0 = time.monotonic()
    try:
        got = fn()
    except Exception as e:  # a probe must never crash the preflight
        got = Check(getattr(fn, "__name__", "check"), False, f"the check itself failed: {type(e).__name__}: {e}",
                    "report this as a bug in capture/lab/preflight.py")
    for c in got if isinstance(got, list) else [got[0] if isinstance(got, tuple) else got]:
        c.seconds = round(time.monotonic() - t0, 2)
    return got


def skip(name: str, why: str) -> Check:
    return Check(name, True, f"not checked: {why}", status="skip")


def preflight(run: dict[str, Any], gpu_dir: Path, min_mem_gib: float, min_disk_gib: float, arch: str = "arm64",
              smoke: bool = False, timeouts: dict[str, float] | None = None) -> tuple[list[Check], str | None]:
    """Every check for one run (the smoke tests only with smoke=True), and the image digest when present."""
    t = {"kernels": 300.0, "generation": 900.0, "train": 1800.0, **(timeouts or {})}
    checks = [timed(lambda: check_arch(arch)), timed(check_docker)]
    digest = None
    docker_ok = checks[-1].ok
    if docker_ok:
        img, digest = timed(lambda: check_image(run["image"]))
        checks += [img, timed(check_leftovers)]
    image_ok = docker_ok and checks[2].ok
    checks.append(timed(check_gpu))
    gpu_ok = checks[-1].ok
    cc = None
    if gpu_ok:
        checks.append(timed(check_driver))
        cap, cc = timed(check_compute_cap)
        checks.append(cap)
    else:
        checks += [skip("driver and CUDA", "no GPU"), skip("compute capability", "no GPU")]
    checks.append(timed(lambda: check_kernels(run["image"], cc, t["kernels"])) if image_ok and cc
                  else skip("kernels", "needs the image and the GPU's compute capability"))
    checks.append(timed(lambda: check_ray_monitor(run, run["image"])) if image_ok else skip("ray memory monitor", "needs the image"))
    checks += [timed(lambda: check_memory(min_mem_gib)), timed(lambda: check_disk(gpu_dir, min_disk_gib)),
               *timed(lambda: check_mounts(run)), *timed(lambda: check_data(run))]
    ready = all(c.ok for c in checks)
    if not smoke:
        checks += [skip("generation", "--skip-smoke"), skip("train step", "--skip-smoke")]
    elif not ready:
        checks += [skip("generation", "an earlier check failed"), skip("train step", "an earlier check failed")]
    else:
        checks.append(timed(lambda: check_generation(run, t["generation"])))
        checks.append(timed(lambda: check_train_step(run, t["train"])) if checks[-1].ok
                      else skip("train step", "the generation failed"))
    return checks, digest


def table(checks: list[Check], total: float) -> str:
    """The verdicts as a plain-text table, each failure with its fix, then the total time."""
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


def main(argv: list[str]) -> int:
    """Exit 0 every check passed (warnings allowed), 1 a check failed, 2 a bad run file."""
    from capture.lab.catalog import Catalog
    from capture.lab.runfile import RunFileError, load_run

    root = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(prog="capture/run.py preflight", description="Check that this host can record a run.")
    ap.add_argument("id", nargs="?", default="first-grpo", help="run id: capture/runs/<id>.yaml (default first-grpo)")
    ap.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    ap.add_argument("--skip-smoke", action="store_true", help="skip the one-prompt generation and the two-step train run")
    ap.add_argument("--arch", default="arm64", help="the host architecture the runs are for (default arm64)")
    ap.add_argument("--runs-dir", type=Path, default=root / "capture" / "runs")
    ap.add_argument("--gpu-dir", type=Path, default=root / "capture" / "gpu")
    ap.add_argument("--flags", type=Path, default=root / "capture" / "miles" / "flags.json")
    ap.add_argument("--metrics", type=Path, default=root / "capture" / "miles" / "metrics.json")
    ap.add_argument("--min-free-mem-gb", type=float, default=32.0)
    ap.add_argument("--min-free-disk-gb", type=float, default=20.0)
    for name, default in (("kernels", 300), ("generation", 900), ("train", 1800)):
        ap.add_argument(f"--{name}-timeout", type=float, default=default, help=f"seconds (default {default})")
    args = ap.parse_args(argv)
    from miles101.strict import run_id_problem

    if run_id_problem(args.id):
        print(f"preflight: {run_id_problem(args.id)}", file=sys.stderr)
        return 2
    try:
        run = load_run(args.runs_dir / f"{args.id}.yaml", Catalog.load(args.flags, args.metrics))
    except RunFileError as e:
        print("preflight: the run file is refused:", *e.errors, sep="\n  ", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError) as e:
        print(f"preflight: cannot read the extraction: {e}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    checks, _ = preflight(run, args.gpu_dir, args.min_free_mem_gb, args.min_free_disk_gb, args.arch,
                          smoke=not args.skip_smoke, timeouts={"kernels": args.kernels_timeout,
                                                               "generation": args.generation_timeout,
                                                               "train": args.train_timeout})
    total = round(time.monotonic() - t0, 2)
    if args.json:
        print(json.dumps({"schema": "preflight/1", "run": run["id"], "ok": all(c.ok for c in checks),
                          "seconds": total, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(table(checks, total))
    return 0 if all(c.ok for c in checks) else 1
