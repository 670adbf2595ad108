"""Runs: what a run file declares and what its recording holds, shown where a page teaches the run.

- `{run-arg}` run-id --flag: the value a run file passes for a flag, so prose never retypes it;
- ```{run-command} run-id```: the reader's whole launch of a run file (miles101.runfiles), served
  beside the block as `_commands/<id>.sh` on the web site;
- ```{listing} run-id```: a slice of the recorded log, a pending box until the run is recorded;
- ```{until-recorded} run-id``` / ```{once-recorded} run-id```: text true in one state of a run;
- the pending boxes that say which run a page waits for and how a reader records it.
"""
from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx

from ..kinds import record_command
from ..markup import directive_option_problems as option_problems
from ..markup import listing_lines
from ..problems import Subtype
from ..resolve import Resolved
from ..runfiles import launch_script, ray_start, script_comment
from ..strict import run_id_problem
from .assets import write_if_changed
from .base import ManualDirective, ResolvedRole, add_markup, warn
from .domain import capture_of
from .marks import mark_of
from .repository import record_yourself, repository_url


class RunArgRole(ResolvedRole):
    """`{run-arg}` run-id --flag: the value a run file passes for a flag, so prose never retypes it."""

    kind = "run-arg"

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [*mark_of("run-arg"), nodes.inline(self.rawtext, result.value, classes=["m101-run-arg"])]


class ListingDirective(ManualDirective):
    """```{listing} run-id``` a slice of a recorded log; a pending box until it is recorded."""

    has_content = False
    required_arguments = 1
    option_spec: ClassVar = {"grep": directives.unchanged, "head": directives.unchanged,
                             "lines": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        result = self.resolved_argument("run")
        if result is None:
            return []
        run_id, capture = result.key, capture_of(self.env)
        bad = option_problems("listing", self.options)  # checked while the run is pending too
        if bad:
            return self.refuse(bad[0])
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
            return self.refuse(why)
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
        result = self.resolved_argument("run")
        if result is None:
            return []
        run_id = result.key
        bad = option_problems("run-command", self.options)  # nothing unquoted reaches a copyable command
        if bad:
            return self.refuse(bad[0])
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
        result = self.resolved_argument("run")
        if result is None:
            return []
        run_id, capture = result.key, capture_of(self.env)
        if capture.recorded(run_id) != self.shown_when_recorded:
            return []
        return self.parse_content_to_nodes(allow_section_headings=True)


class UntilRecordedDirective(RecordingStateDirective):
    shown_when_recorded = False


class OnceRecordedDirective(RecordingStateDirective):
    shown_when_recorded = True


COMMANDS_DIR = "_commands"


def command_file(run: dict) -> str:
    """A run's launch as the site serves it: the block of its page, with a header that says where it runs."""
    start_ray = ray_start(run)[ray_start(run).index("--num-gpus") + 1] != "1"
    return ("#!/usr/bin/env bash\n"
            f"# {script_comment(run['id'])}: {script_comment(run.get('title', ''))}\n"  # text stays a comment
            "# Run it inside the container (docker exec -it miles bash), with Ray started as in section 1.1.\n"
            f"{launch_script(run, start_ray=start_ray)}\n")


def command_path(out: Path, run_id: object) -> Path | None:
    """Where the site serves a run's launch: `out/<id>.sh` for a run id (a name, `strict.RUN_ID`) whose file
    stays inside `out`; None for anything else, so no model, cached or not, names a file outside the site."""
    if not isinstance(run_id, str) or run_id_problem(run_id) is not None:
        return None
    path = out / f"{run_id}.sh"
    return path if path.resolve().parent == out.resolve() else None


def write_command_files(app: Sphinx, exception: Exception | None) -> None:
    """Every run's launch as <outdir>/_commands/<id>.sh, for the links under the {run-command} blocks.

    Each script is rendered from its run in this build's model (milliseconds for all of them), never kept
    between builds: no memo's text is served as a file."""
    if exception is not None or app.builder.name not in ("html", "dirhtml", "singlehtml"):
        return  # the web site serves them; an e-book links none (editions.WebOnlyDownloads)
    out = Path(app.outdir) / COMMANDS_DIR
    declared = {p.stem for p in (Path(app.srcdir) / "capture" / "runs").glob("*.yaml")}
    for run_id, run in sorted(capture_of(app.env).runs.items()):
        path = command_path(out, run_id)
        if path is None or run_id not in declared or not isinstance(run, dict) or run.get("id") != run_id:
            warn(Subtype.UNKNOWN_VALUE, f"no launch script written for {run_id!r}: not a declared run's id",
                 fix="a run id is the name of capture/runs/<id>.yaml; rebuild with -E if the doctree folder "
                     "was altered")
            continue
        write_if_changed(path, command_file(run))  # a file watcher sees no change where there is none


def pending_runs(capture, pending: list, repository: str = "") -> list[nodes.Node]:
    """One box per run not yet recorded: the run, what it will record, and how a reader records it."""
    by_run: dict[str, list] = {}
    for value in pending:
        by_run.setdefault(value.detail["run"], []).append(value)
    out: list[nodes.Node] = []
    for run_id, values in by_run.items():
        title = (capture.runs.get(run_id) or {}).get("title")
        para = nodes.paragraph(classes=["m101-pending-box", "m101-pending-run"])
        if capture.recorded(run_id):  # recorded, but these values could not be derived from it
            para += nodes.inline("", "not derivable", classes=["m101-badge"])
            para += nodes.Text(" The run ")
            para += nodes.strong("", run_id)
            names = "; ".join(f"{v.what}: {v.missing}" for v in values)
            para += nodes.Text(f" is recorded, but its recording gives no number for {len(values)} value(s) marked "
                               f"below ({names}). Fix the cause and record it again: ")
            para += nodes.literal("", record_command(run_id) + " --force")
            para += nodes.Text(".")
            out.append(para)
            continue
        para += nodes.inline("", "pending", classes=["m101-badge"])
        para += nodes.Text(" The author records the run ")
        para += nodes.strong("", run_id)
        para += nodes.Text(f" ({title}) " if title else " ")
        count = "the value it yields shows" if len(values) == 1 else f"the {len(values)} values it yields show"
        para += nodes.Text(f"on a DGX Spark; until then {count} as pending below, and where this page gives "
                           "a public reference beside one, that is the number to go by.")
        para += record_yourself(run_id, repository)
        out.append(para)
    return out


ROLES = {"run-arg": RunArgRole()}
DIRECTIVES = {"listing": ListingDirective, "run-command": RunCommandDirective,
              "until-recorded": UntilRecordedDirective, "once-recorded": OnceRecordedDirective}


def setup_runs(app: Sphinx) -> None:
    add_markup(app, ROLES, DIRECTIVES)
    app.connect("build-finished", write_command_files)
