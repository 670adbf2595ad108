"""Run files as the book and the lab read them: a run's base filled in, and the launch it stands for.

A run file (capture/runs/<id>.yaml) may name a `base` run. It then inherits the base's image, entry,
launch, environment, mounts and seeds, and its `args` hold only what differs: a flag the base passes
takes the child's value in the base's place, a new flag goes after the base's, and `drop` (flag ->
why) leaves a base flag out. `resolve_runs` fills every base in, so a page, `--check` and the
recorder all see the whole command. `launch_lines` is the one definition of how a run is launched
inside the reader's container (section 1.1's `ray job submit`); the recorder runs the same argv.
"""
from __future__ import annotations

import re
import secrets
import shlex
import unicodedata
from typing import Any

# The launch itself (ray start, ray job submit, the arguments, the log) is defined once, in the reader's
# preflight: one stdlib-only file that section 1.1 serves, that the recorder runs, and that this module
# renders for the pages.
from miles101.tools.preflight import (LOG_DIR, RAY_DASHBOARD, SEED_FLAGS, WORKDIR, _flag, added_seed_args,  # noqa: F401
                                   arg_groups, job_env, job_submit, log_path, miles_args, program, ray_start,
                                   submission_id)

INHERITED = ("image", "entry", "launch", "seeds")


class BaseError(ValueError):
    """A base that cannot be resolved: a missing run, a cycle, or a drop of a flag the base lacks."""


def merge_args(base: list[Any], child: list[Any], drop: list[str]) -> list[str]:
    """The base's arguments with the child's flags in place of the base's, new ones after, `drop` left out."""
    child_groups = arg_groups(child)
    by_flag = {_flag(f): (f, v) for f, v in child_groups}
    out: list[str] = []
    used: set[str] = set()
    for flag, values in arg_groups(base):
        name = _flag(flag)
        if name in drop:
            continue
        if name in by_flag:
            flag, values = by_flag[name]
            used.add(name)
        out += [flag, *values]
    for flag, values in child_groups:
        if _flag(flag) not in used:
            out += [flag, *values]
    return out


def resolve_run(run_id: str, raw: dict[str, dict], seen: tuple[str, ...] = ()) -> dict:
    """The run `run_id` with its base chain filled in (a new dict); BaseError when it cannot be."""
    run = raw[run_id]
    base_id = run.get("base")
    if not base_id:
        return dict(run, args=[str(a) for a in run.get("args") or []])
    if base_id in seen or base_id == run_id:
        raise BaseError(f"capture/runs/{run_id}.yaml: base {base_id!r} leads back to itself ({' -> '.join((*seen, run_id, base_id))})")
    if base_id not in raw:
        raise BaseError(f"capture/runs/{run_id}.yaml: base {base_id!r} is not a run file in capture/runs/")
    base = resolve_run(base_id, raw, (*seen, run_id))
    drop = dict(run.get("drop") or {})
    base_flags = {_flag(f) for f, _ in arg_groups(base["args"])}
    missing = [f for f in drop if f not in base_flags]
    if missing:
        raise BaseError(f"capture/runs/{run_id}.yaml: drop names {', '.join(missing)}, which the base {base_id} "
                        f"does not pass; remove it from drop")
    merged = dict(run)
    for key in INHERITED:
        if key not in run and key in base:
            merged[key] = base[key]
    merged["env"] = {**(base.get("env") or {}), **(run.get("env") or {})}
    mounts = {m["container"]: m for m in base.get("mounts") or []}
    mounts.update({m["container"]: m for m in run.get("mounts") or []})
    merged["mounts"] = list(mounts.values())
    merged["args"] = merge_args(base["args"], run.get("args") or [], list(drop))
    return merged


def resolve_runs(raw: dict[str, dict]) -> tuple[dict[str, dict], list[str]]:
    """Every run resolved, and one message per run whose base could not be (those runs are left out)."""
    runs: dict[str, dict] = {}
    errors: list[str] = []
    for run_id in raw:
        try:
            runs[run_id] = resolve_run(run_id, raw)
        except BaseError as exc:
            errors.append(str(exc))
    return runs, errors


# --------------------------------------------------------------------------- the launch


# --------------------------------------------------------------------------- the launch as a page shows it

SEED_VAR = "s"  # the loop variable of a several-seed launch: for s in ...; do ... done
# Where the launch code puts the seed of a several-seed launch (the submission id, the log path, `--seed`),
# it puts this mark; only a token holding it gets a live `$s`. A run file cannot hold it (it is made afresh
# in each process), so a `$s`, a `$(...)` or a backtick in a run-file value stays text.
_SEED_MARK = f"\x00seed-{secrets.token_hex(8)}\x00"
_UNSAFE = re.compile(r"[^\w@%+=:,./-]", re.ASCII)  # shlex.quote's test: what needs quoting


def _quote(token: str) -> str:
    """A token as the reader's shell needs it: single-quoted by shlex.quote unless it is plain, whatever it holds.

    Only a token the launch code made around the seed (see _SEED_MARK) expands `$s`; every other part of it is
    literal too.
    """
    token = str(token)
    if _SEED_MARK not in token:
        return shlex.quote(token)
    parts = token.split(_SEED_MARK)
    if not any(_UNSAFE.search(p) for p in parts):  # the usual case: "first-grpo-$s", "/root/logs/first-grpo-$s.log"
        def ref(nxt: str) -> str:  # ${s} where a name character follows, so the shell reads the variable alone
            return f"${{{SEED_VAR}}}" if nxt[:1].isalnum() or nxt[:1] == "_" else f"${SEED_VAR}"
        return '"' + parts[0] + "".join(ref(p) + p for p in parts[1:]) + '"'
    return f'"${SEED_VAR}"'.join(shlex.quote(p) if p else "" for p in parts)  # 'literal'"$s"'literal'


def script_comment(text: object) -> str:
    """Text made safe for a `#` comment of a script: every control character and line break a space."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text))


def command_lines(args: list[str]) -> list[str]:
    """A Miles argument list as one flag (with its values) per line."""
    lines: list[str] = []
    for arg in map(str, args):
        if arg.startswith("--") or not lines:
            lines.append(_quote(arg))
        else:
            lines[-1] += " " + _quote(arg)
    return lines


def launch_script(run: dict, *, prefix: list[str] | None = None, program_line: str | None = None,
                  suffix: str | None = None, start_ray: bool = False) -> str:
    """The reader's whole launch of a run: `ray job submit` of its command, one flag per line, its log teed.

    By default every part comes from the run file (the same argv the recorder runs, see job_submit and
    miles_args); `prefix` (lines before the program), `program_line` and `suffix` override a part. A run
    of several seeds becomes a loop over its seeds, each repeat a job `<id>-$s` with `--seed "$s"`.
    `start_ray` puts the run's `ray start` line first (a page whose run needs another GPU count).
    """
    seeds = run.get("seeds") or []
    looped = len(seeds) > 1
    seed = _SEED_MARK if looped else (seeds[0] if seeds else None)
    submit = job_submit(run, seed)
    cut = submit.index("--")
    head = prefix if prefix is not None else [
        " ".join(_quote(t) for t in submit[:5]),
        *("  " + " ".join(_quote(t) for t in submit[i:i + 2]) for i in range(5, cut, 2))]
    lines = [ln.rstrip(" \\") for ln in head if ln.strip()]
    lines.append(program_line or "  " + " ".join(_quote(t) for t in submit[cut:]))
    lines += ["  " + ln for ln in command_lines(miles_args(run, seed))]
    lines.append("  " + (suffix.strip() if suffix else f"2>&1 | tee {_quote(log_path(run, seed))}"))
    # A loop's body is indented line by line of the command, never inside a quoted value that holds a newline.
    text = " \\\n".join(("  " + ln if looped else ln) for ln in lines)
    if looped:
        text = f"for {SEED_VAR} in {' '.join(_quote(str(s)) for s in seeds)}; do\n{text}\ndone"
    if start_ray:
        text = " ".join(map(_quote, ray_start(run))) + "\n" + text
    return text
