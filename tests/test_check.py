"""`capture/run.py --check` on a private copy of the project's real capture data.

In-process runs share the session's intake cache (`intake_cache`): a copy's unchanged files are not
validated again, its tampered file (new bytes) is checked cold. The command-line runs use none.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from capture.check import run_check

ROOT = Path(__file__).resolve().parent.parent


def failures(root: Path, cache: Path) -> list[str]:
    return run_check(root, cache_dir=cache)[0].failures


def test_check_counts_everything(project: Path, intake_cache: Path) -> None:
    report, counts = run_check(project, cache_dir=intake_cache)
    assert counts["capture files validated"] >= 10
    assert counts["computed values recomputed"] > 50
    assert counts["page references resolved"] > 100


def test_pin_mismatch_is_said(project: Path, intake_cache: Path) -> None:
    """A pin newer than what the capture read is a warning that says how to refresh (not a failure)."""
    book = json.loads((project / "manual.json").read_text())
    book["pin"].update(commit="abcdef0123", date="2999-01-01")
    (project / "manual.json").write_text(json.dumps(book))
    report, _ = run_check(project, cache_dir=intake_cache)
    assert any(t.startswith("pin: manual.json pins") and "abcdef0123" in t for t in report.warnings)
    assert "The captured commit is older than the pin." in " ".join(report.warnings)
    assert not any(t.startswith("pin:") for t in report.failures)


def test_hand_edited_derived_value_fails(project: Path, intake_cache: Path) -> None:
    path = project / "capture" / "computed.json"
    data = json.loads(path.read_text())
    data["values"]["params.qwen3-0.6B"]["value"] += 1
    path.write_text(json.dumps(data))
    assert any("params.qwen3-0.6B holds" in f and "edited by hand?" in f for f in failures(project, intake_cache))


def test_schema_failure_is_named(project: Path, intake_cache: Path) -> None:
    path = project / "capture" / "facts.json"
    data = json.loads(path.read_text())
    data["facts"]["spark.memory"]["source"] = "not a url"
    path.write_text(json.dumps(data))
    found = failures(project, intake_cache)
    assert any(f.startswith('capture/facts.json:$.facts["spark.memory"].source: ') for f in found)


def test_truncated_file_names_line_and_column(project: Path, intake_cache: Path) -> None:
    path = project / "capture" / "miles" / "metrics.json"
    path.write_text(path.read_text()[:500])
    found = failures(project, intake_cache)
    assert any(f.startswith("capture/miles/metrics.json:") and "truncated" in f for f in found)


def test_unknown_flag_in_a_page(project: Path, intake_cache: Path) -> None:
    page = project / "sections" / "1-2-add-a-watchdog.md"
    page.write_text(page.read_text() + "\nSet {flag}`--rollout-batch-sise`.\n")
    found = [f for f in failures(project, intake_cache) if "--rollout-batch-sise" in f]
    assert found and found[0].startswith("sections/1-2-add-a-watchdog.md:")
    assert "Did you mean --rollout-batch-size," in found[0]


def test_strict_fails_on_pending_and_pin(project: Path, intake_cache: Path) -> None:
    report, _ = run_check(project, strict=True, cache_dir=intake_cache)
    assert any(f.startswith("pending:") for f in report.failures)
    assert any(f.startswith("pin:") for f in report.failures)


def test_cli_exit_status_and_report(project: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "--check", "--root", str(project),
                           "--strict"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "check FAILED" in done.stdout and "page references resolved:" in done.stdout


def test_thresholds_are_checked_like_the_build(project: Path, intake_cache: Path) -> None:
    """--check knows {threshold}: an unknown key fails, and so does one of ours cited as a public reference."""
    page = project / "sections" / "5-1-read-the-run.md"
    page.write_text(page.read_text() + "\nA {threshold}`reader.no_such_cut` and {reference}`reader.truncation_watch`.\n")
    found = failures(project, intake_cache)
    assert any(f.startswith("sections/5-1-read-the-run.md:") and "no threshold value 'reader.no_such_cut'" in f
               for f in found)
    assert any("'reader.truncation_watch' is one of this book's own thresholds" in f
               and "cite it as {threshold}`reader.truncation_watch`" in f for f in found)


def test_only_published_cut_offs_are_public_references() -> None:
    """Of the run reader's cut-offs only Miles's published ones are public refs, each citing Miles's source."""
    refs = json.loads((ROOT / "capture/references/reader.json").read_text())["references"]
    public = {k for k, r in refs.items() if r.get("kind", "public") == "public"}
    assert public == {"reader.clipfrac_watch", "reader.clipfrac_bad", "reader.grad_norm_clip"}
    assert all(refs[k]["src"].startswith(("docs/user-guide/monitoring.md", "miles/utils/arguments.py")) for k in public)
    ours = set(refs) - public
    assert ours and all(refs[k]["kind"] == "threshold" and refs[k]["reasoning"] for k in ours)
    cited_as_reference = [p.name for p in (ROOT / "sections").glob("*.md")
                          for k in ours if "{reference}`" + k in p.read_text(encoding="utf-8")]
    assert not cited_as_reference


def test_fact_check_record_is_checked(project: Path, intake_cache: Path) -> None:
    """capture/factcheck.json: its schema (named by JSON path) and what a schema cannot see both fail --check."""
    path = project / "capture" / "factcheck.json"
    doc = json.loads(path.read_text())
    del doc["checks"][0]["date"]
    doc["checks"][1]["page"] = "sections/0-0-gone.md"
    path.write_text(json.dumps(doc))
    found = failures(project, intake_cache)
    assert any(f.startswith("capture/factcheck.json:$.checks[0]: 'date' is a required property") for f in found), found
    assert any("capture/factcheck.json:$.checks[1].page: 'sections/0-0-gone.md' is not a page of the book." in f
               for f in found)


def test_check_passes_on_the_real_data() -> None:
    """`capture/run.py --check` (what `tox -e check` and `dev.py check` run) passes on the committed capture."""
    done = subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "--check"], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "check passed: 0 failure(s)" in done.stdout


def test_another_checkouts_install_is_refused_by_name(tmp_path: Path) -> None:
    """run.py in one checkout, the project imported from another (a venv's editable install): it names both."""
    other = tmp_path / "other-checkout"
    (other / "capture").mkdir(parents=True)
    shutil.copy(ROOT / "capture" / "run.py", other / "capture" / "run.py")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # `capture` and `miles101` resolve to this checkout
    done = subprocess.run([sys.executable, str(other / "capture" / "run.py"), "--check"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode != 0 and "check passed" not in done.stdout
    assert f"this checkout is {other.resolve()}" in done.stderr
    assert f"from {ROOT / 'capture'}" in done.stderr and "PYTHONPATH=" in done.stderr


def test_the_command_line_reads_a_cache_only_when_told_to(project: Path, capsys) -> None:
    """By default --check reads nothing cached, even where the web build's doctree folder holds memos;
    `--cache DIR` takes the capture in through DIR (the same answers: its memos are keyed by bytes and code)."""
    import re

    from capture import check
    from miles101.intake import CHECKS_CACHE, MODEL_CACHE

    cache = project / check.BUILD_CACHE
    # (the copy has no code, so its fact-check sources fail it: the same exit and report every time)
    status = check.main(["--root", str(project)])  # no build yet: no cache written anywhere
    cold = capsys.readouterr().out
    assert not cache.exists()
    cache.mkdir(parents=True)
    assert check.main(["--root", str(project)]) == status
    assert capsys.readouterr().out and not any(cache.iterdir())  # a doctree folder alone is not read or written
    assert check.main(["--root", str(project), "--cache", str(cache)]) == status
    first = capsys.readouterr().out
    assert (cache / CHECKS_CACHE).is_file() and (cache / MODEL_CACHE).is_file()
    assert check.main(["--root", str(project), "--cache", str(cache)]) == status
    warm = capsys.readouterr().out
    same = [re.sub(r"seconds: \S+", "seconds: -", text) for text in (cold, first, warm)]
    assert same[0] == same[1] == same[2]
    with pytest.raises(SystemExit) as stop:
        check.main(["--root", str(project), "--cache", str(project / "no-such-folder")])
    assert stop.value.code == 2 and "--cache" in capsys.readouterr().err


class Planted:
    """An answer that runs a command when unpickled: what a hostile memo holds."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.marker}",))


class Exits:
    """An answer that ends the program when unpickled (`sys.exit(7)`)."""

    def __reduce__(self) -> tuple:
        return (sys.exit, (7,))


def plant(cache: Path, root: Path, answer: object) -> None:
    """The capture's model memo under its CORRECT key for `root`, with `answer` in place of the model."""
    import pickle

    from miles101.inputs import Inputs
    from miles101.intake import MODEL_CACHE, input_sums, model_key

    inputs = Inputs(root)
    key = model_key(inputs.code, input_sums(inputs))
    cache.mkdir(parents=True, exist_ok=True)
    (cache / MODEL_CACHE).write_bytes(pickle.dumps(key) + pickle.dumps(answer))


@pytest.mark.parametrize("explicit", [False, True])
def test_a_planted_memo_runs_nothing_and_chooses_no_exit(project: Path, tmp_path: Path, capsys, explicit: bool) -> None:
    """A memo with the right key and a code-running answer in _build/doctrees: `--check --root OTHER` never reads
    it, and even `--cache DIR` naming it never runs it; a memo that calls sys.exit(7) does not choose the exit."""
    from capture import check

    status = check.main(["--root", str(project)])
    cold = capsys.readouterr().out.splitlines()[-1]
    marker = tmp_path / "ran"
    cache = project / check.BUILD_CACHE
    argv = ["--root", str(project), *(["--cache", str(cache)] if explicit else [])]
    plant(cache, project, Planted(marker))
    assert check.main(argv) == status
    assert not marker.exists() and capsys.readouterr().out.splitlines()[-1] == cold
    plant(cache, project, Exits())
    assert check.main(argv) == status  # no SystemExit(7) escapes
    assert capsys.readouterr().out.splitlines()[-1] == cold


def test_a_planted_memo_is_not_run_by_the_command_line(project: Path, tmp_path: Path) -> None:
    """The same through `capture/run.py --check --root OTHER` in a fresh process, with and without --cache."""
    from capture import check

    marker = tmp_path / "ran"
    plant(project / check.BUILD_CACHE, project, Planted(marker))
    for extra in ([], ["--cache", str(project / check.BUILD_CACHE)]):
        done = subprocess.run([sys.executable, str(ROOT / "capture" / "run.py"), "--check", "--root", str(project),
                               *extra], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert "check " in done.stdout and done.returncode in (0, 1), done.stderr[-2000:]
        assert not marker.exists()
