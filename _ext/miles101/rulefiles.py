"""The log doctor's rule files through the gate: capture/symptoms.json and capture/references/reader.json.

Both are read by the one strict reader (`miles101.strict`) and checked against their JSON Schema
(symptoms.schema.json, references.schema.json) and the rules a schema cannot say, so the doctor's rule
set (`miles101.doctor_rules`), read_run.py's embedded tables (`capture.lab.symptoms`) and both gates
(`miles101.validate`: the build and `--check`) read the same checked data:

- a `grep` string holds a visible character (four spaces would match any indented line);
- an entry id appears once (the doctor keys its answers by id);
- a reader threshold is one number: each reader.json entry has `value` (low/high alone is a range);
- while a page holds ``{log-doctor}``, symptoms.json exists (`missing_rules`); a directory or a FIFO
  in its place is named by the strict reader.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import schemas
from .capturefiles import fix_for
from .problems import Problem, ProblemError, capture_problem, json_path
from .strict import parse_json_bytes, read_bytes

SYMPTOMS = "capture/symptoms.json"
READER = "capture/references/reader.json"
#: A line that opens a ```{log-doctor} block (a fence of three or more backticks or colons).
DOCTOR_BLOCK = re.compile(r"^[ \t]*(`{3,}|:{3,})\{log-doctor\}", re.M)


def _path(*parts: Any) -> str:
    return json_path(parts)


def rule_problems(rel: str, doc: Any) -> list[Problem]:
    """What symptoms.json's or reader.json's schema cannot check (empty for another file or a malformed one)."""
    out: list[Problem] = []
    if rel == SYMPTOMS and isinstance(doc, dict) and isinstance(doc.get("symptoms"), list):
        entries = [(i, s) for i, s in enumerate(doc["symptoms"]) if isinstance(s, dict)]
        for i, s in entries:
            for j, grep in enumerate(s.get("grep") or []):
                if isinstance(grep, str) and not any(c.isprintable() and not c.isspace() for c in grep):
                    out.append(capture_problem(
                        f"{rel}:{_path('symptoms', i, 'grep', j)}",
                        f"the grep string {grep!r} has no visible character, so it would match any line that holds "
                        "that whitespace (an indented line, say).",
                        "write the exact text of the log line the entry looks for, or remove the string."))
        counts = Counter(s.get("id") for _, s in entries if isinstance(s.get("id"), str))
        for i, s in entries:
            sid = s.get("id")
            if counts.get(sid, 0) > 1 and next(k for k, e in entries if e.get("id") == sid) != i:
                out.append(capture_problem(
                    f"{rel}:{_path('symptoms', i, 'id')}",
                    f"the entry id {sid!r} is used {counts[sid]} times; the doctor and read_run.py key each entry "
                    "by its id (and page 7.1 its label), so the entries would merge.",
                    "give each entry its own id (the label of its ### heading on 7.1), or remove the copy."))
        out += _unknown_fact_values(rel, doc, entries)
    if rel == READER and isinstance(doc, dict) and isinstance(doc.get("references"), dict):
        for key, rec in doc["references"].items():
            if isinstance(rec, dict) and "value" not in rec:
                out.append(capture_problem(
                    f"{rel}:{_path('references', key)}",
                    f"the reader threshold {key!r} has no value: read_run.py and the log doctor compare with one "
                    "number (low/high alone is a range).",
                    f"give it `value` (the cut-off itself), or restore it from git (`git checkout -- {READER}`)."))
    return out


def _conditions(node: Any, path: tuple) -> Iterator[tuple[tuple, dict]]:
    """Each `when`/`rank` condition ({"fact", "in"}) under `node`, with its JSON path."""
    if isinstance(node, dict):
        if isinstance(node.get("fact"), str) and isinstance(node.get("in"), list):
            yield path, node
        for key, value in node.items():
            yield from _conditions(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _conditions(value, (*path, i))


def _unknown_fact_values(rel: str, doc: dict, entries: list[tuple[int, dict]]) -> list[Problem]:
    """A condition value the log's evidence never gives (a phase id of evidence.phases, else a value of
    evidence.facts[fact]): a misspelt one would rank nothing, in silence."""
    evidence = doc.get("evidence")
    if not isinstance(evidence, dict):
        return []
    phases = [p.get("id") for p in evidence.get("phases") or [] if isinstance(p, dict)]
    facts = evidence.get("facts") if isinstance(evidence.get("facts"), dict) else {}
    out: list[Problem] = []
    for i, s in entries:
        for path, cond in _conditions(s, ("symptoms", i)):
            fact = cond["fact"]
            known = phases if fact == "phase" else list(facts.get(fact) or {})
            for j, value in enumerate(cond["in"]):
                if isinstance(value, str) and value not in known:
                    where = "evidence.phases (their ids)" if fact == "phase" else f"evidence.facts.{fact}"
                    out.append(capture_problem(
                        f"{rel}:{_path(*path, 'in', j)}",
                        f"the {fact} {value!r} is not one the doctor reads from a log ({where} gives "
                        f"{', '.join(map(repr, known)) or 'none'}), so this condition would never hold.",
                        f"use one of those values, or add {value!r} to {where} with the sentence that says it."))
    return out


def _load(root: Path, rel: str, fix: str) -> Any:
    """A rule file read strictly and checked (schema, then rule_problems); ProblemError at its first problem."""
    raw = read_bytes(root / rel, rel, root, fix)
    doc = parse_json_bytes(raw, rel, fix)
    name = schemas.schema_name_for(rel)
    text = (schemas.schema_dir() / name).read_text(encoding="utf-8")
    for error in schemas.validator(name, text).iter_errors(doc):
        raise ProblemError(capture_problem(f"{rel}:{_path(*error.absolute_path)}", f"{error.message[:200]} (schema {name}).",
                                           f"change the value there, or {fix}."))
    problems = rule_problems(rel, doc)
    if problems:
        raise ProblemError(problems[0])
    return doc


def load_symptoms(root: Path) -> dict[str, Any]:
    """capture/symptoms.json, checked; ProblemError naming the file, the place and the fix otherwise."""
    return _load(root, SYMPTOMS, fix_for(SYMPTOMS))


def load_cutoffs(root: Path) -> dict[str, float]:
    """The reader's thresholds by key (capture/references/reader.json, checked): each one number."""
    doc = _load(root, READER, fix_for(READER))
    return {k: float(v["value"]) for k, v in doc["references"].items()}


def missing_rules(root: Path, page: str, line: int) -> Problem | None:
    """When a page holds {log-doctor} and symptoms.json is not there at all: the problem at the page's block."""
    path = root / SYMPTOMS
    if path.exists() or path.is_symlink():
        return None  # a directory, a FIFO or a broken file: the strict reader names it as what it is
    return capture_problem(f"{page}:{line}", f"the log doctor here needs {SYMPTOMS}, which does not exist; the page "
                           "would mount a doctor with no rules.",
                           f"restore it from git (`git checkout -- {SYMPTOMS}`), or remove the {{log-doctor}} block.")


def doctor_blocks(text: str) -> list[int]:
    """The line of each {log-doctor} block of a page's text."""
    return [text.count("\n", 0, m.start()) + 1 for m in DOCTOR_BLOCK.finditer(text)]
