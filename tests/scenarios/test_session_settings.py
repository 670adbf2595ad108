"""One session file holds every setting a page adds: 2.3's Ray threshold and 7.1's ptxas path, written
into session.sh above its `ray start` line, are in force for Ray and for the job after a restart."""
from __future__ import annotations

import json
import re

from readerpath import PREFLIGHT_HERE, ROOT, block_with, checklist_steps

PAGE = "1-1-run-grpo-on-one-gpu.md"


def session(reader) -> None:
    """1.1 steps 3 and 6: the container and the session file, then Ray."""
    steps = checklist_steps()
    assert steps[2].prompts == steps[5].prompts == ["host"]
    assert reader.host(steps[2].blocks[0]).rc == 0
    res = reader.host(steps[5].blocks[0])  # `docker exec miles bash /root/miles101/session.sh`
    assert res.rc == 0 and "Ray runtime started." in res.out, res.err


def ptxas_line() -> str:
    """The line 7.1's ptxas fix tells you to add to the session file."""
    text = (ROOT / "sections" / "7-1-troubleshoot-by-symptom.md").read_text(encoding="utf-8")
    fix = text.split("(gb10-ptxas-sm121a)=", 1)[1].split("**Fix.**", 1)[1].split("**Source.**", 1)[0]
    assert "session file" in fix and "above its `ray start` line" in " ".join(fix.split())
    return re.search(r"`(export TRITON_PTXAS_PATH=[^`]+)`", fix)[1]


def test_2_3_and_7_1_settings_hold_after_a_restart(reader):
    session(reader)
    sed = block_with("2-3-stop-ray-killing-the-job.md", "session.sh")
    assert reader.host(sed).rc == 0
    line = ptxas_line()  # typed into the file by hand, as 7.1 says: above `ray start`
    path = reader.home / "miles101" / "session.sh"
    lines = path.read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("ray start"))
    path.write_text("\n".join([*lines[:at], line, *lines[at:]]) + "\n")
    lines = path.read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("ray start"))
    assert "export RAY_memory_usage_threshold=0.98" in lines[:at] and line in lines[:at]
    head = json.loads((reader.ray_state() / "head.json").read_text())
    assert "RAY_memory_usage_threshold" not in head["env"]  # the running Ray started before the edit (2.3)

    res = reader.host(block_with(PAGE, "docker restart miles"))  # start the session again (1.1)
    assert res.rc == 0 and "Ray runtime started." in res.out, res.err
    head = json.loads((reader.ray_state() / "head.json").read_text())
    assert head["env"]["RAY_memory_usage_threshold"] == "0.98"  # the raylet starts with it
    assert head["env"]["TRITON_PTXAS_PATH"] == "/usr/local/cuda/bin/ptxas"
    assert head["env"]["no_proxy"] == "127.0.0.1,localhost"  # docker run -e survives the restart

    res = reader.container(checklist_steps()[6].blocks[1])  # step 7's smoke run, in the container's shell
    assert res.rc == 0 and "Job 'first-grpo-smoke' succeeded" in res.out, res.err
    job = json.loads((reader.ray_state() / "jobs" / "first-grpo-smoke.json").read_text())
    assert job["env"]["TRITON_PTXAS_PATH"] == "/usr/local/cuda/bin/ptxas"  # the job's workers see it

    res = reader.host(block_with(PAGE, "docker restart miles"))  # and again: the file keeps both
    head = json.loads((reader.ray_state() / "head.json").read_text())
    assert head["env"]["RAY_memory_usage_threshold"] == "0.98" and "TRITON_PTXAS_PATH" in head["env"]


def test_2_3s_edit_puts_the_export_right_above_ray_start(reader):
    session(reader)
    sed = block_with("2-3-stop-ray-killing-the-job.md", "session.sh")
    res = reader.host(sed)
    assert res.rc == 0
    shown = res.out.splitlines()  # the page's `cat` shows the file
    assert shown[-2] == "export RAY_memory_usage_threshold=0.98" and shown[-1].startswith("ray start --head")


def ray_check(reader) -> dict:
    """1.1 step 5's preflight (its JSON, generation skipped): the `ray memory monitor` verdict."""
    reader.download_tools()
    block = checklist_steps()[4].blocks[0]
    res = reader.host(block + " " + " ".join([*PREFLIGHT_HERE, "--skip-smoke", "--json"]), timeout=120)
    report = json.loads(res.out[res.out.index("{"):])
    return next(c for c in report["checks"] if c["name"] == "ray memory monitor")


def test_step_5s_ray_warning_goes_once_2_3s_line_is_in_the_session_file(reader):
    """1.1 step 5 says the warning is expected until 2.3 sets the threshold; after 2.3's edit it passes."""
    session(reader)
    before = ray_check(reader)
    assert before["status"] == "warn" and "~/miles101/session.sh" in before["fix"], before
    assert reader.host(block_with("2-3-stop-ray-killing-the-job.md", "session.sh")).rc == 0
    after = ray_check(reader)
    assert after["status"] == "pass" and "RAY_memory_usage_threshold=0.98" in after["message"], after


def test_2_3s_edit_keeps_a_linked_file_reads_an_indented_ray_start_and_adds_once(reader):
    """The session file as a link to the reader's own copy, its `ray start` indented: the edit goes into the
    linked file, above the indented line, once however often the block runs; no `ray start` line is said."""
    session(reader)
    path = reader.home / "miles101" / "session.sh"
    real = reader.home / "my-session.sh"
    real.write_text(path.read_text().replace("\nray start", "\n  ray start"))
    path.unlink()
    path.symlink_to(real)
    sed = block_with("2-3-stop-ray-killing-the-job.md", "session.sh")
    assert reader.host(sed).rc == 0 and reader.host(sed).rc == 0
    assert path.is_symlink()
    lines = real.read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ray start"))
    assert lines[at - 1] == "export RAY_memory_usage_threshold=0.98"
    assert sum(ln.startswith("export RAY_memory_usage_threshold=") for ln in lines) == 1
    real.write_text("export A=1\n")  # no `ray start` line at all
    res = reader.host(sed)
    assert "no ray start line in" in res.out and "export RAY_memory_usage_threshold" not in real.read_text()
