"""Every page that shows a launch shows the procedure the recorder runs: the same `ray start`, the same `ray job submit`.

The recorder's one definition is capture.lab.docker.procedure(); a page renders its launch with
{run-command}, which types nothing by hand (miles101.runfiles.launch_script). These tests split the
text a page shows into the words the shell will run and hold them to the recorder's argv, run file
by run file, so no page and the lab can drift apart, and no page launches a run any other way.
"""
from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from miles101.catalog import Catalog
from capture.lab.docker import procedure
from miles101.runcheck import load_run
from miles101.runfiles import SEED_VAR, launch_script, log_path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "sections").glob("*.md")) + [ROOT / "front.md"]
RUNS = ROOT / "capture" / "runs"
CATALOG = Catalog.load(ROOT / "capture/miles/flags.json", ROOT / "capture/miles/metrics.json")
#: A shell line that launches Miles's training: what only {run-command} may show.
LAUNCH = re.compile(r"(^|[\s;&|(])(ray\s+job\s+submit|python3?\s+(\S*/)?train(_async)?\.py)(\s|$)", re.M)


def fences(page: Path) -> tuple[tuple[str, str, int], ...]:
    """(info string, content, first line) of every fenced block of a page."""
    return _fences_in(page.read_text(encoding="utf-8"))


@functools.cache
def _fences_in(text: str) -> tuple[tuple[str, str, int], ...]:
    """The fenced blocks of a text, parsed once a session (collection and the tests both read each page)."""
    tokens = MarkdownIt("commonmark").parse(text)
    return tuple((t.info.strip(), t.content, t.map[0] + 1) for t in tokens if t.type == "fence")


def launches() -> list[tuple[str, str, dict]]:
    """(page, run id, options) of every {run-command} block in the book."""
    out = []
    for page in PAGES:
        for info, content, _ in fences(page):
            if info.startswith("{run-command}"):
                options: dict = {}
                m = re.match(r"---\n(.*?)\n---\n?", content, re.S)
                if m:
                    options = yaml.safe_load(m.group(1)) or {}
                options.update({k: v.strip() for k, _, v in
                                (ln[1:].partition(":") for ln in content.splitlines() if ln.startswith(":"))})
                out.append((page.name, info.split()[1], options))
    return out


def shown_words(text: str, seed: int | None) -> list[list[str]]:
    """The commands of a rendered block as the shell splits them, a several-seed loop's variable set to `seed`."""
    lines = text.splitlines()
    head: list[list[str]] = []
    if lines and lines[0].startswith("ray start"):
        head, lines = [shlex.split(lines[0])], lines[1:]
    if lines and lines[0].startswith("for ") and lines[-1] == "done":
        lines = [ln[2:] for ln in lines[1:-1]]
    body = "\n".join(lines).replace(f"${SEED_VAR}", str(seed))
    return head + [shlex.split(cmd) for cmd in body.replace("\\\n", " ").splitlines() if cmd.strip()]


LAUNCHES = launches()


def test_the_book_shows_launches() -> None:
    pages = {page for page, _, _ in LAUNCHES}
    assert len(pages) >= 10, pages  # 1.1, 2.1, 3.x, 4.x, 5.x, 6.x
    assert "1-1-run-grpo-on-one-gpu.md" in pages


@pytest.mark.parametrize("page,run_id,options", LAUNCHES, ids=[f"{p}:{r}" for p, r, _ in LAUNCHES])
def test_page_launch_is_the_recorders(page: str, run_id: str, options: dict) -> None:
    assert not {"prefix", "program", "suffix"} & set(options), (
        f"{page}: {run_id}: the launch is derived from the run id; an override would show what the recorder does not run")
    run = load_run(RUNS / f"{run_id}.yaml", CATALOG)
    text = launch_script(run, start_ray="start-ray" in options)
    for seed in run.get("seeds") or [None]:
        start, submit = procedure(run, seed)
        words = shown_words(text, seed)
        if "start-ray" in options:
            assert words[0] == start, f"{page}: the ray start line differs from the recorder's"
            words = words[1:]
        else:  # the page relies on 1.1's `ray start`, so the run must need what 1.1 starts
            assert start == procedure(load_run(RUNS / "first-grpo.yaml", CATALOG), 1234)[0], (
                f"{page}: {run_id} needs another `ray start` than 1.1's: give its block :start-ray:")
        assert words == [[*submit, "2>&1", "|", "tee", log_path(run, seed)]], f"{page}: {run_id}, seed {seed}"


def test_page_ray_start_is_the_recorders() -> None:
    """1.1 types its `ray start` line; it must be the recorder's for the first run."""
    run = load_run(RUNS / "first-grpo.yaml", CATALOG)
    start, _ = procedure(run, 1234)
    assert shlex.join(start) in (ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_launch_outside_run_command(page: Path) -> None:
    """A launch of train.py (a Ray job or a plain python3) appears only through {run-command}."""
    found = [f"{page.name}:{line}: {m.group(0).strip()!r}" for info, content, line in fences(page)
             if not info.startswith("{") for m in LAUNCH.finditer(content)]
    assert not found, "render these from a run file with {run-command}: " + "; ".join(found)


def test_launch_pattern_finds_a_hand_written_launch(tmp_path: Path) -> None:
    """The check above can fail: a page with a typed launch is caught."""
    page = tmp_path / "bad.md"
    page.write_text("```bash\nray job submit --address x -- python3 /root/miles/train.py --colocate\n```\n"
                    "```bash\npython3 train.py --colocate\n```\n```bash\ngrep -n train.py log\n```\n", encoding="utf-8")
    hits = [m.group(2) for info, content, _ in fences(page) for m in LAUNCH.finditer(content)]
    assert hits == ["ray job submit", "python3 /root/miles/train.py", "python3 train.py"]


def test_shown_words_catch_a_changed_flag() -> None:
    """The comparison can fail: a rendered block whose flag was edited no longer equals the recorder's argv."""
    run = load_run(RUNS / "first-grpo.yaml", CATALOG)
    _, submit = procedure(run, 1234)
    text = launch_script(run).replace("--rollout-seed 42", "--rollout-seed 1234")
    assert shown_words(text, 1234) != [[*submit, "2>&1", "|", "tee", log_path(run, 1234)]]


def test_2_3s_setting_goes_into_the_session_file_above_1_1s_ray_start() -> None:
    """2.3 adds its threshold to 1.1's session file, above the recorder's `ray start` line (the
    scenarios in tests/scenarios/ run the edit); it types no `ray start` of its own."""
    run = load_run(RUNS / "first-grpo.yaml", CATALOG)
    start, _ = procedure(run, 1234)
    page = ROOT / "sections" / "2-3-stop-ray-killing-the-job.md"
    blocks = [content for info, content, _ in fences(page) if not info.startswith("{")]
    assert not [ln for c in blocks for ln in c.splitlines() if ln.startswith("ray start")]
    assert ("sed -i --follow-symlinks '/^[[:space:]]*ray start/i export RAY_memory_usage_threshold=0.98' \"$f\""
            in "\n".join(blocks))
    assert f"`{shlex.join(start)}`" in " ".join(page.read_text(encoding="utf-8").split())


def test_the_smoke_run_is_first_grpo_cut_to_two_rollouts() -> None:
    """1.1's smoke run is its long run with --num-rollout 2 and nothing else changed (through its base)."""
    run = load_run(RUNS / "first-grpo.yaml", CATALOG)
    smoke = load_run(RUNS / "first-grpo-smoke.yaml", CATALOG)
    assert smoke["steps"] == 2
    i = run["args"].index("--num-rollout")
    assert smoke["args"] == run["args"][: i + 1] + ["2"] + run["args"][i + 2:]
    for key in ("image", "entry", "launch", "env", "mounts", "seeds"):
        assert smoke.get(key) == run.get(key), key


# ---- the session of 1.1's checklist (the container, its session file, the reader's preflight) ----
PAGE_1_1 = ROOT / "sections" / "1-1-run-grpo-on-one-gpu.md"


def _first_grpo() -> dict:
    return load_run(RUNS / "first-grpo.yaml", CATALOG)


def _checklist_block(text: str, starts: str) -> str:
    """The first ```bash block of 1.1 whose first line starts with `starts` (list indentation removed)."""
    for m in re.finditer(r"^( *)```bash\n(.*?)^\1```", text, re.S | re.M):
        body = "\n".join(line[len(m[1]):] for line in m[2].splitlines())
        if body.startswith(starts):
            return body
    raise AssertionError(f"1.1 has no bash block starting with {starts!r}")


def test_the_session_file_holds_the_recorders_ray_start() -> None:
    run = _first_grpo()
    start, _ = procedure(run, (run.get("seeds") or [None])[0])
    block = _checklist_block(PAGE_1_1.read_text(encoding="utf-8"), "mkdir -p ~/models")
    session = re.search(r"cat > ~/miles101/session.sh <<'EOF'\n(.*?)\nEOF\n", block, re.S)
    assert session and shlex.join(start) in session[1].splitlines()


def test_the_session_container_has_the_recorders_flags_and_environment() -> None:
    from capture.lab.docker import RUN_FLAGS

    block = _checklist_block(PAGE_1_1.read_text(encoding="utf-8"), "mkdir -p ~/models")
    run_line = shlex.split(block[block.index("docker run"):].split("\ndocker ps")[0].replace("\\\n", " "))
    assert run_line[:4] == ["docker", "run", "-d", "--name"] and run_line[4] == "miles"
    assert "--rm" not in run_line  # a stopped container keeps its files: the session survives a stop
    flags = run_line[5:]
    for flag in RUN_FLAGS:
        assert flag in flags, flag
    env = {v.split("=", 1)[0]: v.split("=", 1)[1] for k, v in zip(flags, flags[1:]) if k == "-e"}
    assert env == _first_grpo()["env"]  # what the recorder passes with -e
    mounts = dict(v.split(":", 1)[::-1] for k, v in zip(flags, flags[1:]) if k == "-v")
    for path in ("/root/models", "/root/datasets", "/root/logs", "/root/checkpoints", "/root/miles101"):
        assert path in mounts, path
    assert mounts["/root/miles101"] == "~/miles101"
    for m in _first_grpo()["mounts"]:  # every run-file mount lies under a session mount
        assert any(m["container"].startswith(c + "/") for c in mounts), m


def test_the_readers_preflight_checks_the_run_files_settings() -> None:
    run = _first_grpo()
    text = PAGE_1_1.read_text(encoding="utf-8")
    try:  # the tools' archive (miles101-tools.pyz), or the loose file of an older page
        block = _checklist_block(text, "cd ~/miles-logs\npython3 miles101-tools.pyz preflight --image")
    except AssertionError:
        block = _checklist_block(text, "cd ~/miles-logs\npython3 preflight.py")
    argv = shlex.split(block.split("\n", 1)[1].replace("\\\n", " "))
    first = next(i for i, w in enumerate(argv) if w in ("preflight", "preflight.py")) + 1
    given = dict(zip(argv[first::2], argv[first + 1::2]))
    args = dict(zip(run["args"], run["args"][1:]))
    assert given["--image"] == run["image"]
    assert given["--model"] == args["--hf-checkpoint"] and given["--data"] == args["--prompt-data"]
    assert given["--attention-backend"] == args["--sglang-attention-backend"]
