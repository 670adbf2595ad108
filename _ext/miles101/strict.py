"""The one strict reader: every JSON and YAML file the book, `--check` and the lab read goes through it.

Bad input never becomes a traceback or a hang; it becomes a `ProblemError` whose `Problem` names
the file, the place (line, column) and the fix:

- only a regular file is read (a directory, a FIFO, a device or a symlink loop is refused, so no
  read blocks), and with `root` given, only one inside it (a symlink out of the project is refused);
- UTF-8 only; JSON with no duplicate keys; no number longer than `MAX_DIGITS` digits;
- nesting no deeper than `MAX_DEPTH` (a RecursionError is never reached);
- YAML's anchors and aliases may not expand to more than `MAX_YAML_NODES` nodes (an alias bomb
  is refused before it is built).
"""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from .problems import ProblemError, capture_problem

#: libyaml's safe loader when the wheel has it, else PyYAML's.
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: Deepest nesting of objects and lists any capture file, run file or manual.json may have.
MAX_DEPTH = 64
#: Most digits a number may have (Python refuses to convert more than 4,300 to an int).
MAX_DIGITS = 400
#: Most nodes a YAML document may expand to once its aliases are followed.
MAX_YAML_NODES = 100_000
#: The one form of a run id (_ext/miles101/schema/run.schema.json's `id` pattern): a name, never a path.
RUN_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


def _error(where: str, message: str, fix: str) -> ProblemError:
    """The error a reader raises: a `manual.capture` problem at `where` (file:place)."""
    return ProblemError(capture_problem(where, message, fix))


def run_id_problem(run_id: str) -> str | None:
    """Why `run_id` is not a run id (a name like `first-grpo`, never a path), or None."""
    if RUN_ID.fullmatch(run_id):
        return None
    return (f"{run_id!r} is not a run id: a run id is a name of lowercase letters, digits and '-' "
            "(the file name of capture/runs/<id>.yaml without .yaml), never a path")


def read_bytes(path: Path, rel: str, root: Path | None = None, fix: str = "restore it from git") -> bytes:
    """The bytes of a regular file (inside `root` when given); ProblemError otherwise. Never blocks."""
    try:
        st = os.stat(path)  # follows symlinks; a loop raises ELOOP
    except FileNotFoundError:
        if os.path.islink(path):  # a dangling link is not a missing file: say where it points
            raise _error(rel, f"it is a symlink to {os.readlink(path)!r}, which does not exist.",
                         f"replace the link with the file itself, or {fix}.") from None
        raise _error(rel, "the file does not exist.", f"{fix}.") from None
    except OSError as exc:  # the place is line 1: the file as a whole
        raise _error(f"{rel}:1", f"cannot read it ({exc.strerror or exc}).", f"{fix}.") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
        raise _error(f"{rel}:1", f"it is {kind}, not a file; nothing reads it (a FIFO would block).",
                     f"put a regular file there, or {fix}.")
    if root is not None and outside(path, root):
        raise _error(f"{rel}:1", "it is a symlink to a file outside the project, which is never read or published.",
                     f"replace the link with the file itself, or {fix}.")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise _error(f"{rel}:1", f"cannot read it ({exc.strerror or exc}).", f"{fix}.") from None


def outside(path: Path, root: Path) -> bool:
    """Whether `path`, links followed, lies outside `root` (links followed too)."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return os.path.commonpath([real, base]) != base


def decode(raw: bytes, rel: str, fix: str) -> str:
    """UTF-8 text (a UTF-8 BOM is allowed), or a ProblemError naming the line of the first bad byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        what = "UTF-16 text" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else "not UTF-8 text"
        raise _error(f"{rel}:{line}", f"{what} (byte {exc.start}: {raw[exc.start:exc.start + 1]!r}).",
                     f"save the file as UTF-8, or {fix}.") from None


def too_deep(doc: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a parsed document nests deeper than `limit` (checked without recursion)."""
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return False


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def duplicate_key_line(text: str, key: str) -> int:
    """The line of the second `"key":` in the text (where the duplicate is), or 1."""
    hits = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
    return _line_of(text, hits[1]) if len(hits) > 1 else 1


def _deep_line(text: str) -> int:
    """The line where JSON brackets first nest deeper than MAX_DEPTH (strings skipped), or 1."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        tok = m[0]
        if tok in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _line_of(text, m.start())
        elif tok in "]}":
            depth -= 1
    return 1


def parse_json_bytes(raw: bytes, rel: str, fix: str) -> Any:
    """Strict JSON: UTF-8, no duplicate keys, bounded depth and digits; a ProblemError naming the line otherwise."""
    text = decode(raw, rel, fix)
    deep = (f"nests deeper than {MAX_DEPTH} levels", "flatten it; no file the book reads nests that deep")
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_bounded_int)
    except DuplicateKey as exc:
        line = duplicate_key_line(text, exc.key)
        raise _error(f"{rel}:{line}", f"the key {exc.key!r} appears twice in one object (line {line}); "
                     "JSON keeps only the last.", "keep one of the two entries.") from None
    except json.JSONDecodeError as exc:
        raise _error(f"{rel}:{exc.lineno}:{exc.colno}", f"invalid JSON ({exc.msg}); the file may be truncated.",
                     fix + ".") from None
    except RecursionError:
        raise _error(f"{rel}:{_deep_line(text)}", f"the JSON {deep[0]}.", f"{deep[1]}, or {fix}.") from None
    except ValueError as exc:  # parse_int's bound
        m = re.search(r"\d{%d,}" % (MAX_DIGITS + 1), text)
        line = _line_of(text, m.start()) if m else 1
        raise _error(f"{rel}:{line}", f"{exc} (more than {MAX_DIGITS}): no number the book shows is that long.",
                     f"put the real number there, or {fix}.") from None
    if too_deep(doc):
        raise _error(f"{rel}:{_deep_line(text)}", f"the JSON {deep[0]}.", f"{deep[1]}, or {fix}.")
    return doc


def _expanded_size(node: yaml.Node, limit: int) -> int:
    """Nodes a composed YAML graph expands to (aliases followed), stopping past `limit`. No recursion."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    depth_of: dict[int, int] = {id(node): 1}
    while stack:
        current, done = stack.pop()
        key = id(current)
        if key in sizes and not done:
            continue
        children: list[yaml.Node] = []
        if isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        elif isinstance(current, yaml.MappingNode):
            children = [n for pair in current.value for n in pair]
        if not done:
            if depth_of[key] > MAX_DEPTH:
                return limit + 1
            stack.append((current, True))
            for child in children:
                if id(child) not in sizes:
                    depth_of.setdefault(id(child), depth_of[key] + 1)
                    stack.append((child, False))
            continue
        total = 1 + sum(sizes.get(id(c), 1) for c in children)
        sizes[key] = total
        if total > limit:
            return total
    return sizes.get(id(node), 1)


class BoundedLoader(YAML_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a document whose aliases expand past MAX_YAML_NODES or nest too deep."""

    def construct_document(self, node: yaml.Node) -> Any:
        if _expanded_size(node, MAX_YAML_NODES) > MAX_YAML_NODES:
            raise yaml.YAMLError(f"its anchors and aliases expand to more than {MAX_YAML_NODES:,} values, "
                                 f"or it nests deeper than {MAX_DEPTH} levels")
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        """A mapping, refusing a key written twice (YAML would keep the last silently), named with both lines."""
        seen: dict[tuple[str, str], yaml.Node] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            first = seen.setdefault((key_node.tag, key_node.value), key_node)
            if first is not key_node:
                raise DuplicateYamlKey(key_node.value, first.start_mark.line + 1, key_node.start_mark.line + 1)
        return super().construct_mapping(node, deep)


class DuplicateYamlKey(yaml.YAMLError):
    def __init__(self, key: str, first: int, second: int) -> None:
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


def parse_yaml_bytes(raw: bytes, rel: str, fix: str = "fix the YAML there") -> Any:
    """Safe YAML: UTF-8, bounded alias expansion, depth and digits; a ProblemError naming the line otherwise."""
    text = decode(raw, rel, fix)
    try:
        return yaml.load(text, Loader=BoundedLoader)
    except DuplicateYamlKey as exc:
        raise _error(f"{rel}:{exc.second}", f"the key {exc.key!r} appears twice in one mapping (lines {exc.first} and "
                     f"{exc.second}); YAML keeps only the last.", "keep one of the two.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{rel}:{mark.line + 1}:{mark.column + 1}" if mark else f"{rel}:1"
        raise _error(where, f"invalid YAML ({getattr(exc, 'problem', None) or exc}).", f"{fix}.") from None
    except RecursionError:
        raise _error(f"{rel}:{_deep_line(text)}", f"the YAML nests deeper than {MAX_DEPTH} levels.",
                     f"flatten it, or {fix}.") from None
    except ValueError as exc:  # int("9" * 5000)
        m = re.search(r"\d{%d,}" % (MAX_DIGITS + 1), text)
        raise _error(f"{rel}:{_line_of(text, m.start()) if m else 1}", f"a value cannot be read ({str(exc)[:80]}).",
                     f"put the real number there, or {fix}.") from None
