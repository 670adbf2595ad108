"""The book's markup, registered once: each role and directive, what it cites, how its argument is read.

The page scanner (`miles101.pages`), the markup rules (`miles101.markup`), the drift report and
`capture/run.py --check` read these rows; the extension's components register a class for each name
(their `ROLES`/`DIRECTIVES`), and a unit test (tests/test_registry.py) holds every name to a class.
The roles are the kinds table's (`miles101.kinds`, a kind with `role`). AUTHORING.md's table of directives
is written from these rows (`python3 dev.py authoring`), and tests/test_snippets.py builds each directive's
`example`. No Sphinx imports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .kinds import KINDS, VALUE_KINDS

#: How an argument is read.
KEY_AND_SPEC = "key[:format spec]"  # a value role: the key, then an optional Python format spec
PATH_AND_LINES = "path[:lines]"  # {src}: `path:1-9` or `text <path:1-9>`
TEXT = "text"  # the whole text names the thing
WORD = "one word"  # a citing directive: exactly one argument, the key
ANY = "as the directive reads it"  # a directive that cites nothing: its own arguments, if any


@dataclass(frozen=True)
class Markup:
    """One role or directive of the book."""

    name: str
    form: str  # "role" | "directive"
    cites: str | None  # the reference kind its argument names (a role: its own kind), or None
    argument: str  # how the argument is read (KEY_AND_SPEC, PATH_AND_LINES, TEXT, WORD, ANY)
    options: tuple[str, ...] | None = None  # the options it takes: `--check` refuses any other (None: not checked)
    example: str = ""  # a directive as AUTHORING.md shows it, after `{name}`: argument, options, body ("": bare)


def _role(name: str) -> Markup:
    argument = PATH_AND_LINES if name == "src" else KEY_AND_SPEC if name in VALUE_KINDS else TEXT
    return Markup(name, "role", name, argument)


def _directive(name: str, cites: str | None = None, options: tuple[str, ...] | None = None,
               example: str = "") -> Markup:
    return Markup(name, "directive", cites, WORD if cites else ANY, options, example)


#: Every role, in the kinds table's order.
ROLES: dict[str, Markup] = {k.name: _role(k.name) for k in KINDS if k.role}

#: Every directive.
DIRECTIVES: dict[str, Markup] = {m.name: m for m in (
    _directive("flag", "flag", example=" --colocate\nYour own description of what the flag does and when to set it."),
    _directive("listing", "run", ("grep", "head", "lines"), " first-grpo\n:grep: ^(step|rollout) \\d+:\n:head: 8"),
    _directive("run-command", "run", ("prefix", "program", "suffix", "start-ray"), " first-grpo"),
    _directive("until-recorded", "run", example=" first-grpo\nNo run has been recorded on a GB10 yet."),
    _directive("once-recorded", "run", example=" first-grpo\nThe values on this page come from that run on a GB10."),
    _directive("fit-compare", "measured", example=" model-size-sweep.used_after_wake_up\n:model: qwen3-4B\n:term: trainer"),
    _directive("run-plot", "run", ("metric", "id", "title", "meaning"),
               " first-grpo\n:metric: rollout/raw_reward\n:id: fig-first-grpo-reward\n:title: Raw reward per step\n"
               "What to notice, in your words."),
    _directive("series-plot", "series", ("metric", "id", "title", "meaning"),
               " verl-gsm8k-qwen2.5-0.5b-ppo\n:metric: critic/score/mean\n:id: fig-verl-ppo-score\n"
               ":title: Mean score per step, a public verl PPO run\nWhat to notice, in your words."),
    _directive("tools-download", None, ("into",), "\n:into: ~/miles-logs"),
    _directive("diagram", example=" fig-grpo-step-timeline\n:title: Who holds the GPU during one step\n"
                                  ":caption: What to notice: the engine sleeps while the trainer computes.\n\n"
                                  "flowchart TB\n  T[FSDP trainer]:::trainer --> E[SGLang engine]:::engine"),
    _directive("fit-calculator", example="\n:model: qwen3-4B\n:run: model-size-sweep"),
    _directive("crosscheck-table", example=" h200"),
    _directive("book-plate", example="\nflowchart TB\n  T[trainer]:::trainer --> E[engine]:::engine"),
    *(_directive(name) for name in (
        "pin", "log-doctor", "compare-run", "crosscheck-uncovered", "book-cover", "book-audience",
        "book-outcomes", "book-parts", "book-palette", "book-related", "value-kinds", "flags-by-job",
        "metrics-table", "lab-notes", "sources-list", "figure-index", "compare-image-sample", "gb10-build")),
)}

#: The one directive-fence syntax: ```{name} args or :::{name} args (any indent, three or more marks).
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}(?P<gap>\s*)(?P<args>.*)$")


def directive_citation(line: str) -> tuple[Markup, str] | None:
    """(the directive, its argument) when `line` opens a directive that cites data by one word, else None."""
    m = FENCE.match(line.strip())
    row = DIRECTIVES.get(m["name"]) if m else None
    if row is None or row.cites is None or not m["gap"]:
        return None
    arg = m["args"].rstrip()
    return (row, arg) if re.fullmatch(r"\S+", arg) else None
