"""Parsed Python modules of the Miles tree, and name resolution across their imports."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from .pyeval import module_constants
from .source import Source


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
