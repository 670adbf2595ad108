"""1.1's checklist held on a phone (issue 57 item 3): at 390 × 844 px with every fold closed, the nine
steps hold at most MAX_WORDS words of visible text and at most MAX_SCREENS screens; each step has an
anchor and an entry in the page menu, and opens with its command and its success line, both outside
any fold, with the rest of the step folded; step 2's verdict guide folds under a short summary; and the
first screen says that step 5 tells whether the image runs on the GB10, and links where to go if not."""
from __future__ import annotations

from typing import Any

from .browser_support import Server

PAGE = "sections/1-1-run-grpo-on-one-gpu.html"
MAX_WORDS = 1200
MAX_SCREENS = 6
PHONE_HEIGHT = 844  # tests/browser/conftest.py MODES["phone"]

#: The checklist's steps as a phone shows them, every fold closed and every provenance tip left out: per
#: step its anchor, whether the page menu links it, the order of its command, its success line and its
#: first fold, and its visible words; the steps' height from the top of the first to the bottom of the last.
JS_STEPS = """() => {
  const article = document.querySelector('article');
  const sec = document.getElementById('first-run-checklist');
  if (!article || !sec) return null;
  article.querySelectorAll('details').forEach(d => { d.open = false; });
  article.querySelectorAll('.m101-tip, [role=tooltip]').forEach(t => t.remove());
  const steps = [...sec.querySelectorAll(':scope > section')].filter(s => /^Step \\d+:/.test(
    (s.querySelector(':scope > h3') || {innerText: ''}).innerText));
  if (!steps.length) return null;
  const menu = new Set([...document.querySelectorAll('.toc-tree a[href^="#"]')].map(a => a.getAttribute('href').slice(1)));
  const visible = el => el.getClientRects().length > 0 && !el.closest('details:not([open]) > :not(summary)');
  const words = el => el.innerText.split(/\\s+/).filter(Boolean).length;
  const rows = steps.map(s => {
    const kids = [...s.children].filter(k => k.tagName !== 'H3' && k.tagName !== 'SPAN');
    const at = test => kids.findIndex(test);
    // a command: a code block other than a text sample, or a paragraph of downloads (step 2's tools)
    const command = at(k => (k.matches('div[class*="highlight-"]') && !k.matches('.highlight-text'))
                              || (k.tagName === 'P' && !!k.querySelector('a.download, a[href*="_downloads/"]')));
    const success = at(k => k.tagName === 'P' && /^Success:/.test(k.innerText.trim()));
    const fold = at(k => k.matches('details') || !!k.querySelector('details'));
    return {
      id: s.id, title: s.querySelector('h3').innerText.replace(/\\s*#\\s*$/, '').trim(), inMenu: menu.has(s.id),
      command, success, fold, commandShown: command >= 0 && visible(kids[command]),
      successShown: success >= 0 && visible(kids[success]), words: words(s),
      summary: success >= 0 ? kids[success].getBoundingClientRect().height : 0,
      lineHeight: success >= 0 ? parseFloat(getComputedStyle(kids[success]).lineHeight) : 0,
    };
  });
  const top = steps[0].getBoundingClientRect().top, bottom = steps[steps.length - 1].getBoundingClientRect().bottom;
  return {rows, words: rows.reduce((n, r) => n + r.words, 0), height: bottom - top};
}"""


def _steps(tabs: dict[str, Any], server: Server) -> dict[str, Any]:
    tab = tabs["phone"]
    tab.page.goto(server.base + PAGE, wait_until="load")
    got = tab.page.evaluate(JS_STEPS)
    assert got, f"{PAGE}: no 'Step N:' headings under 'Do this, in order'"
    return got


def test_the_nine_steps_fit_a_phone(tabs: dict[str, Any], server: Server) -> None:
    got = _steps(tabs, server)
    screens = got["height"] / PHONE_HEIGHT
    print(f"1.1 checklist at 390 x 844, folds closed: {got['words']} words, {screens:.2f} screens")
    assert len(got["rows"]) == 9
    assert got["words"] <= MAX_WORDS, f"{got['words']} visible words in the nine steps (at most {MAX_WORDS})"
    assert screens <= MAX_SCREENS, f"the nine steps are {screens:.2f} screens tall (at most {MAX_SCREENS})"


def test_each_step_is_anchored_in_the_menu_and_opens_with_its_command_and_success(
        tabs: dict[str, Any], server: Server) -> None:
    problems = []
    for r in _steps(tabs, server)["rows"]:
        checks = (("an anchor of its own", r["id"].startswith("first-run-")), ("an entry in the page menu", r["inMenu"]),
                  ("its command first, shown", r["command"] == 0 and r["commandShown"]),
                  ("a shown success line after its commands", r["successShown"] and r["success"] > r["command"]),
                  ("the rest in a fold after the success line", r["fold"] > r["success"]))
        problems += [f"{r['title']}: no {what}" for what, ok in checks if not ok]
    assert not problems, problems


def test_step_2s_verdicts_fold_under_a_short_summary(tabs: dict[str, Any], server: Server) -> None:
    """The summary names every exit status; the guide itself (each verdict's fix) sits in the fold."""
    tab = tabs["phone"]
    got = _steps(tabs, server)
    step2 = next(r for r in got["rows"] if r["id"] == "first-run-tools")
    text = tab.page.evaluate("""() => {
      const s = document.getElementById('first-run-tools');
      const p = [...s.children].find(k => k.tagName === 'P' && /^Success:/.test(k.innerText.trim()));
      const d = s.querySelector('details');
      return {summary: p.innerText, folded: d ? d.textContent : ''};
    }""")
    assert all(f"`{c}`" in text["summary"] or c in text["summary"] for c in "01234"), text["summary"]
    assert "verdict: differs where pages look" in text["folded"] and "probably renamed" in text["folded"]
    lines = step2["summary"] / step2["lineHeight"]
    assert lines <= 5, f"step 2's summary is {lines:.1f} lines at 390 px"  # two sentences, wrapped on a phone


def test_the_first_screen_says_where_the_gb10_verdict_is(tabs: dict[str, Any], server: Server) -> None:
    tab = tabs["phone"]
    tab.page.goto(server.base + PAGE, wait_until="load")
    line = tab.page.evaluate("""() => {
      const p = [...document.querySelectorAll('article p')].find(p =>
        p.querySelector('a[href="#first-run-preflight"]') && p.querySelector('a[href*="6-4-pick-an-image.html#"]'));
      if (!p) return null;
      const r = p.getBoundingClientRect();
      return {text: p.innerText, bottom: r.bottom + window.scrollY, folded: !!p.closest('details')};
    }""")
    assert line, "no paragraph links step 5 and 6.4's GB10 build"
    assert "GB10" in line["text"] and not line["folded"]
    assert line["bottom"] <= PHONE_HEIGHT, f"the GB10 line ends at {line['bottom']:.0f} px, below the first screen"
