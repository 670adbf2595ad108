"""Public per-step series: verl's console `step:N - key:value - ...` lines, read into the `series` kind.

A public series is someone else's run (a `reference`, never a measurement of this book). It is kept as
its own capture file, `capture/series/<id>.json` (schema `series.schema.json`), extracted by
`capture/extract/series.py` from an excerpt of the public log kept beside it
(`capture/series/sources/<id>.log.gz`: the exact lines read, each after its line number in the
public file and a tab; or, for a file read in windows rather than whole, after `@<W>` and a tab: the line
lies in the 16,000 characters of the file's text from character W). `capture/run.py --check` parses the excerpt again with `parse_excerpt` and
refuses a series file that differs. Only `step:` lines are read: the `wandb:` summary at a log's end
repeats keys and is ignored. Stdlib only, no Sphinx.
"""
from __future__ import annotations

import gzip
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: A verl console step line: an optional Ray prefix (`(TaskRunner pid=1)`, maybe coloured), then `step:N - `.
STEP_LINE = re.compile(r"^(?:\x1b\[\d+m)?(?:\([^)]*\))?(?:\x1b\[0m)?\s*step:(\d+) - (.*)$")
#: Settings read from the log's config dump or command: the first occurrence of each wins.
_SETTING_PATTERNS = {
    "lr": re.compile(r"'lr': ([0-9.eE+-]+)"),
    "gpus_per_node": re.compile(r"'n_gpus_per_node': (\d+)"),
    "nodes": re.compile(r"'nnodes': (\d+)"),
    "adv_estimator": re.compile(r"'adv_estimator': '([a-z_]+)'"),
    "train_batch_size": re.compile(r"'train_batch_size': (\d+)"),
    "lora_rank": re.compile(r"'lora_rank': (\d+)"),
    "samples_per_prompt": re.compile(r"'n': (\d+)"),
    "test_freq": re.compile(r"'test_freq': (-?\d+)"),
}


@dataclass
class Parsed:
    """What a verl console log gives: per-step metrics, the run's settings, and what could not be read."""

    steps: dict[int, dict[str, float | None]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    framework_commit: str | None = None
    #: line number → why the line or one of its fields could not be read (a value that is not a number).
    unread: dict[int | str, str] = field(default_factory=dict)


def parse_value(text: str) -> float | None:
    """A logged number, or None for one that is not a finite number (`nan`, `inf`, a word)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def parse_step_line(line: str) -> tuple[int, dict[str, float | None], list[str]] | None:
    """(step, metrics, fields not read) of a `step:N - key:value - ...` line; None for any other line."""
    m = STEP_LINE.match(line.rstrip("\r\n"))
    if m is None:
        return None
    metrics: dict[str, float | None] = {}
    bad: list[str] = []
    for part in m.group(2).split(" - "):
        key, sep, value = part.rpartition(":")
        if not sep or not key:
            bad.append(part[:60])
            continue
        number = parse_value(value.strip())
        if number is None:
            bad.append(f"{key.strip()}:{value.strip()[:20]}")
        metrics[key.strip()] = number
    return int(m.group(1)), metrics, bad


def _setting(name: str, raw: str) -> Any:
    if name == "lr":
        return float(raw)
    if name == "adv_estimator":
        return raw
    return int(raw)


def parse_lines(numbered: list[tuple[int | str, str]]) -> Parsed:
    """Read numbered log lines: `step:` lines into steps, the config dump and command into settings."""
    out = Parsed()
    after_commit = False
    for number, line in numbered:
        if after_commit and re.fullmatch(r"[0-9a-f]{40}", line.strip()):
            out.framework_commit = line.strip()
        after_commit = line.strip() == "commit:"
        got = parse_step_line(line)
        if got is not None:
            step, metrics, bad = got
            if step in out.steps:
                out.unread[number] = f"step {step} appears again; the first line is kept"
                continue
            out.steps[step] = metrics
            if bad:
                out.unread[number] = "not a number: " + ", ".join(bad[:3])
            continue
        if "wandb:" in line:
            continue  # the summary block repeats keys: never read
        for name, pattern in _SETTING_PATTERNS.items():
            hit = pattern.search(line)
            if hit is not None and name not in out.settings:
                out.settings[name] = _setting(name, hit.group(1))
        cli = re.search(r"actor_rollout_ref\.rollout\.n=(\d+)", line)
        if cli is not None:
            out.settings["samples_per_prompt"] = int(cli.group(1))  # the command beats the dump's first `'n':`
    return out


def read_excerpt(path: Path) -> list[tuple[int | str, str]]:
    """The located lines of an excerpt (`<line number>\\t<the exact line>` or `@<W>\\t<the exact line>`, gzip
    or plain text).

    ValueError naming the file and the line for a line without its place."""
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    out = []
    for i, row in enumerate(text.split("\n"), 1):
        if not row:
            continue
        number, tab, line = row.partition("\t")
        window = number.startswith("@") and number[1:].isdigit()
        if not tab or not (number.isdigit() or window):
            raise ValueError(f"{path}: excerpt line {i} does not start with the public file's line number (or @ and "
                             "the character where its window starts) and a tab")
        out.append((number if window else int(number), line))
    return out


def method_of(settings: dict[str, Any]) -> str:
    """PPO, GRPO or GRPO-LoRA, from the advantage estimator and the LoRA rank."""
    est = settings.get("adv_estimator")
    base = "PPO" if est == "gae" else est.upper() if isinstance(est, str) else "unknown"
    return f"{base}-LoRA" if (settings.get("lora_rank") or 0) > 0 else base


def _place(item: tuple[int | str, str]) -> tuple[int, int]:
    """Sort key of an unread line's place: line numbers first, then windows by their first character."""
    where = item[0]
    return (0, where) if isinstance(where, int) else (1, int(where[1:]))


def series_document(meta: dict[str, Any], parsed: Parsed) -> dict[str, Any]:
    """The `series` capture file: `meta` (id, title, source, model, ...) with the parsed steps as columns."""
    steps = sorted(parsed.steps)
    keys = sorted({k for row in parsed.steps.values() for k in row})
    settings = {**parsed.settings, "method": method_of(parsed.settings)}
    settings["gpus"] = settings.pop("gpus_per_node", 0) * settings.pop("nodes", 1)
    return {
        **meta,
        "framework": "verl",
        "framework_commit": parsed.framework_commit,
        "gpu": None,
        "settings": dict(sorted(settings.items())),
        "steps": steps,
        "metrics": {k: [parsed.steps[s].get(k) for s in steps] for k in keys},
        "unread": {str(n): why for n, why in sorted(parsed.unread.items(), key=_place)},
    }


def rederive(root: Path, rel: str, doc: dict[str, Any]) -> list[str]:
    """Why the series file `rel` (parsed `doc`) does not match its excerpt parsed again; [] when it does."""
    excerpt = doc.get("excerpt")
    if not isinstance(excerpt, str):
        return []  # the schema names a missing excerpt
    path = root / excerpt
    try:
        parsed = parse_lines(read_excerpt(path))
    except (OSError, ValueError, EOFError, gzip.BadGzipFile) as exc:
        return [f"its excerpt {excerpt} cannot be read ({exc})"]
    meta = {k: v for k, v in doc.items() if k not in ("framework", "framework_commit", "gpu", "settings", "steps",
                                                       "metrics", "unread")}
    again = series_document(meta, parsed)
    out = []
    for key in ("framework_commit", "settings", "steps", "metrics", "unread"):
        if doc.get(key) == again[key]:
            continue
        where = ""
        if key == "metrics" and isinstance(doc.get("metrics"), dict) and doc.get("steps") == again["steps"]:
            for name, column in sorted(again["metrics"].items()):
                held = doc["metrics"].get(name)
                if held != column:
                    i = next((i for i, (a, b) in enumerate(zip(held or [], column)) if a != b), 0)
                    where = (f" at $.metrics[{name!r}][{i}] (step {again['steps'][i]}): the file holds "
                             f"{(held or [None])[i] if held and i < len(held) else 'nothing'}, the log {column[i]}")
                    break
        out.append(f"$.{key} is not what the public log's excerpt {excerpt} gives{where}")
    return out
