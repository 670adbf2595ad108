"""Data roles and directives on a test root with synthetic capture data."""
from __future__ import annotations

import json
import os
import re
from html import unescape
from pathlib import Path

import pytest
from buildutil import build

pytestmark = pytest.mark.build  # every test here builds a Sphinx project


def add_page(root: Path, text: str) -> None:
    """Put `text` into the (listed) empty section 1.2."""
    (root / "sections" / "1-2-empty.md").write_text("# Empty section\n\n" + text + "\n")


def test_flag_inline_and_block(book_copy: Path) -> None:
    built = build(book_copy)
    html = built.html("sections/1-1-first")
    assert 'id="flag-colocate"' in html  # the block is the target
    assert '<a class="reference internal" href="#flag-colocate"' in html
    assert "miles/utils/arguments.py:10" in html
    assert "https://github.com/radixark/miles/blob/2222222222222222222222222222222222222222/miles/utils/arguments.py#L10" in html
    values = built.html("sections/2-1-values")
    assert 'href="r-1-flags.html#flag-offload-train"' in values  # an alias links to its flag's R.1 row
    r1 = built.html("sections/r-1-flags")
    assert 'id="flag-rollout-batch-size"' in r1 and "required" in r1
    assert "&lt;b&gt;bold&lt;/b&gt;" in r1 and "<b>bold</b>" not in r1  # capture strings are escaped


def test_src_metric_issue(book_copy: Path) -> None:
    html = build(book_copy).html("sections/1-1-first")
    assert "arguments.py#L10-L12" in html and ">the range<" in html
    assert 'href="r-2-metrics.html#metric-rollout-raw-reward"' in html
    assert 'href="https://github.com/radixark/miles/issues/42"' in html
    # a role's one-word code is one element (lean_html): no span.pre inside a metric's or a cited line's code
    assert '<code class="m101-metric docutils literal notranslate">rollout/raw_reward</code>' in html
    assert re.search(r'class="m101-src reference external" href="[^"]*"><code class="docutils literal notranslate">'
                     r'miles/utils/arguments\.py:\d+</code></a>', html)


def test_values_and_provenance(book_copy: Path) -> None:
    html = build(book_copy).html("sections/2-1-values")
    assert re.search(r'<a class="m101-value m101-computed" href="#m101-v-\d+" title="[^"]+">'
                     r'<span class="m101-ref-tag">computed</span> 187,200</a>', html)
    assert re.search(r'title="[^"]+"><span class="m101-ref-tag">fact</span> 64 GB</a>', html)
    assert re.search(r'<a class="m101-value m101-measured" href="#m101-v-\d+" title="[^"]+">12.3 s</a>', html)
    assert "median of 3 samples" in html and "NVIDIA GB10 (test data)" in html
    assert re.search(r'<a class="m101-value m101-measured m101-pending" href="#m101-v-\d+" title="Pending: ', html)
    # each value links to its one entry in "Values on this page", whose text holds the same provenance
    for target in set(re.findall(r'<a class="m101-value[^"]*" href="#([^"]+)"', html)):
        assert f'<li id="{target}">' in html, target
    assert "Pending: the run &#x27;tiny-pending&#x27; has not been recorded" in html or \
        "Pending: the run 'tiny-pending' has not been recorded" in html
    assert 'id="values-on-this-page"' in html


def test_unknown_flag_suggests(book_copy: Path) -> None:
    add_page(book_copy, "Set {flag}`--colocat`.")
    built = build(book_copy)
    [warned] = [w for w in built.warned if w.type == "manual"]  # then the error that counts them
    assert (warned.type, warned.subtype) == ("manual", "unknown_flag")
    assert warned.location.endswith("sections/1-2-empty.md:3")
    assert warned.message.startswith("Miles has no flag '--colocat' at commit 222222222. Did you mean --colocate? "
                                     "Fix: use a flag from capture/miles/flags.json")
    assert built.app.statuscode == 1  # fails even without -W


def test_sglang_skipped_name_is_not_a_flag(book_copy: Path) -> None:
    add_page(book_copy, "Set {flag}`--sglang-model-path`.")
    assert any("Miles has no flag '--sglang-model-path'" in m for m in build(book_copy).messages("manual.unknown_flag"))


def test_unknown_metric(book_copy: Path) -> None:
    add_page(book_copy, "Read {metric}`rollout/raw_rewards`.")
    [message] = build(book_copy).messages("manual.unknown_metric")
    assert message.startswith("Miles logs no metric 'rollout/raw_rewards'. Did you mean rollout/raw_reward?")


def test_unknown_value_and_bad_format(book_copy: Path) -> None:
    add_page(book_copy, "A {measured}`tiny-recorded.step_tim` and {computed}`params.qwen3-tiny:%d`.")
    built = build(book_copy)
    [unknown] = built.messages("manual.unknown_value")
    assert unknown.startswith("no measured value 'tiny-recorded.step_tim'. Did you mean tiny-recorded.step_time?")
    [bad] = built.messages("manual.bad_format")
    assert bad.startswith("format spec '%d' does not fit 'params.qwen3-tiny'")


def test_unknown_source_line(book_copy: Path) -> None:
    add_page(book_copy, "See {src}`miles/utils/arguments.py:99` and {src}`miles/nope.py`.")
    messages = build(book_copy).messages("manual.unknown_source")
    assert any(m.startswith("miles/utils/arguments.py has 20 lines; 99 is not a range of them.") for m in messages)
    assert any(m.startswith("Miles has no file 'miles/nope.py'.") for m in messages)


def test_truncated_capture_file(book_copy: Path) -> None:
    path = book_copy / "capture" / "miles" / "metrics.json"
    path.write_text(path.read_text()[:120])
    built = build(book_copy)
    assert any(re.fullmatch(r"(.*/)?capture/miles/metrics\.json:\d+:\d+", w.location) and "invalid JSON" in w.message
               and "the file may be truncated" in w.message for w in built.warned if w.subtype == "capture"), built.warnings


def reread(built) -> list[str]:
    """The pages read again, from Sphinx's own env-before-read-docs event (see buildutil.build)."""
    return built.read


def test_value_change_rereads_exactly_its_pages(book_copy: Path) -> None:
    build(book_copy)
    facts = book_copy / "capture" / "facts.json"
    data = json.loads(facts.read_text())
    data["facts"]["box.memory"]["value"] = 96
    before = facts.stat()
    facts.write_text(json.dumps(data))
    os.utime(facts, (before.st_atime - 3600, before.st_mtime - 3600))  # an older timestamp must not hide it
    built = build(book_copy)
    assert reread(built) == ["sections/2-1-values"]
    assert re.search(r'class="m101-value[^>]*>(?:<span class="m101-ref-tag">[^<]*</span> )?' + re.escape('96 GB') + r'(?: \(|</a>)', built.html("sections/2-1-values"))


def test_flag_change_rereads_citing_pages_only(book_copy: Path) -> None:
    build(book_copy)
    flags = book_copy / "capture" / "miles" / "flags.json"
    data = json.loads(flags.read_text())
    data["flags"][0]["line"] = 13  # --colocate moved
    flags.write_text(json.dumps(data))
    built = build(book_copy)
    assert reread(built) == ["sections/1-1-first"]
    assert "arguments.py#L13" in built.html("sections/1-1-first")
    assert "arguments.py#L13" in built.html("sections/r-1-flags")  # the generated table is rewritten


def test_a_run_file_change_rewrites_the_lab_notes_and_not_the_flag_table(book_copy: Path) -> None:
    build(book_copy)
    run = book_copy / "capture" / "runs" / "tiny-pending.yaml"
    run.write_text(run.read_text().replace("title: A pending tiny run (test data)", "title: A title written again"))
    built = build(book_copy)
    assert "A title written again" in built.html("sections/r-3-lab")  # its generated table, built from the run files
    assert "sections/r-1-flags" not in built.status  # R.1 reads nothing of the run files: neither read nor written


def test_unchanged_rewrite_rereads_nothing(book_copy: Path) -> None:
    build(book_copy)
    facts = book_copy / "capture" / "facts.json"
    facts.write_text(json.dumps(json.loads(facts.read_text()), indent=4))  # same content, new bytes and mtime
    assert reread(build(book_copy)) == []


def test_flag_documented_on_two_pages_warns(book_copy: Path) -> None:
    add_page(book_copy, "```{flag} --colocate\nAgain.\n```")
    warnings = build(book_copy).warnings
    assert ("sections/1-2-empty.md: WARNING: the flag --colocate is documented here and in sections/1-1-first. "
            "Fix: keep the block in the section that teaches the flag") in warnings


def test_default_role(book_copy: Path) -> None:
    add_page(book_copy, "Defaults: {default}`--colocate`, and {default}`--sglang-mem-fraction-static`.")
    built = build(book_copy)
    assert "no extracted default for '--sglang-mem-fraction-static'" in built.warnings
    # one element: a role's one-word code has no span.pre inside (lean_html; the stylesheet keeps it unwrapped)
    assert '<code class="m101-default docutils literal notranslate">false</code>' in built.html("sections/1-2-empty")


def test_run_command_is_the_run_file(book_copy: Path) -> None:
    add_page(book_copy, "```{run-command} tiny-recorded\n```\n\n"
                        "```{run-command} tiny-recorded\n---\nprefix: |\n  ray job submit\nsuffix: 2>&1 | tee log\n---\n```\n\n"
                        "```{run-command} nope\n```")
    built = build(book_copy)
    html = unescape(re.sub(r"<[^>]+>", "", built.html("sections/1-2-empty")))
    # by default, 1.1's whole launch derived from the run id
    assert ("ray job submit --address http://127.0.0.1:8265 \\\n  --submission-id tiny-recorded \\\n"
            """  --runtime-env-json '{"env_vars": {"PYTHONUNBUFFERED": "1"}}' \\\n"""
            "  -- python3 /root/miles/train.py \\\n  --colocate \\\n  --rollout-batch-size 8 \\\n  --seed 1 \\\n"
            "  --rollout-seed 1 \\\n  2>&1 | tee /root/logs/tiny-recorded.log") in html
    # options override a part
    assert ("ray job submit \\\n  -- python3 /root/miles/train.py \\\n  --colocate \\\n  --rollout-batch-size 8 \\\n"
            "  --seed 1 \\\n  --rollout-seed 1 \\\n  2>&1 | tee log") in html
    assert "no run 'nope' is declared." in built.warnings


def test_flag_index_lists_documented_flags(book_copy: Path) -> None:
    html = (build(book_copy).app.outdir / "m101-flags.html").read_text(encoding="utf-8")
    assert 'href="sections/1-1-first.html#flag-colocate"' in html and "--colocate" in html
    assert "--rollout-batch-size" not in html  # only documented flags


def test_reference_is_labelled_as_not_ours(book_copy: Path) -> None:
    add_page(book_copy, "Pending {measured}`tiny-pending.tokens` beside {reference}`test.ci-threshold`; "
                        "a baseline {reference}`test.baseline:.0%`; a band {reference}`test.band`.")
    built = build(book_copy)
    assert built.app.statuscode == 0, built.warnings
    html = built.html("sections/1-2-empty")
    assert re.search(r'class="m101-value m101-reference" href="#m101-v-\d+"[^>]*><span class="m101-ref-tag">public ref</span> '
                     r'≥ 0.5 fraction correct \(Test CI\)</a>', html)
    assert '</span> 71% fraction correct (Test paper, H100 ×8)</a>' in html
    assert '</span> 0.1–0.3 ratio (' in html
    assert "Public reference, not this manual&#x27;s GB10 measurement" in html
    assert "a rule, not a measurement" in html and "measured on H100 ×8" in html


def test_reference_errors(book_copy: Path) -> None:
    refs = book_copy / "capture" / "references" / "test.json"
    data = json.loads(refs.read_text())
    data["references"]["test.ci-threshold"]["src"] = "miles/utils/arguments.py:12-10"
    refs.write_text(json.dumps(data))
    (book_copy / "capture" / "references" / "more.json").write_text(json.dumps(
        {"schema": "references/1", "references": {"test.band": data["references"]["test.band"]}}))
    add_page(book_copy, "{reference}`test.ci-threshold` and {reference}`test.nope`.")
    built = build(book_copy)
    assert "reference 'test.ci-threshold' (capture/references/test.json): miles/utils/arguments.py has 20 lines; " \
           "12-10 is not a range of them." in built.warnings
    assert "no reference value 'test.nope'." in built.warnings
    assert "the reference key 'test.band' is also defined in capture/references/more.json" in built.warnings
    assert built.app.statuscode == 1


def test_wording_follows_the_recording(book_copy: Path) -> None:
    text = ("::::{until-recorded} tiny-pending\nNot recorded yet: {run-arg}`tiny-pending --num-rollout` steps.\n::::\n\n"
            "::::{once-recorded} tiny-pending\nThe values come from that run.\n::::\n\n"
            "::::{once-recorded} tiny-recorded\nRecorded, in {run-arg}`tiny-recorded --colocate`.\n::::\n\n"
            "::::{until-recorded} nope\nx\n::::\n")
    add_page(book_copy, text)
    built = build(book_copy)
    html = re.sub(r"<[^>]+>", "", built.html("sections/1-2-empty"))
    assert "Not recorded yet" in html and "The values come from that run" not in html
    assert "--colocate takes no value in capture/runs/tiny-recorded.yaml." in built.warnings
    assert "no run 'nope' is declared." in built.warnings


def test_crosscheck_is_labelled_with_its_gpu(book_copy: Path) -> None:
    results = book_copy / "capture" / "crosscheck" / "results"
    results.mkdir(parents=True)
    run = {"gradient_checkpointing": False, "tokens": 64, "optimizer_foreach": None, "status": "ok",
           "hf_class": "Qwen3ForCausalLM", "params": 1234567, "held_source": "allocator",
           "held_bytes": 3 * 2**30, "held_without_grads_bytes": 2 * 2**30,
           "tensor_bytes": {"params": 1, "grads": 1, "exp_avg": 1, "exp_avg_sq": 1},
           "peak_bytes_step1": 4 * 2**30, "peak_bytes_step2": 4 * 2**30, "peak_bytes_step2_forward_backward": 4 * 2**30,
           "peak_bytes_step2_optimizer": 5 * 2**30, "peak_reserved_bytes": 6 * 2**30, "losses": [1.0, 0.9],
           "seconds": 1.0}
    # A whole crosscheck/1 document: the book reads no record its schema refuses.
    doc = {"schema": "crosscheck/1",
           "host": {"device": "cuda", "gpu": "NVIDIA H200", "gpu_memory_bytes": None, "torch": "2.11", "cuda": "13.0",
                    "transformers": "5.17.0", "python": "3.12", "date": "2026-12-03"},
           "setup": {"tokens": 64, "world_size": 1, "miles_commit": "2" * 40,
                     "optimizer": {"name": "AdamW", "lr": 1e-6, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.0},
                     "clip_grad": 1.0, "param_dtype": "bfloat16", "reduce_dtype": "float32", "master_dtype": "float32",
                     "sites": {}, "departures": [], "held_bytes": "allocator", "peak_bytes": "allocator"},
           "models": {"tiny": {"model_record": "scripts/models/tiny.py:1", "hf_class": "Qwen3ForCausalLM",
                               "params": 1234567,
                               "runs": [run, {**run, "gradient_checkpointing": True,
                                              "peak_bytes_step2_forward_backward": 2**31}]},
                      # measured again on a later day (the heading gives the span of days), with no checkpointed run
                      "tiny-b": {"model_record": "scripts/models/tiny-b.py:1", "hf_class": "Qwen3ForCausalLM",
                                 "params": 2345678, "runs": [{**run, "params": 2345678, "date": "2026-12-06"}]}},
           "skipped": {}}
    (results / "h200.json").write_text(json.dumps(doc))
    add_page(book_copy, "Held: {crosscheck}`h200.tiny.held:.1f`.\n\n```{crosscheck-table} h200\n```\n\n"
                        "```{crosscheck-table} gb10\n```")
    built = build(book_copy)
    html = built.html("sections/1-2-empty")
    assert '<span class="m101-ref-tag">cross-check</span> 3.0 GiB (NVIDIA H200, not a GB10)</a>' in html
    assert "<strong>Checked with PyTorch’s allocator on an NVIDIA H200, not a GB10.</strong> 2026-12-03 to 2026-12-06, " \
        "one GPU" in html
    cell = '<p><span class="m101-value-cell">{}</span></p>'  # a cited value; the heading labels the table once
    assert cell.format("1,234,567 parameters") in html and cell.format("2.0 GiB") in html
    assert "no cross-check results for host &#x27;gb10&#x27;" in built.warnings or \
        "no cross-check results for host 'gb10' (have: h200)." in built.warnings


def test_threshold_is_ours_and_looks_it(book_copy: Path) -> None:
    """{threshold} renders its own tag and look, with the reasoning in the tip; never as a public ref."""
    add_page(book_copy, "Below {threshold}`test.our-cutoff` is fine; a published line is {reference}`test.ci-threshold`.")
    built = build(book_copy)
    assert built.app.statuscode == 0, built.warnings
    html = built.html("sections/1-2-empty")
    assert re.search(r'class="m101-value m101-threshold" href="#m101-v-\d+"[^>]*><span class="m101-ref-tag">our threshold</span> '
                     r'0.05 fraction of responses \(Test reader, our cut-off\)</a>', html)
    tip = re.search(r'class="m101-value m101-threshold" href="#m101-v-\d+" title="([^"]*)"', html).group(1)
    assert tip.startswith("Our threshold: a cut-off this manual sets itself")
    assert "Why this number: One response in twenty is where the test reader starts to look" in tip
    assert "Public reference" not in tip
    # the public reference beside it keeps its own tag, so the two never read alike
    assert '<span class="m101-ref-tag">public ref</span> ≥ 0.5 fraction correct' in html


def test_threshold_and_reference_cannot_be_swapped(book_copy: Path) -> None:
    """Citing a threshold as a public ref (or the reverse), or an unknown threshold, fails the build."""
    add_page(book_copy, "{reference}`test.our-cutoff`, {threshold}`test.baseline` and {threshold}`test.nope`.")
    built = build(book_copy)
    assert ("'test.our-cutoff' is one of this book's own thresholds, not a public reference (someone else's "
            "published number). Fix: cite it as {threshold}`test.our-cutoff`") in built.warnings
    assert "'test.baseline' is a public reference (someone else's published number), not one of this book's own " \
           "thresholds. Fix: cite it as {reference}`test.baseline`" in built.warnings
    assert "no threshold value 'test.nope'." in built.warnings
    assert built.app.statuscode == 1


def test_threshold_needs_its_reasoning(book_copy: Path) -> None:
    """A threshold without `reasoning`, or a public reference with one, is a schema failure named by path."""
    refs = book_copy / "capture" / "references" / "test.json"
    data = json.loads(refs.read_text())
    del data["references"]["test.our-cutoff"]["reasoning"]
    data["references"]["test.baseline"]["reasoning"] = "A published number has no reasoning of ours."
    refs.write_text(json.dumps(data))
    add_page(book_copy, "{threshold}`test.our-cutoff`.")
    built = build(book_copy)
    assert 'capture/references/test.json:$.references["test.our-cutoff"]' in built.warnings
    assert "'reasoning' is a required property" in built.warnings
    assert 'capture/references/test.json:$.references["test.baseline"]' in built.warnings
    assert built.app.statuscode == 1
