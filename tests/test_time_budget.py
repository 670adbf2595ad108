"""Every page that prescribes a run (a `{run-command}`) says how long the whole run takes (issue 45, item 7).

Each such page has a section headed "How long ..." (so the book's search finds it for "how long") that
gives the page's own recorded run as a `{measured}` whole-run time and a public reference beside it. A
product of a per-step reference and a step count is plain arithmetic of the text: both factors shown as
roles, the result typed, and this test recomputes it. A sum of such products (1.1's evening, its two runs'
steps: `A × R + B × R ≈ N min`) is recomputed the same way.
"""
from __future__ import annotations

import re

import pytest

from buildutil import ROOT

from miles101.pagetext import split
from miles101.pagenumbers import products, time_product_problems

SECTIONS = ROOT / "sections"
SKIP: set[str] = set()
RUN_COMMAND = re.compile(r"^\s*```\{run-command\}\s+([\w-]+)", re.M)
#: The public references a time section may set beside the page's run: whole runs and step times.
TIME_REFERENCES = {"slime-gb10.run-time", "slime-gb10.step-time", "slime-gb10.first-cycle-time",
                   "loop_time.slime385_step"}
TERM = r"\{run-arg\}`([\w-]+) --num-rollout` × \{reference\}`([\w.-]+)`"
PRODUCT = re.compile(rf"(?<!\+ )(?<!\+\n){TERM} ≈ (\d+) min")
#: A sum of products, the terms joined by " +" (a line break may follow the plus): `A × R +\nB × R ≈ N min`.
SUM = re.compile(rf"{TERM}(?: \+\s{TERM})+ ≈ (\d+) min")
#: slime's batch as the page cites it (public-reference values), which the step time's own setting must say.
SLIME_BATCH = "{reference}`slime-gb10.prompts-per-step` × {reference}`slime-gb10.samples-per-prompt`"


def run_pages() -> list:
    return sorted(p for p in SECTIONS.glob("*.md") if RUN_COMMAND.search(p.read_text(encoding="utf-8"))
                  and p.name not in SKIP)


def how_long(text: str) -> str:
    """The page's "How long ..." section, up to the next heading of its level or above."""
    m = re.search(r"^(#{2,3}) How long\b.*$", text, re.M)
    if not m:
        return ""
    rest = text[m.end():]
    end = re.search(rf"^#{{1,{len(m[1])}}} ", rest, re.M)
    return rest[:end.start()] if end else rest


@pytest.fixture(scope="module")
def capture(real_capture_copies):
    return real_capture_copies()


def recorded(run: dict) -> bool:
    """The lab records the run on the Spark (no not_recorded reason, no record: {spark: false})."""
    return not run.get("not_recorded") and (run.get("record") or {}).get("spark", True)


def arg(capture, run_id: str, flag: str) -> str:
    """The value a run file passes for a flag (its base's included)."""
    from miles101.tools.preflight import option_values

    return option_values(capture.runs[run_id]["args"])[flag][-1]


def test_the_run_pages_are_found() -> None:
    names = [p.name for p in run_pages()]
    assert len(names) >= 15 and "3-1-train-math-on-gsm8k.md" in names and "1-1-run-grpo-on-one-gpu.md" in names


@pytest.mark.parametrize("page", run_pages(), ids=lambda p: p.name)
def test_each_run_page_says_how_long_the_whole_run_takes(page, capture) -> None:
    text = page.read_text(encoding="utf-8")
    section = how_long(text)
    assert section, f"{page.name}: no section headed 'How long ...' (the search must find it)"
    assert "{computed}" not in section, f"{page.name}: a time budget is measured, a reference or arithmetic"
    refs = set(re.findall(r"\{reference\}`([\w.-]+)", section))
    assert refs & TIME_REFERENCES, f"{page.name}: no public time reference beside the run ({sorted(TIME_REFERENCES)})"
    for run_id in RUN_COMMAND.findall(text):
        run = capture.runs[run_id]
        if not recorded(run):
            assert "does not record" in section, f"{page.name}: {run_id} is not recorded; say so where its time would be"
            continue
        decl = (run.get("values") or {}).get("run_time")
        assert decl and decl["source"] == "lab/elapsed" and decl["statistic"] == "last", \
            f"capture/runs/{run_id}.yaml: declare values/run_time (lab/elapsed, last), the whole run's wall time"
        assert f"{{measured}}`{run_id}.run_time" in section, f"{page.name}: cite {{measured}}`{run_id}.run_time`"


@pytest.mark.parametrize("page", run_pages(), ids=lambda p: p.name)
def test_each_product_is_right_and_says_the_batch_difference(page, capture) -> None:
    section = how_long(page.read_text(encoding="utf-8"))
    # the arithmetic is both gates' rule now (miles101.pagenumbers, tests/test_page_numbers.py): held here thinly
    assert time_product_problems(capture, page.name, split(section)[0]) == []
    for run_id, key, minutes in PRODUCT.findall(section):
        ref = capture.value("reference", key)
        for flag in ("--rollout-batch-size", "--n-samples-per-prompt"):
            shown = {arg(capture, other, flag) for other in re.findall(rf"\{{run-arg\}}`([\w-]+) {flag}`", section)}
            assert SLIME_BATCH in section and arg(capture, run_id, flag) in shown, \
                f"{page.name}: a product needs the batch difference said ({SLIME_BATCH} against {run_id}'s {flag})"
        prompts, samples = (capture.value("reference", f"slime-gb10.{k}") for k in ("prompts-per-step", "samples-per-prompt"))
        batch = f"{prompts.value:g} prompts × {samples.value:g} samples"
        assert batch in ref.detail["setting"], f"{key}'s setting does not say slime's batch as cited ({batch})"
        assert prompts.detail["setting"] == samples.detail["setting"] == ref.detail["setting"], \
            "slime's batch and its step time are one run's: give them the same setting"


def sum_terms(text: str) -> list[tuple[list[tuple[str, str]], int]]:
    """Each sum of products in `text`: its (run, reference) terms and the minutes it gives."""
    return [(re.findall(TERM, m[0]), int(m[0].rsplit("≈", 1)[1].split()[0])) for m in SUM.finditer(text)]


@pytest.mark.parametrize("page", run_pages(), ids=lambda p: p.name)
def test_each_sum_of_products_is_right(page, capture) -> None:
    for terms, minutes in sum_terms(how_long(page.read_text(encoding="utf-8"))):
        total = sum(capture.runs[run_id]["steps"] * capture.value("reference", key).value for run_id, key in terms) / 60
        assert abs(total - minutes) <= 0.5, f"{page.name}: {terms} is {total:.1f} min, not {minutes}"


def test_1_1_opens_its_checklist_with_the_evenings_total() -> None:
    """The first thing under "Do this, in order" is its "How long" section, which sums both runs' steps."""
    text = (SECTIONS / "1-1-run-grpo-on-one-gpu.md").read_text(encoding="utf-8")
    checklist = text.split("## Do this, in order\n", 1)[1]
    assert re.match(r"(?:(?!^#).*\n)*?\(evening-time\)=\n### How long", checklist, re.M), "the total comes first"
    sums = sum_terms(how_long(text))
    assert sums and {run for run, _ in sums[0][0]} == {"first-grpo-smoke", "first-grpo"}
    assert "no figure" in how_long(text)  # and it says which parts have none


def test_the_sum_check_catches_wrong_arithmetic(capture) -> None:
    wrong = ("{run-arg}`first-grpo-smoke --num-rollout` × {reference}`slime-gb10.step-time` +\n"
             "{run-arg}`first-grpo --num-rollout` × {reference}`slime-gb10.step-time` ≈ 34 min")
    assert not PRODUCT.search(wrong), "the last term of a sum is not a product of its own"
    (terms, minutes), = sum_terms(wrong)
    total = sum(capture.runs[r]["steps"] * capture.value("reference", k).value for r, k in terms) / 60
    assert abs(total - minutes) > 0.5


@pytest.mark.parametrize("name", ["3-1-train-math-on-gsm8k.md", "3-2-train-with-the-dapo-filter.md"])
def test_the_100_rollout_recipes_cite_slimes_whole_run_as_it_is(name, capture) -> None:
    """slime's whole 100-rollout run is cited as it is; a product beside it (3.1, issue 57 item 7) is of the page's
    own run, which has the same rollout count."""
    section = how_long((SECTIONS / name).read_text(encoding="utf-8"))
    assert "{reference}`slime-gb10.run-time`" in section
    run_id = RUN_COMMAND.findall((SECTIONS / name).read_text(encoding="utf-8"))[0]
    assert capture.runs[run_id]["steps"] == 100  # the same rollout count as slime's run
    assert all(run == run_id for run, _, _ in PRODUCT.findall(section))


def test_the_gate_recomputes_each_product_this_test_reads(capture) -> None:
    """Every product this test's form reads is one the gates recompute (the same run-arg, reference and figure)."""
    for page in run_pages():
        section = how_long(page.read_text(encoding="utf-8"))
        gate = [(p.terms[0][0][1].split()[0], p.terms[0][1][1], p.figure) for p in products(split(section)[0])
                if len(p.terms) == 1]
        assert gate == PRODUCT.findall(section), page.name
