"""Numbers the gates recompute or hold to a source (issue 57 §9, issue 60 §5): one rule, the build's and `--check`'s.

- A number typed inside a command (a shell block's line or inline code) as an option's value (`--groups 32`,
  `-n 20`, `--shm-size=32g`) or an assignment's (`RAY_memory_usage_threshold=0.98`, `memlock=-1`) is listed in
  the reviewed list, `capture/reviewed-numbers.json`, with its source. An entry that names `run-arg` is held to
  the run files: the value must be what each named run file passes, so a changed run file fails both gates.
  Digits inside names, paths, addresses and versions are not quantities and are not read
  (`Qwen3-0.6B`, `127.0.0.1`, `:latest`); the launch commands of `{run-command}` come from the run files.
- A time product ({run-arg} × {reference} ≈ N min) is recomputed (the first part of this module, below).
- Any other `≈ N` in prose is refused unless the reviewed list's `approx` names it (page and text) with its
  source: an approximate value is a cited value (`≈ {computed}`…``) or a product the gates recompute.
- A quantity in words ("eight GPUs", "a hundred rollouts": a number word from two up, NUMBER_WORDS, before a word
  of hardware or run length, QUANTITY) needs a citation in its sentence (a value role, {run-arg}, {src}, {issue} or a link,
  which the reader can follow) or a `words` entry of the reviewed list; "a few thousand" is no number.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .pagetext import Command, line_of, split
from .problems import Problem, ProblemError, Subtype
from .resolve import resolve
from .strict import read_bytes

# ---------------------------------------------------------------- time products
# The time products of the run pages, recomputed: one rule for the build and `capture/run.py --check` (issue 60 §5).
# 
# A page plans a run's time as plain arithmetic of its text, both factors shown as roles and the result
# typed: {run-arg}`seed-repeats --num-rollout` × {reference}`slime-gb10.step-time` ≈ 34 min, or a sum of
# such products (`A × R +\nB × R ≈ 35 min`). The rule reads every such expression on any page (the form,
# not a list of pages), multiplies each run file's value by the reference's (a time per step in s), adds
# the terms, and refuses a result that is off by more than its own rounding
# (half a unit of its last digit), naming the page, the line and the right figure. A factor that does not
# resolve is left to the reference check, which names it.

#: Seconds per unit of a result.
UNITS = {"s": 1, "min": 60, "h": 3600}
#: One term, `{kind}`text`` × `{kind}`text`` (one word may follow a factor: "… --num-rollout` steps × …").
_FACTOR = r"\{([a-z][\w-]*)\}`([^`]+)`(?:\s+[a-z]+)?"
TERM = re.compile(rf"{_FACTOR}\s*×\s*{_FACTOR}")
#: A product, or a sum of products (1.1's evening: `A × R +\nB × R ≈ 35 min`), and its typed result.
#: Read as a chain of terms, then its result: one regex over both retried the whole chain from each of its
#: terms when no result followed (2,000 terms: 15 s); chains do not overlap, so this reads a page once.
CHAIN = re.compile(rf"(?:{_FACTOR}\s*×\s*{_FACTOR}\s*\+\s*)*{_FACTOR}\s*×\s*{_FACTOR}")
RESULT = re.compile(r"\s*≈\s*(?P<figure>\d+(?:\.\d+)?)(?:\s*(?P<unit>min|s|h)\b)?")
FORM = "{run-arg}`<run> --num-rollout` × {reference}`<a time per step>` ≈ N min (terms may be summed with +)"


@dataclass(frozen=True)
class Product:
    """One product or sum of products on a page: where its result stands, its terms' roles, the typed result."""

    line: int
    start: int  # the span of the whole expression in the prose
    end: int
    terms: tuple[tuple[tuple[str, str], tuple[str, str]], ...]  # ((kind, text), (kind, text)) per term
    figure: str
    unit: str | None


def products(prose: str) -> list[Product]:
    """Every product (or sum of products) ≈ N in the prose (code already blanked: `miles101.pagetext.split`)."""
    if "≈" not in prose:
        return []
    found = []
    for chain in CHAIN.finditer(prose):
        m = RESULT.match(prose, chain.end())
        if m is None:
            continue
        expression = prose[chain.start():m.start("figure")]
        terms = tuple(((t[1], t[2]), (t[3], t[4])) for t in TERM.finditer(expression))
        found.append(Product(line_of(prose, m.start("figure")), chain.start(), m.end(), terms, m["figure"], m["unit"]))
    return found


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _time_unit(unit: str) -> int | None:
    """Seconds per unit of a reference's unit ("s per rollout step" → 1), or None when it is no time."""
    return UNITS.get((unit or "").split(" ", 1)[0])


def _term_seconds(capture: Any, term: tuple[tuple[str, str], tuple[str, str]], figure: str
                  ) -> tuple[float, str] | Problem | None:
    """(seconds, "48 × 41.9 s") of one term; a Problem (message, fix) when it is no time; None when a role does not
    resolve (the reference check names it)."""
    kinds = sorted(kind for kind, _ in term)
    if kinds != ["reference", "run-arg"]:
        return Problem(Subtype.BAD_REFERENCE, f"the product ≈ {figure} multiplies {{{term[0][0]}}} by {{{term[1][0]}}}, "
                       "which the gates cannot recompute.", f"write a time product as {FORM}, or cite the result as a "
                       "value.")
    arg_text = next(t for k, t in term if k == "run-arg")
    ref_text = next(t for k, t in term if k == "reference")
    arg, ref = resolve(capture, "run-arg", arg_text), resolve(capture, "reference", ref_text)
    if isinstance(arg, Problem) or isinstance(ref, Problem):
        return None
    count, per_step = _number(arg.value), ref.value
    if count is None:
        return Problem(Subtype.BAD_REFERENCE, f"{{run-arg}}`{arg_text}` is {arg.value!r}, not a number, so "
                       f"≈ {figure} cannot be recomputed.", "multiply a run file's count (--num-rollout).")
    seconds = _time_unit(per_step.unit)
    if seconds is None or per_step.value is None:
        return Problem(Subtype.BAD_REFERENCE, f"{{reference}}`{ref_text}` is {per_step.unit!r}, not a time per step, "
                       f"so ≈ {figure} is no time.", "multiply by a reference in s per step.")
    return count * per_step.value * seconds, f"{arg.value} × {per_step.value:g} s"


def product_problem(capture: Any, rel: str, product: Product) -> Problem | None:
    """Why one product (or sum) is wrong or cannot be checked, at its page and line; None when it holds."""
    where = f"{rel}:{product.line}"
    total, shown = 0.0, []
    for term in product.terms:
        result = _term_seconds(capture, term, product.figure)
        if result is None:
            return None
        if isinstance(result, Problem):
            return replace(result, where=where)
        total += result[0]
        shown.append(result[1])
    if product.unit is None:
        return Problem(Subtype.BAD_REFERENCE, f"the time product ≈ {product.figure} has no unit.",
                       f"write its unit after the figure: {FORM}.", where)
    exact = total / UNITS[product.unit]
    decimals = len(product.figure.partition(".")[2])
    if abs(exact - float(product.figure)) <= 0.5 * 10 ** -decimals + 1e-9:
        return None
    right = f"{exact:.{decimals}f}"
    factors = " + ".join(f"{{run-arg}}`{_arg(t)}` × {{reference}}`{_ref(t)}`" for t in product.terms)
    return Problem(Subtype.BAD_REFERENCE,
                   f"{factors} is {' + '.join(shown)} = {exact:.2f} {product.unit}, which rounds to {right} "
                   f"{product.unit}, not {product.figure} {product.unit}.",
                   f"write ≈ {right} {product.unit} (the run file or the reference changed since the page was written).",
                   where)


def _arg(term: tuple[tuple[str, str], tuple[str, str]]) -> str:
    return next(t for k, t in term if k == "run-arg")


def _ref(term: tuple[tuple[str, str], tuple[str, str]]) -> str:
    return next(t for k, t in term if k == "reference")


def time_product_problems(capture: Any, rel: str, prose: str) -> list[Problem]:
    """Each product on a page that does not hold, at its page and line."""
    return [p for p in (product_problem(capture, rel, prod) for prod in products(prose)) if p is not None]


# ---------------------------------------------------------------- numbers in commands, ≈ values, quantities in words

REVIEWED = "capture/reviewed-numbers.json"
#: The reviewed list's cap: a list a reviewer reads whole.
MAX_BYTES = 200_000
_NUMBER = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[kKmMgGtT]?"
#: An option's value (`--flag N`, `--flag=N`, `-n N`) and an assignment's (`NAME=N`), a whole word each.
OPTION = re.compile(rf"(?<![\w-])(?P<option>--?[A-Za-z][\w-]*)(?:=|[ \t]+)(?P<value>{_NUMBER})(?![\w.:/-])")
ASSIGNMENT = re.compile(rf"(?<![\w./-])(?P<option>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>{_NUMBER})(?![\w.:/-])")
#: `≈` and a number after it (a role after `≈` is a cited value).
APPROX = re.compile(r"≈\s*(?P<figure>\d[\d,]*(?:\.\d+)?)")
#: Number words, by value ("a hundred" is 100; "hundreds" too, as a floor).
NUMBER_WORDS = {w: i for i, w in enumerate("two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                                           "fifteen sixteen seventeen eighteen nineteen twenty".split(), 2)}
NUMBER_WORDS |= {w: 10 * i for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)}
NUMBER_WORDS |= {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
#: Nouns of hardware and run length, singular: a number word before one (a word may stand between, and the noun may
#: be a glossary term, "two {term}`rollouts <rollout>`") is a quantity.
QUANTITY = ("gpu", "node", "engine", "card", "machine", "host", "step", "rollout", "sample", "prompt", "token", "seed",
            "epoch", "layer", "parameter", "response", "hour", "minute", "second", "day", "gb", "gib", "byte")
_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
#: A number word, then (one word may stand between) a quantity's noun: found in two steps, the word first (fast).
NUMBER_WORD = re.compile(rf"\b(?:{_WORD})s?\b")  # over the lowered prose (its places kept): fast, no re.I
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
NOUN_AFTER = re.compile(rf"[\s-]+(?:[\w-]+\s+)?(?:\{{term\}}`)?(?P<noun>(?:{'|'.join(QUANTITY)})s?)(?![\w-])", re.I)
#: A citation the reader can follow, in the same sentence as a quantity in words.
CITED = re.compile(r"\{(?:issue|src|reference|fact|measured|computed|run-arg|default|threshold|crosscheck)\}`|\]\(https?:")
COMMAND_FIX = ("list it in " + REVIEWED + " under \"commands\" with its source: \"run-arg\" (the run files it must "
               "equal, e.g. \"first-grpo --num-rollout\"), \"src\", \"url\" or \"book\" (the book's own choice), and "
               "\"why\"; in prose, cite a run file's setting as {run-arg} instead")


@dataclass(frozen=True)
class Reviewed:
    """The reviewed list: (option, value) → its entry, and ≈ entries by (page, text); `problems` if it is broken."""

    commands: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    approx: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    words: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()

    def digest(self, key: str) -> str:
        """A content hash of the entry a page used (`option value` or `page ≈ text`): the build's dependency."""
        if key.startswith("words "):
            entry = self.words.get(tuple(key.split(" ")[1:3]))
        else:
            entry = self.commands.get(tuple(key.split(" ", 1))) or self.approx.get(tuple(key.split(" ≈ ", 1)))
        return hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:16]


def _bad(path: str, message: str, fix: str = "correct the entry (the file's \"about\" says what each holds).") -> Problem:
    return Problem(Subtype.CAPTURE, message, fix, path)


#: The reviewed list's lists of entries.
LISTS = ("commands", "approx", "words")


def _entries(raw: bytes, capture: Any) -> dict[str, list[tuple[int, dict[str, Any]]]]:
    """Each list's (index, entry), less the entries its schema refuses: the schema is the list's one structure check,
    and the validation (`miles101.validate`, in both gates) names each refused entry at its JSON path. A list the
    validation found clean in this intake (the same bytes: `Capture.clean`) is read as it is, no validator imported."""
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}  # not JSON: the validation names it
    refused: set[tuple[Any, ...]] = set()
    if capture is None or (getattr(capture, "clean", None) or {}).get(REVIEWED) != hashlib.sha256(raw).hexdigest():
        from .schemas import schema_dir, schema_name_for, validator  # jsonschema: only for a list that changed or failed

        name = schema_name_for(REVIEWED)  # its capture-file row's schema
        errors = validator(name, (schema_dir() / name).read_text(encoding="utf-8")).iter_errors(doc)
        refused = {tuple(e.absolute_path)[:2] for e in errors}
    if not isinstance(doc, dict):
        return {}
    return {key: [(i, e) for i, e in enumerate(doc.get(key) or []) if (key, i) not in refused]
            for key in LISTS if (key,) not in refused}


def load_reviewed(root: Path, capture: Any = None) -> Reviewed:
    """Read the reviewed list (missing: empty). Its structure is its schema's to check (both gates report it, once);
    here only what a schema cannot say: a size a reviewer can read, a `src` line at the captured commit, a number
    listed twice, words that are a number word and its noun. Each is a problem at its JSON path."""
    path = root / REVIEWED
    if not os.path.lexists(path):
        return Reviewed()
    restore = f"restore it from git (`git checkout -- {REVIEWED}`)"
    try:  # a regular file inside the project, never a FIFO (miles101.strict)
        raw = read_bytes(path, REVIEWED, root, restore)
    except ProblemError:
        return Reviewed()  # the validation names it (the same strict reader)
    if len(raw) > MAX_BYTES:
        return Reviewed(problems=(_bad(REVIEWED, f"it holds {len(raw)} bytes, more than a list of {MAX_BYTES} bytes "
                                       "a reviewer can read.", f"keep it short (cite with roles), or {restore}."),))
    entries = _entries(raw, capture)
    commands, approx, words, problems = {}, {}, {}, []
    for i, entry in entries.get("commands", []):
        where = f"{REVIEWED}:$.commands[{i}]"
        if capture is not None and entry.get("src"):
            why = capture.src_spec_problem(str(entry["src"]))
            if why:
                problems.append(_bad(where + ".src", why, "cite a Miles file and line at the captured commit."))
        for j, value in enumerate(entry["values"]):
            if (entry["option"], str(value)) in commands:  # the later entry would win without a word
                problems.append(_bad(f"{where}.values[{j}]", f"{entry['option']} {value} is listed twice.",
                                     "keep one entry for it (merge their run-arg lists)."))
            commands[entry["option"], str(value)] = entry
    for _, entry in entries.get("approx", []):
        approx[entry["page"], entry["text"]] = entry
    for i, entry in entries.get("words", []):
        key = words_key(entry["words"])
        if key is None:
            problems.append(_bad(f"{REVIEWED}:$.words[{i}].words", f"{json.dumps(entry['words'])} is no number word "
                                 "before a noun of hardware or run length.", "write the words as the page has them, "
                                 "e.g. \"eight GPUs\" or \"two rollouts\"."))
            continue
        words.setdefault(key, []).append(entry)
    return Reviewed(commands, approx, words, tuple(problems))


def words_key(text: str) -> tuple[str, str] | None:
    """("eight", "gpu") for "eight GPUs", "eight-GPU node" or "an eight H200 GPUs": the number word and the noun."""
    found = next(quantities(text), None)
    if found is None:
        return None
    number, noun = found[1].lower(), found[2]["noun"].lower()
    return number.removesuffix("s") if number.removesuffix("s") in NUMBER_WORDS else number, noun.removesuffix("s")


def quantities(prose: str) -> Iterator[tuple[int, str, re.Match[str]]]:
    """(start, number word, its noun's match) of each quantity in words: a number word, then a QUANTITY noun."""
    lowered = prose.lower()
    if len(lowered) != len(prose):  # a character whose lower case is longer ("İ"): keep the places
        lowered = prose.translate(_ASCII_LOWER)
    for m in NUMBER_WORD.finditer(lowered):
        if m.start() and prose[m.start() - 1] == "-":  # "one-to-two" and "sm-ten" are not quantities
            continue
        noun = NOUN_AFTER.match(prose, m.end())
        if noun:
            yield m.start(), prose[m.start():m.end()], noun


@dataclass(frozen=True)
class Used:
    """What a page's numbers rest on, for the build's dependencies: reviewed entries and run files."""

    entries: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def command_numbers(command: Command) -> list[tuple[str, str]]:
    """(option, value) of each number a command passes."""
    return [(m["option"], m["value"]) for rx in (OPTION, ASSIGNMENT) for m in rx.finditer(command.text)]


def _command_problems(capture: Any, rel: str, commands: list[Command], reviewed: Reviewed, used: Used) -> list[Problem]:
    out = []
    for command in commands:
        for option, value in command_numbers(command):
            where = f"{rel}:{command.line}"
            entry = reviewed.commands.get((option, value))
            if entry is None:
                listed = [e for (o, _), e in reviewed.commands.items() if o == option]
                held = listed[0] if listed and all(e.get("run-arg") for e in listed) else None
                if held is not None:  # the option is only ever a run file's setting: say which value it must be
                    shown = [resolve(capture, "run-arg", t) for t in held["run-arg"]]
                    now = ", ".join(f"{t} is {r.value}" for t, r in zip(held["run-arg"], shown) if not isinstance(r, Problem))
                    out.append(Problem(Subtype.BAD_REFERENCE, f"`{option} {value}` is not what the run files say "
                                       f"({REVIEWED} holds {option} to them: {now}).",
                                       f"write the run file's value, or list {option} {value} with its own source: "
                                       + COMMAND_FIX + ".", where))
                    continue
                out.append(Problem(Subtype.BAD_REFERENCE, f"the number {value} in the command `{option} {value}` is typed "
                                   "by hand.", COMMAND_FIX + ".", where))
                continue
            used.entries.append(f"{option} {value}")
            for text in entry.get("run-arg") or []:
                result = resolve(capture, "run-arg", text)
                used.runs.append(text.partition(" ")[0])
                shown = result.value if not isinstance(result, Problem) else None
                if shown != value:
                    now = f"is {shown}" if shown is not None else f"cannot be read ({result.message})"
                    out.append(Problem(Subtype.BAD_REFERENCE, f"`{option} {value}` comes from {{run-arg}}`{text}` "
                                       f"({REVIEWED}), which {now}.",
                                       f"write `{option} {shown}` here and in the list, or name the run the command "
                                       "reads." if shown is not None else "fix the entry's run-arg.", where))
    return out


def _approx_problems(rel: str, prose: str, reviewed: Reviewed, used: Used) -> list[Problem]:
    """Each `≈ N` that is no product the gates recompute and that the reviewed list does not name."""
    spans = [(p.start, p.end) for p in products(prose)]
    out = []
    for m in APPROX.finditer(prose):
        if any(s <= m.start() < e for s, e in spans):
            continue
        text = " ".join(prose[max(0, m.start() - 40):m.end() + 12].split())
        entry = next((k for k in reviewed.approx if k[0] == rel and k[1] in text), None)
        if entry is not None:
            used.entries.append(f"{entry[0]} ≈ {entry[1]}")
            continue
        out.append(Problem(Subtype.BAD_REFERENCE, f"≈ {m['figure']} is typed by hand (“{text}”).",
                           "cite the value after ≈ with a role ({computed}, {reference}, ...), write it as a product the "
                           "gates recompute ({run-arg} × {reference} ≈ N min), or list it in " + REVIEWED +
                           " under \"approx\" with its page, text and source.", f"{rel}:{line_of(prose, m.start())}"))
    return out


def _sentence(prose: str, start: int, end: int) -> str:
    """The sentence around prose[start:end]: from the last sentence end or blank line before it to the next after."""
    before = max(prose.rfind(". ", 0, start), prose.rfind(".\n", 0, start), prose.rfind("\n\n", 0, start))
    after = [i for i in (prose.find(". ", end), prose.find(".\n", end), prose.find("\n\n", end)) if i >= 0]
    return prose[before + 1:min(after) if after else len(prose)]


def _words_problems(capture: Any, rel: str, prose: str, reviewed: Reviewed, used: Used) -> list[Problem]:
    """Each quantity in words with no citation in its sentence and no reviewed entry for its page."""
    out = []
    for start, _, noun in quantities(prose):
        if re.search(r"\bfew\s*$", prose[max(0, start - 8):start], re.I) or CITED.search(_sentence(prose, start, noun.end())):
            continue
        phrase = prose[start:noun.end()]
        key = words_key(phrase)
        shown, where = " ".join(phrase.split()), f"{rel}:{line_of(prose, start)}"
        entry = next((e for e in reviewed.words.get(key, []) if rel in e.get("pages", [rel])), None)
        if entry is None:
            out.append(Problem(Subtype.BAD_REFERENCE, f"“{shown}” is a quantity in words with no citation in its sentence.",
                               "cite where it comes from in the sentence ({run-arg}, a value role, {src}, {issue}), or "
                               f"list it in {REVIEWED} under \"words\" with this page, its source and why.", where))
            continue
        used.entries.append(f"words {key[0]} {key[1]}")
        number = NUMBER_WORDS.get(key[0])
        for text in entry.get("run-arg") or []:
            result = resolve(capture, "run-arg", text)
            used.runs.append(text.partition(" ")[0])
            if isinstance(result, Problem) or _as_int(result.value) != number:
                now = result.message if isinstance(result, Problem) else f"is {result.value}"
                out.append(Problem(Subtype.BAD_REFERENCE, f"“{shown}” comes from {{run-arg}}`{text}` ({REVIEWED}), "
                                   f"which {now}.", "write the run file's value (or cite it with {run-arg}).", where))
    return out


def _as_int(text: str) -> int | None:
    return int(text) if str(text).isdigit() else None


def page_number_problems(capture: Any, rel: str, text: str, reviewed: Reviewed, used: Used | None = None) -> list[Problem]:
    """Every number rule over one page (`rel`, its Markdown): time products, `≈` values, quantities in words,
    numbers in commands."""
    used = used if used is not None else Used()
    prose, commands = split(text)
    return [*time_product_problems(capture, rel, prose), *_approx_problems(rel, prose, reviewed, used),
            *_words_problems(capture, rel, prose, reviewed, used),
            *_command_problems(capture, rel, commands, reviewed, used)]


def book_number_problems(capture: Any, root: Path, pages: list[tuple[str, str]]) -> list[Problem]:
    """The reviewed list's own problems, then each page's, in book order: what `--check` reports."""
    reviewed = load_reviewed(root, capture)
    return [*reviewed.problems, *(p for rel, text in pages for p in page_number_problems(capture, rel, text, reviewed))]
