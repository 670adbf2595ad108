"""A page's commands in the page's order, as the reader meets them: taken from the page source with
the extractors the lab tests already use (tests/lab/test_checklist.py, test_page_procedure.py), each
{run-command} rendered from its run file as the page renders it."""
from __future__ import annotations

import platform
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from miles101.runfiles import launch_script
from test_checklist import checklist, prompts
from test_page_procedure import CATALOG, RUNS, fences
from miles101.runcheck import load_run

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^( *)```(bash|\{run-command\} (?P<run>\S+))\n(?P<body>.*?)^\1```", re.S | re.M)
#: Options a scenario adds to the page's preflight line: this machine's floors and architecture, not a
#: DGX Spark's (the stand-ins answer as a GB10; the host's free memory and disk are not the reader's).
PREFLIGHT_HERE = ["--min-free-mem-gb", "0", "--min-free-disk-gb", "0", "--arch",
                  {"aarch64": "arm64", "x86_64": "amd64"}.get(platform.machine(), platform.machine())]


#: The one block that opens the container's interactive shell (1.1 step 7); later container blocks run in it.
ENTER = "docker exec -it miles bash"


@dataclass
class Step:
    number: int
    title: str
    where: str  # the prompt of its first block: "host" or "container", from the step's heading
    blocks: list[str] = field(default_factory=list)
    text: str = ""
    named: list[str] = field(default_factory=list)  # the prompts its heading names, in order

    @property
    def prompts(self) -> list[str]:
        """The prompt of each block: the one the heading names, or with two named (`host, then container`),
        the first block at the first and the rest at the second."""
        if len(self.named) == 1:
            return self.named * len(self.blocks)
        assert len(self.blocks) >= 2, f"{self.title}: two prompts named, {len(self.blocks)} block(s)"
        return [self.named[0]] + [self.named[1]] * (len(self.blocks) - 1)


def rendered(run_id: str) -> str:
    """What a {run-command} block shows: the run file's launch."""
    return launch_script(load_run(RUNS / f"{run_id}.yaml", CATALOG))


def checklist_steps() -> list[Step]:
    """1.1's "Do this, in order": each step's commands in order (bash blocks and rendered launches)."""
    out = []
    for text in checklist():
        title = text.splitlines()[0]
        number = int(title.split(":", 1)[0])
        named = prompts(text)
        step = Step(number, title, named[0], text=text, named=named)
        for m in FENCE.finditer(text):
            if m["run"]:
                step.blocks.append(rendered(m["run"]))
            else:
                step.blocks.append("\n".join(line[len(m[1]):] for line in m["body"].splitlines()))
        out.append(step)
    return out


@dataclass
class Said:
    rc: int
    out: str
    err: str


class Terminal:
    """The reader's prompts: the host's shell, and the container's shell once a block opens it (ENTER).

    A block runs at the prompt its step names; the stand-ins refuse a command at the wrong one (docker
    inside the container, ray and hf on the host), so a step that names the wrong prompt fails here.
    """

    def __init__(self, reader) -> None:
        self.reader = reader
        self.shell = False  # the container's interactive shell is open

    def run(self, prompt: str, block: str, timeout: float = 60, env: dict[str, str] | None = None) -> Said:
        if block.strip() == ENTER:
            assert prompt == "host", f"{ENTER!r} opens the container's shell from the host, not from {prompt!r}"
            assert not self.shell, f"{ENTER!r} a second time: the checklist enters the container's shell once"
            res = subprocess.run(["bash", "-c", block], env={**self.reader.env, **(env or {})}, cwd=self.reader.home,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
            self.shell = res.returncode == 0
            return Said(res.returncode, res.stdout, res.stderr)
        if prompt == "container":
            assert self.shell, f"a block at the container's prompt before any step opens its shell: {block[:60]!r}"
            res = self.reader.container(f"set -e -o pipefail\n{block}", timeout)  # a refused line stops the block
        else:
            res = self.reader.host(block, timeout, env)
        return Said(res.rc, res.out, res.err)


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
