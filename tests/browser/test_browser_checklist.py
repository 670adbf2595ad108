"""Part 1's checklist as a reader meets it (issue 36): on 1.1 each numbered step shows a command
block and its success line, and holds a sample of success and its time (in its fold or out of it); the tools it links download, and the preflight that comes
down is the very module the lab imports."""
from __future__ import annotations

import hashlib
import io
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from .browser_support import Server, Site

PAGE = "sections/1-1-run-grpo-on-one-gpu.html"
ROOT = Path(__file__).resolve().parents[2]

#: Per step of the checklist (a section headed "Step N: …"): its title, whether it holds a command block, a
#: sample block, a success line shown, a time (a value of the book's data, or the words of a time that
#: depends on the reader; in the step's fold or out of it), and its links.
JS_STEPS = """() => {
  const sec = document.getElementById('first-run-checklist');
  const steps = sec ? [...sec.querySelectorAll(':scope > section')].filter(s => /^Step \\d+:/.test(
    (s.querySelector(':scope > h3') || {innerText: ''}).innerText)) : [];
  if (!steps.length) return null;
  return steps.map(li => {
    const text = li.textContent;
    const blocks = [...li.querySelectorAll('div.highlight')];
    return {
      title: li.querySelector('h3').innerText.trim(),
      commands: blocks.filter(b => !b.closest('.highlight-text')).length,
      samples: li.querySelectorAll('.highlight-text').length,
      success: /Success/.test(li.innerText),
      time: /\\b(Time|Size)\\b/.test(text),
      timed: li.querySelectorAll('.m101-value').length > 0 || /seconds|minutes|connection/.test(text),
      shown: li.getClientRects().length > 0,
      downloads: [...li.querySelectorAll('a.download, a[href*="_downloads/"]')].map(a => a.getAttribute('href')),
    };
  });
}"""


def test_each_checklist_step_shows_a_command_a_sample_and_its_time(page: Any, server: Server, site: Site) -> None:
    page.goto(server.base + PAGE, wait_until="load")
    steps = page.evaluate(JS_STEPS)
    assert steps, "1.1 has no numbered checklist under 'Do this, in order'"
    assert len(steps) >= 9
    problems = [f"{s['title']}: {what}" for s in steps for what, ok in (
        ("no command block", s["commands"] > 0), ("no 'Success'", s["success"]), ("no time or size", s["time"] and s["timed"]),
        ("hidden", s["shown"])) if not ok]
    assert not problems, problems
    assert sum(s["samples"] for s in steps) >= 5  # preflight, smoke end, watchdog, step line, read_run (at least)


def test_the_checklist_downloads_are_the_modules_the_lab_imports(page: Any, server: Server) -> None:
    page.goto(server.base + PAGE, wait_until="load")
    hrefs = {h for s in page.evaluate(JS_STEPS) for h in s["downloads"]}
    names = {h.rsplit("/", 1)[-1]: h for h in hrefs}
    archive = "miles101-tools.pyz"
    assert archive in names or {"preflight.py", "watchdog.py", "read_run.py"} <= set(names), sorted(names)
    for name, href in names.items():
        url = urllib.parse.urljoin(server.base + PAGE, href)
        with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 (the local test server)
            served = resp.read()
        # the tools' archive carries each module byte for byte; a loose download is the module itself
        files = ({n: zipfile.ZipFile(io.BytesIO(served)).read(n) for n in ("preflight.py", "watchdog.py", "read_run.py",
                                                                            "miles_tree.py")}
                 if name == archive else {name: served})
        for member, data in files.items():
            module = (ROOT / "_ext" / "miles101" / "tools" / member).read_bytes()
            assert hashlib.sha256(data).digest() == hashlib.sha256(module).digest(), f"{member} differs from the module"
