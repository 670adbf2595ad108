"""1.1's checklist: every step has its command, a sample of success, a time and a way out; each
sample is what the code that prints it prints (the book's tools run here; Ray's and Miles's forms
are checked against the code the page cites)."""
from __future__ import annotations

import re
from pathlib import Path

import miles101.tools.preflight as preflight
from miles101.tools import read_run, watchdog
from labutil import ROOT

PAGE = ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md"


#: A step's heading, after its anchor (tests/test_step_refs.py): `### Step N: Title · prompt[, then prompt]`.
STEP_HEADING = re.compile(r"^\(first-run-[a-z-]+\)=\n### Step (?=\d+: )", re.M)
#: The prompts a heading may name, in the order its command blocks use them.
PROMPTS = re.compile(r" · (host|container)(?:, then (host|container))?$")


def checklist() -> list[str]:
    """The numbered steps of 1.1's "Do this, in order", each as its own text, its heading's line first
    (`N: Title · prompt`), its folds included."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Do this, in order", 1)[1].split("\n(start-the-session)=", 1)[0]
    return [step.rstrip("\n") + "\n" for step in STEP_HEADING.split(section)[1:]]


def prompts(step: str) -> list[str]:
    """The prompts a step's heading names (`host`, `container`), in order."""
    m = PROMPTS.search(step.splitlines()[0])
    assert m, f"1.1's step heading names no prompt (' · host', ' · container', ' · host, then container'): {step.splitlines()[0]}"
    return [p for p in m.groups() if p]


def text_samples() -> list[str]:
    """The ```text blocks of the checklist, list indentation removed."""
    out = []
    for step in checklist():
        for m in re.finditer(r"^( *)```text\n(.*?)^\1```", step, re.S | re.M):
            out.append("\n".join(line[len(m[1]):] for line in m[2].splitlines()))
    return out


def test_every_step_has_a_command_a_sample_a_time_and_a_way_out():
    steps = checklist()
    assert len(steps) >= 9
    for step in steps:
        title = step.splitlines()[0]
        assert "```bash" in step or "```{run-command}" in step, title
        assert "*Success*" in step, title
        assert re.search(r"\*(Time|Size)", step), title
        assert re.search(r"\*(If it fails|If it differs|Then|What to do)\*", step), title
        assert prompts(step), title


def test_no_time_or_size_is_typed():
    for step in checklist():
        for m in re.finditer(r"\*(Time|Size)[^*]*\*:?(.*?)(?=\*[A-Z]|\Z)", step, re.S):
            prose = re.sub(r"\{[a-z-]+\}`[^`]*`|`[^`]*`", "", m[2])
            # a step id ("step 0") is the text's own arithmetic; any other number must come from a role
            typed = re.search(r"(?<!\w)(?<!step )\d", prose)
            assert not typed, (step.splitlines()[0], prose)


def test_the_watchdog_sample_is_its_first_two_lines(tmp_path):
    """Started before the job (the log not there yet): how it reads the log, then its first check."""
    first = "watchdog: " + watchdog.LogFollower(str(tmp_path / "first-grpo.log")).started
    assert f"{first}\n{watchdog.Watchdog(now=0).status(now=0)}" in text_samples()


def test_every_read_run_line_of_the_checklist_passes_the_group_count():
    """Without --groups (or --run) the zero-std verdict is `unknown` (read_run.judge_zero_std_steps)."""
    import shlex

    import yaml
    text = "\n".join(checklist())
    calls = [shlex.split(m[0]) for m in re.finditer(r"python3 \S*(?:read_run\.py|miles101-tools\.pyz read_run) [^`\n]*",
                                                     text)]
    assert len(calls) >= 2
    for argv in calls:
        argv = argv[1:] if argv[1].endswith(".pyz") else argv  # the tools' one file: `python3 FILE read_run LOG`
        run_id = Path(argv[2]).stem
        run = yaml.safe_load((ROOT / "capture" / "runs" / f"{run_id}.yaml").read_text())
        base = run if "--rollout-batch-size" in (run.get("args") or []) else yaml.safe_load(
            (ROOT / "capture" / "runs" / f"{run['base']}.yaml").read_text())
        args = base["args"]
        assert argv[argv.index("--groups") + 1] == args[args.index("--rollout-batch-size") + 1], argv


def test_the_run_reader_sample_is_its_table_header():
    from capture.lab.rehearsal import mileslog as ml

    header = read_run.render(read_run.read_run(read_run.parse_log(ml.healthy(2)))).splitlines()[0]
    assert header in text_samples()


def test_the_preflight_sample_is_its_summary_line():
    checks = [preflight.Check("a", True, "x"), preflight.Check("b", True, "y", status="warn")]
    last = preflight.table(checks, 1.0).splitlines()[-1]
    sample = next(s for s in text_samples() if s.startswith("preflight:"))
    pattern = re.escape(sample).replace(re.escape("<W>"), r"\d+").replace(re.escape("<P>"), r"\d+")
    pattern = pattern.replace(re.escape("<T>"), r"[\d.]+")
    assert re.fullmatch(pattern, last), (sample, last)
    assert sample.startswith("preflight: 0 failed")


def test_rays_verdict_sits_between_rules_as_long_as_the_line():
    # ray/dashboard/modules/job/cli.py: _log_big_success_msg prints "-" * len(msg), msg, "-" * len(msg)
    sample = next(s for s in text_samples() if "succeeded" in s).splitlines()
    assert sample[1] == "Job 'first-grpo-smoke' succeeded" and sample[0] == sample[2] == "-" * len(sample[1])
    assert watchdog.JOB_OK_RE.search(sample[1])


def test_the_step_line_sample_has_the_form_miles_logs():
    sample = next(s for s in text_samples() if " - step 0: {" in s)
    assert "log_utils.py:542 - step 0: {'train/loss'" in sample and sample.endswith("'train/step': 0}")
    assert re.search(r"\[<date> <time>\.<ms> <process>\] ", sample)  # logging_utils.py:35's format
