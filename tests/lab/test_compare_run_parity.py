"""The page's "compare my run" (compare-run.js) and `read_run.py --compare --against` give the same table, value by
value, over the same logs and the same public series.

The page's JavaScript runs under node (tests/lab/compare_run.mjs) on the modules as the build serves them, over
the rule set the build writes (miles101.doctor_rules) and the data the page carries (compare_run.page_data);
read_run.py runs in-process as its main() does. Logs: every public log of tests/fixtures/public-logs (slime and
ProRL threads, each with its URL in index.json; none holds ten step lines: no public Miles or slime log with ten
was found) and the rehearsal's Miles-shaped logs (test data, never published), one of them 12 steps long.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from capture.lab.rehearsal import mileslog as ml
from miles101 import doctor_rules
from miles101.sphinx_ext import compare_run
from miles101.tools import read_run as rr

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "_ext" / "miles101" / "sphinx_ext" / "static"
PUBLIC = ROOT / "tests" / "fixtures" / "public-logs"
RUNNER = Path(__file__).with_name("compare_run.mjs")
NODE = shutil.which("node")
SERIES_ID = "verl-gsm8k-qwen2.5-0.5b-ppo"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The modules under the names the build serves them, the rule set, and the page's data (full series)."""
    d = tmp_path_factory.mktemp("compare")
    for name in ("log-doctor-core.js", "worker-run.js", "compare-run.js"):
        shutil.copy(STATIC / name, d / f"m101-{name}")
    (d / "rules.json").write_text(json.dumps(doctor_rules.rules(ROOT)), encoding="utf-8")
    return d


def _data(d: Path, series_id: str, trimmed: bool) -> Path:
    data = compare_run.page_data(ROOT)
    doc = next(s for s in data["series"] if s["id"] == series_id) if trimmed else \
        json.loads((ROOT / "capture" / "series" / f"{series_id}.json").read_text(encoding="utf-8"))
    path = d / f"data-{series_id}-{trimmed}.json"
    path.write_text(json.dumps({"series": doc, "keys": data["keys"]}), encoding="utf-8")
    return path


def node_tables(d: Path, series_id: str, at: str | None, logs: list[Path], trimmed: bool = True,
                chunk: int | None = None) -> dict[str, Any]:
    env = {"PATH": "/usr/bin:/bin", **({"CHUNK": str(chunk)} if chunk else {})}
    res = subprocess.run([NODE, str(RUNNER), str(d), str(d / "rules.json"), str(_data(d, series_id, trimmed)),
                          at or "-", *map(str, logs)], capture_output=True, text=True, timeout=120, env=env, check=False)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def python_table(log: Path, series_id: str, at: str | None) -> tuple[dict[str, Any], list[list[str]]]:
    """read_run.py's table (its --json document) and the rows of its text table, as `--compare --against` reads."""
    lines = rr.read_log_file(str(log))
    rows, _, _ = rr.report_of(lines, 10, rr.groups_in_log(lines))
    steps = sorted({int(x) for x in at.split(",") if x.strip()}) if at else sorted({r["step"] for r in rows})[:10]
    series = rr.load_series(series_id, str(ROOT))
    table = rr.compare_series(rows, series, steps)
    text = rr.render_compare_series(table).splitlines()
    body = [ln for ln in text if "(yours)" in ln or "(public ref)" in ln]
    cells = []
    for ln in body:
        label_end = ln.index(")") + 1
        cells.append([ln[:label_end], *ln[label_end:].split()])
    return json.loads(json.dumps(table)), cells


def _logs(tmp_path: Path) -> list[Path]:
    out = sorted(p for p in PUBLIC.glob("*.log"))
    for name, lines in (("healthy-12.log", ml.healthy(12)),):
        p = tmp_path / name
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(p)
    return out


def _same(js: dict[str, Any], py: dict[str, Any], cells: list[list[str]], log: Path) -> None:
    table = dict(js["table"])
    table.pop("source")
    want = {k: v for k, v in py.items() if k not in ("source",)}
    for key in ("gpu", "settings", "against"):
        assert table[key] == want[key], (log.name, key)
    assert table["steps"] == want["steps"], log.name
    assert table["yours"] == want["yours"], (log.name, "yours")
    assert table["reference"] == want["reference"], (log.name, "reference")
    assert table["verdict"] is None and want["verdict"] is None and table["why_no_verdict"] == want["why_no_verdict"]
    if cells:  # a log with step lines: the text table, cell by cell, as read_run.py prints it
        assert js["rows"] == cells, log.name


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("series_id", compare_run.SERIES)
@pytest.mark.parametrize("at", [None, "0,5,9,11", "1,20,70,116"])
def test_the_page_and_read_run_give_the_same_table(served: Path, tmp_path: Path, series_id: str, at: str | None) -> None:
    logs = _logs(tmp_path)
    js = node_tables(served, series_id, at, logs)
    for log in logs:
        lines = rr.read_log_file(str(log))
        if rr.report_of(lines, 10, None)[2] is None:  # read_run.py stops before --compare: no step lines
            assert js[str(log)]["steps"] == 0 and js[str(log)]["table"]["steps"] == ([] if at is None else
                                                                                   rr_steps(at)), log.name
            continue
        py, cells = python_table(log, series_id, at)
        _same(js[str(log)], py, cells, log)


def rr_steps(at: str) -> list[int]:
    return sorted({int(x) for x in at.split(",") if x.strip()})


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_healthy_log_fills_the_table_and_small_chunks_read_the_same(served: Path, tmp_path: Path) -> None:
    """The 12-step log: every one of read_run's keys has a number at each of its first ten steps, and reading it in
    7-byte chunks (lines and UTF-8 cut between chunks) gives the same table; the full series file and the page's
    trimmed copy give the same reference values."""
    log = _logs(tmp_path)[-1]
    whole = node_tables(served, SERIES_ID, None, [log])[str(log)]
    small = node_tables(served, SERIES_ID, None, [log], chunk=7)[str(log)]
    full = node_tables(served, SERIES_ID, None, [log], trimmed=False)[str(log)]
    assert whole["table"] == small["table"] == full["table"]
    assert whole["table"]["steps"] == list(range(10)) and whole["steps"] == 12
    assert all(v is not None for vals in whole["table"]["yours"].values() for v in vals)
    assert whole["lr"] == "1e-6"


def test_the_page_carries_read_runs_keys_and_each_series_columns() -> None:
    data = compare_run.page_data(ROOT)
    assert data["keys"] == {"yours": list(rr.SERIES_YOURS), "theirs": list(rr.SERIES_THEIRS),
                            "why_no_verdict": rr.SERIES_NO_VERDICT}
    assert [s["id"] for s in data["series"]] == list(compare_run.SERIES)
    for s in data["series"]:
        doc = json.loads((ROOT / "capture" / "series" / f"{s['id']}.json").read_text(encoding="utf-8"))
        assert s["steps"] == doc["steps"] and set(s["metrics"]) == set(rr.SERIES_THEIRS) & set(doc["metrics"])
        assert all(s["metrics"][k] == doc["metrics"][k] for k in s["metrics"])
    assert "no recorded run" in data["no_verdict"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_long_run_draws_bounded_and_a_gap_is_never_bridged(served: Path) -> None:
    """100,000 steps thin to at most four points a bucket; a missing number or a skipped step ends a line."""
    script = f"""
      const m = await import({json.dumps((served / "m101-compare-run.js").as_uri())});
      const steps = Array.from({{length: 100000}}, (_, i) => i);
      const values = steps.map((s) => (s === 500 ? null : Math.sin(s / 50)));
      const segs = m.segments(steps, values);
      const thinned = segs.map((s) => m.thin(s, 0, 99999));
      const skipped = m.segments([0, 1, 2, 5, 6], [1, 2, 3, 4, 5]);
      process.stdout.write(JSON.stringify({{segs: segs.length, points: thinned.reduce((n, s) => n + s.length, 0),
        ends: [segs[0].at(-1)[0], segs[1][0][0]], skipped: skipped.map((s) => s.map((p) => p[0])),
        gaps: m.gapWords([0, 1, 2], [1, null, NaN])}}));
    """
    res = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["segs"] == 2 and got["ends"] == [499, 501]
    assert got["points"] <= 2 * 150 * 4
    assert got["skipped"] == [[0, 1, 2], [5, 6]]
    assert got["gaps"].startswith("No number at 2 of 3 steps (1, 2)")


def _hostile_logs(tmp_path: Path) -> list[Path]:
    """The 12-step log, broken as logs from elsewhere are (issue 60): markup, controls, non-finite and non-number
    values, a 1 MB line, steps out of order, repeated, negative or huge."""
    lines = ml.healthy(12)
    step0 = next(ln for ln in lines if "log_utils.py:542 - step 0:" in ln)

    def step(n: int) -> str:
        return step0.replace("step 0:", f"step {n}:").replace("'train/step': 0", f"'train/step': {n}")

    def value(v: str) -> list[str]:
        return [ln.replace("'rollout/raw_reward': 0.5,", f"'rollout/raw_reward': {v},") for ln in lines]

    cases = {
        "script": [ln.replace("'rollout/raw_reward'", "'<script>alert(1)</script>'", 1) for ln in lines],
        "img": value("'<img src=x onerror=alert(1)>'"), "rtl": [ln.replace("step ", "step\u202e ") for ln in lines],
        "ansi": [ln.replace("step ", "\x1b[31mstep ") for ln in lines], "long": [*lines[:5], "x" * (1 << 20), *lines[5:]],
        "nan": value("nan"), "inf": value("inf"), "big": value("1e999"), "negzero": value("-0.0"), "bool": value("True"),
        "none": value("None"), "negative": [*lines, step(-3)], "huge": [*lines, step(10**30)],
        "reversed": lines[::-1], "repeated": [*lines, step(3)], "unordered": [step(n) for n in (5, 2, 9, 2, 0, 7)],
    }
    out = []
    for name, text in cases.items():
        p = tmp_path / f"hostile-{name}.log"
        p.write_text("\n".join(text) + "\n", encoding="utf-8")
        out.append(p)
    return out


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_hostile_logs_give_the_same_text_cells_on_the_page_and_in_read_run(served: Path, tmp_path: Path) -> None:
    """Cell by cell as read_run.py prints them; a `True` is no number on either side (it printed as 1)."""
    logs = _hostile_logs(tmp_path)
    js = node_tables(served, SERIES_ID, None, logs)
    for log in logs:
        py, cells = python_table(log, SERIES_ID, None)
        assert js[str(log)]["table"]["steps"] == py["steps"] and js[str(log)]["rows"] == cells, log.name
    bool_row = next(r for r in js[str(tmp_path / "hostile-bool.log")]["rows"] if r[0] == "rollout/raw_reward (yours)")
    assert bool_row[3] == "-"
