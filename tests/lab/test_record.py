"""The recorder against stand-in docker and nvidia-smi: every fault, and what it leaves behind."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from capture.lab.rehearsal import mileslog as ml
from labutil import base_run

# The recorder end to end: a Python process per stand-in docker call and real timeouts, seconds a test.
pytestmark = pytest.mark.slow


def old_recording(lab, run_id: str) -> bytes:
    """A valid recording from before, to prove a failed attempt loses nothing."""
    d = lab.gpu / run_id
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"schema": "run/1", "id": run_id, "status": "valid", "marker": "old"}))
    return (d / "run.json").read_bytes()


def assert_failed_kept(lab, run_id: str, old: bytes, *words: str) -> dict:
    """Exactly one failed attempt, the old recording untouched, no temp dir left."""
    assert (lab.gpu / run_id / "run.json").read_bytes() == old
    attempts = lab.attempts()
    assert len(attempts) == 1, attempts
    rj = lab.run_json(attempts[0])
    assert rj["status"] == "failed"
    for w in words:
        assert w in rj["reason"], rj["reason"]
    assert not list(lab.gpu.glob(".tmp-*")) and not list(lab.gpu.glob(".old-*"))
    return rj


def test_healthy_run_is_recorded_with_values(lab):
    run = base_run("t-ok", lab.model, steps=3)
    lab.write_run(run)
    lab.scenario(lab.lines(ml.healthy(3), delay=0.01))
    res = lab.record("t-ok")
    assert res.returncode == 0, res.stderr
    d = lab.gpu / "t-ok"
    rj = lab.run_json(d)
    assert rj["status"] == "valid" and rj["exit_code"] == 0 and rj["steps_done"] == 3 == rj["steps_planned"]
    assert rj["miles_commit"] == "31f1ca961a94cb860cec3b2dea34ec332bfa8f76"
    assert rj["image_digest"] == "radixark/miles@sha256:" + "2" * 64
    assert rj["command"][:2] == ["docker", "run"] and "--ipc=host" in rj["command"]
    # The reader's procedure of 1.1, inside the image: Ray started, then the job submitted.
    assert rj["launch"] == "ray-job"
    start, submit = rj["procedure"]
    assert start == ["ray", "start", "--head", "--node-ip-address", "127.0.0.1", "--num-gpus", "1",
                     "--disable-usage-stats"]
    assert submit[:6] == ["ray", "job", "submit", "--address", "http://127.0.0.1:8265", "--submission-id"]
    assert submit[submit.index("--") + 1:][:2] == ["python3", "/root/miles/train.py"]
    assert json.loads(submit[submit.index("--runtime-env-json") + 1]) == {"env_vars": {"PYTHONUNBUFFERED": "1"}}
    assert submit[-4:] == ["--seed", "1234", "--rollout-seed", "42"]  # the run file's own: the recorder adds none
    assert rj["command"][-3:-1] == ["bash", "-c"] and "ray start --head" in rj["command"][-1]
    assert "--label" in rj["command"] and "miles101.recorder=t-ok" in rj["command"]
    assert rj["containers"][0]["procedure"] == rj["procedure"]
    host = json.loads((d / "host.json").read_text())
    assert host["gpu"] == "NVIDIA GB10" and host["cuda"] == "13.0"
    steps = [json.loads(x) for x in (d / "steps.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == [0, 1, 2] and all(s["seed"] == 1234 for s in steps)
    assert steps[0]["eval_before"] == {"eval/gsm8k": 0.3, "eval/gsm8k-truncated_ratio": 0.0}
    assert steps[2]["eval"]["eval/gsm8k"] == 0.5
    values = json.loads((d / "values.json").read_text())
    v = values["values"]
    assert v["reward"] == {"value": 0.45, "unit": "", "statistic": "median", "n": 3, "steps": "0-2",
                           "source": "rollout/raw_reward"}
    assert v["step_time"]["value"] == 61.5 and v["step_time"]["n"] == 2 and v["step_time"]["steps"] == "1-2"
    assert v["wake_mem"]["value"] == 6.7 and v["final_eval"]["value"] == 0.5
    assert v["interval"]["value"] > 0
    # --check recomputes values.json from the steps with the same pure function
    from miles101.values import derive_values
    import yaml
    assert derive_values(yaml.safe_load((lab.runs / "t-ok.yaml").read_text()), steps) == values
    assert "seed 1234: docker run" in (d / "log.txt").read_text().splitlines()[0]
    assert not lab.attempts()
    # A second recording is refused without --force, and the first one stays.
    again = lab.record("t-ok")
    assert again.returncode == 1 and "--force" in again.stderr
    assert lab.run_json(d)["start"] == rj["start"]


def test_force_replaces_only_when_the_new_one_is_valid(lab):
    old = old_recording(lab, "t-force")
    lab.write_run(base_run("t-force", lab.model, steps=2))
    lab.scenario(lab.lines(ml.healthy(2)))
    res = lab.record("t-force", extra=["--force"])
    assert res.returncode == 0, res.stderr
    assert (lab.gpu / "t-force" / "run.json").read_bytes() != old
    assert lab.run_json(lab.gpu / "t-force")["status"] == "valid"


def test_engine_dies_mid_rollout_watchdog_stops_it(lab):
    old = old_recording(lab, "t-dead")
    lab.write_run(base_run("t-dead", lab.model, steps=3))
    lines = ml.healthy(3)[:3] + ml.step_lines(0)
    lab.scenario([{"engine": "start"}, *lab.lines(lines), {"line": ml.rollout_bar()}, {"sleep": 0.5},
                  {"engine": "kill"}, {"hang": True}])
    res = lab.record("t-dead", extra=["--force"])
    assert res.returncode == 1, res.stderr
    rj = assert_failed_kept(lab, "t-dead", old, "/health_generate", "during rollout")
    assert [e["kind"] for e in rj["events"]] == ["watchdog"]
    assert rj["steps_done"] == 1 and rj["exit_code"] == 143
    assert any(c.startswith("stop -t 2 miles101-t-dead") for c in lab.calls())


def test_engine_dies_and_miles_gives_up_retrying(lab):
    old = old_recording(lab, "t-retry")
    lab.write_run(base_run("t-retry", lab.model, steps=3))
    lines = ml.healthy(3)[:3] + ml.step_lines(0) + [ml.rollout_bar(), *ml.retry_lines()]
    lab.scenario([*lab.lines(lines), {"hang": True}])
    res = lab.record("t-retry", extra=["--force"])
    assert res.returncode == 1
    assert_failed_kept(lab, "t-retry", old, "Max", "60 retries", "unreachable")


def test_hang_without_progress_is_stopped(lab):
    old = old_recording(lab, "t-hang")
    lab.write_run(base_run("t-hang", lab.model, steps=3))
    lab.scenario([{"engine": "start"}, *lab.lines(ml.healthy(3)[:3] + ml.step_lines(0)), {"hang": True}])
    t0 = time.monotonic()
    res = lab.record("t-hang", extra=["--force", "--stall-after", "1.5"])
    assert res.returncode == 1
    assert time.monotonic() - t0 < 15
    rj = assert_failed_kept(lab, "t-hang", old, "no step finished", "last finished: step 0")
    assert rj["events"][0]["kind"] == "watchdog"


def test_overheating_pauses_then_stops(lab):
    old = old_recording(lab, "t-hot")
    lab.write_run(base_run("t-hot", lab.model, steps=3))
    lab.temps.write_text("\n".join(["50", "88", "88", "70", "60", "95"]))
    lab.scenario([*lab.lines(ml.healthy(3)[:3] + ml.step_lines(0)), {"hang": True}])
    res = lab.record("t-hot", extra=["--force", "--stall-after", "60", "--heat-poll", "0.2"])
    assert res.returncode == 1, res.stderr
    rj = assert_failed_kept(lab, "t-hot", old, "95 °C", "stop threshold 92")
    details = [(e["kind"], e["detail"]) for e in rj["events"]]
    assert [k for k, _ in details] == ["heat", "heat", "heat"]
    assert "paused" in details[0][1] and "resumed" in details[1][1]
    calls = [c.split()[0] for c in lab.calls()]
    assert calls.index("pause") < calls.index("unpause") < calls.index("stop")


def test_out_of_memory_kill(lab):
    old = old_recording(lab, "t-oom")
    lab.write_run(base_run("t-oom", lab.model, steps=3))
    lab.scenario([*lab.lines(ml.healthy(3)[:3] + ml.step_lines(0)), {"exit": 137, "oom": True}])
    res = lab.record("t-oom", extra=["--force"])
    assert res.returncode == 1
    rj = assert_failed_kept(lab, "t-oom", old, "out of memory", "exit 137", "OOMKilled")
    assert rj["exit_code"] == 137 and rj["containers"][0]["oom_killed"] is True
    assert [e["kind"] for e in rj["events"]] == ["oom"]
    steps = (lab.attempts()[0] / "steps.jsonl").read_text().splitlines()
    assert len(steps) == 1  # what came before the kill is kept, as failed data


def wait_for_step(proc, text: str = "1 of 3 steps done") -> list[str]:
    """Block until the recorder reports a finished step on stderr (an event, not a clock)."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if text in line:
            return seen
    raise AssertionError("the recorder ended before a step finished:\n" + "".join(seen))


@pytest.mark.parametrize("sig, rc, words", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"),
                                            (signal.SIGTERM, 143, "interrupted (SIGTERM)"),
                                            (signal.SIGHUP, 129, "interrupted (SIGHUP)")])
def test_a_signal_stops_the_container_and_keeps_the_attempt(lab, sig, rc, words):
    old = old_recording(lab, "t-int")
    lab.write_run(base_run("t-int", lab.model, steps=3))
    lab.scenario([*lab.lines(ml.healthy(3)[:3] + ml.step_lines(0)), {"hang": True}])
    proc = lab.popen("t-int", extra=["--force", "--stall-after", "600"])
    wait_for_step(proc)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)  # a safety net only: the stop itself is event driven
    assert proc.returncode == rc, err
    rj = assert_failed_kept(lab, "t-int", old, words)
    assert rj["events"][0]["kind"] == "interrupt" and rj["steps_done"] == 1
    assert rj["containers"][0]["steps_done"] == 1
    assert any(c.startswith("stop ") for c in lab.calls())
    assert not lab.leftovers()


def test_a_killed_recorders_container_is_found_by_its_label(lab):
    lab.write_run(base_run("t-kill", lab.model, steps=3))
    lab.scenario([*lab.lines(ml.healthy(3)[:3] + ml.step_lines(0)), {"hang": True}])
    proc = lab.popen("t-kill", extra=["--stall-after", "600"])
    wait_for_step(proc)
    proc.kill()  # SIGKILL: no handler runs, the container stays
    proc.communicate(timeout=60)
    (orphan,) = lab.leftovers()
    # The next recording refuses, naming the command that stops the orphan; nothing new starts.
    runs_before = sum(c.startswith("run --name") for c in lab.calls())
    res = lab.record("t-kill")
    assert res.returncode == 1
    assert f"docker stop {orphan}" in res.stderr and "--stop-leftovers" in res.stderr
    assert sum(c.startswith("run --name") for c in lab.calls()) == runs_before
    assert lab.leftovers() == [orphan]
    # The killed attempt was moved aside, marked failed ("did not finish").
    (kept,) = lab.attempts()
    assert lab.run_json(kept)["status"] == "failed" and "did not finish" in lab.run_json(kept)["reason"]
    # --stop-leftovers stops it and records.
    lab.scenario(lab.lines(ml.healthy(3)))
    res = lab.record("t-kill", extra=["--stop-leftovers"])
    assert res.returncode == 0, res.stderr
    assert f"stopped the leftover container {orphan}" in res.stderr
    assert f"stop -t 30 {orphan}" in lab.calls() and not lab.leftovers()


@pytest.mark.parametrize("where", ["under-a-file", "read-only"])
def test_record_into_an_unwritable_directory_says_so(lab, where):
    lab.write_run(base_run("t-ro", lab.model))
    if where == "under-a-file":
        (lab.tmp / "afile").write_text("")
        gpu = lab.tmp / "afile" / "gpu"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into a read-only directory")
        gpu = lab.tmp / "ro"
        gpu.mkdir()
        gpu.chmod(0o555)
    res = subprocess_record(lab, "t-ro", gpu)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert f"cannot write recordings under {gpu}" in res.stderr and "--gpu-dir" in res.stderr
    assert not any(c.startswith("run ") for c in lab.calls())


def subprocess_record(lab, run_id: str, gpu) -> "subprocess.CompletedProcess[str]":
    argv = lab.argv(run_id)
    argv[argv.index("--gpu-dir") + 1] = str(gpu)
    return subprocess.run(argv, env=lab.env, capture_output=True, text=True, timeout=60)


def test_full_disk_while_writing(lab, tmp_path):
    import subprocess

    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(small)],
                      capture_output=True).returncode != 0:
        import pytest
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        lab.gpu = small
        lab.gpu.mkdir(exist_ok=True)
        old = old_recording(lab, "t-full")
        lab.write_run(base_run("t-full", lab.model, steps=3))
        filler = ml.step_lines(0) + ["x" * 1000] * 400 + [{"hang": True}]
        lab.scenario([{"line": x} if isinstance(x, str) else x for x in filler])
        res = lab.record("t-full", extra=["--force", "--stall-after", "60"])
        assert res.returncode == 1, res.stderr
        rj = assert_failed_kept(lab, "t-full", old, "disk full")
        assert rj["events"][0]["kind"] == "disk"
    finally:
        subprocess.run(["umount", str(small)], check=False)


def test_unknown_flag_is_refused_before_anything_starts(lab):
    run = base_run("t-bad", lab.model)
    run["args"][2] = "--colocat"
    lab.write_run(run)
    res = lab.record("t-bad")
    assert res.returncode == 2
    assert "args[2] '--colocat': Miles has no such flag; nearest: --colocate" in res.stderr
    assert "t-bad.yaml" in res.stderr
    assert lab.calls() == [] and not any(lab.gpu.iterdir())


def test_dry_run_prints_the_command_and_starts_nothing(lab):
    lab.write_run(base_run("t-dry", lab.model))
    res = lab.record("t-dry", extra=["--dry-run"])
    assert res.returncode == 0, res.stderr
    cmd = [ln for ln in res.stdout.splitlines() if ln.startswith("docker run")]
    assert len(cmd) == 1
    assert "--gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 --network=host" in cmd[0]
    assert f"-v {lab.model}:/root/models/test" in cmd[0]
    assert cmd[0].endswith("--seed 1234 --rollout-seed 42'")
    out = res.stdout.splitlines()
    ray = [ln for ln in out if ln.startswith("ray ")]
    assert ray[0] == "ray start --head --node-ip-address 127.0.0.1 --num-gpus 1 --disable-usage-stats"
    assert ray[1].startswith("ray job submit --address http://127.0.0.1:8265 --submission-id t-dry --runtime-env-json ")
    assert " -- python3 /root/miles/train.py --train-backend fsdp" in ray[1]
    assert out.index(ray[0]) < out.index(ray[1]) < out.index(cmd[0])
    assert lab.calls() == []


def test_direct_launch_runs_the_entry_as_the_container_command(lab):
    run = base_run("t-direct", lab.model)
    run["launch"] = "direct"
    lab.write_run(run)
    res = lab.record("t-direct", extra=["--dry-run"])
    assert res.returncode == 0, res.stderr
    cmd = [ln for ln in res.stdout.splitlines() if ln.startswith("docker run")][0]
    assert "radixark/miles:latest python3 train.py --train-backend fsdp" in cmd and "ray " not in cmd


def test_preflight_failure_says_what_to_do(lab):
    run = base_run("t-pre", lab.model)
    run["image"] = "radixark/miles:missing"
    run["mounts"].append({"host": str(lab.tmp / "nowhere"), "container": "/root/data"})
    lab.write_run(run)
    res = lab.record("t-pre")
    assert res.returncode == 1
    assert "docker pull radixark/miles:missing" in res.stderr
    assert "nowhere does not exist" in res.stderr
    assert not lab.attempts() and not (lab.gpu / "t-pre").exists()
    assert not any(c.startswith("run ") for c in lab.calls())


def test_multi_seed_rows_carry_their_seed_and_spread(lab):
    run = base_run("t-seeds", lab.model, steps=2)
    run["seeds"] = [1, 2]
    run["args"] = run["args"][:-4] + ["--rollout-seed", 42]  # several seeds: the recorder passes each --seed
    lab.write_run(run)
    lab.scenario(lab.lines(ml.healthy(2)))
    res = lab.record("t-seeds")
    assert res.returncode == 0, res.stderr
    d = lab.gpu / "t-seeds"
    rows = [json.loads(x) for x in (d / "steps.jsonl").read_text().splitlines()]
    assert [(r["seed"], r["step"]) for r in rows] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    v = json.loads((d / "values.json").read_text())["values"]["reward"]
    assert v["seeds"] == [1, 2] and v["seed_spread"] == 0 and v["seed_std"] == 0 and v["n"] == 4
    rj = lab.run_json(d)
    assert [c["procedure"][-1][-4:] for c in rj["containers"]] == [["--rollout-seed", "42", "--seed", "1"],
                                                                   ["--rollout-seed", "42", "--seed", "2"]]
    # one Ray job per seed, named as the page's loop names it (miles101.runfiles.submission_id)
    assert [c["procedure"][-1][c["procedure"][-1].index("--submission-id") + 1] for c in rj["containers"]] == \
        ["t-seeds-1", "t-seeds-2"]
    assert rj["steps_planned"] == 4 == rj["steps_done"]


def test_short_run_is_not_valid(lab):
    lab.write_run(base_run("t-short", lab.model, steps=3))
    lab.scenario(lab.lines(ml.healthy(2)))
    res = lab.record("t-short")
    assert res.returncode == 1
    assert not (lab.gpu / "t-short").exists()
    assert "finished 2 of 3 steps" in lab.run_json(lab.attempts()[0])["reason"]


def test_nan_in_the_log_is_reported_with_its_line_not_averaged(lab):
    lab.write_run(base_run("t-nan", lab.model, steps=3))
    lines = ml.healthy(3)
    bad = next(i for i, ln in enumerate(lines) if "perf 1: {" in ln and "perf/step_time" in ln)
    lines[bad] = ml.trainer_perf(1, step_time=float("nan"))
    lab.scenario(lab.lines(lines))
    res = lab.record("t-nan")
    assert res.returncode == 0, res.stderr
    d = lab.gpu / "t-nan"
    log = (d / "log.txt").read_text().split("\n")
    rj = lab.run_json(d)
    (line_no,) = {int(p.split(":")[0].split()[1]) for p in rj["log_problems"] if "perf/step_time" in p}
    assert "perf 1: {" in log[line_no - 1] and "nan" in log[line_no - 1]
    assert f"log.txt line {line_no}: perf_train 1: perf/step_time = nan" in res.stderr
    v = json.loads((d / "values.json").read_text())["values"]["step_time"]
    assert v["value"] == 62.0 and v["n"] == 1 and v["expected"] == 2 and v["excluded"] == ["step 1 of seed 1234: nan"]
    assert "note: value step_time is the median of 1 of the 2 steps declared" in res.stderr


def test_engine_dead_before_its_first_probe_is_caught_from_the_probe(lab):
    lab.write_run(base_run("t-early", lab.model, steps=3))
    lab.scenario([{"engine": "start"}, {"line": ml.engine_line()}, {"engine": "kill"}, {"line": ml.rollout_bar()},
                  {"hang": True}])
    res = lab.record("t-early", extra=["--stall-after", "600"], timeout=120)
    assert res.returncode == 1, res.stderr
    rj = lab.run_json(lab.attempts()[0])
    assert "never answered /health_generate" in rj["reason"] and rj["steps_done"] == 0
    assert [e["kind"] for e in rj["events"]] == ["watchdog"]


def test_engine_dead_before_its_first_probe_is_caught_from_the_log(lab):
    lab.write_run(base_run("t-early-log", lab.model, steps=3))
    said = "[2026-03-13 14:24:23] Received sigquit from a child process. It usually means the child failed."
    lab.scenario([{"line": ml.engine_line()}, {"line": said}, {"hang": True}])
    res = lab.record("t-early-log", extra=["--stall-after", "600"], timeout=120)
    assert res.returncode == 1, res.stderr
    rj = lab.run_json(lab.attempts()[0])
    assert "died before its first good health probe" in rj["reason"] and "Received sigquit" in rj["reason"]


def test_pool_memory_is_sampled_with_the_phase(lab):
    import jsonschema

    from capture.lab.record import RECORDING_SCHEMA

    lab.write_run(base_run("t-pool", lab.model, steps=2))
    lab.scenario(lab.lines(ml.healthy(2), delay=0.05))
    res = lab.record("t-pool", extra=["--pool-poll", "0.05"])
    assert res.returncode == 0, res.stderr
    d = lab.gpu / "t-pool"
    rows = [json.loads(x) for x in (d / "pool.jsonl").read_text().splitlines()]
    schema = json.loads(RECORDING_SCHEMA.read_text())
    for r in rows:
        jsonschema.validate(r, {"$ref": "#/$defs/pool_row", "$defs": schema["$defs"]})
    assert len(rows) >= 3 and {r["phase"] for r in rows} >= {"start", "update"}
    assert [r["t"] for r in rows] == sorted(r["t"] for r in rows)
    assert lab.run_json(d)["pool"]["interval_s"] == 0.05


def test_a_ctrl_c_while_the_recorder_starts_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    """Ctrl-C while the recorder reads its run files (before any signal handler or container): exit 130 and one
    line that says nothing was started, where a KeyboardInterrupt traceback was."""
    from capture.lab import record as record_module

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(record_module.Catalog, "load", interrupted)
    rc = record_module.main(["some-run", "--gpu-dir", str(tmp_path / "gpu")])
    err = capsys.readouterr().err
    assert rc == 130 and "interrupted (Ctrl-C) while reading the run files: nothing was started" in err
    assert not (tmp_path / "gpu").exists()
