"""Each stand-in behaviour the reader scenarios rely on cites the Ray or Docker source or docs it imitates."""
from __future__ import annotations

import re
import sys
from pathlib import Path

from capture.lab.rehearsal.sandbox import STANDINS
from capture.lab.rehearsal.standins.imitates import IMITATES

CALL = re.compile(r"""imitated\(["']([\w.\-]+)["']\)""")
SOURCE = re.compile(r"^(https://\S+|ray (python|doc|src)/\S+)")


def used() -> dict[str, list[str]]:
    """key -> the stand-ins that call imitated(key)."""
    out: dict[str, list[str]] = {}
    for path in sorted(STANDINS.iterdir()):
        if path.is_file() and path.name != "imitates.py":
            for key in CALL.findall(path.read_text(encoding="utf-8")):
                out.setdefault(key, []).append(path.name)
    return out


def test_every_behaviour_a_stand_in_does_is_cited():
    keys = used()
    assert {"ray.job.submit.duplicate-id", "docker.exec.needs-running", "docker.restart.keeps-files"} <= set(keys)
    missing = sorted(k for k in keys if not IMITATES.get(k))
    assert not missing, f"add a citation to capture/lab/rehearsal/standins/imitates.py for: {missing}"


def test_every_citation_names_a_source_file_or_a_page():
    bad = {k: v for k, v in IMITATES.items() if not SOURCE.match(v)}
    assert not bad, bad
    unused = sorted(set(IMITATES) - set(used()))
    assert not unused, f"cited but no stand-in does it: {unused}"


def test_an_uncited_behaviour_is_caught(tmp_path: Path):
    """The scenarios' check (tests/scenarios/conftest.py Reader.uncited) fails on a key without a citation."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("scenario_conftest", Path(__file__).parents[1] / "scenarios" / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    reader = mod.Reader(tmp_path)
    reader.imitated.write_text("ray.job.submit.duplicate-id\nray.job.teleports\n")
    assert reader.uncited() == ["ray.job.teleports"]
