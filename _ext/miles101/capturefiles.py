"""The capture files: one row per file (or glob of files) under capture/, the one table of what the book knows
of each — its schema, how it is repaired, whether it must exist, the kinds it feeds, the key whose records
become values, and the other files its checks read.

The schema map (`miles101.schemas.SCHEMAS`), the required files and the fix of a broken file
(`miles101.validate`) and the intake's inputs (`miles101.intake.CAPTURE_INPUTS`) are views of it. A new capture file, or a
new kind with its own file, is one row here (plus its schema). A glob here means what `Path.glob` means:
`*` stands for part of one path segment, never for a `/`. Standard library only: every layer may import it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

#: How a file written by the extraction is repaired.
REGENERATE = "re-run the extraction (`python3 capture/run.py --miles-src PATH`) or {restore}"
#: How a file kept by hand from its source is repaired (`{restore}`: restoring it from git).
BY_HAND = "correct it by hand from its source (AUTHORING.md), or {restore}"
#: How a file of a recording is repaired (`{run}`: the recording's run id).
RECORD_AGAIN = "{restore}, or record the run again (`python3 capture/run.py record {run} --force`)"
#: The kinds a run file and its recording feed: the run itself and its measured values.
RUN_KINDS = ("run", "measured")


@dataclass(frozen=True)
class CaptureFile:
    """One capture file, or one glob of them, as the book reads and checks it."""

    glob: str  #: under capture/ ("facts.json", "references/*.json")
    schema: str | None  #: its JSON Schema, a file of _ext/miles101/schema/; None: checked by its own rule alone
    fix: str  #: how it is repaired: {restore} (from git), {file} (its path), {run} (a recording's run id), {attempt}
    required: bool = False  #: the book cannot be checked at all without it
    kinds: tuple[str, ...] = ()  #: the kinds of reference the model builds from it (their fingerprints' inputs)
    #: the top-level key whose records become values (each checked for its unit's range); where the first kind is a
    #: value kind, the intake makes them values of it from this row alone (`miles101.intake.add_records`)
    records: str | None = None
    reads: tuple[str, ...] = ()  #: other capture files its checks read (besides a run's `base` chain)

    def matches(self, sub: str) -> bool:
        """Whether `sub` (a path under capture/) is this row's file: segment by segment, as `Path.glob` finds it."""
        parts, globs = sub.split("/"), self.glob.split("/")
        return len(parts) == len(globs) and all(fnmatchcase(p, g) for p, g in zip(parts, globs))


#: Every capture file the book reads, in the order the validation takes them.
FILES: tuple[CaptureFile, ...] = (
    CaptureFile("miles/flags.json", "flags.schema.json", REGENERATE, required=True,
                kinds=("flag", "default", "pin", "src")),  # the families and the pinned commit are flags.json's
    CaptureFile("miles/metrics.json", "metrics.schema.json", REGENERATE, required=True, kinds=("metric",)),
    CaptureFile("miles/models.json", "models.schema.json", REGENERATE, required=True),
    CaptureFile("miles/files.json", "files.schema.json", REGENERATE, required=True, kinds=("src",)),
    CaptureFile("computed.json", "computed.schema.json", REGENERATE, required=True, kinds=("computed", "crosscheck"),
                records="values", reads=("miles/models.json", "miles/flags.json")),
    CaptureFile("facts.json", "facts.schema.json", BY_HAND, required=True, kinds=("fact",), records="facts"),
    # a public reference and our threshold are records of the same files (told apart by their `kind` field)
    CaptureFile("references/*.json", "references.schema.json", BY_HAND, kinds=("reference", "threshold"),
                records="references"),
    CaptureFile("crosscheck/results/*.json", "crosscheck.schema.json",
                "{restore}, or re-run the cross-check on that host (`python3 capture/run.py crosscheck`)",
                kinds=("crosscheck",), reads=("computed.json",)),
    CaptureFile("crosscheck/master_copy/*.json", "master-copy.schema.json",
                "{restore}, or re-run `python3 -m capture.crosscheck.master_copy` on that host", kinds=("crosscheck",)),
    CaptureFile("series/*.json", "series.schema.json",
                "re-run `python3 -m capture.extract.series` (it reads the public log's excerpt under "
                "capture/series/sources/), or {restore}", kinds=("series",)),  # its check reads the excerpt it names
    CaptureFile("factcheck.json", "factcheck.schema.json",
                "correct the entry by hand (schema _ext/miles101/schema/factcheck.schema.json, AUTHORING.md), or {restore}"),
    CaptureFile("symptoms.json", "symptoms.schema.json",  # the log doctor's rules (miles101.rulefiles)
                "correct it by hand (schema _ext/miles101/schema/symptoms.schema.json; page 7.1 holds the same "
                "entries; then `python3 -m capture.lab.symptoms --write`), or {restore}"),
    # slime's side of the served Dockerfile.gb10 (miles101.gb10_image)
    CaptureFile("slime/gb10.json", "slime-gb10.schema.json",
                "re-run `python3 capture/run.py slime --slime-src PATH` (slime at the commit the record names), or "
                "{restore}"),
    # numbers typed in pages, each with its source (miles101.pagenumbers, which also holds run-arg entries to
    # the run files and src entries to the captured commit)
    CaptureFile("reviewed-numbers.json", "reviewed-numbers.schema.json",
                "correct the entry by hand (schema _ext/miles101/schema/reviewed-numbers.schema.json; the file's "
                "\"about\" says what each entry holds), or {restore}",
                reads=("runs/*.yaml", "miles/files.json")),
    CaptureFile("runs/*.yaml", "run.schema.json",
                "correct the run file by hand (schema _ext/miles101/schema/run.schema.json, AUTHORING.md), or {restore}",
                kinds=RUN_KINDS, reads=("miles/flags.json", "miles/metrics.json")),
    CaptureFile("gpu/*/run.json", "recording.schema.json", RECORD_AGAIN, kinds=RUN_KINDS,
                reads=("runs/{run}.yaml", "gpu/{run}/steps.jsonl", "gpu/{run}/values.json")),
    CaptureFile("gpu/*/host.json", "recording.schema.json", RECORD_AGAIN, kinds=RUN_KINDS),
    CaptureFile("gpu/*/values.json", "recording.schema.json", RECORD_AGAIN, kinds=RUN_KINDS, records="values"),
    CaptureFile("gpu/*/steps.jsonl", None, RECORD_AGAIN),  # checked with its recording's run.json
    # a failed recording, kept to read, never published: no tool rewrites it
    CaptureFile("gpu/_attempts/*/run.json", None,
                "{restore}, or remove the attempt (`rm -r {attempt}`) once you have read it", kinds=RUN_KINDS),
)


class TableError(LookupError):
    """The table lacks a row the code needs: a file read with no row, a kind no row feeds."""


def row_for(rel: str) -> CaptureFile | None:
    """The row of a capture file (`capture/...` path, or a path under capture/), or None."""
    sub = rel.removeprefix("capture/")
    return next((f for f in FILES if f.matches(sub)), None)


def fix_for(rel: str) -> str:
    """How a capture file (`capture/...` path) is repaired: its row's fix, or re-running the extraction."""
    sub = rel.removeprefix("capture/")
    row = row_for(rel)
    parts = rel.split("/")
    return (row.fix if row is not None else REGENERATE).format(
        restore=f"restore it from git (`git checkout -- {rel}`)", file=rel,
        run=sub.split("/")[1] if sub.startswith("gpu/") and "/" in sub else "", attempt="/".join(parts[:4]))


def schema_globs() -> dict[str, str]:
    """glob → schema file, for each row that has a schema, in the table's order."""
    return {f.glob: f.schema for f in FILES if f.schema is not None}


def required() -> tuple[str, ...]:
    """The files that must exist for the book to be checked at all."""
    return tuple(f.glob for f in FILES if f.required)


def model_inputs() -> tuple[CaptureFile, ...]:
    """The rows the model is built from: those that feed a kind."""
    return tuple(f for f in FILES if f.kinds)


def input_row(rel: str) -> CaptureFile:
    """The row of a file the model reads; TableError when it has none, or one that feeds no kind (a fingerprint
    that the file changes would then never change: a stale cache)."""
    row = row_for(rel)
    if row is None or not row.kinds:
        raise TableError(f"{rel} is read by the model, but no row of miles101.capturefiles.FILES names it with the "
                         "kinds it feeds: add its row (glob, schema, fix, kinds)")
    return row
