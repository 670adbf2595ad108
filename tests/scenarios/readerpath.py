"""A page's commands in the page's order, as the reader meets them: taken from the page source with
the extractors the lab tests already use (tests/lab/test_checklist.py, test_page_procedure.py), each
{run-command} rendered from its run file as the page renders it."""
from __future__ import annotations

import platform
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from miles101.runfiles import launch_script
from test_checklist import checklist
from test_page_procedure import CATALOG, RUNS, fences
from miles101.runcheck import load_run

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^( *)```(bash|\{run-command\} (?P<run>\S+))\n(?P<body>.*?)^\1```", re.S | re.M)
#: Options a scenario adds to the page's preflight line: this machine's floors and architecture, not a
#: DGX Spark's (the stand-ins answer as a GB10; the host's free memory and disk are not the reader's).
PREFLIGHT_HERE = ["--min-free-mem-gb", "0", "--min-free-disk-gb", "0", "--arch",
                  {"aarch64": "arm64", "x86_64": "amd64"}.get(platform.machine(), platform.machine())]


@dataclass
class Step:
    number: int
    title: str
    where: str  # "host" or "container", from the step's title
    blocks: list[str] = field(default_factory=list)
    text: str = ""


def rendered(run_id: str) -> str:
    """What a {run-command} block shows: the run file's launch."""
    return launch_script(load_run(RUNS / f"{run_id}.yaml", CATALOG))


def checklist_steps() -> list[Step]:
    """1.1's "Do this, in order": each step's commands in order (bash blocks and rendered launches)."""
    out = []
    for text in checklist():
        title = text.splitlines()[0]
        number = int(title.split(".", 1)[0])
        where = "host" if "(on the host)" in title.split("**")[-1].split(",")[0] else "container"
        step = Step(number, title, where, text=text)
        for m in FENCE.finditer(text):
            if m["run"]:
                step.blocks.append(rendered(m["run"]))
            else:
                step.blocks.append("\n".join(line[len(m[1]):] for line in m["body"].splitlines()))
        out.append(step)
    return out


def page_blocks(page: str) -> list[str]:
    """Every plain ```bash block of a page, in order."""
    return [content for info, content, _ in fences(ROOT / "sections" / page) if info == "bash"]


def block_with(page: str, needle: str) -> str:
    """The page's one ```bash block that holds `needle`."""
    found = [b for b in page_blocks(page) if needle in b]
    assert len(found) == 1, f"{page}: {len(found)} bash blocks hold {needle!r}"
    return found[0]


def read_run_calls() -> list[tuple[str, str]]:
    """(page, command line) of every run-reader call (`read_run.py`, or `miles101-tools.pyz read_run`) in a
    ```bash block of the book."""
    out = []
    for page in sorted((ROOT / "sections").glob("*.md")):
        for info, content, _ in fences(page):
            if info == "bash":
                for line in content.replace("\\\n", " ").splitlines():
                    if "read_run.py" in line or "miles101-tools.pyz read_run" in line:
                        out.append((page.name, line.strip()))
    return out


def words(line: str) -> list[str]:
    return shlex.split(line)
