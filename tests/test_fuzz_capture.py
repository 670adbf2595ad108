"""Fuzz the capture data (issue 19): seeded mutations of the test root's capture files.

Each case copies tests/roots/test-book (with a consistent cross-check result added and run files
`--check` accepts), breaks one capture file in one way chosen by a seeded random generator, and
runs both gates in this process: `capture/run.py --check` (capture.check.main) and the Sphinx
command line (sphinx.cmd.build.build_main, -nW --keep-going). Both must refuse the case (exit
non-zero), print no traceback, and name the file, the place in it (JSON path or line) and a fix.
Harmless changes (keys reordered, another indentation, blank lines) must pass both.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from buildutil import ROOT

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

SEED = 1919
CRASH = ("Traceback", "Sphinx error", "Exception occurred", "Extension error")
REC = "capture/gpu/tiny-recorded"
XC = "capture/crosscheck/results/test.json"

#: The JSON capture files of the fuzz root, each mutated on its own.
JSON_FILES = ("capture/computed.json", "capture/facts.json", "capture/references/test.json",
              "capture/miles/flags.json", "capture/miles/metrics.json", "capture/miles/models.json",
              "capture/miles/files.json", f"{REC}/run.json", f"{REC}/host.json", f"{REC}/values.json", XC)


# ---------------------------------------------------------------------------------- the fuzz root


def crosscheck_result(root: Path) -> dict:
    """A cross-check of the test root's one model that agrees with its computed.json."""
    computed = json.loads((root / "capture" / "computed.json").read_text(encoding="utf-8"))["values"]
    params = computed["params.qwen3-tiny"]["value"]
    state = computed["bytes_per_param.trainer_state"]["value"]
    grads = computed["bytes_per_param.gradients"]["value"]
    run = {"gradient_checkpointing": False, "tokens": 64, "optimizer_foreach": None, "status": "ok",
           "hf_class": "Qwen3ForCausalLM", "params": params, "held_source": "allocator",
           "held_bytes": params * state, "held_without_grads_bytes": params * (state - grads),
           "tensor_bytes": {"params": params * 4, "grads": params * 4, "exp_avg": params * 4, "exp_avg_sq": params * 4},
           "peak_bytes_step1": params * 20, "peak_bytes_step2": params * 20,
           "peak_bytes_step2_forward_backward": params * 20, "peak_bytes_step2_optimizer": params * 18,
           "peak_reserved_bytes": params * 24, "losses": [12.1, 12.0], "seconds": 0.5}
    return {"schema": "crosscheck/1",
            "host": {"device": "cuda", "torch": "2.11.0", "cuda": "13.0", "transformers": "5.17.0", "python": "3.12.3",
                     "date": "2026-12-03", "gpu": "NVIDIA H200 (test data)", "gpu_memory_bytes": 150109880320},
            "setup": {"tokens": 64, "world_size": 1, "miles_commit": "2" * 40,
                      "optimizer": {"name": "torch.optim.AdamW", "lr": 1e-06, "betas": [0.9, 0.95], "eps": 1e-08,
                                    "weight_decay": 0.0},
                      "clip_grad": 1.0, "param_dtype": "bfloat16", "reduce_dtype": "float32", "master_dtype": "float32",
                      "sites": {"optimizer": "miles/backends/fsdp_utils/actor.py:177-184"}, "departures": [],
                      "held_bytes": "allocator after the optimizer step", "peak_bytes": "allocator peak"},
            "models": {"qwen3-tiny": {"model_record": "scripts/models/qwen3-tiny.py:1", "hf_class": "Qwen3ForCausalLM",
                                      "params": params, "runs": [run, {**run, "gradient_checkpointing": True}]}},
            "skipped": {}}


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test root made whole for both gates: run files with the required flag, a cross-check result."""
    root = tmp_path_factory.mktemp("fuzz") / "base"
    shutil.copytree(ROOT / "tests" / "roots" / "test-book", root)
    for run in ("tiny-pending", "tiny-recorded"):
        path = root / "capture" / "runs" / f"{run}.yaml"
        text = re.sub(r"^args: .*$", 'args: [--colocate, --rollout-batch-size, "8", --seed, "1", --rollout-seed, "1"]', path.read_text(encoding="utf-8"),
                      flags=re.M)
        path.write_text(text, encoding="utf-8")
    (root / XC).parent.mkdir(parents=True)
    (root / XC).write_text(json.dumps(crosscheck_result(root), indent=1), encoding="utf-8")
    add_doctor(root)
    return root


SYMPTOMS = "capture/symptoms.json"
READER = "capture/references/reader.json"
DOCTOR_PAGE = "sections/1-1-first.md"


def add_doctor(root: Path) -> None:
    """The log doctor's rule files (two entries of the book's own each) and a page that holds {log-doctor}."""
    symptoms = json.loads((ROOT / SYMPTOMS).read_text(encoding="utf-8"))
    (root / SYMPTOMS).write_text(json.dumps({**symptoms, "symptoms": symptoms["symptoms"][:2]}, indent=1), encoding="utf-8")
    reader = json.loads((ROOT / READER).read_text(encoding="utf-8"))
    two = dict(list(reader["references"].items())[:2])
    (root / READER).write_text(json.dumps({**reader, "references": two}, indent=1), encoding="utf-8")
    with open(root / DOCTOR_PAGE, "a", encoding="utf-8") as fh:
        fh.write("\nPaste a log here.\n\n```{log-doctor}\n```\n")


# ---------------------------------------------------------------------------------- the gates


@dataclass
class Gate:
    code: int
    out: str


def run_check(root: Path) -> Gate:
    """`capture/run.py --check --root ROOT` in this process (an uncaught exception is its traceback)."""
    from capture.run import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            code = main(["--check", "--root", str(root)])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception:  # noqa: BLE001 - the CLI would print it
            import traceback

            traceback.print_exc()
            code = 99
    return Gate(code, buf.getvalue())


def run_build(root: Path) -> Gate:
    """`sphinx-build -b html -nW --keep-going` in this process: Sphinx's own command line, its exit code."""
    from sphinx.cmd.build import build_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            code = build_main(["-b", "html", "-nW", "--keep-going", "-q", "-T", str(root), str(root / "_build" / "html"),
                               "-d", str(root / "_build" / "doctrees")])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return Gate(code, buf.getvalue())


# ---------------------------------------------------------------------------------- mutations


def leaves(doc, path=()):
    """(path, value) of every scalar in a parsed document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, (*path, i))
    else:
        yield path, doc


def put(doc, path, value) -> None:
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


def load(root: Path, rel: str):
    return json.loads((root / rel).read_text(encoding="utf-8"))


def save(root: Path, rel: str, doc, **kw) -> None:
    (root / rel).write_text(json.dumps(doc, **kw), encoding="utf-8")


def numbers(doc) -> list[tuple]:
    return [(p, v) for p, v in leaves(doc) if isinstance(v, (int, float)) and not isinstance(v, bool)]


#: Files where every number is checked (derived from others, or against the schema's type);
#: a number turned into a string, a list or null must be refused there.
TYPED = JSON_FILES


def m_number_to_string(root: Path, rng: random.Random) -> str:
    rel = rng.choice(TYPED)
    doc = load(root, rel)
    path, value = rng.choice(numbers(doc))
    put(doc, path, rng.choice([str(value), [value], {"value": value}, True]))
    save(root, rel, doc, indent=1)
    return rel


def m_non_finite(root: Path, rng: random.Random) -> str:
    rel = rng.choice(TYPED)
    doc = load(root, rel)
    path, _ = rng.choice(numbers(doc))
    put(doc, path, rng.choice([math.nan, math.inf, -math.inf]))
    save(root, rel, doc, indent=1)  # json writes NaN / Infinity, as a careless tool would
    return rel


def m_string_to_number(root: Path, rng: random.Random) -> str:
    """A string field (a unit, a name, a file, a date) holding a number, a list or null instead."""
    rel = rng.choice(TYPED)
    doc = load(root, rel)
    path, _ = rng.choice([(p, v) for p, v in leaves(doc) if isinstance(v, str)])
    put(doc, path, rng.choice([7, 0.5, [], {}]))
    save(root, rel, doc, indent=1)
    return rel


def m_run_file(root: Path, rng: random.Random) -> str:
    """A run file (YAML) with a field of the wrong type, a missing key, or broken YAML."""
    import yaml

    rel = f"capture/runs/{rng.choice(['tiny-pending', 'tiny-recorded'])}.yaml"
    doc = yaml.safe_load((root / rel).read_text(encoding="utf-8"))
    how = rng.choice(["type", "missing", "yaml", "value"])
    if how == "type":
        doc[rng.choice(["steps", "seeds", "args", "values", "sections"])] = rng.choice(["three", {"a": 1}, -1.5])
    elif how == "missing":
        del doc[rng.choice(["steps", "values", "args", "image"])]
    elif how == "value":
        name = next(iter(doc["values"]))
        doc["values"][name][rng.choice(["statistic", "source", "unit"])] = rng.choice([3, None, ["x"]])
    else:
        (root / rel).write_text((root / rel).read_text(encoding="utf-8") + "values: [unclosed\n", encoding="utf-8")
        return rel
    (root / rel).write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return rel


#: (file, path) of numbers where a negative is out of its unit's range or breaks a derivation.
NON_NEGATIVE = [("capture/facts.json", ("facts", "box.memory", "value")),
                ("capture/references/test.json", ("references", "test.baseline", "value")),
                ("capture/computed.json", ("values", "params.qwen3-tiny", "value")),
                ("capture/computed.json", ("values", "trainer_state.qwen3-tiny", "value")),
                (f"{REC}/values.json", ("values", "step_time", "value")),
                (f"{REC}/run.json", ("steps_done",)),
                (f"{REC}/host.json", ("memory_total_gib",)),
                ("capture/miles/flags.json", ("flags", 0, "line")),
                (XC, ("models", "qwen3-tiny", "runs", 0, "held_bytes")),
                (XC, ("host", "gpu_memory_bytes",))]


def m_negative(root: Path, rng: random.Random) -> str:
    rel, path = rng.choice(NON_NEGATIVE)
    doc = load(root, rel)
    value = doc
    for p in path:
        value = value[p]
    put(doc, path, -abs(value) - rng.choice([1, 0.5]))
    save(root, rel, doc, indent=1)
    return rel


#: (file, path) of numbers where a huge value is out of range or breaks a derivation.
BOUNDED = [("capture/references/test.json", ("references", "test.baseline", "value")),
           ("capture/computed.json", ("values", "kv_bytes_per_token.qwen3-tiny", "value")),
           (f"{REC}/values.json", ("values", "step_time", "value")),
           (XC, ("models", "qwen3-tiny", "params"))]


def m_huge(root: Path, rng: random.Random) -> str:
    rel, path = rng.choice(BOUNDED)
    doc = load(root, rel)
    put(doc, path, rng.choice([1e308, 10**30, 2**63]))
    save(root, rel, doc, indent=1)
    return rel


def required_paths(doc) -> list[tuple]:
    """Top-level keys and the value/unit of each value record: all required by their schemas."""
    out = [(k,) for k in doc]
    for key in ("values", "facts", "references"):
        if key in doc and isinstance(doc[key], dict) and "schema" in doc:
            for name, rec in doc[key].items():
                out += [(key, name, f) for f in ("value", "unit") if isinstance(rec, dict) and f in rec]
    return out


def m_missing_key(root: Path, rng: random.Random) -> str:
    rel = rng.choice(TYPED)
    doc = load(root, rel)
    path = rng.choice(required_paths(doc))
    target = doc
    for p in path[:-1]:
        target = target[p]
    del target[path[-1]]
    save(root, rel, doc, indent=1)
    return rel


def m_truncated(root: Path, rng: random.Random) -> str:
    rel = rng.choice(JSON_FILES)
    raw = (root / rel).read_bytes().rstrip()
    (root / rel).write_bytes(raw[:rng.randrange(1, len(raw) - 1)])
    return rel


def m_invalid_utf8(root: Path, rng: random.Random) -> str:
    rel = rng.choice(JSON_FILES)
    raw = (root / rel).read_bytes()
    quotes = [i for i, b in enumerate(raw) if b == ord('"')]
    at = rng.choice(quotes) + 1
    (root / rel).write_bytes(raw[:at] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"]) + raw[at:])
    return rel


def m_empty(root: Path, rng: random.Random) -> str:
    rel = rng.choice([*JSON_FILES, f"{REC}/steps.jsonl", "capture/runs/tiny-recorded.yaml"])
    (root / rel).write_bytes(b"")
    return rel


def dump_with_duplicate(doc, target: tuple, path: tuple = ()) -> str:
    """JSON text of `doc` whose object at `target` names its first key twice."""
    if isinstance(doc, dict):
        items = [f"{json.dumps(k)}: {dump_with_duplicate(v, target, (*path, k))}" for k, v in doc.items()]
        if path == target and doc:
            items.insert(0, items[0])
        return "{\n" + ",\n".join(items) + "\n}"
    if isinstance(doc, list):
        return "[" + ", ".join(dump_with_duplicate(v, target, (*path, i)) for i, v in enumerate(doc)) + "]"
    return json.dumps(doc)


def objects(doc, path=()):
    if isinstance(doc, dict):
        if doc:
            yield path
        for k, v in doc.items():
            yield from objects(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from objects(v, (*path, i))


def m_duplicate_key(root: Path, rng: random.Random) -> str:
    rel = rng.choice(JSON_FILES)
    doc = load(root, rel)
    (root / rel).write_text(dump_with_duplicate(doc, rng.choice(list(objects(doc)))), encoding="utf-8")
    return rel


def m_unknown_key(root: Path, rng: random.Random) -> str:
    rel = rng.choice(JSON_FILES)
    doc = load(root, rel)
    paths = [()] + [p for p in required_paths(doc) if len(p) == 3 and p[2] == "value"]
    where = rng.choice(paths)
    target = doc
    for p in where[:-1] if where else ():
        target = target[p]
    rng_key = rng.choice(["colour", "valeu", "note_added_by_hand", "Value"])
    target[rng_key] = rng.choice([1, "x", None])
    save(root, rel, doc, indent=1)
    return rel


def m_garbled_steps(root: Path, rng: random.Random) -> str:
    rel = f"{REC}/steps.jsonl"
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    n = rng.randrange(len(lines))
    lines[n] = rng.choice([lines[n][: len(lines[n]) // 2], "step 1: {...}", "[1, 2, 3]", '{"step": "one"}',
                           '{"step": 1, "seed": 1, "perf": {"perf/step_time": "fast"}}',
                           '{"step": 1, "seed": 1, "perf": {"perf/step_time": NaN}}',
                           '{"step": 1, "seed": 1, "perf": {"perf/step_time": -3.0}}'])
    (root / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rel


def m_steps_disagree(root: Path, rng: random.Random) -> str:
    """steps.jsonl changed under an unchanged values.json: the median moves."""
    rel = f"{REC}/steps.jsonl"
    rows = [json.loads(line) for line in (root / rel).read_text(encoding="utf-8").splitlines()]
    rows[rng.randrange(len(rows))]["perf"]["perf/step_time"] = rng.choice([99.0, 0.5, 20.25])
    rows.sort(key=lambda r: r["step"])
    if sorted(r["perf"]["perf/step_time"] for r in rows)[1] == 12.345:
        rows[1]["perf"]["perf/step_time"] = 12.5
    (root / rel).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f"{REC}/values.json"


def m_computed_disagree(root: Path, rng: random.Random) -> str:
    """A model's shape changed under an unchanged computed.json, or a computed value edited."""
    if rng.random() < 0.5:
        doc = load(root, "capture/miles/models.json")
        model = next(m for m in doc["models"] if m["name"] == "qwen3-tiny")
        model[rng.choice(["layers", "hidden", "ffn_hidden", "vocab"])] += 1
        save(root, "capture/miles/models.json", doc, indent=1)
        return "capture/computed.json"
    doc = load(root, "capture/computed.json")
    key = rng.choice(sorted(doc["values"]))
    doc["values"][key]["value"] = doc["values"][key]["value"] * 2 + 1
    save(root, "capture/computed.json", doc, indent=1)
    return "capture/computed.json"


def m_crosscheck_disagree(root: Path, rng: random.Random) -> str:
    doc = load(root, XC)
    run = doc["models"]["qwen3-tiny"]["runs"][rng.randrange(2)]
    field = rng.choice(["held_bytes", "held_without_grads_bytes", "params"])
    run[field] = int(run[field] * rng.choice([1.1, 0.5, 3]))
    save(root, XC, doc, indent=1)
    return XC


def m_rule_file(root: Path, rng: random.Random) -> str:
    """The doctor's rule files broken one way each: bytes, shape, or a rule no schema says (issue 51)."""
    rel = rng.choice([SYMPTOMS, READER])
    doc = load(root, rel)
    how = rng.choice(["truncated", "not utf-8", "deep", "duplicate key", "unknown key", "wrong type", "missing key",
                      "rule"])
    if how == "truncated":
        raw = (root / rel).read_bytes()
        (root / rel).write_bytes(raw[:rng.randrange(1, len(raw) - 1)])
    elif how == "not utf-8":
        (root / rel).write_bytes((root / rel).read_bytes().replace(b'"', b'"\xff', 1))
    elif how == "deep":
        _json_put(root, rel, ("schema",), DEEP)
    elif how == "duplicate key":
        (root / rel).write_text(dump_with_duplicate(doc, rng.choice(list(objects(doc)))), encoding="utf-8")
    elif how == "unknown key":
        doc["colour"] = "red"
        save(root, rel, doc, indent=1)
    elif how == "wrong type":
        path, _ = rng.choice([(p, v) for p, v in leaves(doc) if isinstance(v, str) and p[0] != "schema" or
                              isinstance(v, (int, float)) and not isinstance(v, bool)])
        put(doc, path, rng.choice([[], {}, None, True]))
        save(root, rel, doc, indent=1)
    elif how == "missing key":
        if rel == SYMPTOMS:
            del doc["symptoms"][rng.randrange(2)][rng.choice(["grep", "id", "check", "fix"])]
        else:
            del doc["references"][next(iter(doc["references"]))][rng.choice(["value", "unit"])]
        save(root, rel, doc, indent=1)
    elif rel == SYMPTOMS:  # the rules of miles101.rulefiles
        entry = doc["symptoms"][rng.randrange(2)]
        if rng.random() < 0.5:
            entry["grep"] = [rng.choice(["    ", "\t\t\t\t", "\u00a0\u00a0\u00a0\u00a0"])]
        else:
            doc["symptoms"][1]["id"] = doc["symptoms"][0]["id"]
        save(root, rel, doc, indent=1)
    else:
        rec = doc["references"][next(iter(doc["references"]))]
        value = rec.pop("value")
        rec.update(low=value / 2, high=value * 2)
        save(root, rel, doc, indent=1)
    return rel


MUTATIONS: dict[str, tuple[Callable[[Path, random.Random], str], int]] = {
    "wrong type": (m_number_to_string, 3), "string field of the wrong type": (m_string_to_number, 2),
    "run file": (m_run_file, 2), "non-finite": (m_non_finite, 3), "negative": (m_negative, 2),
    "huge": (m_huge, 2), "missing key": (m_missing_key, 3), "truncated": (m_truncated, 2),
    "invalid utf-8": (m_invalid_utf8, 2), "empty file": (m_empty, 2), "duplicate key": (m_duplicate_key, 2),
    "unknown key": (m_unknown_key, 2), "garbled steps.jsonl": (m_garbled_steps, 3),
    "values.json disagrees with steps.jsonl": (m_steps_disagree, 1),
    "computed.json disagrees with its inputs": (m_computed_disagree, 2),
    "cross-check disagrees with computed.json": (m_crosscheck_disagree, 2),
    "the doctor's rule files": (m_rule_file, 10),
}
CASES = [(f"{name} #{i}", SEED * 1000 + n * 10 + i) for n, (name, (_, times)) in enumerate(MUTATIONS.items())
         for i in range(times)]


# ---------------------------------------------------------------------------------- harmless


def reorder(doc):
    if isinstance(doc, dict):
        return {k: reorder(doc[k]) for k in reversed(list(doc))}
    if isinstance(doc, list):
        return [reorder(v) for v in doc]
    return doc


def h_reorder_and_reindent(root: Path, rng: random.Random) -> None:
    for rel in JSON_FILES:
        doc = load(root, rel)
        save(root, rel, reorder(doc), indent=rng.choice([None, 2, 4, "\t"]), ensure_ascii=rng.random() < 0.5)
    steps = root / REC / "steps.jsonl"
    steps.write_text("\n" + steps.read_text(encoding="utf-8").replace("\n", "\n\n"), encoding="utf-8")


# ---------------------------------------------------------------------------------- tests


def fresh(fuzz_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "book"
    shutil.copytree(fuzz_root, root)
    return root


def test_the_fuzz_root_passes_both(fuzz_root: Path, tmp_path: Path) -> None:
    root = fresh(fuzz_root, tmp_path)
    check, build = run_check(root), run_build(root)
    assert check.code == 0, check.out
    assert "cross-checks held against computed.json: 1" in check.out
    assert build.code == 0, build.out


def test_harmless_changes_pass_both(fuzz_root: Path, tmp_path: Path) -> None:
    root = fresh(fuzz_root, tmp_path)
    h_reorder_and_reindent(root, random.Random(SEED))
    check, build = run_check(root), run_build(root)
    assert check.code == 0, check.out
    assert build.code == 0, build.out


#: A place in the file: a JSON path ($...) or a line number right after the file name.
def names_place(out: str, rel: str) -> bool:
    return re.search(re.escape(rel) + r"(:\$|:\d+|: line \d+|: \$)", out) is not None


@pytest.mark.parametrize(("case", "seed"), CASES, ids=[c for c, _ in CASES])
def test_both_gates_refuse_the_mutation(fuzz_root: Path, tmp_path: Path, case: str, seed: int) -> None:
    root = fresh(fuzz_root, tmp_path)
    mutate, _ = MUTATIONS[case.rsplit(" #", 1)[0]]
    rel = mutate(root, random.Random(seed))
    for gate, result in (("--check", run_check(root)), ("the build", run_build(root))):
        out = result.out.replace(str(root) + "/", "")
        assert result.code != 0, f"{gate} accepts {case} in {rel}:\n{out[-3000:]}"
        assert not any(c in out for c in CRASH), f"{gate} crashes on {case} in {rel}:\n{out[-5000:]}"
        assert names_place(out, rel), f"{gate} does not name {rel} and a place in it for {case}:\n{out[-3000:]}"
        assert "Fix:" in out, f"{gate} gives no fix for {case}:\n{out[-3000:]}"


# ---------------------------------------------------------------------------------- hostile inputs (issue 27)
#
# A table of (kind of input, class of attack) → one case that breaks the fuzz root that way. Each case
# runs both gates under a time limit and asserts: both refuse (exit non-zero), neither prints a
# traceback, the output names the file, a place in it and a fix, and _build/html holds nothing the
# attack tried to publish (live HTML, a shell command, a file from outside the project).

OUTSIDE = "OUTSIDE-THE-PROJECT-7f3a"  # text of files outside the tree; never published
HANG_LIMIT_S = 60  # no gate may take longer on any case (the 2-core CI box builds the root in a few seconds)
DEEP = "[" * 5000 + "]" * 5000
BIG = "9" * 5000
BOMB = ('a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
        'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n'
        'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n')
PAGE = "sections/1-1-first.md"
VALUES_PAGE = "sections/2-1-values.md"


def _outside(root: Path, name: str, text: str) -> Path:
    """A file beside the project (not in it), holding OUTSIDE."""
    path = root.parent / "outside" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _replace(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _append(root: Path, rel: str, text: str) -> None:
    with open(root / rel, "a", encoding="utf-8") as fh:
        fh.write(text)


def _fifo(root: Path, rel: str) -> None:
    path = root / rel
    if path.exists():
        path.unlink()
    os.mkfifo(path)


def _link_out(root: Path, rel: str) -> None:
    """Replace a file (or a directory) by a symlink to a copy outside the project, marked OUTSIDE."""
    path = root / rel
    dest = root.parent / "outside" / path.name
    dest.parent.mkdir(exist_ok=True)
    if path.is_dir():
        shutil.copytree(path, dest)
        shutil.rmtree(path)
    else:
        shutil.copy(path, dest)
        path.unlink()
    if dest.is_file() and dest.suffix == ".md":
        dest.write_text(dest.read_text(encoding="utf-8") + f"\n{OUTSIDE}\n", encoding="utf-8")
    path.symlink_to(dest)


def _json_put(root: Path, rel: str, path: tuple, raw: str) -> None:
    """Put raw JSON text (deep, huge) at a path of a JSON file, keeping the rest."""
    doc = load(root, rel)
    put(doc, path, "@@RAW@@")
    (root / rel).write_text(json.dumps(doc, indent=1).replace('"@@RAW@@"', raw), encoding="utf-8")


def _steps_duplicated(root: Path) -> str:
    rel = f"{REC}/steps.jsonl"
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    (root / rel).write_text("\n".join([*lines, lines[0]]) + "\n", encoding="utf-8")
    return rel


def _interrupted_commit(root: Path) -> str:
    gpu = root / "capture" / "gpu"
    (gpu / RUN_REC).rename(gpu / f".old-{RUN_REC}-20261204T120000Z")
    shutil.copytree(gpu / f".old-{RUN_REC}-20261204T120000Z", gpu / f".tmp-{RUN_REC}-20261204T120000Z")
    return f"capture/gpu/.old-{RUN_REC}-20261204T120000Z"


RUN_REC = REC.rsplit("/", 1)[1]
#: (kind, class, mutate) → the file the gates must name. Every class of issue 27 on every input kind it applies to.
HOSTILE: list[tuple[str, str, Callable[[Path], str]]] = [
    # manual.json
    ("manual.json", "deep nesting", lambda r: (_json_put(r, "manual.json", ("related",), DEEP), "manual.json")[1]),
    ("manual.json", "5,000-digit integer", lambda r: (_json_put(r, "manual.json", ("parts", 0, "number"), BIG), "manual.json")[1]),
    ("manual.json", "front outside the source dir",
     lambda r: (_outside(r, "front.md", f"# Out\n{OUTSIDE}\n"), _replace(r, "manual.json", '"front.md"', '"../outside/front.md"'),
                "manual.json")[2]),
    ("manual.json", "page is a symlink out of the tree", lambda r: (_link_out(r, PAGE), "manual.json")[1]),
    ("manual.json", "FIFO", lambda r: (_fifo(r, "manual.json"), "manual.json")[1]),
    ("manual.json", "not UTF-8", lambda r: ((r / "manual.json").write_bytes("{}".encode("utf-16")), "manual.json")[1]),
    ("manual.json", "NaN where the schema takes any number",
     lambda r: (_json_put(r, "manual.json", ("capture", "timeoutSeconds"), "NaN"), "manual.json")[1]),
    ("manual.json", "a part number 1.0 (an integer to the schema)",
     lambda r: (_json_put(r, "manual.json", ("parts", 0, "number"), "1.0"), "manual.json")[1]),
    ("manual.json", "a javascript: pin source",
     lambda r: (_json_put(r, "manual.json", ("pin", "source"), '"javascript:alert(1)"'), "manual.json")[1]),
    # capture JSON
    ("facts.json", "deep nesting", lambda r: (_json_put(r, "capture/facts.json", ("facts", "box.memory", "what"), DEEP),
                                              "capture/facts.json")[1]),
    ("computed.json", "5,000-digit integer",
     lambda r: (_json_put(r, "capture/computed.json", ("values", "params.qwen3-tiny", "value"), BIG), "capture/computed.json")[1]),
    ("flags.json", "deep nesting", lambda r: (_json_put(r, "capture/miles/flags.json", ("flags", 0, "help"), DEEP),
                                              "capture/miles/flags.json")[1]),
    ("references", "symlink out of the tree", lambda r: (_link_out(r, "capture/references/test.json"),
                                                        "capture/references/test.json")[1]),
    ("references", "FIFO", lambda r: (_fifo(r, "capture/references/test.json"), "capture/references/test.json")[1]),
    ("references", "a directory named like a file",
     lambda r: ((r / "capture/references/dir.json").mkdir(), "capture/references/dir.json")[1]),
    ("references", "low above high", lambda r: (_replace(r, "capture/references/test.json", '"low": 0.1', '"low": 0.9'),
                                                "capture/references/test.json")[1]),
    ("references", "an uncited reference's src past the end of its file (--check alone refused it)",
     lambda r: (_json_put(r, "capture/references/test.json", ("references", "test.baseline", "src"),
                          '"miles/utils/arguments.py:500"'), "capture/references/test.json")[1]),
    ("crosscheck", "deep nesting", lambda r: (_json_put(r, XC, ("skipped",), DEEP), XC)[1]),
    # recordings
    ("steps.jsonl", "duplicated step rows", _steps_duplicated),
    ("steps.jsonl", "5,000-digit integer", lambda r: (_append(r, f"{REC}/steps.jsonl", f'{{"step": {BIG}}}\n'),
                                                      f"{REC}/steps.jsonl")[1]),
    ("recording", "symlink out of the tree", lambda r: (_link_out(r, REC), f"{REC}/run.json")[1]),
    ("recording", "values.json is a FIFO", lambda r: (_fifo(r, f"{REC}/values.json"), f"{REC}/values.json")[1]),
    ("recording", "a commit cut short between its renames", _interrupted_commit),
    ("recording", "a directory that is not a run id",
     lambda r: (shutil.copytree(r / REC, r / "capture/gpu/Not A Run"), "capture/gpu/Not A Run/run.json")[1]),
    # pages
    ("page", "not UTF-8", lambda r: ((r / PAGE).write_bytes((r / PAGE).read_bytes() + b"\n\xff\xfe bad\n"), PAGE)[1]),
    ("page", "raw HTML", lambda r: (_append(r, PAGE, "\nHi <img src=x onerror=alert(1)> there.\n"), PAGE)[1]),
    ("page", "raw HTML block", lambda r: (_append(r, PAGE, "\n<script>alert(1)</script>\n"), PAGE)[1]),
    ("page", "unclosed role", lambda r: (_append(r, PAGE, "\nSet {flag}`--colocate and go on.\n"), PAGE)[1]),
    # the doctor's rule files (issue 51): missing (named at the page's block), a directory, a FIFO
    ("symptoms.json", "missing while a page holds {log-doctor}", lambda r: ((r / SYMPTOMS).unlink(), DOCTOR_PAGE)[1]),
    ("symptoms.json", "a directory", lambda r: ((r / SYMPTOMS).unlink(), (r / SYMPTOMS).mkdir(), SYMPTOMS)[2]),
    ("symptoms.json", "FIFO", lambda r: (_fifo(r, SYMPTOMS), SYMPTOMS)[1]),
    ("symptoms.json", "not UTF-8", lambda r: ((r / SYMPTOMS).write_bytes("{}".encode("utf-16")), SYMPTOMS)[1]),
    ("symptoms.json", "an entry without grep",
     lambda r: (_json_put(r, SYMPTOMS, ("symptoms", 0), json.dumps({k: v for k, v in load(r, SYMPTOMS)["symptoms"][0].items()
                                                                    if k != "grep"})), SYMPTOMS)[1]),
    ("symptoms.json", "a grep of four spaces", lambda r: (_json_put(r, SYMPTOMS, ("symptoms", 1, "grep"), '["    "]'), SYMPTOMS)[1]),
    ("symptoms.json", "a duplicated entry id",
     lambda r: (_json_put(r, SYMPTOMS, ("symptoms", 1, "id"), json.dumps(load(r, SYMPTOMS)["symptoms"][0]["id"])), SYMPTOMS)[1]),
    ("reader.json", "a threshold given as low/high", lambda r: (_json_put(
        r, READER, ("references", next(iter(load(r, READER)["references"]))),
        json.dumps({**{k: v for k, v in next(iter(load(r, READER)["references"].values())).items() if k != "value"},
                    "low": 0.1, "high": 0.9})), READER)[1]),
]
HOSTILE_IDS = [f"{kind}: {cls}" for kind, cls, _ in HOSTILE]


class Hang(Exception):
    pass


def timed(fn: Callable[[Path], Gate], root: Path) -> Gate:
    """Run a gate; a hang (over HANG_LIMIT_S) is a failure, never a stuck suite."""
    import signal

    def alarm(*_):
        raise Hang(f"{fn.__name__} ran past {HANG_LIMIT_S} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_LIMIT_S)
    try:
        return fn(root)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def published(root: Path) -> str:
    out = root / "_build" / "html"
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in out.rglob("*.html")) if out.is_dir() else ""


@pytest.mark.parametrize("case", range(len(HOSTILE)), ids=HOSTILE_IDS)
def test_both_gates_refuse_hostile_input(fuzz_root: Path, tmp_path: Path, case: int) -> None:
    kind, cls, mutate = HOSTILE[case]
    root = fresh(fuzz_root, tmp_path)
    rel = mutate(root)
    for gate, fn in (("--check", run_check), ("the build", run_build)):
        result = timed(fn, root)
        out = result.out.replace(str(root) + "/", "")
        assert result.code != 0, f"{gate} accepts {kind}: {cls} ({rel}):\n{out[-3000:]}"
        assert not any(c in out for c in CRASH), f"{gate} crashes on {kind}: {cls}:\n{out[-5000:]}"
        assert names_place(out, rel), f"{gate} does not name {rel} and a place for {kind}: {cls}:\n{out[-3000:]}"
        assert "Fix:" in out, f"{gate} gives no fix for {kind}: {cls}:\n{out[-3000:]}"
    html = published(root)
    for bad in (OUTSIDE, "<img src=x onerror", "<script>alert", "rm -rf", "$(curl", "--no-such-flag"):
        assert bad not in html, f"_build/html publishes {bad!r} for {kind}: {cls}"


#: Cases that share one build: each breaks its own file (run files) or its own block of one page
#: (directive options), so one run of both gates answers them all; each must be named at its own place.
RUN_FILES: list[tuple[str, bytes]] = [
    ("YAML alias bomb", BOMB.encode()), ("deep nesting", b"id: x\nargs: " + b"[" * 5000 + b"]" * 5000 + b"\n"),
    ("5,000-digit integer", f"id: x\nsteps: {BIG}\n".encode()), ("not UTF-8", "id: x\n".encode("utf-16")),
    ("FIFO", b""), ("a directory", b""), ("a symlink loop", b""),
]
OPTIONS: list[tuple[str, str, str, str]] = [
    ("listing", "tiny-pending", ":lines: abc", "is not a line or a range"),
    ("listing", "tiny-pending", ":lines: 5-2", "is reversed"),
    ("listing", "tiny-pending", ":lines: 0", "lines count from 1"),
    ("listing", "tiny-pending", ":head: many", "is not a positive whole number"),
    ("listing", "tiny-pending", ":grep: (unclosed", "bad :grep: pattern"),
    ("listing", RUN_REC, ":lines: 3-9", "past the end"),
    ("run-command", "tiny-pending", ":suffix: A; rm -rf / #", "a command separator"),
    ("run-command", "tiny-pending", ":program: python3 $(curl evil)", "a command substitution"),
]


def both_gates(root: Path) -> list[tuple[str, str]]:
    """(gate, output) of both gates, each refusing, with no traceback and a fix."""
    out = []
    for gate, fn in (("--check", run_check), ("the build", run_build)):
        result = timed(fn, root)
        text = result.out.replace(str(root) + "/", "")
        assert result.code != 0, f"{gate} accepts it:\n{text[-3000:]}"
        assert not any(c in text for c in CRASH), f"{gate} crashes:\n{text[-5000:]}"
        assert "Fix:" in text, f"{gate} gives no fix:\n{text[-3000:]}"
        out.append((gate, text))
    return out


def test_run_files_of_every_hostile_class_share_one_build(fuzz_root: Path, tmp_path: Path) -> None:
    root = fresh(fuzz_root, tmp_path)
    runs = root / "capture" / "runs"
    names = []
    for n, (cls, raw) in enumerate(RUN_FILES):
        path = runs / f"hostile-{n}.yaml"
        if cls == "FIFO":
            os.mkfifo(path)
        elif cls == "a directory":
            path.mkdir()
        elif cls == "a symlink loop":
            path.symlink_to(path.name)
        else:
            path.write_bytes(raw)
        names.append((cls, f"capture/runs/hostile-{n}.yaml"))
    _replace(root, "capture/runs/tiny-pending.yaml", "args: [--colocate,", "args: [--colocate, --no-such-flag,")
    names.append(("a flag Miles lacks", "capture/runs/tiny-pending.yaml"))
    for gate, out in both_gates(root):
        for cls, rel in names:
            assert names_place(out, rel), f"{gate} does not name {rel} ({cls}) and a place:\n{out[-3000:]}"
    assert "--no-such-flag" not in published(root)


#: Run-file values (issue 60): each class in its own run file of the one build, with the words both gates give.
RUN_VALUES: list[tuple[str, str, str, str, str]] = [
    ("a NUL in a string value", "args: [--colocate,", "args: [--colocate, --note, \"a\\0b\",", "args[2]",
     "holds the control character \\x00"),
    ("an escape in a string value", "args: [--colocate,", "args: [--colocate, --note, \"\\e[2Jm\",", "args[2]",
     "holds the control character \\x1b"),
    ("a line break in a string value", "args: [--colocate,", "args: [--colocate, --note, \"m\\nFAIL: x\",", "args[2]",
     "holds the control character \\n"),
    ("a bidi override", "args: [--colocate,", "args: [--colocate, --note, \"\\u202em\",", "args[2]",
     "holds the control character \\u202e"),
    ("a NUL in an env value", "steps:", "env: {A: \"x\\0y\"}\nsteps:", "env.A", "holds the control character \\x00"),
    ("a 5,000-digit batch size", '--rollout-batch-size, "8"', f'--rollout-batch-size, "{BIG}"', "args[1]",
     "(5000 characters) is not an int"),
    ("a 30-digit batch size", '--rollout-batch-size, "8"', f'--rollout-batch-size, "{BIG[:30]}"', "args[1]",
     "is past 9223372036854775807"),
    ("a boolean batch size", '--rollout-batch-size, "8"', "--rollout-batch-size, true", "args[2]", "True is not of type"),
]


def test_run_file_values_with_control_characters_or_absurd_numbers_fail_both_gates(fuzz_root: Path,
                                                                                 tmp_path: Path) -> None:
    """A NUL in a value passed both gates and reached the launch script raw (bash drops it); a 30-digit count,
    and a boolean are refused too. Each is named by both gates at its run file's place, with a fix."""
    root = fresh(fuzz_root, tmp_path)
    base = (root / "capture" / "runs" / "tiny-pending.yaml").read_text(encoding="utf-8")
    names = []
    for n, (cls, old, new, place, words) in enumerate(RUN_VALUES):
        run_id = f"hostile-value-{n}"
        assert old in base, cls
        text = base.replace("id: tiny-pending", f"id: {run_id}").replace(old, new, 1)
        (root / "capture" / "runs" / f"{run_id}.yaml").write_text(text, encoding="utf-8")
        names.append((cls, f"capture/runs/{run_id}.yaml", place, words))
    for gate, out in both_gates(root):
        for cls, rel, place, words in names:
            hit = [ln for ln in out.splitlines() if f"{rel}:$.{place}" in ln and words in ln]
            assert hit, f"{gate} does not name {rel}:$.{place} with {words!r} ({cls}):\n{out[-4000:]}"


def test_directive_options_of_every_hostile_class_share_one_build(fuzz_root: Path, tmp_path: Path) -> None:
    """Checked whether the run is pending or recorded; each block named at its own line, with its own reason."""
    root = fresh(fuzz_root, tmp_path)
    lines = (root / VALUES_PAGE).read_text(encoding="utf-8").count("\n")
    at = []
    for name, run, option, _ in OPTIONS:
        _append(root, VALUES_PAGE, f"\n```{{{name}}} {run}\n{option}\n```\n")
        at.append(lines + 2)
        lines += 4
    for gate, out in both_gates(root):
        for (name, run, option, says), line in zip(OPTIONS, at):
            hits = [ln for ln in out.splitlines() if f"{VALUES_PAGE}:{line}:" in ln and says in ln]
            assert hits, f"{gate} does not name {VALUES_PAGE}:{line} ({name} {run} {option}: {says}):\n{out[-4000:]}"
    html = published(root)
    assert "rm -rf" not in html and "$(curl" not in html


def test_a_corrupt_flags_json_names_the_root_cause_once(fuzz_root: Path, tmp_path: Path) -> None:
    """Not one FAIL per page reference to a flag: the broken file, then one line counting what it held back."""
    root = fresh(fuzz_root, tmp_path)
    (root / "capture/miles/flags.json").write_text("{ not json", encoding="utf-8")
    check = timed(run_check, root)
    fails = [ln for ln in check.out.splitlines() if ln.startswith("FAIL:")]
    assert check.code == 1
    assert fails[0].startswith("FAIL: capture/miles/flags.json:1:3: invalid JSON"), fails
    assert any("page reference(s) that need it were not checked" in ln for ln in fails), fails
    assert len(fails) <= 4, "\n".join(fails)
    build = timed(run_build, root)
    warnings = [ln for ln in build.out.splitlines() if "WARNING" in ln]
    assert build.code != 0 and any("capture/miles/flags.json" in ln for ln in warnings), build.out[-3000:]
    assert len(warnings) <= 4, "\n".join(warnings)
    assert "references that read capture/miles/flags.json are not listed one by one" in build.out


def test_a_value_a_valid_recording_cannot_give_says_so(fuzz_root: Path, tmp_path: Path) -> None:
    """Recorded, but no number: the page says "not derivable" and why, never "not recorded yet"; both gates pass."""
    import yaml

    from miles101.values import derive_values

    root = fresh(fuzz_root, tmp_path)
    run_file = root / "capture/runs/tiny-recorded.yaml"
    run_file.write_text(run_file.read_text(encoding="utf-8").replace("source: perf/step_time", "source: lab/step_interval"),
                        encoding="utf-8")
    rows = [json.loads(ln) for ln in (root / REC / "steps.jsonl").read_text(encoding="utf-8").splitlines() if ln.strip()]
    values = derive_values(yaml.safe_load(run_file.read_text(encoding="utf-8")), rows)
    assert values["values"] == {} and "lab/step_interval" in values["missing"]["step_time"]
    (root / REC / "values.json").write_text(json.dumps(values), encoding="utf-8")
    check, build = timed(run_check, root), timed(run_build, root)
    assert check.code == 0, check.out
    assert "measured:tiny-recorded.step_time: lab/step_interval is in no step" in check.out
    assert build.code == 0, build.out
    page = (root / "_build/html/sections/2-1-values.html").read_text(encoding="utf-8")
    assert "not derivable" in page and "is recorded (on" in page and "lab/step_interval is in no step" in page
    assert "tiny-recorded' has not been recorded" not in page


# ---------------------------------------------------------------------------------- served launches (issue 51)
#
# Run files whose args, env (and so the --runtime-env-json token), entry and title try to run a command in
# the reader's shell. Both gates accept them (a run file's value is data), and what they publish is inert:
# each served _commands/<id>.sh and the text of each {run-command} block, run under bash with an argv
# recorder as `ray` and `tee`, creates no marker file and passes each program the run file's values. (A line
# break in a value is refused by both gates since issue 60, like every control character; the rendering of one
# stays inert all the same: tests/test_served_commands.py.)

def _hostile_run(run_id: str, seeds: list[int]) -> str:
    import yaml

    bad = "$s$(touch pwned-sub)`touch pwned-tick`"
    return yaml.safe_dump({
        "id": run_id, "title": "Hostile\ntouch pwned-title\rtouch pwned-cr", "purpose": "Tests inert launches.",
        "sections": ["2.1"], "image": "radixark/miles:latest", "entry": ["python3", "train.py"],
        "args": ["--colocate", "--rollout-batch-size", "8", "--note", f"/data/{bad}; touch pwned-argline",
                 *([] if len(seeds) > 1 else ["--seed", "1"]), "--rollout-seed", "1"],
        "env": {"EVIL": f"{bad}; touch pwned-envline'\""}, "steps": 3, "seeds": seeds,
        "values": {"tokens": {"source": "perf/tokens_time", "statistic": "median", "unit": "tok/s", "what": "Throughput"}}},
        sort_keys=False)


def _run_recorded(text: str, cwd: Path) -> list[dict]:
    """What each program received under test_served_commands' argv recorder, in a stable order."""
    from test_served_commands import run_bash

    return sorted(run_bash(text, cwd), key=json.dumps)


def test_hostile_run_files_publish_inert_launches(fuzz_root: Path, tmp_path: Path) -> None:
    import html as html_lib

    from miles101.intake import load_capture
    from miles101.runfiles import log_path, miles_args
    from miles101.tools.preflight import job_submit

    root = fresh(fuzz_root, tmp_path)
    for run_id, seeds in (("hostile-one", [1]), ("hostile-loop", [1, 2])):
        (root / "capture" / "runs" / f"{run_id}.yaml").write_text(_hostile_run(run_id, seeds), encoding="utf-8")
        _append(root, VALUES_PAGE, f"\n```{{run-command}} {run_id}\n```\n")
    check, build = timed(run_check, root), timed(run_build, root)
    assert check.code == 0, check.out[-3000:]
    assert build.code == 0, build.out[-3000:]
    runs = load_capture(root).runs
    page = (root / "_build/html/sections/2-1-values.html").read_text(encoding="utf-8")
    blocks = [html_lib.unescape(re.sub(r"<[^>]+>", "", b)) for b in
              re.findall(r'm101-run-command[^"]*"><div class="highlight"><pre>(.*?)</pre>', page, re.S)]
    assert len(blocks) == 2, page[-2000:]
    served = {p.stem: p.read_text(encoding="utf-8") for p in (root / "_build/html/_commands").glob("hostile-*.sh")}
    assert sorted(served) == ["hostile-loop", "hostile-one"]
    for where, run_id, text in [*(("block", rid, b) for rid, b in zip(("hostile-one", "hostile-loop"), blocks)),
                                *(("served", rid, t) for rid, t in served.items())]:
        run = runs[run_id]
        work = tmp_path / f"{where}-{run_id}"
        work.mkdir()
        argv = _run_recorded(text, work)
        assert not list(work.glob("pwned*")), f"the {where} launch of {run_id} ran a command from its run file:\n{text}"
        want = []
        for seed in run["seeds"]:
            want += [{"prog": "ray", "argv": [*job_submit(run, seed), *miles_args(run, seed)][1:]},
                     {"prog": "tee", "argv": [log_path(run, seed)]}]
        assert argv == sorted(want, key=json.dumps), f"{where} {run_id}:\n{text}"


# ---------------------------------------------------------------------------------- fixes that lead to the fix (issue 51 §5)

#: (case, mutate, the file named, what its fix must say): the remedy that fits the file, with its real path.
FIX_CASES: list[tuple[str, Callable[[Path], None], str, str]] = [
    ("facts.json is a dangling symlink",
     lambda r: ((r / "capture/facts.json").unlink(), (r / "capture/facts.json").symlink_to("nowhere.json")),
     "capture/facts.json", "correct it by hand"),
    ("host.json is missing", lambda r: (r / REC / "host.json").unlink(), f"{REC}/host.json",
     f"python3 capture/run.py record {RUN_REC} --force"),
    ("an attempt's run.json is corrupt",
     lambda r: ((r / "capture/gpu/_attempts/x-1").mkdir(parents=True), (r / "capture/gpu/_attempts/x-1/run.json").write_text("{bad")),
     "capture/gpu/_attempts/x-1/run.json", "rm -r capture/gpu/_attempts/x-1"),
    ("a page is not UTF-8", lambda r: (r / PAGE).write_bytes((r / PAGE).read_bytes() + b"\n\xff\n"), PAGE, "save the file as UTF-8"),
]


@pytest.mark.parametrize("case", range(len(FIX_CASES)), ids=[c[0] for c in FIX_CASES])
def test_a_fix_names_the_real_file_and_the_remedy_that_fits(fuzz_root: Path, tmp_path: Path, case: int) -> None:
    _, mutate, rel, says = FIX_CASES[case]
    root = fresh(fuzz_root, tmp_path)
    mutate(root)
    check = run_check(root)
    lines = [ln for ln in check.out.replace(str(root) + "/", "").splitlines() if ln.startswith(f"FAIL: {rel}")]
    assert check.code == 1 and lines, check.out
    assert "<file>" not in check.out and "re-run `python3 capture/run.py`" not in check.out, check.out
    assert f"git checkout -- {rel}" in lines[0] and says in lines[0], lines[0]


@pytest.mark.parametrize("broken", ["manual.json", "a page"])
def test_a_broken_book_is_reported_once_not_once_per_fact_check(fuzz_root: Path, tmp_path: Path, broken: str) -> None:
    """A fact-check record naming the book's pages: a broken manual.json (or page) is one FAIL, not one per entry."""
    root = fresh(fuzz_root, tmp_path)
    real = json.loads((ROOT / "capture/factcheck.json").read_text(encoding="utf-8"))
    entry = {**real["checks"][0], "page": PAGE, "fixes": [], "fixed": 0, "wrong_found": 0,
             "classes_checked": real["checks"][0]["classes_checked"][:1]}
    record = {k: v for k, v in real.items() if k != "universal_claims"}  # claims name the book's own pages
    (root / "capture/factcheck.json").write_text(json.dumps({**record, "checks": [entry] * 3}), encoding="utf-8")
    assert run_check(root).code == 0, run_check(root).out
    if "universal_claims" in real:  # the book's claims, on pages this root lacks: judged only with a book
        (root / "capture/factcheck.json").write_text(json.dumps({**real, "checks": [entry] * 3}), encoding="utf-8")
    if broken == "manual.json":
        (root / "manual.json").write_text("{ broken", encoding="utf-8")
    else:
        (root / PAGE).write_bytes((root / PAGE).read_bytes() + b"\n\xff\n")
    check = run_check(root)
    fails = [ln for ln in check.out.splitlines() if ln.startswith("FAIL:")]
    assert len(fails) == 1 and "is not a page of the book" not in check.out, "\n".join(fails)


def test_a_part_number_with_a_fraction_is_refused_with_the_right_fix(fuzz_root: Path, tmp_path: Path) -> None:
    """2.0 passes the schema as an integer; the fix says to write 1, never a section id like 1.0.1."""
    root = fresh(fuzz_root, tmp_path)
    _json_put(root, "manual.json", ("parts", 0, "number"), "1.0")
    for gate, out in both_gates(root):
        assert "manual.json:$.parts[0].number" in out and "write 1;" in out, f"{gate}:\n{out[-2000:]}"
        assert "1.0.1" not in out, f"{gate} advises a section id built from 1.0:\n{out[-2000:]}"


def test_check_reads_each_role_alone_and_the_directives_own_options(fuzz_root: Path, tmp_path: Path) -> None:
    """An empty {flag}`` is named at its line by both gates (it never spans the role after it); an option the
    directive does not take (:array: on {run-command}) is refused by both, as the build's directive refuses it."""
    root = fresh(fuzz_root, tmp_path)
    lines = (root / VALUES_PAGE).read_text(encoding="utf-8").count("\n")
    _append(root, VALUES_PAGE, "\nSet {flag}`` then {flag}`--colocate` too.\n\n```{run-command} tiny-pending\n:array: seeds\n```\n")
    for gate, out in both_gates(root):
        assert f"{VALUES_PAGE}:{lines + 2}: " in out and "the role {flag}` is not closed" in out, f"{gate}:\n{out[-2000:]}"
        assert "then {flag}" not in out, f"{gate} reads two roles as one:\n{out[-2000:]}"
        at = [ln for ln in out.splitlines() if "array" in ln and any(f"{VALUES_PAGE}:{n}: " in ln for n in (lines + 4, lines + 5))]
        assert at, f"{gate} does not refuse :array: at the block (its line or the option's):\n{out[-2000:]}"


@pytest.mark.unit
def test_the_core_knows_each_directives_options() -> None:
    from miles101.registry import DIRECTIVES
    from miles101.sphinx_ext.runs import ListingDirective, RunCommandDirective

    assert set(DIRECTIVES["listing"].options) == set(ListingDirective.option_spec)
    assert set(DIRECTIVES["run-command"].options) == set(RunCommandDirective.option_spec)


def test_a_duplicate_yaml_key_is_named_with_both_lines(fuzz_root: Path, tmp_path: Path) -> None:
    """YAML keeps the last of two equal keys silently; both gates name the key and both its lines."""
    root = fresh(fuzz_root, tmp_path)
    rel = "capture/runs/tiny-pending.yaml"
    text = (root / rel).read_text(encoding="utf-8")
    first = text.splitlines().index("steps: 3") + 1
    (root / rel).write_text(text + "steps: 4\n", encoding="utf-8")
    second = text.count("\n") + 1
    for gate, out in both_gates(root):
        said = rf"{rel}:{second}: (WARNING: )?the key 'steps' appears twice in one mapping \(lines {first} and {second}\)"
        assert re.search(said, out), f"{gate}:\n{out[-2000:]}"


DIAGRAM = "\n```{{diagram}} {id}\n:title: A figure\n{caption}\nflowchart LR\n  A --> B\n```\n"
#: (case, page, figure block, what both gates say): each figure rule of the build, run by --check too (issue 51 §6).
FIGURE_CASES = [
    ("an id used twice on a page", PAGE, DIAGRAM.format(id="fig-test-loop", caption=":caption: Notice B."),
     "the figure id fig-test-loop is used twice on this page"),
    ("an id used on two pages", VALUES_PAGE, DIAGRAM.format(id="fig-test-loop", caption=":caption: Notice B."),
     "the figure id fig-test-loop is also used in sections/1-1-first"),
    ("an id that is not a slug", VALUES_PAGE, DIAGRAM.format(id="Fig_Bad", caption=":caption: Notice B."),
     "figure id 'Fig_Bad' is not a lowercase slug"),
    ("no caption", VALUES_PAGE, DIAGRAM.format(id="fig-no-caption", caption=""), "the figure fig-no-caption has no :caption:"),
    ("the plate's id on a page", VALUES_PAGE, DIAGRAM.format(id="plate-test", caption=":caption: Notice B."),
     "the figure id plate-test is also used in front"),
]


@pytest.mark.parametrize("case", range(len(FIGURE_CASES)), ids=[c[0] for c in FIGURE_CASES])
def test_both_gates_apply_the_figure_rules(fuzz_root: Path, tmp_path: Path, case: int) -> None:
    _, page, block, says = FIGURE_CASES[case]
    root = fresh(fuzz_root, tmp_path)
    _append(root, page, block)
    for gate, out in both_gates(root):
        assert [ln for ln in out.splitlines() if page in ln and says in ln], f"{gate}:\n{out[-2000:]}"


@pytest.mark.parametrize(("page", "says"), [(PAGE, "the flag --colocate is documented twice on this page"),
                                            (VALUES_PAGE, "the flag --colocate is documented here and in sections/1-1-first")],
                         ids=["twice on a page", "on two pages"])
def test_both_gates_refuse_a_flag_documented_twice(fuzz_root: Path, tmp_path: Path, page: str, says: str) -> None:
    root = fresh(fuzz_root, tmp_path)
    _append(root, page, "\n```{flag} --colocate\nAgain.\n```\n")
    for gate, out in both_gates(root):
        assert [ln for ln in out.splitlines() if page in ln and says in ln], f"{gate}:\n{out[-2000:]}"


#: (block, what both gates say): the {fit-calculator} and {fit-compare} rules (miles101.fit.fit_block), run by
#: --check too (issue 51 §6). The test root holds no pool reference, so a whole block has no coefficients.
FIT_CASES = [
    ("\n```{fit-calculator}\n:run: tiny-pending\n```\n", "fit-calculator has no :model:."),
    ("\n```{fit-calculator}\n:model: tiny\n```\n", "fit-calculator has no :run:."),
    ("\n```{fit-calculator}\n:model: tiny\n:run: tiny-pending\n```\n",
     "the calculator needs reference `gb10_memory.cuda_total`, which capture/ does not hold."),
    ("\n```{fit-compare} tiny-pending.nothing\n:model: tiny\n```\n",
     "fit-compare: no measured value 'tiny-pending.nothing' (a value the run file declares)."),
]


def test_both_gates_apply_the_fit_rules(fuzz_root: Path, tmp_path: Path) -> None:
    """Each case at its own line of one page, in one build: both gates name it there, with the same words."""
    root = fresh(fuzz_root, tmp_path)
    lines = []
    for block, _ in FIT_CASES:
        lines.append((root / VALUES_PAGE).read_text(encoding="utf-8").count("\n") + 2)
        _append(root, VALUES_PAGE, block)
    for gate, out in both_gates(root):
        for line, (_, says) in zip(lines, FIT_CASES, strict=True):
            assert [ln for ln in out.splitlines() if f"{VALUES_PAGE}:{line}" in ln and says in ln], \
                f"{gate} ({says}):\n{out[-3000:]}"
