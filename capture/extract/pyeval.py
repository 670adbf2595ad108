"""A whitelist evaluator for the constant expressions argparse calls use (never ``eval``)."""
from __future__ import annotations

import ast
import operator
from typing import Any

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
