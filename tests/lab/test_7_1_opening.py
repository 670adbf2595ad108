"""7.1's entries open with the first cause's check and fix, in at most 80 words; further causes follow.

capture/lab/symptoms.py checks the page (`check_page`): the paragraphs run symptom, check, fix, cause,
source, and the Check and Fix prose (code blocks left out) of each entry is counted. These tests hold
that count and show that the check catches an entry that opens too long or in the old order.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from capture.lab import symptoms

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def page() -> str:
    return (ROOT / symptoms.load()["page"]).read_text(encoding="utf-8")


def test_every_entry_opens_with_check_and_fix_within_the_limit():
    entries = symptoms.page_entries(page())
    counts = {k: symptoms.opening_words(e["body"]) for k, e in entries.items() if k not in symptoms.OPENING_PENDING}
    assert len(counts) >= 50
    over = {k: n for k, n in counts.items() if n > symptoms.OPENING_WORDS}
    assert not over, over
    for k, e in entries.items():
        if k in symptoms.OPENING_PENDING:
            continue
        b = e["body"]
        assert b.find("**Symptom.**") < b.find("**Check.**") < b.find("**Fix.**") < b.find("**Cause.**") < b.find("**Source.**"), k
    assert symptoms.check_page(page(), symptoms.load()) == []


def test_words_are_counted_without_code():
    body = ("**Symptom.** `x`\n\n**Check.** Read the log.\n\n```bash\ngrep -n a b c d e f\n```\n\n"
            "**Fix.** Set the flag.\n\n**Cause.** Many many words here.\n\n**Source.** A thread.\n")
    assert symptoms.opening_words(body) == 8  # "**Check.** Read the log." 4 + "**Fix.** Set the flag." 4


def test_a_long_opening_or_the_old_order_is_refused():
    data = symptoms.load()
    text = page()
    long = text.replace("**Fix.** Set {flag}`--save` to a host-mounted path",
                        "**Fix.** Set {flag}`--save` to a host-mounted path" + " word" * 90, 1)
    assert long != text
    assert any("ckpt-save-required" in e and "words" in e for e in symptoms.check_page(long, data))
    entry = symptoms.page_entries(text)["ckpt-save-required"]["body"]
    check = entry[entry.index("**Check.**"): entry.index("**Cause.**")]
    cause = entry[entry.index("**Cause.**"): entry.index("**Source.**")]
    old = text.replace(entry, entry.replace(check + cause, cause + check), 1)
    assert old != text
    assert any("ckpt-save-required" in e and "out of order" in e for e in symptoms.check_page(old, data))


def test_pending_entries_say_why_and_exist():
    entries = symptoms.page_entries(page())
    for k, why in symptoms.OPENING_PENDING.items():
        assert k in entries and len(why.split()) >= 5, k
