"""SGLang's ``ServerArgs`` options and sglang_router's ``RouterArgs`` options, read with ``ast``.

Miles registers SGLang's server options under its own prefixes (``miles/backends/sglang_utils/arguments.py``):
it swaps ``parser.add_argument`` for a wrapper and calls ``ServerArgs.add_cli_args(parser)`` twice, once as
``--sglang-*`` and once as ``--eval-sglang-*``. To know which ``--sglang-<opt>`` Miles really accepts, this
module reads the option strings ``ServerArgs.add_cli_args`` registers, from SGLang's own source (never
imported), in the two forms it uses:

* ``add_cli_args_from_dataclass(parser, ServerArgs)``: one option per dataclass field annotated
  ``A[T, "help"]`` or ``A[T, Arg(...)]`` (``A`` is ``typing.Annotated``), named as
  ``sglang/srt/arg_groups/arg_utils.py`` names them: ``Arg.cli_name`` or ``--field-name``, then ``Arg.aliases``;
  ``no_cli=True`` fields and fields without ``Arg``/help string are left out; ``bool`` becomes ``store_true``;
  the dest is the field name;
* manual ``add_argument(...)`` calls in ``add_cli_args`` (deprecated aliases, dynamic choices).

Then Miles's wrapper is applied in code, as it runs: an option whose canonical name (its ``dest``, else its
first long option string with ``-`` -> ``_``) is in the skip list is dropped; every option string ``-x``/``--x``
becomes ``--<prefix>-x``; with ``inherit=True`` (the eval family) ``store_true``/``store_false`` become
``BooleanOptionalAction``. ``BooleanOptionalAction`` (there, or native in SGLang) also registers
``--no-<prefix>-x``; those names are a companion family with prefix ``--no-<prefix>-`` (``negates`` names
the family it belongs to), so ``--no-eval-sglang-x`` is checkable like any family member.

sglang_router's ``RouterArgs.add_cli_args(parser, use_router_prefix=..., exclude_host_port=...)`` builds its
option strings as ``f"--{prefix}name"``; it is walked with those two parameters bound from Miles's call.
"""
from __future__ import annotations

import ast
import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .pyeval import dotted, module_constants, try_evaluate
from .source import Source, SourceError, open_source

SERVER_ARGS = "sglang/srt/server_args.py"
ROUTER_ARGS = "sglang_router/router_args.py"
BOOL_FLIPS = ("store_true", "store_false")


@dataclass
class Option:
    """One ``add_argument`` as SGLang (or the router) makes it: option strings, dest, action, where."""

    strings: list[str]
    dest: str | None
    action: str | None
    line: int


# ---- reading a package's source: a git tree, a wheel, or an unpacked / installed package ----------------------
def _wheel(path: Path, wanted: tuple[str, ...]) -> Source:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    blobs: dict[str, bytes] = {}
    version = ""
    with zipfile.ZipFile(io.BytesIO(data)) as whl:
        for name in whl.namelist():
            if name.endswith(wanted):
                blobs[name] = whl.read(name)
            elif name.endswith(".dist-info/METADATA"):
                meta = whl.read(name).decode("utf-8", errors="replace")
                version = next((ln.split(":", 1)[1].strip() for ln in meta.splitlines()
                                if ln.startswith("Version:")), "")
    return Source(commit=f"sha256:{digest}", commit_date="",
                  read_from=f"wheel {path.name} (version {version or '?'}, sha256 {digest})", blobs=blobs)


def _directory(path: Path, wanted: tuple[str, ...]) -> Source:
    blobs = {}
    for file in sorted(path.rglob("*.py")):
        rel = file.relative_to(path).as_posix()
        if rel.endswith(wanted):
            blobs[rel] = file.read_bytes()
    version = ""
    for meta in sorted(path.glob("*.dist-info/METADATA")):
        for line in meta.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Version:") and not version:
                version = line.split(":", 1)[1].strip()
    return Source(commit="", commit_date="", read_from=f"directory {path.name} (version {version or '?'})",
                  blobs=blobs)


def open_package(spec: str, wanted: tuple[str, ...]) -> Source:
    """A git checkout / git dir (its HEAD), a ``.whl`` file, or a directory holding the package's files."""
    path = Path(spec).expanduser()
    if path.is_file() and path.suffix == ".whl":
        return _wheel(path, wanted)
    try:
        source = open_source(str(path))
        source.read_from = f"git {source.read_from}"
        return source
    except SourceError:
        pass
    if path.is_dir():
        return _directory(path, wanted)
    raise SourceError(f"{spec}: not a git checkout, git dir, wheel or directory")


def describe(source: Source) -> str:
    """Where a package source was read: a commit and date, or a wheel's name, version and hash."""
    if source.read_from.startswith("git"):
        return f"commit {source.commit} ({source.commit_date})"
    return source.read_from


def find_file(source: Source, suffix: str) -> str | None:
    """The shortest path in the tree that ends with ``suffix`` (``python/sglang/...`` or ``sglang/...``)."""
    hits = [p for p in source.paths() if p == suffix or p.endswith("/" + suffix)]
    return min(hits, key=len) if hits else None


# ---- SGLang's ServerArgs -------------------------------------------------------------------------------------
def _action_name(node: ast.AST | None, env: dict[str, Any]) -> str | None:
    if node is None:
        return None
    ok, value = try_evaluate(node, env)
    if ok and isinstance(value, str):
        return value
    name = dotted(node) or ""
    return name.split(".")[-1] or ast.unparse(node)


def _annotated(annotation: ast.AST) -> tuple[ast.AST, ast.AST | None] | None:
    """``A[T, meta...]`` / ``Annotated[T, meta...]`` -> (T, the first ``Arg(...)`` call or help string)."""
    if not (isinstance(annotation, ast.Subscript)
            and (dotted(annotation.value) or "").split(".")[-1] in ("A", "Annotated")):
        return None
    parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    for meta in parts[1:]:
        if isinstance(meta, ast.Call) and (dotted(meta.func) or "").split(".")[-1] == "Arg":
            return parts[0], meta
        if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
            return parts[0], meta
        if isinstance(meta, ast.JoinedStr):
            return parts[0], meta
    return parts[0], None


def _is_bool(node: ast.AST) -> bool:
    """``bool``, ``Optional[bool]``, ``bool | None``."""
    if isinstance(node, ast.Name):
        return node.id == "bool"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return len(sides) == 1 and _is_bool(sides[0])
    if isinstance(node, ast.Subscript) and (dotted(node.value) or "").split(".")[-1] == "Optional":
        return _is_bool(node.slice)
    return False


def dataclass_options(cls: ast.ClassDef, env: dict[str, Any], notes: list[str],
                      only: list[str] | None = None) -> list[Option]:
    """The options ``add_cli_args_from_dataclass`` makes from a class's annotated fields."""
    fields: dict[str, ast.AnnAssign] = {}
    for stmt in cls.body:  # a name annotated twice: the class's __annotations__ keeps the last one
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields[stmt.target.id] = stmt
    out = []
    for name, stmt in fields.items():
        if only is not None and name not in only:
            continue
        found = _annotated(stmt.annotation)
        if found is None or found[1] is None:
            continue  # no Arg and no help string: add_cli_args_from_dataclass skips it
        inner, meta = found
        kwargs: dict[str, ast.AST] = {}
        if isinstance(meta, ast.Call):
            kwargs = {kw.arg: kw.value for kw in meta.keywords if kw.arg}

        def value(key: str, default: Any = None) -> Any:
            if key not in kwargs:
                return default
            ok, val = try_evaluate(kwargs[key], env)
            if not ok:
                notes.append(f"field {name} (line {stmt.lineno}): Arg({key}=...) not resolved")
                return default
            return val

        if value("no_cli", False) is True:
            continue
        cli_name = value("cli_name") or "--" + name.replace("_", "-")
        strings = [cli_name, *(value("aliases") or [])]
        auto_dest = cli_name.lstrip("-").replace("-", "_")
        action = _action_name(kwargs.get("action"), env) if "action" in kwargs else (
            "store_true" if _is_bool(inner) else None)
        out.append(Option(strings=[str(s) for s in strings], dest=name if name != auto_dest else None,
                          action=action, line=stmt.lineno))
    return out


def _manual_option(call: ast.Call, env: dict[str, Any], notes: list[str]) -> Option | None:
    strings = []
    for node in call.args:
        ok, val = try_evaluate(node, env)
        if not ok or not isinstance(val, str):
            notes.append(f"add_argument at line {call.lineno}: option string {ast.unparse(node)} not resolved")
            return None
        strings.append(val)
    kwargs = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    dest = None
    if "dest" in kwargs:
        ok, dest = try_evaluate(kwargs["dest"], env)
        if not ok or not isinstance(dest, str):
            notes.append(f"add_argument at line {call.lineno}: dest not resolved")
            dest = None
    return Option(strings=strings, dest=dest, action=_action_name(kwargs.get("action"), env), line=call.lineno)


def server_options(source: Source) -> tuple[str | None, list[Option], list[str]]:
    """(file read, every option ``ServerArgs.add_cli_args`` registers, notes on what was not read)."""
    path = find_file(source, SERVER_ARGS)
    if path is None:
        return None, [], [f"no {SERVER_ARGS} in the SGLang source"]
    tree = ast.parse(source.text(path) or "", filename=path)
    env = module_constants(tree)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    cls = classes.get("ServerArgs")
    fn = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "add_cli_args"), None) \
        if cls else None
    if fn is None:
        return path, [], [f"{path}: ServerArgs.add_cli_args not found"]
    notes: list[str] = []
    options: list[Option] = []
    parser = fn.args.args[0].arg if fn.args.args else "parser"
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        name = (dotted(node.func) or "").split(".")[-1]
        if name == "add_argument":
            opt = _manual_option(node, env, notes)
            if opt is not None:
                options.append(opt)
        elif name == "add_cli_args_from_dataclass":
            target = node.args[1] if len(node.args) > 1 else None
            target_cls = classes.get(target.id) if isinstance(target, ast.Name) else None
            if target_cls is None:
                notes.append(f"add_cli_args_from_dataclass at line {node.lineno}: class not found")
                continue
            only_node = next((kw.value for kw in node.keywords if kw.arg == "fields"), None)
            ok, only = try_evaluate(only_node, env) if only_node is not None else (True, None)
            for base in target_cls.bases:
                if dotted(base) in classes:
                    options += dataclass_options(classes[dotted(base)], env, notes, only)
            options += dataclass_options(target_cls, env, notes, only if ok else None)
        elif any(isinstance(a, ast.Name) and a.id == parser for a in node.args):
            notes.append(f"parser handed to {ast.unparse(node.func)} at line {node.lineno} (not followed)")
    return path, options, notes


# ---- Miles's prefixing wrapper -------------------------------------------------------------------------------
def canonical(opt: Option) -> str | None:
    """The name Miles's wrapper checks against its skip list: the dest, else the first long option."""
    if opt.dest is not None:
        return opt.dest
    first = next((s for s in opt.strings if s.startswith("--")), None)
    return None if first is None else first[2:].replace("-", "_")


def apply_wrapper(options: list[Option], skipped: list[str], inherit: bool) -> tuple[dict, dict, list[str]]:
    """Members (``--x`` for ``--<prefix>-x``) and ``--no-<prefix>-x`` members, each -> line; and skipped names.

    As ``_add_prefixed_server_args`` does it: a skipped canonical name drops the whole option; every
    string starting with ``-`` is re-prefixed (so ``-x`` becomes ``--<prefix>-x``); with ``inherit`` a
    ``store_true``/``store_false`` turns into ``BooleanOptionalAction``, which adds ``--no-`` twins.
    """
    members: dict[str, int] = {}
    negated: dict[str, int] = {}
    dropped = []
    skip = set(skipped)
    for opt in options:
        name = canonical(opt)
        if name is not None and name in skip:
            dropped.append(name)
            continue
        stems = [s.lstrip("-") for s in opt.strings if s.startswith("-")]
        action = "BooleanOptionalAction" if inherit and opt.action in BOOL_FLIPS else opt.action
        for stem in stems:
            members.setdefault(f"--{stem}", opt.line)
            if action == "BooleanOptionalAction":
                negated.setdefault(f"--{stem}", opt.line)
    return members, negated, sorted(set(dropped))


# ---- sglang_router's RouterArgs ------------------------------------------------------------------------------
def _walk_bound(stmts: list[ast.stmt], env: dict[str, Any], out: list[ast.Call], notes: list[str]) -> None:
    """Collect ``add_argument`` calls, following only the branch of an ``if`` whose test the bindings decide."""
    for stmt in stmts:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = stmt.value
            if isinstance(value, ast.IfExp):
                ok, test = try_evaluate(value.test, env)
                value = (value.body if test else value.orelse) if ok else value
            ok, val = try_evaluate(value, env)
            if ok:
                env[stmt.targets[0].id] = val
        if isinstance(stmt, ast.If):
            ok, test = try_evaluate(stmt.test, env)
            if ok:
                _walk_bound(stmt.body if test else stmt.orelse, env, out, notes)
            else:
                notes.append(f"if at line {stmt.lineno} not decided: both branches read")
                _walk_bound(stmt.body + stmt.orelse, env, out, notes)
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                out.append(node)


def router_options(source: Source, bindings: dict[str, Any]) -> tuple[str | None, list[Option], list[str]]:
    """(file read, the options ``RouterArgs.add_cli_args(parser, **bindings)`` registers, notes)."""
    path = find_file(source, ROUTER_ARGS)
    if path is None:
        return None, [], [f"no {ROUTER_ARGS} in the sglang_router source"]
    tree = ast.parse(source.text(path) or "", filename=path)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RouterArgs"), None)
    fn = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "add_cli_args"), None) \
        if cls else None
    if fn is None:
        return path, [], [f"{path}: RouterArgs.add_cli_args not found"]
    env = dict(module_constants(tree))
    params = [a.arg for a in fn.args.args]
    for name, default in zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults):
        ok, val = try_evaluate(default, env)
        if ok:
            env[name] = val
    env.update(bindings)
    calls: list[ast.Call] = []
    notes: list[str] = []
    _walk_bound(fn.body, env, calls, notes)
    options = [opt for call in calls if (opt := _manual_option(call, env, notes)) is not None]
    return path, options, notes


# ---- filling the families ------------------------------------------------------------------------------------
def _negation_family(fam: dict, negated: dict[str, int], how: str) -> dict:
    return {**fam, "prefix": "--no-" + fam["prefix"][2:], "negates": fam["prefix"],
            "members": sorted(negated), "members_source": how}


def miles_attested(miles: Source, prefix: str, members: set[str], skipped: list[str],
                   miles_names: set[str]) -> dict[str, str]:
    """``--<prefix>x`` literals in Miles's own package code that the SGLang source read lacks -> file:line.

    Miles's code builds these argument lists itself (e.g. ``--sglang-true-on-policy-contract`` in
    ``miles/true_on_policy/config.py``) and parses them with the parser built from the image's SGLang,
    so they are options of the ``sglang-miles`` branch even when the source read here predates them.
    """
    out: dict[str, str] = {}
    skip = {s.replace("_", "-") for s in skipped}
    for path in miles.paths():
        if not (path.startswith("miles/") and path.endswith(".py")):
            continue
        text = miles.text(path)
        if text is None or prefix not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            value = node.value.split("=", 1)[0]
            rest = value[len(prefix):]
            if (value.startswith(prefix) and rest and rest.replace("-", "").isalnum() and rest == rest.lower()
                    and value not in miles_names and f"--{rest}" not in members and rest not in skip):
                out.setdefault(f"--{rest}", f"{path}:{node.lineno}")
    return out


def fill_sglang(families: list[dict], sglang: Source, miles: Source, miles_names: set[str],
                origin: str) -> list[str]:
    """Give each ``sglang-passthrough`` family its members (and add ``--no-`` companions); report lines."""
    path, options, notes = server_options(sglang)
    report = []
    sglang_fams = [f for f in families if f["kind"] == "sglang-passthrough" and f.get("prefix")]
    # Both families register the same ServerArgs, so an option Miles passes as --sglang-x also exists
    # as --eval-sglang-x (unless that family skips it).
    known = set(apply_wrapper(options, [], False)[0])
    seen: dict[str, str] = {}
    for fam in sglang_fams:
        for member, where in miles_attested(miles, fam["prefix"], known, [], miles_names).items():
            seen.setdefault(member, where)
    for fam in sglang_fams:
        members, negated, dropped = apply_wrapper(options, fam["skipped"], bool(fam.get("inherit")))
        skip = {s.replace("_", "-") for s in fam["skipped"]}
        attested = {m: w for m, w in seen.items() if m[2:] not in skip and m not in members}
        how = (f"SGLang {origin}, {describe(sglang)}, file {path}: {len(options)} options of "
               f"ServerArgs.add_cli_args (annotated dataclass fields via add_cli_args_from_dataclass, plus its "
               f"manual add_argument calls), {len(dropped)} skipped by Miles, re-prefixed as Miles's "
               f"_add_prefixed_server_args does" + (" (store_true/store_false made BooleanOptionalAction)"
                                                    if fam.get("inherit") else ""))
        if attested:
            how += ("; not in that source but passed by Miles's own code, so options of the image's SGLang: "
                    + ", ".join(f"{m} ({where})" for m, where in sorted(attested.items())))
        if notes:
            how += "; not read: " + "; ".join(notes)
        fam["members"] = sorted(set(members) | set(attested))
        fam["members_source"] = how
        if attested:
            fam["members_attested"] = dict(sorted(attested.items()))
        report.append(f"{fam['prefix']}: {len(fam['members'])} members ({len(attested)} attested by Miles only)")
        if negated:
            families.append(_negation_family(fam, negated, f"the --no- twins BooleanOptionalAction adds to "
                                                           f"{fam['prefix']}*; " + how))
            families[-1].pop("members_attested", None)
            report.append(f"--no-{fam['prefix'][2:]}: {len(negated)} members")
    return report


def fill_router(families: list[dict], router: Source, origin: str) -> list[str]:
    """Give each ``router-passthrough`` family its members, read from ``RouterArgs.add_cli_args``."""
    report = []
    for fam in [f for f in families if f["kind"] == "router-passthrough" and f.get("prefix")]:
        bindings = {"use_router_prefix": fam["prefix"] == "--router-",
                    "exclude_host_port": "host" in fam["skipped"]}
        path, options, notes = router_options(router, bindings)
        members: dict[str, int] = {}
        negated: dict[str, int] = {}
        outside = []
        for opt in options:
            for s in opt.strings:
                if not s.startswith(fam["prefix"]):
                    outside.append(s)
                    continue
                members.setdefault("--" + s[len(fam["prefix"]):], opt.line)
                if opt.action == "BooleanOptionalAction":
                    negated.setdefault("--" + s[len(fam["prefix"]):], opt.line)
        how = (f"sglang_router {origin}, {describe(router)}, file {path}: {len(options)} add_argument calls of "
               f"RouterArgs.add_cli_args with use_router_prefix={bindings['use_router_prefix']}, "
               f"exclude_host_port={bindings['exclude_host_port']}")
        if outside:
            how += "; registered without the prefix (so outside this family): " + ", ".join(sorted(set(outside)))
        if notes:
            how += "; notes: " + "; ".join(notes)
        fam["members"] = sorted(members)
        fam["members_source"] = how
        report.append(f"{fam['prefix']}: {len(members)} members" + (f", {len(set(outside))} unprefixed"
                                                                      if outside else ""))
        if negated:
            families.append(_negation_family(fam, negated, f"the --no- twins of {fam['prefix']}*; " + how))
    return report


def keep_previous(families: list[dict], kind: str, previous: list[dict]) -> str:
    """Without a source: keep the members (and ``--no-`` companions) of the previous flags.json.

    Only while the family is as it was (same skip list and inheritance): members read for another
    skip list would wrongly reject or accept names, so those are left unknown (None).
    """
    old = {f["prefix"]: f for f in previous if f.get("kind") == kind}
    kept, dropped = [], []
    for fam in [f for f in families if f["kind"] == kind and f.get("prefix")]:
        before = old.get(fam["prefix"])
        if before is None or before.get("members") is None:
            continue
        if (before.get("skipped"), bool(before.get("inherit"))) != (fam["skipped"], bool(fam.get("inherit"))):
            dropped.append(fam["prefix"])
            continue
        for key in ("members", "members_source", "members_attested"):
            if key in before:
                fam[key] = before[key]
        kept.append(fam["prefix"])
        companion = old.get("--no-" + fam["prefix"][2:])
        if companion is not None and companion.get("negates") == fam["prefix"]:
            families.append({**fam, **{k: companion[k] for k in ("prefix", "negates", "members", "members_source")},
                             })
            families[-1].pop("members_attested", None)
    out = f"kept from the previous flags.json: {', '.join(kept) or 'none'}"
    if dropped:
        out += f"; skip list or inheritance changed, members unknown: {', '.join(dropped)}"
    return out
