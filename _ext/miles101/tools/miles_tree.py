#!/usr/bin/env python3
"""Miles's tree as Miles 101 reads it: its files (from a Docker image), its flags and its metric keys.

Standalone: Python 3.9+ and its standard library (Miles is parsed with ``ast``, never imported).
Sections 1.1 (step 2) and 6.4 of Miles 101 serve this file, to save beside ``preflight.py``,
whose ``--compare-image`` mode reads the reader's image with it; the book's lab (capture/extract)
imports the same code to write capture/miles/, so the reader's image and the book are read by one
extractor.

Sections: the source (a snapshot of the tree, read from an image) · a whitelist evaluator for
constant expressions · the tree's Python modules · flags · metric keys.
"""
from __future__ import annotations

import ast
import io
import itertools
import json
import operator
import os
import re
import subprocess
import tarfile
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
        pulled = _docker(docker, "pull", image)
        if pulled.returncode != 0:
            raise _docker_error("docker pull", image, pulled.stderr.decode(errors="replace"), "pull")
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
}
#: The exit status when the image could not be read (the line before it says what failed and the fix).
CANNOT_COMPARE = 2


def _show_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def flag_signature(rec: dict) -> list:
    """What a command depends on in one flag record: [backend, default shown, choices shown or None]."""
    kind = rec.get("default_kind")
    if kind == "computed":
        default = f"<computed: {rec.get('default_expr')}>"
    elif kind == "none":
        default = "(no default set)"
    else:
        default = _show_value(rec.get("default"))
    choices = rec.get("choices")
    shown = ", ".join(map(_show_value, choices)) if choices is not None else rec.get("choices_expr")
    return [rec.get("backend", "both"), default, shown]


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
            "flags": flag_table(flags["flags"]), "metrics": metric_table(extract_metrics(source))}


def logs_key(key: str, metrics: dict[str, str | None]) -> bool:
    """Whether a tree logs the key a page names (a literal, a pattern's shown form, or a match of a pattern)."""
    return key in metrics or any(rx and re.fullmatch(rx, key) for rx in metrics.values())


def _describe(book: list[list] | None, image: list[list] | None) -> tuple[str, str]:
    """(kind of change, what changed) for one option: missing, or its default or choices side by side."""
    if not image:
        return "missing", "your image has no such flag"
    parts = []
    for label, i in (("default", 1), ("choices", 2)):
        was = sorted({str(s[i]) for s in book or []})
        now = sorted({str(s[i]) for s in image})
        if was != now:
            parts.append(f"{label} {' / '.join(was) or '-'} -> {' / '.join(now) or '-'}")
    return "changed", "; ".join(parts) or "its backend changed: " + ", ".join(s[0] for s in image)


def compare(book: dict, image: dict) -> dict:
    """The image against the book: changed flags by page and run, unlogged metric keys, the verdict."""
    def flag_change(opt: str) -> dict | None:
        was, now = book["flags"].get(opt), image["flags"].get(opt)
        if was == now:
            return None
        kind, what = _describe(was, now)
        return {"flag": opt, "kind": kind, "what": what}

    by_run: dict[str, list[dict]] = {}
    for run_id, passed in book["runs"].items():
        changed = [c for c in map(flag_change, passed) if c]
        for c in changed:
            c["passes"] = passed[c["flag"]]
        if changed:
            by_run[run_id] = changed
    pages = []
    for page in book["pages"]:
        runs = [{"run": r, "flags": by_run[r]} for r in page["runs"] if r in by_run]
        if runs:
            pages.append({"page": page["title"], "file": page["file"], "runs": runs})
    shown = {r for p in book["pages"] for r in p["runs"]}
    lab = [{"run": r, "flags": f} for r, f in by_run.items() if r not in shown]
    metrics = [{"key": k, "pages": p} for k, p in book["metric_reads"].items() if not logs_key(k, image["metrics"])]
    cited = {f for passed in book["runs"].values() for f in passed}
    flags_elsewhere = sorted(o for o in set(book["flags"]) | set(image["flags"])
                             if o not in cited and book["flags"].get(o) != image["flags"].get(o))
    metrics_elsewhere = sorted((set(book["metrics"]) ^ set(image["metrics"])) - set(book["metric_reads"]))
    if pages or lab or metrics:
        verdict = "pages"
    elif flags_elsewhere or metrics_elsewhere:
        verdict = "elsewhere"
    else:
        verdict = "same"
    return {"image": {k: image[k] for k in ("commit", "date", "read_from")}, "book": book["read"],
            "pin": book["pin"], "pages": pages, "lab_runs": lab, "metrics": metrics,
            "elsewhere": {"flags": flags_elsewhere, "metrics": metrics_elsewhere},
            "passthrough": len(book["passthrough"]), "verdict": verdict, "exit": VERDICTS[verdict][0]}


def _flag_lines(flags: list[dict], indent: str) -> list[str]:
    out = []
    for c in flags:
        passes = f" (the command passes {c['flag']} {c['passes']})".replace(" )", ")") if c["passes"] else ""
        out.append(f"{indent}{c['flag']}: {c['what']}{passes}")
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def render(report: dict, image_name: str) -> str:
    """The comparison as the reader reads it: both commits, the changes by page and run, the verdict."""
    img, book = report["image"], report["book"]
    lines = [f"image  {image_name}: Miles {img['commit'][:9]} of {img['date']} ({img['read_from']})",
             f"book   Miles {book['commit'][:9]} of {book['date']} (its flags and metric keys were read there; "
             f"the pin is {report['pin']['commit']})"]
    if report["pages"] or report["lab_runs"]:
        lines.append("flags the book's commands pass that your image lacks or changed, by page and run:")
        for page in report["pages"]:
            lines.append(f"  {page['page']} ({page['file']})")
            for run in page["runs"]:
                lines.append(f"    run {run['run']}")
                lines += _flag_lines(run["flags"], "      ")
        if report["lab_runs"]:
            lines.append("  runs the lab records whose command no page shows")
            for run in report["lab_runs"]:
                lines.append(f"    run {run['run']}")
                lines += _flag_lines(run["flags"], "      ")
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
  "--actor-num-gpus-per-node": [["both", "8", null]],
  "--actor-num-nodes": [["both", "1", null]],
  "--adam-beta1": [["fsdp", "0.9", null]],
  "--adam-beta2": [["fsdp", "0.95", null]],
  "--adam-eps": [["fsdp", "1e-08", null]],
  "--advantage-estimator": [["both", "\"grpo\"", "\"grpo\", \"gspo\", \"reinforce_plus_plus\", \"reinforce_plus_plus_baseline\", \"ppo\""]],
  "--allgather-cp": [["both", "false", null]],
  "--allow-partial-train-step": [["both", "false", null]],
  "--apply-chat-template": [["both", "false", null]],
  "--apply-chat-template-kwargs": [["both", "{}", null]],
  "--async-data-buffer-capacity-factor": [["both", "2.0", null]],
  "--async-max-concurrent-samples": [["both", "null", null]],
  "--async-save": [["both", "(no default set)", null]],
  "--async-unused-samples-handler": [["both", "\"drop\"", "\"retry\", \"drop\""]],
  "--attn-implementation": [["fsdp", "\"flash_attention_2\"", null]],
  "--balance-by-flops": [["both", "false", null]],
  "--balance-data": [["both", "false", null]],
  "--buffer-filter-path": [["both", "null", null]],
  "--calculate-per-token-loss": [["both", "(no default set)", null]],
  "--chat-template-path": [["both", "null", null]],
  "--check-lora-weight-equal": [["both", "false", null]],
  "--check-rematerialize-param-from-master-weight": [["both", "false", null]],
  "--check-weight-update-allow-quant-error": [["both", "false", null]],
  "--check-weight-update-equal": [["both", "false", null]],
  "--check-weight-update-selector": [["both", "\"all\"", "\"all\", \"target\", \"draft\""]],
  "--check-weight-update-skip-list": [["both", "null", null]],
  "--ci-check-model-hash": [["both", "false", null]],
  "--ci-disable-kl-checker": [["both", "false", null]],
  "--ci-disable-logprobs-checker": [["both", "false", null]],
  "--ci-disable-weight-update-checker": [["both", "false", null]],
  "--ci-ft-test-actions": [["both", "null", null]],
  "--ci-inject-rollout-data-min-match-ratio": [["both", "0.9", null]],
  "--ci-inject-rollout-data-path": [["both", "null", null]],
  "--ci-inject-rollout-data-start-rollout-id": [["both", "null", null]],
  "--ci-load-grad-norm": [["both", "null", null]],
  "--ci-metric-checker-key": [["both", "null", null]],
  "--ci-metric-checker-threshold": [["both", "null", null]],
  "--ci-save-grad-norm": [["both", "null", null]],
  "--ci-save-model-hash": [["both", "false", null]],
  "--ci-test": [["both", "false", null]],
  "--clip-grad": [["both", "1.0", null]],
  "--colocate": [["both", "false", null]],
  "--config": [["fsdp", "null", null]],
  "--context-parallel-size": [["fsdp", "1", null]],
  "--control-server-port": [["both", "0", null]],
  "--critic-load": [["both", "null", null]],
  "--critic-lr": [["both", "null", null]],
  "--critic-lr-warmup-iters": [["both", "0", null]],
  "--critic-num-gpus-per-node": [["both", "null", null]],
  "--critic-num-nodes": [["both", "null", null]],
  "--critic-save": [["both", "null", null]],
  "--custom-agent-function-path": [["both", "null", null]],
  "--custom-async-data-buffer-path": [["both", "null", null]],
  "--custom-config-path": [["both", "null", null]],
  "--custom-convert-samples-to-train-data-path": [["both", "null", null]],
  "--custom-eval-rollout-log-function-path": [["both", "null", null]],
  "--custom-generate-function-path": [["both", "null", null]],
  "--custom-loss-function-path": [["both", "null", null]],
  "--custom-megatron-before-log-prob-hook-path": [["both", "null", null]],
  "--custom-megatron-before-train-step-hook-path": [["both", "null", null]],
  "--custom-megatron-init-path": [["both", "null", null]],
  "--custom-megatron-post-save-hook-path": [["both", "null", null]],
  "--custom-model-provider-path": [["both", "null", null]],
  "--custom-pg-loss-reducer-function-path": [["both", "null", null]],
  "--custom-reward-post-process-path": [["both", "null", null]],
  "--custom-rm-path": [["both", "null", null]],
  "--custom-rollout-log-function-path": [["both", "null", null]],
  "--custom-tis-function-path": [["both", "null", null]],
  "--custom-update-weight-post-write-path": [["both", "null", null]],
  "--dashboard-flush-interval": [["both", "5.0", null]],
  "--dashboard-forward-prometheus": [["both", "false", null]],
  "--dashboard-gpu-sample-interval": [["both", "1.0", null]],
  "--dashboard-sglang-metrics": [["both", "null", null]],
  "--dashboard-sglang-scrape-interval": [["both", "2.0", null]],
  "--dashboard-sglang-scrape-mode": [["both", "\"auto\"", "\"auto\", \"router\", \"direct\""]],
  "--data-pad-size-multiplier": [["both", "128", null]],
  "--data-source-path": [["both", "\"miles.rollout.data_source.RolloutDataSourceWithBuffer\"", null]],
  "--debug-deterministic-collective": [["both", "false", null]],
  "--debug-disable-optimizer": [["both", "false", null]],
  "--debug-exit-after-rollout": [["both", "null", null]],
  "--debug-rollout-only": [["both", "false", null]],
  "--debug-skip-weight-update": [["both", "false", null]],
  "--debug-train-only": [["both", "false", null]],
  "--delay-split-train-data-by-dp": [["both", "false", null]],
  "--deterministic-mode": [["fsdp", "false", null]],
  "--disable-compute-advantages-and-returns": [["both", "true", null]],
  "--disable-grpo-std-normalization": [["both", "true", null]],
  "--disable-rewards-normalization": [["both", "true", null]],
  "--disable-rollout-global-dataset": [["both", "true", null]],
  "--disable-rollout-trim-samples": [["both", "false", null]],
  "--disable-wandb-random-suffix": [["both", "true", null]],
  "--distributed-backend": [["both", "\"nccl\"", null]],
  "--distributed-timeout-minutes": [["both", "10", null]],
  "--dp-replicate-size": [["fsdp", "1", null]],
  "--dsa-attention-backend": [["both", "\"tilelang\"", "\"megatron\", \"tilelang\""]],
  "--dump-details": [["both", "null", null]],
  "--dumper-dir": [["both", "\"/tmp/dumper\"", null]],
  "--dumper-enable": [["both", "false", null]],
  "--dumper-fwd-bwd": [["both", "null", null]],
  "--dumper-fwd-only": [["both", "null", null]],
  "--dumper-inference": [["both", "null", null]],
  "--dumper-source-patcher-config-inference": [["both", "null", null]],
  "--dumper-source-patcher-config-train": [["both", "null", null]],
  "--dynamic-sampling-filter-path": [["both", "null", null]],
  "--enable-event-analyzer": [["both", "false", null]],
  "--enable-mtp-training": [["both", "false", null]],
  "--enable-witness": [["both", "false", null]],
  "--entropy-coef": [["both", "0.0", null]],
  "--env-report": [["both", "<computed: os.environ.get(\"MILES_SCRIPT_ENV_REPORT\", \"\")>", null]],
  "--eps-clip": [["both", "0.2", null]],
  "--eps-clip-c": [["both", "null", null]],
  "--eps-clip-high": [["both", "null", null]],
  "--eval-config": [["both", "null", null]],
  "--eval-function-path": [["both", "null", null]],
  "--eval-hf-dir": [["both", "null", null]],
  "--eval-input-key": [["both", "null", null]],
  "--eval-interval": [["both", "null", null]],
  "--eval-keep-snapshots": [["both", "2", null]],
  "--eval-label-key": [["both", "null", null]],
  "--eval-max-context-len": [["both", "null", null]],
  "--eval-max-in-flight": [["both", "2", null]],
  "--eval-max-prompt-len": [["both", "null", null]],
  "--eval-max-response-len": [["both", "null", null]],
  "--eval-min-new-tokens": [["both", "null", null]],
  "--eval-num-gpus": [["both", "0", null]],
  "--eval-num-gpus-per-engine": [["both", "1", null]],
  "--eval-overflow-policy": [["both", "\"backpressure\"", "\"backpressure\", \"skip\""]],
  "--eval-prompt-data": [["both", "null", null]],
  "--eval-reward-key": [["both", "null", null]],
  "--eval-temperature": [["both", "null", null]],
  "--eval-tool-key": [["both", "null", null]],
  "--eval-top-k": [["both", "null", null]],
  "--eval-top-p": [["both", "null", null]],
  "--exclude-modules": [["both", "null", null]],
  "--experts-shared-outer-loras": [["both", "false", null]],
  "--extra-high-precision-layers-hf": [["both", "[]", null]],
  "--extra-high-precision-layers-megatron": [["both", "[]", null]],
  "--fetch-trajectory-retry-times": [["both", "-1", null]],
  "--fp16": [["fsdp", "false", null]],
  "--freeze-indexer": [["both", "false", null]],
  "--fsdp-cpu-backend": [["fsdp", "\"gloo\"", null]],
  "--fsdp-cpu-offload": [["fsdp", "false", null]],
  "--fsdp-state-dict-cpu-offload": [["fsdp", "true", null]],
  "--ft-components": [["both", "null", "\"rollout\", \"train\""]],
  "--fully-async": [["both", "false", null]],
  "--gamma": [["both", "1.0", null]],
  "--generate-execute-tool-function-path": [["both", "null", null]],
  "--generate-max-turns": [["both", "16", null]],
  "--generate-tool-call-parser": [["both", "null", null]],
  "--generate-tool-specs-path": [["both", "null", null]],
  "--get-mismatch-metrics": [["both", "false", null]],
  "--global-batch-size": [["both", "null", null]],
  "--gradient-checkpointing": [["fsdp", "false", null]],
  "--group-rm": [["both", "false", null]],
  "--hf-checkpoint": [["both", "null", null]],
  "--http-proxy": [["both", "null", null]],
  "--indep-dp": [["both", "false", null]],
  "--input-key": [["both", "\"input\"", null]],
  "--keep-fp32-master": [["fsdp", "true", null]],
  "--keep-old-actor": [["both", "false", null]],
  "--kl-coef": [["both", "0.0", null]],
  "--kl-loss-coef": [["both", "0.0", null]],
  "--kl-loss-type": [["both", "\"k1\"", "\"k1\", \"k2\", \"k3\", \"low_var_kl\""]],
  "--label-key": [["both", "null", null]],
  "--lambd": [["both", "1.0", null]],
  "--linear-attention-backend": [["both", "\"fla\"", "\"fla\", \"flashqla\""]],
  "--load": [["both", "null", null]],
  "--load-debug-rollout-data": [["both", "null", null]],
  "--load-debug-rollout-data-subsample": [["both", "null", null]],
  "--log-correct-samples": [["both", "false", null]],
  "--log-multi-turn": [["both", "false", null]],
  "--log-passrate": [["both", "false", null]],
  "--log-probs-chunk-size": [["both", "-1", null]],
  "--log-probs-max-tokens-per-gpu": [["both", "null", null]],
  "--log-reward-category": [["both", "null", null]],
  "--lora-adapter-path": [["both", "null", null]],
  "--lora-alpha": [["both", "16", null]],
  "--lora-base-cpu-backup": [["both", "false", null]],
  "--lora-dropout": [["both", "0.0", null]],
  "--lora-rank": [["both", "0", null]],
  "--lora-sync-from-tensor": [["both", "false", null]],
  "--lora-train-only": [["both", "false", null]],
  "--lora-type": [["both", "\"lora\"", "\"lora\", \"canonical_lora\""]],
  "--loss-mask-type": [["both", "\"qwen\"", "\"qwen\", \"qwen3\", \"distill_qwen\""]],
  "--loss-type": [["both", "\"policy_loss\"", "\"policy_loss\", \"sft_loss\", \"custom_loss\""]],
  "--low-memory-resume": [["both", "false", null]],
  "--lr": [["both", "1e-06", null], ["fsdp", "2e-05", null]],
  "--lr-decay-iters": [["fsdp", "null", null]],
  "--lr-decay-style": [["fsdp", "\"constant\"", null]],
  "--lr-warmup-fraction": [["fsdp", "null", null]],
  "--lr-warmup-init": [["fsdp", "0.0", null]],
  "--lr-warmup-iters": [["fsdp", "0", null]],
  "--lr-wsd-decay-iters": [["fsdp", "null", null]],
  "--lr-wsd-decay-style": [["fsdp", "null", null]],
  "--mask-offpolicy-in-partial-rollout": [["both", "false", null]],
  "--max-seq-len": [["both", "null", null]],
  "--max-tokens-per-gpu": [["both", "null", null]],
  "--max-weight-staleness": [["both", "null", null]],
  "--megatron-to-hf-mode": [["both", "\"raw\"", "\"raw\", \"bridge\""]],
  "--memory-recorder": [["both", "\"torch\"", "\"torch\", \"memray\""]],
  "--memory-snapshot-dir": [["both", "\".\"", null]],
  "--memory-snapshot-num-steps": [["both", "null", null]],
  "--memory-snapshot-path": [["fsdp", "\"snapshot.pickle\"", null]],
  "--metadata-key": [["both", "\"metadata\"", null]],
  "--mfu-peak-tflops": [["both", "null", null]],
  "--micro-batch-size": [["both", "1", null]],
  "--miles-dsa-topk-backend": [["both", "\"torch\"", "\"torch\", \"flashinfer\""]],
  "--miles-router-health-check-failure-threshold": [["both", "3", null]],
  "--miles-router-max-connections": [["both", "null", null]],
  "--miles-router-timeout": [["both", "null", null]],
  "--min-batch-collection-ratio": [["both", "1", null]],
  "--min-lr": [["fsdp", "0.0", null]],
  "--mini-ft-controller-enable": [["both", "false", null]],
  "--mini-ft-controller-poll-interval": [["both", "10.0", null]],
  "--mini-ft-controller-resume-delay": [["both", "10.0", null]],
  "--mlflow-experiment-name": [["both", "\"miles\"", null]],
  "--mlflow-run-id": [["both", "null", null]],
  "--mlflow-run-name": [["both", "null", null]],
  "--mlflow-tracking-uri": [["both", "null", null]],
  "--model-name": [["both", "null", null]],
  "--mooncake-replica-num": [["both", "1", null]],
  "--mooncake-store-init-kwargs": [["both", "null", null]],
  "--mtp-loss-scaling-factor": [["both", "0.2", null]],
  "--mtp-num-layers": [["both", "null", null]],
  "--multi-lora-adapter": [["both", "[]", null]],
  "--multi-lora-api-port": [["both", "8068", null]],
  "--multi-lora-backend-path": [["both", "null", null]],
  "--multi-lora-disable-service-mode": [["both", "true", null]],
  "--multi-lora-http-server-path": [["both", "null", null]],
  "--multi-lora-idle-poll-s": [["both", "5.0", null]],
  "--multi-lora-max-adapter-global-batch-size": [["both", "null", null]],
  "--multi-lora-max-coalesce-wait-s": [["both", "0.5", null]],
  "--multi-lora-max-empty-wait-s": [["both", "30.0", null]],
  "--multi-lora-n-adapters": [["both", "0", null]],
  "--multimodal-keys": [["both", "null", null]],
  "--n-samples-per-eval-prompt": [["both", "1", null]],
  "--n-samples-per-prompt": [["both", "1", null]],
  "--no-deterministic-mode": [["fsdp", "false", null]],
  "--no-fp16": [["fsdp", "false", null]],
  "--no-fsdp-cpu-offload": [["fsdp", "false", null]],
  "--no-fsdp-state-dict-cpu-offload": [["fsdp", "true", null]],
  "--no-gradient-checkpointing": [["fsdp", "false", null]],
  "--no-keep-fp32-master": [["fsdp", "true", null]],
  "--no-offload-rollout": [["both", "null", null]],
  "--no-offload-train": [["both", "null", null]],
  "--no-override-lr-scheduler": [["fsdp", "false", null]],
  "--no-record-memory-history": [["fsdp", "false", null]],
  "--no-save-optim": [["both", "false", null]],
  "--no-sglang-lora-use-virtual-experts": [["both", "true", null]],
  "--no-use-checkpoint-lr-scheduler": [["fsdp", "true", null]],
  "--no-use-pytorch-profiler": [["fsdp", "false", null]],
  "--normalize-advantages": [["both", "false", null]],
  "--num-critic-only-steps": [["both", "0", null]],
  "--num-epoch": [["both", "null", null]],
  "--num-gpus-per-node": [["both", "8", null]],
  "--num-rollout": [["both", "null", null]],
  "--num-steps-per-rollout": [["both", "null", null]],
  "--object-store-backend": [["both", "\"ray\"", "tuple(backend.value for backend in ObjectStoreBackend)"]],
  "--observe-training-entropy": [["both", "false", null]],
  "--offload": [["both", "false", null]],
  "--offload-rollout": [["both", "null", null]],
  "--offload-rollout-level": [["both", "[\"kv_cache\", \"weight\"]", null]],
  "--offload-train": [["both", "null", null]],
  "--offload-train-disk-chunk-mb": [["both", "256", null]],
  "--offload-train-disk-dir": [["both", "null", null]],
  "--offload-train-target": [["both", "\"cpu\"", "\"cpu\", \"disk\""]],
  "--opd-kl-coef": [["both", "1.0", null]],
  "--opd-log-prob-top-k": [["both", "0", null]],
  "--opd-reward-weight-mode": [["both", "\"student_p\"", "\"student_p\", \"teacher_p\", \"none\""]],
  "--opd-teacher-ckpt-step": [["both", "null", null]],
  "--opd-teacher-key": [["both", "\"opd_teacher\"", null]],
  "--opd-teacher-load": [["both", "null", null]],
  "--opd-teacher-urls": [["both", "null", null]],
  "--opd-top-k-strategy": [["both", "\"only-student\"", "\"only-student\", \"only-teacher\", \"intersection\", \"union\", \"xor\""]],
  "--opd-topk-per-position": [["both", "false", null]],
  "--opd-type": [["both", "null", "\"sglang\", \"megatron\""]],
  "--opsm-delta": [["both", "0.0001", null]],
  "--optimizer": [["fsdp", "\"adam\"", null]],
  "--over-sampling-batch-size": [["both", "null", null]],
  "--override-lr-scheduler": [["fsdp", "false", null]],
  "--p2p-transfer-num-workers": [["both", "4", null]],
  "--p2p-transfer-timeout": [["both", "30.0", null]],
  "--padded-vocab-size": [["both", "null", null]],
  "--partial-rollout": [["both", "false", null]],
  "--pause-generation-mode": [["both", "\"retract\"", "\"abort\", \"retract\", \"in_place\""]],
  "--pin-rollout-manager-to-head": [["both", "false", null]],
  "--prefill-num-servers": [["both", "null", null]],
  "--profile-step-end": [["fsdp", "12", null]],
  "--profile-step-start": [["fsdp", "10", null]],
  "--profile-target": [["both", "[\"train_overall\"]", "\"train_overall\", \"train_actor\", \"train_log_probs\""]],
  "--prometheus-port": [["both", "<computed: int(os.environ.get(\"PROMETHEUS_PORT\", \"9090\"))>", null]],
  "--prometheus-run-name": [["both", "null", null]],
  "--prompt-data": [["both", "null", null]],
  "--qkv-format": [["both", "\"thd\"", "\"thd\", \"bshd\""]],
  "--recompute-logprobs-via-prefill": [["both", "false", null]],
  "--recompute-loss-function": [["both", "false", null]],
  "--record-memory-history": [["fsdp", "false", null]],
  "--ref-ckpt-step": [["both", "null", null]],
  "--ref-load": [["both", "null", null]],
  "--ref-update-interval": [["both", "null", null]],
  "--rematerialize-param-from-master-weight": [["both", "false", null]],
  "--reset-optimizer-states": [["both", "false", null]],
  "--reward-key": [["both", "null", null]],
  "--rm-type": [["both", "null", null]],
  "--rm-url": [["both", "null", null]],
  "--rollout-all-samples-process-path": [["both", "null", null]],
  "--rollout-batch-size": [["both", "null", null]],
  "--rollout-buffer-url": [["both", "null", null]],
  "--rollout-data-postprocess-path": [["both", "null", null]],
  "--rollout-external": [["both", "false", null]],
  "--rollout-external-engine-addrs": [["both", "null", null]],
  "--rollout-function-path": [["both", "null", null]],
  "--rollout-health-check-first-wait": [["both", "0", null]],
  "--rollout-health-check-interval": [["both", "30.0", null]],
  "--rollout-health-check-timeout": [["both", "30.0", null]],
  "--rollout-max-context-len": [["both", "null", null]],
  "--rollout-max-prompt-len": [["both", "null", null]],
  "--rollout-max-response-len": [["both", "null", null]],
  "--rollout-num-gpus": [["both", "null", null]],
  "--rollout-num-gpus-per-engine": [["both", "1", null]],
  "--rollout-sample-filter-path": [["both", "null", null]],
  "--rollout-seed": [["both", "42", null]],
  "--rollout-shuffle": [["both", "false", null]],
  "--rollout-skip-special-tokens": [["both", "false", null]],
  "--rollout-stop": [["both", "null", null]],
  "--rollout-stop-token-ids": [["both", "null", null]],
  "--rollout-submission-granularity": [["both", "null", "\"group\", \"sample\""]],
  "--rollout-task-type": [["both", "\"math\"", null]],
  "--rollout-temperature": [["both", "1.0", null]],
  "--rollout-top-k": [["both", "-1", null]],
  "--rollout-top-p": [["both", "1.0", null]],
  "--save": [["both", "null", null]],
  "--save-debug-event-data": [["both", "null", null]],
  "--save-debug-rollout-data": [["both", "null", null]],
  "--save-debug-train-data": [["both", "null", null]],
  "--save-debug-trajectory-data": [["both", "null", null]],
  "--save-hf": [["both", "null", null]],
  "--save-interval": [["both", "null", null]],
  "--save-local-weight-checksum": [["both", "false", null]],
  "--save-trigger-sentinel": [["both", "null", null]],
  "--seed": [["both", "1234", null]],
  "--session-message-matcher": [["both", "\"strict\"", null]],
  "--session-sample-picker-path": [["both", "\"miles.rollout.session.v2.picker_hub.drop_retries\"", null]],
  "--session-sample-postprocessor-path": [["both", "\"miles.rollout.session.v2.postprocessor_hub.default_postprocess\"", null]],
  "--session-server-ip": [["both", "null", null]],
  "--session-server-port": [["both", "null", null]],
  "--session-verify-cycles": [["both", "3", null]],
  "--sglang-config": [["both", "null", null]],
  "--sglang-lora-use-virtual-experts": [["both", "true", null]],
  "--sglang-router-ip": [["both", "null", null]],
  "--sglang-router-policy": [["both", "null", null]],
  "--sglang-router-port": [["both", "null", null]],
  "--sglang-router-request-timeout-secs": [["both", "14400", null]],
  "--sglang-server-concurrency": [["both", "512", null]],
  "--skip-actor-forward-only": [["both", "false", null]],
  "--skip-eval-before-train": [["both", "false", null]],
  "--start-rollout-id": [["both", "null", null]],
  "--stream-optimizer-state-moment-dtype": [["both", "\"fp32\"", "\"fp32\", \"bf16\", \"fp16\", \"fp8e4m3\", \"fp8e5m2\""]],
  "--stream-optimizer-state-to-disk": [["both", "false", null]],
  "--target-modules": [["both", "null", null]],
  "--tb-experiment-name": [["both", "null", null]],
  "--tb-project-name": [["both", "null", null]],
  "--tensorboard-dir": [["fsdp", "null", null]],
  "--tis-clip": [["both", "2.0", null]],
  "--tis-clip-low": [["both", "0", null]],
  "--tito-model": [["both", "\"default\"", "[t.value for t in TITOTokenizerType]"]],
  "--tool-call-failure-mode": [["both", "<computed: DEFAULT_TOOL_CALL_FAILURE_MODE.value>", "[m.value for m in ToolCallFailureMode]"]],
  "--tool-key": [["both", "\"tools\"", null]],
  "--train-backend": [["both", "\"megatron\"", "\"megatron\", \"fsdp\""]],
  "--train-env-vars": [["both", "{}", null]],
  "--train-memory-margin-bytes": [["both", "1073741824", null]],
  "--trainer-heartbeat-checker-failure-threshold": [["both", "3", null]],
  "--trainer-heartbeat-checker-first-wait": [["both", "300.0", null]],
  "--trainer-heartbeat-checker-interval": [["both", "10.0", null]],
  "--trainer-heartbeat-checker-timeout": [["both", "10.0", null]],
  "--true-on-policy-mode": [["both", "false", null]],
  "--update-weight-buffer-size": [["both", "536870912", null]],
  "--update-weight-delta-checksum": [["both", "\"xxh3-128\"", "\"xxh3-128\", \"blake3\", \"adler32\""]],
  "--update-weight-delta-encoding": [["both", "\"xor\"", "\"xor\", \"overwrite\""]],
  "--update-weight-disk-dir": [["both", "null", null]],
  "--update-weight-local-checkpoint-dir": [["both", "null", null]],
  "--update-weight-transfer-mode": [["both", "\"broadcast\"", "\"broadcast\", \"p2p\", \"disk-delta\""]],
  "--update-weights-interval": [["both", "1", null]],
  "--use-checkpoint-lr-scheduler": [["fsdp", "true", null]],
  "--use-distributed-post": [["both", "false", null]],
  "--use-dynamic-batch-size": [["both", "false", null]],
  "--use-dynamic-global-batch-size": [["both", "false", null]],
  "--use-fault-tolerance": [["both", "false", null]],
  "--use-indexer-replay": [["both", "false", null]],
  "--use-kl-loss": [["both", "false", null]],
  "--use-miles-dashboard": [["both", "false", null]],
  "--use-miles-router": [["both", "false", null]],
  "--use-mlflow": [["both", "false", null]],
  "--use-opd": [["both", "false", null]],
  "--use-opsm": [["both", "false", null]],
  "--use-prometheus": [["both", "false", null]],
  "--use-pytorch-profiler": [["fsdp", "false", null]],
  "--use-rollout-entropy": [["both", "false", null]],
  "--use-rollout-indexer-replay": [["both", "false", null]],
  "--use-rollout-logprobs": [["both", "false", null]],
  "--use-rollout-routing-replay": [["both", "false", null]],
  "--use-routing-replay": [["both", "false", null]],
  "--use-session-server": [["both", "false", null]],
  "--use-tensorboard": [["both", "false", null]],
  "--use-tis": [["both", "false", null]],
  "--use-unbiased-kl": [["both", "false", null]],
  "--use-wandb": [["both", "false", null]],
  "--value-clip": [["both", "0.2", null]],
  "--wandb-always-use-train-step": [["both", "false", null]],
  "--wandb-dir": [["both", "null", null]],
  "--wandb-group": [["both", "null", null]],
  "--wandb-host": [["both", "null", null]],
  "--wandb-key": [["both", "null", null]],
  "--wandb-mode": [["both", "null", "\"online\", \"offline\", \"disabled\""]],
  "--wandb-project": [["both", "null", null], ["fsdp", "\"miles-fsdp\"", null]],
  "--wandb-run-id": [["both", "null", null]],
  "--wandb-run-name": [["fsdp", "null", null]],
  "--wandb-team": [["both", "null", null]],
  "--warmup-ratio": [["fsdp", "0.03", null]],
  "--weight-decay": [["fsdp", "0.0", null]],
  "--witness-buffer-size": [["both", "1048576", null]]
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
 }
}'''
# --- end book ---
BOOK: dict[str, Any] = json.loads(BOOK_JSON)
