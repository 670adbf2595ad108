"""Every string from manual.json or capture/ that reaches HTML is escaped (issue 19).

A copy of the test root gets `<script>alert(1)</script>` appended to EVERY string field that can
hold it and still pass its schema (manual.json, flags, metrics, models, files, computed, facts,
references, run files, a recording and its log); the built site must never hold `<script>alert`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from buildutil import build

from miles101.book import _validator as book_validator
from miles101.schemas import SCHEMAS, schema_dir

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

PAYLOAD = "<script>alert(1)</script>"


def inject(doc: Any, valid) -> int:
    """Append the payload to each string leaf in turn, keeping it where the document stays valid."""
    count = 0

    def walk(node: Any) -> None:
        nonlocal count
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for key, value in items:
            if isinstance(value, str):
                node[key] = value + PAYLOAD
                if valid(doc):
                    count += 1
                else:
                    node[key] = value
            else:
                walk(value)

    walk(doc)
    return count


def poison(root: Path) -> int:
    count = 0
    manual = root / "manual.json"
    doc = json.loads(manual.read_text(encoding="utf-8"))
    count += inject(doc, book_validator().is_valid)
    manual.write_text(json.dumps(doc), encoding="utf-8")
    for pattern, schema_name in SCHEMAS.items():
        validator = jsonschema.Draft202012Validator(json.loads((schema_dir() / schema_name).read_text()))
        for path in sorted((root / "capture").glob(pattern)):
            text = path.read_text(encoding="utf-8")
            doc = yaml.safe_load(text) if path.suffix == ".yaml" else json.loads(text)
            count += inject(doc, validator.is_valid)
            path.write_text(yaml.safe_dump(doc) if path.suffix == ".yaml" else json.dumps(doc), encoding="utf-8")
    for log in (root / "capture" / "gpu").glob("*/log.txt"):
        log.write_text(log.read_text(encoding="utf-8") + PAYLOAD + "\n", encoding="utf-8")
    return count


def test_no_string_from_the_data_reaches_html_unescaped(book_copy: Path) -> None:
    assert poison(book_copy) > 100
    built = build(book_copy)
    out = Path(built.app.outdir)
    pages = sorted(out.rglob("*.html"))
    assert len(pages) >= 8
    leaked = [f"{p.relative_to(out)}: ...{t[max(0, m.start() - 120):m.start() + 40]}..."
              for p in pages for t in [p.read_text(encoding="utf-8")] for m in re.finditer("<script>alert", t)]
    assert not leaked, "\n".join(leaked)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "index.html").read_text(encoding="utf-8") or any(
        "&lt;script&gt;alert" in p.read_text(encoding="utf-8") for p in pages)
