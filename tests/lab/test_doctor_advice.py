"""The log doctor's advice where several entries meet: a tie said as a tie, one line as one entry, fixes that pull
one flag both ways, the samples' labels, the out-of-memory message's reserved figure, and its rankings on the
development set of the corpus (tests/fixtures/doctor-corpus/; the held-out set is only scored, never asserted).

The logs named rank-*.log are synthetic (tests/lab/test_doctor_ranking.py writes them); the corpus is quoted from
public threads.
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from capture.lab import symptoms
from doctor_corpus import diagnosis, load_set
from miles101.tools import read_run as rr
from test_doctor_ranking import diagnose, ids, logs  # noqa: F401  (the fixture)

pytestmark = pytest.mark.unit

#: A pattern that is one of these words (or one plain word) would match lines of every log.
GENERIC = {"error", "errors", "traceback", "failed", "failure", "exception", "warning", "killed", "timeout", "nan",
           "oom", "abort", "aborted", "fatal", "runtimeerror", "assertionerror", "valueerror", "cuda error",
           "out of memory", "invalid argument", "not found"}


def test_no_pattern_is_a_bare_generic_word():
    bad = []
    for sym in symptoms.load()["symptoms"]:
        for g in sym["grep"]:
            parts = [p.strip() for p in g.split(" ... ")]
            longest = max(parts, key=len)
            plain_word = re.fullmatch(r"[A-Za-z]+:?", longest) is not None
            if longest.lower().rstrip(":.!") in GENERIC or plain_word or len(longest) < 8:
                bad.append((sym["id"], g))
    assert not bad, f"patterns that would match ordinary lines: {bad}"


def test_the_generic_check_catches_one():
    assert "traceback" in GENERIC and re.fullmatch(r"[A-Za-z]+:?", "Traceback") is not None


def test_a_tie_is_said_with_the_check_that_tells(logs):  # noqa: F811
    got, settings = diagnose(logs["rank-oom-no-evidence.log"])
    assert len(got) == 1, ids(got)  # (4) one OOM line is one entry
    first = got[0]
    tied = {u["id"] for u in first["undecided"]}
    assert tied | {first["id"]} == {"mem-torch-oom-switch", "mem-oom-trainer", "engine-oom"}, (first["id"], tied)
    text = rr.render_diagnosis(got, [], [], settings)
    assert "the log cannot tell these apart" in text and "first because" not in text
    for u in [first, *first["undecided"]]:
        assert f"to tell, {u['id']}: {u['check'].splitlines()[0]}" in text
    assert "comes first in the log" not in text


def test_evidence_breaks_the_tie(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-trainer-whole.log"])
    assert got[0]["id"] == "mem-oom-trainer" and got[0]["undecided"] == []
    assert {a["id"] for a in got[0]["also_matched"]} >= {"mem-torch-oom-switch", "engine-oom"}
    assert all(a["score"] < got[0]["score"] for a in got[0]["also_matched"])


def test_the_fragmentation_rule_reads_the_reserved_figure(logs):  # noqa: F811
    cases = {"rank-trainer-fragmentation.log": ("fragmented", "Fragmentation"),
             "rank-trainer-whole.log": ("whole", "One micro-batch"),
             "rank-trainer-margin.log": ("margin", "torch_memory_saver refused"),
             "rank-trainer-old-message.log": ("fragmented", "Fragmentation")}
    for name, (alloc, cause) in cases.items():
        got, _ = diagnose(logs[name])
        trainer = got[0]
        assert trainer["id"] == "mem-oom-trainer", (name, ids(got))
        assert trainer["facts"]["alloc"] == alloc, name
        assert trainer["causes"][0]["cause"].startswith(cause), (name, trainer["causes"][0]["cause"])
    # `is free` plays no part: both logs have less free than asked, and only the reserved figure differs
    frag, _ = diagnose(logs["rank-trainer-fragmentation.log"])
    assert "6.54 GiB reserved but unallocated, at least the 2.00 GiB" in frag[0]["causes"][0]["why"][0]
    old, _ = diagnose(logs["rank-trainer-old-message.log"])
    assert "7.00 GiB reserved but unallocated" in old[0]["causes"][0]["why"][0]
    margin, _ = diagnose(logs["rank-trainer-margin.log"])
    assert "inside its margin of 1.00 GiB" in margin[0]["causes"][0]["why"][0]


def test_the_allocator_fix_stays_inside_train_env_vars(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-trainer-fragmentation.log"], "--train-backend fsdp --colocate")
    fixes = got[0]["causes"][0]["fixes"]
    assert fixes[0].startswith("Set the allocator for the trainer alone: --train-env-vars "
                               "'{\"PYTORCH_CUDA_ALLOC_CONF\":\"expandable_segments:True\"}'"), fixes
    got, _ = diagnose(logs["rank-trainer-fragmentation.log"], "--train-backend megatron --offload-train")
    assert not any("expandable_segments" in f for f in got[0]["causes"][0]["fixes"])  # FSDP's form only


def test_label_none_is_read_and_opposite_moves_are_named(logs):  # noqa: F811
    got, settings = diagnose(logs["rank-thinking-gsm8k.log"])
    by = {m["id"]: m for m in got}
    reward = by["reward-flat-zero"]
    assert reward["facts"]["label"] == "none"  # (3) the `label=None` of `First rollout sample:`
    assert reward["causes"][0]["cause"].startswith("The label is not the reference answer")
    assert "the logged samples have label=None" in reward["causes"][0]["why"]
    oom = by["mem-oom-trainer"]
    pulls = [o for o in oom["opposite"] if o["flag"] == "--rollout-max-response-len"]
    assert pulls and pulls[0]["this"] == "lower" and pulls[0]["other"] == "raise" and pulls[0]["id"] == "reward-flat-zero"
    assert pulls[0]["first"] == "mem-oom-trainer"  # (2) what stops the run first, then the signal
    text = rr.render_diagnosis(got, [], [], settings)
    assert ("opposite fixes: this entry says lower --rollout-max-response-len, reward-flat-zero says raise it; "
            "try mem-oom-trainer's fixes first") in text


def _dev_cases() -> list[dict[str, Any]]:
    return [c for c in load_set("development")["cases"]]


#: Development cases the doctor still misses, each with why. The rules take a message only where a Miles run can print it
#: (Miles, Megatron, SGLang, PyTorch, Ray, NCCL, Triton, transformers, torch_memory_saver, the kernel), never another
#: trainer's own wording (verl's, TRL's).
KNOWN_MISSES = {
    "verl-3358": "verl's own resource check (`Total available GPUs ... is less than total desired GPUs`): no Miles line",
    "verl-3450": "verl's reward lookup by data_source: no Miles line",
    "ms-swift-3980": "TRL's own batch check (`must be evenly divisible by the number of generations per prompt`)",
    "trl-2876": "TRL's own batch check, as ms-swift-3980",
    "openmanus-rl-21": "TRL's own batch check, as ms-swift-3980",
    "pytorch-10577": "old PyTorch's `write(): fd N failed with Input/output error` names EIO, not the no-space errno: "
                     "a disk-full entry would be a guess",
    "ronin-51": "PyTorch's `File ... cannot be opened.` names no errno (a missing directory reads the same)",
    "open-instruct-1431": "open-instruct's own wait message (`Waiting for placement group to be scheduled`): no Ray or "
                          "Miles line",
    "open-instruct-1067": "Ray's `The object store is using /tmp instead of /dev/shm` is a warning that healthy runs print "
                          "too: naming it would name healthy logs",
    "unsloth-3898": "the flash-attn line is Unsloth's own wording; the one line a Miles run shares is PyTorch's GB10 "
                    "warning, which healthy runs print (a note, no entry)",
    "comfyui-7202": "diffusers' wording of a directory without config.json (`no file named config.json found in "
                    "directory`): no program of a Miles run prints it",
    "gpud-1170": "gpud's own log of NVML's `Not Supported`: no Miles, PyTorch or nvidia-smi line",
}


@pytest.mark.parametrize("case", [c for c in _dev_cases() if c["has_error_line"] and not c["healthy"]
                                  and c["expected"] != "none"], ids=lambda c: c["id"])
def test_development_case_first_entry(case):
    got = [m["id"] for m in diagnosis(rr, case["excerpt"])]
    if case["id"] in KNOWN_MISSES:
        assert got[:1] != [case["expected"]], f"{case['id']} now passes: drop it from KNOWN_MISSES"
        return
    assert got[:1] == [case["expected"]], (case["id"], got)


@pytest.mark.parametrize("case", [c for c in _dev_cases() if c["healthy"]], ids=lambda c: c["id"])
def test_development_healthy_log_names_no_entry(case):
    assert diagnosis(rr, case["excerpt"]) == []


def test_every_expected_development_entry_exists():
    have = {s["id"] for s in symptoms.load()["symptoms"]}
    missing = {c["expected"] for c in _dev_cases() if c["expected"] != "none"} - have
    assert not missing, missing


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`read_run.py LOG --steps N | head` on a long log: no BrokenPipeError traceback (issue 57's smaller items)."""
    import subprocess
    import sys

    rows = [f"[2026] log_utils.py:542 - step {s}: {{'train/step': {s}, 'train/grad_norm': 0.3}}" for s in range(20000)]
    log = tmp_path / "long.log"
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, rr.__file__, str(log), "--steps", "20000"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does once it has its line
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()


def test_a_cause_the_log_argues_against_pulls_no_flag(tmp_path):
    """The thinking-model log again, but PyTorch held the request reserved (fragmentation, synthetic): the cause that
    would lower --rollout-max-response-len is argued against, so no opposite fix is named."""
    from test_doctor_ranking import OOM_SMALL, OOM_SMALL_WHOLE, RANKING_LOGS

    lines = [OOM_SMALL if ln == OOM_SMALL_WHOLE else ln for ln in RANKING_LOGS["rank-thinking-gsm8k.log"]]
    log = tmp_path / "frag.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got, settings = diagnose(log)
    oom = next(m for m in got if m["id"] == "mem-oom-trainer")
    assert oom["facts"]["alloc"] == "fragmented"
    assert not [o for o in oom["opposite"] if o["flag"] == "--rollout-max-response-len"], oom["opposite"]


def _examine(path):
    lines = rr.read_log_file(str(path))
    _, _, report = rr.report_of(lines, 10, rr.groups_in_log(lines))
    settings = rr.settings_in_log(lines)
    matches, notes = rr.examine(lines, report, settings)
    return matches, notes, rr.render_diagnosis(matches, [], [], settings, notes)


def test_a_warning_healthy_gb10_runs_print_is_a_note_not_an_entry(logs):  # noqa: F811
    """PyTorch's capability warning alone: no entry named (healthy GB10 runs print it), the line shown as a note."""
    matches, notes, text = _examine(logs["rank-gb10-warning-alone.log"])
    assert matches == [] and [(n["id"], n["line"]) for n in notes] == [("gb10-capability-warning", 2)]
    assert "seen, not a cause on its own: a warning healthy GB10 runs print" in text
    assert text.startswith(rr.NOTES_ONLY) and rr.NO_MATCH not in text


def test_the_gb10_warning_is_evidence_for_a_gb10_entry(logs):  # noqa: F811
    matches, notes, text = _examine(logs["rank-gb10-warning-flashinfer.log"])
    assert ids(matches) == ["gb10-flashinfer-sm121-gate"] and matches[0]["facts"]["gpu"] == "gb10"
    assert matches[0]["why"] == [rr._says("gpu", "gb10", {"seen_line": 1})] and "line 1 is PyTorch's" in matches[0]["why"][0]
    assert [n["id"] for n in notes] == ["gb10-capability-warning"]
    assert "gb10-capability-warning" not in [a["id"] for m in matches for a in m["also_matched"] + m["undecided"]]


def test_the_gb10_warning_does_not_outrank_a_more_specific_import_error(logs):  # noqa: F811
    """sgl-kernel's import failure for want of libnuma on a GB10: libnuma stays first; the warning only moves the
    GB10 cause of the common_ops entry (its first cause) with its line as the reason."""
    matches, _, _ = _examine(logs["rank-gb10-warning-libnuma.log"])
    assert ids(matches) == ["sgl-kernel-libnuma-missing", "gb10-no-kernel-image"]
    first_cause = matches[1]["causes"][0]
    assert "GB10" in first_cause["cause"] and "the run is on a GB10" in first_cause["why"][0]

