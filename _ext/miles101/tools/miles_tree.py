#!/usr/bin/env python3
"""Miles's tree as Miles 101 reads it: its files (from a Docker image), its flags and its metric keys.

Standalone: Python 3.9+ and its standard library (Miles is parsed with ``ast``, never imported).
Sections 1.1 (step 2) and 6.4 of Miles 101 serve this file, to save beside ``preflight.py``,
whose ``--compare-image`` mode reads the reader's image with it; the book's lab (capture/extract)
imports the same code to write capture/miles/, so the reader's image and the book are read by one
extractor.

Sections: the source (a snapshot of the tree, read from an image) · a whitelist evaluator for
constant expressions · the tree's Python modules · flags · metric keys · renames (the one heuristic
the reader's check and the lab's drift report share) · the book's side and the comparison.
"""
from __future__ import annotations

import ast
import base64
import difflib
import hashlib
import io
import itertools
import json
import operator
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any


# ==== source: a snapshot of Miles's tree, and reading it out of the Miles image ==============

class SourceError(RuntimeError):
    """The Miles source could not be opened or read."""


#: Seconds a local `git` call may take (reading a whole tree's blobs takes seconds) before it is called hung.
GIT_TIMEOUT = 600.0


def run_checked(cmd: list[str], *, data: bytes | None = None) -> bytes:
    """A local program's stdout; SourceError naming it when it cannot run, fails (what it said, escaped) or hangs."""
    try:
        proc = subprocess.run(cmd, input=data, capture_output=True, check=False, timeout=GIT_TIMEOUT)
    except FileNotFoundError as exc:
        raise SourceError(f"cannot run {cmd[0]!r}: {exc}") from exc
    except subprocess.TimeoutExpired:
        raise SourceError(f"{' '.join(cmd[:4])} ... did not answer within {GIT_TIMEOUT:g} s") from None
    if proc.returncode != 0:
        raise SourceError(f"{' '.join(cmd[:4])} ... failed: {shown(proc.stderr.decode(errors='replace').strip())}")
    return proc.stdout


def decode_text(data: bytes) -> str | None:
    """The file's text if it is a UTF-8 text file, else None (binary)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass
class Source:
    """A snapshot of Miles's tree: every file's bytes, plus where and at which commit it was read."""

    commit: str
    commit_date: str
    read_from: str
    blobs: dict[str, bytes] = field(default_factory=dict, repr=False)

    def paths(self) -> list[str]:
        """Every file path, sorted."""
        return sorted(self.blobs)

    def text(self, path: str) -> str | None:
        """The text of one file, or None when it is missing or binary."""
        data = self.blobs.get(path)
        return None if data is None else decode_text(data)

    def texts(self, suffix: str = "", under: str = "") -> dict[str, str]:
        """Path -> text for the text files under a folder with a given ending."""
        out = {}
        for path in self.paths():
            if path.startswith(under) and path.endswith(suffix):
                text = self.text(path)
                if text is not None:
                    out[path] = text
        return out

    def provenance(self, extractor: str) -> dict:
        """The provenance block every capture file carries (no machine paths)."""
        return {
            "commit": self.commit,
            "commit_date": self.commit_date,
            "read_from": self.read_from,
            "extractor": extractor,
        }


IMAGE_MILES_DIR = "/root/miles"
#: The fix for each way reading the image fails (its line names what failed, then this).
IMAGE_FIXES = {
    "docker": "install Docker, or run this on the host where you run the Miles image",
    "daemon": "start Docker, and add your user to the docker group (or run with sudo)",
    "pull": "check the image's name and tag (`docker pull IMAGE` by hand), `docker login` if the registry asks; "
            "a tag the registry no longer serves is gone: pull an image by its digest instead",
    "miles": f"pass a Miles image (radixark/miles): this one has no git checkout of Miles at {IMAGE_MILES_DIR}",
    "flags": "pass a Miles image (radixark/miles); if it is one, its Miles moved the files the extractor reads: "
             "download miles_tree.py again from the book, and use the book's commands with care",
}


def shown(text: str, limit: int = 300) -> str:
    """Text a program printed, safe to echo to a terminal: control characters, escapes and bidi overrides as
    Python escapes (`\\x1b`, `\\u202e`), cut to `limit` characters."""
    out = "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in text)
    return out if len(out) <= limit else out[:limit] + f"... ({len(out)} characters)"


def _docker_error(what: str, image: str, stderr: str, kind: str) -> SourceError:
    """One line: what failed (docker's last line, escaped) and its fix (IMAGE_FIXES[kind], or the daemon's)."""
    said = (stderr.strip().splitlines() or ["(no message)"])[-1].strip()
    if "permission denied while trying to connect" in said or "Cannot connect to the Docker daemon" in said:
        kind = "daemon"
    return SourceError(f"{what} of {image} failed: {shown(said)}. Fix: {IMAGE_FIXES[kind]}")


#: Seconds each docker call may take before it is called hung (a pull has none: it may take an hour, and
#: prints its progress): an inspect answers at once; a container's `git log` or `tar` of the tree in seconds.
DOCKER_TIMEOUTS = {"inspect": 60.0, "run": 600.0}


def _docker(docker: str, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([docker, *args], capture_output=True, check=False, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        verb = " ".join(args[:2])
        raise SourceError(f"`{docker} {verb}` did not answer within {timeout:g} s. Fix: check that Docker "
                          "answers (`docker info`; restart the daemon if it hangs), then run this again") from None
    except OSError as exc:
        raise SourceError(f"cannot run {docker!r}: {exc.strerror or exc}. Fix: {IMAGE_FIXES['docker']}") from None


#: Seconds a pull may print nothing before it is reported as making no progress (it goes on: Ctrl-C stops it).
PULL_QUIET_S = 120.0
#: The bytes of docker pull's output read at once, the longest progress line shown, and the error text kept.
PULL_CHUNK = 1 << 16


def _pull(docker: str, image: str, quiet_after: float | None = None) -> tuple[int, str]:
    """`docker pull IMAGE` with its progress (stdout) shown on stderr as it comes, and a line each time it has
    printed nothing for `quiet_after` seconds; no time limit (a large image takes as long as the network
    needs). Returns the exit status and docker's error text (its stderr), for the one-line error."""
    quiet_after = PULL_QUIET_S if quiet_after is None else quiet_after
    try:
        child = subprocess.Popen([docker, "pull", image], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL)
    except OSError as exc:
        raise SourceError(f"cannot run {docker!r}: {exc.strerror or exc}. Fix: {IMAGE_FIXES['docker']}") from None
    last_output = [time.monotonic()]
    errors: list[bytes] = []

    def echo() -> None:
        """Each line of progress, read in chunks: any byte is progress, a line with no end is shown once, cut."""
        held, cut = b"", False
        for chunk in iter(lambda: child.stdout.read1(PULL_CHUNK), b""):  # type: ignore[union-attr]
            last_output[0] = time.monotonic()
            *lines, held = (held + chunk).split(b"\n")
            if len(held) > PULL_CHUNK:  # no newline yet: show its start now, drop the rest of that line
                lines, held = [*lines, held], b""
            for raw in lines:
                if not cut:
                    print(f"docker pull: {shown(raw.decode(errors='replace').rstrip())}", file=sys.stderr, flush=True)
                cut = raw is lines[-1] and len(raw) > PULL_CHUNK and not held
        if held and not cut:
            print(f"docker pull: {shown(held.decode(errors='replace').rstrip())}", file=sys.stderr, flush=True)

    def keep_errors() -> None:
        """docker's error text, its last PULL_CHUNK bytes (the one-line error quotes its last line)."""
        tail = b""
        for chunk in iter(lambda: child.stderr.read1(PULL_CHUNK), b""):  # type: ignore[union-attr]
            tail = (tail + chunk)[-PULL_CHUNK:]
        errors.append(tail)

    readers = [threading.Thread(target=echo, daemon=True), threading.Thread(target=keep_errors, daemon=True)]
    for reader in readers:
        reader.start()
    try:
        while child.poll() is None:
            try:
                child.wait(timeout=min(quiet_after, 5.0))
            except subprocess.TimeoutExpired:
                pass
            quiet = time.monotonic() - last_output[0]
            if child.poll() is None and quiet >= quiet_after:
                print(f"docker pull of {image}: no progress for {quiet:.0f} s (it goes on; Ctrl-C stops it). If it "
                      "stays so, check the network and the registry (`docker pull IMAGE` by hand)",
                      file=sys.stderr, flush=True)
                last_output[0] = time.monotonic()
        for reader in readers:
            reader.join(timeout=5.0)
    except KeyboardInterrupt:
        child.terminate()
        raise SourceError(f"docker pull of {image} stopped by Ctrl-C. Fix: run it again; a pull resumes the "
                          "layers it already has") from None
    return child.returncode, b"".join(errors).decode(errors="replace")


#: What `docker image inspect --format '{{.Id}} ...'` prints first: an image id (`sha256:<hex>`; a reference
#: such as `repo@sha256:<hex>` from other engines), never control characters or undecodable bytes.
IMAGE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}")


def read_image(image: str, docker: str | None = None, pull: bool = True) -> Source:
    """Read /root/miles from the Miles image: digest, commit and files (pulled first when absent).

    Every failure is a one-line SourceError naming what failed and the fix; every docker call but the pull
    has a timeout (DOCKER_TIMEOUTS), and what docker printed is quoted escaped (`shown`)."""
    docker = docker or os.environ.get("MILES101_DOCKER", "docker")
    fmt = "{{.Id}} {{join .RepoDigests \",\"}}"
    inspect = DOCKER_TIMEOUTS["inspect"]
    found = _docker(docker, "image", "inspect", "--format", fmt, image, timeout=inspect)
    if found.returncode != 0 and pull:
        status, said = _pull(docker, image)
        if status != 0:
            raise _docker_error("docker pull", image, said, "pull")
        found = _docker(docker, "image", "inspect", "--format", fmt, image, timeout=inspect)
    if found.returncode != 0:
        raise _docker_error("docker image inspect", image, found.stderr.decode(errors="replace"), "pull")
    said = found.stdout.decode(errors="replace").strip()
    image_id, _, digests = said.partition(" ")
    if not IMAGE_ID.fullmatch(image_id):
        raise SourceError(f"docker image inspect of {image} printed {shown(said or '(nothing)')!s}, not an image "
                          "id. Fix: check that `docker` is Docker (`docker version`), or set MILES101_DOCKER to it")
    digest = (digests.split(",")[0] if digests else image_id).split("@")[-1]
    meta = _docker(docker, "run", "--rm", "--entrypoint", "git", image, "-C", IMAGE_MILES_DIR, "log", "-1",
                   "--format=%H %cs", timeout=DOCKER_TIMEOUTS["run"])
    printed = meta.stdout.decode(errors="replace")
    words = printed.split()
    if meta.returncode != 0 or len(words) != 2 or not re.fullmatch(r"[0-9a-f]{7,64}", words[0]) \
            or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", words[1]):
        raise _docker_error(f"reading the Miles commit at {IMAGE_MILES_DIR}", image,
                            meta.stderr.decode(errors="replace") or f"git printed {printed.strip() or 'no commit'!r}",
                            "miles")
    files = _docker(docker, "run", "--rm", "--entrypoint", "sh", image, "-c",
                    f"cd {IMAGE_MILES_DIR} && git ls-files -z | tar --null -T - -cf -", timeout=DOCKER_TIMEOUTS["run"])
    if files.returncode != 0:
        raise _docker_error(f"reading the files of {IMAGE_MILES_DIR}", image, files.stderr.decode(errors="replace"),
                            "miles")
    blobs = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(files.stdout)) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    handle = tar.extractfile(member)
                    if handle is not None:
                        blobs[member.name[2:] if member.name.startswith("./") else member.name] = handle.read()
    except tarfile.TarError as exc:
        raise SourceError(f"reading the files of {IMAGE_MILES_DIR} in {image} failed: {shown(str(exc))}. "
                          f"Fix: {IMAGE_FIXES['miles']}") from None
    return Source(commit=words[0], commit_date=words[1], read_from=f"image {digest}", blobs=blobs)


# ==== pyeval ============================================================
# A whitelist evaluator for the constant expressions argparse calls use (never ``eval``).

SUPPRESS = "==SUPPRESS=="


class Unresolved(Exception):
    """The expression needs runtime state (env vars, imports, calls) and is not evaluated."""


_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_BUILTINS = {"True": True, "False": False, "None": None}


def evaluate(node: ast.AST | None, env: dict[str, Any]) -> Any:
    """The value of a literal/arithmetic/f-string expression; names come from ``env``."""
    if node is None:
        raise Unresolved("nothing")
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [evaluate(e, env) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unresolved("dict unpacking")
        return {evaluate(k, env): evaluate(v, env) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](evaluate(node.operand, env))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = evaluate(node.left, env), evaluate(node.right, env)
        if isinstance(node.op, ast.Pow) and isinstance(right, int) and right > 64:
            raise Unresolved("huge power")
        try:
            return _BINOPS[type(node.op)](left, right)
        except Exception as exc:  # type errors, division by zero
            raise Unresolved(str(exc)) from exc
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                inner = evaluate(value.value, env)
                spec = evaluate(value.format_spec, env) if value.format_spec is not None else ""
                conv = {115: str, 114: repr, 97: ascii}.get(value.conversion)
                parts.append(format(conv(inner) if conv else inner, spec))
        return "".join(parts)
    if isinstance(node, ast.Name):
        if node.id in env:
            value = env[node.id]
            if isinstance(value, _Lazy):
                value = value.get()
            return value
        if node.id in _BUILTINS:
            return _BUILTINS[node.id]
        raise Unresolved(f"name {node.id}")
    if isinstance(node, ast.Attribute) and dotted(node) == "argparse.SUPPRESS":
        return SUPPRESS
    raise Unresolved(type(node).__name__)


def try_evaluate(node: ast.AST | None, env: dict[str, Any]) -> tuple[bool, Any]:
    """(True, value) when the expression evaluates, else (False, None)."""
    try:
        return True, evaluate(node, env)
    except (Unresolved, RecursionError):
        return False, None


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


class _Lazy:
    """A module constant evaluated on first use (so unrelated unresolvable ones cost nothing)."""

    def __init__(self, node: ast.AST, env: dict[str, Any]) -> None:
        self.node, self.env, self.state, self.value = node, env, "todo", None

    def get(self) -> Any:
        if self.state == "todo":
            self.state = "busy"  # a self-referencing constant is unresolved, not a loop
            try:
                self.value, self.state = evaluate(self.node, self.env), "ok"
            except Unresolved:
                self.state = "failed"
        if self.state != "ok":
            raise Unresolved("module constant needs runtime state")
        return self.value


def module_constants(tree: ast.Module) -> dict[str, Any]:
    """Module-level ``NAME = expr`` bindings, evaluated lazily with the whitelist evaluator."""
    env: dict[str, Any] = {}
    for stmt in tree.body:
        targets: list[ast.expr] = []
        value = None
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        for target in targets:
            if isinstance(target, ast.Name):
                env[target.id] = _Lazy(value, env)
    return env


# ==== pymodules ============================================================
# Parsed Python modules of the Miles tree, and name resolution across their imports.

@dataclass
class Module:
    """One parsed file: its tree, constants, imports, top-level functions and classes."""

    path: str
    name: str
    text: str
    tree: ast.Module
    consts: dict[str, Any]
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    funcs: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)

    def segment(self, node: ast.AST) -> str:
        """The source text of a node, on one line."""
        text = ast.get_source_segment(self.text, node) or ast.unparse(node)
        return " ".join(text.split())


def module_name(path: str) -> str:
    """``miles/a/b.py`` -> ``miles.a.b``; ``miles/a/__init__.py`` -> ``miles.a``."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _absolute(mod_name: str, is_pkg: bool, level: int, target: str | None) -> str:
    """Resolve a relative ``from .x import y`` against the importing module."""
    if level == 0:
        return target or ""
    base = mod_name.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([target] if target else []))


def parse_module(path: str, text: str) -> Module | None:
    """Parse one file; None when it is not valid Python."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError:
        return None
    name = module_name(path)
    mod = Module(path=path, name=name, text=text, tree=tree, consts=module_constants(tree))
    is_pkg = path.endswith("__init__.py")
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            base = _absolute(name, is_pkg, stmt.level, stmt.module)
            for alias in stmt.names:
                mod.imports[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                mod.imports[alias.asname or alias.name.split(".")[0]] = (alias.name, None)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mod.funcs[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            mod.classes[stmt.name] = stmt
    return mod


class Modules:
    """Lazy cache of the tree's Python modules by path and by dotted name."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._cache: dict[str, Module | None] = {}

    def by_path(self, path: str) -> Module | None:
        if path not in self._cache:
            text = self.source.text(path)
            self._cache[path] = None if text is None else parse_module(path, text)
        return self._cache[path]

    def by_name(self, dotted: str) -> Module | None:
        """The in-tree module for a dotted name, or None when it is outside Miles."""
        base = dotted.replace(".", "/")
        for path in (f"{base}.py", f"{base}/__init__.py"):
            if path in self.source.blobs:
                return self.by_path(path)
        return None

    def resolve(self, mod: Module, name: str, depth: int = 0) -> tuple[Module, ast.AST] | None:
        """The in-tree def (function or class) a module-level name refers to, following imports."""
        if name in mod.funcs:
            return mod, mod.funcs[name]
        if name in mod.classes:
            return mod, mod.classes[name]
        if name in mod.imports and depth < 5:
            target_name, attr = mod.imports[name]
            if attr is None:
                return None
            target = self.by_name(target_name)
            if target is not None:
                return self.resolve(target, attr, depth + 1)
        return None


def method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    """A method defined directly in a class body."""
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


def decorator_names(fn: ast.FunctionDef) -> set[str]:
    """Plain names of a function's decorators (``staticmethod``, ``classmethod``, ...)."""
    out = set()
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Name):
            out.add(dec.id)
        elif isinstance(dec, ast.Attribute):
            out.add(dec.attr)
    return out


# ==== flags ============================================================
# Miles's command-line flags, read with ``ast`` by following its argument registrars.
#
# Starting from the registrar roots, the walker follows every call that is handed the parser (into
# nested functions, module functions, imported helpers and static methods, binding their parameters
# from the call site), records ``add_argument``, ``reset_arg`` and ``set_defaults`` calls, expands
# ``for f in dataclasses.fields(C)`` loops into one flag per field, tags flags registered through
# ``fn.add_arguments = hook`` as conditional, and turns foreign registrars (SGLang's ServerArgs,
# sglang_router's RouterArgs) into passthrough families. Values that need runtime state are kept as
# their source text, never guessed.

# Where Miles builds its parsers: (file, dotted path of the registrar function inside it).
ROOTS = [
    ("miles/utils/arguments.py", "get_miles_extra_args_provider.add_miles_arguments"),
    ("miles/backends/fsdp_utils/arguments.py", "build_fsdp_parser"),
]
# Files whose ``args.X = ...`` assignments are post-parse derivations (Tier 3).
VALIDATION_FILES = [
    "miles/utils/arguments.py",
    "miles/backends/sglang_utils/arguments.py",
    "miles/backends/megatron_utils/arguments.py",
    "miles/backends/fsdp_utils/arguments.py",
]
# Foreign registrars Miles calls with its parser: what each one adds (knowledge of the package).
FOREIGN = {
    "ServerArgs.add_cli_args": {"kind": "sglang-passthrough", "package": "sglang"},
    "RouterArgs.add_cli_args": {"kind": "router-passthrough", "package": "sglang_router"},
}
BOOL_ACTIONS = {"store_true": False, "store_false": True, "BooleanOptionalAction": None}
TYPE_NAMES = {"int": "int", "float": "float", "str": "str", "bool": "bool", "json.loads": "json"}


@dataclass
class Scope:
    """What the walker knows inside one function: parser names, groups, bindings, context."""

    mod: Module
    env: dict[str, Any]
    group: str
    parsers: set[str] = field(default_factory=set)
    groups: dict[str, str] = field(default_factory=dict)
    defs: dict[str, ast.FunctionDef] = field(default_factory=dict)
    conditional: str | None = None
    patched: ast.FunctionDef | None = None
    parent: Scope | None = None

    def local_def(self, name: str) -> ast.FunctionDef | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.defs:
                return scope.defs[name]
            scope = scope.parent
        return None


def group_name(fn_name: str, inherited: str) -> str:
    """``add_rollout_arguments`` -> ``rollout``; ``build_fsdp_parser`` -> ``fsdp``; else inherit."""
    name = fn_name.lstrip("_")
    for head, tail in (("add_", "_arguments"), ("build_", "_parser")):
        if name.startswith(head) and name.endswith(tail) and len(name) > len(head) + len(tail):
            return name[len(head) : -len(tail)]
    return inherited


def backend_of(path: str) -> str:
    """Which training backend a file's flags belong to."""
    if "/fsdp_utils/" in path:
        return "fsdp"
    if "/megatron_utils/" in path:
        return "megatron"
    return "both"


def _render_callable(node: ast.AST, mod: Module) -> str:
    text = dotted(node)
    if text in TYPE_NAMES:
        return TYPE_NAMES[text]
    return f"<expr: {mod.segment(node)}>"


def _render_action(node: ast.AST | None, mod: Module, env: dict[str, Any]) -> str:
    if node is None:
        return "store"
    ok, value = try_evaluate(node, env)
    if ok and isinstance(value, str):
        return value
    text = dotted(node)
    if text and text.endswith("BooleanOptionalAction"):
        return "BooleanOptionalAction"
    return f"<expr: {mod.segment(node)}>"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, float) and value != value:
        return None
    return value


def _convert_string_default(value: Any, type_: str | None) -> Any:
    """argparse runs ``type`` on a string default; do the same for the types we know."""
    if not isinstance(value, str) or value == SUPPRESS:
        return value
    try:
        if type_ == "json":
            return json.loads(value)
        if type_ == "int":
            return int(value)
        if type_ == "float":
            return float(value)
    except ValueError:
        return value
    return value


def make_record(
    option_strings: list[str],
    kwargs: dict[str, ast.AST],
    *,
    kind: str,
    scope: Scope,
    line: int,
    file: str | None = None,
) -> dict:
    """One flag record from an ``add_argument``-shaped call (option strings already evaluated)."""
    mod, env = scope.mod, scope.env
    longs = [s for s in option_strings if s.startswith("--")]
    name = longs[0] if longs else option_strings[0]
    action = _render_action(kwargs.get("action"), mod, env)
    aliases = [s for s in option_strings if s != name]
    if action == "BooleanOptionalAction":
        aliases += [f"--no-{s[2:]}" for s in longs]
    ok, dest = try_evaluate(kwargs.get("dest"), env)
    dest = dest if ok and isinstance(dest, str) else name.lstrip("-").replace("-", "_")

    type_: str | None = _render_callable(kwargs["type"], mod) if "type" in kwargs else None
    if type_ is None and action in BOOL_ACTIONS:
        type_ = "bool"

    default, default_kind, default_expr = None, "none", None
    if "default" in kwargs:
        ok, value = try_evaluate(kwargs["default"], env)
        if ok:
            default, default_kind = _convert_string_default(_jsonable(value), type_), "literal"
        else:
            default_kind, default_expr = "computed", mod.segment(kwargs["default"])
    elif kind != "reset_arg":
        default_kind = "implicit"
        default = BOOL_ACTIONS.get(action) if action in BOOL_ACTIONS else None
        if action in ("count",):
            default = None

    choices, choices_expr = None, None
    if "choices" in kwargs:
        ok, value = try_evaluate(kwargs["choices"], env)
        if ok:
            choices = _jsonable(list(value))
        else:
            choices_expr = mod.segment(kwargs["choices"])

    def plain(key: str) -> Any:
        if key not in kwargs:
            return None
        ok, value = try_evaluate(kwargs[key], env)
        return _jsonable(value) if ok else f"<expr: {mod.segment(kwargs[key])}>"

    required = plain("required")
    return {
        "name": name,
        "aliases": aliases,
        "dest": dest,
        "type": type_,
        "default": default,
        "default_kind": default_kind,
        "default_expr": default_expr,
        "choices": choices,
        "choices_expr": choices_expr,
        "action": action,
        "nargs": plain("nargs"),
        "const": plain("const"),
        "required": bool(required) if isinstance(required, bool) else False,
        "group": scope.group,
        "backend": backend_of(file or mod.path),
        "family": "miles",
        "kind": kind,
        "conditional": scope.conditional,
        "file": file or mod.path,
        "line": line,
    }


class FlagWalker:
    """Walks registrar functions and collects flag records, families and notes."""

    def __init__(self, modules: Modules) -> None:
        self.modules = modules
        self.records: list[dict] = []
        self.families: list[dict] = []
        self.notes: list[dict] = []
        self._stack: list[tuple[str, int]] = []

    # ---- entry points -------------------------------------------------------------------
    def walk_root(self, path: str, qualname: str, conditional: str | None = None) -> None:
        """Walk a registrar given by file and dotted function path; its first parameter is the parser."""
        mod = self.modules.by_path(path)
        if mod is None:
            self.notes.append({"what": "registrar file missing", "file": path, "line": 0})
            return
        parts = qualname.split(".")
        fn: ast.AST | None = mod.funcs.get(parts[0])
        outer = Scope(mod=mod, env=dict(mod.consts), group="")
        for part in parts[1:]:
            if fn is None:
                break
            outer = Scope(mod=mod, env=dict(mod.consts), group="", parent=outer)
            outer.defs = {s.name: s for s in fn.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            fn = outer.defs.get(part)
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.notes.append({"what": f"registrar {qualname} not found", "file": path, "line": 0})
            return
        first = fn.args.args[0].arg if fn.args.args else None
        self.visit_function(mod, fn, {}, {first} if first else set(), outer, "", conditional)

    # ---- functions ------------------------------------------------------------------------
    def visit_function(
        self,
        mod: Module,
        fn: ast.FunctionDef,
        bindings: dict[str, Any],
        parsers: set[str],
        parent: Scope | None,
        inherited_group: str,
        conditional: str | None,
        patched: ast.FunctionDef | None = None,
    ) -> None:
        key = (mod.path, fn.lineno)
        if key in self._stack:
            return
        self._stack.append(key)
        env = dict(mod.consts)
        env.update(bindings)
        scope = Scope(
            mod=mod,
            env=env,
            group=group_name(fn.name, inherited_group),
            parsers=set(parsers),
            conditional=conditional,
            patched=patched,
            parent=parent,
        )
        self.walk_block(fn.body, scope)
        self._stack.pop()

    def walk_block(self, stmts: list[ast.stmt], scope: Scope) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scope.defs[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                continue
            elif isinstance(stmt, ast.For) and self._dataclass_loop(stmt, scope):
                continue
            elif isinstance(stmt, ast.Assign):
                self._assign(stmt, scope)
            elif isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)):
                for expr in (getattr(stmt, "test", None), getattr(stmt, "iter", None)):
                    if expr is not None:
                        self._calls_in(expr, scope)
                for item in getattr(stmt, "items", []):
                    self._calls_in(item.context_expr, scope)
                for block in ("body", "orelse", "finalbody"):
                    self.walk_block(getattr(stmt, block, []), scope)
                for handler in getattr(stmt, "handlers", []):
                    self.walk_block(handler.body, scope)
            else:
                self._calls_in(stmt, scope)

    def _assign(self, stmt: ast.Assign, scope: Scope) -> None:
        value = stmt.value
        for target in stmt.targets:
            if isinstance(target, ast.Attribute) and target.attr == "add_argument":
                # parser.add_argument = wrapper: foreign registrars called now go through the wrapper
                if isinstance(value, ast.Name):
                    wrapper = scope.local_def(value.id)
                    scope.patched = wrapper if wrapper is not None else None
                    if wrapper is None:
                        scope.patched = None
                continue
            if not isinstance(target, ast.Name):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                receiver = dotted(value.func.value)
                if value.func.attr == "add_argument_group" and receiver in scope.parsers | set(scope.groups):
                    ok, title = try_evaluate(value.args[0] if value.args else None, scope.env)
                    scope.groups[target.id] = title if ok else scope.group
                    continue
                if value.func.attr == "ArgumentParser":
                    scope.parsers.add(target.id)
                    continue
            if isinstance(value, ast.Name) and value.id == "old_add_argument":
                continue
            if isinstance(value, ast.Attribute) and value.attr == "add_argument":
                continue
            ok, val = try_evaluate(value, scope.env)
            if ok:
                scope.env[target.id] = val
        self._calls_in(value, scope)

    def _calls_in(self, node: ast.AST, scope: Scope) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self._call(sub, scope)

    # ---- calls ------------------------------------------------------------------------------
    def _call(self, call: ast.Call, scope: Scope) -> None:
        func = call.func
        receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Attribute) and func.attr == "add_argument":
            if receiver in scope.groups:
                self._add_argument(call, scope, group=scope.groups[receiver])
            elif receiver in scope.parsers:
                self._add_argument(call, scope)
            return
        if isinstance(func, ast.Attribute) and func.attr == "set_defaults" and receiver in scope.parsers:
            for kw in call.keywords:
                if kw.arg is None:
                    continue
                ok, value = try_evaluate(kw.value, scope.env)
                self.records.append(
                    {
                        **make_record([f"--{kw.arg.replace('_', '-')}"], {}, kind="set_defaults", scope=scope,
                                      line=call.lineno),
                        "dest": kw.arg,
                        "action": None,
                        "type": None,
                        "default": _jsonable(value) if ok else None,
                        "default_kind": "literal" if ok else "computed",
                        "default_expr": None if ok else scope.mod.segment(kw.value),
                    }
                )
            return
        if isinstance(func, ast.Name) and func.id == "reset_arg":
            self._add_argument(call, scope, kind="reset_arg", skip=1)
            return
        if not self._passes_parser(call, scope):
            return
        self._follow(call, scope)

    def _passes_parser(self, call: ast.Call, scope: Scope) -> bool:
        args = list(call.args) + [kw.value for kw in call.keywords]
        return any(isinstance(a, ast.Name) and a.id in scope.parsers for a in args)

    def _add_argument(self, call: ast.Call, scope: Scope, *, kind: str = "add_argument", skip: int = 0,
                      group: str | None = None) -> None:
        names = []
        for node in call.args[skip:]:
            ok, value = try_evaluate(node, scope.env)
            if not ok or not isinstance(value, str):
                self.notes.append(
                    {"what": f"unresolved option string {scope.mod.segment(node)}", "file": scope.mod.path,
                     "line": call.lineno}
                )
                return
            names.append(value)
        if not names or any(k.arg is None for k in call.keywords) and not names:
            return
        kwargs = {kw.arg: kw.value for kw in call.keywords if kw.arg is not None}
        local = scope if group is None else Scope(**{**scope.__dict__, "group": group})
        self.records.append(make_record(names, kwargs, kind=kind, scope=local, line=call.lineno))

    def _bind(self, fn: ast.FunctionDef, call: ast.Call, scope: Scope, skip_first: bool) -> tuple[dict, set]:
        """Bind a callee's parameters from a call site: (evaluated bindings, parser parameter names)."""
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if skip_first:
            params = params[1:]
        bindings: dict[str, Any] = {}
        parsers: set[str] = set()
        positional = params
        defaults = fn.args.defaults
        for name, node in zip(positional[len(positional) - len(defaults):], defaults):
            ok, value = try_evaluate(node, scope.env)
            if ok:
                bindings[name] = value
        for kwarg, node in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
            if node is not None:
                ok, value = try_evaluate(node, scope.env)
                if ok:
                    bindings[kwarg.arg] = value
        pairs = list(zip(positional, call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
        for name, node in pairs:
            if isinstance(node, ast.Name) and node.id in scope.parsers:
                parsers.add(name)
                continue
            ok, value = try_evaluate(node, scope.env)
            if ok:
                bindings[name] = value
        return bindings, parsers

    def _follow(self, call: ast.Call, scope: Scope) -> None:
        """Follow a call that is handed the parser: in-tree functions are walked, foreign ones noted."""
        func = call.func
        target: tuple[Module, ast.AST] | None = None
        skip_first = False
        if isinstance(func, ast.Name):
            local = scope.local_def(func.id)
            target = (scope.mod, local) if local is not None else self.modules.resolve(scope.mod, func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = self.modules.resolve(scope.mod, func.value.id)
            if owner is not None and isinstance(owner[1], ast.ClassDef):
                meth = method(owner[1], func.attr)
                if meth is not None:
                    target = (owner[0], meth)
                    skip_first = "staticmethod" not in decorator_names(meth)
        if target is not None and isinstance(target[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
            mod, fn = target
            bindings, parsers = self._bind(fn, call, scope, skip_first)
            self.visit_function(mod, fn, bindings, parsers, scope if mod is scope.mod else None, scope.group,
                                scope.conditional)
            return
        self._foreign(call, scope)

    def _foreign(self, call: ast.Call, scope: Scope) -> None:
        text = dotted(call.func) or scope.mod.segment(call.func)
        short = ".".join(text.split(".")[-2:])
        known = FOREIGN.get(short)
        if known is None:
            self.notes.append({"what": f"parser handed to {text} (not followed)", "file": scope.mod.path,
                               "line": call.lineno})
            return
        if known["kind"] == "sglang-passthrough":
            self.families.append(self._sglang_family(call, scope, known))
        else:
            self.families.append(self._router_family(call, scope, known))

    def _sglang_family(self, call: ast.Call, scope: Scope, known: dict) -> dict:
        """A ``--<prefix>-*`` family from the monkey-patched wrapper and its bound parameters."""
        prefix, dest_prefix = None, None
        wrapper = scope.patched
        if wrapper is not None:
            for node in ast.walk(wrapper):
                if isinstance(node, ast.JoinedStr):
                    prefix = _bound_head(node, scope.env)
                    if prefix:
                        break
        for name, value in scope.env.items():
            if "dest" in name and isinstance(value, str):
                dest_prefix = value
        skipped = next((v for k, v in scope.env.items() if "skip" in k and isinstance(v, list)), [])
        inherit = bool(scope.env.get("inherit", False))
        site = self._site(scope)
        return {
            "prefix": prefix,
            "kind": known["kind"],
            "package": known["package"],
            "registrar": dotted(call.func),
            "file": site[0],
            "line": site[1],
            "skipped": sorted(skipped),
            "dest_prefix": dest_prefix,
            "inherit": inherit,
            "group": scope.group,
            "members": None,
        }

    def _router_family(self, call: ast.Call, scope: Scope, known: dict) -> dict:
        kw = {k.arg: try_evaluate(k.value, scope.env)[1] for k in call.keywords if k.arg}
        # sglang_router's RouterArgs.add_cli_args(use_router_prefix=True) names flags --router-*
        # and dests router_*; exclude_host_port=True leaves out host and port.
        use_prefix = bool(kw.get("use_router_prefix"))
        return {
            "prefix": "--router-" if use_prefix else "--",
            "kind": known["kind"],
            "package": known["package"],
            "registrar": dotted(call.func),
            "file": scope.mod.path,
            "line": call.lineno,
            "skipped": ["host", "port"] if kw.get("exclude_host_port") else [],
            "dest_prefix": "router_" if use_prefix else "",
            "inherit": False,
            "group": scope.group,
            "members": None,
        }

    def _site(self, scope: Scope) -> tuple[str, int]:
        """The outermost call site on the stack that bound this family's prefix (file, line)."""
        return self._last_call_site or (scope.mod.path, 0)

    _last_call_site: tuple[str, int] | None = None

    # ---- dataclass-generated parsers ------------------------------------------------------------
    def _dataclass_loop(self, loop: ast.For, scope: Scope) -> bool:
        """``for f in dataclasses.fields(C): parser.add_argument(f"--{f.name...}")`` -> one flag per field."""
        it = loop.iter
        if not (isinstance(it, ast.Call) and (dotted(it.func) or "").split(".")[-1] == "fields" and it.args):
            return False
        if not isinstance(it.args[0], ast.Name):
            return False
        resolved = self.modules.resolve(scope.mod, it.args[0].id)
        if resolved is None or not isinstance(resolved[1], ast.ClassDef):
            return False
        mod, cls = resolved
        skipped = set()
        for node in ast.walk(loop):
            if isinstance(node, ast.If) and any(isinstance(s, ast.Continue) for s in node.body):
                for sub in ast.walk(node.test):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                        skipped.add(sub.value)
        boolean_optional = "BooleanOptionalAction" in ast.unparse(loop)
        cls_scope = Scope(mod=mod, env=dict(mod.consts), group=scope.group, conditional=scope.conditional)
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            fname = stmt.target.id
            if fname in skipped:
                continue
            ftype = _field_type(stmt.annotation)
            kwargs: dict[str, ast.AST] = {}
            if ftype == "bool":
                action = "BooleanOptionalAction" if boolean_optional else "store_true"
                kwargs["action"] = ast.Constant(action)
            elif ftype is not None:
                kwargs["type"] = ast.Name(ftype) if ftype in TYPE_NAMES else stmt.annotation
            default = _field_default(stmt.value)
            if default is not None:
                kwargs["default"] = default
            record = make_record([f"--{fname.replace('_', '-')}"], kwargs, kind="dataclass_field",
                                 scope=cls_scope, line=stmt.lineno)
            if default is None and stmt.value is None:
                record["default_kind"] = "none"
            record["dest"] = fname
            self.records.append(record)
        return True


def _bound_head(node: ast.JoinedStr, env: dict[str, Any]) -> str | None:
    """The leading part of an ``f"--{bound}-{runtime}"`` option string that the bindings fix."""
    head, bound = "", False
    for part in node.values:
        if isinstance(part, ast.Constant):
            head += str(part.value)
            continue
        ok, value = try_evaluate(part.value, env) if isinstance(part, ast.FormattedValue) else (False, None)
        if not ok:
            break
        head, bound = head + str(value), True
    return head if bound and head.startswith("--") else None


def _field_type(annotation: ast.AST) -> str | None:
    """``int | None`` -> ``int``; ``Optional[str]`` -> ``str``; a plain name -> itself."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side in (annotation.left, annotation.right):
            if not (isinstance(side, ast.Constant) and side.value is None):
                return _field_type(side)
    if isinstance(annotation, ast.Subscript) and dotted(annotation.value) in ("Optional", "typing.Optional"):
        return _field_type(annotation.slice)
    if isinstance(annotation, ast.Name):
        return annotation.id
    return None


def _field_default(value: ast.AST | None) -> ast.AST | None:
    """The default expression of a dataclass field (``= x`` or ``field(default=x)``)."""
    if value is None:
        return None
    if isinstance(value, ast.Call) and (dotted(value.func) or "").split(".")[-1] == "field":
        for kw in value.keywords:
            if kw.arg == "default":
                return kw.value
            if kw.arg == "default_factory":
                return value
        return None
    return value


def find_hooks(modules: Modules, paths: list[str]) -> list[tuple[str, str, str, int]]:
    """Every ``X.add_arguments = Y`` in the tree: (file, hook function Y, selected object X, line)."""
    hooks = []
    for path in paths:
        text = modules.source.text(path)
        if text is None or "add_arguments" not in text:
            continue
        mod = modules.by_path(path)
        if mod is None:
            continue
        for stmt in mod.tree.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
                for target in stmt.targets:
                    if isinstance(target, ast.Attribute) and target.attr == "add_arguments":
                        owner = dotted(target.value)
                        if owner:
                            hooks.append((path, stmt.value.id, owner, stmt.lineno))
    return hooks


def find_derived(modules: Modules) -> list[dict]:
    """``args.X = ...`` sites in validation code: dests whose value is set after parsing."""
    out = []
    for path in VALIDATION_FILES:
        mod = modules.by_path(path)
        if mod is None:
            continue
        for node in ast.walk(mod.tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                elts = target.elts if isinstance(target, ast.Tuple) else [target]
                for elt in elts:
                    if isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name) and elt.value.id == "args":
                        out.append({"dest": elt.attr, "file": path, "line": node.lineno})
    return sorted(out, key=lambda d: (d["dest"], d["file"], d["line"]))


class _SiteTrackingWalker(FlagWalker):
    """Remembers the call site of each followed helper, so a family points where its prefix is bound."""

    def _follow(self, call: ast.Call, scope: Scope) -> None:
        previous = self._last_call_site
        if self._passes_parser(call, scope) and any(kw.arg for kw in call.keywords):
            self._last_call_site = (scope.mod.path, call.lineno)
        try:
            super()._follow(call, scope)
        finally:
            self._last_call_site = previous


def extract_flags(source: Source, roots: list[tuple[str, str]] | None = None) -> dict:
    """Flag records, passthrough families, derived dests and notes for one Miles tree."""
    modules = Modules(source)
    walker = _SiteTrackingWalker(modules)
    for path, qualname in roots or ROOTS:
        walker.walk_root(path, qualname)
    py_paths = [p for p in source.paths() if p.endswith(".py") and p.startswith("miles/")]
    for path, hook, owner, line in find_hooks(modules, py_paths):
        selected = f"{modules.by_path(path).name}.{owner}"
        why = (f"only when --rollout-function-path or --custom-generate-function-path selects {selected} "
               f"(hook set at {path}:{line})")
        walker.walk_root(path, hook, conditional=why)
    for record in walker.records:
        if record["conditional"]:
            record["group"] = record["group"] or modules.by_path(record["file"]).name.split(".")[-1]
    records = sorted(walker.records, key=lambda r: (r["name"], r["file"], r["line"]))
    families = sorted(walker.families, key=lambda f: (f["prefix"] or "", f["file"], f["line"]))
    return {"flags": records, "families": families, "derived": find_derived(modules), "notes": walker.notes}


# ==== metrics ============================================================
# Metric keys Miles logs, found statically in ``miles/**/*.py``.
#
# * A string literal ``"<prefix>/<name>"`` (prefixes below) is a literal key.
# * An f-string starting with a prefix is a pattern (each formatted field matches ``.+``), unless
#   its fields are local string constants, in which case it is a literal.
# * ``dict_add_prefix(fn(...), "<prefix>/")`` expands to the prefix plus every key ``fn`` (a function
#   of the same module) puts in a dict; a prefix over an unknown dict becomes a pattern.
# * ``f"perf/{key}_time"`` over the Timer's log dict expands to every timer name Miles uses
#   (``timer("x")``, ``inverse_timer("x")``, bare ``@timer`` decorators).

PREFIXES = ("rollout", "train", "perf", "eval", "multi_turn", "passrate")
_KEY = re.compile(r"^(%s)/[A-Za-z0-9_@.\-/:]*[A-Za-z0-9_@)\]-]$" % "|".join(PREFIXES))
_PREFIX_ONLY = re.compile(r"^(%s)/([A-Za-z0-9_@.\-/]*/)?$" % "|".join(PREFIXES))
#: What only ever prefixes other keys (``dict_add_prefix(d, f"eval/{key}/")``): a key never ends in a separator.
_ENDS_AS_PREFIX = ("/", "-")
_NOT_A_KEY = re.compile(r"\.(pt|pth|json|jsonl|yaml|yml|txt|pkl|safetensors|bin|log)$|\*")
TIMER_RULE = ("miles/utils/train_metric_utils.py", "perf/", "_time")
# The rollout batch the trainer logs key by key: the function that builds it and the dict it returns.
BATCH_RULE = ("miles/ray/rollout/train_data_conversion.py", "convert_samples_to_train_data", "train_data")
BATCH_TYPE = "RolloutBatch"


@dataclass
class Found:
    key: str
    kind: str
    regex: str | None
    file: str
    line: int
    note: str | None = None

    def record(self) -> dict:
        out = {"key": self.key, "kind": self.kind, "regex": self.regex, "file": self.file, "line": self.line,
               "prefix": self.key.split("/", 1)[0]}
        return out | ({"note": self.note} if self.note else {})


def _fstring(node: ast.JoinedStr, consts: dict[str, str], empty: frozenset = frozenset()) -> tuple[str, str | None]:
    """(display key with <field> holes, anchored regex or None when fully constant).

    A hole matches ``.+``, or ``.*`` when its name is in ``empty`` (it can be the empty string)."""
    shown, regex, holes = [], [], False
    for part in node.values:
        if isinstance(part, ast.Constant):
            shown.append(str(part.value))
            regex.append(re.escape(str(part.value)))
            continue
        name = dotted(part.value) if isinstance(part, ast.FormattedValue) else None
        if name in consts:
            shown.append(consts[name])
            regex.append(re.escape(consts[name]))
            continue
        label = name or ast.unparse(part.value)
        shown.append(f"<{label}>")
        hole = ".*" if name in empty else ".+"
        if regex and regex[-1] in (".+", ".*"):
            regex[-1] = ".+" if ".+" in (hole, regex[-1]) else ".*"
        else:
            regex.append(hole)
        holes = True
    return "".join(shown), ("^" + "".join(regex) + "$") if holes else None


def _local_strings(fn: ast.AST) -> dict[str, str]:
    """``name = "literal"`` bindings inside one function (used to fill f-string holes)."""
    out: dict[str, str] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.value
    return out


def _dict_keys(fn: ast.FunctionDef) -> list[tuple[ast.AST, int]]:
    """Key expressions a function puts into dicts: ``d["k"] = ...`` and ``{"k": ...}``."""
    keys = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    keys.append((target.slice, node.lineno))
        elif isinstance(node, ast.Dict):
            keys += [(k, k.lineno) for k in node.keys if k is not None]
        elif isinstance(node, ast.DictComp):
            keys.append((node.key, node.lineno))
    return keys


def _timer_names(trees: dict[str, ast.Module]) -> list[tuple[str, str, int]]:
    """(timer name, file, line) for every ``timer("x")`` / ``inverse_timer("x")`` / ``@timer``."""
    out = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and dotted(node.func) in ("timer", "inverse_timer") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.append((arg.value, path, node.lineno))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(isinstance(d, ast.Name) and d.id == "timer" for d in node.decorator_list):
                    out.append((node.name, path, node.lineno))
    return out


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _owners(fn: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> the innermost def (``fn`` or one nested in it) that contains the node."""
    owner: dict[int, ast.AST] = {}
    for scope in [fn] + [d for d in ast.walk(fn) if isinstance(d, _DEFS) and d is not fn]:
        for node in ast.walk(scope):
            owner[id(node)] = scope
    return owner


def _param_values(fn: ast.AST) -> tuple[dict[tuple[int, str], list[str]], set[tuple[int, str]]]:
    """String values the parameters of defs nested in ``fn`` take, from the calls ``fn`` makes to them.

    Returns ((id(def), param) -> values, when every call passes a string literal or leaves the string
    default), and the (id(def), param) pairs left unresolved whose default is ``""`` (they can be empty)."""
    values: dict[tuple[int, str], list[str]] = {}
    empty: set[tuple[int, str]] = set()
    calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
    for d in ast.walk(fn):
        if not isinstance(d, _DEFS) or d is fn:
            continue
        sites = [c for c in calls if c.func.id == d.name]
        params = [a.arg for a in d.args.posonlyargs + d.args.args]
        defaults = dict(zip(params[len(params) - len(d.args.defaults):], d.args.defaults))
        defaults |= {a.arg: v for a, v in zip(d.args.kwonlyargs, d.args.kw_defaults) if v is not None}
        for i, param in enumerate(params + [a.arg for a in d.args.kwonlyargs]):
            got: set[str] = set()
            for call in sites:
                node = next((kw.value for kw in call.keywords if kw.arg == param), None)
                if node is None and i < len(params) and i < len(call.args):
                    node = call.args[i]
                node = defaults.get(param) if node is None else node
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    got.add(node.value)
                else:
                    got = set()
                    break
            default = defaults.get(param)
            if sites and got:
                values[(id(d), param)] = sorted(got)
            elif isinstance(default, ast.Constant) and default.value == "":
                empty.add((id(d), param))
    return values, empty


def _keys_in(node: ast.AST, consts: dict[str, str], owner: ast.AST | None = None,
             params: tuple[dict, set] = ({}, set())) -> list[tuple[str, str | None]]:
    """The keys one key expression stands for: an f-string hole bound to a parameter of ``owner``
    expands to each value the parameter takes (see ``_param_values``)."""
    if not isinstance(node, ast.JoinedStr):
        got = _key_from(node, consts)
        return [got] if got else []
    values, empty = params
    names = sorted({dotted(p.value) for p in node.values if isinstance(p, ast.FormattedValue)} - {None} - set(consts))
    bound = [n for n in names if (id(owner), n) in values]
    maybe_empty = frozenset(n for n in names if (id(owner), n) in empty)
    out = []
    for combo in itertools.product(*(values[(id(owner), n)] for n in bound)):
        out.append(_fstring(node, {**consts, **dict(zip(bound, combo))}, maybe_empty))
    return out


def _key_from(node: ast.AST, consts: dict[str, str]) -> tuple[str, str | None] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, None
    if isinstance(node, ast.JoinedStr):
        return _fstring(node, consts)
    return None


def _prefix_param(fn: ast.AST) -> str | None:
    """The parameter P of a function that builds ``{f"{P}/{key}": ... for key, ... in ...}``."""
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    for node in ast.walk(fn):
        if isinstance(node, ast.DictComp) and isinstance(node.key, ast.JoinedStr):
            parts = node.key.values
            if (len(parts) == 3 and isinstance(parts[0], ast.FormattedValue) and isinstance(parts[0].value, ast.Name)
                    and parts[0].value.id in params and isinstance(parts[1], ast.Constant) and parts[1].value == "/"):
                return parts[0].value.id
    return None


def _arg_value(fn: ast.AST, call: ast.Call, param: str) -> str | None:
    """The string literal a call passes for one parameter (by keyword or position)."""
    node = next((kw.value for kw in call.keywords if kw.arg == param), None)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if node is None and param in params and params.index(param) < len(call.args):
        node = call.args[params.index(param)]
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _binds_dict(fn: ast.AST, name: str) -> bool:
    """``name = {...}`` somewhere in the function."""
    return any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
               and any(isinstance(t, ast.Name) and t.id == name for t in n.targets) for n in ast.walk(fn))


def _named_dict_keys(fn: ast.AST, name: str) -> list[tuple[ast.AST, int]]:
    """Key expressions put into the dict ``name``: ``name[k] = ...`` and ``name = {k: ...}``."""
    out = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name:
                out.append((target.slice, node.lineno))
            elif isinstance(target, ast.Name) and target.id == name and isinstance(node.value, ast.Dict):
                out += [(k, k.lineno) for k in node.value.keys if k is not None]
    return out


def _annotation(fn: ast.AST, param: str) -> str | None:
    """The plain name a parameter is annotated with."""
    for arg in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
        if arg.arg == param and arg.annotation is not None:
            return dotted(arg.annotation)
    return None


def _loop_over(fn: ast.AST, key_node: ast.AST) -> tuple[ast.For, str] | None:
    """(loop, iterated name) when ``key_node`` is the key variable of ``for key, v in name.items()``."""
    if not isinstance(key_node, ast.Name):
        return None
    for loop in ast.walk(fn):
        if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Call):
            continue
        func = loop.iter.func
        target = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) else loop.target
        if (isinstance(func, ast.Attribute) and func.attr in ("items", "keys") and isinstance(func.value, ast.Name)
                and isinstance(target, ast.Name) and target.id == key_node.id
                and any(n is key_node for n in ast.walk(loop))):
            return loop, func.value.id
    return None


def _loop_key_lists(loop: ast.For) -> tuple[set[str], list[tuple[str, int]]]:
    """Keys a loop skips (``if key in [...]: continue``) and keys it handles (other ``key in [...]`` tests)."""
    skipped: set[str] = set()
    handled: list[tuple[str, int]] = []
    for node in ast.walk(loop):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.ops[0], ast.In) and isinstance(node.test.comparators[0], ast.List)):
            continue
        names = [(e.value, e.lineno) for e in node.test.comparators[0].elts
                 if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(node.body) == 1 and isinstance(node.body[0], ast.Continue):
            skipped |= {n for n, _ in names}
        else:
            handled += names
    return skipped, handled


class MetricScanner:
    """Collects literal keys and patterns over a set of parsed modules."""

    def __init__(self, trees: dict[str, ast.Module], modules: Modules | None = None) -> None:
        self.trees = trees
        self.modules = modules
        self.found: list[Found] = []

    def add(self, key: str, regex: str | None, path: str, line: int, note: str | None = None) -> None:
        if _NOT_A_KEY.search(key):
            return
        if regex is None and not _KEY.match(key):
            return
        self.found.append(Found(key, "pattern" if regex else "literal", regex, path, line, note))

    def scan(self) -> list[dict]:
        for path, tree in self.trees.items():
            self._scan_module(path, tree)
            self._scan_prefix_helpers(path, tree)
        self._expand_timers()
        best: dict[str, Found] = {}
        for item in sorted(self.found, key=lambda f: (f.key, f.file, f.line)):
            best.setdefault(item.key, item)
        return [f.record() for f in sorted(best.values(), key=lambda f: f.key)]

    def _scan_module(self, path: str, tree: ast.Module) -> None:
        funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        seen: set[int] = set()
        for scope in scopes + [tree]:
            consts = _local_strings(scope) if scope is not tree else {}
            for node in ast.walk(scope):
                if id(node) in seen:
                    continue
                if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("dict_add_prefix"):
                    self._prefix_call(path, node, funcs, consts)
                if isinstance(node, ast.JoinedStr):
                    seen.add(id(node))
                    for sub in ast.walk(node):
                        seen.add(id(sub))
                    shown, regex = _fstring(node, consts)
                    if (shown.startswith(tuple(p + "/" for p in PREFIXES)) and not _PREFIX_ONLY.match(shown)
                            and not shown.endswith(_ENDS_AS_PREFIX)):
                        if " " not in shown and not (path == TIMER_RULE[0] and shown == "perf/<key>_time"):
                            self.add(shown, regex, path, node.lineno)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and scope is tree:
                    self.add(node.value, None, path, node.lineno)

    # ---- helpers that prefix a caller's dict: gather_log_data("rollout", args, id, log_dict) ----------
    def _scan_prefix_helpers(self, path: str, tree: ast.Module) -> None:
        """``helper("<prefix>", ..., d)`` where the helper logs ``f"{param}/{key}"`` over a dict: the prefix
        plus every key the caller puts in ``d`` (``d["k"] = ...``, ``d = {"k": ...}``)."""
        for fn in [n for n in ast.walk(tree) if isinstance(n, _DEFS)]:
            owners = _owners(fn)
            for call in ast.walk(fn):
                if not isinstance(call, ast.Call) or owners.get(id(call)) is not fn:
                    continue
                target = self._resolve(path, call)
                param = _prefix_param(target[1]) if target else None
                if param is None:
                    continue
                prefix = _arg_value(target[1], call, param)
                if prefix not in PREFIXES:
                    continue
                for arg in call.args + [kw.value for kw in call.keywords]:
                    if isinstance(arg, ast.Name) and _binds_dict(fn, arg.id):
                        for key, regex, kpath, line, note in self._named_keys(path, fn, arg.id, call.lineno):
                            full_re = None if regex is None else "^" + re.escape(prefix + "/") + regex[1:]
                            self.add(f"{prefix}/{key}", full_re, kpath, line, note)

    def _named_keys(self, path: str, fn: ast.AST, name: str, before: int) -> list[tuple]:
        """(key, regex, file, line, note) for each key ``fn`` puts in the dict ``name``."""
        local, out = _local_strings(fn), []
        for key_node, line in _named_dict_keys(fn, name):
            loop = _loop_over(fn, key_node)
            if loop is not None and _annotation(fn, loop[1]) == BATCH_TYPE:
                out += self._batch_keys(path, fn, loop, before)
                continue
            got = _keys_in(key_node, local)
            if got:
                out += [(k, r, path, line, None) for k, r in got]
            else:
                out.append(("<key>", "^.+$", path, line, f"key {ast.unparse(key_node)} needs runtime state"))
        return out

    def _batch_keys(self, path: str, fn: ast.AST, loop: tuple[ast.For, str], before: int) -> list[tuple]:
        """Keys of the rollout batch a loop logs: what ``BATCH_RULE`` builds, what any ``RolloutBatch``
        parameter gets assigned (in ``fn`` only before the log call), and the keys ``fn`` tests the loop
        key against; minus the keys the loop skips (``if key in [...]: continue``)."""
        for_node, _ = loop
        skipped, handled = _loop_key_lists(for_node)
        keys: dict[str, tuple[str, int]] = {}
        rule_path, rule_fn, rule_var = BATCH_RULE
        rule = next((n for n in ast.walk(self.trees.get(rule_path, ast.Module(body=[]))) if isinstance(n, _DEFS)
                     and n.name == rule_fn), None)
        for key_node, line in _named_dict_keys(rule, rule_var) if rule else []:
            if isinstance(key_node, ast.Constant) and isinstance(key_node.value, str):
                keys.setdefault(key_node.value, (rule_path, line))
        for tpath, tree in self.trees.items():
            for other in ast.walk(tree):
                if not isinstance(other, _DEFS):
                    continue
                for arg in other.args.posonlyargs + other.args.args + other.args.kwonlyargs:
                    if _annotation(other, arg.arg) != BATCH_TYPE:
                        continue
                    for key_node, line in _named_dict_keys(other, arg.arg):
                        if other is fn and line > before:
                            continue
                        if isinstance(key_node, ast.Constant) and isinstance(key_node.value, str):
                            keys.setdefault(key_node.value, (tpath, line))
        for key, line in handled:
            keys.setdefault(key, (path, line))
        return [(k, None, kp, ln, None) for k, (kp, ln) in sorted(keys.items()) if k not in skipped]

    def _prefix_call(self, path: str, call: ast.Call, funcs: dict, consts: dict[str, str]) -> None:
        """``dict_add_prefix(fn(...), prefix)``: prefix + each key fn's dicts hold (followed into helpers)."""
        if len(call.args) < 2:
            return
        prefix = _key_from(call.args[1], consts)
        if prefix is None or not prefix[0].startswith(tuple(x + "/" for x in PREFIXES)):
            return
        p_shown, p_regex = prefix
        p_re = p_regex[1:-1] if p_regex else re.escape(p_shown)
        keys = self._keys_of_call(path, call.args[0], 0)
        if keys is None:
            self.add(p_shown + "<key>", "^" + p_re + ".+$", path, call.lineno)
            return
        for k_shown, k_regex, k_path, line in keys:
            if k_shown.split("/")[0] in PREFIXES and "/" in k_shown:
                continue  # already a full key
            if k_regex is None and p_regex is None:
                self.add(p_shown + k_shown, None, k_path, line)
            else:
                k_re = k_regex[1:-1] if k_regex else re.escape(k_shown)
                self.add(p_shown + k_shown, "^" + p_re + k_re + "$", k_path, line)

    def _resolve(self, path: str, node: ast.AST) -> tuple[str, ast.FunctionDef] | None:
        """The in-tree function a call's name refers to (same module or imported)."""
        name = dotted(node.func) if isinstance(node, ast.Call) else None
        if not name or "." in name or self.modules is None:
            return None
        mod = self.modules.by_path(path)
        found = self.modules.resolve(mod, name) if mod else None
        if found and isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return found[0].path, found[1]
        return None

    def _keys_of_call(self, path: str, node: ast.AST, depth: int) -> list[tuple] | None:
        """Keys of the dict a call returns, or None when the callee is unknown."""
        target = self._resolve(path, node)
        if target is None or depth > 4:
            return None
        fpath, fn = target
        local = _local_strings(fn)
        owners, params = _owners(fn), _param_values(fn)
        out: list[tuple] = []
        for key_node, line in _dict_keys(fn):
            for shown, regex in _keys_in(key_node, local, owners.get(id(key_node)), params):
                out.append((shown, regex, fpath, line))
        for sub in ast.walk(fn):
            merged: list[ast.AST] = []
            if isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.BitOr):
                merged.append(sub.value)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "update":
                merged += sub.args
            elif isinstance(sub, ast.Dict):
                merged += [v for k, v in zip(sub.keys, sub.values) if k is None]
            elif isinstance(sub, ast.Return) and isinstance(sub.value, ast.Call):
                merged.append(sub.value)
            for value in merged:
                if isinstance(value, ast.Call) and (dotted(value.func) or "").endswith("dict_add_prefix"):
                    inner = self._keys_of_call(fpath, value.args[0], depth + 1) if value.args else None
                    pre = _key_from(value.args[1], local) if len(value.args) > 1 else None
                    if inner is None or pre is None or pre[1] is not None:
                        continue
                    out += [(pre[0] + k, None if r is None else "^" + re.escape(pre[0]) + r[1:], p, ln)
                            for k, r, p, ln in inner]
                elif isinstance(value, ast.Call):
                    out += self._keys_of_call(fpath, value, depth + 1) or []
        return out

    def _expand_timers(self) -> None:
        if TIMER_RULE[0] not in self.trees:
            return
        _, head, tail = TIMER_RULE
        for name, path, line in _timer_names(self.trees):
            self.add(f"{head}{name}{tail}", None, path, line)
        for path, tree in self.trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and dotted(node.func) in ("timer", "inverse_timer") and node.args \
                        and isinstance(node.args[0], ast.JoinedStr):
                    shown, regex = _fstring(node.args[0], {})
                    if regex:
                        self.add(f"{head}{shown}{tail}", "^" + re.escape(head) + regex[1:-1] + re.escape(tail) + "$",
                                 path, node.lineno)


def extract_metrics(source: Source, under: str = "miles/") -> list[dict]:
    """Every metric key (literal or pattern) in the tree's Python files under ``under``."""
    trees = {}
    for path, text in source.texts(".py", under).items():
        if "/tests/" in path:
            continue
        try:
            trees[path] = ast.parse(text)
        except SyntaxError:
            continue
    return MetricScanner(trees, Modules(source)).scan()


# ==== renames: a vanished flag and a new one taken as one flag renamed ===================
# One heuristic for the reader's image check (below) and the lab's drift report (capture/drift/flags.py).

RENAME_HEURISTIC = (
    "a removed flag and an added flag are taken as one renamed flag when (1) they share a dest, or "
    "(2) the added flag's definition starts on the line the removed one's did, after a line diff of the "
    "file (needs the source text of both sides), or (3) it sits in the same file between the same two "
    "surviving flags with the same kind and type. These are guesses: check the heuristic named on each."
)


def _at(rec: dict) -> str:
    return f"{rec['file']}:{rec['line']}"


def _neighbours(records: list[dict], rec: dict, both: set[str]) -> tuple[str | None, str | None]:
    """The flags (of those on both sides) just before and after ``rec`` in its file."""
    same = sorted((r for r in records if r["file"] == rec["file"] and r["name"] in both), key=lambda r: r["line"])
    before = [r["name"] for r in same if r["line"] < rec["line"]]
    after = [r["name"] for r in same if r["line"] > rec["line"]]
    return (before[-1] if before else None), (after[0] if after else None)


def find_renames(removed: list[dict], added: list[dict], old_flags: list[dict], new_flags: list[dict],
                 linemap: Any = None) -> list[tuple[dict, dict, str]]:
    """(old record, new record, why) for removed/added pairs that look like one flag renamed (RENAME_HEURISTIC).

    Records carry name, dest, kind, type, file and line; ``old_flags``/``new_flags`` are every record of
    each side (rule 3 reads their places). ``linemap(file)`` maps the old file's lines onto the new
    one's (``.map(line)`` -> a span with ``tag``, ``start``, ``end``), or is None when a side has no
    source text: rule 2 is then skipped (the reader's check holds the book's flags, not its files)."""
    pairs: list[tuple[dict, dict, str]] = []
    removed, added = list(removed), list(added)

    def take(o: dict, n: dict, why: str) -> None:
        pairs.append((o, n, why))
        removed.remove(o)
        added.remove(n)

    for o in list(removed):
        hits = [n for n in added if n["dest"] == o["dest"]]
        if len(hits) == 1:
            take(o, hits[0], f"same dest {o['dest']!r}")
    for o in list(removed) if linemap is not None else []:
        lmap = linemap(o["file"])
        if lmap is None:
            continue
        spot = lmap.map(o["line"])
        hits = [n for n in added if n["file"] == o["file"] and n["kind"] == o["kind"]
                and (n["line"] == spot.start if spot.tag == "equal" else spot.start <= n["line"] <= spot.end)]
        if len(hits) == 1:
            how = "unchanged" if spot.tag == "equal" else "edited"
            take(o, hits[0], f"same definition line ({_at(o)} -> line {hits[0]['line']}, line {how} in a line diff)")
    both = {r["name"] for r in old_flags} & {r["name"] for r in new_flags}
    for o in list(removed):
        around = _neighbours(old_flags, o, both)
        if None in around:
            continue
        hits = [n for n in added if n["file"] == o["file"] and (n["kind"], n["type"]) == (o["kind"], o["type"])
                and _neighbours(new_flags, n, both) == around]
        if len(hits) == 1:
            take(o, hits[0], f"same place in {o['file']}, between {around[0]} and {around[1]}")
    return pairs


@dataclass(frozen=True)
class Mapped:
    """An old line's fate: ``equal`` (same text at ``start``) or edited into new lines start..end."""

    tag: str  # equal | replace | delete | insert
    start: int  # 1-based in the new file
    end: int


class LineMap:
    """Old line number -> new line number, from difflib's matching blocks (a line diff, as ``git diff``
    would see it). The lines are any hashable items: the text, or each line's digest (line_digests)."""

    def __init__(self, old: list, new: list) -> None:
        self.ops = difflib.SequenceMatcher(None, old, new).get_opcodes()

    def map(self, line: int) -> Mapped:
        """Where 1-based old ``line`` is in the new file."""
        i = line - 1
        for tag, i1, i2, j1, j2 in self.ops:
            if i1 <= i < i2:
                if tag == "equal":
                    return Mapped("equal", j1 + i - i1 + 1, j1 + i - i1 + 1)
                return Mapped(tag, j1 + 1, max(j1 + 1, j2))
        last = self.ops[-1] if self.ops else ("equal", 0, 0, 0, 0)
        return Mapped("delete", last[4] + 1, last[4] + 1)


#: Bytes of BLAKE2b kept per line: a line diff over the digests is the diff over the text (barring a
#: collision, about one in four billion per pair of lines).
DIGEST_BYTES = 4


def line_digests(text: str) -> str:
    """Each line's digest, concatenated and base64-encoded: a file's line diff, without its text."""
    return base64.b64encode(b"".join(hashlib.blake2b(line.encode("utf-8", "surrogateescape"),
                                                     digest_size=DIGEST_BYTES).digest()
                                     for line in text.splitlines())).decode("ascii")


def digest_lines(digests: str) -> list[bytes]:
    """line_digests() back to one digest a line, for LineMap."""
    raw = base64.b64decode(digests)
    return [raw[i:i + DIGEST_BYTES] for i in range(0, len(raw), DIGEST_BYTES)]


def flag_file_digests(source: Source, records: list[dict]) -> dict[str, str]:
    """line_digests() of every file that defines a flag (rule 2 of find_renames needs no more)."""
    out = {}
    for path in sorted({r["file"] for r in records}):
        text = source.text(path)
        if text is not None:
            out[path] = line_digests(text)
    return out


#: What a rename needs of a flag record (the book keeps these for the flags its commands pass).
PLACE_FIELDS = ("name", "dest", "kind", "type", "file", "line")


def flag_layout(records: list[dict], only: set[str] | None = None, lines: dict[str, str] | None = None) -> dict:
    """Where flags are defined, for find_renames: each file's flag names in line order, the records
    (PLACE_FIELDS) of every option, or of the options in ``only``, and the line digests of the files
    those records name (from ``lines``: flag_file_digests(), or flags.json's ``lines``)."""
    order: dict[str, list[list]] = {}
    defs: dict[str, dict] = {}
    for rec in sorted(records, key=lambda r: (r["file"], r["line"], r["name"])):
        placed = order.setdefault(rec["file"], [])
        if all(name != rec["name"] for name, _ in placed):
            placed.append([rec["name"], rec["line"]])
        for opt in [rec["name"], *rec.get("aliases", [])]:
            if (only is None or opt in only) and opt not in defs:
                defs[opt] = {k: rec.get(k) for k in PLACE_FIELDS}
    files = {d["file"] for d in defs.values()}
    return {"order": order, "defs": dict(sorted(defs.items())),
            "lines": {f: d for f, d in sorted((lines or {}).items()) if f in files}}


def layout_records(layout: dict) -> list[dict]:
    """Every flag of a layout (its first definition in each file) as a record find_renames reads."""
    return [{"name": n, "file": f, "line": line} for f, placed in layout["order"].items() for n, line in placed]


def where_it_failed(exc: BaseException) -> str | None:
    """The Miles file (and line) the extractor was reading when ``exc`` escaped it, from the traceback."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        local = tb.tb_frame.f_locals
        mod = local.get("mod") if isinstance(local.get("mod"), Module) else getattr(local.get("scope"), "mod", None)
        path = mod.path if isinstance(mod, Module) else local.get("path")
        if isinstance(path, str) and path.endswith(".py"):
            node = next((v for k in ("node", "call", "stmt") if isinstance(v := local.get(k), ast.AST)), None)
            line = getattr(node, "lineno", None)
            found = f"{path}:{line}" if line else path
        tb = tb.tb_next
    return found


# ==== the book: a tree's flags and metric keys against the book's ===========================
# The book's side (BOOK) is generated from Miles 101's capture, run files and pages by
# `python3 -m miles101.book_miles --write` and held equal to them by a test; the image's side is
# read by the extractor above. `compare` and `render` are the one comparison the reader's
# `preflight.py --compare-image` and the lab's campaign print.

#: Exit statuses of the comparison, by verdict (preflight.py --compare-image documents them).
VERDICTS = {
    "same": (0, "same as the book: use the book's commands as they are"),
    "elsewhere": (1, "differs only where no page looks: use the book's commands as they are"),
    "pages": (3, "differs where pages look: edit the flags listed above in those pages' commands, "
                 "or run the image a recording used, by its digest (section 6.4)"),
    "defaults": (4, "runs as the book's: your image changed only defaults of flags the commands pass, and they "
                    "pass them; use the book's commands as they are (what a page says of those defaults is the "
                    "book's commit's)"),
}
#: The exit status when the image could not be read (the line before it says what failed and the fix).
CANNOT_COMPARE = 2


def _show_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


#: A flag signature's parts after the backend, by name (how a change of each is shown).
SIGNATURE = ("default", "choices", "type", "action", "nargs", "const", "required")


def flag_signature(rec: dict) -> list:
    """What a command depends on in one flag record: [backend, default shown, choices shown or None, type,
    action, nargs, const, required]; a change in any part but the default can make a command fail."""
    kind = rec.get("default_kind")
    if kind == "computed":
        default = f"<computed: {rec.get('default_expr')}>"
    elif kind == "none":
        default = "(no default set)"
    else:
        default = _show_value(rec.get("default"))
    choices = rec.get("choices")
    shown = ", ".join(map(_show_value, choices)) if choices is not None else rec.get("choices_expr")
    return [rec.get("backend", "both"), default, shown,
            *(None if rec.get(k) is None else str(rec.get(k)) for k in ("type", "action", "nargs", "const")),
            bool(rec.get("required"))]


def flag_table(records: list[dict]) -> dict[str, list[list]]:
    """Every option string (name and aliases) -> the signatures of its records, sorted."""
    table: dict[str, list[list]] = {}
    for rec in records:
        for opt in [rec["name"], *rec.get("aliases", [])]:
            table.setdefault(opt, []).append(flag_signature(rec))
    return {opt: sorted(sigs, key=json.dumps) for opt, sigs in sorted(table.items())}


def metric_table(records: list[dict]) -> dict[str, str | None]:
    """Every metric key as the extractor shows it -> its regex (None for a literal key)."""
    return {rec["key"]: rec.get("regex") for rec in sorted(records, key=lambda r: r["key"])}


def tree_tables(source: Source) -> dict:
    """The image's side: its commit, flags and metric keys, read by the same extractor as the book's."""
    flags = extract_flags(source)
    if not flags["flags"]:
        missing = [n["file"] for n in flags["notes"] if "registrar" in n["what"]]
        raise SourceError(f"the extractor found no Miles flag in the tree{' (missing: ' + ', '.join(missing) + ')' if missing else ''}"
                          f". Fix: {IMAGE_FIXES['flags']}")
    return {"commit": source.commit, "date": source.commit_date, "read_from": source.read_from,
            "flags": flag_table(flags["flags"]), "metrics": metric_table(extract_metrics(source)),
            "layout": flag_layout(flags["flags"], lines=flag_file_digests(source, flags["flags"]))}


def logs_key(key: str, metrics: dict[str, str | None]) -> bool:
    """Whether a tree logs the key a page names (a literal, a pattern's shown form, or a match of a pattern)."""
    return key in metrics or any(rx and re.fullmatch(rx, key) for rx in metrics.values())


def _describe(book: list[list] | None, image: list[list] | None) -> tuple[str, str]:
    """(kind of change, what changed) for one option: missing; default (only the default moved); changed
    (its choices, its backend, or any other part of its signature: never called default-only)."""
    if not image:
        return "missing", "your image has no such flag"
    parts = []
    for i, label in enumerate(SIGNATURE, start=1):
        was = sorted({str(s[i]) for s in book or [] if i < len(s)})
        now = sorted({str(s[i]) for s in image if i < len(s)})
        if was != now:
            parts.append(f"{label} {' / '.join(was) or '-'} -> {' / '.join(now) or '-'}")
    rest = [sorted(json.dumps(s[:1] + s[2:]) for s in sigs) for sigs in (book or [], image)]
    if parts and rest[0] == rest[1] and parts[0].startswith("default "):
        return "default", parts[0]
    return "changed", "; ".join(parts) or "its backend changed: " + ", ".join(s[0] for s in image)


def renames(book: dict, image: dict, vanished: list[str]) -> dict[str, tuple[str, str]]:
    """Option the commands pass that the image lacks -> (the image's new flag, why) by find_renames,
    when both sides carry a layout (the book's records of the flags it passes, the image's of all)."""
    old, new = book.get("layout"), image.get("layout")
    if not old or not new:
        return {}
    removed = [old["defs"][o] for o in vanished if o in old["defs"]]
    added = [rec for opt, rec in new["defs"].items() if opt == rec["name"] and opt not in book["flags"]]

    def linemap(file: str) -> LineMap | None:  # rule 2: a line diff of the file, over its lines' digests
        was, now = old.get("lines", {}).get(file), new.get("lines", {}).get(file)
        return LineMap(digest_lines(was), digest_lines(now)) if was and now else None

    pairs = find_renames(removed, added, layout_records(old), layout_records(new), linemap)
    by_name = {rec["name"]: opt for opt, rec in old["defs"].items()}
    return {by_name.get(o["name"], o["name"]): (n["name"], why) for o, n, why in pairs}


#: How each kind of change reads, and the order the report lists them in (a command fails first).
KIND_ORDER = ("missing", "renamed", "changed", "default")


def compare(book: dict, image: dict) -> dict:
    """The image against the book: changed flags by flag (and by page and run), unlogged metric keys, the verdict."""
    cited = {f for passed in book["runs"].values() for f in passed}
    vanished = sorted(o for o in cited if o in book["flags"] and not image["flags"].get(o))
    renamed = renames(book, image, vanished)

    def flag_change(opt: str) -> dict | None:
        was, now = book["flags"].get(opt), image["flags"].get(opt)
        if was == now:
            return None
        kind, what = _describe(was, now)
        if kind == "missing" and opt in renamed:
            kind, what = "renamed", f"your image has no such flag; probably renamed {renamed[opt][0]}: {renamed[opt][1]}"
        return {"flag": opt, "kind": kind, "what": what}

    changes = {o: c for o in sorted(cited) if (c := flag_change(o))}
    by_run: dict[str, list[dict]] = {}
    for run_id, passed in book["runs"].items():
        changed = [{**changes[f], "passes": passed[f]} for f in passed if f in changes]
        if changed:
            by_run[run_id] = changed
    pages = []
    for page in book["pages"]:
        runs = [{"run": r, "flags": by_run[r]} for r in page["runs"] if r in by_run]
        if runs:
            pages.append({"page": page["title"], "file": page["file"], "runs": runs})
    shown = {r for p in book["pages"] for r in p["runs"]}
    lab = [{"run": r, "flags": f} for r, f in by_run.items() if r not in shown]
    flags = []
    for opt, c in changes.items():
        on_pages = [{"page": p["page"], "file": p["file"], "runs": [r["run"] for r in p["runs"]
                                                                     if any(f["flag"] == opt for f in r["flags"])]}
                    for p in pages]
        on_pages = [p for p in on_pages if p["runs"]]
        lab_runs = [r["run"] for r in lab if any(f["flag"] == opt for f in r["flags"])]
        runs = list(dict.fromkeys([r for p in on_pages for r in p["runs"]] + lab_runs))
        passes = sorted({book["runs"][r][opt] for r in runs})
        flags.append({**c, "passes": passes, "runs": len(runs), "pages": on_pages, "lab_runs": lab_runs,
                      **({"renamed_to": renamed[opt][0]} if c["kind"] == "renamed" else {})})
    first = book["pages"][0]["file"] if book["pages"] else None
    flags.sort(key=lambda f: (KIND_ORDER.index(f["kind"]), not any(p["file"] == first for p in f["pages"]),
                              -f["runs"], f["flag"]))
    metrics = [{"key": k, "pages": p} for k, p in book["metric_reads"].items() if not logs_key(k, image["metrics"])]
    targets = {f.get("renamed_to") for f in flags}
    flags_elsewhere = sorted(o for o in set(book["flags"]) | set(image["flags"])
                             if o not in cited and o not in targets and book["flags"].get(o) != image["flags"].get(o))
    metrics_elsewhere = sorted((set(book["metrics"]) ^ set(image["metrics"])) - set(book["metric_reads"]))
    if metrics or any(f["kind"] != "default" for f in flags):
        verdict = "pages"
    elif flags:
        verdict = "defaults"
    elif flags_elsewhere or metrics_elsewhere:
        verdict = "elsewhere"
    else:
        verdict = "same"
    return {"image": {k: image[k] for k in ("commit", "date", "read_from")}, "book": book["read"],
            "pin": book["pin"], "flags": flags, "pages": pages, "lab_runs": lab, "metrics": metrics,
            "elsewhere": {"flags": flags_elsewhere, "metrics": metrics_elsewhere},
            "passthrough": len(book["passthrough"]), "verdict": verdict, "exit": VERDICTS[verdict][0]}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _flag_head(f: dict) -> str:
    """One flag's line: what changed, what the commands pass, and how many runs and pages it touches."""
    values = sorted(f["passes"], key=lambda v: (len(v), v))  # 2 before 10
    passes = f"{f['flag']} {' / '.join(values[:3])}{' / ... (' + str(len(values)) + ' values)' if len(values) > 3 else ''}"
    passes = passes.rstrip()
    reach = f"{_count(f['runs'], 'run')}, {_count(len(f['pages']), 'page')}"
    if f["kind"] == "default":
        return f"{f['flag']}: {f['what']}; the commands pass {passes}, so they run as the book's ({reach})"
    return f"{f['flag']}: {f['what']} (the commands pass {passes}; {reach})"


def render(report: dict, image_name: str, all_runs: bool = False) -> str:
    """The comparison as the reader reads it: both commits, the changes one flag a group (the first page's
    runs named first, the rest counted unless ``all_runs``), the metric keys, the verdict."""
    img, book = report["image"], report["book"]
    lines = [f"image  {image_name}: Miles {img['commit'][:9]} of {img['date']} ({img['read_from']})",
             f"book   Miles {book['commit'][:9]} of {book['date']} (its flags and metric keys were read there; "
             f"the pin is {report['pin']['commit']})"]
    if report["flags"]:
        lines.append("flags the book's commands pass that your image lacks or changed, by flag:")
        hidden = False
        for f in report["flags"]:
            lines.append(f"  {_flag_head(f)}")
            shown = f["pages"] if all_runs else f["pages"][:1]
            lines += [f"    {p['page']}: {', '.join(p['runs'])}" for p in shown]
            if f["lab_runs"] and (all_runs or not shown):
                lines.append(f"    runs the lab records whose command no page shows: {', '.join(f['lab_runs'])}")
                continue
            rest = f["pages"][len(shown):]
            more = [f"{_count(sum(len(p['runs']) for p in rest), 'more run')} on {_count(len(rest), 'more page')}"
                    ] if rest else []
            more += [f"{_count(len(f['lab_runs']), 'run')} the lab records that no page shows"] if f["lab_runs"] else []
            if more:
                hidden = True
                lines.append(f"    and {'; and '.join(more)}")
        if hidden:
            lines.append("  (--all names every run)")
    if report["metrics"]:
        lines.append("metric keys the pages read that your image no longer logs:")
        lines += [f"  {m['key']}: {', '.join(m['pages'])}" for m in report["metrics"]]
    other = report["elsewhere"]
    parts = [f"{_count(len(names), noun)} ({', '.join(names)})"
             for names, noun in ((other["flags"], "flag"), (other["metrics"], "metric key")) if names]
    if parts:
        lines.append(f"differs where no page's command or metric looks: {'; '.join(parts)}")
    lines.append(f"not compared: {_count(report['passthrough'], 'flag')} the commands pass through to SGLang, the "
                 "router or Megatron-LM (your image's Miles does not define them)")
    lines.append(f"verdict: {VERDICTS[report['verdict']][1]}")
    return "\n".join(lines)


# --- book: generated from capture/miles/, capture/runs/ and the pages by `python3 -m miles101.book_miles --write`; do not edit ---
BOOK_JSON = r'''{
 "schema": "miles101-book-miles/1",
 "read": {"commit": "31f1ca961a94cb860cec3b2dea34ec332bfa8f76", "date": "2026-08-21"},
 "pin": {"commit": "08752a1283", "date": "2026-10-15"},
 "pages": [
  {"file": "sections/1-1-run-grpo-on-one-gpu.md", "title": "1.1 Run GRPO on one GPU", "runs": ["first-grpo-smoke", "first-grpo"]},
  {"file": "sections/2-1-pick-a-model-size.md", "title": "2.1 Pick a model size", "runs": ["model-size-sweep"]},
  {"file": "sections/3-1-train-math-on-gsm8k.md", "title": "3.1 Train math on GSM8K", "runs": ["recipe-gsm8k"]},
  {"file": "sections/3-2-train-with-the-dapo-filter.md", "title": "3.2 Train with the DAPO filter", "runs": ["recipe-dapo"]},
  {"file": "sections/3-3-train-an-agent.md", "title": "3.3 Train an agent", "runs": ["agent-multi-turn", "agent-session"]},
  {"file": "sections/3-4-train-a-moe-model.md", "title": "3.4 Train a MoE model", "runs": ["recipe-moe", "recipe-moe-r3"]},
  {"file": "sections/3-5-write-a-custom-reward.md", "title": "3.5 Write a custom reward", "runs": ["reward-samples"]},
  {"file": "sections/4-3-roll-out-in-fp8.md", "title": "4.3 Roll out in FP8", "runs": ["speed-megatron-fp8-rollout", "speed-megatron-bf16"]},
  {"file": "sections/4-4-lower-the-logprob-gap.md", "title": "4.4 Lower the logprob gap", "runs": ["speed-tis", "speed-tis-icepop", "speed-tis-mis"]},
  {"file": "sections/4-5-use-deterministic-inference.md", "title": "4.5 Use deterministic inference", "runs": ["speed-deterministic-a"]},
  {"file": "sections/5-2-check-the-first-step.md", "title": "5.2 Check the first step", "runs": ["ci-check", "debug-rollout-only", "debug-train-only"]},
  {"file": "sections/5-3-repeat-a-run.md", "title": "5.3 Repeat a run", "runs": ["seed-repeats"]},
  {"file": "sections/6-1-split-rollout-and-training.md", "title": "6.1 Split rollout and training", "runs": ["split-8gpu"]},
  {"file": "sections/6-2-run-a-separate-eval-fleet.md", "title": "6.2 Run a separate eval fleet", "runs": ["eval-inline"]},
  {"file": "sections/6-3-survive-failures.md", "title": "6.3 Survive failures", "runs": ["checkpoint-run", "resume-part1", "resume-part2"]}
 ],
 "runs": {
  "agent-multi-turn": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--colocate": "", "--custom-generate-function-path": "miles.rollout.generate_hub.multi_turn.generate", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--eval-interval": "20", "--eval-max-response-len": "1024", "--eval-prompt-data": "gsm8k /root/datasets/gsm8k/test.parquet", "--eval-top-k": "1", "--generate-execute-tool-function-path": "my_tools.execute_tool", "--generate-max-turns": "4", "--generate-tool-call-parser": "qwen25", "--generate-tool-specs-path": "my_tools.tool_specs", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--log-multi-turn": "", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-eval-prompt": "1", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "100", "--observe-training-entropy": "", "--optimizer": "adam", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-context-len": "4096", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "agent-session": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--colocate": "", "--custom-agent-function-path": "my_agent.run", "--custom-generate-function-path": "miles.rollout.generate_hub.agentic_tool_call.generate", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--eval-interval": "20", "--eval-max-response-len": "1024", "--eval-prompt-data": "gsm8k /root/datasets/gsm8k/test.parquet", "--eval-top-k": "1", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--max-seq-len": "8192", "--n-samples-per-eval-prompt": "1", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "100", "--observe-training-entropy": "", "--optimizer": "adam", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--tito-model": "qwen3", "--train-backend": "fsdp", "--use-session-server": "", "--weight-decay": "0.1"},
  "checkpoint-run": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--load": "/root/checkpoints/checkpoint-run", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "48", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--save": "/root/checkpoints/checkpoint-run", "--save-interval": "10", "--save-trigger-sentinel": "/root/checkpoints/save-now", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "ci-check": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--ci-test": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "2", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "debug-rollout-only": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--debug-rollout-only": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "2", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--save-debug-rollout-data": "/root/logs/debug/rollout_{rollout_id}.pt", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "debug-train-only": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--load-debug-rollout-data": "/root/logs/debug/rollout_{rollout_id}.pt", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "2", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "eval-inline": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--eval-interval": "10", "--eval-prompt-data": "gsm8k /root/datasets/gsm8k/test.parquet", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-eval-prompt": "1", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "48", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "first-grpo": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "48", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "first-grpo-smoke": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "2", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "model-size-sweep": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "64", "--hf-checkpoint": "/root/models/Qwen3-4B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "10", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "8", "--rollout-max-response-len": "256", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--update-weight-buffer-size": "536870912", "--weight-decay": "0.1"},
  "offload-variants": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "64", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--no-offload-train": "", "--num-gpus-per-node": "1", "--num-rollout": "20", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "8", "--rollout-max-response-len": "256", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--update-weight-buffer-size": "536870912", "--weight-decay": "0.1"},
  "recipe-dapo": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--dynamic-sampling-filter-path": "miles.rollout.filter_hub.dynamic_sampling_filters.check_reward_nonzero_std", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--eval-interval": "20", "--eval-max-response-len": "1024", "--eval-prompt-data": "gsm8k /root/datasets/gsm8k/test.parquet", "--eval-top-k": "1", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-eval-prompt": "1", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "100", "--observe-training-entropy": "", "--optimizer": "adam", "--over-sampling-batch-size": "64", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "recipe-gsm8k": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--eval-interval": "20", "--eval-max-response-len": "1024", "--eval-prompt-data": "gsm8k /root/datasets/gsm8k/test.parquet", "--eval-top-k": "1", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-eval-prompt": "1", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "100", "--observe-training-entropy": "", "--optimizer": "adam", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "recipe-moe": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-30B-A3B-5layer", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "10", "--observe-training-entropy": "", "--optimizer": "adam", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "recipe-moe-r3": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-30B-A3B-5layer", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "10", "--observe-training-entropy": "", "--optimizer": "adam", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--use-rollout-routing-replay": "", "--weight-decay": "0.1"},
  "resume-part1": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--debug-exit-after-rollout": "4", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--load": "/root/checkpoints/resume-test", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "8", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--save": "/root/checkpoints/resume-test", "--save-interval": "2", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "resume-part2": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--load": "/root/checkpoints/resume-test", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "8", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--save": "/root/checkpoints/resume-test", "--save-interval": "2", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "reward-samples": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--debug-rollout-only": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "1", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--save-debug-rollout-data": "/root/miles/dump/{rollout_id}.pt", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "seed-repeats": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "48", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "speed-deterministic-a": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "speed-deterministic-b": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "speed-long-baseline": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--dynamic-sampling-filter-path": "miles.rollout.filter_hub.dynamic_sampling_filters.check_reward_nonzero_std", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--over-sampling-batch-size": "64", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "4096", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "speed-long-partial": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--dynamic-sampling-filter-path": "miles.rollout.filter_hub.dynamic_sampling_filters.check_reward_nonzero_std", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--over-sampling-batch-size": "64", "--partial-rollout": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "4096", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "speed-megatron-bf16": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--ref-load": "/root/models/Qwen3-0.6B_torch_dist", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "megatron", "--weight-decay": "0.1"},
  "speed-megatron-fp8-rollout": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B-FP8", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--ref-load": "/root/models/Qwen3-0.6B_torch_dist", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "megatron", "--weight-decay": "0.1"},
  "speed-tis": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--use-tis": "", "--weight-decay": "0.1"},
  "speed-tis-icepop": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--custom-tis-function-path": "miles.backends.training_utils.loss_hub.corrections.icepop_function", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--use-tis": "", "--weight-decay": "0.1"},
  "speed-tis-mis": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--custom-config-path": "/root/miles/examples/infra_features/train_infer_mismatch_helper/mis.yaml", "--custom-tis-function-path": "examples.infra_features.train_infer_mismatch_helper.mis.compute_mis_weights_fsdp", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--use-tis": "", "--weight-decay": "0.1"},
  "split-8gpu": {"--actor-num-gpus-per-node": "4", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "256", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "8", "--num-rollout": "48", "--observe-training-entropy": "", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "32", "--rollout-max-response-len": "1024", "--rollout-num-gpus": "4", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--weight-decay": "0.1"},
  "weight-update": {"--actor-num-gpus-per-node": "1", "--actor-num-nodes": "1", "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--advantage-estimator": "grpo", "--apply-chat-template": "", "--colocate": "", "--eps-clip": "0.2", "--eps-clip-high": "0.28", "--global-batch-size": "64", "--hf-checkpoint": "/root/models/Qwen3-0.6B", "--input-key": "messages", "--label-key": "label", "--lr": "1e-6", "--lr-decay-style": "constant", "--n-samples-per-prompt": "8", "--num-gpus-per-node": "1", "--num-rollout": "20", "--prompt-data": "/root/datasets/gsm8k/train.parquet", "--rm-type": "math", "--rollout-batch-size": "8", "--rollout-max-response-len": "256", "--rollout-num-gpus-per-engine": "1", "--rollout-seed": "42", "--rollout-shuffle": "", "--rollout-temperature": "1", "--seed": "1234", "--train-backend": "fsdp", "--update-weight-buffer-size": "536870912", "--weight-decay": "0.1"}
 },
 "passthrough": ["--attention-dropout", "--disable-bias-linear", "--ffn-hidden-size", "--group-query-attention", "--hidden-dropout", "--hidden-size", "--kv-channels", "--norm-epsilon", "--normalization", "--num-attention-heads", "--num-layers", "--num-query-groups", "--qk-layernorm", "--rotary-base", "--sglang-attention-backend", "--sglang-decode-log-interval", "--sglang-enable-deterministic-inference", "--sglang-mem-fraction-static", "--swiglu", "--use-rotary-position-embeddings", "--vocab-size"],
 "metric_reads": {
  "eval/gsm8k": ["3.1", "3.2"],
  "eval/step": ["front"],
  "multi_turn/raw_response_length/response_length_mean": ["3.3"],
  "multi_turn/wo_obs_response_length/response_length_mean": ["3.3"],
  "perf/actor_train_mfu": ["1.3", "6.4", "front"],
  "perf/actor_train_time": ["1.1", "1.3"],
  "perf/cpu_memory_after_offload_train_gb": ["8.4"],
  "perf/log_probs_time": ["1.1", "1.3"],
  "perf/rollout_time": ["1.1", "1.3", "3.1", "3.2", "3.4", "4.1", "4.2", "4.3", "4.5", "8.1", "run speed-deterministic-b", "run speed-long-baseline", "run speed-long-partial"],
  "perf/sleep_time": ["1.1", "1.3", "8.1", "run weight-update"],
  "perf/step_time": ["1.1", "1.2", "1.3", "2.1", "3.1", "3.2", "3.4", "4.1", "4.4", "7.1", "8.1", "run offload-variants", "run speed-long-baseline", "run speed-long-partial", "run weight-update"],
  "perf/tokens_per_gpu_per_sec": ["1.3"],
  "perf/train_time": ["1.1", "1.3", "8.1"],
  "perf/train_wait_time": ["1.3", "run offload-variants"],
  "perf/update_weights_time": ["1.1", "1.3", "4.3", "8.1", "run offload-variants", "run weight-update"],
  "perf/wait_time_ratio": ["1.1", "1.3", "4.1", "6.1"],
  "perf/wake_up_time": ["1.1", "1.3", "8.1", "run weight-update"],
  "rollout/advantages": ["1.3"],
  "rollout/dynamic_filter/drop_group_has_aborted": ["3.3"],
  "rollout/dynamic_filter/drop_zero_std_0": ["3.2"],
  "rollout/dynamic_filter/drop_zero_std_1": ["3.2"],
  "rollout/error_cat/correct": ["3.5"],
  "rollout/error_cat/no_box": ["3.5"],
  "rollout/fully_async/avg_staleness": ["4.1"],
  "rollout/fully_async/max_staleness": ["4.1"],
  "rollout/fully_async/stale_groups_filtered": ["4.1"],
  "rollout/log_probs": ["1.3", "4.4", "5.2"],
  "rollout/prefix_cache_hit_rate": ["1.3"],
  "rollout/raw_reward": ["1.1", "1.3", "3.1", "3.2", "3.3", "3.5", "4.5", "5.1", "5.3", "7.1", "8.5", "run speed-deterministic-b"],
  "rollout/ref_log_probs": ["5.2"],
  "rollout/repetition_frac": ["1.3", "4.2", "5.1"],
  "rollout/response_len/max": ["4.2", "run speed-long-baseline", "run speed-long-partial"],
  "rollout/response_len/mean": ["1.1", "1.3", "4.2", "4.5", "5.1", "run speed-deterministic-b", "run speed-long-baseline", "run speed-long-partial"],
  "rollout/response_lengths": ["1.3"],
  "rollout/rewards": ["1.3", "5.1"],
  "rollout/rollout_log_probs": ["1.3", "4.4", "5.2"],
  "rollout/step": ["front"],
  "rollout/truncated": ["1.3"],
  "rollout/truncated_ratio": ["1.1", "1.3", "3.1", "3.2", "3.3", "4.2", "5.1", "7.1", "run speed-long-baseline", "run speed-long-partial"],
  "rollout/weight_version/max": ["2.4", "run weight-update"],
  "rollout/weight_version/min": ["2.4"],
  "rollout/weight_version/mixed_version_ratio": ["2.4", "4.1", "4.2", "run speed-long-partial"],
  "rollout/zero_std/all_one_percentage": ["1.3", "3.2", "5.1", "7.1"],
  "rollout/zero_std/all_zero_percentage": ["1.3", "3.1", "3.2", "5.1", "7.1", "8.5"],
  "rollout/zero_std/count_0": ["1.1", "1.3", "3.1", "3.2", "5.1", "7.1"],
  "rollout/zero_std/count_1": ["1.1", "1.3", "3.1", "3.2", "5.1", "7.1"],
  "rollout/zero_std/count_<reward>": ["5.1", "7.1"],
  "train/entropy_loss": ["1.1", "5.1"],
  "train/ess_ratio": ["8.2"],
  "train/grad_norm": ["1.1", "1.3", "5.1", "7.1"],
  "train/kl_loss": ["5.1"],
  "train/loss": ["1.3"],
  "train/ois": ["4.4"],
  "train/opsm_clipfrac": ["8.2"],
  "train/pg_clipfrac": ["1.1", "1.3", "5.1", "5.2", "7.1", "8.2", "front"],
  "train/pg_loss": ["1.3"],
  "train/ppo_kl": ["1.1", "1.3", "5.1", "5.2", "7.1", "8.2", "front"],
  "train/step": ["front"],
  "train/tis": ["4.4"],
  "train/tis_abs": ["4.4"],
  "train/tis_clipfrac": ["4.4", "8.2"],
  "train/train_rollout_kl": ["1.3", "3.4", "4.3", "4.4", "5.1", "8.2", "front"],
  "train/train_rollout_logprob_abs_diff": ["1.1", "1.3", "3.4", "4.3", "4.4", "4.6", "5.1", "5.3", "6.3", "7.1", "8.2", "8.3"]
 },
 "flags": {
  "--actor-num-gpus-per-node": [["both", "8", null, "int", "store", null, null, false]],
  "--actor-num-nodes": [["both", "1", null, "int", "store", null, null, false]],
  "--adam-beta1": [["fsdp", "0.9", null, "float", "store", null, null, false]],
  "--adam-beta2": [["fsdp", "0.95", null, "float", "store", null, null, false]],
  "--adam-eps": [["fsdp", "1e-08", null, "float", "store", null, null, false]],
  "--advantage-estimator": [["both", "\"grpo\"", "\"grpo\", \"gspo\", \"reinforce_plus_plus\", \"reinforce_plus_plus_baseline\", \"ppo\"", "str", "store", null, null, false]],
  "--allgather-cp": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--allow-partial-train-step": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--apply-chat-template": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--apply-chat-template-kwargs": [["both", "{}", null, "json", "store", null, null, false]],
  "--async-data-buffer-capacity-factor": [["both", "2.0", null, "float", "store", null, null, false]],
  "--async-max-concurrent-samples": [["both", "null", null, "int", "store", null, null, false]],
  "--async-save": [["both", "(no default set)", null, "bool", "store_true", null, null, false]],
  "--async-unused-samples-handler": [["both", "\"drop\"", "\"retry\", \"drop\"", "str", "store", null, null, false]],
  "--attn-implementation": [["fsdp", "\"flash_attention_2\"", null, "str", "store", null, null, false]],
  "--balance-by-flops": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--balance-data": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--buffer-filter-path": [["both", "null", null, "str", "store", null, null, false]],
  "--calculate-per-token-loss": [["both", "(no default set)", null, "bool", "store_true", null, null, false]],
  "--chat-template-path": [["both", "null", null, "str", "store", null, null, false]],
  "--check-lora-weight-equal": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--check-rematerialize-param-from-master-weight": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--check-weight-update-allow-quant-error": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--check-weight-update-equal": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--check-weight-update-selector": [["both", "\"all\"", "\"all\", \"target\", \"draft\"", "str", "store", null, null, false]],
  "--check-weight-update-skip-list": [["both", "null", null, "str", "store", "*", null, false]],
  "--ci-check-model-hash": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--ci-disable-kl-checker": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--ci-disable-logprobs-checker": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--ci-disable-weight-update-checker": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--ci-ft-test-actions": [["both", "null", null, "str", "store", null, null, false]],
  "--ci-inject-rollout-data-min-match-ratio": [["both", "0.9", null, "float", "store", null, null, false]],
  "--ci-inject-rollout-data-path": [["both", "null", null, "str", "store", null, null, false]],
  "--ci-inject-rollout-data-start-rollout-id": [["both", "null", null, "int", "store", null, null, false]],
  "--ci-load-grad-norm": [["both", "null", null, "str", "store", null, null, false]],
  "--ci-metric-checker-key": [["both", "null", null, "str", "store", null, null, false]],
  "--ci-metric-checker-threshold": [["both", "null", null, "float", "store", null, null, false]],
  "--ci-save-grad-norm": [["both", "null", null, "str", "store", null, null, false]],
  "--ci-save-model-hash": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--ci-test": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--clip-grad": [["both", "1.0", null, "float", "store", null, null, false]],
  "--colocate": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--config": [["fsdp", "null", null, "str", "store", null, null, false]],
  "--context-parallel-size": [["fsdp", "1", null, "int", "store", null, null, false]],
  "--control-server-port": [["both", "0", null, "int", "store", null, null, false]],
  "--critic-load": [["both", "null", null, "str", "store", null, null, false]],
  "--critic-lr": [["both", "null", null, "float", "store", null, null, false]],
  "--critic-lr-warmup-iters": [["both", "0", null, "int", "store", null, null, false]],
  "--critic-num-gpus-per-node": [["both", "null", null, "int", "store", null, null, false]],
  "--critic-num-nodes": [["both", "null", null, "int", "store", null, null, false]],
  "--critic-save": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-agent-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-async-data-buffer-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-config-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-convert-samples-to-train-data-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-eval-rollout-log-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-generate-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-loss-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-megatron-before-log-prob-hook-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-megatron-before-train-step-hook-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-megatron-init-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-megatron-post-save-hook-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-model-provider-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-pg-loss-reducer-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-reward-post-process-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-rm-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-rollout-log-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-tis-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--custom-update-weight-post-write-path": [["both", "null", null, "str", "store", null, null, false]],
  "--dashboard-flush-interval": [["both", "5.0", null, "float", "store", null, null, false]],
  "--dashboard-forward-prometheus": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--dashboard-gpu-sample-interval": [["both", "1.0", null, "float", "store", null, null, false]],
  "--dashboard-sglang-metrics": [["both", "null", null, "str", "store", null, null, false]],
  "--dashboard-sglang-scrape-interval": [["both", "2.0", null, "float", "store", null, null, false]],
  "--dashboard-sglang-scrape-mode": [["both", "\"auto\"", "\"auto\", \"router\", \"direct\"", "str", "store", null, null, false]],
  "--data-pad-size-multiplier": [["both", "128", null, "int", "store", null, null, false]],
  "--data-source-path": [["both", "\"miles.rollout.data_source.RolloutDataSourceWithBuffer\"", null, "str", "store", null, null, false]],
  "--debug-deterministic-collective": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--debug-disable-optimizer": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--debug-exit-after-rollout": [["both", "null", null, "int", "store", null, null, false]],
  "--debug-rollout-only": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--debug-skip-weight-update": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--debug-train-only": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--delay-split-train-data-by-dp": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--deterministic-mode": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--disable-compute-advantages-and-returns": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--disable-grpo-std-normalization": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--disable-rewards-normalization": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--disable-rollout-global-dataset": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--disable-rollout-trim-samples": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--disable-wandb-random-suffix": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--distributed-backend": [["both", "\"nccl\"", null, "str", "store", null, null, false]],
  "--distributed-timeout-minutes": [["both", "10", null, "int", "store", null, null, false]],
  "--dp-replicate-size": [["fsdp", "1", null, "int", "store", null, null, false]],
  "--dsa-attention-backend": [["both", "\"tilelang\"", "\"megatron\", \"tilelang\"", null, "store", null, null, false]],
  "--dump-details": [["both", "null", null, "str", "store", null, null, false]],
  "--dumper-dir": [["both", "\"/tmp/dumper\"", null, "str", "store", null, null, false]],
  "--dumper-enable": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--dumper-fwd-bwd": [["both", "null", null, null, "store", "*", null, false]],
  "--dumper-fwd-only": [["both", "null", null, null, "store", "*", null, false]],
  "--dumper-inference": [["both", "null", null, null, "store", "*", null, false]],
  "--dumper-source-patcher-config-inference": [["both", "null", null, "str", "store", null, null, false]],
  "--dumper-source-patcher-config-train": [["both", "null", null, "str", "store", null, null, false]],
  "--dynamic-sampling-filter-path": [["both", "null", null, "str", "store", null, null, false]],
  "--enable-event-analyzer": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--enable-mtp-training": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--enable-witness": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--entropy-coef": [["both", "0.0", null, "float", "store", null, null, false]],
  "--env-report": [["both", "<computed: os.environ.get(\"MILES_SCRIPT_ENV_REPORT\", \"\")>", null, "str", "store", null, null, false]],
  "--eps-clip": [["both", "0.2", null, "float", "store", null, null, false]],
  "--eps-clip-c": [["both", "null", null, "float", "store", null, null, false]],
  "--eps-clip-high": [["both", "null", null, "float", "store", null, null, false]],
  "--eval-config": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-hf-dir": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-input-key": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-interval": [["both", "null", null, "int", "store", null, null, false]],
  "--eval-keep-snapshots": [["both", "2", null, "int", "store", null, null, false]],
  "--eval-label-key": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-max-context-len": [["both", "null", null, "int", "store", null, null, false]],
  "--eval-max-in-flight": [["both", "2", null, "int", "store", null, null, false]],
  "--eval-max-prompt-len": [["both", "null", null, "int", "store", null, null, false]],
  "--eval-max-response-len": [["both", "null", null, "int", "store", null, null, false]],
  "--eval-min-new-tokens": [["both", "null", null, "int", "store", null, null, false]],
  "--eval-num-gpus": [["both", "0", null, "int", "store", null, null, false]],
  "--eval-num-gpus-per-engine": [["both", "1", null, "int", "store", null, null, false]],
  "--eval-overflow-policy": [["both", "\"backpressure\"", "\"backpressure\", \"skip\"", "str", "store", null, null, false]],
  "--eval-prompt-data": [["both", "null", null, "str", "store", "+", null, false]],
  "--eval-reward-key": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-temperature": [["both", "null", null, "float", "store", null, null, false]],
  "--eval-tool-key": [["both", "null", null, "str", "store", null, null, false]],
  "--eval-top-k": [["both", "null", null, "int", "store", null, null, false]],
  "--eval-top-p": [["both", "null", null, "float", "store", null, null, false]],
  "--exclude-modules": [["both", "null", null, "str", "store", null, null, false]],
  "--experts-shared-outer-loras": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--extra-high-precision-layers-hf": [["both", "[]", null, "str", "store", "*", null, false]],
  "--extra-high-precision-layers-megatron": [["both", "[]", null, "str", "store", "*", null, false]],
  "--fetch-trajectory-retry-times": [["both", "-1", null, "int", "store", null, null, false]],
  "--fp16": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--freeze-indexer": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--fsdp-cpu-backend": [["fsdp", "\"gloo\"", null, "str", "store", null, null, false]],
  "--fsdp-cpu-offload": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--fsdp-state-dict-cpu-offload": [["fsdp", "true", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--ft-components": [["both", "null", "\"rollout\", \"train\"", null, "store", "+", null, false]],
  "--fully-async": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--gamma": [["both", "1.0", null, "float", "store", null, null, false]],
  "--generate-execute-tool-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--generate-max-turns": [["both", "16", null, "int", "store", null, null, false]],
  "--generate-tool-call-parser": [["both", "null", null, "str", "store", null, null, false]],
  "--generate-tool-specs-path": [["both", "null", null, "str", "store", null, null, false]],
  "--get-mismatch-metrics": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--global-batch-size": [["both", "null", null, "int", "store", null, null, false]],
  "--gradient-checkpointing": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--group-rm": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--hf-checkpoint": [["both", "null", null, "str", "store", null, null, false]],
  "--http-proxy": [["both", "null", null, "str", "store", null, null, false]],
  "--indep-dp": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--input-key": [["both", "\"input\"", null, "str", "store", null, null, false]],
  "--keep-fp32-master": [["fsdp", "true", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--keep-old-actor": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--kl-coef": [["both", "0.0", null, "float", "store", null, null, false]],
  "--kl-loss-coef": [["both", "0.0", null, "float", "store", null, null, false]],
  "--kl-loss-type": [["both", "\"k1\"", "\"k1\", \"k2\", \"k3\", \"low_var_kl\"", "str", "store", null, null, false]],
  "--label-key": [["both", "null", null, "str", "store", null, null, false]],
  "--lambd": [["both", "1.0", null, "float", "store", null, null, false]],
  "--linear-attention-backend": [["both", "\"fla\"", "\"fla\", \"flashqla\"", "str", "store", null, null, false]],
  "--load": [["both", "null", null, "str", "store", null, null, false]],
  "--load-debug-rollout-data": [["both", "null", null, "str", "store", null, null, false]],
  "--load-debug-rollout-data-subsample": [["both", "null", null, "float", "store", null, null, false]],
  "--log-correct-samples": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--log-multi-turn": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--log-passrate": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--log-probs-chunk-size": [["both", "-1", null, "int", "store", null, null, false]],
  "--log-probs-max-tokens-per-gpu": [["both", "null", null, "int", "store", null, null, false]],
  "--log-reward-category": [["both", "null", null, "str", "store", null, null, false]],
  "--lora-adapter-path": [["both", "null", null, "str", "store", null, null, false]],
  "--lora-alpha": [["both", "16", null, "int", "store", null, null, false]],
  "--lora-base-cpu-backup": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--lora-dropout": [["both", "0.0", null, "float", "store", null, null, false]],
  "--lora-rank": [["both", "0", null, "int", "store", null, null, false]],
  "--lora-sync-from-tensor": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--lora-train-only": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--lora-type": [["both", "\"lora\"", "\"lora\", \"canonical_lora\"", "str", "store", null, null, false]],
  "--loss-mask-type": [["both", "\"qwen\"", "\"qwen\", \"qwen3\", \"distill_qwen\"", "str", "store", null, null, false]],
  "--loss-type": [["both", "\"policy_loss\"", "\"policy_loss\", \"sft_loss\", \"custom_loss\"", "str", "store", null, null, false]],
  "--low-memory-resume": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--lr": [["both", "1e-06", null, "float", "store", null, null, false], ["fsdp", "2e-05", null, "float", "store", null, null, false]],
  "--lr-decay-iters": [["fsdp", "null", null, "int", "store", null, null, false]],
  "--lr-decay-style": [["fsdp", "\"constant\"", null, "str", "store", null, null, false]],
  "--lr-warmup-fraction": [["fsdp", "null", null, "float", "store", null, null, false]],
  "--lr-warmup-init": [["fsdp", "0.0", null, "float", "store", null, null, false]],
  "--lr-warmup-iters": [["fsdp", "0", null, "int", "store", null, null, false]],
  "--lr-wsd-decay-iters": [["fsdp", "null", null, "int", "store", null, null, false]],
  "--lr-wsd-decay-style": [["fsdp", "null", null, "str", "store", null, null, false]],
  "--mask-offpolicy-in-partial-rollout": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--max-seq-len": [["both", "null", null, "int", "store", null, null, false]],
  "--max-tokens-per-gpu": [["both", "null", null, "int", "store", null, null, false]],
  "--max-weight-staleness": [["both", "null", null, "int", "store", null, null, false]],
  "--megatron-to-hf-mode": [["both", "\"raw\"", "\"raw\", \"bridge\"", null, "store", null, null, false]],
  "--memory-recorder": [["both", "\"torch\"", "\"torch\", \"memray\"", "str", "store", null, null, false]],
  "--memory-snapshot-dir": [["both", "\".\"", null, "str", "store", null, null, false]],
  "--memory-snapshot-num-steps": [["both", "null", null, "int", "store", null, null, false]],
  "--memory-snapshot-path": [["fsdp", "\"snapshot.pickle\"", null, "str", "store", null, null, false]],
  "--metadata-key": [["both", "\"metadata\"", null, "str", "store", null, null, false]],
  "--mfu-peak-tflops": [["both", "null", null, "float", "store", null, null, false]],
  "--micro-batch-size": [["both", "1", null, "int", "store", null, null, false]],
  "--miles-dsa-topk-backend": [["both", "\"torch\"", "\"torch\", \"flashinfer\"", "str", "store", null, null, false]],
  "--miles-router-health-check-failure-threshold": [["both", "3", null, "int", "store", null, null, false]],
  "--miles-router-max-connections": [["both", "null", null, "int", "store", null, null, false]],
  "--miles-router-timeout": [["both", "null", null, "float", "store", null, null, false]],
  "--min-batch-collection-ratio": [["both", "1", null, "float", "store", null, null, false]],
  "--min-lr": [["fsdp", "0.0", null, "float", "store", null, null, false]],
  "--mini-ft-controller-enable": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--mini-ft-controller-poll-interval": [["both", "10.0", null, "float", "store", null, null, false]],
  "--mini-ft-controller-resume-delay": [["both", "10.0", null, "float", "store", null, null, false]],
  "--mlflow-experiment-name": [["both", "\"miles\"", null, "str", "store", null, null, false]],
  "--mlflow-run-id": [["both", "null", null, "str", "store", null, null, false]],
  "--mlflow-run-name": [["both", "null", null, "str", "store", null, null, false]],
  "--mlflow-tracking-uri": [["both", "null", null, "str", "store", null, null, false]],
  "--model-name": [["both", "null", null, "str", "store", null, null, false]],
  "--mooncake-replica-num": [["both", "1", null, "int", "store", null, null, false]],
  "--mooncake-store-init-kwargs": [["both", "null", null, "json", "store", null, null, false]],
  "--mtp-loss-scaling-factor": [["both", "0.2", null, "float", "store", null, null, false]],
  "--mtp-num-layers": [["both", "null", null, "int", "store", null, null, false]],
  "--multi-lora-adapter": [["both", "[]", null, "str", "append", "2", null, false]],
  "--multi-lora-api-port": [["both", "8068", null, "int", "store", null, null, false]],
  "--multi-lora-backend-path": [["both", "null", null, "str", "store", null, null, false]],
  "--multi-lora-disable-service-mode": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--multi-lora-http-server-path": [["both", "null", null, "str", "store", null, null, false]],
  "--multi-lora-idle-poll-s": [["both", "5.0", null, "float", "store", null, null, false]],
  "--multi-lora-max-adapter-global-batch-size": [["both", "null", null, "int", "store", null, null, false]],
  "--multi-lora-max-coalesce-wait-s": [["both", "0.5", null, "float", "store", null, null, false]],
  "--multi-lora-max-empty-wait-s": [["both", "30.0", null, "float", "store", null, null, false]],
  "--multi-lora-n-adapters": [["both", "0", null, "int", "store", null, null, false]],
  "--multimodal-keys": [["both", "null", null, "json", "store", null, null, false]],
  "--n-samples-per-eval-prompt": [["both", "1", null, "int", "store", null, null, false]],
  "--n-samples-per-prompt": [["both", "1", null, "int", "store", null, null, false]],
  "--no-deterministic-mode": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-fp16": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-fsdp-cpu-offload": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-fsdp-state-dict-cpu-offload": [["fsdp", "true", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-gradient-checkpointing": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-keep-fp32-master": [["fsdp", "true", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-offload-rollout": [["both", "null", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-offload-train": [["both", "null", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-override-lr-scheduler": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-record-memory-history": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-save-optim": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--no-sglang-lora-use-virtual-experts": [["both", "true", null, "bool", "store_false", null, null, false]],
  "--no-use-checkpoint-lr-scheduler": [["fsdp", "true", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--no-use-pytorch-profiler": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--normalize-advantages": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--num-critic-only-steps": [["both", "0", null, "int", "store", null, null, false]],
  "--num-epoch": [["both", "null", null, "int", "store", null, null, false]],
  "--num-gpus-per-node": [["both", "8", null, "int", "store", null, null, false]],
  "--num-rollout": [["both", "null", null, "int", "store", null, null, false]],
  "--num-steps-per-rollout": [["both", "null", null, "int", "store", null, null, false]],
  "--object-store-backend": [["both", "\"ray\"", "tuple(backend.value for backend in ObjectStoreBackend)", "str", "store", null, null, false]],
  "--observe-training-entropy": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--offload": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--offload-rollout": [["both", "null", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--offload-rollout-level": [["both", "[\"kv_cache\", \"weight\"]", null, "str", "store", "+", null, false]],
  "--offload-train": [["both", "null", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--offload-train-disk-chunk-mb": [["both", "256", null, "int", "store", null, null, false]],
  "--offload-train-disk-dir": [["both", "null", null, "str", "store", null, null, false]],
  "--offload-train-target": [["both", "\"cpu\"", "\"cpu\", \"disk\"", "str", "store", null, null, false]],
  "--opd-kl-coef": [["both", "1.0", null, "float", "store", null, null, false]],
  "--opd-log-prob-top-k": [["both", "0", null, "int", "store", null, null, false]],
  "--opd-reward-weight-mode": [["both", "\"student_p\"", "\"student_p\", \"teacher_p\", \"none\"", "str", "store", null, null, false]],
  "--opd-teacher-ckpt-step": [["both", "null", null, "int", "store", null, null, false]],
  "--opd-teacher-key": [["both", "\"opd_teacher\"", null, "str", "store", null, null, false]],
  "--opd-teacher-load": [["both", "null", null, "str", "store", null, null, false]],
  "--opd-teacher-urls": [["both", "null", null, "str", "store", "+", null, false]],
  "--opd-top-k-strategy": [["both", "\"only-student\"", "\"only-student\", \"only-teacher\", \"intersection\", \"union\", \"xor\"", "str", "store", null, null, false]],
  "--opd-topk-per-position": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--opd-type": [["both", "null", "\"sglang\", \"megatron\"", "str", "store", null, null, false]],
  "--opsm-delta": [["both", "0.0001", null, "float", "store", null, null, false]],
  "--optimizer": [["fsdp", "\"adam\"", null, "str", "store", null, null, false]],
  "--over-sampling-batch-size": [["both", "null", null, "int", "store", null, null, false]],
  "--override-lr-scheduler": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--p2p-transfer-num-workers": [["both", "4", null, "int", "store", null, null, false]],
  "--p2p-transfer-timeout": [["both", "30.0", null, "float", "store", null, null, false]],
  "--padded-vocab-size": [["both", "null", null, "int", "store", null, null, false]],
  "--partial-rollout": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--pause-generation-mode": [["both", "\"retract\"", "\"abort\", \"retract\", \"in_place\"", "str", "store", null, null, false]],
  "--pin-rollout-manager-to-head": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--prefill-num-servers": [["both", "null", null, "int", "store", null, null, false]],
  "--profile-step-end": [["fsdp", "12", null, "int", "store", null, null, false]],
  "--profile-step-start": [["fsdp", "10", null, "int", "store", null, null, false]],
  "--profile-target": [["both", "[\"train_overall\"]", "\"train_overall\", \"train_actor\", \"train_log_probs\"", "str", "store", "+", null, false]],
  "--prometheus-port": [["both", "<computed: int(os.environ.get(\"PROMETHEUS_PORT\", \"9090\"))>", null, "int", "store", null, null, false]],
  "--prometheus-run-name": [["both", "null", null, "str", "store", null, null, false]],
  "--prompt-data": [["both", "null", null, "str", "store", null, null, false]],
  "--qkv-format": [["both", "\"thd\"", "\"thd\", \"bshd\"", "str", "store", null, null, false]],
  "--recompute-logprobs-via-prefill": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--recompute-loss-function": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--record-memory-history": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--ref-ckpt-step": [["both", "null", null, "int", "store", null, null, false]],
  "--ref-load": [["both", "null", null, "str", "store", null, null, false]],
  "--ref-update-interval": [["both", "null", null, "int", "store", null, null, false]],
  "--rematerialize-param-from-master-weight": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--reset-optimizer-states": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--reward-key": [["both", "null", null, "str", "store", null, null, false]],
  "--rm-type": [["both", "null", null, "str", "store", null, null, false]],
  "--rm-url": [["both", "null", null, "str", "store", null, null, false]],
  "--rollout-all-samples-process-path": [["both", "null", null, "str", "store", null, null, false]],
  "--rollout-batch-size": [["both", "null", null, "int", "store", null, null, true]],
  "--rollout-buffer-url": [["both", "null", null, "str", "store", null, null, false]],
  "--rollout-data-postprocess-path": [["both", "null", null, "str", "store", null, null, false]],
  "--rollout-external": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--rollout-external-engine-addrs": [["both", "null", null, "str", "store", "+", null, false]],
  "--rollout-function-path": [["both", "null", null, "str", "store", null, null, false]],
  "--rollout-health-check-first-wait": [["both", "0", null, "float", "store", null, null, false]],
  "--rollout-health-check-interval": [["both", "30.0", null, "float", "store", null, null, false]],
  "--rollout-health-check-timeout": [["both", "30.0", null, "float", "store", null, null, false]],
  "--rollout-max-context-len": [["both", "null", null, "int", "store", null, null, false]],
  "--rollout-max-prompt-len": [["both", "null", null, "int", "store", null, null, false]],
  "--rollout-max-response-len": [["both", "null", null, "int", "store", null, null, false]],
  "--rollout-num-gpus": [["both", "null", null, "int", "store", null, null, false]],
  "--rollout-num-gpus-per-engine": [["both", "1", null, "int", "store", null, null, false]],
  "--rollout-sample-filter-path": [["both", "null", null, "str", "store", null, null, false]],
  "--rollout-seed": [["both", "42", null, "int", "store", null, null, false]],
  "--rollout-shuffle": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--rollout-skip-special-tokens": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--rollout-stop": [["both", "null", null, "str", "store", "+", null, false]],
  "--rollout-stop-token-ids": [["both", "null", null, "int", "store", "+", null, false]],
  "--rollout-submission-granularity": [["both", "null", "\"group\", \"sample\"", "str", "store", null, null, false]],
  "--rollout-task-type": [["both", "\"math\"", null, "str", "store", null, null, false]],
  "--rollout-temperature": [["both", "1.0", null, "float", "store", null, null, false]],
  "--rollout-top-k": [["both", "-1", null, "int", "store", null, null, false]],
  "--rollout-top-p": [["both", "1.0", null, "float", "store", null, null, false]],
  "--save": [["both", "null", null, "str", "store", null, null, false]],
  "--save-debug-event-data": [["both", "null", null, "str", "store", null, null, false]],
  "--save-debug-rollout-data": [["both", "null", null, "str", "store", null, null, false]],
  "--save-debug-train-data": [["both", "null", null, "str", "store", null, null, false]],
  "--save-debug-trajectory-data": [["both", "null", null, "str", "store", null, null, false]],
  "--save-hf": [["both", "null", null, "str", "store", null, null, false]],
  "--save-interval": [["both", "null", null, "int", "store", null, null, false]],
  "--save-local-weight-checksum": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--save-trigger-sentinel": [["both", "null", null, "str", "store", null, null, false]],
  "--seed": [["both", "1234", null, "int", "store", null, null, false]],
  "--session-message-matcher": [["both", "\"strict\"", null, "str", "store", null, null, false]],
  "--session-sample-picker-path": [["both", "\"miles.rollout.session.v2.picker_hub.drop_retries\"", null, "str", "store", null, null, false]],
  "--session-sample-postprocessor-path": [["both", "\"miles.rollout.session.v2.postprocessor_hub.default_postprocess\"", null, "str", "store", null, null, false]],
  "--session-server-ip": [["both", "null", null, "str", "store", null, null, false]],
  "--session-server-port": [["both", "null", null, "int", "store", "+", null, false]],
  "--session-verify-cycles": [["both", "3", null, "int", "store", null, null, false]],
  "--sglang-config": [["both", "null", null, "str", "store", null, null, false]],
  "--sglang-lora-use-virtual-experts": [["both", "true", null, null, null, null, null, false]],
  "--sglang-router-ip": [["both", "null", null, "str", "store", null, null, false]],
  "--sglang-router-policy": [["both", "null", null, "str", "store", null, null, false]],
  "--sglang-router-port": [["both", "null", null, "int", "store", null, null, false]],
  "--sglang-router-request-timeout-secs": [["both", "14400", null, "int", "store", null, null, false]],
  "--sglang-server-concurrency": [["both", "512", null, "int", "store", null, null, false]],
  "--skip-actor-forward-only": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--skip-eval-before-train": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--start-rollout-id": [["both", "null", null, "int", "store", null, null, false]],
  "--stream-optimizer-state-moment-dtype": [["both", "\"fp32\"", "\"fp32\", \"bf16\", \"fp16\", \"fp8e4m3\", \"fp8e5m2\"", "str", "store", null, null, false]],
  "--stream-optimizer-state-to-disk": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--target-modules": [["both", "null", null, "str", "store", null, null, false]],
  "--tb-experiment-name": [["both", "null", null, "str", "store", null, null, false]],
  "--tb-project-name": [["both", "null", null, "str", "store", null, null, false]],
  "--tensorboard-dir": [["fsdp", "null", null, "str", "store", null, null, false]],
  "--tis-clip": [["both", "2.0", null, "float", "store", null, null, false]],
  "--tis-clip-low": [["both", "0", null, "float", "store", null, null, false]],
  "--tito-model": [["both", "\"default\"", "[t.value for t in TITOTokenizerType]", "str", "store", null, null, false]],
  "--tool-call-failure-mode": [["both", "<computed: DEFAULT_TOOL_CALL_FAILURE_MODE.value>", "[m.value for m in ToolCallFailureMode]", "str", "store", null, null, false]],
  "--tool-key": [["both", "\"tools\"", null, "str", "store", null, null, false]],
  "--train-backend": [["both", "\"megatron\"", "\"megatron\", \"fsdp\"", "str", "store", null, null, false]],
  "--train-env-vars": [["both", "{}", null, "json", "store", null, null, false]],
  "--train-memory-margin-bytes": [["both", "1073741824", null, "int", "store", null, null, false]],
  "--trainer-heartbeat-checker-failure-threshold": [["both", "3", null, "int", "store", null, null, false]],
  "--trainer-heartbeat-checker-first-wait": [["both", "300.0", null, "float", "store", null, null, false]],
  "--trainer-heartbeat-checker-interval": [["both", "10.0", null, "float", "store", null, null, false]],
  "--trainer-heartbeat-checker-timeout": [["both", "10.0", null, "float", "store", null, null, false]],
  "--true-on-policy-mode": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--update-weight-buffer-size": [["both", "536870912", null, "int", "store", null, null, false]],
  "--update-weight-delta-checksum": [["both", "\"xxh3-128\"", "\"xxh3-128\", \"blake3\", \"adler32\"", null, "store", null, null, false]],
  "--update-weight-delta-encoding": [["both", "\"xor\"", "\"xor\", \"overwrite\"", null, "store", null, null, false]],
  "--update-weight-disk-dir": [["both", "null", null, "str", "store", null, null, false]],
  "--update-weight-local-checkpoint-dir": [["both", "null", null, "str", "store", null, null, false]],
  "--update-weight-transfer-mode": [["both", "\"broadcast\"", "\"broadcast\", \"p2p\", \"disk-delta\"", null, "store", null, null, false]],
  "--update-weights-interval": [["both", "1", null, "int", "store", null, null, false]],
  "--use-checkpoint-lr-scheduler": [["fsdp", "true", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--use-distributed-post": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-dynamic-batch-size": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-dynamic-global-batch-size": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-fault-tolerance": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-indexer-replay": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-kl-loss": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-miles-dashboard": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-miles-router": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-mlflow": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-opd": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-opsm": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-prometheus": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-pytorch-profiler": [["fsdp", "false", null, "bool", "BooleanOptionalAction", null, null, false]],
  "--use-rollout-entropy": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-rollout-indexer-replay": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-rollout-logprobs": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-rollout-routing-replay": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-routing-replay": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-session-server": [["both", "false", null, null, "store", "?", "True", false]],
  "--use-tensorboard": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-tis": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-unbiased-kl": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--use-wandb": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--value-clip": [["both", "0.2", null, "float", "store", null, null, false]],
  "--wandb-always-use-train-step": [["both", "false", null, "bool", "store_true", null, null, false]],
  "--wandb-dir": [["both", "null", null, "str", "store", null, null, false]],
  "--wandb-group": [["both", "null", null, "str", "store", null, null, false]],
  "--wandb-host": [["both", "null", null, "str", "store", null, null, false]],
  "--wandb-key": [["both", "null", null, "str", "store", null, null, false]],
  "--wandb-mode": [["both", "null", "\"online\", \"offline\", \"disabled\"", "str", "store", null, null, false]],
  "--wandb-project": [["both", "null", null, "str", "store", null, null, false], ["fsdp", "\"miles-fsdp\"", null, "str", "store", null, null, false]],
  "--wandb-run-id": [["both", "null", null, "str", "store", null, null, false]],
  "--wandb-run-name": [["fsdp", "null", null, "str", "store", null, null, false]],
  "--wandb-team": [["both", "null", null, "str", "store", null, null, false]],
  "--warmup-ratio": [["fsdp", "0.03", null, "float", "store", null, null, false]],
  "--weight-decay": [["fsdp", "0.0", null, "float", "store", null, null, false]],
  "--witness-buffer-size": [["both", "1048576", null, "int", "store", null, null, false]]
 },
 "metrics": {
  "eval/<key>": "^eval/.+$",
  "eval/<key>-none_reward_ratio": "^eval/.+\\-none_reward_ratio$",
  "eval/<key>-pass@<k>": "^eval/.+\\-pass@.+$",
  "eval/<key>-truncated_ratio": "^eval/.+\\-truncated_ratio$",
  "eval/<key>/<metric_prefix>/<mtype>": "^eval/.+/.+/.+$",
  "eval/<key>/avg_cached_tokens_per_sample": "^eval/.+/avg_cached_tokens_per_sample$",
  "eval/<key>/error_cat/<reward_cat>": "^eval/.+/error_cat/.+$",
  "eval/<key>/prefix_cache_hit_rate": "^eval/.+/prefix_cache_hit_rate$",
  "eval/<key>/repetition_frac": "^eval/.+/repetition_frac$",
  "eval/<key>/response_len/max": "^eval/.+/response_len/max$",
  "eval/<key>/response_len/mean": "^eval/.+/response_len/mean$",
  "eval/<key>/response_len/median": "^eval/.+/response_len/median$",
  "eval/<key>/response_len/min": "^eval/.+/response_len/min$",
  "eval/<key>/spec_accept_length": "^eval/.+/spec_accept_length$",
  "eval/<key>/spec_accept_rate": "^eval/.+/spec_accept_rate$",
  "eval/<key>/truncated_ratio": "^eval/.+/truncated_ratio$",
  "eval/<key>/weight_version/max": "^eval/.+/weight_version/max$",
  "eval/<key>/weight_version/mean": "^eval/.+/weight_version/mean$",
  "eval/<key>/weight_version/median": "^eval/.+/weight_version/median$",
  "eval/<key>/weight_version/min": "^eval/.+/weight_version/min$",
  "eval/<key>/weight_version/mixed_version_ratio": "^eval/.+/weight_version/mixed_version_ratio$",
  "eval/<key>/zero_std/all_one_percentage": "^eval/.+/zero_std/all_one_percentage$",
  "eval/<key>/zero_std/all_zero_percentage": "^eval/.+/zero_std/all_zero_percentage$",
  "eval/<key>/zero_std/count_<reward>": "^eval/.+/zero_std/count_.+$",
  "eval/duration_seconds": null,
  "eval/export_time_seconds": null,
  "eval/lag_steps": null,
  "eval/skipped_<reason>": "^eval/skipped_.+$",
  "eval/step": null,
  "multi_turn/multi_turn_metric/round_number_max": null,
  "multi_turn/multi_turn_metric/round_number_mean": null,
  "multi_turn/multi_turn_metric/round_number_min": null,
  "multi_turn/raw_response_length/response_length_clip_ratio": null,
  "multi_turn/raw_response_length/response_length_max": null,
  "multi_turn/raw_response_length/response_length_mean": null,
  "multi_turn/raw_response_length/response_length_min": null,
  "multi_turn/wo_obs_response_length/response_length_max": null,
  "multi_turn/wo_obs_response_length/response_length_mean": null,
  "multi_turn/wo_obs_response_length/response_length_min": null,
  "passrate/pass@<k>": "^passrate/pass@.+$",
  "perf/<store_prefix>log_probs_time": "^perf/.+log_probs_time$",
  "perf/actor_train_mfu": null,
  "perf/actor_train_tflops": null,
  "perf/actor_train_time": null,
  "perf/actor_train_tok_per_s": null,
  "perf/cpu_memory_<label>_gb": "^perf/cpu_memory_.+_gb$",
  "perf/critic_train_time": null,
  "perf/data_preprocess_time": null,
  "perf/effective_tokens_per_gpu_per_sec": null,
  "perf/eval_rollout_time": null,
  "perf/export_hf_time": null,
  "perf/finalize_and_resume_engines_time": null,
  "perf/fully_async/batch_n_adapters": null,
  "perf/fully_async/batch_n_adapters_to_step": null,
  "perf/fully_async/batch_n_groups": null,
  "perf/fully_async/batch_n_samples": null,
  "perf/fully_async/batch_wait_time": null,
  "perf/fully_async/queue_length": null,
  "perf/fully_async/stale_dropped": null,
  "perf/fully_async/stale_dropped_avg_staleness": null,
  "perf/fully_async/stale_dropped_max_staleness": null,
  "perf/log_probs_tflops": null,
  "perf/log_probs_time": null,
  "perf/longest_effective_sample_non_generation_time": null,
  "perf/longest_effective_sample_tokens_per_sec": null,
  "perf/longest_effective_sample_tokens_per_sec_without_non_generation": null,
  "perf/longest_sample_non_generation_time": null,
  "perf/longest_sample_tokens_per_sec": null,
  "perf/longest_sample_tokens_per_sec_without_non_generation": null,
  "perf/mfu_peak_tflops": null,
  "perf/non_generation_time/max": null,
  "perf/non_generation_time/mean": null,
  "perf/non_generation_time/median": null,
  "perf/non_generation_time/min": null,
  "perf/reconcile_adapters_time": null,
  "perf/ref_log_probs_tflops": null,
  "perf/ref_log_probs_time": null,
  "perf/ref_model_update_time": null,
  "perf/rollout_time": null,
  "perf/save_model_time": null,
  "perf/sleep_time": null,
  "perf/step_time": null,
  "perf/tokens_per_gpu_per_sec": null,
  "perf/train_time": null,
  "perf/train_wait_time": null,
  "perf/update_weights_density": null,
  "perf/update_weights_implementation_time": null,
  "perf/update_weights_time": null,
  "perf/update_weights_wire_bytes": null,
  "perf/wait_time_ratio": null,
  "perf/wake_up_time": null,
  "rollout/<metric_prefix>/<mtype>": "^rollout/.+/.+$",
  "rollout/advantages": null,
  "rollout/avg_cached_tokens_per_sample": null,
  "rollout/dynamic_filter/drop_<reason>": "^rollout/dynamic_filter/drop_.+$",
  "rollout/entropy": null,
  "rollout/error_cat/<reward_cat>": "^rollout/error_cat/.+$",
  "rollout/fully_async/aborted_groups_filtered": null,
  "rollout/fully_async/avg_staleness": null,
  "rollout/fully_async/buffer_avg_staleness": null,
  "rollout/fully_async/buffer_max_staleness": null,
  "rollout/fully_async/max_staleness": null,
  "rollout/fully_async/queue_size": null,
  "rollout/fully_async/stale_groups_filtered": null,
  "rollout/log_probs": null,
  "rollout/opd_reverse_kl": null,
  "rollout/prefix_cache_hit_rate": null,
  "rollout/raw_reward": null,
  "rollout/ref_log_probs": null,
  "rollout/repetition_frac": null,
  "rollout/response_len/max": null,
  "rollout/response_len/mean": null,
  "rollout/response_len/median": null,
  "rollout/response_len/min": null,
  "rollout/response_lengths": null,
  "rollout/returns": null,
  "rollout/rewards": null,
  "rollout/rollout_log_probs": null,
  "rollout/round_number": null,
  "rollout/spec_accept_length": null,
  "rollout/spec_accept_rate": null,
  "rollout/step": null,
  "rollout/teacher_log_probs": null,
  "rollout/tito_session_mismatch_rate/v1/assistant_text": null,
  "rollout/tito_session_mismatch_rate/v2/assistant_text": null,
  "rollout/total_lengths": null,
  "rollout/truncated": null,
  "rollout/truncated_ratio": null,
  "rollout/values": null,
  "rollout/weight_version/max": null,
  "rollout/weight_version/mean": null,
  "rollout/weight_version/median": null,
  "rollout/weight_version/min": null,
  "rollout/weight_version/mixed_version_ratio": null,
  "rollout/zero_std/all_one_percentage": null,
  "rollout/zero_std/all_zero_percentage": null,
  "rollout/zero_std/count_<reward>": "^rollout/zero_std/count_.+$",
  "train/<role_tag><key>": "^train/.+$",
  "train/<role_tag>grad_norm": "^train/.+grad_norm$",
  "train/grad_norm": null,
  "train/kl_loss": null,
  "train/loss": null,
  "train/pg_clipfrac": null,
  "train/ppo_kl": null,
  "train/step": null,
  "train/train_rollout_kl": null,
  "train/train_rollout_logprob_abs_diff": null
 },
 "layout": {
  "order": {
   "miles/backends/fsdp_utils/arguments.py": [["--optimizer", 12], ["--lr", 13], ["--lr-warmup-init", 14], ["--min-lr", 15], ["--lr-decay-style", 16], ["--lr-decay-iters", 17], ["--lr-warmup-iters", 18], ["--lr-warmup-fraction", 19], ["--lr-wsd-decay-iters", 20], ["--lr-wsd-decay-style", 21], ["--use-checkpoint-lr-scheduler", 22], ["--override-lr-scheduler", 23], ["--weight-decay", 24], ["--adam-beta1", 25], ["--adam-beta2", 26], ["--adam-eps", 27], ["--warmup-ratio", 28], ["--attn-implementation", 30], ["--wandb-project", 33], ["--wandb-run-name", 34], ["--gradient-checkpointing", 37], ["--fp16", 38], ["--keep-fp32-master", 39], ["--fsdp-state-dict-cpu-offload", 42], ["--fsdp-cpu-offload", 43], ["--fsdp-cpu-backend", 46], ["--dp-replicate-size", 50], ["--deterministic-mode", 52], ["--context-parallel-size", 56], ["--record-memory-history", 58], ["--memory-snapshot-path", 59], ["--use-pytorch-profiler", 60], ["--profile-step-start", 61], ["--profile-step-end", 62], ["--tensorboard-dir", 63], ["--config", 71]],
   "miles/backends/sglang_utils/arguments.py": [["--sglang-router-ip", 12], ["--sglang-router-port", 18], ["--sglang-router-policy", 24], ["--sglang-router-request-timeout-secs", 30], ["--sglang-server-concurrency", 151], ["--sglang-config", 164]],
   "miles/dashboard/args.py": [["--use-miles-dashboard", 42], ["--dashboard-flush-interval", 49], ["--dashboard-gpu-sample-interval", 50], ["--dashboard-sglang-scrape-interval", 51], ["--dashboard-sglang-scrape-mode", 52], ["--dashboard-sglang-metrics", 59], ["--dashboard-forward-prometheus", 65]],
   "miles/rollout/generate_hub/agentic_tool_call.py": [["--custom-agent-function-path", 148], ["--max-seq-len", 149]],
   "miles/rollout/generate_hub/multi_turn.py": [["--generate-max-turns", 92], ["--generate-tool-specs-path", 93], ["--generate-tool-call-parser", 94], ["--generate-execute-tool-function-path", 95]],
   "miles/utils/arguments.py": [["--actor-num-nodes", 107], ["--actor-num-gpus-per-node", 108], ["--critic-num-nodes", 111], ["--critic-num-gpus-per-node", 114], ["--rollout-num-gpus", 118], ["--rollout-num-gpus-per-engine", 128], ["--num-gpus-per-node", 134], ["--colocate", 143], ["--offload", 152], ["--offload-train", 158], ["--offload-rollout", 166], ["--offload-rollout-level", 175], ["--offload-train-target", 186], ["--stream-optimizer-state-to-disk", 198], ["--stream-optimizer-state-moment-dtype", 212], ["--offload-train-disk-dir", 231], ["--offload-train-disk-chunk-mb", 244], ["--distributed-backend", 256], ["--distributed-timeout-minutes", 257], ["--train-backend", 262], ["--qkv-format", 269], ["--linear-attention-backend", 276], ["--miles-dsa-topk-backend", 287], ["--true-on-policy-mode", 294], ["--recompute-logprobs-via-prefill", 300], ["--train-env-vars", 309], ["--train-memory-margin-bytes", 315], ["--debug-skip-weight-update", 321], ["--debug-disable-optimizer", 330], ["--rematerialize-param-from-master-weight", 340], ["--check-rematerialize-param-from-master-weight", 352], ["--megatron-to-hf-mode", 357], ["--dsa-attention-backend", 363], ["--extra-high-precision-layers-hf", 376], ["--extra-high-precision-layers-megatron", 383], ["--custom-model-provider-path", 393], ["--recompute-loss-function", 405], ["--log-probs-chunk-size", 410], ["--indep-dp", 413], ["--delay-split-train-data-by-dp", 419], ["--allgather-cp", 424], ["--low-memory-resume", 429], ["--mfu-peak-tflops", 438], ["--hf-checkpoint", 454], ["--model-name", 466], ["--rollout-function-path", 476], ["--fully-async", 493], ["--rollout-temperature", 504], ["--rollout-top-p", 510], ["--rollout-top-k", 513], ["--rollout-max-context-len", 516], ["--rollout-max-prompt-len", 525], ["--rollout-max-response-len", 535], ["--rollout-skip-special-tokens", 544], ["--rollout-stop", 553], ["--rollout-stop-token-ids", 564], ["--rollout-shuffle", 574], ["--rollout-seed", 580], ["--object-store-backend", 589], ["--mooncake-store-init-kwargs", 596], ["--mooncake-replica-num", 602], ["--over-sampling-batch-size", 610], ["--dynamic-sampling-filter-path", 623], ["--rollout-submission-granularity", 634], ["--partial-rollout", 652], ["--mask-offpolicy-in-partial-rollout", 662], ["--max-weight-staleness", 671], ["--async-max-concurrent-samples", 682], ["--async-data-buffer-capacity-factor", 693], ["--async-unused-samples-handler", 705], ["--custom-async-data-buffer-path", 718], ["--custom-generate-function-path", 729], ["--custom-rollout-log-function-path", 738], ["--custom-eval-rollout-log-function-path", 748], ["--buffer-filter-path", 759], ["--update-weight-buffer-size", 770], ["--update-weights-interval", 779], ["--pause-generation-mode", 785], ["--keep-old-actor", 798], ["--rollout-data-postprocess-path", 804], ["--pin-rollout-manager-to-head", 813], ["--rollout-external", 823], ["--rollout-external-engine-addrs", 829], ["--update-weight-transfer-mode", 836], ["--update-weight-disk-dir", 847], ["--update-weight-local-checkpoint-dir", 857], ["--update-weight-delta-encoding", 870], ["--update-weight-delta-checksum", 882], ["--custom-update-weight-post-write-path", 892], ["--p2p-transfer-num-workers", 903], ["--p2p-transfer-timeout", 909], ["--use-fault-tolerance", 918], ["--ft-components", 924], ["--rollout-health-check-interval", 932], ["--rollout-health-check-timeout", 938], ["--rollout-health-check-first-wait", 944], ["--control-server-port", 950], ["--mini-ft-controller-enable", 956], ["--mini-ft-controller-poll-interval", 962], ["--mini-ft-controller-resume-delay", 968], ["--num-rollout", 981], ["--debug-exit-after-rollout", 987], ["--num-epoch", 993], ["--disable-rollout-global-dataset", 1005], ["--data-source-path", 1015], ["--prompt-data", 1021], ["--apply-chat-template", 1033], ["--apply-chat-template-kwargs", 1035], ["--chat-template-path", 1036], ["--input-key", 1050], ["--label-key", 1051], ["--multimodal-keys", 1052], ["--metadata-key", 1060], ["--tool-key", 1061], ["--start-rollout-id", 1070], ["--rollout-batch-size", 1081], ["--n-samples-per-prompt", 1090], ["--global-batch-size", 1097], ["--num-steps-per-rollout", 1098], ["--micro-batch-size", 1108], ["--balance-data", 1109], ["--balance-by-flops", 1119], ["--allow-partial-train-step", 1131], ["--use-dynamic-batch-size", 1141], ["--max-tokens-per-gpu", 1152], ["--log-probs-max-tokens-per-gpu", 1162], ["--eval-function-path", 1175], ["--eval-interval", 1189], ["--eval-prompt-data", 1191], ["--eval-config", 1202], ["--skip-eval-before-train", 1212], ["--eval-input-key", 1220], ["--eval-label-key", 1221], ["--eval-tool-key", 1222], ["--n-samples-per-eval-prompt", 1223], ["--eval-temperature", 1229], ["--eval-top-p", 1230], ["--eval-top-k", 1231], ["--eval-max-response-len", 1232], ["--eval-max-prompt-len", 1233], ["--eval-min-new-tokens", 1234], ["--eval-max-context-len", 1235], ["--eval-num-gpus", 1237], ["--eval-num-gpus-per-engine", 1250], ["--eval-hf-dir", 1256], ["--eval-max-in-flight", 1267], ["--eval-overflow-policy", 1273], ["--eval-keep-snapshots", 1285], ["--ref-load", 1298], ["--ref-ckpt-step", 1307], ["--load", 1310], ["--save", 1311], ["--save-interval", 1312], ["--async-save", 1313], ["--no-save-optim", 1314], ["--save-hf", 1324], ["--save-trigger-sentinel", 1333], ["--custom-megatron-post-save-hook-path", 1342], ["--seed", 1352], ["--clip-grad", 1353], ["--calculate-per-token-loss", 1354], ["--lr", 1355], ["--num-critic-only-steps", 1357], ["--critic-load", 1364], ["--critic-save", 1365], ["--critic-lr", 1372], ["--critic-lr-warmup-iters", 1373], ["--eps-clip", 1380], ["--eps-clip-high", 1381], ["--eps-clip-c", 1382], ["--value-clip", 1388], ["--kl-coef", 1389], ["--loss-type", 1395], ["--custom-loss-function-path", 1405], ["--kl-loss-type", 1414], ["--advantage-estimator", 1421], ["--disable-compute-advantages-and-returns", 1437], ["--use-kl-loss", 1447], ["--kl-loss-coef", 1450], ["--use-unbiased-kl", 1456], ["--ref-update-interval", 1462], ["--entropy-coef", 1468], ["--gamma", 1469], ["--lambd", 1470], ["--normalize-advantages", 1471], ["--disable-grpo-std-normalization", 1472], ["--disable-rewards-normalization", 1478], ["--use-rollout-entropy", 1484], ["--observe-training-entropy", 1493], ["--get-mismatch-metrics", 1502], ["--reset-optimizer-states", 1508], ["--use-rollout-logprobs", 1517], ["--skip-actor-forward-only", 1526], ["--use-tis", 1538], ["--tis-clip", 1544], ["--tis-clip-low", 1550], ["--custom-tis-function-path", 1556], ["--custom-pg-loss-reducer-function-path", 1562], ["--use-routing-replay", 1569], ["--use-rollout-routing-replay", 1575], ["--use-indexer-replay", 1583], ["--use-rollout-indexer-replay", 1589], ["--use-opsm", 1595], ["--opsm-delta", 1601], ["--use-opd", 1615], ["--opd-type", 1621], ["--opd-kl-coef", 1632], ["--opd-log-prob-top-k", 1638], ["--opd-top-k-strategy", 1647], ["--opd-reward-weight-mode", 1654], ["--opd-topk-per-position", 1661], ["--opd-teacher-urls", 1673], ["--opd-teacher-key", 1688], ["--opd-teacher-load", 1697], ["--opd-teacher-ckpt-step", 1706], ["--lora-rank", 1713], ["--lora-alpha", 1719], ["--lora-dropout", 1725], ["--lora-type", 1731], ["--target-modules", 1738], ["--exclude-modules", 1745], ["--lora-adapter-path", 1751], ["--lora-sync-from-tensor", 1757], ["--lora-base-cpu-backup", 1763], ["--lora-train-only", 1773], ["--experts-shared-outer-loras", 1784], ["--multi-lora-n-adapters", 1792], ["--multi-lora-adapter", 1798], ["--multi-lora-idle-poll-s", 1806], ["--multi-lora-http-server-path", 1812], ["--multi-lora-backend-path", 1821], ["--multi-lora-api-port", 1830], ["--multi-lora-disable-service-mode", 1836], ["--multi-lora-max-adapter-global-batch-size", 1842], ["--multi-lora-max-coalesce-wait-s", 1852], ["--multi-lora-max-empty-wait-s", 1861], ["--use-miles-router", 1873], ["--miles-router-timeout", 1879], ["--miles-router-max-connections", 1885], ["--miles-router-health-check-failure-threshold", 1891], ["--use-wandb", 1903], ["--wandb-mode", 1904], ["--wandb-dir", 1911], ["--wandb-key", 1917], ["--wandb-host", 1918], ["--wandb-team", 1919], ["--wandb-group", 1920], ["--wandb-project", 1921], ["--disable-wandb-random-suffix", 1922], ["--wandb-always-use-train-step", 1932], ["--log-multi-turn", 1942], ["--log-passrate", 1948], ["--log-reward-category", 1954], ["--log-correct-samples", 1963], ["--wandb-run-id", 1969], ["--use-mlflow", 1974], ["--mlflow-tracking-uri", 1975], ["--mlflow-experiment-name", 1981], ["--mlflow-run-name", 1987], ["--mlflow-run-id", 1993], ["--use-tensorboard", 1999], ["--tb-project-name", 2000], ["--tb-experiment-name", 2006], ["--use-prometheus", 2012], ["--prometheus-port", 2013], ["--prometheus-run-name", 2021], ["--save-debug-rollout-data", 2033], ["--save-debug-trajectory-data", 2042], ["--load-debug-rollout-data", 2051], ["--load-debug-rollout-data-subsample", 2061], ["--debug-rollout-only", 2067], ["--debug-train-only", 2076], ["--save-debug-train-data", 2085], ["--save-debug-event-data", 2094], ["--dump-details", 2095], ["--dumper-enable", 2101], ["--dumper-dir", 2109], ["--dumper-inference", 2116], ["--dumper-fwd-only", 2123], ["--dumper-fwd-bwd", 2129], ["--dumper-source-patcher-config-inference", 2135], ["--dumper-source-patcher-config-train", 2141], ["--memory-snapshot-dir", 2148], ["--memory-snapshot-num-steps", 2153], ["--profile-target", 2158], ["--memory-recorder", 2165], ["--check-weight-update-equal", 2171], ["--check-weight-update-selector", 2172], ["--check-weight-update-skip-list", 2181], ["--check-weight-update-allow-quant-error", 2190], ["--check-lora-weight-equal", 2196], ["--save-local-weight-checksum", 2209], ["--enable-event-analyzer", 2214], ["--enable-witness", 2219], ["--witness-buffer-size", 2224], ["--ci-ft-test-actions", 2230], ["--ci-inject-rollout-data-path", 2239], ["--ci-inject-rollout-data-start-rollout-id", 2250], ["--ci-inject-rollout-data-min-match-ratio", 2257], ["--env-report", 2265], ["--debug-deterministic-collective", 2271], ["--http-proxy", 2283], ["--use-distributed-post", 2284], ["--rm-type", 2288], ["--reward-key", 2294], ["--eval-reward-key", 2303], ["--group-rm", 2309], ["--rm-url", 2312], ["--custom-rm-path", 2318], ["--custom-reward-post-process-path", 2328], ["--custom-convert-samples-to-train-data-path", 2336], ["--rollout-buffer-url", 2349], ["--fetch-trajectory-retry-times", 2356], ["--min-batch-collection-ratio", 2362], ["--rollout-task-type", 2368], ["--loss-mask-type", 2373], ["--data-pad-size-multiplier", 2380], ["--rollout-sample-filter-path", 2386], ["--rollout-all-samples-process-path", 2399], ["--disable-rollout-trim-samples", 2408], ["--use-dynamic-global-batch-size", 2414], ["--freeze-indexer", 2428], ["--custom-megatron-init-path", 2433], ["--custom-megatron-before-log-prob-hook-path", 2438], ["--custom-megatron-before-train-step-hook-path", 2443], ["--mtp-num-layers", 2452], ["--mtp-loss-scaling-factor", 2453], ["--enable-mtp-training", 2454], ["--prefill-num-servers", 2464], ["--ci-test", 2473], ["--ci-disable-kl-checker", 2477], ["--ci-disable-logprobs-checker", 2481], ["--ci-disable-weight-update-checker", 2485], ["--ci-metric-checker-key", 2489], ["--ci-metric-checker-threshold", 2494], ["--ci-save-grad-norm", 2499], ["--ci-load-grad-norm", 2504], ["--ci-save-model-hash", 2509], ["--ci-check-model-hash", 2513], ["--use-session-server", 2520], ["--session-server-ip", 2532], ["--session-server-port", 2538], ["--tito-model", 2547], ["--session-message-matcher", 2556], ["--session-sample-picker-path", 2567], ["--session-sample-postprocessor-path", 2578], ["--sglang-lora-use-virtual-experts", 2631], ["--no-sglang-lora-use-virtual-experts", 2632], ["--custom-config-path", 2650], ["--padded-vocab-size", 2657]],
   "miles/utils/ft_utils/health_checker.py": [["--trainer-heartbeat-checker-interval", 26], ["--trainer-heartbeat-checker-timeout", 32], ["--trainer-heartbeat-checker-first-wait", 38], ["--trainer-heartbeat-checker-failure-threshold", 44]],
   "miles/utils/test_utils/session_verify_agent.py": [["--session-verify-cycles", 467], ["--tool-call-failure-mode", 478]]
  },
  "defs": {
   "--actor-num-gpus-per-node": {"name": "--actor-num-gpus-per-node", "dest": "actor_num_gpus_per_node", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 108},
   "--actor-num-nodes": {"name": "--actor-num-nodes", "dest": "actor_num_nodes", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 107},
   "--adam-beta1": {"name": "--adam-beta1", "dest": "adam_beta1", "kind": "dataclass_field", "type": "float", "file": "miles/backends/fsdp_utils/arguments.py", "line": 25},
   "--adam-beta2": {"name": "--adam-beta2", "dest": "adam_beta2", "kind": "dataclass_field", "type": "float", "file": "miles/backends/fsdp_utils/arguments.py", "line": 26},
   "--advantage-estimator": {"name": "--advantage-estimator", "dest": "advantage_estimator", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1421},
   "--apply-chat-template": {"name": "--apply-chat-template", "dest": "apply_chat_template", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 1033},
   "--ci-test": {"name": "--ci-test", "dest": "ci_test", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 2473},
   "--colocate": {"name": "--colocate", "dest": "colocate", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 143},
   "--custom-agent-function-path": {"name": "--custom-agent-function-path", "dest": "custom_agent_function_path", "kind": "add_argument", "type": "str", "file": "miles/rollout/generate_hub/agentic_tool_call.py", "line": 148},
   "--custom-config-path": {"name": "--custom-config-path", "dest": "custom_config_path", "kind": "reset_arg", "type": "str", "file": "miles/utils/arguments.py", "line": 2650},
   "--custom-generate-function-path": {"name": "--custom-generate-function-path", "dest": "custom_generate_function_path", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 729},
   "--custom-tis-function-path": {"name": "--custom-tis-function-path", "dest": "custom_tis_function_path", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1556},
   "--debug-exit-after-rollout": {"name": "--debug-exit-after-rollout", "dest": "debug_exit_after_rollout", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 987},
   "--debug-rollout-only": {"name": "--debug-rollout-only", "dest": "debug_rollout_only", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 2067},
   "--dynamic-sampling-filter-path": {"name": "--dynamic-sampling-filter-path", "dest": "dynamic_sampling_filter_path", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 623},
   "--eps-clip": {"name": "--eps-clip", "dest": "eps_clip", "kind": "add_argument", "type": "float", "file": "miles/utils/arguments.py", "line": 1380},
   "--eps-clip-high": {"name": "--eps-clip-high", "dest": "eps_clip_high", "kind": "add_argument", "type": "float", "file": "miles/utils/arguments.py", "line": 1381},
   "--eval-interval": {"name": "--eval-interval", "dest": "eval_interval", "kind": "reset_arg", "type": "int", "file": "miles/utils/arguments.py", "line": 1189},
   "--eval-max-response-len": {"name": "--eval-max-response-len", "dest": "eval_max_response_len", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 1232},
   "--eval-prompt-data": {"name": "--eval-prompt-data", "dest": "eval_prompt_data", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1191},
   "--eval-top-k": {"name": "--eval-top-k", "dest": "eval_top_k", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 1231},
   "--generate-execute-tool-function-path": {"name": "--generate-execute-tool-function-path", "dest": "generate_execute_tool_function_path", "kind": "add_argument", "type": "str", "file": "miles/rollout/generate_hub/multi_turn.py", "line": 95},
   "--generate-max-turns": {"name": "--generate-max-turns", "dest": "generate_max_turns", "kind": "add_argument", "type": "int", "file": "miles/rollout/generate_hub/multi_turn.py", "line": 92},
   "--generate-tool-call-parser": {"name": "--generate-tool-call-parser", "dest": "generate_tool_call_parser", "kind": "add_argument", "type": "str", "file": "miles/rollout/generate_hub/multi_turn.py", "line": 94},
   "--generate-tool-specs-path": {"name": "--generate-tool-specs-path", "dest": "generate_tool_specs_path", "kind": "add_argument", "type": "str", "file": "miles/rollout/generate_hub/multi_turn.py", "line": 93},
   "--global-batch-size": {"name": "--global-batch-size", "dest": "global_batch_size", "kind": "reset_arg", "type": "int", "file": "miles/utils/arguments.py", "line": 1097},
   "--hf-checkpoint": {"name": "--hf-checkpoint", "dest": "hf_checkpoint", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 454},
   "--input-key": {"name": "--input-key", "dest": "input_key", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1050},
   "--label-key": {"name": "--label-key", "dest": "label_key", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1051},
   "--load": {"name": "--load", "dest": "load", "kind": "reset_arg", "type": "str", "file": "miles/utils/arguments.py", "line": 1310},
   "--load-debug-rollout-data": {"name": "--load-debug-rollout-data", "dest": "load_debug_rollout_data", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 2051},
   "--log-multi-turn": {"name": "--log-multi-turn", "dest": "log_multi_turn", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 1942},
   "--lr": {"name": "--lr", "dest": "lr", "kind": "dataclass_field", "type": "float", "file": "miles/backends/fsdp_utils/arguments.py", "line": 13},
   "--lr-decay-style": {"name": "--lr-decay-style", "dest": "lr_decay_style", "kind": "dataclass_field", "type": "str", "file": "miles/backends/fsdp_utils/arguments.py", "line": 16},
   "--max-seq-len": {"name": "--max-seq-len", "dest": "max_seq_len", "kind": "add_argument", "type": "int", "file": "miles/rollout/generate_hub/agentic_tool_call.py", "line": 149},
   "--n-samples-per-eval-prompt": {"name": "--n-samples-per-eval-prompt", "dest": "n_samples_per_eval_prompt", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 1223},
   "--n-samples-per-prompt": {"name": "--n-samples-per-prompt", "dest": "n_samples_per_prompt", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 1090},
   "--no-offload-train": {"name": "--offload-train", "dest": "offload_train", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 158},
   "--num-gpus-per-node": {"name": "--num-gpus-per-node", "dest": "num_gpus_per_node", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 134},
   "--num-rollout": {"name": "--num-rollout", "dest": "num_rollout", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 981},
   "--observe-training-entropy": {"name": "--observe-training-entropy", "dest": "observe_training_entropy", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 1493},
   "--optimizer": {"name": "--optimizer", "dest": "optimizer", "kind": "dataclass_field", "type": "str", "file": "miles/backends/fsdp_utils/arguments.py", "line": 12},
   "--over-sampling-batch-size": {"name": "--over-sampling-batch-size", "dest": "over_sampling_batch_size", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 610},
   "--partial-rollout": {"name": "--partial-rollout", "dest": "partial_rollout", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 652},
   "--prompt-data": {"name": "--prompt-data", "dest": "prompt_data", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1021},
   "--ref-load": {"name": "--ref-load", "dest": "ref_load", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1298},
   "--rm-type": {"name": "--rm-type", "dest": "rm_type", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 2288},
   "--rollout-batch-size": {"name": "--rollout-batch-size", "dest": "rollout_batch_size", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 1081},
   "--rollout-max-context-len": {"name": "--rollout-max-context-len", "dest": "rollout_max_context_len", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 516},
   "--rollout-max-response-len": {"name": "--rollout-max-response-len", "dest": "rollout_max_response_len", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 535},
   "--rollout-num-gpus": {"name": "--rollout-num-gpus", "dest": "rollout_num_gpus", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 118},
   "--rollout-num-gpus-per-engine": {"name": "--rollout-num-gpus-per-engine", "dest": "rollout_num_gpus_per_engine", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 128},
   "--rollout-seed": {"name": "--rollout-seed", "dest": "rollout_seed", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 580},
   "--rollout-shuffle": {"name": "--rollout-shuffle", "dest": "rollout_shuffle", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 574},
   "--rollout-temperature": {"name": "--rollout-temperature", "dest": "rollout_temperature", "kind": "add_argument", "type": "float", "file": "miles/utils/arguments.py", "line": 504},
   "--save": {"name": "--save", "dest": "save", "kind": "reset_arg", "type": "str", "file": "miles/utils/arguments.py", "line": 1311},
   "--save-debug-rollout-data": {"name": "--save-debug-rollout-data", "dest": "save_debug_rollout_data", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 2033},
   "--save-interval": {"name": "--save-interval", "dest": "save_interval", "kind": "reset_arg", "type": "int", "file": "miles/utils/arguments.py", "line": 1312},
   "--save-trigger-sentinel": {"name": "--save-trigger-sentinel", "dest": "save_trigger_sentinel", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 1333},
   "--seed": {"name": "--seed", "dest": "seed", "kind": "reset_arg", "type": "int", "file": "miles/utils/arguments.py", "line": 1352},
   "--tito-model": {"name": "--tito-model", "dest": "tito_model", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 2547},
   "--train-backend": {"name": "--train-backend", "dest": "train_backend", "kind": "add_argument", "type": "str", "file": "miles/utils/arguments.py", "line": 262},
   "--update-weight-buffer-size": {"name": "--update-weight-buffer-size", "dest": "update_weight_buffer_size", "kind": "add_argument", "type": "int", "file": "miles/utils/arguments.py", "line": 770},
   "--use-rollout-routing-replay": {"name": "--use-rollout-routing-replay", "dest": "use_rollout_routing_replay", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 1575},
   "--use-session-server": {"name": "--use-session-server", "dest": "use_session_server", "kind": "add_argument", "type": null, "file": "miles/utils/arguments.py", "line": 2520},
   "--use-tis": {"name": "--use-tis", "dest": "use_tis", "kind": "add_argument", "type": "bool", "file": "miles/utils/arguments.py", "line": 1538},
   "--weight-decay": {"name": "--weight-decay", "dest": "weight_decay", "kind": "dataclass_field", "type": "float", "file": "miles/backends/fsdp_utils/arguments.py", "line": 24}
  },
  "lines": {
   "miles/backends/fsdp_utils/arguments.py": "FnDrLoaHELK3Lv4iMsRmbBJxzyU4B4iUEnHPJRJxzyX0LefJEaM+R6JNwXlIp5Ccb0MCALIJkDRNG8oOVVapWWFLU8pJtp3ulkuHRDizGiMJYirx5EKapIM+b3wsm1XgJ/Mh5ewnTT0D7EPa+XknxxJxzyVzY+rCEnHPJa8Nl0jFCn+zehu6GBJxzyUbgAQsCoNhY643KSSps+RwEnHPJVk3Up9tZfMpKCAqsNkWaF66DeyNc/Mq+Szk/Ua6DeyNvdX0HpMYNDAScc8lw1jNUhJxzyUH+FrnzmXTMt9NAQEOU9K+SXq6KXzTe78E5xsC/U9WmbYCy5LPhRinEnHPJZBMwQMoKhIJEnHPJRJxzyXyxA8f+YVDqrv5nf3lr25DYnnx1EFW3IMScc8lNbPNOLJ1oU8OCHa0m6MpvqNdw8ncLD+rJPx7qxJxzyUmh2uwBshmF/bCc/TxJoAy3Cw/q+9alMYScc8lC4GAF/rf2/ZEs/bnEnHPJRJxzyUfnmfAaOba1BJxzyUScc8lkv9UBBnm4cdmU3YXLK17IBJxzyXkG1winPzAXXrQwCHKKAWJGgxdERJxzyUScc8lJ1DvMWiWoOifOVWXMO0ozzNJQN+IO6/ohSv1v+mdfgnbt9p5hYXQYvjbI+EScc8lEnHPJaGtyCDAjV0sB11fjszk22HqDgFPEnHPJXMPUACi9kNPoIH4ww==",
   "miles/rollout/generate_hub/agentic_tool_call.py": "tnF4BZ49kl0Scc8lFNOrIhnXIwBW9Mq2yCfafv5PTjh7GDM8EnHPJadY0FzrKPo55SXyJH1XaTHm0N4nsb/xXuZ0LlRoIhMyx2o7rhJxzyWvWmpB/40UOOh/U4u2cXgFEnHPJRZw6y4/KW7otLfy668Z1f/fSUVF79QKKBJxzyUsmduWFi33ZxJxzyV6eEbVq+ngs/jAtRhIz+hREnHPJRblOvAScc8lEnHPJabVgFgGYYh0mQ8nNDqE/OW6DeyNbIckoYiMQ78Scc8lz1oGAOwYiCRtpZ08A0aIgBJxzyWS98XCEnHPJcdH9FC+w33gQDj8ztNWwcT4BoJiEnHPJQw/N9cScc8l2L7wMVomqMoScc8l8MD6lLXFaWgR82nrSs4oUGexiwwL97MaXeNKjdxJoIK4TOE8/EXVfWyw4wlvF9voDiph5kQ9jy8Scc8lHxdEOT5QvDpufhaxGTfjwoS3Jji2HIqGu5PuL4Si9reAtRHPpQAUFQj/gcv0pnRb3Cw/q3dg1sJM1P6+erFZKvEmgDIScc8lsW/yuy31pMwXtao5WP7iFRJxzyXhWjUt/Dv1+umbJNrcLD+ryqWcgC31pMwXtao5WP7iFRJxzyVjMYzuB1PAhuNVNm+bzUKZTosB3ghObMqij/I0UHTMDaVGodTh51D79SUtodSppr4YRBd6EnHPJWwjnMzfVIRt0FqHv2HbcMQ6eiIt1KmmvsOfcRAScc8lu2kdXCrNzq4Scc8lq1Mea1GByaXbevitEnHPJRJxzyVacmvo2Tdi4RGZtMJ7q6IHq5ViapxUQYrlhSJMD+NJiPdRvxQEvx+Zug3sjRJxzyUScc8loz0uxRJxzyUScc8lGo2jA2CvHMdoUvD6xs/GN07bKC71uuemjCBV4mTzuKORefcuJHhE47cUIomB4rp314TujBJxzyUekNnKI755mpx0Iuw=",
   "miles/rollout/generate_hub/multi_turn.py": "tnF4BfkCp462cXgFEnHPJRZw6y60t/Lr30lFRRJxzyV6eEbV05uQmVhzjx8gS2JKS/shy3cQDeI4EX+6cyLur96uyGfhwltjabyyNzgRf7razP0XU5Iav/jAtRgScc8lEnHPJabVgFj/exM7EnHPJRuuoZoPC1gJ0DtoW7OEuVkScc8lCQpIHxJxzyVSL1T8EnHPJSpB+5mK5QzpEnHPJerjazancHZcOPR8hhJxzyUvBo4tEnHPJWoAQ2oScc8liVCppxJxzyWXWESHZQI6RxJxzyW8TIgR+Uz32l4yeGAZxe4LEnHPJdxolpfxUUu45C6XpkJR2DeDz69FHEc+uXQ0VZ49jvdQq7ZmOwwcwysScc8l93GiwRnF7gsScc8lGIVx9BJxzyW+EK5KnLK3FxnF7gsScc8l89eJwQnrZXdCUdg3aKScIbuINbk9jvdQwmXtt60o1q0Scc8l23r4rRJxzyUScc8lWnJr6OZdZXIufucbvxWQCuq6MZYScc8lEnHPJaM9LsU=",
   "miles/utils/arguments.py": "FnDrLo4HR00/KW7ow+kWVO/UCigScc8lOAeIlHI7MEMScc8ltihmqKTses7lzL2sfqd445HxIInvtUBUiR2YTy07rFTp2wh/iKWiUGhL2kQzIK6OA2g3yvjAtRgd42EsoLGgjBJxzyUW5TrwEnHPJRJxzyUiPUWcidt/sUMHdb5QxtlANqChCJM4opmeMaZmT0UMDH7w+Fg/RJYsmKoXMozHezYScc8lEnHPJQbkRz82aJW1IsHru0cHe59+73bjbLDjCU9FDAy792ZeEc3xuIPUDoxgVtaWtZEEAbv3Zl4shYufLttp5N9v+KALlGrhgKtLBCJPZCuUNUgnbLDjCbv3Zl6pVa8jPrfnr7v3Zl6eyXeaZKQJtBJxzyXaiAcxhcTl23aytCOZ6suH1YcNeSiEotTW3twkGuFTL7oN7I2/RJhCEnHPJRJxzyUV4pFbFDe8m13lrPiN4mzjxkq6zYeefx8UN7ybaWojL40m2s5R7vY049YM0BnF7gs2oKEI3OAJixJxzyUScc8lJ22ojRJxzyUScc8lJmVUG3Kqtpj6n+2bUnEY8ArnkWsGyGYXUQo9IvEmgDIGyGYXdxKR1vEmgDIGyGYX6lXxLPEmgDIScc8lBshmF07Gd3/Pn+VQgoZd4a609/rn2kLVNOBGpLDt1EWDU/x48SaAMgbIZhemW46fz5/lUL6qaZo97HEF8SaAMgbIZhdFWPugz5/lUA8pCrGutPf6HflLcNxyHRiDU/x48SaAMgbIZhe1j/o0yQId/iGvOTautPf6n57D1OVPY5+DU/x48SaAMgbIZhdzVZTdyQId/iGvOTZGv0D88SaAMgbIZhd15KuwMFaqeK609/r/atzV/t3Q/oNT/HjxJoAyBshmF4wrOrowVqp4rrT3+vR2/cEZQpZlg1P8ePEmgDIScc8lBshmF4ytoB9oiGbGWZ+wiW7bGmWutPf60vZISSUV/AZyz+D6g1P8ePEmgDIGyGYXMwinfmiIZsaCWgWRLAIa36609/pTcuXVSsoevgSduKrHIX07g1P8ePEmgDIGyGYX1aQToskCHf6utPf6KiejPnnvXAc+T9H6HYz/Y6pxVa6vVSET39i2ArEYG9KDU/x48SaAMgbIZhdhJU3oaIhmxiGHQ+8Qls03rrT3+oVMwticMhZMhJKIj/FU/8cZ1a4Gu3cogUWn7dhgM+TpgloVw950rnrzo7fvg1P8ePEmgDIGyGYXZf+zBmiIZsaChl3hrrT3+rjCSaxi7TbHlI5zKSS1xfSoWIrmzJs8o4NT/HjxJoAyBshmFzXxrmrPn+VQ1zblo6609/qzDuMAjZ/FJpJXbn4NAicSg1P8ePEmgDIScc8lQI+vbPcXvOAScc8lqIKi+BJxzyX5/bQFBshmF5RZ39xoiGbGcHo9GWUYnKpstV928SaAMgbIZhcXsLUqaIhmxtvLOOuaUhWMmtx9/PEmgDIGyGYXgSg0LGiIZsaf0rTEi6wvIa609/rsyCGEhuAcCO9R9GGDU/x48SaAMgbIZhdW0ebaaIhmxm3cDHH1vs02yf8q9vEmgDIGyGYXf7GVUskCHf4hrzk2RIsSLvEmgDIGyGYXJi7hf8kCHf4hrzk2rrT3+nf4u6SJpGl9g1P8ePEmgDIGyGYXnKfbgDpOtDAitByz1Ro0TvEmgDIGyGYXIC4s6c+f5VBNzC8iHgOf0/EmgDIGyGYXA/nAt8kCHf4hrzk2rrT3+jjgSe4s6o9Mg1P8ePEmgDIGyGYXAT9+ickCHf4hrzk2rrT3+mxJhLBhtzEobfFGm4NT/HjxJoAyBshmF8SfyBrJAh3+rrT3+iT1GIue6mPm7FQINaAOBfQuFk6PEpuDCYNT/HjxJoAyBshmF34hUEjJAh3+VV+9bfEmgDIGyGYXVhnvu3oGdNFj/SPEDXmNDfEmgDIGyGYXjt0Lh34KJqabT9mkrrT3+h88BzC8ha6nC4+YFRNjeiQjAml0HPdAkYNT/HjxJoAyBshmF4jJBk5oiGbGDTdniWysMlH4Pban8SaAMgbIZhd6DzHkaIhmxg03Z4lsrDJRrrT3+mL4rL6L65K2g1P8ePEmgDIGyGYX1dnkwGiIZsaChl3hrrT3+jC++no7zsZgjGALCP2kuVsP/XXSg1P8ePEmgDIGyGYXUDKVOckCHf5QpjfT8SaAMgbIZhdHePVL8SaAMgbIZhdHFQAWyQId/iGvOTbOaoLE8SaAMgbIZhfV9Hf5yQId/iGvOTbxJoAyBshmF9BIfbPJAh3+Ia85NvEmgDLyraO3BSZ42qVgZS3JAh3+Ia85Nq609/rQ6q5Rg1P8ePEmgDIGyGYXue7UgYUJgn2Chl3hrrT3+p18QEYml9JlvYrUy2bGNdaDU/x48SaAMhJxzyWogqL4EnHPJfa33StdP+V3BshmF8BLxeJoiGbGgoZd4a609/pcxMfTRNhve5E+wbdlz+47eP2wR4NT/HjxJoAyBshmF+WaEaZoiGbGgoZd4a609/rizIw5OVQ5YwaI3uuDU/x48SaAMgbIZhfbSXimaIhmxoKGXeGutPf6DD6b91yUsCIbDZtNA64cphZqSNMRq0jIaCF/xOxN6n8218hZ2fSQR4NT/HjxJoAyBshmF6DU+5PJAh3+Ia85Nq609/pkrQIRTSwO6bj7XecU0pFpg1P8ePEmgDIGyGYXa0SPwoUJgn3TKaVgEF8v+vEmgDIGyGYXrCEys/EmgDIGyGYXgfaxkvEmgDIGyGYXTDx4r8+f5VCChl3hrrT3+mvwa/iE3TrFg1P8ePEmgDIGyGYXp1gync+f5VCChl3hrrT3+tn0Oq7vNgt7UEvHJINT/HjxJoAyBshmFypqc4LPn+VQgoZd4a609/qKvcQtZIb96YNT/HjxJoAyBshmFwqB5+jJAh3+Ia85Nq609/pcttC/zoJXZ4NT/HjxJoAyBshmFz4A1NloiGbGWZ+wiYKGXeGutPf6kZ0yTICShmcdQ9wHg1P8ePEmgDIGyGYXOKdbHM+f5VBZn7CJgoZd4a609/pmX4pJt+As64NT/HjxJoAyBshmFxgUvUbJAh3+Ia85Nqz+xKbxJoAyBshmFwrMq0jPn+VQNoZjba609/p3uJjIy3dx3oNT/HjxJoAyBshmFxZnUO9oiGbGPLbWuiM0cek3rLOZ8SaAMgbIZhentOdsOk60MIKGXeGTSZlv8SaAMgbIZheTFlcwz5/lUL6qaZofS1Hi8SaAMhJxzyUlZFMwBshmF0DDqqPPn+VQgoZd4a609/r5uJREUNo+yY9CCqSpfgCTZsDMKk+T612DU/x48SaAMgbIZhdvsRCMaIhmxoKGXeGutPf6Ru/9m938k1oeDCaf6eT7rYNT/HjxJoAyBshmF+e8c+VoiGbGhQG4LYKGXeGutPf65aY0ERkXr85eiq5MVz8A1j7uDCtggeN0W2mvUtAw85+DU/x48SaAMhJxzyU3n98GBshmF5z/6EDJAh3+Ia85Nq609/qEHo05lyUb8ehVvk6DU/x48SaAMgbIZhfK7+XtyQId/iGvOTautPf6xGZjs558hW2DU/x48SaAMgbIZhdh0orzz5/lUIKGXeGutPf6IJiFRso4bY999oVISuKf2INT/HjxJoAyBshmFycGiUfPn+VQgoZd4a609/oyFAB67HFhcgVzKcBAo086g1P8ePEmgDIGyGYX8PON3YUJgn1LMxANrrT3+tshz41VF3PZH2Bi5XBoLdWi3e74g1P8ePEmgDIGyGYXtURb5WiIZsaZAh6G91FQ4K609/pF1bQi/kxo5IP84nN3XWwDcDwZYINT/HjxJoAyBshmF5VuheZoiGbGgoZd4a609/qEiGibAvJ/L/9TQk+OeAlYg1P8ePEmgDIGyGYXmsr/BGiIZsaChl3hrrT3+pB58Irz3Cdbg1P8ePEmgDIGyGYX3x9+yWiIZsaChl3hrrT3+h1zWKJQL7TypjZwzoNT/HjxJoAyBshmFz0ATR9oiGbGgoZd4a609/q9K8xLtL7qdqY2cM6DU/x48SaAMhJxzyUGyGYXlsrwhWiIZsaChl3hrrT3+mqRWCZVg6DttKkdrINT/HjxJoAy0akhrgbIZhc0TEMEz5/lUI08MQuutPf6em4YvzNx6xaDU/x48SaAMgbIZhfMyVLMz5/lUL6qaZqcEej48SaAMgbIZhe2Xcp4aIhmxt3NIDh0MSs8rrT3+kAI3fxQ/GxQVfQHBMdFChcA80yeg1P8ePEmgDIGyGYXt650SMkCHf5kIZfA8SaAMhJxzyUGyGYXei/5KGiIZsaChl3hrrT3+n66J90v4VTIg1P8ePEmgDIGyGYX5c05YckCHf4hrzk2rrT3+iI2Cs+yQmtJ/kjs2INT/HjxJoAyBshmFwAFU1bJAh3+Ia85NtcQG87xJoAyBshmF5hVscdoiGbGgoZd4VmfsIl4OOq08SaAMgbIZhfydOy508voZM3YtvKutPf6ahmz3rv1c1blEObso3PO24NT/HjxJoAyBshmF3vzbqVoiGbGgoZd4a609/qz1KW+/uyZUn9uIn6DU/x48SaAMgbIZhecBpRdaIhmxoKGXeGutPf6Mff0jh6qO6+OIgu0UU/LtC5q6Tntda2Eg1P8ePEmgDIGyGYXn98K3lBGvX/npz3errT3+lJoXyRTnGXXmj4WGPBZoqThxxsog1P8ePEmgDIGyGYXqb0DdhdmL4uD6oydrrT3+kzM3c/mecsWxQD1mYNT/HjxJoAyBshmF108AY5oiGbGgoZd4a609/plBfg4Wat5+d/rFKvEDqaOg1P8ePEmgDIGyGYXDGW+gc+f5VAdOblKxHY+fvEmgDIGyGYXvcf3OYUJgn0U8LSE67w74PEmgDKogqL4EnHPJXkW/I4GyGYXJVQOWskCHf4hrzk2j0jGC/EmgDIGyGYXfToxrVmfsImChl3havvmLMtimvCcoGo28SaAMgbIZheHYPj7hQmCfRTwtIQI4/fs8SaAMgbIZhcWuh8ThQmCfRTwtITxGjEY8SaAMgbIZheGmotshQmCfVepxu1mke3R8SaAMgbIZhcIB3JDz5/lUFepxu1Kcn3T8SaAMgbIZhf0odHgyQId/iGvOTbnCVc68SaAMgbIZheWCdY6hQmCfX59ZyYlmpET8SaAMgbIZheSQhsUhQmCfX59ZyYDoDmj8SaAMv5GWDeogqL4EnHPJQuZY1bWCtwXCBaFmGPo+jwGyGYXZ4Uhb8+f5VCChl3h8giG0PEmgDIGyGYXuC31+c+f5VCChl3htN9dVPEmgDIGyGYXgzvEac+f5VCChl3hrrT3+heCaj2j+SHaCt+9JlNuhmSDU/x48SaAMhJxzyUGyGYXkdbzCALanDNS27h1rrT3+hoAXR10rXj7g1P8ePEmgDIScc8lBshmF+/SxYBoiGbGgW7+SB827n/xJoAyBshmF0HnG+5oiGbGgoZd4a609/pIn710VZlSeGwqf1kHZPgl80KKN4NT/HjxJoAyukOhdvsTqImy+MycBshmF3VtR9NoiGbGgoZd4V6JIUaO8/e85bmLRPvPYg3X5o2CzQfMD2HtUuKopSp1zdYjmfEmgDI9OXObeR7u7QbIZheAJwihOk60MIKGXeGutPf6X/lqMINT/HjxJoAyYS1vQAbIZhcGZfUSaIhmxj3aaTKutPf6/J6iH4NT/HjxJoAyEnHPJQbIZheiEDO4z5/lUIKGXeGutPf6yF9YKujRkFaDU/x48SaAMhJxzyWaZgRCBshmF5mgV5PPn+VQZZSVtq609/q+9cXngQeJNINT/HjxJoAyBshmF8XaF+nxJoAyEnHPJVFySBeIMFPwtfTy8IKMH9QGyGYXrTd1is+f5VCChl3hrrT3+tqHDdz04HLSg1P8ePEmgDI895ihGHo7AgbIZhdli9i7yQId/iGvOTautPf6+xf8dbHLx8CDU/x48SaAMhJxzyUGyGYXY1QNdckCHf4hrzk2rrT3+hRCgeNDResy5iHY3J9uex4PsH0wg1P8ePEmgDIGyGYXxjLPr8kCHf4hrzk2rrT3+hl1AzuPGz9QDrz5N4NT/HjxJoAyBshmF0+9/OLJAh3+Ia85Nq609/rtcydv9COxZqzx28OIB2xzg1P8ePEmgDIGyGYXAy99ds+f5VCChl3hrrT3+h90f/2y9vrjnc8g7oNT/HjxJoAyBshmF3EusZDPn+VQgoZd4a609/rxXQz8iQy4CR/BvDiDU/x48SaAMqiCovgScc8lEamK3AbIZhfQnfYmaIhmxoKGXeGutPf6dqkd2zIciyeJ24zlq4Xhu0o7OcyDU/x48SaAMhJxzyXa/4NMMqOMARJxzyUGyGYXg0O3OmiIZsaChl3hWZ+wia609/rfquEr5Hd+bVdCQuaDU/x48SaAMgbIZheoTsI9aIhmxoKGXeGutPf6bvVuiAhfkz8s/z8Og1P8ePEmgDIGyGYXuLZI/MkCHf4hrzk2GhbYZ/EmgDIScc8lZ8sXGAwSoMg/H1qyiSJycAbIZheaVV9Az5/lUL6qaZp8Ry998SaAMpi/nnzNMUKPojo3thgLWQ7uvmVv4bcDAitMDtEScc8lBshmFzACV+7Pn+VQV6nG7a609/qFmktT67weMqc8i7y5QdGFYVNkG2FHJBKDU/x48SaAMgbIZhe48Jrxz5/lUL6qaZozhbZl8SaAMgbIZhf+8E1vaIhmxoKGXeGutPf6pte/jkXd1t1uGK4AiY/snINT/HjxJoAyBshmF4LhtGHPn+VQu99BcdGLUujxJoAyBshmF+/HaJxoiGbGvGquoTAYvXOutPf65INF+GQ7Tp7RZI4NwHykGINT/HjxJoAyBshmFxRgJmTPn+VQu99Bca609/peNQeo7O2YIYNT/HjxJoAyEnHPJaiCovgScc8l5LLzIAbIZhd5bCxdaIhmxoKGXeGutPf63fB0Drtlo6qDU/x48SaAMgbIZhd91pDi8SaAMiUO5lx8uf3llYH5clJrdXbyraO3BSZ42mh6HBTJAh3+Ia85Nq609/p3nvAgcOEgJoNT/HjxJoAyBshmFymMSvxoiGbGgoZd4a609/rqxqBKfOj9DoNT/HjxJoAyBshmF7F2FZFoiGbGgoZd4a609/qeC17l8jVZIINT/HjxJoAyBshmF42QPIJoiGbGgoZd4a609/qDtDR4ll0AuHzAw3ODU/x48SaAMptRNpU/IxRVQfYluDc6rBoScc8lBshmF2SUWknPn+VQV6nG7QpBOeog1iFz8SaAMvyKl9AGyGYXP72Yb2iIZsaChl3h3IplDCCcODzxJoAyXEoxkQbIZhc3Nzqgz5/lUFepxu1LU0CN8SaAMhJxzyVYWZ9n7XhdmAbIZheQCFRFhQmCfYKGXeG6q6qB8SaAMnnb3poGyGYXsEamkIUJgn2F7FraVt1KsvEmgDIGyGYX1M0lbWiIZsb1CgEAqe0Xta609/qsP2q3qY0sMYNT/HjxJoAyBshmF1JK4/VoiGbGgoZd4a609/o3ho5rnMpNOINT/HjxJoAyBshmF7HsVWZoiGbG5eqLca5W7MTtBfIH8SaAMgbIZhfvlgQkaIhmxntAMYxhlNksZX5VzShUVrJlVNDy69w6P0tg2P7xfA6errT3+tX+G586Yjddg1P8ePEmgDIGyGYXu4amGALanDPcF/BirrT3+rP+yJAObAWidYJBrINT/HjxJoAyBshmFzhNdCbxJoAyBshmF+60KdeFCYJ9gdlKt6wLAXrxJoAyBshmFxOVhOzJAh3+Ia85Nhu6ztjxJoAyBshmFxMTC1fPn+VQgoZd4eXyHCPxJoAyXUVw0Alm5N0EIhUehfj5ogbIZhfk1BD1AtqcMxogUdAjZeo28SaAMgbIZhfgkR/TAtqcM3tlSsRgOrS28SaAMgbIZhdBTHUzyQId/iGvOTautPf6mRP7BR+2R8GDU/x48SaAMgbIZhc3Tx41yQId/iGvOTautPf6PJbH03nfmvuDU/x48SaAMgbIZhfTmtfwyQId/iGvOTZZnLO/8SaAMgbIZheGAlFzyQId/iGvOTautPf69XsUEKrEcw6DU/x48SaAMgbIZheQlzGcyQId/iGvOTautPf6tmzO1t8++RuDU/x48SaAMgbIZhfOv0PuyQId/iGvOTautPf6XWmuEsYvMR0Zfts9z8f+LINT/HjxJoAyhLxtDgbIZhe643NfyQId/iGvOTYCG+yG8SaAMgbIZhc3esCphQmCfUszEA2yX/548SaAMgbIZhci7+PthQmCfVepxu1BN7cN8SaAMgbIZhdTaD8maIhmxoKGXeEFHfGh8SaAMgbIZhe/GhUMaIhmxoKGXeEiwSvL8SaAMhJxzyUGyGYXXgFHJckCHf4hrzk2mZ10BPEmgDIGyGYX3gKFCckCHf4hrzk2szagETONIjHh+qJ58SaAMgbIZhcoR1wNyQId/iGvOTaD+U6r8SaAMgbIZhfnRMPFyQId/iGvOTbCNgux8SaAMgbIZhcOo+HeyQId/iGvOTbar4KL8SaAMgbIZheoJsp9hQmCfZFzyrMInKDZ8SaAMqiCovgScc8l7ZTk4E8MNbMScc8lHJQ95/CJyKvQDwyIBshmF3FuOgXJAh3+Ia85NrKFHyvxJoAyBshmF0u3K8xoiGbGHgc7gIKGXeGutPf6tBvrV1AzZHtGwivug1P8ePEmgDIGyGYXkn7PaIUJgn3TKaVgr/WInfEmgDIGyGYXWtGqZ8+f5VBXqcbtrrT3+mQM6mqh5BzTg1P8ePEmgDIGyGYXhf9xAWiIZsYteio5AWZn+9zf58nxJoAyBshmF5OTN+NoiGbGwJjzjakFPL4wPgLz8SaAMgbIZhdFWYRSyQId/iGvOTautPf69TxQkA8hSq7eOqDWp+3VcvROaC2DU/x48SaAMgbIZhfjQc6naIhmxlmfsImChl3h0epvuK609/rSt4rPXU9GGSZRKsOTJ+25e5gIqNW/sUeDU/x48SaAMgbIZhftabsbaIhmxqLDiwqutPf6TzrpBn6oXi+DU/x48SaAMgbIZhfUq8YtaIhmxoKGXeGutPf6IHG2m99AGk2DU/x48SaAMgbIZhepPHBt8SaAMqiCovgScc8lFkjjIxYmkPIGyGYXK454ts+f5VBXqcbtmIlRXPEmgDIGyGYXFZaHg8+f5VBkrSKp0Tio1fEmgDIGyGYXvKv4GoUJgn2B2Uq3QnAcBvEmgDIGyGYXPdyQWGiIZsYK06BALAEns9xH4abxJoAyBshmF/b5rXhoiGbGgoZd4TekkFqdMXPT8SaAMgbIZhcpbKbUaIhmxoKGXeHD8haH8SaAMgbIZhdg6m9TaIhmxoKGXeE+s3eQ8SaAMgbIZhfE9Q8JyQId/iGvOTZLsMjM8SaAMgbIZhchoo0fyQId/iGvOTautPf6RfgAQ28xVV8oyuiJg1P8ePEmgDIGyGYX/81oY8kCHf4hrzk2rrT3+riA3dGGkO5NQld8aSu64ySDU/x48SaAMgbIZhfHkrjGyQId/iGvOTbevMv31lvSRdCvoJzxJoAyBshmFzUilUnPn+VQV6nG7XPnoODxJoAyBshmFw3XX+4CMkBO0/qgzmiIZsYpWOCnyGizF/EmgDIGyGYX0wpWxoUJgn1S3c8S5/QUgfEmgDIGyGYXlzUOuGiIZsaChl3hrrT3+umfaBaRWJB3g1P8ePEmgDIGyGYXiutn+WiIZsaChl3hrrT3+oYm7i2AK0icg1P8ePEmgDIGyGYXLlhVBM+f5VCsLoll7/DV2fEmgDIGyGYXt69KsQLanDPpJq9+DxL1FfEmgDIGyGYXBqNg+M+f5VCChl3hrrT3+tEqHxIYr1ZQXJQKNoNT/HjxJoAyBshmF4jPU9GFCYJ9/dBPX6609/oZvhKhAQuvQYNT/HjxJoAyBshmF8pW6TiFCYJ9FPC0hK609/qzBVhWY+OYBINT/HjxJoAyqIKi+BJxzyWyEslIBshmF+lTL7PJAh3+Ia85NrE+rWLxJoAyBshmF1m7RoGFCYJ9goZd4eH8l8bxJoAyBshmF4rAPgvPn+VQgoZd4RqNdmjxJoAyBshmFwfkYQPPn+VQTC2W3ofJ4WjxJoAyDSrIMaiCovgScc8lO0aTC9tfE2+pP7HD8gI/zwbIZhdUPtEcaIhmxoKGXeGx61yY1xJDYPEmgDIGyGYXjJABkmiIZsaChl3h/lDf8vEmgDIb3kIsKKWv4Q/e/xBCy0sERupFGAbIZhc7mlYOAtqcMyhhm46jaZGBrrT3+vOCDZy3E6Hpg1P8ePEmgDIGyGYX7kQ3xskCHf4hrzk2rrT3+miSUs7vVSk7CIFYa4NT/HjxJoAyBshmF8q0/gfJAh3+Ia85NsICtFbxJoAyBshmF9qeXD3JAh3+Ia85NpbQN/LxJoAyBshmF4eA/BloiGbGgoZd4a609/pgblBf7TBwsYNT/HjxJoAyBshmFxopRdXJAh3+Ia85NvksdLTxJoAywe5O0KiCovgScc8lgmhovDUp0KHLI/TbBshmF0eLupVoiGbGgoZd4ad96hzxJoAyBshmF6I3NBFoiGbGXClgnJvcD1jxJoAyBshmF/a5xuJoiGbGgoZd4YRgKW/xJoAyu8tylqiCovgScc8l2iPYEVVN4coxuJCuDLJZHAbIZhfoGqsMaIhmxoKGXeHSORSn8SaAMmriS0QScc8lqIKi+BJxzyWOuHCiKrkYUkWHvc4GyGYXtKvPYs+f5VApuZrHVOxDhKV2H1n46j5P8SaAMgbIZhecH949aIhmxoKGXeE/vtowgjCGpdo5LC3xJoAyqIKi+BJxzyWnLGbDxLGUKwbIZhf9CQqtaIhmxoKGXeGutPf65VNdjd+p7LaDU/x48SaAMgbIZhcE9pZFaIhmxoKGXeGutPf6JGe6WehFdnODU/x48SaAMgbIZhcZ1TA2aIhmxoKGXeGutPf6z0spFLFh7fz5dXjpg1P8ePEmgDIGyGYX8dbcVoUJgn2Chl3hqxRlZ/EmgDIGyGYXEKMzickCHf4hrzk2rrT3+okP5PswJfR/g1P8ePEmgDIGyGYXwaJwmMkCHf4hrzk2rrT3+jPXXFQwJfR/g1P8ePEmgDIGyGYXVMHDomiIZsaChl3hrrT3+g0aIauFFU9Bg1P8ePEmgDIk6aZnBshmFwbqSqxoiGbGgoZd4RzgjonxJoAyBshmF7JusXDJAh3+Ia85NiNzjlZIT3vCt9GwY/EmgDIGyGYXZ+XMuGiIZsYmdBTyFJvHPbIUyrvxJoAyBshmFwW4vSENN2eJgoZd4ZNK/pSQpu9B8SaAMgbIZhdCxp8WDTdniYKGXeFCzZ7q8SaAMgbIZhejvApQDTdniYKGXeF8d5ea8SaAMgbIZheVLY8raIhmxoKGXeHvb5L78SaAMgbIZhfbNLKoaIhmxoKGXeFm9CED8SaAMvYtp/EGyGYX4OpEV2iIZsZORkq58SaAMgbIZhe5R8LKz5/lUIKGXeHxJoAyBshmF9mueHloiGbG0RZoDN3UIIFZn7CJ8SaAMgbIZhckaV6HaIhmxkOGCVv1vs028SaAMjgBonsGyGYXEfzGFmiIZsaNDB+PdeJFcrXNyseev8D6il56MPEmgDIGyGYXyQEJZWiIZsYNN2eJgoZd4cnwAIV6Hb7Tyn/jmPEmgDIGyGYX8m0hbMkCHf4Ph1RQIT6JG/EmgDIGyGYXLKOJwckCHf4hrzk2rrT3+kjJ2qU5kXbdKw88bKv3IbQhtUO2e4SxnINT/HjxJoAyBshmF/AQOtHJAh3+N3+vr/EmgDIGyGYX+rpjIskCHf6wQKJb8SaAMgbIZhdY5UzxyQId/lmIlSfxJoAyBshmF1kem7jPn+VQ/efNmiN2VDvxJoAyBshmF5WC5IFoiGbGgoZd4VO/xFSe49PFMPFZtgwDIJvxJoAyBshmF8MH8gFoiGbGgoZd4UomCt88lf2p9pCpMxYDimCWVJdE1moB3fEmgDIGyGYXpmlVhM+f5VCChl3hFVEwXrQSeUrxJoAyBshmF0ePpzOFCYJ9KWXBnQM1Xdv7j3lFnCSgrPEmgDIGyGYXJvC+vGiIZsZ2UbE9YJpGZPEmgDIGyGYX2WO4CskCHf4hrzk2LWtaL7+MMXNVE40RYqYe8fEmgDKogqL4EnHPJcC18nSCBDuGvzlOuKiCovgScc8lX3kMWQbIZhexyG/HaIhmxoKGXeH5DFhI8SaAMgbIZhcZjFZUaIhmxoKGXeGutPf6XDJHu/3Kc6GDU/x48SaAMgbIZhdMJ5B2aIhmxoKGXeEc7ODy8SaAMgbIZhcrBpK28SaAMgbIZhdAqEihaIhmxoKGXeHIIuXb8SaAMgbIZhcO7T5oaIhmxoKGXeGutPf6H/6gNEIrecbbZp5Ig1P8ePEmgDIGyGYXnWN4tWiIZsaChl3hrrT3+h+D2bODU/x48SaAMgbIZhfi1T4baIhmxoKGXeGutPf6kKKZX+OSnIkMw62/g1P8ePEmgDKogqL4EnHPJVLINUIGyGYXmp6T7GiIZsaChl3hI4fRk/EmgDIScc8lBshmF+N2x5HPn+VQWMzxMBJXl3rxJoAyBshmF47woHaFCYJ9vqppmn06LS7xJoAyBshmF0i7BLVoiGbGjlQag/EmgDIGyGYXmvDUA2iIZsalzMc9MdYA5LNBqfvxJoAyBshmF8rF2qnPn+VQWfh532QvblbxJoAyBshmF3GcEBtoiGbGgoZd4a609/qjqAVFw6pSjqn2kXLbc6I0dwVcPNgfeTGDU/x48SaAMgbIZhco3YwyaIhmxoKGXeGutPf6X8rtRD8MLcmDU/x48SaAMgbIZhdmQxOzyQId/iGvOTY6QW9E8SaAMgbIZhenqIG4yQId/iGvOTa4ZcwB8SaAMqiCovgScc8leUlH2NAPDIj0N0A2wyNX7NAPDIic9xU/BshmF5R55aLJAh3+Ia85NvEmgDIGyGYXkFkLG2iIZsaChl3h8SaAMgbIZhf5xUXiaIhmxoKGXeHxJoAyBshmFyqbMdNoiGbGgoZd4fEmgDKogqL4EnHPJUqYldMXtlxHUdy9eESEQkMGyGYXq82wFckCHf4hrzk2A89AHPEmgDIScc8lqIKi+BJxzyVz0sbvBshmF9iMMpvPn+VQgoZd4fwqLDHxJoAyqIKi+BJxzyX1ouc8BshmF95ng/TJAh3+8SaAMgbIZheXoVtyyQId/vEmgDIGyGYXkOi1+MkCHf7xJoAyBshmF5WJOj7JAh3+8SaAMgbIZheAh2GMaIhmxoKGXeHxJoAyBshmFy8uhSGFCYJ9goZd4fEmgDIGyGYXX4xCEGiIZsaChl3h8SaAMgbIZhfy9RvtaIhmxoKGXeHxJoAyBshmFwKFDl7JAh3+8SaAMgbIZhewE+R8yQId/vEmgDKogqL4EnHPJRFIfncGyGYXqCeGvUeqZODw1BUcIa85NgnPafnpfm7hRgkyey74G84sHk1tozCV7vEmgDIGyGYXSB2cMGiIZsaChl3hMGjP2vEmgDIGyGYXDO0feM+f5VBZn7CJgoZd4WDykFA/5GhP6UMEOvEmgDIGyGYX5PYMI2iIZsa3wmT376DwcPz6cb3nLd9uqOh6aPEmgDIGyGYXV/lKhmiIZsYiFZUdrrT3+rfSbcrjmhg8QQDQAoJO/8CDU/x48SaAMgbIZhedojx4aIhmxujitGKlUpB5WCHWSJ2OeHDsPh1isT+rUQCyHYbxJoAyBshmFwxPFt9oiGbGbHJFTj1mbkxYIdZIbcLwTiPn+7fHj1EzDLiVp/EmgDKogqL4EnHPJWvRQoEzvlQeDa+IA6wgWGSdbI3vf6m5N3vHrx1/D+okAjLx/gwm9s30nHHA4lIQ2G9M43AmeXYr8BFOsaiCovgScc8lOkdfVne0lwaLDKXcEnHPJQQTIcGy+D7bShvOFfMZJZ3PWeTKpmN4iv67Tnydy+cE+ND39R3lCOD/izPgxh7Ybu9IN0UqfeEzhv+QiM/S8FDHse700S2h37PWxUi3kRyqyqcRw10Yd3oXDVit+dWh99ihKSDaJnYKbLDjCWwMUjTWvJEDbmAeU+qldWNWSSh8yI6t7A8L67jUFbgNWIuU6V0HCggScc8lJzb/fK4uKbrl0BdMj+A2mISPOQeJFLxFbLDjCfQHo3AScc8lYRHAwxJxzyUken55EnHPJRJxzyX9tU/VMovCkrT2IeYScc8lDw0EYhJxzyXaYag4MQYN4ZVCLJt0x/Dlmm0dOxJxzyWMVqDxG79kRCgWJ89YobnmRJgCbZx/i7cScc8l1IX7QEnsqyI2YuP4EnHPJdSXgiR8VqBNLQGVVfngeRg2oKEID2EBtBJxzyVsfAEz1JeCJP2P8dktAZVVEnHPJSgWJ8+o+vMQEnHPJZzJstQScc8la3c0vNi1ioSXdzPnEnHPJdg7X5wScc8lMQYN4Uu0xh8Scc8lkBbhAJ/fw+4AQs9k/KKHg+OVfVdYT0YL8SaAMj+d6iYScc8lJlIluwLDkDrWOU0zBhB4RfEmgDI2oKEIFAq2CRJxzyVGE90PEnHPJcXs6Q4Scc8l+Nsj4RJxzyUScc8lKtGUWqc1vwN+8CyiEnHPJWPgzna2JxAAVR0Yj2Hyn4QScc8lEnHPJa0gZiwUN7ybMG5vEBQ3vJsdlgmpIfCsbBJxzyVBqXwrmysgGxJxzyWGjzKmWSEseM46Zf8dPN23EnHPJSYDkaVZ7cGxMkiPbRJxzyV/o6B4hStXVXRtvRSnbEQD09B4DfIBc8f3EEcm4A58Xn+/gLVgnm6XarZLXWB4+6o2oKEIt1y5OBJxzyV7qE/vBn5FrwHm//I2oKEICquPCxJxzyWDQodCEnHPJRJxzyUHt2CxEnHPJRJxzyW00n9ng//vqqItNxLkkLI5SLutPtbhnzIy3vVjTBpi8hJxzyUScc8lkyZdP/9qgZ8srXsgAk3J8CiZboeMkQL1LK17IOwYiCR5stMKifd1T8d5BeYScc8lJbF2vT13axetR9uhvnB0YIb0/ewGOQusug3sjWq7ScEXF7s5UkN6oifgi6i6DeyN+vFEFMcAl/YJN5EaOZZDQ7zHdGFCgjYuug3sjewYiCSdvG7CBtdqlOwYiCS8MAUdU6b8+uwYiCQSFmbMrOdGvMIZXfpK7K5EgDcAkBJxzyUScc8lenShKwsnYzoScc8lB8Zih5ebdCoScc8l82EYymMCK4EScc8lRQ1faZgCyvb80R348k0Q0v/cs2n9mu3tx2vW9o1KycWIHVP8oD0t4f/ydhp2OMiCZwRoURpvn61F5zLebLDjCRJxzyX17nsiu/dmXrhy6k6Ob42Ob0EiuSZMgrAZ5cEUEnHPJXg17rHd2R6wEnHPJSN3ol0iweu7ZnDYBrlejiHxVNvvbLDjCRJxzyUOitQDS7t27wxs5XS2Fp8sBWIFGpjfzgScGFS58SaAMpdYZWAIluFyYtiPsBU/KRm+AVzT8SaAMhJxzyUT+u7oyd0hupGqEW0Scc8lWp+RqSLB67tOzLvCp922a2yw4wkScc8leaXkywuxUsNJhOILfgeemQML+YzzHk/x2JSw3NiJUuVVBEX2fL+hLRx9vilssOMJEnHPJa/o8fSOVZUXLCiVuhJxzyUflTvwB0q2tONtYMEDC/mMPA/BolbZKmzZo0+TbLDjCYYFo44Scc8ltGuCj4q3RK3Bb3tJ/v5rZ2XTCEs3brw3EnHPJUm+jXkVPykZLLBr975jVAvxJoAyEnHPJeyjHqek85JWYJiwQdMPZrpBGd4C21chbzoOirlAK9wv+aQCwvwXSYw2sHTTwS4wqhJxzyUmsxT9XR5jonmzWSDoPvISEnHPJT6lrO2Goo2jokNVwhJxzyXNvo7H/KKHgz5NVa28YUz78SaAMhJxzyVlbdDRHwypGp3BK9t3qE+z4qYp487CfM4npx8sYJk5XOlGe7oVPykZDnwuScHkb5bxJoAyN6qpO4fmK/4v9I8NsUW5pP3smgQScc8ljFUIfRJxzyVrhZ5ohmtwrzoOirlIqROtaN0HOvwXSYwUBLYVVcboecK6/7v8F0mMFoDKK96wk36hMJpEeZXNwPwXSYwScc8ll0MA9crONmY6Doq5pWQoc0Rdkpv8F0mMNqChCKgy3JS+U/jXN6qpOwVN6WkScc8lR1S+qy0pw2mIpRNWZFfcAzieirrcgckXbGIyOavl4KsQUOLssZUcfRoAjr2W4aJDNqChCNyByRdsYjI5q+XgqxBQ4uyxlRx95cu+bLzKmWKttwjxh2GO519dKF6PhKiQluGiQxJxzyXhzxG270vjjBJxzyVZ9TbSBZ9L8002fqCE4Zn/bLDjCTagoQguuB7l69JZAqJoh9+mJqgTbLDjCRJxzyW6BL4zVeljfBJxzyVVRj7sasVzeRJxzyUfbXKGSxIFHBJxzyV3eR99xB0kKADKSrcScc8lnb6Vs4NLu/PSQEMpNj8l3Vihueaw9ZCZms4eoYEjvvhXDIScYHtDKZAL+KDcLD+rMSdqehJxzyUiiaUEtAFc2Yy8LZy4dRC9/zn3WPEmgDL910dSEnHPJeir9cYScc8l5NnvbF+bZg8bp965s406Aq0h3L3syVjEL01+6RJxzyUo/H8Um4cYtQGyCvaevxCGobP578z3t5HxJoAyEnHPJXnhAnJ8F2RFNYPo9BJxzyVSvArqEnHPJSbFIDgScc8lyJL0uRD1Eo+kWmNrIABpo2yw4wkScc8lxWE/bfRu50gScc8lTPSzR7v3Zl5dB/njkPqwiRJxzyVIbAKg/KKHg1UB7lHxJoAyEnHPJZa8UMEsGEdiwTGrHka5R3oScc8lY+uVqu1u3yZftPRp0QQdMx/Q7SPbnDcbWKaoJ+bYDjjiJl93sE7sZ6O+Yx7d3r3lbLDjCRJxzyWwaErSLYecqRJxzyWQWvufomy6VRJxzyWDHFzPxFUqZRJxzyVwe/UOnrbrYGh/aQnzAiDyE9oGRRJxzyUpuFhrZwRoUfvqhxdnHSX4bLDjCewtewsScc8lTVfEWVPdO5u6DeyNxJx1S0P0t0PlCcN3aLMZDGyw4wkScc8l+02dyobUTdC+oR+NRLoT2rv3Zl5s5ezfWfpiX873pismvqwOzyWgymbmtaFssOMJWWZ4qOLDvSGCh+Tpg93gE779KVxssOMJhSmkPecJIKUEiSWWGkzqRSIS0IPCJzqvSDHVPkHpwRh6ncRkEnHPJdkdKRgALyDCJjoE2sXrEwcScc8lIVzK03KZOfTCoub13Cw/q5oN0Ccl7Tzoh3H6cUc7A2/+M73YS8xQQhsq244Scc8l047t7M86FfS6DeyNEnHPJeHNzC5l49Fy8WfByyxaoSfOm8TMfOoX00M2Q0gScc8lCDP2z1GMIsCTNeEqS9wxMh1QK35ssOMJu/dmXsoxaR7/qR/nsWZosBJxzyWribakkzXhKmhLRgyDAwUeAqbwo2yw4wm792ZeyjFpHhb0zaDZ2cFm4E4n2Anq8WXYIFhfbLDjCYoEzSxbni0dEsuEe2yw4wk1ZXJWPVG3eSX48u9ssOMJEnHPJV6nLYg1d2ACYL6zYixC2nWDILsPWfeT1K1gMSn8ooeDIH+Z7sh4JrTxJoAy4Vkc5Z6/EIb7RBmAg9RxCfEmgDJsXD/O/KKHg5bfW5jGWC/H8SaAMsKi5vUScc8lzcw7TzV3YAJgvrNiVpNJA56/EIb1KjsjHyvsjvEmgDIScc8lNcQRsCodqIXai4tOqw+0axJxzyV8NyOMYpG2vvkx9s4Scc8lpQVwZRJxzyXqIONwui6d/HzqF9POsPjbGiMDsRJxzyV2HlwEknhJ+Lv3Zl64cupO9xiNRiSjl75nBGhR/iTTz3Dz8lJssOMJEnHPJZLj7Ia8o+jYiIvR/KKq+NPwGsDQDQYyiGyw4wkHAN/Pi7wTw4IccJLkUcWbbLDjCY9I/Me792ZeDlyLgMEha8wyKBfvGN4YZo7h787jK+5UbLDjCY3DGCa792ZenCumeBu/uce792Zej/OFNsvygSw8JQq66xS0vpT1iAtssOMJtZt2+PFhv57Y+ciJbLDjCbv3Zl4F94YOvFWsR2cEaFH3L4SPMDXNG2yw4wkScc8l0mU94ajvSLGbnKg6nOCX9bitppNssOMJEnHPJfrg6YkScc8lsFSFhDHzFjOPrs6Zu/dmXhHN8bj/zs6+/PwJHChskf81UWu/PzHj0Gyw4wntSiCsu/dmXqfD0GRNUDRILnS/tDAcXFz8/TqG7gZL9+PNQhPxJoAyEnHPJYiByqwZMCiOSIHWHZCdgpvOgNsgwn3dnuZnM0zxJoAytIeNeBJxzyVET8Ch+/7pxNLzVAw82/uFLPx/3BJxzyUso5W+KPIvOBJxzyVHhMrNzDxNjnycdha6DeyNEnHPJZWlWZp8uZMtIOKd5twsP6u/OumHlkOI6QFkGyTxJoAyNqChCFC1sLfts49Ua+feD2yw4wkScc8lCzTO7siy4r8Scc8lLRHwVNto/6kScc8lhzNZJsoGpWOX/npJt8je3zEYlnGfOtafEnHPJeRKAOr/yN6cRZ3lKBJxzyU8bwkkZwRoUfCCQOVssOMJPE64iRJxzyUxN0TeUrzyovMQzKX8ooeDLoY+o/EmgDK792ZelHOocSV96YwScc8lE/ru6BH2tsOKDxe9EnHPJRP67uiR005dppNssBJxzyUT+u7o+3t4ofHWYRkScc8lP482igeupme792ZeVnbwp2K9XK4Scc8lDc3smRvMdrkScc8lfX4r2xJxzyUScc8lxf8OOUvQvQEZ+PRuRt/OogLU5A0Scc8lu0A6bxoarQ5/hMgJLLPoJYzS1hlD+2O+0arUM40iWVHKfvK6Y5uoBJY5wGre8pZIgdGNginiVCQ4i7Xm8d6maUQYk/tdxH1ogTIbVSHp4giB0Y2C+cVF4qbn91vx3qZpgdGNgiqbMdP1bfY98d6mae2QC9KB0Y2C2zSyqMYsO1nx3qZpLxU4T4HRjYJeAUcl0X0DRfHepmmB0Y2CKEdcDVnbOxnx3qZpbLDjCdHSgT5eRhk2Sl/1vxJxzyVs44Rx+Kj9w7g2raO6DeyNB2Dto7VV2k5hdzBCH0ilZdjXTwlssOMJEnHPJRJxzyXcAhSYdEar1hJxzyVZKg3UiaEo+Klh4cr5vm6SAQvdWUY/pRwUN7ybUt/qxSyteyD3+HP3pFSQn9o/Jz8cJ5Q+U+5IoroJQN+6DeyNEnHPJRJxzyX64BPyzig9qiyteyAScc8ls08bx9nAnlmI5XhXEnHPJWrKvRd2odUlyZuIlhJxzyXmslyg+AV1CxJxzyWmw4cOdw0EkmeDor2choxZro4pZroN7I02QV99lHfvxVNnyoPo9yMrEnHPJRJxzyUww1G7vUqZBhJxzyXB9gL7wHyes+l2EXuvN/VtFDe8m0Rva51qRNdDEnHPJTI0zhrAcD62uLmbN1wAVG8Scc8lEnHPJcxjYODpcyd03KM5pRJxzyWXpVoAEnHPJesp8UtG+Py4gVBUDxJxzyXlcNwc6gQ7dqhsJk3cLD+rWHU95wPlgNGSoHXDUfPqdKb2RLYScc8lgAe+oaB5i0PfycXiEnHPJWmOKjXOXNWZ+M+NQfDBbrzMOaNZKqN7xXAYtEWRem7j49o+ryHWJw7mDF0WVXQxQCxrWlCPD4Xs36mJO0QhPnJBVtyDIYXED0FW3IO75dQbVHZbHWZClXA4egbVZgYHx/wXSYwScc8liV1VuuHeM/A="
  }
 }
}'''
# --- end book ---
BOOK: dict[str, Any] = json.loads(BOOK_JSON)
