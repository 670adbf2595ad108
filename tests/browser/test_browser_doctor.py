"""The log doctor on 7.1 and 1.3 in a real Chromium: the same entries as `read_run.py --diagnose`.

Each public fixture log is pasted and the page's entries (id, line) are compared with read_run.py's;
a run log gives the first-ten-steps table and read_run's verdicts; a log without a symptom says so;
a UTF-16 file with a byte-order mark and CRLF line ends reads as its UTF-8 twin; a binary file is
reported unreadable; a 100 MB file is read in a worker with a progress bar while the page keeps
drawing frames; keyboard only, phone width, dark mode, no request beyond the local server.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from .browser_support import (
    ARTIFACTS, ROOT, Server, frame_stats, is_local, note_screenshot, open_watched, watch_frames, write_big_log,
)

from miles101.tools import read_run as rr

PAGES = ["sections/7-1-troubleshoot-by-symptom.html", "sections/1-3-read-your-first-ten-steps.html"]
PUBLIC = ROOT / "tests" / "fixtures" / "public-logs"


def python_answer(text: str, args: str | None = None) -> dict[str, Any]:
    lines = text.splitlines()
    _, _, report = rr.report_of(lines, 10, rr.groups_in_log(lines))
    settings = rr.settings_of_args(args, "pasted") if args else rr.settings_in_log(lines)
    return {"matches": rr.diagnose(lines, report, settings), "report": report, "settings": settings}


def run_log(steps: int = 12) -> str:
    out = []
    for s in range(steps):
        out += [f"(RolloutManager pid=1) [t] metrics.py:89 - perf {s}: {{'perf/rollout_time': 12.5, "
                f"'rollout/response_len/mean': {300.0 + s}, 'rollout/truncated_ratio': 0.01, "
                f"'rollout/zero_std/count_0.0': 8, "
                f"'rollout/zero_std/all_zero_percentage': 0.95, 'rollout/zero_std/all_one_percentage': 0.0}}",
                f"[t] log_utils.py:123 - rollout {s}: {{'rollout/raw_reward': {0.2 + s / 50}}}",
                f"[t] log_utils.py:542 - step {s}: {{'train/step': {s}, 'train/pg_clipfrac': 0.01, "
                f"'train/grad_norm': 0.3, 'train/train_rollout_logprob_abs_diff': 0.01}}",
                f"[t] train_metric_utils.py:56 - perf {s}: {{'perf/step_time': {40.0 + s % 3}}}"]
    return "\n".join(out) + "\n"


def _open(tab: Any, server: Server, page_path: str = PAGES[0]) -> Any:
    return open_watched(tab.page, server.base + page_path, ".m101-doctor.m101-doctor-js", reach=".m101-doctor")


def _paste(page: Any, text: str) -> dict[str, Any]:
    doctor = page.locator(".m101-doctor").first
    doctor.locator("textarea").first.fill(text)
    page.evaluate("() => { document.querySelector('.m101-doctor-status').textContent = ''; }")
    doctor.get_by_role("button", name="Read the pasted log").click()
    return _result(page)


def _result(page: Any, timeout: int = 20000) -> dict[str, Any]:
    page.wait_for_function("() => /^(Done|Could not)/.test(document.querySelector('.m101-doctor-status').textContent)",
                           timeout=timeout)
    return page.evaluate("""() => {
      const d = document.querySelector('.m101-doctor');
      return {
        status: d.querySelector('.m101-doctor-status').textContent,
        matches: [...d.querySelectorAll('.m101-doctor-match')].map(li => ({id: li.dataset.id,
          line: li.dataset.line === '' ? null : Number(li.dataset.line),
          href: li.querySelector('a.m101-doctor-entry').getAttribute('href'),
          check: li.querySelector('.m101-doctor-check').textContent})),
        none: !!d.querySelector('.m101-doctor-none'),
        noneText: (d.querySelector('.m101-doctor-none') || {}).textContent,
        why: [...d.querySelectorAll('.m101-doctor-why')].map(p => p.textContent),
        causes: [...d.querySelectorAll('.m101-doctor-match')].map(li =>
          [...li.querySelectorAll('.m101-doctor-cause')].map(c => c.textContent)),
        settings: (d.querySelector('.m101-doctor-settings') || {}).textContent,
        rows: [...d.querySelectorAll('.m101-doctor-steps tbody tr')].map(tr => tr.querySelector('th').textContent),
        verdicts: Object.fromEntries([...d.querySelectorAll('.m101-doctor-verdicts tbody tr')].map(
          tr => [tr.querySelector('th').textContent, tr.dataset.verdict])),
        problems: [...d.querySelectorAll('.m101-doctor-problems li')].map(li => li.textContent),
        summary: (d.querySelector('.m101-doctor-summary') || {}).textContent,
      };
    }""")


@pytest.mark.parametrize("name", sorted(p.name for p in PUBLIC.glob("*.log")))
def test_public_logs_give_read_runs_entries(tabs: dict[str, Any], server: Server, name: str) -> None:
    text = (PUBLIC / name).read_text(encoding="utf-8", errors="replace")
    page = _open(tabs["light"], server)
    got, want = _paste(page, text), python_answer(text)
    assert [(m["id"], m["line"]) for m in got["matches"]] == [(m["id"], m["line"]) for m in want["matches"]]
    for m, w in zip(got["matches"], want["matches"]):
        page_part, _, anchor = m["href"].partition("#")
        assert page_part in ("", "7-1-troubleshoot-by-symptom.html") and anchor == w["id"], m["href"]
        assert m["check"] == w["check"]
    assert got["none"] == (want["matches"] == [])
    assert len(got["rows"]) == (len(want["report"]["steps"]) if want["report"] else 0)
    assert page.errors == []


def test_entry_links_reach_their_anchors(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    got = _paste(page, (PUBLIC / "slime-1542-403-forbidden.log").read_text(encoding="utf-8"))
    for m in got["matches"]:
        assert page.locator(f"[id='{m['id']}']").count() >= 1, m["id"]
    page.locator("a.m101-doctor-entry").first.click()
    page.wait_for_function("() => location.hash.length > 1")
    assert page.evaluate("() => location.hash") == f"#{got['matches'][0]['id']}"


def test_run_log_gives_the_first_ten_steps(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server, PAGES[1])
    text = run_log()
    got, want = _paste(page, text), python_answer(text)
    assert got["rows"] == [str(t["step"]) for t in want["report"]["steps"]] and len(got["rows"]) == 10
    heads = {name: head for name, head, *_ in rr.SIGNALS}
    assert got["verdicts"] == {heads[k]: v["verdict"] for k, v in want["report"]["verdicts"].items()}
    assert got["verdicts"]["zero-std"] == "bad"
    assert [m["id"] for m in got["matches"]] == [m["id"] for m in want["matches"]] == ["reward-zero-std"]


def test_a_log_without_symptom_says_so(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    got = _paste(page, "hello\nthe run started\nnothing wrong here\n")
    assert got["none"] and got["matches"] == [] and got["rows"] == []
    assert "no line matches" in got["status"]
    assert got["noneText"] == rr.NO_MATCH and "first error line, not its last" in got["noneText"]


def test_a_warning_healthy_runs_print_is_a_note(tabs: dict[str, Any], server: Server) -> None:
    """PyTorch's GB10 capability warning alone (realistic, from its format): no entry is named, the line is shown as
    a note with its entry linked, and the page's words and notes equal read_run.py's."""
    text = ("/usr/lib/python3/dist-packages/torch/cuda/__init__.py:287: UserWarning:\n"
            "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
            "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
            "    (8.0) - (12.0)\n"
            "(MilesRouter pid=1) the run goes on\n")
    lines = text.splitlines()
    _, _, report = rr.report_of(lines, 10, rr.groups_in_log(lines))
    matches, notes = rr.examine(lines, report, rr.settings_in_log(lines))
    assert matches == [] and [n["id"] for n in notes] == ["gb10-capability-warning"]
    page = _open(tabs["light"], server)
    got = _paste(page, text)
    assert got["matches"] == [] and got["noneText"] == rr.NOTES_ONLY
    shown = page.evaluate("""() => [...document.querySelectorAll('.m101-doctor-note')].map(li => ({id: li.dataset.id,
      line: Number(li.dataset.line), href: li.querySelector('a').getAttribute('href'), text: li.textContent}))""")
    assert [(n["id"], n["line"]) for n in shown] == [(n["id"], n["line"]) for n in notes]
    assert shown[0]["href"].endswith("#gb10-capability-warning")
    assert "Seen, not a cause on its own: " + notes[0]["note"] in shown[0]["text"]
    assert page.errors == []


def test_ranked_entries_causes_and_pasted_arguments(tabs: dict[str, Any], server: Server) -> None:
    """THUDM/slime#1767: the trainer entry first with why; pasted FSDP arguments pick the fixes."""
    text = (PUBLIC / "slime-1767-train-oom.log").read_text(encoding="utf-8")
    args = "python3 train.py --train-backend fsdp --colocate --rollout-batch-size 8"
    page = _open(tabs["light"], server)
    page.locator(".m101-doctor-args").fill(args)
    got, want = _paste(page, text), python_answer(text, args)
    assert [m["id"] for m in got["matches"]] == [m["id"] for m in want["matches"]] == ["mem-oom-trainer"]
    also = page.locator(".m101-doctor-match").first.get_by_text("Also matched on this line:")
    assert also.count() == len(want["matches"][0]["also_matched"]) >= 2  # the one OOM line is one entry
    first = got["causes"][0]
    assert len(first) == 3 and "61.34 GiB" in first[0] and "Set --use-dynamic-batch-size" in first[0]
    assert "With --use-dynamic-batch-size" not in first[0]  # the pasted run has none: that fix is left out
    assert got["settings"] == rr.settings_note(want["settings"]) and "from the pasted arguments" in got["settings"]
    assert page.errors == []


def test_pasted_arguments_read_as_a_shell_reads_them(tabs: dict[str, Any], server: Server) -> None:
    """A run file with a base: the page reads no file, so the backend is unknown in words and the fixes that need it
    say so; text with no flag outside comments is refused, as read_run.py --run refuses it."""
    text = (PUBLIC / "slime-1767-train-oom.log").read_text(encoding="utf-8")
    run_file = (ROOT / "capture" / "runs" / "recipe-gsm8k.yaml").read_text(encoding="utf-8")
    page = _open(tabs["light"], server)
    page.locator(".m101-doctor-args").fill(run_file)
    got, want = _paste(page, text), python_answer(text, run_file)
    assert got["settings"] == rr.settings_note(want["settings"])
    assert "--train-backend unknown (from base: first-grpo, not read)" in got["settings"]
    assert [m["id"] for m in got["matches"]] == [m["id"] for m in want["matches"]]
    assert any("On FSDP (--train-backend fsdp): " in c for c in got["causes"][0]), got["causes"][0]
    page.locator(".m101-doctor-args").fill("# --train-backend fsdp\necho hi  # --use-dynamic-batch-size\n")
    doctor = page.locator(".m101-doctor").first
    doctor.locator("textarea").first.fill(text)
    doctor.get_by_role("button", name="Read the pasted log").click()
    page.wait_for_function("() => /pass no argument/.test(document.querySelector('.m101-doctor-status').textContent)",
                           timeout=10000)
    assert "no --flag in them, outside comments" in page.locator(".m101-doctor-status").first.text_content()
    assert page.errors == []


def test_a_tie_is_said_as_a_tie(tabs: dict[str, Any], server: Server) -> None:
    """One OOM line and nothing around it (synthetic): the page says the log cannot tell the entries apart and shows
    each one's check, as read_run.py does."""
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "79.11 GiB of which 1.50 GiB is free. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 6.54 GiB "
            "is reserved by PyTorch but unallocated.\n")
    page = _open(tabs["light"], server)
    got, want = _paste(page, text), python_answer(text)
    assert [m["id"] for m in got["matches"]] == [m["id"] for m in want["matches"]]
    tied = [want["matches"][0], *want["matches"][0]["undecided"]]
    assert len(tied) == 3 and got["why"][0].startswith("The log cannot tell these apart: ")
    shown = page.locator(".m101-doctor-match .m101-doctor-why .m101-doctor-check").all_text_contents()
    assert shown == [t["check"] for t in tied]
    assert "comes first in the log" not in " ".join(got["why"]) and page.errors == []


def test_utf16_bom_crlf_reads_as_its_utf8_twin(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    text = (PUBLIC / "slime-1951-logprob-oom.log").read_text(encoding="utf-8") + run_log(3)
    utf8, utf16 = tmp_path / "twin-utf8.log", tmp_path / "twin-utf16.log"
    utf8.write_bytes(text.encode("utf-8"))
    utf16.write_bytes(b"\xff\xfe" + text.replace("\n", "\r\n").encode("utf-16-le"))
    page = _open(tabs["light"], server)
    answers = []
    for f in (utf8, utf16):
        page.evaluate("() => { document.querySelector('.m101-doctor-status').textContent = ''; }")
        page.locator(".m101-doctor-file").set_input_files(str(f))
        answers.append(_result(page))
    assert answers[0]["matches"] == answers[1]["matches"] != []
    assert answers[0]["rows"] == answers[1]["rows"] != []
    assert answers[1]["problems"] == []


def test_binary_file_is_reported_unreadable(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    f = tmp_path / "core.bin"
    f.write_bytes(bytes(range(256)) * 64)
    page = _open(tabs["light"], server)
    page.locator(".m101-doctor-file").set_input_files(str(f))
    got = _result(page)
    assert any("Could not read it" in p and "tried UTF-8" in p for p in got["problems"]), got["problems"]
    assert got["matches"] == [] and got["rows"] == []


def test_a_stray_byte_is_replaced_and_said(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    """As read_run.decode_log: a few undecodable bytes are replaced, many are refused with what was tried."""
    f = tmp_path / "stray.log"
    f.write_bytes(b"ok line\n" + "caf\u00e9 Server process terminated unexpectedly.\n".encode("latin-1"))
    page = _open(tabs["light"], server)
    page.locator(".m101-doctor-file").set_input_files(str(f))
    got = _result(page)
    assert [m["id"] for m in got["matches"]] == ["engine-terminated"]
    assert any("1 undecodable byte(s)" in p for p in got["problems"]), got["problems"]
    f = tmp_path / "latin1.log"
    f.write_bytes(("caf\u00e9 " * 50 + "\n").encode("latin-1") * 40)
    page.evaluate("() => { document.querySelector('.m101-doctor-status').textContent = ''; }")
    page.locator(".m101-doctor-file").set_input_files(str(f))
    got = _result(page)
    assert any("tried UTF-8 (2000 undecodable byte(s))" in p for p in got["problems"]), got["problems"]


def test_big_file_in_a_worker_with_progress(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    """A 100 MB log: the worker reads it in chunks; the page keeps drawing and the bar moves."""
    block = run_log(50) + "".join(f"[t] filler line {i} with some text to make it long enough\n" for i in range(2000))
    f = write_big_log(tmp_path / "big.log", block,
                      tail="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    page = _open(tabs["light"], server)
    watch_frames(page, ".m101-doctor progress", ".m101-doctor-status")
    page.locator(".m101-doctor-file").set_input_files(str(f))
    got = _result(page, timeout=240000)
    stats = frame_stats(page)
    assert stats["progress"] >= 5, stats
    assert stats["max"] < 1000, stats  # never a second without a frame
    assert {"mem-oom-mid-run", "mem-torch-oom-switch"} & {m["id"] for m in got["matches"]}
    assert len(got["rows"]) == 10
    assert page.errors == []


def test_keyboard_only(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    area = page.locator(".m101-doctor textarea").first
    area.focus()
    page.keyboard.insert_text("Server process terminated unexpectedly.\n")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Read the pasted log"
    page.evaluate("() => { document.querySelector('.m101-doctor-status').textContent = ''; }")
    page.keyboard.press("Enter")
    got = _result(page)
    assert [m["id"] for m in got["matches"]] == ["engine-terminated"]
    for control in page.locator(".m101-doctor textarea, .m101-doctor input").all():
        assert page.locator(f'label[for="{control.get_attribute("id")}"]').count() == 1
    assert page.locator(".m101-doctor-status").get_attribute("role") == "status"


def test_phone_width(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["phone"], server)
    _paste(page, (PUBLIC / "slime-1951-logprob-oom.log").read_text(encoding="utf-8") + run_log(10))
    widths = page.evaluate("""() => ({page: document.scrollingElement.scrollWidth, view: document.scrollingElement.clientWidth,
      over: [...document.querySelectorAll('.m101-doctor *')].filter(e => !e.closest('.m101-doctor-scroll')
        && e.getBoundingClientRect().right > document.scrollingElement.clientWidth + 1).map(e => e.className).slice(0, 5)})""")
    assert widths["page"] <= widths["view"] + 1, widths
    assert widths["over"] == [], widths
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "log-doctor-phone.png"
    page.locator(".m101-doctor-h").first.scroll_into_view_if_needed()
    page.screenshot(path=str(shot))
    note_screenshot(shot)


def test_dark_mode_uses_the_dark_palette(tabs: dict[str, Any], server: Server) -> None:
    from miles101.palette import HUES

    page = _open(tabs["dark"], server, PAGES[1])
    _paste(page, run_log())
    colour = page.evaluate("""() => getComputedStyle(document.querySelector(
      '.m101-doctor-verdicts tr[data-verdict="bad"] .m101-doctor-verdict')).borderLeftColor""")
    ink = HUES["rose"].dark_ink
    assert colour == "rgb({}, {}, {})".format(*(int(ink[i:i + 2], 16) for i in (1, 3, 5))), colour
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "log-doctor-dark.png"
    page.locator(".m101-doctor").first.screenshot(path=str(shot))
    note_screenshot(shot)


def test_no_network_and_rules_are_the_readers(tabs: dict[str, Any], server: Server, site: Any) -> None:
    from miles101.doctor_rules import rules

    page = _open(tabs["light"], server)
    _paste(page, "Server process terminated unexpectedly.")
    assert [u for u in page.requests if not is_local(u)] == []
    built = json.loads((site.outdir / "_static" / "m101-doctor-rules.json").read_text(encoding="utf-8"))
    assert built == json.loads(json.dumps(rules(ROOT)))
    with_doctor = sorted(p for p in site.pages
                         if "m101-log-doctor-loader.js" in (site.outdir / p).read_text(encoding="utf-8"))
    assert with_doctor == sorted(PAGES)


def test_the_doctor_loads_when_the_reader_comes_to_it(tabs: dict[str, Any], server: Server) -> None:
    """The page loads none of the doctor's code or rules; scrolling to the doctor loads and mounts it."""
    page = tabs["light"].page
    fetched: list[str] = []

    def note(req: Any) -> None:
        fetched.append(req.url)

    page.on("request", note)
    page.goto(server.base + PAGES[0], wait_until="load")
    page.wait_for_timeout(300)
    early = [u for u in fetched if u.split("?")[0].endswith(".js") or "m101-doctor-rules" in u]
    doctor = [u.rsplit("/", 1)[-1].split("?")[0] for u in early if "doctor" in u]
    assert doctor == ["m101-log-doctor-loader.js"], early  # its stylesheet aside, only the loader
    assert not page.locator(".m101-doctor.m101-doctor-js").count()
    page.locator(".m101-doctor").first.scroll_into_view_if_needed()
    page.locator(".m101-doctor.m101-doctor-js").wait_for(timeout=10000)
    later = {u.rsplit("/", 1)[-1].split("?")[0] for u in fetched}
    page.remove_listener("request", note)
    assert {"m101-log-doctor.js", "m101-log-doctor-core.js", "m101-doctor-rules.json"} <= later, later


def test_javascript_off_says_what_to_run(chromium: Any, server: Server) -> None:
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server.base + PAGES[0], wait_until="load")
        assert page.locator(".m101-doctor-nojs").is_visible()
        assert "--diagnose" in page.locator(".m101-doctor-nojs").inner_text()
    finally:
        context.close()


@pytest.mark.parametrize("mode", ["light", "dark", "phone"])
def test_open_results_pass_axe(tabs: dict[str, Any], server: Server, mode: str) -> None:
    """The doctor with results open (entries, the steps table, a refused groups value) passes axe-core."""
    from .axe_support import FAILING, axe_source, run_axe

    source = axe_source()
    if source is None:
        pytest.skip("axe-core is not installed (npm ci)")
    page = _open(tabs[mode], server, PAGES[1])
    _paste(page, (PUBLIC / "slime-1951-logprob-oom.log").read_text(encoding="utf-8") + run_log(10))
    page.locator(".m101-doctor-groups").fill("0")
    page.get_by_role("button", name="Read the pasted log").click()
    assert page.locator(".m101-doctor-groups").get_attribute("aria-invalid") == "true"
    found = run_axe(page, source, f"{PAGES[1]} (log doctor open)", mode, include=".m101-doctor")
    bad = [v for v in found if v.impact in FAILING]
    assert not bad, "\n".join(v.line() for v in bad)


# ---------------------------------------------------------------- bad input (issue 51, item 4)
def _cannot_read(raw: bytes) -> bool:
    try:
        rr.decode_log(raw)
    except rr.LogUnreadable:
        return True
    return False


UNREADABLE = {
    "random.bin": random.Random(51).randbytes(8192),
    "odd-utf16-bom.log": b"\xff\xfe" + "Server process terminated unexpectedly.\r\n".encode("utf-16-le") + b"x",
    "odd-utf16be-bom.log": b"\xfe\xff" + "Server process terminated unexpectedly.\n".encode("utf-16-be") + b"\x00",
    "latin1.log": ("caf\u00e9 na\u00efve Server process terminated unexpectedly. \u00e0\u00e9\u00ee\n" * 200).encode("latin-1"),
}


@pytest.mark.parametrize("name", sorted(UNREADABLE))
def test_a_file_it_cannot_read_says_so(tabs: dict[str, Any], server: Server, tmp_path: Path, name: str) -> None:
    """As read_run.py's exit 2 "cannot read": the status and the first box say so, never 'no line matches'."""
    raw = UNREADABLE[name]
    assert _cannot_read(raw), name  # read_run.decode_log refuses each of them
    f = tmp_path / name
    f.write_bytes(raw)
    page = _open(tabs["light"], server)
    page.evaluate("() => { document.querySelector('.m101-doctor-status').textContent = ''; }")
    page.locator(".m101-doctor-file").set_input_files(str(f))
    got = _result(page)
    assert got["status"].startswith(f"Could not read {name}: "), got["status"]
    assert "no line matches" not in got["status"]
    first = page.evaluate("() => document.querySelector('.m101-doctor-out').firstElementChild.textContent")
    assert first.startswith(f"Could not read {name}") and "cannot read" in first, first
    assert got["matches"] == [] and got["rows"] == [] and not got["none"]
    assert page.errors == []


GAPS_JS = """() => {
  window.__gaps = []; window.__stop = false; let last = performance.now();
  const tick = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}"""
BIG_LOG_JS = """(n) => {
  const lines = [];
  for (let i = 0; i < n; i++) lines.push(`[t] ${String(i).padStart(7, "0")} ok.`);
  lines.push('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB');
  return navigator.clipboard.writeText(lines.join('\\n') + '\\n').then(() => lines.join('\\n').length + 1);
}"""


@pytest.fixture()
def clip(chromium: Any) -> Any:
    """A tab that may write the clipboard, so a real Ctrl+V pastes it."""
    context = chromium.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


def _gaps(page: Any) -> float:
    return page.evaluate("() => { window.__stop = true; return Math.max(...window.__gaps); }")


def test_ctrl_v_of_a_million_lines_keeps_the_page_drawing(clip: Any, server: Server) -> None:
    """16 MB on the clipboard: the box shows a preview, the worker reads it all, no frame gap reaches 1 s."""
    page = clip
    page.goto(server.base + PAGES[0], wait_until="load")
    page.locator(".m101-doctor").first.scroll_into_view_if_needed()
    page.locator(".m101-doctor.m101-doctor-js").wait_for(timeout=10000)
    size = page.evaluate(BIG_LOG_JS, 1_000_000)
    assert size >= 16_000_000
    area = page.locator(".m101-doctor textarea.m101-doctor-text").first
    area.focus()
    page.evaluate(GAPS_JS)
    page.keyboard.press("Control+V")
    got = _result(page, timeout=120000)
    gap = _gaps(page)
    print(f"longest frame gap during a Ctrl+V of 1,000,000 lines ({size:,} characters): {gap:.0f} ms")
    assert gap < 1000, gap
    assert got["status"].startswith("Done"), got["status"]
    assert "Read 1,000,001 lines of the pasted text" in got["summary"], got["summary"]
    assert {"mem-oom-mid-run", "mem-torch-oom-switch"} & {m["id"] for m in got["matches"]}
    value = area.input_value()
    assert len(value) < 70_000 and "999,801 more lines taken but not shown" in value, value[-200:]
    assert page.errors == []


def test_ctrl_v_into_the_arguments_box(clip: Any, server: Server) -> None:
    page = clip
    page.goto(server.base + PAGES[0], wait_until="load")
    page.locator(".m101-doctor").first.scroll_into_view_if_needed()
    page.locator(".m101-doctor.m101-doctor-js").wait_for(timeout=10000)
    page.evaluate(BIG_LOG_JS, 1_000_000)
    args = page.locator(".m101-doctor-args").first
    args.focus()
    page.evaluate(GAPS_JS)
    page.keyboard.press("Control+V")
    page.wait_for_function("() => /more lines taken/.test(document.querySelector('.m101-doctor-args').value)")
    page.wait_for_timeout(1500)
    gap = _gaps(page)
    print(f"longest frame gap during a Ctrl+V of 1,000,000 lines into the arguments box: {gap:.0f} ms")
    assert gap < 1000, gap
    assert len(args.input_value()) < 70_000
    assert page.errors == []


def _hold_rules(page: Any) -> list[Any]:
    held: list[Any] = []
    page.route("**/m101-doctor-rules*", lambda route: held.append(route))
    return held


@pytest.mark.parametrize("order", ["paste-before-rules", "focus-then-paste"])
def test_the_first_paste_works_before_the_code_is_in(clip: Any, server: Server, order: str) -> None:
    """The box takes a paste while the doctor's rules are still on their way, and reads it once they come."""
    page = clip
    held = _hold_rules(page) if order == "paste-before-rules" else []
    page.goto(server.base + PAGES[0], wait_until="load")
    assert not page.locator(".m101-doctor.m101-doctor-js").count()
    page.evaluate("() => navigator.clipboard.writeText('ok\\nServer process terminated unexpectedly.\\n')")
    page.locator(".m101-doctor").first.scroll_into_view_if_needed()
    area = page.locator(".m101-doctor textarea.m101-doctor-text").first
    area.wait_for(timeout=10000)
    area.click()  # focus: the doctor is loaded (or loading) before the paste lands
    page.keyboard.press("Control+V")
    if held:
        page.wait_for_timeout(300)
        assert page.locator(".m101-doctor-status").first.text_content().startswith("Reading the pasted text")
        for route in held:
            route.continue_()
        page.unroute("**/m101-doctor-rules*")
    got = _result(page)
    assert [m["id"] for m in got["matches"]] == ["engine-terminated"], got
    assert page.errors == []


def _slow_file(tmp_path: Path) -> Path:
    f = tmp_path / "slow.log"
    block = "".join(f"[t] filler line {i} with some text to make it long enough\n" for i in range(5000))
    with open(f, "w", encoding="utf-8") as fh:
        for _ in range(120):
            fh.write(block)
        fh.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    return f


def test_a_paste_during_a_reading_is_queued_in_words(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    page = _open(tabs["light"], server)
    page.locator(".m101-doctor-file").set_input_files(str(_slow_file(tmp_path)))
    page.wait_for_function("() => /^Reading slow.log/.test(document.querySelector('.m101-doctor-status').textContent)")
    page.evaluate("""() => {
      const dt = new DataTransfer(); dt.setData('text/plain', 'ok\\nServer process terminated unexpectedly.\\n');
      document.querySelector('.m101-doctor textarea').dispatchEvent(
        new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
    }""")
    page.wait_for_timeout(50)
    status = page.locator(".m101-doctor-status").first.text_content()
    assert "Queued: the pasted text" in status, status
    page.wait_for_function("() => /of the pasted text/.test((document.querySelector('.m101-doctor-summary') || {}).textContent)",
                           timeout=120000)
    got = _result(page)
    assert [m["id"] for m in got["matches"]] == ["engine-terminated"]


def test_clear_cancels_the_reading(tabs: dict[str, Any], server: Server, tmp_path: Path) -> None:
    page = _open(tabs["light"], server)
    page.locator(".m101-doctor-file").set_input_files(str(_slow_file(tmp_path)))
    page.wait_for_function("() => /^Reading slow.log/.test(document.querySelector('.m101-doctor-status').textContent)")
    page.get_by_role("button", name="Clear").first.click()
    status = page.locator(".m101-doctor-status").first
    assert status.text_content() == "Cleared: the reading of slow.log was stopped."
    page.wait_for_timeout(15000)  # longer than the reading takes: its results never come back
    assert status.text_content() == "Cleared: the reading of slow.log was stopped."
    assert page.locator(".m101-doctor-out").first.evaluate("(o) => o.children.length") == 0
    assert page.errors == []


def test_prompt_groups_reads_a_number_field(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    groups = page.locator(".m101-doctor-groups").first
    error = page.locator(".m101-doctor .m101-doctor-error").first
    groups.fill("1e3")
    got = _paste(page, run_log())
    assert groups.get_attribute("aria-invalid") is None and got["status"].startswith("Done"), got["status"]
    for bad, says in (("1e-1", "not a whole number"), ("2.5", "not a whole number"), ("9" * 23, "from 1 to"), ("0", "at least 1")):
        groups.fill(bad)
        page.get_by_role("button", name="Read the pasted log").first.click()
        assert groups.get_attribute("aria-invalid") == "true", bad
        assert says in error.text_content() and "Prompt groups per step" in error.text_content(), error.text_content()
    groups.fill("")
