"""Block directives: flag, listing, run-command, until-recorded / once-recorded and pin (figures: `figures`)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

from ..markup import directive_option_problems as option_problems
from ..markup import listing_lines
from ..problems import Problem, broken_sources
from ..resolve import resolve
from ..runfiles import launch_script, ray_start
from ..text import record_command
from .repository import record_yourself, repository_url
from .domain import book_of, capture_of, domain_of, flag_anchor
from .messages import warn
from .elements import Fact, flag_facts

class ManualDirective(SphinxDirective):
    """Shared helpers for dependency notes and counted problems."""

    def note(self, kind: str, key: str) -> None:
        domain_of(self.env).note_dep(self.env.docname, kind, key, capture_of(self.env).fingerprint_of(kind, key))

    def problem(self, subtype: str, message: str, fix: str) -> list[nodes.Node]:
        kind = {"unknown_flag": "flag", "unknown_metric": "metric"}.get(str(subtype))
        if kind not in broken_sources(capture_of(self.env)):  # else a follow-on of a broken file, named once
            warn(subtype, message, location=self.get_location(), fix=fix)
        domain_of(self.env).note_problem(self.env.docname)
        return []


def _show(value: object) -> str:
    """A default as Python would print it: None stays None, strings stay bare."""
    return "None" if value is None else value if isinstance(value, str) and value else json.dumps(value)


def flag_fields(rec: dict, capture) -> list[Fact]:
    """The facts of one flag record, each a `Fact(label, text, code, href)`."""
    where = Fact("Defined at", f"{rec['file']}:{rec['line']}", href=capture.src_url(rec["file"], rec["line"]))
    if rec.get("passthrough"):
        return [Fact("Passed through", f"to the engine's own option (prefix {rec['passthrough']})"), where]
    if rec.get("default_kind") == "computed":
        shown = f"computed: {rec.get('default_expr') or 'at run time'}"
    elif rec.get("required"):
        shown = "required"
    else:
        shown = _show(rec.get("default"))
    facts = [Fact("Default", shown, code=True)]
    if rec.get("type"):
        facts.append(Fact("Type", str(rec["type"])))
    if rec.get("action") and rec["action"] != "store":
        facts.append(Fact("Action", str(rec["action"])))
    if rec.get("choices"):
        facts.append(Fact("Choices", ", ".join(map(str, rec["choices"])), code=True))
    if rec.get("aliases"):
        facts.append(Fact("Also", ", ".join(rec["aliases"]), code=True))
    facts.append(Fact("Backend", rec.get("backend") or "both"))
    if rec.get("conditional"):
        facts.append(Fact("Only", rec["conditional"]))
    return [*facts, where]


class FlagDirective(ManualDirective):
    """```{flag} --name``` documents a flag: its extracted facts and the author's text."""

    has_content = True
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0].strip()
        capture = capture_of(self.env)
        self.note("flag", name)
        result = resolve(capture, "flag", name)
        if isinstance(result, Problem):
            return self.problem(result.subtype, result.message, result.fix)
        records, canonical = result.value, result.extra["canonical"]
        record = domain_of(self.env).record(self.env.docname)
        if canonical in record["flags"]:
            return self.problem("duplicate", f"the flag {canonical} is documented twice on this page.",
                                "keep one block and use {flag} inline elsewhere.")
        anchor = flag_anchor(canonical)
        record["flags"][canonical] = anchor
        box = nodes.container(classes=["m101-flag-block"], ids=[anchor])
        box += nodes.paragraph("", "", nodes.literal(canonical, canonical, classes=["m101-flag-name"]))
        for rec in records:
            box += flag_facts("", facts=flag_fields(rec, capture))
        body = nodes.container(classes=["m101-flag-text"])
        self.state.nested_parse(self.content, self.content_offset, body)
        box += body
        domain_of(self.env).note_cite(self.env.docname, "flag", canonical, documented=True)
        return [box]


class ListingDirective(ManualDirective):
    """```{listing} run-id``` a slice of a recorded log; a pending box until it is recorded."""

    has_content = False
    required_arguments = 1
    option_spec: ClassVar = {"grep": directives.unchanged, "head": directives.unchanged,
                             "lines": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        run_id = self.arguments[0].strip()
        capture = capture_of(self.env)
        self.note("run", run_id)
        result = resolve(capture, "run", run_id)
        if isinstance(result, Problem):
            return self.problem(result.subtype, result.message, result.fix)
        bad = option_problems("listing", self.options)  # checked while the run is pending too
        if bad:
            return self.problem("bad_format", f"{{listing}} {bad[0][0]}", bad[0][1])
        recording = capture.recordings.get(run_id)
        if recording is None:
            box = nodes.container(classes=["m101-listing", "m101-pending-box"])
            box += nodes.paragraph(
                "", "", nodes.inline("", "pending", classes=["m101-badge"]),
                nodes.Text(f" This listing comes from the run {run_id}, which the author records on a DGX Spark; "
                           "it shows here once the run is recorded."),
                *record_yourself(run_id, repository_url(self.config)))
            return [box]
        lines, why = listing_lines(capture.root, run_id, self.options)
        if why:
            return self.problem("bad_format", f"{{listing}} {run_id}: {why[0]}", why[1])
        text = "\n".join(lines)
        block = nodes.literal_block(text, text, classes=["m101-listing"])
        block["language"] = "text"
        return [block]


class RunCommandDirective(ManualDirective):
    """```{run-command} run-id```: the reader's whole launch of a run file, as a copyable block.

    The page never retypes the command, so what it teaches is what the lab records. By default the
    block is section 1.1's launch derived from the run id (miles101.runfiles.launch_script): `ray job
    submit` with the run id as submission id and the run's environment, `-- python3
    /root/miles/train.py`, every argument, and `2>&1 | tee /root/logs/<run id>.log`, the same argv
    the recorder runs. Options override a part: ``prefix`` (lines before the program), ``program``
    and ``suffix``; ``start-ray`` puts the run's `ray start` line first.
    """

    required_arguments = 1
    option_spec: ClassVar = {"prefix": directives.unchanged, "program": directives.unchanged,
                             "suffix": directives.unchanged, "start-ray": directives.flag}

    def run(self) -> list[nodes.Node]:
        run_id = self.arguments[0].strip()
        capture = capture_of(self.env)
        self.note("run", run_id)
        result = resolve(capture, "run", run_id)
        if isinstance(result, Problem):
            return self.problem(result.subtype, result.message, result.fix)
        bad = option_problems("run-command", self.options)  # nothing unquoted reaches a copyable command
        if bad:
            return self.problem("bad_format", f"{{run-command}} {bad[0][0]}", bad[0][1])
        prefix = self.options.get("prefix")
        text = launch_script(result.value, prefix=None if prefix is None else prefix.strip().splitlines(),
                             program_line=self.options.get("program"), suffix=self.options.get("suffix"),
                             start_ray="start-ray" in self.options)
        block = nodes.literal_block(text, text, classes=["m101-run-command"])
        block["language"] = "bash"
        self.set_source_info(block)
        if self.options.keys() - {"start-ray"}:  # an overridden launch is not the file the site serves
            return [block]
        # The HTML site serves each run's launch as a script (write_command_files): link it below the block.
        uri = "../" * self.env.docname.count("/") + f"{COMMANDS_DIR}/{run_id}.sh"
        link = nodes.paragraph("", "", nodes.reference("", f"Download {run_id}.sh", refuri=uri, classes=["m101-download"]),
                               classes=["m101-command-download"])
        only = addnodes.only(expr="html")
        only += link
        return [block, only]


class RecordingStateDirective(ManualDirective):
    """Text that is true in one state of a run: ```{until-recorded} run``` or ```{once-recorded} run```.

    The page is read again when the run's recording arrives, so the wording follows the data.
    """

    required_arguments = 1
    has_content = True
    shown_when_recorded: ClassVar[bool] = False

    def run(self) -> list[nodes.Node]:
        run_id = self.arguments[0].strip()
        capture = capture_of(self.env)
        self.note("run", run_id)
        result = resolve(capture, "run", run_id)
        if isinstance(result, Problem):
            return self.problem(result.subtype, result.message, result.fix)
        if capture.recorded(run_id) != self.shown_when_recorded:
            return []
        return self.parse_content_to_nodes(allow_section_headings=True)


class UntilRecordedDirective(RecordingStateDirective):
    shown_when_recorded = False


class OnceRecordedDirective(RecordingStateDirective):
    shown_when_recorded = True


class PinDirective(ManualDirective):
    """```{pin}```: manual.json's pin beside what the capture read; a mismatch is said plainly."""

    def run(self) -> list[nodes.Node]:
        pin = book_of(self.env).data["pin"]
        capture = capture_of(self.env)
        self.note("pin", "capture")
        read = capture.provenance
        commit = str(read.get("commit", ""))
        table = nodes.field_list(classes=["m101-pin"])
        rows = [
            ("Miles", f"{pin['subject']} {pin['commit']} ({pin['date']}), {pin['version']}"),
            ("Checked", pin.get("verified", "—")),
            ("Read from", f"commit {commit[:10] or 'none yet'} ({read.get('commit_date', '?')})"),
        ]
        for label, text in rows:
            table += nodes.field("", nodes.field_name("", label), nodes.field_body("", nodes.paragraph("", text)))
        meaning = nodes.paragraph("", (
            f"What this means for you: every flag, default and source line in this book is Miles at commit "
            f"{commit[:10] or pin['commit']}. If you run another Miles, a flag may have moved or changed its default; "
            "each flag's entry links the line to compare with yours."), classes=["m101-pin-meaning"])
        out: list[nodes.Node] = [table, meaning]
        if not commit or not commit.startswith(pin["commit"]):
            note = nodes.admonition(classes=["m101-pin-mismatch", "note"])
            note += nodes.title("", "The pin and the capture differ")
            note += nodes.paragraph("", (
                f"This edition targets Miles {pin['commit']}, but what it shows was read from "
                f"{commit[:10] or 'no commit'}: go by the commit that was read. R.4 Sources says how the "
                "book is brought to the pin."))
            out.append(note)
        return out


def check_flag_blocks(app: Sphinx, env: BuildEnvironment) -> None:
    """A flag is documented in one section only; a second block is a warning on the second page."""
    for name, first, other in domain_of(env).duplicate_flags():
        warn("duplicate", f"the flag {name} is documented here and in {first}.", location=(other, None),
             fix="keep the block in the section that teaches the flag; use {flag} inline in the other.")


DIRECTIVES = {
    "flag": FlagDirective, "listing": ListingDirective, "pin": PinDirective, "run-command": RunCommandDirective,
    "until-recorded": UntilRecordedDirective, "once-recorded": OnceRecordedDirective,
}


COMMANDS_DIR = "_commands"


def command_file(run: dict) -> str:
    """A run's launch as the site serves it: the block of its page, with a header that says where it runs."""
    start_ray = ray_start(run)[ray_start(run).index("--num-gpus") + 1] != "1"
    return ("#!/usr/bin/env bash\n"
            f"# {run['id']}: {run.get('title', '')}\n"
            "# Run it inside the container (docker exec -it miles bash), with Ray started as in section 1.1.\n"
            f"{launch_script(run, start_ray=start_ray)}\n")


def write_command_files(app: Sphinx, exception: Exception | None) -> None:
    """Every run's launch as <outdir>/_commands/<id>.sh, for the links under the {run-command} blocks."""
    if exception is not None or app.builder.name not in ("html", "dirhtml", "singlehtml"):
        return  # the web site serves them; an e-book links none (editions.WebOnlyDownloads)
    out = Path(app.outdir) / COMMANDS_DIR
    out.mkdir(parents=True, exist_ok=True)
    for run_id, run in sorted(capture_of(app.env).runs.items()):
        (out / f"{run_id}.sh").write_text(command_file(run), encoding="utf-8")


def setup_directives(app: Sphinx) -> None:
    for name, cls in DIRECTIVES.items():
        app.add_directive(name, cls)
    app.connect("env-check-consistency", check_flag_blocks)
    app.connect("build-finished", write_command_files)
