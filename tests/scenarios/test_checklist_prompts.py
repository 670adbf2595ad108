"""Each command of 1.1's checklist at its prompt (issue 57 item 4): one-shot container commands run from the
host as `docker exec miles …`, the container's interactive shell is entered once, and each step's heading
names its prompt. test_first_run.py replays the steps at the prompts they name; this file holds the rules
and shows that a command at the wrong prompt fails on the stand-ins."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from readerpath import ENTER, PREFLIGHT_HERE, Terminal, checklist_steps

#: Commands only the container has (the image's Ray, Hugging Face CLI and Miles), and the one only the host has.
IN_CONTAINER = re.compile(r"^\s*(ray|hf)\b|python3 /root/miles/", re.M)
ON_HOST = re.compile(r"^\s*docker\b", re.M)


def test_each_step_names_its_prompt_and_the_shell_is_entered_once() -> None:
    steps = checklist_steps()
    assert [s.number for s in steps] == list(range(1, 10))
    blocks = [(s, p, b) for s in steps for p, b in zip(s.prompts, s.blocks)]
    entered = [i for i, (_, _, b) in enumerate(blocks) if b.strip() == ENTER]
    assert len(entered) == 1, "the container's interactive shell is entered once"
    assert blocks[entered[0]][1] == "host"
    for i, (step, prompt, block) in enumerate(blocks):
        if prompt == "container":
            assert i > entered[0], f"{step.title}: a container block before the shell is entered"
            assert not ON_HOST.search(block), f"{step.title}: docker at the container's prompt"
        else:
            bare = re.sub(r"<<'(\w+)'\n.*?^\1$", "", block, flags=re.S | re.M)  # a file's text, not a command
            bare = "\n".join(ln for ln in bare.splitlines() if not re.match(r"\s*docker exec ", ln))
            assert not IN_CONTAINER.search(bare), f"{step.title}: a container command on the host without docker exec"
            assert "-it" not in block or block.strip() == ENTER, f"{step.title}: a one-shot command needs no -it"


def _session(reader) -> Terminal:
    """Steps 1, 3, 4 and 6 at their prompts: the image, the container, the model and data, Ray."""
    steps = {s.number: s for s in checklist_steps()}
    term = Terminal(reader)
    for n in (1, 3, 4, 6):
        res = term.run(steps[n].prompts[0], steps[n].blocks[0])
        assert res.rc == 0, (steps[n].title, res.err)
    return term


def test_the_setup_steps_at_the_containers_prompt_fail(reader) -> None:
    """Steps 1, 4 and 6 typed into the container's shell: its docker is missing, as in the image."""
    term = _session(reader)
    steps = {s.number: s for s in checklist_steps()}
    assert term.run("host", ENTER).rc == 0 and term.shell
    for n in (1, 4, 6):
        res = term.run("container", steps[n].blocks[0])
        assert res.rc == 127 and "docker: command not found" in res.err, (steps[n].title, res.rc, res.err)
        assert res.err.count("command not found") == 1  # it stops at the first refused line


def test_the_container_commands_on_the_host_fail(reader, tmp_path) -> None:
    """The smoke run's launch, the session file's `ray start` and `hf download`, typed on the host."""
    term = _session(reader)
    steps = {s.number: s for s in checklist_steps()}
    launch = steps[7].blocks[1].replace("/root/logs/", f"{tmp_path}/")  # its tee writes nowhere real
    for block in (launch, "bash ~/miles101/session.sh",
                  "hf download Qwen/Qwen3-0.6B --local-dir ~/models/Qwen3-0.6B"):
        res = term.run("host", block)
        assert res.rc == 127 and "stand-in container" in res.out + res.err, (block[:60], res.rc, res.err)


def test_a_step_that_names_the_wrong_prompt_fails_the_replay(reader) -> None:
    """Step 6 relabelled `container` (the page before issue 57 said so): the replay stops there."""
    term = _session(reader)
    step6 = next(s for s in checklist_steps() if s.number == 6)
    wrong = replace(step6, named=["container"])
    with pytest.raises(AssertionError, match="before any step opens its shell"):
        term.run(wrong.prompts[0], wrong.blocks[0])
    term.run("host", ENTER)
    assert term.run(wrong.prompts[0], wrong.blocks[0]).rc != 0


def test_the_preflight_at_the_containers_prompt_fails(reader) -> None:
    """Step 5 runs docker itself (its short containers of the image), so it needs the host."""
    term = _session(reader)
    step5 = next(s for s in checklist_steps() if s.number == 5)
    term.run("host", ENTER)
    reader.download_tools()
    res = term.run("container", step5.blocks[0] + " " + " ".join(PREFLIGHT_HERE), timeout=120)
    assert res.rc != 0 and "preflight: 0 failed" not in res.out, res.out[-400:]
