"""The recorder's output is exactly what the pages read: a recorded run turns pending into numbers."""
from __future__ import annotations

import re

import shutil
from pathlib import Path

import pytest
import yaml
from buildutil import build
from labutil import base_run

from capture.lab.rehearsal import mileslog as ml

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

ROOTS = Path(__file__).resolve().parents[1] / "roots"


def with_lab_catalog(book: Path) -> None:
    """The lab fixtures' flags and metrics added to the book's extraction: both gates hold t-ok's args against it."""
    import json

    lab_dir = Path(__file__).resolve().parent / "fixtures"
    for name, list_key, key in (("flags", "flags", "name"), ("metrics", "metrics", "key")):
        path = book / "capture" / "miles" / f"{name}.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        have = {r.get(key) for r in doc[list_key]}
        lab_doc = json.loads((lab_dir / f"{name}.json").read_text(encoding="utf-8"))
        doc[list_key] += [r for r in lab_doc[list_key] if r.get(key) not in have]
        if name == "flags":
            doc["families"] = doc.get("families", []) + [f for f in lab_doc.get("families", [])
                                                         if f not in doc.get("families", [])]
        path.write_text(json.dumps(doc), encoding="utf-8")


def test_a_recording_fills_the_page(lab, tmp_path: Path) -> None:
    book = tmp_path / "book"
    shutil.copytree(ROOTS / "test-book", book)
    run = base_run("t-ok", lab.model, steps=3)
    run["sections"] = ["1.2"]
    lab.write_run(run)
    shutil.copy(lab.runs / "t-ok.yaml", book / "capture" / "runs" / "t-ok.yaml")
    with_lab_catalog(book)
    page = book / "sections" / "1-2-empty.md"
    page.write_text("# Empty section\n\nThe reward is {measured}`t-ok.reward:.2f`.\n\n"
                    "```{listing} t-ok\n:grep: ^.*rollout \\d+:\n:head: 2\n```\n")
    before = build(book)
    assert before.warnings == ""
    assert 'm101-pending' in before.html("sections/1-2-empty") and "which the author records on a DGX Spark" in before.html(
        "sections/1-2-empty")

    lab.scenario(lab.lines(ml.healthy(3), delay=0.01))
    assert lab.record("t-ok").returncode == 0
    shutil.copytree(lab.gpu / "t-ok", book / "capture" / "gpu" / "t-ok")
    after = build(book)
    html = after.html("sections/1-2-empty")
    assert after.warnings == ""
    # the page, and the front page, whose count of recorded runs follows every recording
    assert after.read == ["front", "sections/1-2-empty"]
    assert re.search(r'class="m101-value[^>]*>(?:<span class="m101-ref-tag">[^<]*</span> )?' + re.escape('0.45') + r'(?: \(|</a>)', html)
    assert "median of 3 samples, steps 0-2" in html and "NVIDIA GB10" in html and "31f1ca961" in html
    assert "m101-pending" not in html
    listing = html.split('m101-listing', 1)[1]
    assert "rollout 0:" in listing and "rollout 1:" in listing and "rollout 2:" not in listing
    assert yaml.safe_load((book / "capture" / "runs" / "t-ok.yaml").read_text())["id"] == "t-ok"
