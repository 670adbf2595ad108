#!/usr/bin/env python3
"""Miles's tree as Miles 101 reads it: its files (from a Docker image), its flags and its metric keys.

Standalone: Python 3.9+ and its standard library (Miles is parsed with ``ast``, never imported).
Section 1.1 of Miles 101 serves this file beside ``preflight.py``, whose ``--compare-image`` mode
reads the reader's image with it; the book's lab (capture/extract) imports the same code to write
capture/miles/, so the reader's image and the book are read by one extractor.

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


def run_checked(cmd: list[str], *, data: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(cmd, input=data, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise SourceError(f"cannot run {cmd[0]!r}: {exc}") from exc
    if proc.returncode != 0:
        raise SourceError(f"{' '.join(cmd[:4])} ... failed: {proc.stderr.decode(errors='replace').strip()}")
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


def read_image(image: str, docker: str | None = None) -> Source:
    """Read /root/miles from the Miles image: digest, commit and files, in three ``docker`` calls."""
    docker = docker or os.environ.get("MILES101_DOCKER", "docker")
    digest = run_checked([docker, "image", "inspect", "--format", "{{index .RepoDigests 0}}", image]).decode().strip()
    if "@" in digest:
        digest = digest.split("@", 1)[1]
    meta = run_checked(
        [docker, "run", "--rm", "--entrypoint", "git", image, "-C", IMAGE_MILES_DIR, "log", "-1", "--format=%H %cs"]
    ).decode().split()
    if len(meta) != 2:
        raise SourceError(f"cannot read the commit of {IMAGE_MILES_DIR} in {image}")
    tar_bytes = run_checked(
        [docker, "run", "--rm", "--entrypoint", "sh", image, "-c",
         f"cd {IMAGE_MILES_DIR} && git ls-files -z | tar --null -T - -cf -"]
    )
    blobs = {}
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                handle = tar.extractfile(member)
                if handle is not None:
                    blobs[member.name.removeprefix("./")] = handle.read()
    return Source(commit=meta[0], commit_date=meta[1], read_from=f"image {digest}", blobs=blobs)


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
