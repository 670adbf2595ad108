"""The book's kinds of value and of reference: one row each, the one table every layer reads.

A row says where a kind is declared (its home, named by the fix of an unknown key), which capture
file its references read, which kind it is confused with, the words an error, llms-full.txt and the
editions use for it, its inline tag, and the sentence that says where a value of it comes from.
The intake, the resolver (`resolve`), the page scanner (`pages`), the validation, the extension and
`capture/run.py explain` read it; none keeps its own list. Which references follow on from a broken
capture file is derived here (`broken_sources`). No Sphinx imports; the model's `Value` only as a type.

A new kind of value is its row here, the row of the capture file it is loaded from
(`miles101.capturefiles.FILES`, which the schemas, the intake's inputs, the fingerprints and the fix of a
broken file read; a file whose records are its values, `records`, is loaded from the row alone:
`miles101.intake.add_records`) and its CSS (`.m101-<kind>`); the roles, the legend, llms-full.txt and
`explain` follow from the row. A role's `examples` are AUTHORING.md's table of roles
(`python3 dev.py authoring`) and the snippets tests/test_snippets.py builds.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .data import Value

#: The manual's hardware: recordings from anything else are labelled as such.
HOME_HARDWARE = "GB10"


def record_command(run_id: str) -> str:
    """The command that records a run on the DGX Spark (capture/run.py record)."""
    return f"python3 capture/run.py record {run_id}"


# -- where a value comes from, in one sentence: the tooltip, the page's list of values and `explain` --------
def _measured_source(value: Value, hardware_home: str) -> str:
    d = value.detail
    if value.missing:
        return (f"Not derivable: the run {d['run']!r} is recorded (on {d.get('hardware') or 'unknown hardware'}), "
                f"but its recording gives no {d.get('statistic') or 'value'} of {d.get('source') or value.what}: "
                f"{value.missing}. Record it again once the cause is fixed "
                f"({record_command(d['run'])} --force); R.3 Lab notes lists the run.")
    if value.pending:
        return (f"Pending: the run {d['run']!r} has not been recorded on a DGX Spark yet. "
                f"When it is, this shows the {d.get('statistic') or 'value'} of {d.get('source') or value.what}. "
                f"To record it: {record_command(d['run'])} (on the Spark). "
                "R.3 Lab notes lists every pending run.")
    hw = d.get("hardware") or "unknown hardware"
    label = "" if hardware_home in str(hw) else " (not the manual's hardware)"
    return (f"{value.what}: {d.get('statistic')} of {d.get('n')} samples, steps {d.get('steps') or 'all'}. "
            f"Run {d['run']} on {hw}{label}, Miles {str(d.get('commit'))[:9]}, image {d.get('image')}, {d.get('date')}.")


def _computed_source(value: Value, hardware_home: str) -> str:
    return f"{value.what}. Computed by {value.detail.get('formula')} from Miles's extracted data."


def _fact_source(value: Value, hardware_home: str) -> str:
    d = value.detail
    return f"{value.what}. Source: {d.get('source')} (read {d.get('read')})."


def _source_read(d: dict[str, Any]) -> str:
    """The closing "Source: title, address (read date)." of a public reference's or threshold's sentence."""
    return f"Source: {d.get('source_title') or d.get('source')}, {d.get('source')} (read {d.get('read')})."


def _reference_source(value: Value, hardware_home: str) -> str:
    d = value.detail
    where = f"measured on {d['hardware']}" if d.get("hardware") else "a rule, not a measurement"
    return (f"Public reference, not this manual's GB10 measurement. {value.what} "
            f"({d.get('label')}; {where}; {d.get('setting')}). " + _source_read(d))


def _threshold_source(value: Value, hardware_home: str) -> str:
    d = value.detail
    return (f"Our threshold: a cut-off this manual sets itself, not a published number and not a measurement. "
            f"{value.what} Why this number: {d.get('reasoning')} "
            f"Used by {d.get('label')}; {d.get('setting')}. " + _source_read(d))


def _crosscheck_source(value: Value, hardware_home: str) -> str:
    d = value.detail
    if d.get("reading") == "master_copy":  # capture/crosscheck/master_copy/: no allocator reading
        from .master_copy import reading_text

        return f"Cross-check on another GPU, not this manual's GB10 recording. {value.what}: {reading_text(d)}"
    return (f"Cross-check on another GPU, not this manual's GB10 recording. {value.what}: read from PyTorch's "
            f"allocator on an {d['gpu']} (torch {d.get('torch')}, CUDA {d.get('cuda')}, transformers "
            f"{d.get('transformers')}), {d.get('date')}, one GPU, {d.get('tokens')} tokens per step, the model built "
            f"as Miles's FSDP backend builds it. {d.get('optimizer_note')} Program: python3 -m capture.crosscheck; "
            f"results: {d['file']}.").replace("  ", " ")


# -- the short source shown inline beside someone else's number ------------------------------------------------
def _reference_inline(d: dict[str, Any]) -> str:
    return f"{d['label']}, {d['hardware']}" if d.get("hardware") else d["label"]


def _threshold_inline(d: dict[str, Any]) -> str:
    return d["label"]


def _crosscheck_inline(d: dict[str, Any]) -> str:
    return f"{d['gpu']}, not a GB10"


@dataclass(frozen=True)
class Example:
    """One row of AUTHORING.md's table of roles (`miles101.authoring` writes it; tests/test_snippets.py builds it)."""

    text: str  #: what the author writes between the role's backticks
    renders: str  #: what the reader gets (Markdown)
    fails: str = ""  #: when the build fails on it ("": as the row above)


@dataclass(frozen=True)
class Kind:
    """One kind of thing a page cites: a value (a number with a source) or a name or link."""

    name: str  #: the role's name and the cite's kind
    role: bool  #: the book has a role of this name (`run` is cited by directives only)
    value: bool  #: a number the capture holds as a `data.Value`
    home: str  #: where a key of this kind is declared (an unknown key's fix names it)
    reads: str | None = None  #: the capture file its references read: unreadable, they are follow-ons
    twin: str | None = None  #: the kind a key of this one is confused with (a clear error names it)
    words: str = ""  #: how an error names the kind ("is a public reference (…), not …")
    llms: str = ""  #: how llms-full.txt names the kind
    tag: str | None = None  #: the short tag shown inline beside the number
    tag_text: str | None = None  #: the tag in running text (the editions' plain text)
    record_kind: str | None = None  #: the `kind` field of a capture/references/ record of this kind
    ranged: bool = False  #: may hold a range or a bound instead of one number ("0.3–0.5", "≥ 0.7")
    source: Callable[[Value, str], str] | None = None  #: the sentence that says where a value comes from
    inline_source: Callable[[dict[str, Any]], str] | None = None  #: the source shown inline, beside the tag
    term: str = ""  #: the kind's name in the legend (front page, R.6's glossary); "" = not in the legend
    legend: str = ""  #: what the legend says of the kind (plain text: the legend test compares it)
    examples: tuple[Example, ...] = ()  #: AUTHORING.md's rows for the role, the first naming when it fails


#: Every kind, in the order the book lists its roles.
KINDS: tuple[Kind, ...] = (
    Kind("flag", True, False, "capture/miles/flags.json (Miles's argument parser, extracted)",
         reads="capture/miles/flags.json",
         examples=(Example("--colocate", "`--colocate` as code, linked to the flag's entry",
                           "Miles has no such flag (the error suggests near names)"),
                   Example("--no-offload-train", "aliases and `--no-` twins resolve to their flag"))),
    Kind("default", True, False, "capture/miles/flags.json (the flag's extracted default)",
         reads="capture/miles/flags.json", tag="default", term="flag default",
         legend="A flag's default as Miles's argument parser sets it, read from an extraction of Miles's source. "
                "Each flag's entry shows it with the file and line that define it; a flag passed through to SGLang "
                "shows none, its default being SGLang's.",
         examples=(Example("--actor-num-gpus-per-node",
                           "the flag's extracted default as code (`8`), so prose never types a default",
                           "no such flag, or its default is computed at run time"),)),
    Kind("metric", True, False, "capture/miles/metrics.json (the keys Miles logs, extracted)",
         reads="capture/miles/metrics.json",
         examples=(Example("rollout/raw_reward", "the key as code, linked to R.2", "Miles logs no such key"),)),
    Kind("src", True, False, "capture/miles/files.json (Miles's files and their lengths at the captured commit)",
         reads="capture/miles/files.json",
         examples=(Example("miles/utils/arguments.py:143", "a link to that line on GitHub at the captured commit",
                           "the file is not in Miles, or the line is past its end"),
                   Example("the colocate check <miles/utils/arguments.py:143-150>", "the same, with your text"),
                   Example("miles/ray/placement_group.py", "a link to the file"))),
    Kind("measured", True, True, "a run file's values (capture/runs/<run>.yaml)", llms="measured",
         source=_measured_source, term="measured",
         legend="A number from a run recorded on a DGX Spark (GB10) by this book's lab, with the run, the image, "
                "the Miles commit and the date behind it. It carries no tag. Hover or focus one to see the run, "
                "the metric it comes from and the statistic taken; R.3 Lab notes lists the recordings.",
         examples=(Example("first-grpo.step_time", "value, unit and statistic, provenance on hover and focus; "
                           "*pending* badge until recorded", "the run file declares no such value"),
                   Example("first-grpo.step_time:.1f", "the same with a Python format spec",
                           "the spec does not fit the value"))),
    Kind("computed", True, True, "capture/computed.json", reads="capture/computed.json", llms="computed",
         source=_computed_source, tag="computed", term="computed",
         legend="A number derived by the book's code from data extracted from Miles's source, such as a parameter "
                "count or the bytes a trainer holds. Hover or focus one to see the function of the book's code "
                "that derives it; the page's list of values names it too.",
         examples=(Example("params.qwen3-0.6B:,.0f", "a value derived by capture code, with its formula named",
                           "no such key in `capture/computed.json`"),)),
    Kind("fact", True, True, "capture/facts.json", reads="capture/facts.json", llms="fact", source=_fact_source,
         tag="fact", term="fact",
         legend="A number from a public source, such as the Spark's memory from NVIDIA's documentation, held "
                "with its source and the date it was read.",
         examples=(Example("spark.memory", "a public number, with its source and date read",
                           "no such key in `capture/facts.json`"),)),
    Kind("reference", True, True, "a file of capture/references/", twin="threshold",
         words="a public reference (someone else's published number)", llms="public reference", tag="public ref",
         tag_text="public reference", record_kind="public", ranged=True, source=_reference_source,
         inline_source=_reference_inline, term="public reference",
         legend="Someone else's published number (Miles's CI thresholds, a published baseline, a number from an "
                "issue thread) or a rule in code, shown with its source and, where it has one, its hardware, so "
                "it is never read as this book's GB10 measurement.",
         examples=(Example("miles-ci.qwen3-0.6b-colocated.eval-gsm8k",
                           "a public reference: a number someone outside this book published (Miles's CI threshold, "
                           "a line in Miles's guide, a default in Miles's code, a published baseline, a number from "
                           "an issue thread), tagged *public ref* with its source and hardware inline, so it is "
                           "never read as our GB10 measurement",
                           "no such key in `capture/references/*.json`, the key is one of our thresholds, or its "
                           "`src` is not a line range of Miles"),)),
    Kind("threshold", True, True, 'a file of capture/references/, with "kind": "threshold" and its "reasoning"',
         twin="reference", words="one of this book's own thresholds", llms="our threshold", tag="our threshold",
         tag_text="our threshold", record_kind="threshold", ranged=True, source=_threshold_source,
         inline_source=_threshold_inline, term="our threshold",
         legend="A cut-off this book sets itself where nobody publishes a number, such as where the run reader "
                "calls a metric worth a look. Hover or focus one for the reasoning behind it; it is no one's "
                "measurement.",
         examples=(Example("reader.truncation_watch",
                           "our threshold: a cut-off this book sets itself where nobody publishes a number (the run "
                           "reader's cut-offs), tagged *our threshold* with its label inline and its reasoning on "
                           "hover and focus, so it is never read as a public reference",
                           "no such key with `\"kind\": \"threshold\"` in `capture/references/*.json` (a public "
                           "reference cited this way fails too), or its `src` is not a line range of Miles"),)),
    Kind("crosscheck", True, True,
         "capture/crosscheck/results/<host>.json (python3 -m capture.crosscheck on a GPU host)", llms="cross-check",
         tag="cross-check", source=_crosscheck_source, inline_source=_crosscheck_inline, term="cross-check",
         legend="A reading of the book's own program on a GPU that is not a GB10, such as the H200 cross-check "
                "of 2.1, labelled with that GPU.",
         examples=(Example("h200.qwen3-4B.held:.1f", "our own program's reading on another GPU (the H200 cross-check "
                           "of 2.1), tagged *cross-check* with that GPU inline",
                           "no such host, model or field in `capture/crosscheck/results/`"),)),
    Kind("issue", True, False, "the issue thread itself (owner/repo#N on GitHub)",
         examples=(Example("radixark/miles#123", "a link to the issue or pull request; collected for R.4",
                           "the text is not `owner/repo#N`"),)),
    Kind("run-arg", True, False, "a run file's args (capture/runs/<run>.yaml)", reads="capture/miles/flags.json",
         tag="run file", term="run setting",
         legend="A setting of one of the book's runs, such as how many rollouts it makes, read from its run file "
                "under capture/runs/, the same file its command is rendered from.",
         examples=(Example("first-grpo --num-rollout", "the value the run file passes for that flag (`48`), so prose "
                           "never retypes a setting the command owns",
                           "the run file does not pass the flag with a value"),)),
    Kind("run", False, False, "capture/runs/<run>.yaml"),
    # A public run's per-step series (someone else's run, cited by the {series-plot} directive as a reference): its
    # own extracted capture file, re-derived by `--check` from the public log's excerpt kept beside it.
    Kind("series", False, False, "capture/series/<id>.json (python3 -m capture.extract.series, from a public log)",
         reads="capture/series/*.json"),
)
BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}

#: The kinds of cited number, each with its own role and its own look on the page.
VALUE_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS if k.value)
#: Every role the book defines (the extension registers exactly these; the benchmark strips them).
ROLE_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS if k.role)
#: A record of capture/references/ by its `kind` field: someone else's published number (the default),
#: or a cut-off this book sets itself, which must carry its `reasoning`.
REFERENCE_KINDS: dict[str, str] = {k.record_kind: k.name for k in KINDS if k.record_kind}
#: Which capture file each kind of page reference reads: when that file cannot be read at all, its
#: references are follow-ons of one root cause (counted, not listed one by one).
SOURCE_OF_KIND: dict[str, str] = {k.name: k.reads for k in KINDS if k.reads}


def broken_sources(capture: object) -> dict[str, str]:
    """kind → the capture file it reads, for each file the loader could not read as a whole (a root cause)."""
    broken = {p.file for p in getattr(capture, "problems", [])}
    return {kind: rel for kind, rel in SOURCE_OF_KIND.items() if rel in broken}


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend of kinds: the term, the mark a value of it wears on the page, the meaning."""

    kind: str  #: the row it comes from (pending is a state of measured)
    term: str
    mark: str | None  #: the visible mark's text; None: the kind wears none
    meaning: str


#: Pending is not a kind of its own: a measured value whose run is not recorded yet, shown as a badge.
PENDING = LegendEntry("measured", "pending", "pending",
                      "A measured value whose run has not been recorded on a DGX Spark yet. It shows as the word "
                      "pending, never as a number: the run is declared with its full command, but nobody has "
                      "recorded it on the hardware yet, and the text around it is written to hold without it.")


def _legend_group(row: Kind) -> int:
    """The legend's order: the book's numbers first, then settings, then numbers that carry their source inline
    (someone else's, our threshold, another GPU's); in each group the table's order."""
    return 0 if row.value and row.inline_source is None else 1 if not row.value else 2


#: The legend's order: every kind with a term, grouped (`_legend_group`); pending right after measured.
LEGEND_ORDER: tuple[str, ...] = tuple(
    name for row in sorted((k for k in KINDS if k.term), key=_legend_group)
    for name in ((row.name, "pending") if row.name == PENDING.kind else (row.name,)))


def legend() -> tuple[LegendEntry, ...]:
    """The legend of kinds, as the front page and R.6 show it (generated, never typed)."""
    return tuple(PENDING if name == "pending" else LegendEntry(name, BY_NAME[name].term, BY_NAME[name].tag,
                                                                BY_NAME[name].legend)
                 for name in LEGEND_ORDER)


def kind(name: str) -> Kind:
    """The row of `name` (KeyError for a kind the book does not have)."""
    return BY_NAME[name]


def provenance_text(value: Value, hardware_home: str = HOME_HARDWARE) -> str:
    """Where a value comes from, in one sentence: the tooltip, the page's list of values and `explain`."""
    row = BY_NAME.get(value.kind)
    return (row.source if row is not None and row.source is not None else _fact_source)(value, hardware_home)


def format_number(number: float | int, spec: str = "") -> str:
    """A number with a Python format spec, or a readable default; ValueError when the spec does not fit."""
    if spec:
        return format(number, spec)
    if isinstance(number, float):
        return f"{number:.3g}" if abs(number) < 1000 else f"{number:,.0f}"
    if isinstance(number, int):
        return f"{number:,}"
    return str(number)


def format_value(value: Value, spec: str) -> str:
    """Format a value; a reference or threshold with a range or a bound reads "0.3–0.5", "≥ 0.7" or "≤ 0.2"."""
    if BY_NAME[value.kind].ranged and value.value is None:
        low, high = value.detail.get("low"), value.detail.get("high")
        if low is not None and high is not None:
            return f"{format_number(low, spec)}–{format_number(high, spec)}"
        return f"≥ {format_number(low, spec)}" if low is not None else f"≤ {format_number(high, spec)}"
    return format_number(value.value, spec)

