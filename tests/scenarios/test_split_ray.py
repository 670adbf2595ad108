"""6.1's split run in 1.1's session: its own `ray start` fails while the session's Ray runs, so the
page says to stop that Ray first; after `ray stop` the block's Ray starts with its eight GPUs."""
from __future__ import annotations

import json
import re

from readerpath import ROOT
from test_session_settings import session


def test_6_1s_ray_start_needs_the_session_ray_stopped_first(reader):
    session(reader)
    text = (ROOT / "sections" / "6-1-split-rollout-and-training.md").read_text(encoding="utf-8")
    before = text.split("```{run-command} split-8gpu", 1)[0].rstrip().rsplit("\n\n", 1)[-1]
    assert "`ray stop`" in before, "6.1 does not say to stop the session's Ray before its block"
    start = rendered_start()
    res = reader.container(start)
    assert res.rc != 0 and "already running" in res.err  # what a reader who skipped the note meets
    res = reader.container("ray stop && " + start)
    assert res.rc == 0 and "Ray runtime started." in res.out, res.err
    assert json.loads((reader.ray_state() / "head.json").read_text())["gpus"] == 8


def rendered_start() -> str:
    """The `ray start` line 6.1's {run-command} split-8gpu :start-ray: block shows."""
    from miles101.runfiles import launch_script
    from test_page_procedure import CATALOG, RUNS
    from miles101.runcheck import load_run

    line = launch_script(load_run(RUNS / "split-8gpu.yaml", CATALOG), start_ray=True).splitlines()[0]
    assert re.match(r"ray start --head .*--num-gpus 8", line), line
    return line
