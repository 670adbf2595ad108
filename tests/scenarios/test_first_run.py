"""1.1's checklist from step 1 to step 9, in the page's order, on the stand-ins, each block at the prompt
its step names (the stand-ins refuse docker in the container, ray and hf on the host): each step's
commands lead to the step's *Success* sample."""
from __future__ import annotations

import json
import re
from pathlib import Path

from readerpath import PREFLIGHT_HERE, ROOT, Terminal, checklist_steps


WATCH_FAST = ["--poll", "0.2"]  # the page's watchdog line, polled faster than its default (a test's time)
#: Step 2's image, served by the drift tests' stand-in docker (tests/lab/test_compare_image.py) from a
#: fixture Miles tree that is not the commit the book read: the comparison must end in a verdict of step 2.
IMAGE_DOCKER = ROOT / "tests" / "lab" / "fixtures" / "imagedocker" / "docker"
IMAGE = {"radixark/miles:latest": {"tree": str(ROOT / "tests" / "capture" / "fixtures" / "drift_new"),
                                   "commit": "b" * 40, "date": "2026-11-02", "digest": "sha256:" + "2" * 64}}


def compare_image(term: Terminal, step) -> tuple[int, str]:
    """Step 2: the downloads, then its block; the verdict line and exit status must be one the step lists."""
    term.reader.download_tools()
    res = term.run(step.prompts[0], step.blocks[0], timeout=120,
                   env={"MILES101_DOCKER": str(IMAGE_DOCKER), "FAKE_MILES_IMAGES": json.dumps(IMAGE)})
    last = res.out.strip().splitlines()[-1] if res.out.strip() else res.err
    listed = dict(re.findall(r"`(verdict: [^`]+)` \(exit `(\d)`\)", step.text))
    assert last.startswith("verdict: ") and any(last.startswith(v) and res.rc == int(c) for v, c in listed.items()), \
        (res.rc, last, listed, res.err)
    return res.rc, res.out


def first_run(reader, watch_extra: list[str] = WATCH_FAST) -> dict[int, str]:
    """Steps 1 to 9 of 1.1, each block at the prompt its step names; the output of each step, checked
    against the step's sample on the way."""
    steps = {s.number: s for s in checklist_steps()}
    assert sorted(steps) == list(range(1, 10))
    term = Terminal(reader)
    out: dict[int, str] = {}
    for n in (1, 2, 3, 4):
        if n == 2:
            out[n] = compare_image(term, steps[n])[1]
            continue
        res = term.run(steps[n].prompts[0], steps[n].blocks[0])
        assert res.rc == 0, (steps[n].title, res.err)
        out[n] = res.out
    assert "Status: " in out[1] and "radixark/miles:latest" in out[1]
    assert out[2].splitlines()[0].startswith("image  radixark/miles:latest: Miles bbbbbbbbb of 2026-11-02")
    assert out[3].splitlines()[-1].startswith("miles Up")
    assert "models/Qwen3-0.6B/config.json" in out[4] and "datasets/gsm8k/train.parquet" in out[4]

    (reader.home.parent / "scenario.json").write_text(json.dumps([{"line": "miles101-preflight generated: ' Paris.'"}]))
    res = term.run(steps[5].prompts[0], steps[5].blocks[0] + " " + " ".join(PREFLIGHT_HERE), timeout=120)
    assert res.rc == 0, res.out + res.err
    assert res.out.strip().splitlines()[-1].startswith("preflight: 0 failed"), res.out

    res = term.run(steps[6].prompts[0], steps[6].blocks[0])
    assert res.rc == 0 and "Ray runtime started." in res.out, res.err

    enter, smoke = steps[7].blocks
    assert term.run(steps[7].prompts[0], enter).rc == 0 and term.shell
    res = term.run(steps[7].prompts[1], smoke)
    assert res.rc == 0, res.err
    perf = [ln for ln in res.out.splitlines() if re.search(r"train_metric_utils.py:56 - perf \d+:", ln)]
    assert perf and " perf 1: {" in perf[-1]
    tail = [ln for ln in res.out.splitlines() if ln.strip()][-3:]
    assert tail[1] == "Job 'first-grpo-smoke' succeeded" and tail[0] == tail[2] == "-" * len(tail[1])
    out[7] = res.out

    watch_line, launch = steps[8].blocks
    assert watch_line.startswith(("python3 ~/miles-logs/miles101-tools.pyz watchdog ", "python3 ~/miles-logs/watchdog.py"))
    assert steps[8].prompts[0] == "host"
    dog = reader.start(["bash", "-c", watch_line + " " + " ".join(watch_extra)])  # a second terminal on the host
    first = dog.stdout.readline()  # the reader sees the watchdog's first line
    check = dog.stdout.readline()  # and its first check, "before the job prints anything" (step 8), then launches
    res = term.run(steps[8].prompts[1], launch, timeout=120)
    said, _ = dog.communicate(timeout=60)
    assert res.rc == 0, res.err
    out[8] = first + check + said
    res = term.run(steps[9].prompts[0], steps[9].blocks[0])
    assert res.rc == 0, res.err
    out[9] = res.out
    return out


def test_steps_1_to_9_lead_to_a_read_run(reader):
    out = first_run(reader)
    said = out[8].splitlines()
    sample = next(b for b in re.findall(r"```text\n(.*?)```", checklist_steps()[7].text, re.S) if "watchdog:" in b)
    sample = [ln.strip() for ln in sample.splitlines()]
    assert said[0] == sample[0], "the watchdog's first line differs from step 8's sample"
    assert sample[1] in said, "no check printed step 8's sample line"
    assert said[-1] == f"watchdog: the run ended normally after 48 steps"
    table = out[9].splitlines()
    assert table[0].split() == "step reward resp len trunc zero-std lp gap clipfrac grad norm step s".split()
    verdicts = {ln.split()[0]: ln for ln in table if re.match(r"^\S+\s+(ok|watch|bad|unknown|n/a)\b", ln)}
    assert verdicts, out[9]
    assert not [v for v in verdicts.values() if " unknown" in v], out[9]
    assert reader.ray_state().joinpath("jobs", "first-grpo.json").exists()
