"""The preflight against stand-in docker and nvidia-smi: every check passes on a GB10-like host, and each fails with its fix."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from capture.lab.rehearsal import mileslog as ml
from labutil import HERE, ROOT, base_run

# The preflight end to end: run.py and a Python process per stand-in docker call, a second or more a test.
pytestmark = pytest.mark.slow

ARCH = {"aarch64": "arm64", "x86_64": "amd64"}.get(platform.machine(), platform.machine())


def ready(lab, run_id: str = "t-pre", **changes):
    """A run file whose model and data exist on the host."""
    run = base_run(run_id, lab.model)
    (lab.model / "config.json").write_text("{}")
    data = lab.tmp / "data"
    data.mkdir(exist_ok=True)
    (data / "train.parquet").write_text("")
    run["mounts"].append({"host": str(data), "container": "/root/data"})
    run["args"] += ["--hf-checkpoint", "/root/models/test", "--prompt-data", "/root/data/train.parquet"]
    run.update(changes)
    lab.write_run(run)
    return run


def preflight(lab, run_id: str = "t-pre", *extra: str, env: dict | None = None) -> tuple[int, dict, str]:
    argv = [sys.executable, str(ROOT / "capture" / "run.py"), "preflight", run_id, "--json", "--runs-dir", str(lab.runs),
            "--gpu-dir", str(lab.gpu), "--flags", str(HERE / "fixtures" / "flags.json"),
            "--metrics", str(HERE / "fixtures" / "metrics.json"), "--arch", ARCH, "--min-free-mem-gb", "0",
            "--min-free-disk-gb", "0", *extra]
    res = subprocess.run(argv, env={**lab.env, **(env or {})}, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in res.stderr, res.stderr
    return res.returncode, (json.loads(res.stdout) if res.stdout.startswith("{") else {}), res.stderr


def verdict(report: dict, name: str) -> dict:
    return next(c for c in report["checks"] if c["name"] == name)


SMOKE_OK = [{"line": "miles101-preflight generated: ' Paris.'"}, *[{"line": x} for x in ml.healthy(2)]]


def test_a_gb10_like_host_passes_every_check(lab):
    ready(lab)
    lab.scenario(SMOKE_OK)
    rc, report, err = preflight(lab)
    assert rc == 0, report
    statuses = {c["name"]: c["status"] for c in report["checks"]}
    assert statuses.pop("ray memory monitor") == "warn"  # unset: the raylet's defaults, said plainly
    assert set(statuses.values()) == {"pass"}, statuses
    assert "12.1 (sm_121)" in verdict(report, "compute capability")["message"]
    assert "sgl_kernel: sm_121a" in verdict(report, "kernels")["message"]
    assert "flashinfer: PTX sm_120 only" in verdict(report, "kernels")["message"]
    assert "CUDA 13.0" in verdict(report, "driver and CUDA")["message"]
    assert "Paris" in verdict(report, "generation")["message"]
    assert "2 steps finished" in verdict(report, "train step")["message"]
    assert report["seconds"] >= 0 and all("seconds" in c for c in report["checks"])
    runs = [c for c in lab.calls() if c.startswith("run ")]
    train = json.loads(next((lab.state).glob("miles101-preflight-train-*.argv.json")).read_text())
    assert "--num-rollout 2" in train[-1] and "ray job submit" in train[-1] and "--submission-id t-pre-preflight" in train[-1]
    assert len(runs) == 3  # kernels, generation, train step


def test_the_table_names_each_failure_and_its_fix(lab):
    ready(lab)
    argv = [sys.executable, str(ROOT / "capture" / "run.py"), "preflight", "t-pre", "--runs-dir", str(lab.runs),
            "--gpu-dir", str(lab.gpu), "--flags", str(HERE / "fixtures" / "flags.json"),
            "--metrics", str(HERE / "fixtures" / "metrics.json"), "--arch", "riscv64", "--skip-smoke",
            "--min-free-mem-gb", "0", "--min-free-disk-gb", "0"]
    res = subprocess.run(argv, env=lab.env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "host arch" in res.stdout and "FAIL" in res.stdout and f"fix: record on the Spark; or pass --arch {ARCH}" in res.stdout
    assert res.stdout.splitlines()[-1].startswith("preflight: 1 failed") and " s" in res.stdout.splitlines()[-1]


@pytest.mark.parametrize("case, env, check, words", [
    ("no docker", {"PATH": "/nonexistent"}, "docker", "docker is not on PATH"),
    ("no driver", {"FAKE_NVSMI": "no-driver"}, "gpu", "couldn't communicate with the NVIDIA driver"),
    ("garbled nvidia-smi", {"FAKE_NVSMI": "garbage"}, "gpu", "nvidia-smi sees no GPU"),
    ("image for another arch", {"FAKE_IMAGE_ARCH": "s390x"}, "image", "docker pull --platform"),
    ("no kernels for sm_121", {"FAKE_KERNELS": "KERNELS_H100"}, "kernels", "no cubin or PTX for sm_121"),
    ("kernel listing broken", {"FAKE_KERNELS": "KERNELS_BROKEN"}, "kernels", "cannot list the image's kernels"),
    ("bad ray threshold", {"FAKE_IMAGE_ENV": '["RAY_memory_usage_threshold=lots"]'}, "ray memory monitor",
     "is not a number Ray reads"),
])
def test_each_failing_check_says_what_to_do(lab, case, env, check, words):
    ready(lab)
    kernels = {"KERNELS_H100": {"sgl_kernel": {"files": 3, "elf": ["a.1.sm_90a.cubin", "a.2.sm_100a.cubin"], "ptx": []},
                                "flashinfer": {"files": 1, "elf": ["b.1.sm_80.cubin"], "ptx": ["b.1.sm_90a.ptx"]}},
               "KERNELS_BROKEN": None}
    if env.get("FAKE_KERNELS") in kernels:
        path = lab.tmp / "kernels.json"
        body = kernels[env["FAKE_KERNELS"]]
        path.write_text("Traceback: no python here" if body is None else json.dumps({"packages": body}))
        env = {**env, "FAKE_KERNELS": str(path)}
    if env.get("PATH") == "/nonexistent":
        env = {"PATH": "/usr/bin:/bin"}  # python is found by its full path; no docker, no nvidia-smi
        if any(os.path.exists(os.path.join(d, "docker")) for d in ("/usr/bin", "/bin")):
            pytest.skip("docker is installed in /usr/bin here")
    rc, report, err = preflight(lab, "t-pre", "--skip-smoke", env=env)
    assert rc == 1, report
    c = verdict(report, check)
    assert c["status"] == "fail" and words in c["message"] + c["fix"], c
    assert c["fix"], c


def test_missing_model_data_and_a_leftover_container(lab):
    run = ready(lab)
    (lab.model / "config.json").unlink()
    run["args"][-1] = "/elsewhere/train.parquet"
    lab.write_run(run)
    lab.scenario([{"hang": True}])
    orphan = subprocess.Popen(["docker", "run", "--name", "miles101-t-pre-old", "--label", "miles101.recorder=t-pre",
                               "img"], env=lab.env, stdout=subprocess.DEVNULL)
    try:
        while not lab.leftovers():
            orphan.poll()
        rc, report, _ = preflight(lab, "t-pre", "--skip-smoke")
    finally:
        subprocess.run(["docker", "kill", "miles101-t-pre-old"], env=lab.env)
        orphan.wait()
    assert rc == 1
    assert verdict(report, "leftovers")["fix"].startswith("docker stop miles101-t-pre-old")
    assert "config.json does not exist" in verdict(report, "--hf-checkpoint")["message"]
    assert "under no mount" in verdict(report, "--prompt-data")["message"]
    assert verdict(report, "generation")["status"] == "skip"


def test_smoke_failures_show_the_output(lab):
    ready(lab)
    lab.scenario([{"line": "RuntimeError: CUDA error: no kernel image is available for execution on the device"},
                  {"exit": 1}])
    rc, report, _ = preflight(lab)
    c = verdict(report, "generation")
    assert rc == 1 and c["status"] == "fail" and "no kernel image is available" in c["message"] and "exit 1" in c["message"]
    assert verdict(report, "train step")["status"] == "skip"


def test_a_hung_smoke_run_fails_at_its_timeout(lab):
    ready(lab)
    lab.scenario([{"hang": True}])
    rc, report, _ = preflight(lab, "t-pre", "--generation-timeout", "0.5")
    c = verdict(report, "generation")
    assert rc == 1 and "timed out after 0.5 s" in c["message"]
    assert not lab.leftovers()


def test_an_h100_is_read_too_but_warned(lab):
    ready(lab)
    rc, report, _ = preflight(lab, "t-pre", "--skip-smoke", env={"FAKE_NVSMI": "h100"})
    c = verdict(report, "compute capability")
    assert c["status"] == "warn" and "9.0 (sm_90)" in c["message"]
    assert verdict(report, "driver and CUDA")["status"] == "fail"  # CUDA 12.4 predates sm_121


def test_an_unknown_run_file_is_a_clear_error(lab):
    rc, report, err = preflight(lab, "nope")
    assert rc == 2 and "nope.yaml" in err
