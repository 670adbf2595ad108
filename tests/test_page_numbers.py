"""Numbers the gates recompute or hold to a source (issue 60 §5, issue 57 §9): `miles101.pagenumbers`.

A time product ({run-arg} × {reference} ≈ N min) is recomputed from the run file and the reference; a number
typed in a command is held to the run files or to the reviewed list (capture/reviewed-numbers.json) with its
source; any other `≈ N` is refused. Each bad input names the page and line and the fix; the build and
`capture/run.py --check` report the same problems.
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from buildutil import ROOT, build

from miles101.pagenumbers import REVIEWED, book_number_problems, load_reviewed, page_number_problems
from miles101.pagetext import split
from miles101.pagenumbers import products

PAGE = "sections/5-3-repeat-a-run.md"
RIGHT = "{run-arg}`seed-repeats --num-rollout` × {reference}`slime-gb10.step-time` ≈ 34 min"


@pytest.fixture(scope="module")
def capture(real_capture_copies):
    return real_capture_copies()


@pytest.fixture(scope="module")
def reviewed(capture):
    return load_reviewed(ROOT, capture)


def _book_pages() -> list[tuple[str, str]]:
    from miles101.book import load_book

    book, _ = load_book(ROOT / "manual.json", ROOT)
    return [(rel, (ROOT / rel).read_text(encoding="utf-8")) for rel in book.page_files]


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def test_todays_pages_pass_and_carry_their_products(capture) -> None:
    pages = _book_pages()
    assert book_number_problems(capture, ROOT, pages) == []
    found = {rel for rel, text in pages if products(split(text)[0])}
    assert len(found) >= 8 and PAGE in found and "sections/2-1-pick-a-model-size.md" in found


def test_a_wrong_product_names_the_page_line_and_right_figure(capture, reviewed) -> None:
    text = (ROOT / PAGE).read_text(encoding="utf-8")
    assert RIGHT in text
    wrong = text.replace(RIGHT, RIGHT.replace("≈ 34 min", "≈ 3 min"))
    (problem,) = page_number_problems(capture, PAGE, wrong, reviewed)
    assert problem.where == f"{PAGE}:{_line(wrong, '≈ 3 min')}"
    assert "48 × 41.9 s = 33.52 min, which rounds to 34 min, not 3 min" in problem.message
    assert problem.fix.startswith("write ≈ 34 min")


def test_a_changed_run_file_makes_the_product_stale(capture, reviewed) -> None:
    """A ×10 change in the rollout count (issue 60's case) fails the gate where the product stands."""
    changed = replace(capture, runs={**capture.runs})
    run = dict(changed.runs["seed-repeats"])
    run["args"] = [("480" if a == "48" else a) for a in run["args"]]
    changed.runs["seed-repeats"] = run
    text = (ROOT / PAGE).read_text(encoding="utf-8")
    found = [p for p in page_number_problems(changed, PAGE, text, reviewed) if "≈" in p.fix]
    assert [p.fix.split(" (")[0] for p in found] == ["write ≈ 335 min"]


@pytest.mark.parametrize("figure, ok", [("14", True), ("14.0", True), ("13.97", True), ("13.9", False), ("13", False)])
def test_the_rounding_is_the_figures_own(capture, reviewed, figure, ok) -> None:
    """20 × 41.9 s = 13.97 min: a figure holds within half a unit of its own last digit."""
    assert capture.run_arg("speed-tis", "--num-rollout")[0] == "20"
    text = f"Take {{run-arg}}`speed-tis --num-rollout` × {{reference}}`slime-gb10.step-time` ≈ {figure} min.\n"
    assert (page_number_problems(capture, "sections/x.md", text, reviewed) == []) == ok


def test_a_sum_of_products_is_recomputed_whole(capture, reviewed) -> None:
    """1.1's evening: the smoke run's and the long run's steps at slime's step time, summed (not its last term alone)."""
    terms = ("{run-arg}`first-grpo-smoke --num-rollout` × {reference}`slime-gb10.step-time` +\n"
             "{run-arg}`first-grpo --num-rollout` × {reference}`slime-gb10.step-time`")
    right = f"The evening takes\n{terms} ≈ 35 min.\n"
    assert page_number_problems(capture, "sections/x.md", right, reviewed) == []
    (problem,) = page_number_problems(capture, "sections/x.md", right.replace("≈ 35", "≈ 34"), reviewed)
    assert problem.where == "sections/x.md:3"
    assert "2 × 41.9 s + 48 × 41.9 s = 34.92 min, which rounds to 35 min, not 34 min" in problem.message


def test_a_product_the_gates_cannot_recompute_and_a_typed_approximation(capture, reviewed) -> None:
    text = ("Intro.\n\nA run takes ≈ 5 min on a Spark.\n\n"
            "Two facts: {fact}`dgx-spark.memory` × {reference}`slime-gb10.step-time` ≈ 9 min.\n"
            "A value: ≈ {reference}`slime-gb10.step-time`, and code `x ≈ 3` is not prose.\n")
    found = page_number_problems(capture, "sections/x.md", text, reviewed)
    assert [p.where for p in found] == ["sections/x.md:5", "sections/x.md:3"]
    assert "{fact} by {reference}" in found[0].message and "{run-arg}" in found[0].fix
    assert found[1].message.startswith("≈ 5 is typed by hand") and REVIEWED in found[1].fix


def test_a_hand_typed_number_in_a_command_names_its_line_and_the_fix(capture, reviewed) -> None:
    text = ("# Page\n\nRead it:\n\n```bash\npython3 read_run.py run.log --steps 7 --groups 32\n```\n\n"
            "Or `read_run.py run.log --groups 16`, at `127.0.0.1:8265` with `Qwen3-0.6B`.\n")
    found = page_number_problems(capture, "sections/x.md", text, reviewed)
    assert [p.where for p in found] == ["sections/x.md:6", "sections/x.md:9"]
    assert "the number 7 in the command `--steps 7` is typed by hand" in found[0].message
    assert REVIEWED in found[0].fix and "\"run-arg\"" in found[0].fix
    assert "first-grpo --rollout-batch-size is 32" in found[1].message  # --groups is held to the run files


def test_what_is_a_command_and_what_is_not(capture, reviewed) -> None:
    """Shell blocks (also as {code-block} bash) and inline code are read; Python, output and {run-command} are not."""
    text = ("```{code-block} bash\nhead -n 7 log\n```\n\n```python\nx = f(n=7)\n```\n\n```text\nstep 7: --steps 7\n```\n\n"
            "```{run-command} first-grpo\n```\n\n```console\n$ tail -n 9 log\n```\n")
    found = page_number_problems(capture, "sections/x.md", text, reviewed)
    assert [(p.where, p.message.split(" in the command ")[1]) for p in found] == [
        ("sections/x.md:2", "`-n 7` is typed by hand."), ("sections/x.md:17", "`-n 9` is typed by hand.")]


def test_a_listed_number_is_held_to_its_run_file(capture, reviewed) -> None:
    changed = replace(capture, runs={**capture.runs})
    run = dict(changed.runs["first-grpo"])
    run["args"] = [("16" if a == "32" and run["args"][i - 1] == "--rollout-batch-size" else a)
                   for i, a in enumerate(run["args"])]
    changed.runs["first-grpo"] = run
    text = "```bash\npython3 read_run.py first-grpo.log --groups 32\n```\n"
    (problem,) = page_number_problems(changed, "sections/x.md", text, reviewed)
    assert problem.where == "sections/x.md:2"
    assert "{run-arg}`first-grpo --rollout-batch-size`" in problem.message and "which is 16" in problem.message
    assert problem.fix.startswith("write `--groups 16`")


def gate(root: Path, capture) -> list:
    """What a gate reports of the reviewed list under `root`: the validation's problems of the file (its schema, the
    one structure check), then the number rules' own (`book_number_problems`), as `--check` and the build list them."""
    from miles101.intake import validate_capture

    schema = [p for p in validate_capture(root).problems if p.where.startswith(REVIEWED)]
    return [*schema, *load_reviewed(root, capture).problems]


def test_the_reviewed_list_gives_each_entry_a_source(tmp_path, capture) -> None:
    doc = json.loads((ROOT / REVIEWED).read_text(encoding="utf-8"))
    assert all(e.get("why") and any(e.get(k) for k in ("run-arg", "src", "url", "book")) for e in doc["commands"])
    assert len(doc["commands"]) <= 25, "keep the list short: cite a run file's setting with {run-arg} where you can"
    doc["commands"][0].pop("run-arg")
    doc["commands"][1]["src"] = "miles/nowhere.py:3"
    (tmp_path / "capture").mkdir()
    (tmp_path / REVIEWED).write_text(json.dumps(doc), encoding="utf-8")
    found = gate(tmp_path, capture)
    assert [p.where for p in found] == [f"{REVIEWED}:$.commands[0]", f"{REVIEWED}:$.commands[1].src"]
    assert "at least one source: \"run-arg\"" in found[0].message and "reviewed-numbers.schema.json" in found[0].fix
    assert "nowhere.py" in found[1].message
    reviewed = load_reviewed(tmp_path, capture)  # the entry the schema refuses is left out, the others read
    assert reviewed.problems == (found[1],) and len(reviewed.commands) >= len(doc["commands"]) - 1
    (tmp_path / REVIEWED).write_bytes(b"{not json")
    (problem,) = gate(tmp_path, capture)
    assert problem.where.startswith(REVIEWED) and "git checkout" in problem.fix
    (tmp_path / REVIEWED).unlink()
    os.mkfifo(tmp_path / REVIEWED)  # never opened: a FIFO would block both gates
    (problem,) = gate(tmp_path, capture)
    assert problem.where == f"{REVIEWED}:1" and "a FIFO" in problem.message


def test_a_clean_list_is_read_without_a_validator(capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The intake found these bytes clean: the number rules read them as they are (no validator, so an unchanged
    build imports no jsonschema); other bytes, or no intake, are held to the schema here too."""
    from miles101 import schemas

    assert REVIEWED in capture.clean
    read = load_reviewed(ROOT, capture)

    def refuse(*args: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(schemas, "validator", refuse)
    assert load_reviewed(ROOT, capture) == read and len(read.commands) > 0
    with pytest.raises(AssertionError, match="validated again"):
        load_reviewed(ROOT, replace(capture, clean={}))


# ---- both gates ------------------------------------------------------------------------------------------
BROKEN = """# Values

A run takes {run-arg}`tiny-pending --num-rollout` × {reference}`test.step-time` ≈ 5 min, or ≈ 3 min more.

```bash
python3 read_run.py tiny.log --steps 7
```

Inline, `read_run.py tiny.log --groups 9`. The job waits for eight GPUs.
"""
WARNING = re.compile(r"^(?P<where>[^:\s]+\.md:\d+): WARNING: (?P<text>.*) \[manual\.bad_reference\]$")


@pytest.mark.build
@pytest.mark.parametrize("parallel", [0, 2])
def test_build_and_check_agree_on_numbers(book_copy: Path, parallel: int) -> None:
    from capture.check import run_check
    from sphinx.util.console import strip_escape_sequences as strip_ansi

    refs = book_copy / "capture" / "references" / "test.json"
    doc = json.loads(refs.read_text(encoding="utf-8"))
    doc["references"]["test.step-time"] = {**doc["references"]["test.baseline"], "value": 40,
                                           "unit": "s per rollout step", "what": "A step time (test data)"}
    refs.write_text(json.dumps(doc), encoding="utf-8")
    (book_copy / REVIEWED).write_text(json.dumps({"commands": [
        {"option": "--groups", "values": ["8"], "run-arg": ["tiny-pending --rollout-batch-size"], "why": "test data"}]}),
        encoding="utf-8")
    page = "sections/2-1-values.md"
    (book_copy / page).write_text(BROKEN, encoding="utf-8")

    checked = Counter(f.removesuffix(" [manual.bad_reference]") for f in run_check(book_copy)[0].failures
                      if f.startswith(page) and f.endswith("[manual.bad_reference]"))
    built = build(book_copy, parallel=parallel)
    warned: Counter = Counter()
    for line in strip_ansi(built.warnings).splitlines():
        m = WARNING.match(line.replace(str(book_copy) + "/", ""))
        if m and m["where"].startswith(page):
            warned[f"{m['where']}: {m['text']}"] += 1
    assert len(checked) == 5, sorted(checked)
    assert any("3 × 40 s = 2.00 min, which rounds to 2 min, not 5 min" in c for c in checked)
    assert checked == warned
    assert built.app.statuscode != 0


@pytest.mark.build
def test_a_malformed_entry_is_one_error_in_both_gates(book_copy: Path) -> None:
    """An entry with no source, and one whose "why" is a list: each is one error in `--check` and one in the build,
    at its JSON path, with the fix (the schema's; the number rules do not say it again)."""
    from capture.check import run_check
    from sphinx.util.console import strip_escape_sequences as strip_ansi

    good = {"option": "--groups", "values": ["8"], "run-arg": ["tiny-pending --rollout-batch-size"], "why": "test data"}
    (book_copy / REVIEWED).write_text(json.dumps({"commands": [
        {"option": "--steps", "values": ["7"], "why": "test data"}, good, {**good, "values": ["9"], "why": ["x"]}]}),
        encoding="utf-8")
    wheres = {f"{REVIEWED}:$.commands[0]:": "at least one source", f"{REVIEWED}:$.commands[2].why:": "not of type"}
    checked = [f for f in run_check(book_copy)[0].failures if REVIEWED in f]
    built = build(book_copy)
    warned = [ln for ln in strip_ansi(built.warnings).splitlines() if REVIEWED in ln]
    for gate_lines in (checked, warned):
        assert len(gate_lines) == len(wheres), gate_lines
        for where, said in wheres.items():
            (line,) = [ln for ln in gate_lines if where in ln]
            assert said in line and "Fix: change the value at $.commands[" in line and "reviewed-numbers.schema.json" in line
    assert built.app.statuscode != 0


@pytest.mark.build
def test_a_changed_entry_reads_its_pages_again(book_copy: Path) -> None:
    """A page that rests on a reviewed entry is read again when that entry changes, and only then."""
    entry = {"option": "--groups", "values": ["8"], "run-arg": ["tiny-pending --rollout-batch-size"], "why": "test data"}
    (book_copy / REVIEWED).write_text(json.dumps({"commands": [entry]}), encoding="utf-8")
    page = "sections/2-1-values.md"
    (book_copy / page).write_text("# Values\n\nInline, `read_run.py tiny.log --groups 8`.\n", encoding="utf-8")
    assert build(book_copy).app.statuscode == 0
    assert build(book_copy).read == []
    entry["values"] = ["9"]
    (book_copy / REVIEWED).write_text(json.dumps({"commands": [entry]}), encoding="utf-8")
    again = build(book_copy)
    assert again.read == ["sections/2-1-values"]
    assert "`--groups 8` is not what the run files say" in again.warnings and again.app.statuscode != 0


def test_a_quantity_in_words_needs_a_citation_or_an_entry(capture, reviewed) -> None:
    text = ("# Page\n\nThe job waits for eight GPUs on one node.\n\n"
            "slime trained it on eight H200 GPUs ({issue}`THUDM/slime#1527`). A few thousand tokens is no number.\n\n"
            "Read the first ten steps.\n\nTrain for a hundred rollouts.\n")
    problem, hundred = page_number_problems(capture, "sections/x.md", text, reviewed)
    assert problem.where == "sections/x.md:3" and "“eight GPUs”" in problem.message
    assert hundred.where == "sections/x.md:9" and "“hundred rollouts”" in hundred.message
    assert REVIEWED in problem.fix and "\"words\"" in problem.fix


def test_a_quantity_whose_noun_is_a_glossary_term_is_read(capture, reviewed) -> None:
    """"two {term}`rollouts <rollout>`" is a quantity as "two rollouts" is: the role does not hide it."""
    text = "# Page\n\nThe check cuts the run to two {term}`rollouts <rollout>`.\n\nIt needs eight {term}`GPUs <GPU>`.\n"
    found = page_number_problems(capture, "sections/x.md", text, reviewed)
    assert [p.where for p in found] == ["sections/x.md:3", "sections/x.md:5"]
    cited = text.replace("GPUs <GPU>`.", "GPUs <GPU>` ({run-arg}`split-8gpu --num-gpus-per-node`).")
    assert [p.where for p in page_number_problems(capture, "sections/x.md", cited, reviewed)] == ["sections/x.md:3"]


def test_a_listed_quantity_in_words_is_held_to_its_run_file(capture, reviewed) -> None:
    """1.1's "two rollouts" is its smoke run's length: a run file that gives it three fails where the words stand."""
    page = "sections/1-1-run-grpo-on-one-gpu.md"  # the page the entry names; the text is this test's
    text = "# Run\n\nThe smoke run is the long run's command, cut to two\n   rollouts.\n"
    assert page_number_problems(capture, page, text, reviewed) == []
    assert page_number_problems(capture, "sections/x.md", text, reviewed)  # the entry holds on its pages only
    changed = replace(capture, runs={**capture.runs})
    run = dict(changed.runs["first-grpo-smoke"])
    args = list(run["args"])
    args[args.index("--num-rollout") + 1] = "3"
    changed.runs["first-grpo-smoke"] = {**run, "args": args}
    (problem,) = page_number_problems(changed, page, text, reviewed)
    assert problem.where == f"{page}:3"
    assert "{run-arg}`first-grpo-smoke --num-rollout`" in problem.message and "which is 3" in problem.message


# ---- hostile entries and pages (issue 60): one problem at the JSON path, never a traceback or a hang -------------
@pytest.mark.parametrize("mutate, where, said", [
    (lambda d: d["commands"][0].update({"run-arg": [5]}), '$.commands[0]["run-arg"][0]', "not of type 'string'"),
    (lambda d: d["commands"][0].update({"run-arg": [None]}), '$.commands[0]["run-arg"][0]', "not of type 'string'"),
    (lambda d: d["commands"][0].update({"run-arg": "first-grpo --rollout-batch-size"}), '$.commands[0]["run-arg"]',
     "not of type 'array'"),
    (lambda d: d["commands"][0].update({"values": [32.0]}), "$.commands[0].values[0]", "not of type 'string'"),
    (lambda d: d["commands"][0].update({"values": [None]}), "$.commands[0].values[0]", "not of type 'string'"),
    (lambda d: d["commands"][0].update({"why": ["x"]}), "$.commands[0].why", "not of type 'string'"),
    (lambda d: d["commands"][0].update({"why": "  "}), "$.commands[0].why", "a character other than a space"),
    (lambda d: d["commands"][0].pop("values"), "$.commands[0]", "'values' is a required property"),
    (lambda d: d["commands"].append(dict(d["commands"][0])), "$.commands[{last}].values[0]", "listed twice"),
    (lambda d: d.setdefault("approx", []).append({"page": PAGE, "text": " ", "why": "x", "book": "x"}),
     "$.approx[{last_approx}].text", "a character other than a space"),
    (lambda d: d["words"].append({"words": "eight GPUs", "pages": PAGE, "why": "x", "book": "x"}),
     "$.words[{last_words}].pages", "not of type 'array'"),
    (lambda d: d["words"].append({"words": "eight GPUs", "run-arg": [8], "why": "x"}),
     '$.words[{last_words}]["run-arg"][0]', "not of type 'string'"),
    (lambda d: d["words"].append({"words": "many GPUs", "why": "x", "book": "x"}), "$.words[{last_words}].words",
     "no number word"),
])
def test_a_hostile_entry_is_named_once_at_its_json_path(tmp_path, capture, mutate, where, said) -> None:
    """Each broken entry is one problem, at its JSON path, with the fix: the schema's (structure) or the number
    rules' (what a schema cannot say); the page check goes on without the entry."""
    doc = json.loads((ROOT / REVIEWED).read_text(encoding="utf-8"))
    mutate(doc)
    where = where.format(last=len(doc["commands"]) - 1, last_approx=len(doc.get("approx", [])) - 1,
                         last_words=len(doc["words"]) - 1)
    (tmp_path / "capture").mkdir()
    (tmp_path / REVIEWED).write_text(json.dumps(doc), encoding="utf-8")
    found = gate(tmp_path, capture)
    assert len(found) == 1, [(p.where, p.message) for p in found]
    assert found[0].where == f"{REVIEWED}:{where}" and said in found[0].message, (found[0].where, found[0].message)
    assert found[0].fix
    book_number_problems(capture, tmp_path, [(PAGE, (ROOT / PAGE).read_text(encoding="utf-8"))])  # no traceback


def test_a_list_that_is_no_object_is_named(tmp_path, capture) -> None:
    (tmp_path / "capture").mkdir()
    (tmp_path / REVIEWED).write_text("[1, 2]", encoding="utf-8")
    (problem,) = gate(tmp_path, capture)
    assert problem.where == f"{REVIEWED}:$" and "not of type 'object'" in problem.message


def test_a_long_chain_of_terms_with_no_result_is_read_in_linear_time(capture, reviewed) -> None:
    import time

    term = "{run-arg}`seed-repeats --num-rollout` × {reference}`slime-gb10.step-time` + "
    start = time.monotonic()
    assert products(term * 4000 + "≈ x\n") == []
    found = page_number_problems(capture, PAGE, "# T\n\n" + term * 1000 + RIGHT + "\n", reviewed)
    assert time.monotonic() - start < 5
    assert len(found) == 1 and "is 1001 ×" not in found[0].message
