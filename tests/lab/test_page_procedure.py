"""Section 1.1 shows the procedure the recorder runs: the same `ray start` and the same `ray job submit`.

The recorder's one definition is capture.lab.docker.procedure(); the page renders the run file's
arguments through {run-command} and types only the shell around them. This test holds that shell
to the procedure, so the page and the lab cannot drift apart.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from capture.lab.docker import procedure

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md"


def _run_command_options(text: str, run_id: str) -> dict[str, str]:
    """The YAML options of the page's first {run-command} block for run_id (the whole command)."""
    m = re.search(r"```\{run-command\} " + re.escape(run_id) + r"\n---\n(.*?)\n---\n```", text, re.S)
    assert m, f"1.1 has no {{run-command}} {run_id} block with options"
    return yaml.safe_load(m.group(1))


def test_page_ray_start_is_the_recorders() -> None:
    run = yaml.safe_load((ROOT / "capture/runs/first-grpo.yaml").read_text())
    start, _ = procedure(run, (run.get("seeds") or [None])[0])
    assert shlex.join(start) in PAGE.read_text(encoding="utf-8")


def test_page_job_submission_is_the_recorders() -> None:
    run = yaml.safe_load((ROOT / "capture/runs/first-grpo.yaml").read_text())
    _, submit = procedure(run, (run.get("seeds") or [None])[0])
    options = _run_command_options(PAGE.read_text(encoding="utf-8"), "first-grpo")
    shown = shlex.split(" ".join(line.strip() for line in options["prefix"].splitlines()) + " " + options["program"])
    # everything up to and including the program; the arguments come from the run file through the directive
    head = submit[: submit.index("--") + 1 + len(run["entry"])]
    assert shown == head


def _load(run_id: str) -> dict:
    return yaml.safe_load((ROOT / f"capture/runs/{run_id}.yaml").read_text())


def _checklist_block(text: str, starts: str) -> str:
    """The first ```bash block of 1.1 whose first line starts with `starts` (list indentation removed)."""
    for m in re.finditer(r"^( *)```bash\n(.*?)^\1```", text, re.S | re.M):
        body = "\n".join(line[len(m[1]):] for line in m[2].splitlines())
        if body.startswith(starts):
            return body
    raise AssertionError(f"1.1 has no bash block starting with {starts!r}")


def test_the_session_file_holds_the_recorders_ray_start() -> None:
    run = _load("first-grpo")
    start, _ = procedure(run, (run.get("seeds") or [None])[0])
    block = _checklist_block(PAGE.read_text(encoding="utf-8"), "mkdir -p")
    session = re.search(r"cat > ~/miles101/session.sh <<'EOF'\n(.*?)\nEOF\n", block, re.S)
    assert session and shlex.join(start) in session[1].splitlines()


def test_the_session_container_has_the_recorders_flags_and_environment() -> None:
    from capture.lab.docker import RUN_FLAGS

    block = _checklist_block(PAGE.read_text(encoding="utf-8"), "mkdir -p")
    run_line = shlex.split(block[block.index("docker run"):].split("\ndocker ps")[0].replace("\\\n", " "))
    assert run_line[:4] == ["docker", "run", "-d", "--name"] and run_line[4] == "miles"
    assert "--rm" not in run_line  # a stopped container keeps its files: the session survives a stop
    flags = run_line[5:]
    for i in range(len(RUN_FLAGS)):
        assert RUN_FLAGS[i] in flags, RUN_FLAGS[i]
    env = {v.split("=", 1)[0]: v.split("=", 1)[1] for k, v in zip(flags, flags[1:]) if k == "-e"}
    assert env == _load("first-grpo")["env"]  # what the recorder passes with -e
    mounts = dict(v.split(":", 1)[::-1] for k, v in zip(flags, flags[1:]) if k == "-v")
    for path in ("/root/models", "/root/datasets", "/root/logs", "/root/checkpoints", "/root/miles101"):
        assert path in mounts, path
    assert mounts["/root/miles101"] == "~/miles101"
    for m in _load("first-grpo")["mounts"]:  # every run-file mount lies under a session mount
        assert any(m["container"].startswith(c + "/") for c in mounts), m


def test_the_readers_preflight_checks_the_run_files_settings() -> None:
    run = _load("first-grpo")
    block = _checklist_block(PAGE.read_text(encoding="utf-8"), "cd ~/miles-logs\npython3 preflight.py")
    argv = shlex.split(block.split("\n", 1)[1].replace("\\\n", " "))
    given = dict(zip(argv[2::2], argv[3::2]))
    args = dict(zip(run["args"], run["args"][1:]))
    assert given["--image"] == run["image"]
    assert given["--model"] == args["--hf-checkpoint"] and given["--data"] == args["--prompt-data"]
    assert given["--attention-backend"] == args["--sglang-attention-backend"]


def test_the_smoke_run_is_first_grpo_cut_to_two_rollouts() -> None:
    run, smoke = _load("first-grpo"), _load("first-grpo-smoke")
    assert smoke["steps"] == 2
    i = run["args"].index("--num-rollout")
    assert smoke["args"] == run["args"][: i + 1] + ["2"] + run["args"][i + 2:]
    for key in ("image", "entry", "launch", "env", "mounts", "seeds"):
        assert smoke.get(key) == run.get(key), key


def test_page_smoke_submission_is_the_recorders() -> None:
    run = _load("first-grpo-smoke")
    _, submit = procedure(run, (run.get("seeds") or [None])[0])
    text = PAGE.read_text(encoding="utf-8")
    m = re.search(r"```\{run-command\} first-grpo-smoke\n\s*---\n(.*?)\n\s*---\n\s*```", text, re.S)
    assert m, "1.1 has no {run-command} first-grpo-smoke block"
    options = yaml.safe_load("\n".join(line[3:] for line in m[1].splitlines()))
    shown = shlex.split(" ".join(line.strip() for line in options["prefix"].splitlines()) + " " + options["program"])
    assert shown == submit[: submit.index("--") + 1 + len(run["entry"])]
    assert options["suffix"].endswith("/root/logs/first-grpo-smoke.log")
