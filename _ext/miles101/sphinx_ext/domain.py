"""The `m101` domain: what each page cites and defines, purged and merged per document.

Everything the extension remembers about a page lives in `data["docs"][docname]`, so `clear_doc` and
`merge_domaindata` are one line each and `-j` builds are safe. What a page cites, the flags it
documents and the figures it draws are collected from its doctree once it is read (`process_doc`,
sphinx.ext.todo's way): the roles and directives leave a typed record on their node (`CITE`, `FLAG`,
`FIGURE`). What one build holds beside the pages is declared once, in `BuildState` (`domain.state`):
the book and the capture, the capture's problem count, the -j set aside, the views computed once. It
is an attribute of the domain object, not of `data`, so it is never pickled (see `loading`), and
nothing is set on `app` or read back with `getattr(..., default)`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.builders import Builder
from sphinx.domains import Domain, Index, IndexEntry
from sphinx.environment import BuildEnvironment
from sphinx.util.nodes import make_refnode

from ..book import Book
from ..data import Capture


#: Fingerprints of what a component derives from the capture, by dependency kind (the calculator's
#: coefficients: `fit`), beside the book's (`book`) and the capture's own kinds (Capture.fingerprint_of).
DERIVED: dict[str, Callable[[Capture, str], str]] = {}


def register_derived(kind: str, fingerprint: Callable[[Capture, str], str]) -> None:
    """Let pages note `kind:key` dependencies on something a component derives from the capture."""
    DERIVED[kind] = fingerprint


def flag_anchor(name: str) -> str:
    return "flag-" + name.lstrip("-")


def metric_anchors(keys: Iterable[str]) -> dict[str, str]:
    """Each metric key's anchor on R.2. Keys that differ only in punctuation (`eval/<key>-truncated_ratio`,
    `eval/<key>/truncated_ratio`) would share one: the first in sorted order keeps it, so existing links
    keep their target, and the next get `-2`, `-3`, ..."""
    anchors: dict[str, str] = {}
    taken: dict[str, int] = {}
    for key in sorted(keys):
        base = "metric-" + nodes.make_id(key.replace("/", "-"))
        taken[base] = taken.get(base, 0) + 1
        anchors[key] = base if taken[base] == 1 else f"{base}-{taken[base]}"
    return anchors


@dataclass(frozen=True)
class Cite:
    """One reference a page makes to the capture: its kind and key, and what the role showed there."""

    kind: str
    key: str
    shown: str | None = None  # the text a value role printed (the ledger repeats it)
    tip_id: str | None = None  # a value: the id of its entry in "Values on this page", which it links to
    provenance: str | None = None  # a value: where it comes from, in one sentence (built once, `values.value_inline`)
    line: int | None = None  # {src}: the first line cited
    documented: bool = False  # a {flag} block: the page documents the flag, not only cites it


@dataclass(frozen=True)
class Figure:
    """One figure a page draws: its title and caption, and the page (filled in by `ManualDomain.figures`)."""

    title: str
    caption: str
    docname: str = ""


#: The node attributes holding a page's records: a `Cite` (a role's node, a flag block), a flag block's
#: (flag, anchor), a figure's `Figure`.
CITE, FLAG, FIGURE = "m101_cite", "m101_flag", "m101_figure"


def page_cites(document: nodes.Node) -> Iterator[tuple[nodes.Element, Cite]]:
    """The nodes of a page that cite the capture, with what each cites, in document order."""
    for node in document.findall(nodes.Element):
        if CITE in node:
            yield node, node[CITE]


def _empty_record() -> dict[str, Any]:
    return {"deps": {}, "flags": {}, "figures": {}, "diagrams": {}, "cites": [], "problems": 0, "generated": [],
            "generated_digest": ""}


@dataclass
class BuildState:
    """What one build holds beside the per-page records (a new domain object, so a new state, each build)."""

    book: Book | None = None  # handed over at builder-inited (loading.load_into_domain)
    capture: Capture | None = None  # taken in at builder-inited (miles101.intake)
    capture_problems: int = 0  # the intake's problems: they fail the build (loading.fail_on_capture_problems)
    inconsistencies: int = 0  # problems found across pages at env-check-consistency
    parallel: int | None = None  # the -j set aside while a few pages are read serially (incremental)
    documented: dict[str, tuple[str, str]] | None = None  # documented_flags() once reading is over
    derived: dict[tuple[str, str], str] = field(default_factory=dict)  # DERIVED fingerprints, once a build
    metric_anchors: dict[str, str] | None = None  # each metric key's anchor on R.2, once a build
    resolved_docs: int = 0  # the pages resolved for writing so far (incremental.write_changed_indices)


class FlagIndex(Index):
    """A-to-Z of the flags the manual documents, each with the section that teaches it."""

    name = "flags"
    localname = "Miles flags documented in this manual"
    shortname = "flags"

    def generate(self, docnames: Iterable[str] | None = None) -> tuple[list[tuple[str, list[IndexEntry]]], bool]:
        env = self.domain.env
        by_letter: dict[str, list[IndexEntry]] = {}
        for name, (docname, anchor) in sorted(self.domain.documented_flags().items()):
            if docnames is not None and docname not in docnames:
                continue
            letter = name.lstrip("-")[:1].upper()
            title = env.titles[docname].astext() if docname in env.titles else docname
            by_letter.setdefault(letter, []).append(IndexEntry(name, 0, docname, anchor, title, "", ""))
        return sorted(by_letter.items()), False


class ManualDomain(Domain):
    """Per-page records: data dependencies, documented flags, figures, citations, problems."""

    name = "m101"
    label = "Miles 101"
    initial_data: dict[str, Any] = {"docs": {}}
    indices = [FlagIndex]
    data_version = 5  # 3: each page's diagrams' sources; 4: cites and figures typed; 5: collected in document order

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__(env)
        self.state = BuildState()

    @property
    def book(self) -> Book | None:
        return self.state.book

    @property
    def capture(self) -> Capture | None:
        return self.state.capture

    # -- per-document records ----------------------------------------------------
    def record(self, docname: str) -> dict[str, Any]:
        return self.data["docs"].setdefault(docname, _empty_record())

    def note_dep(self, docname: str, kind: str, key: str, digest: str) -> None:
        self.record(docname)["deps"][f"{kind}:{key}"] = digest

    def fingerprint_of(self, kind: str, key: str) -> str:
        """Content hash of what `kind:key` is now: part of the book, something derived, or capture data."""
        if self.book is None or self.capture is None:
            raise RuntimeError("miles101: the book and the capture are handed over at builder-inited; "
                               "nothing may read them before.")
        if kind == "book":
            return self.book.fingerprint_of(key)
        if kind in DERIVED:
            if (kind, key) not in self.state.derived:
                self.state.derived[kind, key] = DERIVED[kind](self.capture, key)
            return self.state.derived[kind, key]
        return self.capture.fingerprint_of(kind, key)

    def note_book(self, docname: str, key: str) -> Book:
        """Note that the page shows what the book holds under `key` (see Book.fingerprint_of); return the book."""
        self.note_dep(docname, "book", key, self.fingerprint_of("book", key))
        return self.book

    def process_doc(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        """Collect what the page cites (in document order), the flags it documents and the figures it draws."""
        record = self.record(docname)
        for node in document.findall(nodes.Element):
            if CITE in node:
                record["cites"].append(node[CITE])
            if FLAG in node:
                name, anchor = node[FLAG]
                record["flags"][name] = anchor
            if FIGURE in node:
                record["figures"][node["ids"][0]] = node[FIGURE]

    def note_problem(self, docname: str) -> None:
        self.record(docname)["problems"] += 1

    def clear_doc(self, docname: str) -> None:
        self.state.documented = None
        self.data["docs"].pop(docname, None)

    def merge_domaindata(self, docnames: Iterable[str], otherdata: dict[str, Any]) -> None:
        self.state.documented = None
        for docname in docnames:
            if docname in otherdata["docs"]:
                self.data["docs"][docname] = otherdata["docs"][docname]

    # -- views over all pages ----------------------------------------------------
    def freeze(self) -> None:
        """Reading is over (env-updated): what every page documents is fixed until the next build."""
        self.state.documented = self._documented_now()

    def metric_anchor(self, key: str) -> str:
        """The anchor of a metric's row on R.2 (one map per build: the capture does not change within one)."""
        anchors = self.state.metric_anchors
        if anchors is None:
            capture = self.capture
            keys = [*capture.metrics, *(rec["key"] for _, rec in capture.metric_patterns)] if capture else []
            anchors = self.state.metric_anchors = metric_anchors(keys)
        return anchors.get(key) or metric_anchors([key])[key]

    def documented_flags(self) -> dict[str, tuple[str, str]]:
        """Flag name → (docname, anchor) of the block that documents it (computed once after reading)."""
        documented = self.state.documented
        return documented if documented is not None else self._documented_now()

    def _documented_now(self) -> dict[str, tuple[str, str]]:
        found: dict[str, tuple[str, str]] = {}
        for docname in sorted(self.data["docs"]):
            for name, anchor in self.data["docs"][docname]["flags"].items():
                found.setdefault(name, (docname, anchor))
        return found

    def duplicate_flags(self) -> list[tuple[str, str, str]]:
        """(flag, first page, other page) for every flag documented on more than one page."""
        first: dict[str, str] = {}
        twice = []
        for docname in sorted(self.data["docs"]):
            for name in self.data["docs"][docname]["flags"]:
                if name in first:
                    twice.append((name, first[name], docname))
                first.setdefault(name, docname)
        return twice

    def figures(self) -> Iterator[tuple[str, Figure]]:
        """(figure id, its record with its docname), by id then page."""
        found = [(fig_id, replace(fig, docname=docname)) for docname, rec in self.data["docs"].items()
                 for fig_id, fig in rec["figures"].items()]
        return iter(sorted(found, key=lambda f: (f[0], f[1].docname)))

    def duplicate_figures(self) -> list[tuple[str, str, str]]:
        """(figure id, first page, other page) for every figure id used on more than one page."""
        first: dict[str, str] = {}
        twice = []
        for fig_id, fig in self.figures():
            if fig_id in first:
                twice.append((fig_id, first[fig_id], fig.docname))
            first.setdefault(fig_id, fig.docname)
        return twice

    def cites(self, kind: str) -> Iterator[tuple[str, Cite]]:
        for docname in sorted(self.data["docs"]):
            for cite in self.data["docs"][docname]["cites"]:
                if cite.kind == kind:
                    yield docname, cite

    def problem_count(self) -> int:
        return sum(rec["problems"] for rec in self.data["docs"].values()) + self.state.inconsistencies

    def generated_docs(self) -> dict[str, list[str]]:
        """The pages holding generated tables, and which tables each holds."""
        return {d: rec["generated"] for d, rec in self.data["docs"].items() if rec.get("generated")}

    # -- cross-references ----------------------------------------------------------
    def resolve_xref(
        self, env: BuildEnvironment, fromdocname: str, builder: Builder, typ: str, target: str,
        node: pending_xref, contnode: nodes.Element,
    ) -> nodes.reference | None:
        if typ == "flag":
            documented = self.documented_flags()
            canonical = node.get("m101_canonical", target)
            if canonical in documented:
                docname, anchor = documented[canonical]
            else:
                docname, anchor = env.config.m101_reference_docs["R.1"], flag_anchor(canonical)
            return make_refnode(builder, fromdocname, docname, anchor, contnode, canonical)
        if typ == "metric":
            docname = env.config.m101_reference_docs["R.2"]
            return make_refnode(builder, fromdocname, docname, self.metric_anchor(target), contnode, target)
        return None

    def resolve_any_xref(self, *args: Any, **kwargs: Any) -> list:
        return []

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        for name, (docname, anchor) in self.documented_flags().items():
            yield name, name, "flag", docname, anchor, 1


def domain_of(env: BuildEnvironment) -> ManualDomain:
    return env.get_domain("m101")  # type: ignore[return-value]


def capture_of(env: BuildEnvironment) -> Capture:
    """The capture data of this build (loaded at builder-inited, in the main process)."""
    capture = domain_of(env).capture
    if capture is None:
        raise RuntimeError("miles101: the capture is read at builder-inited; nothing may read it before.")
    return capture


def book_of(env: BuildEnvironment) -> Book:
    """The book (manual.json) of this build (read at config-inited, handed to the domain at builder-inited)."""
    book = domain_of(env).book
    if book is None:
        raise RuntimeError("miles101: the book is handed over at builder-inited; nothing may read it before.")
    return book


def setup_domain(app) -> None:
    app.add_domain(ManualDomain)
    app.connect("env-updated", lambda app, env: domain_of(env).freeze())
