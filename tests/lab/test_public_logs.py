"""read_run.py on real log lines quoted from public issue threads (tests/fixtures/public-logs/index.json
names each thread), on the page it points at, and on the data both come from."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from miles101.tools import read_run as rr
from capture.lab import symptoms
from labutil import in_process

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "public-logs"
INDEX = json.loads((FIX / "index.json").read_text(encoding="utf-8"))["fixtures"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """read_run.py's main in this process (tests/test_hints.py and test_read_run.py start the file itself)."""
    return in_process(rr.main, *args)


def test_every_fixture_is_cited_and_indexed():
    logs = {p.name for p in FIX.glob("*.log")}
    assert logs == set(INDEX)
    for name, meta in INDEX.items():
        assert meta["url"].startswith("https://github.com/"), name
        assert meta["title"] and meta["hardware"], name


@pytest.mark.parametrize("name", sorted(INDEX))
def test_no_fixture_crashes_any_mode(name):
    log = str(FIX / name)
    for args in ([], ["--json"], ["--diagnose"], ["--diagnose", "--json"], ["--compare"], ["--steps", "1"]):
        res = run(log, *args)
        assert res.returncode in (0, 1), (args, res.stderr)
        assert "Traceback" not in res.stderr, (args, res.stderr)


def test_diagnose_finds_the_right_entry_on_real_logs():
    expected = {n: m["diagnose"] for n, m in INDEX.items() if m["diagnose"]}
    assert len(expected) >= 10
    for name, ids in expected.items():
        res = run(str(FIX / name), "--diagnose", "--json")
        assert res.returncode == 0, res.stderr
        matches = json.loads(res.stdout)["matches"]
        # one line matched by several entries of one section is one entry, the others listed as also matched
        found = [i for m in matches for i in [m["id"], *(a["id"] for a in m["also_matched"])]]
        for want in ids:
            assert want in found, (name, want, found)
        assert found[0] == ids[0] or set(found[:len(ids)]) == set(ids), (name, found)


def test_diagnose_prints_line_title_anchor_check_fix(monkeypatch):
    monkeypatch.delenv(rr.PAGE_URL_ENV, raising=False)
    res = run(str(FIX / "slime-1542-403-forbidden.log"), "--diagnose")
    out = res.stdout
    assert out.startswith("line 2: ")
    assert "7.1 Engine: Client error '403 Forbidden' for url" in out
    assert "  in the book: 7.1 Troubleshoot by symptom, entry #engine-403-forbidden\n" in out  # no address known
    assert rr.PAGE_PATH not in out  # a path inside the site is nothing to open on the host
    assert "check: env | grep -i proxy" in out and "fix:   Set no_proxy" in out


def test_diagnose_names_the_entry_by_its_address_when_the_archive_gives_it(monkeypatch):
    page = "https://example.org/en/latest/sections/7-1-troubleshoot-by-symptom.html"
    monkeypatch.setenv(rr.PAGE_URL_ENV, page)
    res = run(str(FIX / "slime-1542-403-forbidden.log"), "--diagnose")
    assert f"  in the book: {page}#engine-403-forbidden\n" in res.stdout


def test_step_lines_alone_are_read_grad_norm_3e9():
    """ProRL-Agent-Server#40: two step lines and nothing else; grad_norm about 3e9."""
    lines = (FIX / "prorl-40-step-lines-only.log").read_text(encoding="utf-8").splitlines()
    rows, asm = rr.read_log(lines)
    assert [r["step"] for r in rows] == [1, 28]
    assert rows[0]["train"]["train/grad_norm"] > 1e9 and rows[0]["lines"] == [1]
    report = rr.read_run(rows)
    assert report["verdicts"]["grad_norm"]["verdict"] == "bad"
    assert not asm.malformed and not asm.nonfinite


def test_prefixed_rollout_perf_lines_and_interleaved_sglang():
    rows = rr.parse_log((FIX / "slime-1837-rollout-perf-prefixed.log").read_text(encoding="utf-8").splitlines())
    assert len(rows) == 1 and rows[0]["perf"]["perf/rollout_time"] > 0
    rows = rr.parse_log((FIX / "slime-1497-rollout-interleaved.log").read_text(encoding="utf-8").splitlines())
    assert [r["step"] for r in rows] == [13] and rows[0]["perf"]["rollout/truncated_ratio"] > 0


def test_ansi_ray_dedup_malformed_nonfinite_and_newer_reward_key():
    # Lines written for this test (not quoted): colours, a dedup suffix, a dict cut by `...`, nan.
    lines = [
        "\x1b[36m(MegatronTrainRayActor pid=7)\x1b[0m rollout 0: {'rollout/episode_raw_reward': 0.25} [repeated 2x across cluster]",
        "(RolloutManager pid=9) step 0: {'train/loss': 0.1, ..., 'train/step': 0}",
        "step 0: {'train/grad_norm': nan, 'train/step': 0}",
        "step 1: {'train/grad_norm': 0.5, 'train/step': 1",
    ]
    rows, asm = rr.read_log(lines)
    assert rows[0]["rollout"]["rollout/episode_raw_reward"] == 0.25 and asm.last_reward == 0.25
    assert rr.read_run(rows)["steps"][0]["reward"] == 0.25
    assert [(b["line"], b["kind"]) for b in asm.malformed] == [(2, "step"), (4, "step")]
    assert [(b["line"], b["key"]) for b in asm.nonfinite] == [(3, "train/grad_norm")]
    assert rr.parse_line("garbage {{{ step 3: {") is None
    for junk in ["", "\x00\xff", "step 9: {" + "[" * 2000 + "}", "eval 1: {'a': np.float64(}"]:
        rr.StepAssembler().feed(junk)  # never raises


def test_symptom_table_is_the_data_file_and_matches_the_page():
    data = symptoms.load()
    jsonschema.validate(data, json.loads((ROOT / "_ext/miles101/schema/symptoms.schema.json").read_text()))
    assert json.loads(rr.SYMPTOMS_JSON) == data, "python3 -m capture.lab.symptoms --write"
    page = (ROOT / data["page"]).read_text(encoding="utf-8")
    assert symptoms.check_page(page, data) == []
    assert len({s["id"] for s in data["symptoms"]}) == len(data["symptoms"])


def test_page_check_catches_drift():
    data = symptoms.load()
    page = (ROOT / data["page"]).read_text(encoding="utf-8")
    broken = page.replace("(engine-max-retries)=\n", "", 1)
    assert any("engine-max-retries" in e or "label" in e for e in symptoms.check_page(broken, data))
    s = next(x for x in data["symptoms"] if x["id"] == "engine-port-in-use")
    assert symptoms.check_page(page.replace(s["check"], "ss -l"), data)


def test_cutoffs_equal_the_published_references():
    refs = json.loads((ROOT / "capture/references/reader.json").read_text(encoding="utf-8"))
    assert refs["schema"] == "references/1"
    assert rr.CUTOFFS == {k: v["value"] for k, v in refs["references"].items()}
    for key, rec in refs["references"].items():
        assert "hardware" not in rec, key  # a rule in code
        assert rec["label"] and rec["unit"] and rec["what"] and rec["source"], key


def test_compare_says_pending_and_shows_references():
    res = run(str(FIX / "prorl-40-step-lines-only.log"), "--compare", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["gb10"].startswith("pending")
    grad = next(r for r in out["signals"] if r["signal"] == "grad_norm")
    assert "reader.grad_norm_clip" in grad["references"] and grad["gb10"] == "pending"


def test_compare_tells_our_thresholds_from_public_references():
    """--compare tags the reader's own cut-offs 'our threshold' and Miles's published numbers 'reference'."""
    res = run(str(FIX / "prorl-40-step-lines-only.log"), "--compare")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert any(line.strip().startswith("our threshold:") and "[reader.truncation_watch]" in line for line in lines)
    assert any(line.strip().startswith("reference:") and "[reader.grad_norm_clip]" in line for line in lines)
    assert not any(line.strip().startswith("reference:") and "[reader.logprob_gap_watch]" in line for line in lines)
