"""The "Will it fit?" calculator on 2.1 in a real Chromium: its numbers equal miles101.derive.fit_budget's.

Three models and settings are entered by keyboard and mouse; the verdict, the legend's bytes and the
KV tokens are read back and compared with the Python computation. Also: phone width, dark mode, no
console errors, no request beyond the local server, JavaScript off, and 2.1's page weight.
"""
from __future__ import annotations

import json
from typing import Any

import pytest
from .browser_support import ARTIFACTS, ROOT, Server, Site, is_local, note_screenshot

from miles101 import derive

PAGE = "sections/2-1-pick-a-model-size.html"
MODELS = {m["name"]: m for m in json.loads((ROOT / "capture/miles/models.json").read_text())["models"]}
FACTS = json.loads((ROOT / "capture/facts.json").read_text())["facts"]
#: The pool 2.1, 8.4 and the calculator share: CUDA's reported total on a GB10 (a public reference).
POOL = json.loads((ROOT / "capture/references/part5-8.json").read_text())["references"]["gb10_memory.cuda_total"]
POOL_BYTES = POOL["value"] * derive.UNIT_BYTES[POOL["unit"]]
WEIGHT_LIMIT = 300 * 1024

CASES = [
    ("qwen3-0.6B", {"fraction": "0.3", "master": True, "kl": False, "response": "1024", "prompts": "16", "samples": "8"}),
    ("qwen3-8B", {"fraction": "0.25", "master": True, "kl": True, "response": "256", "prompts": "8", "samples": "8"}),
    ("qwen2.5-7B", {"fraction": "0.2", "master": False, "kl": False, "response": "2048", "prompts": "4", "samples": "4"}),
]


def expected(name: str, s: dict[str, Any]) -> dict[str, Any]:
    """The Python side: derive.fit_budget over derive's own coefficients and the facts."""
    m = MODELS[name]
    return derive.fit_budget(
        params=derive.parameter_count(m), kv_bytes_per_token=derive.kv_bytes_per_token(m),
        pool_bytes=POOL_BYTES, threshold=FACTS["ray.memory_usage_threshold"]["value"],
        fraction=float(s["fraction"]), fp32_master=s["master"], reference=s["kl"], response_len=int(s["response"]),
        prompts=int(s["prompts"]), samples=int(s["samples"]))


def _open(tab: Any, server: Server) -> Any:
    tab.recorder.visit = None
    page = tab.page
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(server.base + PAGE, wait_until="load")
    page.locator(".m101-fit.m101-fit-js").wait_for(timeout=10000)
    page.errors, page.requests = errors, requests
    return page


def _set(page: Any, name: str, s: dict[str, Any]) -> None:
    fit = page.locator(".m101-fit").first
    fit.locator("select").select_option(name)
    for key, label in (("master", "fp32 master"), ("kl", "KL reference")):
        box = fit.get_by_label(label)
        if box.is_checked() != s[key]:
            box.focus()
            page.keyboard.press("Space")
    for key, label in (("fraction", "SGLang's share"), ("response", "Response length"), ("prompts", "Prompts per step"),
                       ("samples", "Samples per prompt")):
        field = fit.get_by_label(label)
        field.focus()
        field.fill(s[key])


def _read(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
      const fit = document.querySelector('.m101-fit');
      const v = fit.querySelector('.m101-fit-verdict');
      const items = Object.fromEntries([...fit.querySelectorAll('.m101-fit-item')].map(
        li => [li.dataset.term, {bytes: Number(li.dataset.bytes), text: li.querySelector('.m101-fit-num').textContent}]));
      const kv = fit.querySelector('.m101-fit-kvline');
      return {verdict: v.dataset.verdict, margin: Number(v.dataset.marginBytes), text: v.textContent,
              items, kvTokens: kv.dataset.kvTokens === '' ? null : Number(kv.dataset.kvTokens),
              stepTokens: Number(kv.dataset.stepTokens), flags: fit.querySelector('.m101-fit-flags code').textContent};
    }""")


@pytest.mark.parametrize(("name", "settings"), CASES, ids=[c[0] for c in CASES])
def test_numbers_equal_python(tabs: dict[str, Any], server: Server, name: str, settings: dict[str, Any]) -> None:
    page = _open(tabs["light"], server)
    _set(page, name, settings)
    got, want = _read(page), expected(name, settings)
    assert got["verdict"] == want["verdict"], (got["text"], want)
    assert got["margin"] == want["margin"]
    for term in ("trainer", "weights", "kv"):
        assert got["items"][term]["bytes"] == want[term], term
        assert got["items"][term]["text"] == f"{want[term] / derive.GIB:,.1f} GiB", term
    assert ("reference" in got["items"]) == settings["kl"]
    if settings["kl"]:
        assert got["items"]["reference"]["bytes"] == want["reference"]
    assert got["kvTokens"] == want["kv_tokens"]
    assert got["stepTokens"] == want["step_tokens"]
    margin_text = f"{abs(want['margin']) / derive.GIB:,.1f} GiB {'under' if want['margin'] >= 0 else 'over'}"
    assert margin_text in got["text"].replace("−", "")
    assert f"--sglang-mem-fraction-static {settings['fraction']}" in got["flags"]
    assert ("--no-keep-fp32-master" in got["flags"]) == (not settings["master"])
    assert ("--use-kl-loss" in got["flags"]) == settings["kl"]
    assert f"--rollout-max-response-len {settings['response']}" in got["flags"]
    assert page.errors == []


def test_opens_at_the_worked_sum(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    sum_table = page.locator("table.m101-fit-sum")
    got = _read(page)
    assert got["verdict"] == sum_table.get_attribute("data-verdict")
    assert got["margin"] == float(sum_table.get_attribute("data-margin-bytes"))
    assert str(got["kvTokens"]) == sum_table.get_attribute("data-kv-tokens")


def test_typed_parameter_count(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    fit = page.locator(".m101-fit").first
    fit.locator("select").select_option("")
    field = fit.get_by_label("Parameters, in billions")
    assert field.is_enabled()
    field.fill("14")
    got = _read(page)
    want = derive.fit_budget(params=14 * 10**9, kv_bytes_per_token=None, pool_bytes=POOL_BYTES,
                             threshold=FACTS["ray.memory_usage_threshold"]["value"], fraction=0.25)
    assert got["items"]["trainer"]["bytes"] == want["trainer"]
    assert got["verdict"] == want["verdict"] == "does-not-fit"
    assert got["kvTokens"] is None


def test_keyboard_only_and_live_verdict(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["light"], server)
    verdict = page.locator(".m101-fit-verdict")
    assert verdict.get_attribute("aria-live") == "polite"
    fit = page.locator(".m101-fit").first
    for control in fit.locator("input, select").all():
        cid = control.get_attribute("id")
        assert page.locator(f'label[for="{cid}"]').count() == 1, cid
    fit.locator("select").focus()
    page.keyboard.press("Tab")  # the disabled parameter field is skipped: next is the fp32 master box
    focused = page.evaluate("() => document.activeElement.id")
    assert focused.endswith("-master"), focused
    page.keyboard.press("Space")  # master off
    assert "--no-keep-fp32-master" in _read(page)["flags"]


def test_phone_width(tabs: dict[str, Any], server: Server) -> None:
    page = _open(tabs["phone"], server)
    widths = page.evaluate("""() => { const f = document.querySelector('.m101-fit');
      return {page: document.scrollingElement.scrollWidth, view: document.scrollingElement.clientWidth,
              fitRight: f.getBoundingClientRect().right, over: [...f.querySelectorAll('*')].filter(
                e => e.getBoundingClientRect().right > document.scrollingElement.clientWidth + 1
                     && !e.closest('.m101-fit-line')).map(e => e.className).slice(0, 5)}; }""")
    assert widths["page"] <= widths["view"] + 1, widths
    assert widths["fitRight"] <= widths["view"] + 1, widths
    assert widths["over"] == [], widths
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "fit-calculator-phone.png"
    page.locator(".m101-fit").first.screenshot(path=str(shot))
    note_screenshot(shot)
    assert page.errors == []


def test_dark_mode_uses_the_dark_palette(tabs: dict[str, Any], server: Server) -> None:
    from miles101.palette import HUES

    page = _open(tabs["dark"], server)
    colour = page.evaluate("() => getComputedStyle(document.querySelector('.m101-fit-seg.m101-fit-trainer')).backgroundColor")
    ink = HUES["blue"].dark_ink
    assert colour == "rgb({}, {}, {})".format(*(int(ink[i:i + 2], 16) for i in (1, 3, 5))), colour
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "fit-calculator-dark.png"
    page.locator(".m101-fit").first.screenshot(path=str(shot))
    note_screenshot(shot)
    assert page.errors == []


def test_no_network_and_assets_only_on_2_1(tabs: dict[str, Any], server: Server, site: Site) -> None:
    page = _open(tabs["light"], server)
    page.wait_for_timeout(300)
    assert [u for u in page.requests if not is_local(u)] == []
    assert tabs["light"].blocked == []
    with_calc = [p for p in site.pages if "m101-fit-calculator.js" in (site.outdir / p).read_text(encoding="utf-8")]
    assert with_calc == [PAGE]


def test_built_coefficients_equal_derive(site: Site) -> None:
    doc = json.loads((site.outdir / "_static" / "m101-fit-coefficients.json").read_text())
    assert doc["bytes_per_param"]["trainer_fp32_master"] == derive.TRAINER_BYTES_PER_PARAM
    assert doc["bytes_per_param"]["trainer_no_master"] == derive.TRAINER_BYTES_PER_PARAM_NO_MASTER
    assert doc["pool"]["bytes"] == POOL_BYTES
    names = set()
    for m in doc["models"]:
        shape = MODELS[m["name"]]
        assert m["params"] == derive.parameter_count(shape), m["name"]
        assert m["kv_bytes_per_token"] == derive.kv_bytes_per_token(shape), m["name"]
        names.add(m["name"])
    computed = json.loads((ROOT / "capture/computed.json").read_text())["values"]
    assert names == {k.split(".", 1)[1] for k in computed if k.startswith("params.")}


def test_javascript_off_shows_table_and_note(chromium: Any, server: Server) -> None:
    context = chromium.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.base + PAGE, wait_until="load")
        assert page.locator(".m101-fit-nojs").is_visible()
        assert not page.locator(".m101-fit-app").is_visible()
        assert page.locator("table.m101-fit-sum").is_visible()
        assert page.locator("table").filter(has_text="FSDP trainer state").count() >= 2  # computed table and sum
    finally:
        context.close()


def test_page_weight_without_mermaid(tabs: dict[str, Any], server: Server) -> None:
    page = tabs["light"].page
    sizes: dict[str, int] = {}

    def note(resp: Any) -> None:
        if "/_static/mermaid/" in resp.url:
            return
        try:
            sizes[resp.url] = len(resp.body())
        except Exception:
            pass

    page.on("response", note)
    page.goto(server.base + PAGE + "?weight", wait_until="load")
    page.wait_for_timeout(500)
    page.remove_listener("response", note)
    total = sum(sizes.values())
    print(f"2.1 page weight without mermaid: {total / 1024:.1f} KiB over {len(sizes)} files")
    assert total < WEIGHT_LIMIT, sorted(sizes.items(), key=lambda kv: -kv[1])[:8]
