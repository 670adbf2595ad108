"""Every shell block of the built book runs as written: it parses (`bash -n`), and every container,
script, log and model path it uses was made by an earlier step of the book, in reading order.

"Made" means: a container by an earlier `docker run --name`; a script by a book download, by a code
block whose first line names its path (`# /root/miles/x.py`), or by a file of Miles itself; a run's
log by an earlier launch of that run ({run-command}); a model or data directory that a launch
uses by a `--local-dir`, `--save-dir`, `--save` or `mkdir` of an earlier page or of the same page
(a page may show its whole command before the steps that prepare it). Blocks are read in the
book's order (manual.json), so a name used before the step that makes it fails too.
"""
from __future__ import annotations

import html
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from buildutil import ROOT

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

BOOK = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))
MILES_FILES = set(json.loads((ROOT / "capture/miles/files.json").read_text(encoding="utf-8"))["files"])
SHELL = ("bash", "sh", "shell", "console")
BLOCK = re.compile(r'<div class="(?P<cls>[^"]*\bhighlight-(?P<lang>[\w-]+)\b[^"]*)"><div class="highlight"><pre>'
                   r'(?P<body>.*?)</pre>', re.S)
#: A book download: Sphinx's {download} link, or {tools-download}'s link to the tools' archive.
DOWNLOAD = re.compile(r'class="(?:reference download internal|m101-tools-download[^"]*)"[^>]*href="[^"]*/(?P<name>[^/"]+)"')
SCRIPT = re.compile(r"(?<![\w.$/-])(?P<path>[\w./~-]*[\w-]\.(?:pyz|py|sh))(?![\w.])")
CONTAINER = re.compile(r"\bdocker\s+(?:exec|stop|start|restart|logs|rm|kill|attach)(?:\s+-\S+)*\s+(?P<name>[^\s'\"]+)")
LOG_FILE = re.compile(r"(?:/root/logs|~/miles-logs)/(?P<run>[\w.${}-]+)\.log\b")
DATA_DIR = re.compile(r"(?<![\w/])/root/(?P<kind>models|datasets)/(?P<name>[\w.-]+)")
MAKES_DIR = re.compile(r"(?:--local-dir|--save-dir|--save|mkdir(?:\s+-p)?)\s+(?P<path>\S+)")


@dataclass
class Block:
    page: str
    lang: str
    text: str
    run_id: str | None = None  # a rendered {run-command}: the run it launches


@dataclass
class Made:
    """What the book has made so far, in reading order."""
    containers: set[str] = field(default_factory=set)
    scripts: set[str] = field(default_factory=set)  # basenames
    runs: set[str] = field(default_factory=set)
    dirs: set[str] = field(default_factory=set)  # models/<name>, datasets/<name>


def text_of(body: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def pages_in_order() -> list[str]:
    return [Path(s["file"]).stem for part in BOOK["parts"] for s in part["sections"]]


def blocks_of(page_html: str, page: str) -> list[Block]:
    out = []
    for m in BLOCK.finditer(page_html):
        text = text_of(m["body"]).rstrip("\n")
        run_id = None
        if "m101-run-command" in m["cls"]:
            sub = re.search(r"--submission-id \"?([\w.-]+?)(?:-\$s)?\"? ", text)
            run_id = sub.group(1) if sub else None
        out.append(Block(page, m["lang"], text, run_id))
    return out


def problems(blocks: list[Block], downloads: dict[str, set[str]]) -> list[str]:
    """What each shell block uses that the book has not made by then, and every block bash cannot parse."""
    made, found = Made(), []
    seen_pages: list[str] = []
    for b in blocks:
        if b.page not in seen_pages:  # a page's downloads, and the directories its steps make, count from its top
            seen_pages.append(b.page)
            made.scripts |= downloads.get(b.page, set())
            for other in blocks:
                if other.page == b.page and other.run_id:  # a page's checklist may point ahead to its launch
                    made.runs.add(other.run_id)
                if other.page == b.page and other.lang in SHELL:
                    for h in re.finditer(r"\bcat\s+>\s*(\S+)\s+<<", other.text):  # a file the page writes
                        made.scripts.add(h.group(1).split("/")[-1])
                    for d in MAKES_DIR.finditer(other.text):
                        dm = DATA_DIR.search(d["path"].replace("~/", "/root/"))
                        if dm:
                            made.dirs.add(f"{dm['kind']}/{dm['name']}")
        if b.run_id:
            made.runs.add(b.run_id)
        first = b.text.splitlines()[0] if b.text else ""
        if first.startswith("# /") and re.match(r"# (\S+\.(?:py|sh))$", first):  # a file the reader saves
            made.scripts.add(first.split("/")[-1])
        if b.lang not in SHELL:
            continue
        where = f"{b.page}: {b.text.splitlines()[0][:60]!r}"
        res = subprocess.run(["bash", "-n"], input=b.text, capture_output=True, text=True)
        if res.returncode != 0:
            found.append(f"{where}: bash -n: {res.stderr.strip()}")
        if re.search(r"(?m)^\s*\$ ", b.text):
            found.append(f"{where}: a `$ ` prompt: the copy button would copy it")
        cwd = None
        for line in b.text.splitlines():
            code = line.split(" #", 1)[0] if not line.lstrip().startswith("#") else ""
            m = re.match(r"\s*cd\s+(\S+)", code)
            if m:
                cwd = m.group(1)
            m = re.search(r"\bdocker\s+run\b.*?--name[ =](\S+)", code)
            if m:
                made.containers.add(m.group(1))
            for c in CONTAINER.finditer(code):
                if c["name"] not in made.containers:
                    found.append(f"{where}: container {c['name']!r}, which no earlier `docker run --name` made")
            for s in SCRIPT.finditer(code):
                path = s["path"]
                rel = path.removeprefix("/root/miles/")
                if path.startswith("/root/miles/") or (cwd == "/root/miles" and not path.startswith(("/", "~"))):
                    if rel in MILES_FILES or rel.split("/")[-1] in made.scripts:
                        continue
                elif path.split("/")[-1] in made.scripts or rel in MILES_FILES and path.startswith("/root/miles/"):
                    continue
                found.append(f"{where}: {path!r}, which no earlier step downloads, saves or finds in Miles")
            for lg in LOG_FILE.finditer(code):
                run = re.sub(r"-\$\{?s\}?$", "", lg["run"])  # a several-seed run's log: <run>-$s
                if run not in made.runs and "$" not in lg["run"]:
                    found.append(f"{where}: the log of {run!r}, which no earlier step launches")
        if b.run_id:
            for dm in DATA_DIR.finditer(b.text):
                key = f"{dm['kind']}/{dm['name']}"
                if key not in made.dirs:
                    found.append(f"{where}: /root/{key}, which no earlier step downloads or writes")
    return found


@pytest.fixture(scope="module")
def book(manual):
    """The session's HTML build of the manual (tests/conftest.py), read only."""
    assert manual.warnings == "", manual.warnings[:2000]
    return manual


def read_book(book) -> tuple[list[Block], dict[str, set[str]]]:
    blocks, downloads = [], {}
    for page in pages_in_order():
        page_html = book.html(f"sections/{page}")
        blocks += blocks_of(page_html, page)
        downloads[page] = {m["name"] for m in DOWNLOAD.finditer(page_html)}
    return blocks, downloads


def test_every_shell_block_runs_as_written(book) -> None:
    blocks, downloads = read_book(book)
    shell = [b for b in blocks if b.lang in SHELL]
    assert len(shell) > 60 and sum(b.run_id is not None for b in blocks) >= 18
    found = problems(blocks, downloads)
    assert not found, "\n".join(found)


def test_the_copy_button_copies_a_whole_block(book) -> None:
    """sphinx-copybutton with no prompt: every line of the block is copied, continuation lines included."""
    js = (Path(book.app.outdir) / "_static" / "copybutton.js").read_text(encoding="utf-8")
    assert "formatCopyText(text, '', false" in js  # no prompt text: each line matches and is kept
    page = book.html("sections/1-1-run-grpo-on-one-gpu")
    block = next(b for b in blocks_of(page, "1-1") if b.run_id == "first-grpo")
    assert block.text.count(" \\\n") > 30 and block.text.endswith("tee /root/logs/first-grpo.log")
    assert 'class="gp"' not in page  # no prompt spans the button would strip


BAD = [
    Block("a", "bash", "docker run -d --name miles radixark/miles:latest sleep infinity"),
    Block("a", "bash", "docker exec <container> ls <ref-load path>"),
    Block("a", "bash", "docker exec -it box bash"),
    Block("a", "bash", "grep -n -e '--num-rollout' launch.sh"),
    Block("a", "bash", "python3 /root/logs/read_run.py /root/logs/first-grpo.log"),
    Block("a", "bash", "python3 ~/miles-logs/miles101-tools.pyz watchdog --log x"),
    Block("a", "bash", "ray job submit -- python3 /root/miles/train.py --hf-checkpoint /root/models/Qwen3-4B "
                       "--submission-id x", run_id="later"),
    Block("b", "bash", "hf download Qwen/Qwen3-0.6B --local-dir /root/models/Qwen3-0.6B\ncd /root/miles\n"
                       "python3 tools/convert_hf_to_fp8.py --save-dir /root/models/Q-FP8\npython3 tools/nope.py"),
    Block("b", "python", "# /root/miles/test_reward.py\nprint(1)"),
    Block("b", "bash", "cd /root/miles\npython3 test_reward.py\ndocker exec -it miles bash"),
]


def test_the_check_fails_on_a_bad_book() -> None:
    """Each kind of mistake the test exists for is caught; the good lines around them are not."""
    found = problems(BAD, {"a": set(), "b": set()})
    text = "\n".join(found)
    assert "bash -n" in text and "docker exec <container>" in text  # a placeholder does not parse
    assert "container 'box'" in text
    assert "'launch.sh', which no earlier step" in text
    assert "'/root/logs/read_run.py'" in text  # a script read before any page downloads it
    assert "'~/miles-logs/miles101-tools.pyz'" in text  # the tools' archive too
    assert "the log of 'first-grpo', which no earlier step launches" in text
    assert "/root/models/Qwen3-4B, which no earlier step downloads" in text
    assert "'tools/nope.py'" in text
    assert "convert_hf_to_fp8" not in text and "test_reward" not in text and "'miles'" not in text
    assert len(found) == 9, text


def index_problems(text: str) -> list[str]:
    """7.1's symptom index against its entries: every entry linked once, in the page's order."""
    start, end = text.index("## Symptom index"), text.index("## Before you search")
    linked = re.findall(r"\{ref\}`([\w-]+)`", text[start:end])
    entries = re.findall(r"(?m)^\(([\w-]+)\)=$", text[end:])
    return [f"the index links {linked}, the entries are {entries}"] if linked != entries else []


def test_7_1_indexes_every_symptom() -> None:
    text = (ROOT / "sections" / "7-1-troubleshoot-by-symptom.md").read_text(encoding="utf-8")
    assert index_problems(text) == []
    assert len(re.findall(r"(?m)^\(([\w-]+)\)=$", text)) > 40
    # the check can fail: an entry added without its index line
    bad = text + "\n(new-symptom)=\n### `new`\n"
    assert index_problems(bad)


def test_7_1_checks_use_only_names_the_book_makes() -> None:
    """No placeholder, no launch.sh, no host path read from the container's checks (the built-book test runs them)."""
    text = (ROOT / "sections" / "7-1-troubleshoot-by-symptom.md").read_text(encoding="utf-8")
    assert not re.search(r"launch\.sh|<container>|<port>|<pid>|<load>", text)


def test_each_launch_downloads_as_the_script_it_shows(book) -> None:
    """The link under a {run-command} block serves that block, whole, as a script that parses."""
    out = Path(book.app.outdir)
    checked = 0
    for page in pages_in_order():
        page_html = book.html(f"sections/{page}")
        for b in blocks_of(page_html, page):
            if b.run_id is None:
                continue
            assert f'href="../_commands/{b.run_id}.sh"' in page_html, (page, b.run_id)
            script = (out / "_commands" / f"{b.run_id}.sh").read_text(encoding="utf-8")
            assert script.startswith("#!/usr/bin/env bash\n") and script.endswith(b.text + "\n"), (page, b.run_id)
            assert subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True).returncode == 0
            checked += 1
    assert checked >= 18
