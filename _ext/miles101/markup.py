"""What a page may not hold, found the same way by the build and by `capture/run.py --check`.

- Raw HTML: off. An HTML tag or block in a page (outside code) is refused, and the build escapes
  it, so it shows as text and never runs (`<img onerror=...>`). AUTHORING.md says so.
- An unclosed role: {flag}`--x with no closing backtick reaches the reader as raw text.
- Directive options that must be a number, a range, a pattern or a shell word
  (`directive_option_problems`), checked whether or not the run they cite is recorded.

Pages are tokenized with MyST-Parser's own Markdown parser (the build's), and only a page whose
text hints at HTML or a role left open is tokenized, so `--check` stays fast.
"""
from __future__ import annotations

import re
from dataclasses import replace
from functools import cache, lru_cache
from typing import Any

from .pages import ANY_ROLE
from .problems import Problem, ProblemError, Subtype
from .registry import DIRECTIVES, FENCE
from .strict import parse_yaml_bytes, read_bytes

#: Something that may start HTML: `<tag`, `</tag`, `<!--`, `<?`.
_HTML_HINT = re.compile(r"<[A-Za-z/!?]")
#: The start of a role: `{name}` and a backtick.
_ROLE_START = re.compile(r"\{[a-z][\w-]*\}`")
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")

#: Most problems reported one by one for a page; the rest are counted.
MAX_LISTED = 20
HTML_FIX = ("write it in Markdown, or put it in backticks to show it as code; raw HTML is off in this book "
            "(AUTHORING.md)")
ROLE_FIX = "close the role with a backtick on the same paragraph: {kind}`text`"


@cache
def _parser() -> Any:
    # MyST's own parser, deferred on purpose: `--check` and the build load this module, and only a page
    # with something to check needs the parser.
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    return create_md_parser(MdParserConfig(enable_extensions={"colon_fence", "deflist", "fieldlist"}), RendererHTML)


def _strip_fences(text: str) -> str:
    """The text without its fenced code blocks, in one pass over the lines (linear, whatever the page holds)."""
    kept: list[str] = []
    fence = ""
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if fence:
            if m and m[1][0] == fence[0] and len(m[1]) >= len(fence) and not line.strip()[len(m[1]):].strip():
                fence = ""
        elif m:
            fence = m[1]
        else:
            kept.append(line)
    return "\n".join(kept)


def _suspect(text: str) -> bool:
    """Whether the text, code and roles left out, hints at HTML or an open role (cheap, before tokenizing)."""
    rest = _CODE_SPAN.sub("", ANY_ROLE.sub("", _strip_fences(text)))
    return bool(_HTML_HINT.search(rest) or _ROLE_START.search(rest))


@lru_cache(maxsize=4)
def _refused(text: str) -> tuple[tuple[int, str, str], ...]:
    """(line, what, detail) of each raw HTML token ("html", its source) and open role ("role", `{kind}`) in a page."""
    if not _suspect(text):
        return ()
    out: list[tuple[int, str, str]] = []

    def walk(tokens: list[Any], line: int) -> None:
        for tok in tokens:
            at = tok.map[0] + 1 if tok.map else line
            if tok.type in ("html_block", "html_inline"):
                out.append((at, "html", tok.content))
            elif tok.type == "text":
                m = _ROLE_START.search(tok.content)
                if m:
                    out.append((at, "role", m[0]))
            if tok.children:
                walk(tok.children, at)

    walk(_parser().parse(text), 1)
    return tuple(out)


def markup_problems(text: str, rel: str) -> list[Problem]:
    """Raw HTML and unclosed roles in the Markdown of page `rel`, each at its line (`rel:line`)."""
    out: list[Problem] = []
    for line, what, detail in _refused(text):
        if what == "html":
            shown = detail.strip().splitlines()[0][:60] if detail.strip() else detail
            out.append(Problem(Subtype.MARKUP, f"raw HTML {shown!r} in the page.", HTML_FIX, f"{rel}:{line}"))
        else:
            out.append(Problem(Subtype.MARKUP, f"the role {detail} is not closed, so the reader would see it raw.",
                               ROLE_FIX.replace("{kind}", detail[:-1]), f"{rel}:{line}"))
    return out


def listed(problems: list[Problem]) -> list[Problem]:
    """The problems to report: the first MAX_LISTED, then one line counting the rest (a page full of tags)."""
    if len(problems) <= MAX_LISTED:
        return problems
    rest = problems[MAX_LISTED]
    return [*problems[:MAX_LISTED], replace(rest, message=f"and {len(problems) - MAX_LISTED} more problem(s) like "
                                            "these in this page, from here on.")]


def escape_html(text: str) -> str:
    """The page with each refused HTML tag escaped in place (`<` as `&lt;`), so it shows as text; lines kept."""
    lines = text.split("\n")
    for line, what, html in _refused(text):
        if what != "html":
            continue
        for i in range(line - 1, min(len(lines), line - 1 + html.count("\n") + 1)):
            lines[i] = lines[i].replace("<", "&lt;")
    return "\n".join(lines)


# --------------------------------------------------------------------------- directive options


def _range_problem(value: str) -> str | None:
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", value)
    if not m:
        return f"{value!r} is not a line or a range of lines (write 5 or 3-8)"
    start, end = int(m[1]), int(m[2] or m[1])
    if start < 1:
        return f"{value!r} starts at line {start}; lines count from 1"
    if end < start:
        return f"{value!r} is reversed (its end is before its start)"
    return None


def shell_hazard(text: str) -> str | None:
    """What in a shell fragment could start another command, or None.

    A {run-command} option is shell the author writes (a `ray job submit` line, `2>&1 | tee log`):
    words, quotes, pipes and redirections pass; a `;`, `&&`, `||`, a background `&`, a subshell,
    a command substitution (`$(...)`, backticks), a comment or an unclosed quote is refused.
    """
    quote, i = "", 0
    while i < len(text):
        c, nxt, prev = text[i], text[i + 1: i + 2], text[i - 1: i] if i else ""
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            i += 1
        elif c == "`" or text.startswith("$(", i):
            return "a command substitution (`...` or $(...))"
        elif quote == '"':
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c == ";" or text.startswith(("&&", "||"), i):
            return f"a command separator ({text[i:i + 2].strip() if c != ';' else ';'})"
        elif c == "&" and prev not in "<>" and nxt != ">":
            return "a background '&'"
        elif c in "()":
            return "a subshell parenthesis"
        elif c == "#" and (not prev or prev.isspace()):
            return "a '#' that comments out the rest of the line"
        i += 1
    return "an unclosed quote" if quote else None


def directive_option_problems(name: str, options: dict[str, str], where: str = "") -> list[Problem]:
    """Each option of a data directive that cannot be right, whatever the data says (at `where`, the page's line)."""
    out: list[tuple[str, str]] = []
    if name == "listing":
        if "lines" in options:
            why = _range_problem(options["lines"])
            if why:
                out.append((f":lines: {why}.", "give :lines: a line number or a range like 3-8, start 1 or more."))
        if "head" in options and not re.fullmatch(r"\s*[1-9]\d*\s*", options["head"]):
            out.append((f":head: {options['head']!r} is not a positive whole number.", "give :head: a number like 5."))
        if "grep" in options:
            try:
                re.compile(options["grep"])
            except re.error as exc:
                out.append((f"bad :grep: pattern ({exc}).", "fix the regular expression."))
    takes = DIRECTIVES[name].options if name in DIRECTIVES else None
    if takes is not None:  # the directive's own options (the registry's; its option_spec, a test holds them equal)
        for key in sorted(set(options) - set(takes)):
            out.append((f"has no option :{key}:.", f"use one of {', '.join(f':{k}:' for k in takes)}, "
                        "or remove the line."))
    if name == "run-command":
        for key in ("prefix", "program", "suffix"):
            value = options.get(key)
            why = shell_hazard(value) if value else None
            if why:
                out.append((f":{key}: {value.strip()[:60]!r} holds {why}; pasted into the copyable command it "
                            "could run something else.",
                            f"keep :{key}: to words, quotes, pipes and redirections, or write that step as its own block."))
    return [Problem(Subtype.BAD_FORMAT, f"{{{name}}} {message}", fix, where) for message, fix in out]


def directive_options(text: str) -> list[tuple[int, str, str, dict[str, str]]]:
    """(line, directive name, argument, options) of each fenced directive in a page (options as written)."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if not m:
            continue
        options: dict[str, str] = {}
        if i + 1 < len(lines) and lines[i + 1].strip() == "---":  # options as a YAML block
            end = next((j for j in range(i + 2, len(lines)) if lines[j].strip() == "---"), None)
            if end is not None:
                try:
                    block = parse_yaml_bytes("\n".join(lines[i + 2:end]).encode(), "options")
                except ProblemError:
                    block = None  # MyST names a broken options block itself
                if isinstance(block, dict):
                    options = {str(k): "" if v is None else str(v) for k, v in block.items()}
        for nxt in lines[i + 1:]:
            o = _OPTION.match(nxt)
            if not o:
                break
            options[o["key"]] = o["value"].strip()
        found.append((i + 1, m["name"], m["args"].strip(), options))
    return found


def page_problems(text: str, rel: str) -> list[Problem]:
    """Everything this module refuses in page `rel`: markup, then directive options."""
    out = markup_problems(text, rel)
    for line, name, _arg, options in directive_options(text):
        out += directive_option_problems(name, options, f"{rel}:{line}")
    return listed(out)


def _listing_problem(run_id: str, message: str, fix: str) -> Problem:
    return Problem(Subtype.BAD_FORMAT, f"{{listing}} {run_id}: {message}", fix)


def listing_lines(root: Any, run_id: str, options: dict[str, str]) -> tuple[list[str], Problem | None]:
    """The lines a {listing} of a recorded run shows, or ([], the problem) when its options cannot be met.

    The build renders these lines; `--check` asks the same question, so both refuse the same listing.
    """
    bad = directive_option_problems("listing", options)
    if bad:
        return [], bad[0]
    log = f"capture/gpu/{run_id}/log.txt"
    try:
        raw = read_bytes(root / log, log, root, f"restore it from git, or record {run_id} again")
    except ProblemError as exc:
        return [], _listing_problem(run_id, f"{exc.problem.where}: {exc.problem.message}", exc.problem.fix)
    lines = raw.decode("utf-8", "replace").splitlines()
    if "grep" in options:
        pattern = re.compile(options["grep"])
        lines = [ln for ln in lines if pattern.search(ln)]
    if "lines" in options:
        start, _, end = options["lines"].strip().partition("-")
        first, last = int(start), int(end or start)
        if last > len(lines):
            return [], _listing_problem(run_id, f":lines: {options['lines']} is past the end of {log} ({len(lines)} "
                                        f"line(s){' matching :grep:' if 'grep' in options else ''}).",
                                        "give :lines: a range inside the log.")
        lines = lines[first - 1: last]
    if "head" in options:
        lines = lines[: int(options["head"])]
    if not lines:
        return [], _listing_problem(run_id, f"the options leave no line of {log} to show.",
                                    "fix :grep:, :lines: or :head: so the listing shows the lines it is about.")
    return lines, None
