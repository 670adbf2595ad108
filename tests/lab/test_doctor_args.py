"""The doctor reads a run's arguments as bash reads them (read_run.shell_words, run_file_args, settings_of_args).

Each case is a text a reader could pass as `read_run.py --run FILE` or paste into the page: a commented-out
flag, a flag named in a comment, a run file whose backend comes from its `base:`, a shell variable, a flag
inside a JSON string, quoted flags, `--flag=value`, continuation lines, text with no flag. The backend is
Miles's default only where a full argument list names none and has no base; elsewhere it is a value the
text passes, or unknown with the reason. tests/lab/test_doctor_parity.py holds the page's port to the same.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from labutil import in_process

from miles101.tools import read_run as rr

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "capture" / "runs"
PUBLIC = ROOT / "tests" / "fixtures" / "public-logs"
NOT_READ = "from base: first-grpo, not read"

#: (name, text, backend, dynamic_batch, unknown) as settings_of_args reads the text with no base reader.
CASES: list[tuple[str, str, str | None, str | None, dict[str, str]]] = [
    ("commented-out line", "python3 train.py \\\n  --colocate \\\n# --train-backend fsdp\n  --rollout-batch-size 8\n",
     "megatron", "off", {}),
    ("commented-out dynamic", "python3 train.py --colocate\n#--use-dynamic-batch-size\n", "megatron", "off", {}),
    ("comment text", "python3 train.py --train-backend fsdp  # later: --use-dynamic-batch-size, --train-backend megatron",
     "fsdp", "off", {}),
    ("hash inside a word", "python3 train.py --save /ckpt#1 --train-backend fsdp", "fsdp", "off", {}),
    ("shell variable", "python3 train.py --train-backend $BACKEND --colocate", None, "off", {"backend": "$BACKEND"}),
    ("braced variable, quoted", 'python3 train.py --train-backend "${BACKEND:-fsdp}"', None, "off",
     {"backend": "${BACKEND:-fsdp}"}),
    ("command substitution", "python3 train.py --train-backend=$(cat backend.txt)", None, "off",
     {"backend": "$(cat backend.txt)"}),
    ("single-quoted $ is text", "python3 train.py --train-backend '$BACKEND'", None, "off",
     {"backend": "$BACKEND, not a choice: megatron or fsdp"}),
    ("JSON string holding a flag",
     """python3 train.py --colocate --sglang-config '{"extra": "--train-backend fsdp --use-dynamic-batch-size"}'""",
     "megatron", "off", {}),
    ("quoted flag and value", """python3 train.py '--train-backend' "fsdp" --use-dynamic-batch-size""", "fsdp", "on", {}),
    ("flag and value quoted as one word", """python3 train.py "--train-backend fsdp" --colocate""", "megatron", "off", {}),
    ("--flag=value", "python3 train.py --train-backend=fsdp", "fsdp", "off", {}),
    ("continuation lines", "python3 train.py \\\n  --train-backend \\\n  fsdp \\\n  --use-dynamic-batch-size\n",
     "fsdp", "on", {}),
    ("escaped quote in double quotes", 'python3 train.py --note "a \\"--train-backend fsdp\\"" --colocate',
     "megatron", "off", {}),
    ("the last one wins", "python3 train.py --train-backend fsdp --train-backend megatron", "megatron", "off", {}),
    ("no value", "python3 train.py --colocate --train-backend", None, "off", {"backend": "no value after it"}),
    ("7.1's $RUN.args", "python3 train.py\n--train-backend fsdp\n--colocate\n--use-dynamic-batch-size\n", "fsdp", "on", {}),
    ("bash array", "PERF_ARGS=(\n  --use-dynamic-batch-size  # on\n)\nray job submit -- python3 train.py ${PERF_ARGS[@]}",
     "megatron", "on", {}),
    ("CRLF lines", "python3 train.py \\\r\n  --train-backend fsdp\r\n", "fsdp", "off", {}),
    ("run file with a base", (RUNS / "recipe-gsm8k.yaml").read_text(encoding="utf-8"), None, None,
     {"backend": NOT_READ, "dynamic_batch": NOT_READ}),
    ("run file without a base", (RUNS / "first-grpo.yaml").read_text(encoding="utf-8"), "fsdp", "off", {}),
    ("run file, base and own backend", "base: first-grpo\nargs:\n  - --train-backend   # here\n  - 'megatron'\n",
     "megatron", None, {"dynamic_batch": NOT_READ}),
    ("run file, base and a dropped flag", "base: first-grpo\ndrop:\n  --use-dynamic-batch-size: \"why\"\nargs: []\n",
     None, "off", {"backend": NOT_READ}),
    ("run file, base not a run id", "base: ../../etc/x\nargs: []\n", None, None,
     {"backend": "from base: ../../etc/x, not a run id", "dynamic_batch": "from base: ../../etc/x, not a run id"}),
    ("a run file's args list alone", "# pasted from a run file\n- --train-backend\n- fsdp\n-   --use-dynamic-batch-size\n",
     "fsdp", "on", {}),
    ("run file, values are not shell", 'args:\n  - --train-backend\n  - "$BACKEND"\n', None, "off",
     {"backend": "$BACKEND, not a choice: megatron or fsdp"}),
]
#: Texts that pass no argument: refused by the CLI (exit 2) and the page.
NO_FLAG = ["hello world", "# --train-backend fsdp\n# --use-dynamic-batch-size\n", "python3 train.py '  --x' \"\"",
           "echo hi  # --colocate\n", "   \n"]


@pytest.mark.parametrize("name,text,backend,dyn,unknown", CASES, ids=[c[0] for c in CASES])
def test_settings_of_args(name: str, text: str, backend: str | None, dyn: str | None, unknown: dict[str, str]) -> None:
    got = rr.settings_of_args(text, "run")
    assert (got["backend"], got["dynamic_batch"], got["unknown"]) == (backend, dyn, unknown), name
    assert rr.passes_arguments(text)


@pytest.mark.parametrize("text", NO_FLAG)
def test_text_with_no_flag_passes_no_argument(text: str) -> None:
    assert not rr.passes_arguments(text)


def test_shell_words_as_bash_reads_them() -> None:
    assert rr.shell_words("a 'b c' \"d \\\" $X e\" f\\ g # h\ni\\\nj") == [
        ("a", None), ("b c", None), ('d " $X e', "$X"), ("f g", None), ("ij", None)]
    assert rr.shell_words("x=$(a (b) c)d;y `z`&&w") == [("x=$(a (b) c)d", "$(a (b) c)"), ("y", None),
                                                          ("`z`", "`z`"), ("w", None)]
    assert rr.shell_words("'open") == [("open", None)] and rr.shell_words("$ 5$") == [("$", None), ("5$", None)]


def test_unknown_settings_in_words() -> None:
    s = rr.settings_of_args((RUNS / "recipe-gsm8k.yaml").read_text(encoding="utf-8"), "run")
    assert rr.settings_note(s) == (
        f"Run settings, from the run file: --train-backend unknown ({NOT_READ}), --use-dynamic-batch-size unknown "
        f"({NOT_READ}). Fixes that need an unknown setting name it.")
    v = rr.settings_of_args("python3 train.py --train-backend $BACKEND", "pasted")
    assert rr.settings_note(v).startswith("Run settings, from the pasted arguments: --train-backend unknown ($BACKEND), "
                                          "without --use-dynamic-batch-size.")
    long = rr.settings_of_args("x --train-backend $(" + "a\x1b[2J" * 30 + ")", "run")["unknown"]["backend"]
    assert len(long) == 43 and "\x1b" not in long and long.endswith("...")


def test_every_run_file_with_its_base_read_as_the_book_resolves_it() -> None:
    """With the base beside it (the CLI), every run file's settings are those of its argument list as the book
    resolves it (miles101.book_miles.load_runs: the base's, less `drop:`, with the file's own)."""
    from miles101.book_miles import load_runs

    resolved = load_runs(RUNS)
    assert len(resolved) >= 20
    for path in sorted(RUNS.glob("*.yaml")):
        got = rr.settings_of_args(path.read_text(encoding="utf-8"), "run", rr.base_reader(str(path)))
        assert got["unknown"] == {}, path.name
        flat = "args:\n" + "".join(f"  - {json.dumps(a)}\n" for a in resolved[path.stem]["args"])
        want = rr.settings_of_args(flat, "run")
        assert (got["backend"], got["dynamic_batch"]) == (want["backend"], want["dynamic_batch"]), path.name


def _diagnose_cli(tmp_path: Path, run: Path) -> Any:
    return in_process(rr.main, str(PUBLIC / "slime-1767-train-oom.log"), "--diagnose", "--json", "--run", str(run))


def test_cli_follows_a_base_beside_the_run_file(tmp_path: Path) -> None:
    child = tmp_path / "mine.yaml"
    child.write_text("base: parent\nargs:\n  - --colocate\n", encoding="utf-8")
    res = _diagnose_cli(tmp_path, child)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["settings"]["unknown"] == {"backend": "from base: parent, not read",
                                                             "dynamic_batch": "from base: parent, not read"}
    (tmp_path / "parent.yaml").write_text("args:\n  - --train-backend\n  - fsdp\n  - --use-dynamic-batch-size\n",
                                          encoding="utf-8")
    out = json.loads(_diagnose_cli(tmp_path, child).stdout)["settings"]
    assert (out["backend"], out["dynamic_batch"], out["unknown"]) == ("fsdp", "on", {})
    (tmp_path / "parent.yaml").write_text("base: mine\nargs: []\n", encoding="utf-8")  # a loop ends, unknown
    out = json.loads(_diagnose_cli(tmp_path, child).stdout)["settings"]
    assert out["backend"] is None and "not read" in out["unknown"]["backend"]


@pytest.mark.parametrize("text", NO_FLAG[:4])
def test_cli_refuses_text_with_no_flag(tmp_path: Path, text: str) -> None:
    run = tmp_path / "run.sh"
    run.write_text(text, encoding="utf-8")
    res = _diagnose_cli(tmp_path, run)
    assert res.returncode == 2 and "passes no argument" in res.stderr, res.stderr


def test_fixes_say_what_they_need_when_the_backend_is_unknown() -> None:
    lines = rr.read_log_file(str(PUBLIC / "slime-1767-train-oom.log"))
    _, _, report = rr.report_of(lines, 10, None)
    unknown = rr.diagnose(lines, report, rr.settings_of_args("python3 train.py --train-backend $B", "run"))
    assert "backend" not in unknown[0]["facts"]
    fixes = [f for c in unknown[0]["causes"] for f in c["fixes"]]
    assert any(f.startswith("On FSDP (--train-backend fsdp): ") for f in fixes), fixes
    fsdp = rr.diagnose(lines, report, rr.settings_of_args("python3 train.py --train-backend fsdp", "run"))
    assert fsdp[0]["facts"]["backend"] == "fsdp"
    assert not any(f.startswith("On FSDP") for c in fsdp[0]["causes"] for f in c["fixes"])


@pytest.mark.parametrize("text,groups", [
    ("python3 train.py --rollout-batch-size 32", 32), ("python3 train.py --rollout-batch-size=8 --x", 8),
    ("python3 train.py --rollout-batch-size 8 \\\n  --rollout-batch-size 16", 16),
    ("python3 train.py --x 1  # --rollout-batch-size 64", None), ("# --rollout-batch-size 64\npython3 train.py", None),
    ("python3 train.py --rollout-batch-size $N", None), ("python3 train.py --rollout-batch-size '8'", 8),
    ("args:\n  - --rollout-batch-size\n  - \"4\"\n", 4), ("- --rollout-batch-size\n- '4'\n", 4),
    ("base: first-grpo\nargs: []\n", None), ("python3 train.py --rollout-batch-size 8x", None),
])
def test_groups_in_file_reads_words(text: str, groups: int | None) -> None:
    assert rr.groups_in_file(text) == groups


def test_groups_in_file_follows_a_base(tmp_path: Path) -> None:
    child = tmp_path / "mine.yaml"
    child.write_text("base: parent\nargs:\n  - --colocate\n", encoding="utf-8")
    (tmp_path / "parent.yaml").write_text("args:\n  - --rollout-batch-size\n  - '16'\n", encoding="utf-8")
    assert rr.groups_in_file(child.read_text(encoding="utf-8"), rr.base_reader(str(child))) == 16
    assert rr.groups_in_file((RUNS / "recipe-gsm8k.yaml").read_text(encoding="utf-8"),
                             rr.base_reader(str(RUNS / "recipe-gsm8k.yaml"))) is not None
