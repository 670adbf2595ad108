"""Miles's command-line flags, read with ``ast`` by following its argument registrars.

Starting from the registrar roots, the walker follows every call that is handed the parser (into
nested functions, module functions, imported helpers and static methods, binding their parameters
from the call site), records ``add_argument``, ``reset_arg`` and ``set_defaults`` calls, expands
``for f in dataclasses.fields(C)`` loops into one flag per field, tags flags registered through
``fn.add_arguments = hook`` as conditional, and turns foreign registrars (SGLang's ServerArgs,
sglang_router's RouterArgs) into passthrough families. Values that need runtime state are kept as
their source text, never guessed.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

from .pyeval import SUPPRESS, dotted, try_evaluate
from .pymodules import Module, Modules, decorator_names, method
from .source import Source

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
