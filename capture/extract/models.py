"""Model shapes from Miles's model scripts (``scripts/models/*``), read statically.

At 31f1ca961 each model is a Python file whose ``model_args(...)`` returns Megatron flags as one
string (string literals, f-strings over module constants and parameters whose defaults may come
from ``os.environ.get(...) or default``, ``moe_layer_freq(...)`` and ``load_sibling_model_args``).
Older Miles had ``MODEL_ARGS=( ... )`` bash arrays in ``*.sh``; both forms are read. The
environment is taken as unset, so every env-var override falls back to the script's default.
"""
from __future__ import annotations

import ast
import re
import shlex
from typing import Any

from .pyeval import Unresolved, dotted, evaluate, module_constants
from .source import Source

MODEL_DIR = "scripts/models/"
FIELDS = ["layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab", "tied_embeddings",
          "experts", "moe_ffn_hidden", "topk", "shared_expert_ffn", "moe_layers"]
INT_FLAGS = {
    "layers": "--num-layers",
    "hidden": "--hidden-size",
    "ffn_hidden": "--ffn-hidden-size",
    "heads": "--num-attention-heads",
    "head_dim": "--kv-channels",
    "vocab": "--vocab-size",
    "experts": "--num-experts",
    "moe_ffn_hidden": "--moe-ffn-hidden-size",
    "topk": "--moe-router-topk",
    "shared_expert_ffn": "--moe-shared-expert-intermediate-size",
}
# Flags that put a model outside the dense/GQA/MoE transformer the derivation's formula counts.
ARCH_FLAGS = ["--multi-latent-attention", "--spec", "--custom-model-provider-path", "--moe-latent-size",
              "--experimental-attention-variant", "--attention-output-gate", "--mtp-num-layers",
              "--dsv4-compress-ratios", "--hybrid-override-pattern", "--post-self-attn-layernorm",
              "--softmax-type"]
# Flags whose presence (not value) changes the parameter count, kept for the derivation.
SWITCHES = ["--swiglu", "--disable-bias-linear", "--add-qkv-bias", "--qk-layernorm", "--group-query-attention",
            "--untie-embeddings-and-output-weights", "--moe-shared-expert-gate"]


class ModelScriptError(Exception):
    """The script's arguments could not be evaluated statically."""


# ---- Python model scripts ------------------------------------------------------------------------
def moe_layer_freq(nlayers: int, first_k_dense_replace: int) -> str:
    """The same pattern Miles's helper renders: the first K layers dense, the rest MoE."""
    dense = min(first_k_dense_replace, nlayers)
    return "[" + ",".join(["0"] * dense + ["1"] * (nlayers - dense)) + "]"


class _ScriptEval:
    """Evaluates one ``model_args`` body; env vars are unset, helpers are Miles's two."""

    def __init__(self, source: Source, path: str, depth: int = 0) -> None:
        text = source.text(path)
        if text is None:
            raise ModelScriptError(f"{path} is missing")
        self.source, self.path, self.depth = source, path, depth
        self.tree = ast.parse(text)
        self.consts = module_constants(self.tree)
        self.env_vars: list[str] = []

    def function(self) -> ast.FunctionDef:
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "model_args":
                return stmt
        raise ModelScriptError("no model_args() function")

    def run(self, kwargs: dict[str, Any]) -> str:
        fn = self.function()
        env: dict[str, Any] = dict(self.consts)
        params = fn.args.args + fn.args.kwonlyargs
        defaults = [None] * (len(fn.args.args) - len(fn.args.defaults)) + list(fn.args.defaults)
        defaults += list(fn.args.kw_defaults)
        for param, default in zip(params, defaults):
            env[param.arg] = kwargs[param.arg] if param.arg in kwargs else (
                None if default is None else self.value(default, env))
        for stmt in fn.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                env[stmt.targets[0].id] = self.value(stmt.value, env)
            elif isinstance(stmt, ast.Return):
                result = self.value(stmt.value, env)
                if not isinstance(result, str):
                    raise ModelScriptError("model_args() does not return a string")
                return result
            elif isinstance(stmt, ast.Expr):
                continue  # docstring
            else:
                raise ModelScriptError(f"unsupported statement at line {stmt.lineno}")
        raise ModelScriptError("model_args() has no return")

    def value(self, node: ast.AST, env: dict[str, Any]) -> Any:
        """Evaluate with the whitelist evaluator plus the few calls model scripts make."""
        if isinstance(node, ast.IfExp):
            return self.value(node.body if self.value(node.test, env) else node.orelse, env)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            left, right = self.value(node.left, env), self.value(node.comparators[0], env)
            return (left is right) if isinstance(node.ops[0], ast.Is) else (left is not right)
        if isinstance(node, ast.BoolOp):
            result = None
            for sub in node.values:
                result = self.value(sub, env)
                if isinstance(node.op, ast.Or) and result:
                    return result
                if isinstance(node.op, ast.And) and not result:
                    return result
            return result
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    parts.append(str(part.value))
                else:
                    parts.append(format(self.value(part.value, env)))
            return "".join(parts)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.BinOp):
            return evaluate(ast.BinOp(left=ast.Constant(self.value(node.left, env)), op=node.op,
                                      right=ast.Constant(self.value(node.right, env))), {})
        if isinstance(node, ast.Name) and node.id == "__file__":
            return self.path
        try:
            return evaluate(node, env)
        except Unresolved as exc:
            raise ModelScriptError(f"cannot evaluate {ast.unparse(node)}") from exc

    def call(self, node: ast.Call, env: dict[str, Any]) -> Any:
        name = dotted(node.func) or ""
        args = [self.value(a, env) for a in node.args]
        kwargs = {kw.arg: self.value(kw.value, env) for kw in node.keywords if kw.arg}
        if name in ("os.environ.get", "os.getenv"):
            self.env_vars.append(str(args[0]))
            return args[1] if len(args) > 1 else None  # the environment is taken as unset
        if name in ("int", "str", "float"):
            return {"int": int, "str": str, "float": float}[name](*args)
        if name == "moe_layer_freq":
            return moe_layer_freq(**kwargs)
        if name in ("load_sibling_model_args", "load_model_args"):
            sibling = args[1] if name == "load_sibling_model_args" else args[0]
            if self.depth > 5:
                raise ModelScriptError("sibling chain too deep")
            inner = _ScriptEval(self.source, f"{MODEL_DIR}{sibling}.py", self.depth + 1)
            result = inner.run(kwargs)
            self.env_vars += inner.env_vars
            return " ".join(result.split())
        raise ModelScriptError(f"unsupported call {name}()")


def python_model_args(source: Source, path: str) -> tuple[list[str], int, list[str]]:
    """(tokens, line of ``def model_args``, env vars consulted) for a Python model script."""
    script = _ScriptEval(source, path)
    text = script.run({})
    return text.split(), script.function().lineno, sorted(set(script.env_vars))


# ---- bash model scripts (older Miles) --------------------------------------------------------------
_VAR = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)")


def _expand(text: str, variables: dict[str, str]) -> str:
    def repl(match: re.Match) -> str:
        name = match.group(1) or match.group(3)
        if name in variables:
            return variables[name]
        if match.group(2) is not None:
            return match.group(2)
        raise ModelScriptError(f"unset variable ${name}")

    return _VAR.sub(repl, text)


def bash_model_args(text: str) -> tuple[list[str], int, list[str]]:
    """(tokens, line of ``MODEL_ARGS=(``, variables used) from a ``MODEL_ARGS=( ... )`` bash array."""
    variables: dict[str, str] = {}
    used: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        match = re.match(r"^(?:export\s+)?(\w+)=\(\s*(.*)$", line)
        if match and match.group(1) == "MODEL_ARGS":
            start = i + 1
            body = [match.group(2)]
            while ")" not in _strip_comment(body[-1]) and i + 1 < len(lines):
                i += 1
                body.append(lines[i])
            joined = " ".join(_strip_comment(b).rstrip("\\") for b in body)
            joined = joined[: joined.rindex(")")] if ")" in joined else joined
            used += [m.group(1) or m.group(3) for m in _VAR.finditer(joined)]
            return shlex.split(_expand(joined, variables)), start, sorted(set(used))
        assign = re.match(r"^(?:export\s+)?(\w+)=(\"[^\"]*\"|'[^']*'|\S*)\s*(#.*)?$", line)
        if assign:
            raw = assign.group(2).strip("\"'")
            try:
                variables[assign.group(1)] = _expand(raw, variables)
            except ModelScriptError:
                pass
        i += 1
    raise ModelScriptError("no MODEL_ARGS=( ... ) array")


def _strip_comment(line: str) -> str:
    return re.sub(r"(^|\s)#.*$", "", line)


# ---- from tokens to a shape ----------------------------------------------------------------------
def parse_tokens(tokens: list[str]) -> dict[str, list[str]]:
    """``--flag v1 v2 --switch`` -> {"--flag": ["v1", "v2"], "--switch": []}."""
    out: dict[str, list[str]] = {}
    current = None
    for token in tokens:
        if token.startswith("--"):
            current = token
            out[current] = []
        elif current is not None:
            out[current].append(token)
    return out


def _moe_layers(values: list[str] | None, layers: int | None, experts: int | None) -> tuple[int | None, str | None]:
    """How many layers are MoE, from ``--moe-layer-freq`` (an int k: every k-th, or a list)."""
    if experts is None:
        return None, None
    if values is None:
        return layers, None if layers is not None else "no --num-layers"
    text = " ".join(values)
    try:
        pattern = evaluate(ast.parse(text, mode="eval").body, {})
    except (SyntaxError, Unresolved):
        return None, f"cannot read --moe-layer-freq {text}"
    if isinstance(pattern, int):
        return (None, "no --num-layers") if layers is None else (len(range(0, layers, pattern)), None)
    if isinstance(pattern, list):
        return sum(1 for v in pattern if v), None
    return None, f"cannot read --moe-layer-freq {text}"


def shape(flags: dict[str, list[str]]) -> tuple[dict, dict[str, str]]:
    """The model's shape fields and, for each null one, why it is null."""
    out: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for key, flag in INT_FLAGS.items():
        values = flags.get(flag)
        out[key] = None
        if values:
            try:
                out[key] = int(values[0])
            except ValueError:
                reasons[key] = f"{flag} {values[0]} is not an integer"
    if "--group-query-attention" in flags:
        groups = flags.get("--num-query-groups")
        out["kv_heads"] = int(groups[0]) if groups else None
        if not groups:
            reasons["kv_heads"] = "--group-query-attention without --num-query-groups"
    else:
        out["kv_heads"] = out["heads"]
    out["tied_embeddings"] = "--untie-embeddings-and-output-weights" not in flags
    out["moe_layers"], why = _moe_layers(flags.get("--moe-layer-freq"), out["layers"], out["experts"])
    if why:
        reasons["moe_layers"] = why
    for key in ("layers", "hidden", "ffn_hidden", "heads", "vocab"):
        if out[key] is None and key not in reasons:
            reasons[key] = f"no {INT_FLAGS[key]} in the script"
    if out["head_dim"] is None:
        reasons["head_dim"] = "no --kv-channels: Megatron uses hidden / heads"
    return {k: out[k] for k in FIELDS}, reasons


def extract_model(source: Source, path: str) -> dict:
    """One models.json record; what cannot be read is null with a reason."""
    name = path[len(MODEL_DIR):].rsplit(".", 1)[0]
    record: dict[str, Any] = {"name": name, "file": path, "line": 1}
    try:
        if path.endswith(".py"):
            tokens, line, env_vars = python_model_args(source, path)
        else:
            tokens, line, env_vars = bash_model_args(source.text(path) or "")
    except (ModelScriptError, SyntaxError, TypeError, ValueError, KeyError) as exc:
        record.update({k: None for k in FIELDS})
        record.update({"normalization": None, "switches": [], "arch_flags": [], "env_defaults": [], "args": None,
                       "null_reasons": {"*": f"cannot evaluate the script: {exc}"}})
        return record
    flags = parse_tokens(tokens)
    fields, reasons = shape(flags)
    record["line"] = line
    record.update(fields)
    norm = flags.get("--normalization")
    record["normalization"] = norm[0] if norm else "LayerNorm"  # Megatron's default
    record["switches"] = [s for s in SWITCHES if s in flags]
    record["arch_flags"] = [f for f in ARCH_FLAGS if f in flags]
    record["env_defaults"] = env_vars
    record["args"] = " ".join(tokens)
    record["null_reasons"] = reasons
    return record


def is_model_script(path: str) -> bool:
    """A model script: ``scripts/models/<name>.py`` or ``.sh``, helpers excluded."""
    if not path.startswith(MODEL_DIR) or "/" in path[len(MODEL_DIR):]:
        return False
    stem = path[len(MODEL_DIR):]
    return stem.endswith((".py", ".sh")) and not stem.startswith(("_", "model_args_utils"))


def extract_models(source: Source) -> list[dict]:
    """Every model script's record, sorted by name."""
    return sorted((extract_model(source, p) for p in source.paths() if is_model_script(p)),
                  key=lambda r: (r["name"], r["file"]))
