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
