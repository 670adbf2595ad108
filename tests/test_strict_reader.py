"""The one strict reader (miles101.strict) and the page rules (miles101.markup), class by class, without a build.

tests/test_fuzz_capture.py holds each class against both gates on a real root; these pin the rules.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from miles101.markup import (
    directive_option_problems,
    directive_options,
    escape_html,
    markup_problems,
    shell_hazard,
)
from miles101.problems import ProblemError, Subtype
from miles101.strict import (
    MAX_DEPTH,
    parse_json_bytes,
    parse_yaml_bytes,
    read_bytes,
    run_id_problem,
)

BOMB = b"".join([b'a: &a ["x","x","x","x","x","x","x","x","x"]\n'] +
                [f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n".encode() for p, c in zip("abcdefgh", "bcdefghi")])


@pytest.mark.parametrize(("raw", "says"), [
    (b"[" * 5000 + b"]" * 5000, "nests deeper than"),
    (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "nests deeper than"),
    (b'{"n": ' + b"9" * 5000 + b"}", "5000 digits"),
    (b'{"a": 1, "a": 2}', "appears twice"),
    ("{}".encode("utf-16"), "UTF-16 text"),
    (b'{"a": "\xff"}', "not UTF-8"),
    (b'{"a": ', "invalid JSON"),
], ids=["deep", "just too deep", "5000 digits", "duplicate key", "utf-16", "latin-1", "truncated"])
def test_json_is_refused_by_class_with_a_line(raw: bytes, says: str) -> None:
    with pytest.raises(ProblemError) as exc:
        parse_json_bytes(raw, "capture/x.json", "restore it")
    assert says in exc.value.problem.message and exc.value.problem.where.startswith("capture/x.json:")
    assert exc.value.problem.fix


def test_json_at_the_depth_limit_and_utf8_bom_read() -> None:
    assert parse_json_bytes(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, "x", "f") is not None
    assert parse_json_bytes(b'\xef\xbb\xbf{"a": 1}', "x", "f") == {"a": 1}


@pytest.mark.parametrize(("raw", "says"), [
    (BOMB, "expand to more than"),
    (b"a: " + b"[" * 5000 + b"]" * 5000, "nesting depth"),
    (b"a: " + b"9" * 5000, "cannot be read"),
    ("a: 1\n".encode("utf-16"), "UTF-16"),
    (b"a: [unclosed\n", "invalid YAML"),
], ids=["alias bomb", "deep", "5000 digits", "utf-16", "broken"])
def test_yaml_is_refused_fast_by_class(raw: bytes, says: str) -> None:
    started = time.monotonic()
    with pytest.raises(ProblemError) as exc:
        parse_yaml_bytes(raw, "capture/runs/x.yaml")
    assert time.monotonic() - started < 2
    assert says in exc.value.problem.message and exc.value.problem.where.startswith("capture/runs/x.yaml:")


def test_yaml_aliases_within_the_bound_still_read() -> None:
    assert parse_yaml_bytes(b"a: &a [1, 2]\nb: *a\n", "x.yaml") == {"a": [1, 2], "b": [1, 2]}


def test_only_regular_files_inside_the_root_are_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret").write_text("outside")
    (root / "ok.json").write_text("{}")
    (root / "dir.json").mkdir()
    os.mkfifo(root / "fifo.json")
    (root / "loop.json").symlink_to("loop.json")
    (root / "out.json").symlink_to(tmp_path / "secret")
    (root / "in.json").symlink_to(root / "ok.json")
    assert read_bytes(root / "ok.json", "ok.json", root) == b"{}"
    assert read_bytes(root / "in.json", "in.json", root) == b"{}"
    for name, says in [("dir.json", "a directory"), ("fifo.json", "a FIFO"), ("loop.json", "cannot read it"),
                       ("out.json", "outside the project"), ("gone.json", "does not exist")]:
        with pytest.raises(ProblemError) as exc:
            read_bytes(root / name, name, root)
        assert says in exc.value.problem.message, name


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a/b", "A", "-x", "", "a b", "x.yaml"])
def test_a_run_id_is_a_name(bad: str) -> None:
    assert run_id_problem(bad) and "never a path" in run_id_problem(bad)
    assert run_id_problem("first-grpo") is None and run_id_problem("speed-megatron-fp8-rollout") is None


@pytest.mark.parametrize(("text", "hazard"), [
    ("A; rm -rf / #", "separator"), ("x && y", "separator"), ("x || y", "separator"), ("sleep 1 &", "background"),
    ("a $(id)", "substitution"), ("a `id`", "substitution"), ('a "$(id)"', "substitution"), ("(cd /)", "subshell"),
    ("a # hidden", "comment"), ("'open", "unclosed"),
    ("2>&1 | tee /root/logs/x.log", None), ("  -- python3 /root/miles/train.py", None),
    ("ray job submit --runtime-env-json '{\"a\": \"b;c\"}'", None), ("a &> f", None), ("echo $HOME", None),
])
def test_shell_hazards_in_run_command_options(text: str, hazard: str | None) -> None:
    found = shell_hazard(text)
    assert (found is None) if hazard is None else (found is not None and hazard in found), found


@pytest.mark.parametrize(("options", "ok"), [
    ({"lines": "3-8"}, True), ({"lines": "5"}, True), ({"head": "5"}, True), ({"grep": "^step"}, True),
    ({"lines": "abc"}, False), ({"lines": "8-3"}, False), ({"lines": "0"}, False), ({"lines": "0-2"}, False),
    ({"head": "many"}, False), ({"head": "0"}, False), ({"grep": "(open"}, False),
])
def test_listing_options_are_checked_without_a_recording(options: dict, ok: bool) -> None:
    assert (directive_option_problems("listing", options) == []) is ok


def test_markup_finds_raw_html_and_open_roles_outside_code() -> None:
    page = ("# T\n\nHi <img src=x onerror=alert(1)> there.\n\n<div>\nx\n</div>\n\n"
            "Open {flag}`--x here.\n\nFine `<b>` and {flag}`--y` and\n\n```\n<script>\n```\n")
    found = markup_problems(page, "p.md")
    assert [(p.where, p.subtype) for p in found] == [("p.md:3", Subtype.MARKUP), ("p.md:5", Subtype.MARKUP),
                                                     ("p.md:9", Subtype.MARKUP)]
    assert "raw HTML" in found[0].message and "not closed" in found[2].message
    escaped = escape_html(page)
    assert "&lt;img src=x" in escaped and "&lt;div>" in escaped and "`<b>`" in escaped
    assert escaped.count("\n") == page.count("\n")  # line numbers kept
    assert markup_problems("# T\n\nPlain {flag}`--x` and `<tag>`.\n", "p.md") == []


def test_directive_options_are_read_in_both_forms() -> None:
    page = ("```{run-command} r\n---\nsuffix: \"A; rm -rf / #\"\n---\n```\n\n"
            "```{listing} r\n:lines: 9-2\n```\n")
    found = directive_options(page)
    assert [(line, name, opts) for line, name, _, opts in found] == [
        (1, "run-command", {"suffix": "A; rm -rf / #"}), (7, "listing", {"lines": "9-2"})]
