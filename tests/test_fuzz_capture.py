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
        text = re.sub(r"^args: .*$", 'args: [--colocate, --rollout-batch-size, "8"]', path.read_text(encoding="utf-8"),
                      flags=re.M)
        path.write_text(text, encoding="utf-8")
    (root / XC).parent.mkdir(parents=True)
    (root / XC).write_text(json.dumps(crosscheck_result(root), indent=1), encoding="utf-8")
    return root


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
                               "-d", str(root / "_build" / "doctrees"), "-D", f"m101_mermaid_root={ROOT}"])
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


MUTATIONS: dict[str, tuple[Callable[[Path, random.Random], str], int]] = {
    "wrong type": (m_number_to_string, 3), "string field of the wrong type": (m_string_to_number, 2),
    "run file": (m_run_file, 2), "non-finite": (m_non_finite, 3), "negative": (m_negative, 2),
    "huge": (m_huge, 2), "missing key": (m_missing_key, 3), "truncated": (m_truncated, 2),
    "invalid utf-8": (m_invalid_utf8, 2), "empty file": (m_empty, 2), "duplicate key": (m_duplicate_key, 2),
    "unknown key": (m_unknown_key, 2), "garbled steps.jsonl": (m_garbled_steps, 3),
    "values.json disagrees with steps.jsonl": (m_steps_disagree, 1),
    "computed.json disagrees with its inputs": (m_computed_disagree, 2),
    "cross-check disagrees with computed.json": (m_crosscheck_disagree, 2),
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
    return re.search(re.escape(rel) + r"(:\$|:\d+)", out) is not None


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
