"""Load a run file (capture/runs/<id>.yaml) and check it against the schema and the extraction."""
from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miles101.catalog import Catalog
from miles101.problems import ProblemError
from miles101.strict import parse_yaml_bytes, read_bytes
from miles101.values import step_range
from miles101.tools.preflight import option_values  # noqa: F401  (the launch procedure's reading of args)
from miles101.runfiles import BaseError, resolve_run

if TYPE_CHECKING:
    import jsonschema

SCHEMA = Path(__file__).resolve().parent / "schema" / "run.schema.json"
NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "count", "append_const", "help", "version",
                    "BooleanOptionalAction"}


class RunFileError(Exception):
    """A run file that cannot be recorded; `errors` holds one message per problem."""

    def __init__(self, errors: list[str], run: dict[str, Any] | None = None) -> None:
        super().__init__("\n".join(errors))
        self.errors, self.run = errors, run


@cache
def _validator(schema_text: str) -> jsonschema.Draft202012Validator:
    """The run file schema's validator, compiled once per process for its text."""
    from miles101.schemas import jsonschema_module  # deferred: a run file the intake found clean is not checked again

    return jsonschema_module().Draft202012Validator(json.loads(schema_text))


def _read(path: Path, parsed: Callable[[Path], Any] | None = None,
          checked: Callable[[Path], bool] | None = None) -> dict[str, Any]:
    """One run file as written, checked against the schema (no base filled in).

    `parsed` gives the document an intake has read and parsed already (`miles101.inputs.Inputs`), or
    None when it could not: the file is then read here, so its problem is named as `record` names it.
    `checked` says the intake found the file clean under this same schema (it is not checked twice).
    """
    name = str(path)
    try:  # the one strict reader: a regular file only (no FIFO, directory or loop), UTF-8, aliases bounded
        run = parsed(path) if parsed is not None else None
        if run is None:
            run = parse_yaml_bytes(read_bytes(path, name, fix="restore it from git"), name)
    except ProblemError as e:
        raise RunFileError([f"{e.problem.where}: cannot read: {e.problem.message} Fix: {e.problem.fix}"]) from None
    if checked is not None and checked(path):
        return run
    validator = _validator(SCHEMA.read_text(encoding="utf-8"))
    errors = [f"{name}: {'/'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
              for e in sorted(validator.iter_errors(run), key=lambda e: list(map(str, e.absolute_path)))]
    if errors:
        raise RunFileError(errors, run if isinstance(run, dict) else None)
    return run


def load_run(path: Path, catalog: Catalog, parsed: Callable[[Path], Any] | None = None,
             checked: Callable[[Path], bool] | None = None) -> dict[str, Any]:
    """The run file as a dict, its base filled in (args as strings), or RunFileError naming every problem.

    The base chain is read from the same directory and resolved by the core (miles101.runfiles), the
    one place that says what a run inherits.
    """
    name = str(path)
    raw: dict[str, dict] = {}
    at = path
    while True:
        run = _read(at, parsed, checked)
        raw[at.stem] = run
        base = run.get("base")
        if not base or base in raw:
            break
        at = path.with_name(f"{base}.yaml")
        if not at.exists():
            raise RunFileError([f"{name}: base {base!r}: there is no {at.name} beside it"], raw[path.stem])
    try:
        run = resolve_run(path.stem, raw)
    except BaseError as e:
        raise RunFileError([str(e)], raw[path.stem]) from e
    errors = check_run(run, path.stem, catalog, name)
    if errors:
        raise RunFileError(errors, run)
    return run


def check_run(run: dict[str, Any], stem: str, catalog: Catalog, name: str) -> list[str]:
    """Checks beyond the schema: id, flags, steps, seeds, value sources, plate."""
    errors = []
    if run["id"] != stem:
        errors.append(f"{name}: id {run['id']!r} differs from the file name {stem!r}")
    errors += control_errors(run, name)
    errors += check_args(run["args"], catalog, name)
    given = option_values(run["args"])
    if "--num-rollout" in given and given["--num-rollout"] != [str(run["steps"])]:
        errors.append(f"{name}: steps is {run['steps']} but --num-rollout is {given['--num-rollout'][-1]}")
    seeds = run.get("seeds") or []
    # --rollout-seed may stay fixed across seeds (same prompts, other trainer seeds); --seed may not.
    if "--seed" in given and (len(seeds) > 1 or (seeds and given["--seed"] != [str(seeds[0])])):
        errors.append(f"{name}: args give --seed {given['--seed'][-1]} but seeds is {seeds}: "
                      + ("leave --seed out, the recorder passes each seed" if len(seeds) > 1
                         else "make them agree"))
    # What the page shows is all the recorder passes: a run of one seed writes both seeds in its args,
    # a run of several fixes --rollout-seed there and gets only --seed S per repeat (miles101.runfiles).
    wanted = ("--rollout-seed",) if len(seeds) > 1 else ("--seed", "--rollout-seed")
    for flag in wanted:
        if flag not in given:
            errors.append(f"{name}: args do not give {flag}: write it out (Miles's default is "
                          f"{'1234' if flag == '--seed' else '42'}), so the rendered command shows every seed the run uses")
    if not run["values"] and not run.get("not_recorded"):
        errors.append(f"{name}: values is empty: declare what the run yields, or say why it is not recorded "
                      f"with not_recorded")
    for vname, spec in run["values"].items():
        if not catalog.known_source(spec["source"]):
            errors.append(f"{name}: values/{vname}/source {spec['source']!r}: Miles logs no such key"
                          f" and the lab defines no such source; {source_hint(spec['source'], catalog)}")
        if "steps" in spec:
            lo, hi = step_range(spec["steps"], run["steps"])
            if lo > hi or hi > run["steps"] - 1:
                errors.append(f"{name}: values/{vname}/steps {spec['steps']!r} is outside the run's steps "
                              f"0-{run['steps'] - 1} (steps are Miles's rollout ids; 0 is the first)")
        if "seed" in spec and spec["seed"] not in seeds:
            errors.append(f"{name}: values/{vname}/seed {spec['seed']} is not one of seeds {seeds}")
    for p in run.get("plate") or []:
        if p not in run["values"]:
            errors.append(f"{name}: plate names {p!r}, which values does not declare")
    containers = [m["container"] for m in run.get("mounts") or []]
    if len(set(containers)) != len(containers):
        errors.append(f"{name}: mounts: two mounts share a container path")
    return errors


#: What a command's text may not hold: C0 and C1 controls (a NUL, which bash drops, so the reader's command would
#: differ from the run file; an escape; a line break), DEL, line and paragraph separators and bidi overrides.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def control_errors(run: dict[str, Any], name: str) -> list[str]:
    """Every value that reaches the launch command (image, entry, args, env, mounts, launch) holding a control
    character, named by its place (`args[3]`, `env/KEY`) and the character as an escape."""
    places: list[tuple[str, Any]] = [("image", run.get("image")), ("launch", run.get("launch"))]
    places += [(f"entry[{i}]", v) for i, v in enumerate(run.get("entry") or [])]
    places += [(f"args[{i}]", v) for i, v in enumerate(run.get("args") or [])]
    places += [(f"env/{k}", f"{k}={v}") for k, v in (run.get("env") or {}).items()]
    places += [(f"mounts[{i}]/{k}", m.get(k)) for i, m in enumerate(run.get("mounts") or []) if isinstance(m, dict)
               for k in ("host", "container")]
    errors = []
    for place, value in places:
        hit = CONTROL.search(value) if isinstance(value, str) else None
        if hit:
            errors.append(f"{name}: {place}: holds the control character {ascii(hit[0])[1:-1]} at offset "
                          f"{hit.start()}: a command's text never holds one (bash drops a NUL; an escape or a "
                          "line break changes what the reader sees), so remove it")
    return errors


def source_hint(source: str, catalog: Catalog) -> str:
    """Nearest known sources, or how to name a Memory-Usage reading."""
    m = re.search(r"Memory-Usage\s+(.+?):\s*(\w+_GB)", source)
    if m:
        slug = re.sub(r"[^a-z0-9]+", "_", m[1].lower()).strip("_")
        return f"Miles's Memory-Usage lines are the lab source memory/<message>/<field>: write memory/{slug}/{m[2]}"
    near = difflib.get_close_matches(source, catalog.source_names(), n=3, cutoff=0.5)
    return f"nearest: {', '.join(near) or 'none'}"


def arity(rec: dict[str, Any], opt: str) -> tuple[int, float]:
    """(min, max) value tokens the option takes."""
    action = rec.get("action") or "store"
    if action in NO_VALUE_ACTIONS or (opt.startswith("--no-") and opt != rec.get("name")):
        return 0, 0
    nargs = rec.get("nargs")
    if nargs is None:
        return 1, 1
    if isinstance(nargs, int):
        return nargs, nargs
    return {"?": (0, 1), "*": (0, math.inf), "+": (1, math.inf)}.get(str(nargs), (0, math.inf))


def _shown(value: str) -> str:
    """A value in a message: repr, cut to 40 characters with its length said."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}...' ({len(value)} characters)"


#: The largest magnitude an int flag's value may have: what a C long holds (torch, NCCL and Ray read counts so);
#: Python's int() in Miles's argparse takes up to 4300 digits, none of them a count any run could mean.
MAX_INT = 2**63 - 1


def value_error(rec: dict[str, Any], value: str) -> str | None:
    """Why `value` is not valid for the flag, or None. Read as Miles's argparse reads it (int(), float(),
    json.loads()), then refused when absurd: an int past MAX_INT, a float that is not finite."""
    kind = rec.get("type")
    try:
        if kind == "int":
            parsed: Any = int(value)
        elif kind == "float":
            parsed = float(value)
        elif kind == "json":
            parsed = json.loads(value)
        else:
            parsed = value
    except (ValueError, RecursionError):  # 5000 digits are a ValueError to int()
        return f"{_shown(value)} is not {'an' if kind == 'int' else 'a'} {kind}"
    if kind == "int" and abs(parsed) > MAX_INT:
        return f"{_shown(value)} is past {MAX_INT} (no count a run means is that large)"
    if kind == "float" and not math.isfinite(parsed):
        return f"{_shown(value)} is {parsed} to Miles (not a finite number)"
    choices = rec.get("choices")
    if choices is not None and parsed not in choices and value not in [str(c) for c in choices]:
        return f"{_shown(value)} is not one of {', '.join(map(str, choices))}"
    return None


def check_args(args: list[str], catalog: Catalog, name: str) -> list[str]:
    """Every flag known, every value of the right arity, type and choice."""
    errors: list[str] = []
    given = option_values(args)
    backend = (given.get("--train-backend") or ["megatron"])[-1]  # default megatron (arguments.py:262-268)
    seen: dict[str, int] = {}
    i = 0
    while i < len(args):
        tok = args[i]
        if not tok.startswith("--"):
            errors.append(f"{name}: args[{i}] {tok!r}: a value with no flag before it")
            i += 1
            continue
        opt, eq, inline = tok.partition("=")
        j = i + 1
        values = [inline] if eq else []
        while not eq and j < len(args) and not args[j].startswith("--"):
            values.append(args[j])
            j += 1
        recs = catalog.flags.get(opt)
        if recs is None:
            errors += family_errors(opt, i, catalog, name, backend)
        else:
            errors += flag_errors(opt, i, values, recs, backend, name, bool(eq))
            action = recs[0].get("action") or "store"
            if opt in seen and action not in ("append", "append_const", "count"):
                errors.append(f"{name}: args[{i}] {opt}: given twice (also at args[{seen[opt]}])")
            seen.setdefault(opt, i)
        i = j
    for opt, recs in catalog.flags.items():
        if opt == recs[0]["name"] and any(r.get("required") and r.get("backend", "both") in ("both", backend)
                                          for r in recs) and opt not in given:
            errors.append(f"{name}: args: {opt} is required by Miles and missing")
    return errors


def flag_errors(opt: str, i: int, values: list[str], recs: list[dict[str, Any]], backend: str, name: str,
                inline: bool) -> list[str]:
    """Arity, type and choice problems of one known flag; any record that accepts wins."""
    fitting = [r for r in recs if r.get("backend", "both") in ("both", backend)] or recs
    problems: list[str] = []
    for rec in fitting:
        lo, hi = arity(rec, opt)
        if len(values) < lo:
            problems.append(f"{name}: args[{i}] {opt}: needs a value")
        elif len(values) > hi:
            extra = i + (1 if inline else 1 + int(hi))
            problems.append(f"{name}: args[{extra}] {values[int(hi)]!r}: {opt} takes "
                            f"{'no value' if hi == 0 else f'at most {int(hi)} value(s)'}")
        else:
            bad = [e for e in (value_error(rec, v) for v in values) if e]
            if not bad:
                return []
            problems.append(f"{name}: args[{i}] {opt}: {bad[0]}")
    return problems[:1]


def family_errors(opt: str, i: int, catalog: Catalog, name: str, backend: str) -> list[str]:
    """An option that is not a Miles flag: fine only as a member of a passthrough family.

    A family whose prefix is bare "--" (Megatron-LM's own parser, in flags.json) is a list of
    names, not a prefix: an option outside it is simply unknown.
    """
    fam = catalog.family(opt)
    rest = opt[len(fam["prefix"]):] if fam else ""
    members = None if fam is None else fam.get("members")
    norm = None if members is None else {m.lstrip("-").replace("_", "-") for m in members}
    if fam is None or (fam["prefix"] == "--" and norm is not None and rest not in norm):
        pool = list(catalog.flags) + [f["prefix"] + m for f in catalog.families if f["prefix"] == "--"
                                      for m in sorted({x.lstrip("-") for x in f.get("members") or []})]
        near = difflib.get_close_matches(opt, pool, n=3, cutoff=0.6)
        return [f"{name}: args[{i}] {opt!r}: Miles has no such flag; nearest: {', '.join(near) or 'none'}"]
    if fam.get("backend") not in (None, "both", backend):
        return [f"{name}: args[{i}] {opt}: a {fam['backend']} flag ({fam.get('kind', fam['prefix'])}), "
                f"but this run's --train-backend is {backend}"]
    skipped = {s.replace("_", "-") for s in fam.get("skipped") or []}
    if rest in skipped:
        return [f"{name}: args[{i}] {opt}: Miles sets {rest} itself and does not pass it through"]
    if norm is not None and rest not in norm:
        near = difflib.get_close_matches(rest, sorted(norm), n=3, cutoff=0.6)
        return [f"{name}: args[{i}] {opt!r}: {fam['prefix']}* passes {fam.get('kind', 'options')} through, "
                f"and there is no {rest!r}; nearest: {', '.join(fam['prefix'] + n for n in near) or 'none'}"]
    return []
