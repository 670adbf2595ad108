"""The allocator setting as the pages give it (7.1's fragmentation cause, 2.1 near the line), pasted into 1.1's launch
the way a reader adds a flag: it must reach Miles as one `--train-env-vars` argument holding PYTORCH_CUDA_ALLOC_CONF,
and nowhere else (not the job's runtime environment, not an export): exported to the whole job it turns off
torch_memory_saver, which the colocated engines need (Miles tests/e2e/fsdp/r3/_common.py:76-78).

`ray` is the argv recorder (tests/fixtures/argv-recorder): bash does the word splitting, as on the reader's shell.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from readerpath import checklist_steps

ROOT = Path(__file__).resolve().parents[2]
RECORDER = ROOT / "tests" / "fixtures" / "argv-recorder" / "record-argv"
SETTING = re.compile(r"--train-env-vars '\{[^']*PYTORCH_CUDA_ALLOC_CONF[^']*\}'")
PAGES = ("7-1-troubleshoot-by-symptom.md", "2-1-pick-a-model-size.md")


def page_settings() -> list[tuple[str, str]]:
    out = []
    for name in PAGES:
        text = (ROOT / "sections" / name).read_text(encoding="utf-8")
        out += [(name, m.group(0)) for m in SETTING.finditer(text)]
    return out


def test_the_pages_give_the_setting():
    assert {name for name, _ in page_settings()} >= {"7-1-troubleshoot-by-symptom.md"}


@pytest.mark.parametrize("page,setting", page_settings())
def test_pasted_into_the_launch_it_stays_inside_train_env_vars(tmp_path, page, setting):
    launch = checklist_steps()[7].blocks[1]
    body, tee = launch.rsplit("  2>&1 | tee", 1)
    pasted = f"{body}  {setting} \\\n  2>&1 | tee{tee}".replace("/root/logs/", f"{tmp_path}/")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for prog in ("ray", "tee"):
        (bindir / prog).symlink_to(RECORDER)
    log = tmp_path / "argv.jsonl"
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "ARGV_LOG": str(log), "HOME": str(tmp_path)}
    res = subprocess.run(["bash", "-c", pasted], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    ray = next(json.loads(ln) for ln in log.read_text().splitlines() if json.loads(ln)["prog"] == "ray")
    argv = ray["argv"]
    miles = argv[argv.index("--") + 1:]
    at = miles.index("--train-env-vars")
    assert json.loads(miles[at + 1]) == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, (page, miles[at + 1])
    runtime = json.loads(argv[argv.index("--runtime-env-json") + 1])
    assert "PYTORCH_CUDA_ALLOC_CONF" not in json.dumps(runtime)
    assert sum("PYTORCH_CUDA_ALLOC_CONF" in a for a in argv) == 1


def test_no_page_exports_the_setting_to_the_whole_job():
    for path in sorted((ROOT / "sections").glob("*.md")) + [ROOT / "front.md"]:
        text = path.read_text(encoding="utf-8")
        for bad in (r"export PYTORCH_CUDA_ALLOC_CONF", r"-e PYTORCH_CUDA_ALLOC_CONF", r"--env PYTORCH_CUDA_ALLOC_CONF",
                    r'"env_vars": \{[^}]*PYTORCH_CUDA_ALLOC_CONF'):
            assert not re.search(bad, text), (path.name, bad)
