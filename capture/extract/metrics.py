"""Metric keys Miles logs, found statically in ``miles/**/*.py``.

* A string literal ``"<prefix>/<name>"`` (prefixes below) is a literal key.
* An f-string starting with a prefix is a pattern (each formatted field matches ``.+``), unless
  its fields are local string constants, in which case it is a literal.
* ``dict_add_prefix(fn(...), "<prefix>/")`` expands to the prefix plus every key ``fn`` (a function
  of the same module) puts in a dict; a prefix over an unknown dict becomes a pattern.
* ``f"perf/{key}_time"`` over the Timer's log dict expands to every timer name Miles uses
  (``timer("x")``, ``inverse_timer("x")``, bare ``@timer`` decorators).
"""
from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass

from .pyeval import dotted
from .pymodules import Modules
from .source import Source

PREFIXES = ("rollout", "train", "perf", "eval", "multi_turn", "passrate")
_KEY = re.compile(r"^(%s)/[A-Za-z0-9_@.\-/:]*[A-Za-z0-9_@)\]-]$" % "|".join(PREFIXES))
_PREFIX_ONLY = re.compile(r"^(%s)/([A-Za-z0-9_@.\-/]*/)?$" % "|".join(PREFIXES))
_NOT_A_KEY = re.compile(r"\.(pt|pth|json|jsonl|yaml|yml|txt|pkl|safetensors|bin|log)$|\*")
TIMER_RULE = ("miles/utils/train_metric_utils.py", "perf/", "_time")


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


class MetricScanner:
    """Collects literal keys and patterns over a set of parsed modules."""

    def __init__(self, trees: dict[str, ast.Module], modules: Modules | None = None) -> None:
        self.trees = trees
        self.modules = modules
        self.found: list[Found] = []

    def add(self, key: str, regex: str | None, path: str, line: int) -> None:
        if _NOT_A_KEY.search(key):
            return
        if regex is None and not _KEY.match(key):
            return
        self.found.append(Found(key, "pattern" if regex else "literal", regex, path, line))

    def scan(self) -> list[dict]:
        for path, tree in self.trees.items():
            self._scan_module(path, tree)
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
                    if shown.startswith(tuple(p + "/" for p in PREFIXES)) and not _PREFIX_ONLY.match(shown):
                        if " " not in shown and not (path == TIMER_RULE[0] and shown == "perf/<key>_time"):
                            self.add(shown, regex, path, node.lineno)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and scope is tree:
                    self.add(node.value, None, path, node.lineno)

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
