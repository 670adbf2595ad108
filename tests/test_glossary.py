"""The front page promises that Ray, FSDP and Megatron are introduced where a reader first meets them:
each page links its first use of a glossary term to R.6 (Sphinx's glossary, the {term} role).

The same holds for the glossary's other technical terms (TERMS). Words the book also uses in their
everyday sense ("group", "measured", "pending") are left out, and EXEMPT names a page where a word
means something else than its glossary entry."""
from __future__ import annotations

import json
import re

import pytest

from buildutil import ROOT

PROMISED = ("Ray", "FSDP", "Megatron")
TERMS = (*PROMISED, "placement group", "SGLang", "router", "colocate", "rollout", "advantage", "KL",
         "true on-policy", "LoRA", "MoE", "MLA", "torch_dist", "GiB")
#: (page, word): why the page's first use of the word is not the glossary's sense.
EXEMPT = {("3-4-train-a-moe-model.md", "router"): "an MoE layer's expert router, not SGLang's request router"}
PROSE_FENCES = ("{flag}", "{until-recorded}", "{once-recorded}", "{note}", "{tip}", "{warning}", "{admonition}", "{dropdown}")
PAGES = [ROOT / "front.md", *sorted(p for p in (ROOT / "sections").glob("*.md") if p.name != "r-6-glossary.md")]


def prose(text: str) -> str:
    """The page's prose: code and diagram fences, headings and targets blanked; {term} roles kept, other roles and code dropped."""
    out, fence = [], []
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,}|:{3,})(.*)$", line)
        if m:
            marker, head = m.group(1), m.group(2).strip()
            if fence and marker == fence[-1][0] and not head:
                fence.pop()
                continue
            if head:
                fence.append((marker, head.split()[0] in PROSE_FENCES))
                continue
        if (fence and not fence[-1][1]) or line.lstrip().startswith(("#", ":")) or re.match(r"^\(.*\)=$", line):
            out.append("")
            continue
        line = re.sub(r"\{(?!term\})[a-z-]+\}`[^`]*`", " ", line)
        line = re.sub(r"(?<!\})`[^`]*`", " ", line)
        out.append(line)
    return "\n".join(out)


def first_use_is_linked(text: str, word: str) -> bool | None:
    """None when the page never uses the word; else whether its first use is a {term} link."""
    body = prose(text)
    linked = re.compile(r"\{term\}`[^`]*`")
    spans = [(m.start(), m.end()) for m in linked.finditer(body)]
    for m in re.finditer(rf"\b{re.escape(word)}\b(?![-_/])", body):
        inside = next(((a, b) for a, b in spans if a <= m.start() < b), None)
        if inside is None:
            return False
        if word in body[inside[0]:inside[1]]:
            return True
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_first_use_of_each_term_links_the_glossary(page) -> None:
    text = page.read_text(encoding="utf-8")
    unlinked = [w for w in TERMS if (page.name, w) not in EXEMPT and first_use_is_linked(text, w) is False]
    assert not unlinked, f"{page.name}: the first use of {unlinked} is not a {{term}} link to R.6"


def test_the_check_catches_an_unlinked_first_use() -> None:
    assert first_use_is_linked("Ray starts. {term}`Ray` again.", "Ray") is False
    assert first_use_is_linked("The {term}`Ray` job. Ray again.", "Ray") is True
    assert first_use_is_linked("```bash\nray start\n```\nNo word here.", "Ray") is None


def test_each_checked_term_and_exemption_is_real() -> None:
    glossary = (ROOT / "sections" / "r-6-glossary.md").read_text(encoding="utf-8")
    assert all(re.search(rf"^{re.escape(term)}$", glossary, re.M) for term in TERMS)
    for page, word in EXEMPT:  # an exemption that no longer applies is removed
        assert first_use_is_linked((ROOT / "sections" / page).read_text(encoding="utf-8"), word) is False, (page, word)


def test_the_glossary_defines_the_terms_issue_36_names() -> None:
    glossary = (ROOT / "sections" / "r-6-glossary.md").read_text(encoding="utf-8")
    for term in ("Ray", "placement group", "FSDP", "Megatron", "SGLang", "router", "colocate", "rollout", "group",
                 "advantage", "KL", "true on-policy", "LoRA", "MoE", "MLA", "torch_dist", "GiB"):
        assert re.search(rf"^{re.escape(term)}$", glossary, re.M), term
    # the kinds of value are glossary entries generated from the kinds table (miles101.kinds.legend)
    from miles101.kinds import legend
    assert re.search(r"^```\{value-kinds\}\n:glossary:\n```$", glossary, re.M)
    assert {"measured", "computed", "public reference", "our threshold", "pending"} <= {e.term for e in legend()}


def glossary_terms() -> dict[str, str]:
    """R.6's terms (a line at the left margin inside a glossary fence), lowercased to as written."""
    glossary = (ROOT / "sections" / "r-6-glossary.md").read_text(encoding="utf-8")
    terms = {}
    for block in re.findall(r"^```\{glossary\}\n(.*?)^```", glossary, re.M | re.S):
        terms.update({line.lower(): line for line in block.splitlines() if line and not line[0].isspace()})
    return terms


def test_the_glossary_defines_the_algorithm_and_the_theory_issue_47_names() -> None:
    terms = glossary_terms()
    for term in ("GRPO", "policy gradient", "REINFORCE", "PPO", "reward model", "RLHF"):
        assert term.lower() in terms, term


def test_each_theory_line_of_the_front_page_names_a_glossary_term() -> None:
    """The lines under "Theory to know first" (manual.json's related lessons) each link at least one R.6 term."""
    from miles101.sphinx_ext.front import lesson_title
    from miles101.sphinx_ext.theory import TOPIC_SEPARATORS, glossary_term

    terms = glossary_terms()
    for path in json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))["related"]:
        topics = TOPIC_SEPARATORS.split(lesson_title(path.strip("/").split("/")[-1]))[::2]
        assert any(glossary_term(t, terms) for t in topics if t), (path, topics)
