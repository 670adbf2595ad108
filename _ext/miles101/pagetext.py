"""A page's Markdown split into its prose and its commands, lines kept, for the number rules of both gates.

`prose(text)` is the page with code blanked out (fenced code blocks and inline code become spaces, line
breaks kept), so a rule's regex over it finds only running text and reports the page's own line numbers;
roles stay as written ({run-arg}`first-grpo --num-rollout`). `commands(text)` gives each line of a shell
code block and each inline code span, with its line: where a reader copies a command from. A line scan,
not a Markdown parse, so `--check` stays fast (`miles101.markup` tokenizes only suspect pages for the same reason).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .pages import ANY_ROLE

#: Code block languages whose lines are commands a reader types.
SHELL = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session"})
#: Directives written as backtick fences whose body is code, not prose ({flag}'s body, a {glossary}, are prose).
CODE_DIRECTIVES = frozenset({"diagram", "math", "code-block", "code", "sourcecode", "listing"})
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(?:\{(?P<directive>[\w-]+)\}\s*(?P<argument>[\w+-]*)|(?P<lang>[\w+-]*))")
#: Directives whose argument is the code's language (```{code-block} bash).
CODE_WITH_LANGUAGE = frozenset({"code-block", "code", "sourcecode"})
#: A role (kept: it is prose) or an inline code span (blanked, and a command).
_INLINE = re.compile(ANY_ROLE.pattern + r"|(?P<cticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=cticks)(?!`)", re.S)


@dataclass(frozen=True)
class Command:
    """A line of a shell code block, or an inline code span: its text and its page line."""

    line: int
    text: str
    block: bool  # a line of a code block (True) or an inline span (False)


def _blank(text: str) -> str:
    """Spaces in place of `text`, its line breaks kept."""
    return "\n".join(" " * len(part) for part in text.split("\n"))


def split(text: str) -> tuple[str, list[Command]]:
    """(the prose with every code blanked, the commands): one pass over the lines, then one over the prose."""
    kept: list[str] = []
    commands: list[Command] = []
    marker, kind = "", ""  # the open fence's backticks or tildes, and what its body is: code, shell or prose
    for number, line in enumerate(text.split("\n"), 1):
        m = _FENCE.match(line)
        if marker:
            if m and m[1][0] == marker[0] and len(m[1]) >= len(marker) and not line.strip()[len(m[1]):].strip():
                marker = ""
                kept.append("")
            elif kind == "prose":  # a directive whose body is Markdown
                kept.append(line)
            else:
                if kind == "shell" and line.strip():
                    commands.append(Command(number, line.strip(), True))
                kept.append(_blank(line))
            continue
        if m:
            marker = m[1]
            language = m["argument"] if m["directive"] in CODE_WITH_LANGUAGE else m["lang"]
            if m["directive"] and m["directive"] not in CODE_DIRECTIVES:
                kind = "prose"
            else:
                kind = "shell" if (language or "").lower() in SHELL else "code"
            kept.append(_blank(line))
            continue
        kept.append(line)
    return _inline("\n".join(kept), commands)


def _inline(body: str, commands: list[Command]) -> tuple[str, list[Command]]:
    out, last, line = [], 0, 1
    for m in _INLINE.finditer(body):
        if m["code"] is None:
            continue
        out += [body[last:m.start()], _blank(m[0])]
        line += body.count("\n", last, m.start())  # counted from the last span on: one pass over the page
        commands.append(Command(line, m["code"], False))
        line += m[0].count("\n")
        last = m.end()
    out.append(body[last:])
    return "".join(out), sorted(commands, key=lambda c: c.line)


def line_of(text: str, index: int) -> int:
    """The 1-based line of character `index` of `text`."""
    return text.count("\n", 0, index) + 1
