"""Megatron-LM's option strings, read with ``ast`` from its own parser (Megatron is never imported).

On the Megatron backend Miles hands its parser to Megatron's ``parse_args``
(``miles/utils/arguments.py`` calls ``megatron.training.arguments.parse_args(extra_args_provider=...)``),
so every option Megatron's ``megatron/training/arguments.py`` registers is a valid Miles flag there.
Two registration forms are read:

* ``<group>.add_argument("--x", ...)`` with literal option strings (``BooleanOptionalAction`` adds ``--no-x``);
* ``f = ArgumentGroupFactory(Config, exclude=[...])`` followed by ``f.build_group(parser, ...)``: one option
  per dataclass field of ``Config`` and its dataclass bases, as ``megatron/training/argument_utils.py`` builds
  them: ``--field-name``; a ``bool`` field whose default is not ``False`` becomes ``--no-field-name`` and
  ``--disable-field-name``; ``metadata={"argparse_meta": {"arg_names": [...]}}`` overrides the names;
  excluded fields and ``field(init=False)`` are left out.
"""
from __future__ import annotations

import ast

from .pyeval import dotted, try_evaluate
from .pymodules import Module, Modules
from .source import Source

ARGUMENTS = "megatron/training/arguments.py"
FACTORY = "ArgumentGroupFactory"


def _literal_options(tree: ast.Module) -> dict[str, int]:
    """Option string -> line for every ``add_argument`` call whose option strings are literals."""
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        action = next((kw.value for kw in node.keywords if kw.arg == "action"), None)
        if action is not None and (dotted(action) or "").endswith("BooleanOptionalAction"):
            names += [f"--no-{n[2:]}" for n in names if n.startswith("--")]
        for name in names:
            if name.startswith("--"):
                out.setdefault(name, node.lineno)
    return out


def _field_call(value: ast.AST | None) -> ast.Call | None:
    if isinstance(value, ast.Call) and (dotted(value.func) or "").split(".")[-1] == "field":
        return value
    return None


def _is_bool(annotation: ast.AST) -> bool:
    """``bool``, ``Optional[bool]`` and ``bool | None``."""
    if isinstance(annotation, ast.Name):
        return annotation.id == "bool"
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]
        others = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
        return len(others) == 1 and _is_bool(others[0])
    if isinstance(annotation, ast.Subscript) and dotted(annotation.value) in ("Optional", "typing.Optional"):
        return _is_bool(annotation.slice)
    return False


def _field_options(stmt: ast.AnnAssign) -> list[str] | None:
    """The option strings ``ArgumentGroupFactory`` builds for one dataclass field (None: not an init field)."""
    name = stmt.target.id
    if (dotted(stmt.annotation) or "").split(".")[-1] in ("ClassVar", "InitVar") or (
            isinstance(stmt.annotation, ast.Subscript)
            and (dotted(stmt.annotation.value) or "").split(".")[-1] in ("ClassVar", "InitVar")):
        return None
    call = _field_call(stmt.value)
    default: ast.AST | None = stmt.value
    if call is not None:
        kwargs = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        if "init" in kwargs and try_evaluate(kwargs["init"], {}) == (True, False):
            return None
        default = kwargs.get("default")
        ok, meta = try_evaluate(kwargs.get("metadata"), {})
        if ok and isinstance(meta, dict) and isinstance(meta.get("argparse_meta"), dict):
            names = meta["argparse_meta"].get("arg_names")
            if names:
                return [str(n) for n in names]
    flag = name.replace("_", "-")
    if _is_bool(stmt.annotation):
        ok, value = try_evaluate(default, {})
        if not (ok and value is False):
            return [f"--no-{flag}", f"--disable-{flag}"]
    return [f"--{flag}"]


def _own_fields(mod: Module, cls: ast.ClassDef) -> dict[str, tuple[list[str], str, int]]:
    out = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            opts = _field_options(stmt)
            out[stmt.target.id] = (opts or [], mod.path, stmt.lineno)
    return out


def _dataclass_fields(modules: Modules, mod: Module, cls: ast.ClassDef, depth: int) -> dict:
    fields: dict = {}
    if depth < 6:
        for base in cls.bases:
            name = dotted(base)
            found = modules.resolve(mod, name) if name and "." not in name else None
            if found is not None and isinstance(found[1], ast.ClassDef):
                fields.update(_dataclass_fields(modules, found[0], found[1], depth + 1))
    fields.update(_own_fields(mod, cls))
    return fields


def _resolve_class(modules: Modules, mod: Module, fn: ast.AST, name: str) -> tuple[Module, ast.AST] | None:
    """A class named in a function: through a local ``from x import Name`` first, then module scope."""
    for node in ast.walk(fn):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                target = modules.by_name(node.module) if (alias.asname or alias.name) == name else None
                if target is not None:
                    return modules.resolve(target, alias.name)
    return modules.resolve(mod, name)


def _factory_options(modules: Modules, mod: Module) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """Option -> (file, line) for every ``ArgumentGroupFactory`` whose ``build_group`` is called; plus notes."""
    out: dict[str, tuple[str, int]] = {}
    notes: list[str] = []
    for fn in ast.walk(mod.tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        env = dict(mod.consts)
        built = {dotted(n.func.value) for n in ast.walk(fn) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "build_group"}
        for stmt in ast.walk(fn):
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                continue
            target, value = stmt.targets[0].id, stmt.value
            if not (isinstance(value, ast.Call) and dotted(value.func) == FACTORY):
                ok, val = try_evaluate(value, env)
                if ok:
                    env[target] = val
                continue
            if target not in built or not value.args or not isinstance(value.args[0], ast.Name):
                continue
            cls_name = value.args[0].id
            found = _resolve_class(modules, mod, fn, cls_name)
            if found is None or not isinstance(found[1], ast.ClassDef):
                notes.append(f"{FACTORY}({cls_name}) at {mod.path}:{stmt.lineno}: class not found")
                continue
            exclude_node = next((kw.value for kw in value.keywords if kw.arg == "exclude"), None)
            ok, exclude = try_evaluate(exclude_node, env) if exclude_node is not None else (True, [])
            if not ok:
                notes.append(f"{FACTORY}({cls_name}) at {mod.path}:{stmt.lineno}: exclude list not resolved")
                exclude = []
            for fname, (opts, path, line) in _dataclass_fields(modules, found[0], found[1], 0).items():
                if fname in set(exclude):
                    continue
                for opt in opts:
                    out.setdefault(opt, (path, line))
    return out, notes


def megatron_options(source: Source) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """Every option string Megatron's parser registers -> (file, line), and notes on what was not read."""
    modules = Modules(source)
    mod = modules.by_path(ARGUMENTS)
    if mod is None:
        return {}, [f"{ARGUMENTS} not found"]
    out = {opt: (ARGUMENTS, line) for opt, line in _literal_options(mod.tree).items()}
    factory, notes = _factory_options(modules, mod)
    for opt, site in factory.items():
        out.setdefault(opt, site)
    return out, notes


def parse_args_site(miles: Modules) -> tuple[str, int]:
    """Where Miles hands its parser to Megatron: the call with ``extra_args_provider=`` (file, line)."""
    path = "miles/utils/arguments.py"
    mod = miles.by_path(path)
    for node in ast.walk(mod.tree) if mod else []:
        if isinstance(node, ast.Call) and any(kw.arg == "extra_args_provider" for kw in node.keywords):
            return path, node.lineno
    return path, 0


def megatron_family(source: Source, miles_names: set[str], repo: str, site: tuple[str, int]) -> dict:
    """The ``--`` passthrough family of Megatron's options on the Megatron backend (Miles's own flags left out)."""
    options, notes = megatron_options(source)
    members = sorted(o for o in options if o not in miles_names)
    how = (f"Megatron-LM {repo} at {source.commit} ({source.commit_date}): literal add_argument option strings "
           f"in {ARGUMENTS} plus the fields of each {FACTORY} dataclass whose build_group is called "
           f"(names as megatron/training/argument_utils.py builds them); {len(options)} options, "
           f"{len(options) - len(members)} of them also Miles flags and left out")
    if notes:
        how += "; not read: " + "; ".join(notes)
    return {
        "prefix": "--",
        "kind": "megatron",
        "backend": "megatron",
        "package": "megatron",
        "registrar": "megatron.training.arguments.parse_args",
        "file": site[0],
        "line": site[1],
        "skipped": [],
        "dest_prefix": "",
        "inherit": False,
        "group": "megatron",
        "members": members,
        "members_source": how,
    }
