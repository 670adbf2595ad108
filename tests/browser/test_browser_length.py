"""1.1 is short enough to use under stress (issue 45 item 8): its article, as a phone shows it with
every fold closed and the provenance tips left out, holds at most MAX_WORDS words, code blocks
included; each checklist step's command and success line sit outside every fold; and a link to an anchor inside a closed fold opens
the fold and shows the anchor."""
from __future__ import annotations

from typing import Any

from .browser_support import Server

PAGE = "sections/1-1-run-grpo-on-one-gpu.html"
MAX_WORDS = 3000

#: The article's words at this width: every <details> closed, every provenance tip removed.
JS_WORDS = """() => {
  const article = document.querySelector('article') || document.querySelector('[role=main]');
  if (!article) return null;
  article.querySelectorAll('details').forEach(d => { d.open = false; });
  article.querySelectorAll('.m101-tip, [role=tooltip]').forEach(t => t.remove());
  const words = article.innerText.split(/\\s+/).filter(Boolean);
  return {words: words.length, folds: article.querySelectorAll('details').length};
}"""

#: Each checklist step's first command block and its success line, where either is folded (issue 57 item 3:
#: the command and the success line stay open; the samples and "If it fails" lines fold).
JS_FOLDED_STEPS = """() => {
  const sec = document.getElementById('first-run-checklist');
  const steps = sec ? [...sec.querySelectorAll(':scope > section')].filter(s => /^Step \\d+:/.test(
    (s.querySelector(':scope > h3') || {innerText: ''}).innerText)) : [];
  if (!steps.length) return null;
  const inFold = el => !el || !!el.closest('details');
  return steps.flatMap(s => {
    const command = s.querySelector('div[class*="highlight-"]:not(.highlight-text)');
    const success = [...s.querySelectorAll('p')].find(p => /^Success:/.test(p.textContent.trim()));
    return [command, success].filter(inFold).map(() => s.querySelector('h3').innerText.trim());
  });
}"""


def test_1_1_fits_the_word_budget_at_phone_width(tabs: dict[str, Any], server: Server) -> None:
    tab = tabs["phone"]
    tab.page.goto(server.base + PAGE, wait_until="load")
    got = tab.page.evaluate(JS_WORDS)
    assert got is not None, f"{PAGE} has no <article>"
    assert got["folds"] > 0, "1.1 folds nothing: its explanations should sit in <details>"
    assert got["words"] <= MAX_WORDS, f"{PAGE}: {got['words']} words with every fold closed (at most {MAX_WORDS})"


def test_the_checklist_is_outside_every_fold(tabs: dict[str, Any], server: Server) -> None:
    tab = tabs["phone"]
    tab.page.goto(server.base + PAGE, wait_until="load")
    folded = tab.page.evaluate(JS_FOLDED_STEPS)
    assert folded is not None, "1.1 has no numbered checklist under 'Do this, in order'"
    assert not folded, f"checklist steps with a folded command or success line: {sorted(set(folded))}"


def test_a_link_into_a_closed_fold_opens_it(tabs: dict[str, Any], server: Server) -> None:
    """A flag's anchor inside a folded explanation (other pages link to it) is shown on arrival."""
    tab = tabs["phone"]
    tab.page.goto(server.base + PAGE, wait_until="load")
    anchor = tab.page.evaluate("""() => {
      const el = [...document.querySelectorAll('article details [id]')].find(e => e.id.startsWith('flag-'))
        || document.querySelector('article details [id]');
      return el ? el.id : null;
    }""")
    assert anchor, "no anchor inside a fold on 1.1"
    tab.page.goto("about:blank")
    tab.page.goto(server.base + PAGE + "#" + anchor, wait_until="load")  # as a link from another page
    tab.page.wait_for_timeout(500)
    state = tab.page.evaluate("""(id) => {
      const el = document.getElementById(id);
      const r = el.getBoundingClientRect();
      const closed = [];
      for (let d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details'))
        if (!d.open) closed.push(d.querySelector('summary') ? d.querySelector('summary').innerText : '?');
      return {closed, top: r.top, bottom: r.bottom, height: window.innerHeight, shown: el.getClientRects().length > 0};
    }""", anchor)
    assert not state["closed"], (anchor, state)
    assert state["shown"] and state["bottom"] > 0 and state["top"] < state["height"], (anchor, state)
