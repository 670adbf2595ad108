"""The Reference part's tables, built from the data and from what every page cites.

Each directive leaves a `generated` placeholder; `fill_generated` replaces it once every page
has been read (like sphinx.ext.todo's todolist), and these pages are rewritten on every build.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

from .directives import flag_fields
from .domain import capture_of, domain_of, flag_anchor, metric_anchor
from .front import doc_link
from .nodes import m101_generated as generated
from .state import current_app, current_book

KINDS = ("flags-by-job", "metrics-table", "lab-notes", "sources-list", "figure-index")


class GeneratedDirective(SphinxDirective):
    """```{flags-by-job}``` and friends: a placeholder filled after reading."""

    def run(self) -> list[nodes.Node]:
        record = domain_of(self.env).record(self.env.docname)
        record["generated"] = sorted({*record.get("generated", []), self.name})
        return [generated("", kind=self.name)]


def table(headers: list[str], rows: Iterable[list[nodes.Node | str]], classes: list[str] | None = None) -> nodes.table:
    """A docutils table from header strings and rows of nodes or strings."""
    tbl = nodes.table(classes=["m101-table", *(classes or [])])
    group = nodes.tgroup(cols=len(headers))
    tbl += group
    group.extend(nodes.colspec(colwidth=1) for _ in headers)
    head = nodes.thead()
    head += nodes.row("", *[nodes.entry("", nodes.paragraph("", h)) for h in headers])
    group += head
    body = nodes.tbody()
    for row in rows:
        cells = []
        for cell in row:
            node = nodes.paragraph("", cell) if isinstance(cell, str) else nodes.paragraph("", "", cell)
            cells.append(nodes.entry("", node))
        body += nodes.row("", *cells)
    group += body
    return tbl


def _flag_row(rec: dict, capture, anchor: str | None) -> list:
    facts = dict(flag_fields(rec, capture))
    name = nodes.literal("", rec["name"])
    if anchor:
        name = nodes.inline("", "", name, ids=[anchor])
    return [name, facts.get("Default", nodes.Text("—")), rec.get("type") or "—", rec.get("backend") or "both",
            facts["Defined at"]]


def flags_by_job(app: Sphinx, docname: str) -> list[nodes.Node]:
    env = app.env
    capture, domain, book = capture_of(env), domain_of(env), current_book(env)
    documented = domain.documented_flags()
    out: list[nodes.Node] = []
    headers = ["Flag", "Default", "Type", "Backend", "Defined at"]
    by_doc: dict[str, list[str]] = defaultdict(list)
    for name, (doc, _) in documented.items():
        by_doc[doc].append(name)
    for section in book.sections:
        names = sorted(by_doc.get(section.docname, []))
        if not names:
            continue
        heading = nodes.paragraph(classes=["m101-table-heading"])
        heading += doc_link(section.docname, docname)  # the title carries its number
        out.append(heading)
        rows = []
        for name in names:
            for rec in capture.flags.get(name, []) or capture.flag(name) or []:
                row = _flag_row(rec, capture, None)
                row[0] = make_refnode(app.builder, docname, section.docname, documented[name][1], row[0])
                rows.append(row)
        out.append(table(headers, rows))
    groups: dict[str, list[dict]] = defaultdict(list)
    for rec in sorted({id(r): r for rs in capture.flags.values() for r in rs}.values(),
                      key=lambda r: (r["name"], r["file"], r["line"])):
        if rec["name"] not in documented:
            groups[rec.get("group") or "other"].append(rec)
    out.append(nodes.rubric("", "Every other Miles flag, by argument group"))
    seen: set[str] = set()
    for group in sorted(groups):
        out.append(nodes.paragraph("", "", nodes.strong("", group), classes=["m101-table-heading"]))
        rows = []
        for rec in groups[group]:
            anchor = None if rec["name"] in seen else flag_anchor(rec["name"])
            seen.add(rec["name"])
            rows.append(_flag_row(rec, capture, anchor))
        out.append(table(headers, rows))
    for fam in capture.families:
        out.append(nodes.paragraph("", f"Passthrough family {fam['prefix']}*: ", nodes.reference(
            "", f"{fam.get('file')}:{fam.get('line')}", refuri=capture.src_url(fam.get("file", ""), fam.get("line")))))
    return out


def metrics_table(app: Sphinx, docname: str) -> list[nodes.Node]:
    env = app.env
    capture, domain = capture_of(env), domain_of(env)
    explained: dict[str, list[str]] = defaultdict(list)
    for doc, cite in domain.cites("metric"):
        if doc not in explained[cite["key"]]:
            explained[cite["key"]].append(doc)
    records = sorted([*capture.metrics.values(), *(rec for _, rec in capture.metric_patterns)], key=lambda r: r["key"])

    def row(rec: dict, pages: list[str]) -> list:
        where = nodes.reference("", f"{rec['file']}:{rec['line']}", refuri=capture.src_url(rec["file"], rec["line"]))
        key = nodes.inline("", "", nodes.literal("", rec["key"]), ids=[metric_anchor(rec["key"])])
        links = nodes.inline()
        for i, page in enumerate(pages):
            if i:
                links += nodes.Text(", ")
            links += doc_link(page, docname)
        return [key, rec.get("kind", "literal"), where, links]

    out: list[nodes.Node] = [nodes.rubric("", "Metrics this manual explains")]
    out.append(table(["Key", "Kind", "Logged at", "Explained in"],
                     [row(r, explained[r["key"]]) for r in records if r["key"] in explained]))
    by_prefix: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        if rec["key"] not in explained:
            by_prefix[rec.get("prefix") or rec["key"].split("/")[0]].append(rec)
    out.append(nodes.rubric("", "Every other key Miles logs"))
    for prefix in sorted(by_prefix):
        out.append(nodes.paragraph("", "", nodes.strong("", f"{prefix}/"), classes=["m101-table-heading"]))
        out.append(table(["Key", "Kind", "Logged at", "Explained in"], [row(r, []) for r in by_prefix[prefix]]))
    return out


def lab_notes(app: Sphinx, docname: str) -> list[nodes.Node]:
    env = app.env
    capture, book = capture_of(env), current_book(env)
    ids = {s.id: s.docname for s in book.sections}
    out: list[nodes.Node] = []
    rows = []
    for run_id, run in sorted(capture.runs.items()):
        rec = capture.recordings.get(run_id)
        sections = nodes.inline()
        for i, sid in enumerate(run.get("sections") or []):
            if i:
                sections += nodes.Text(", ")
            sections += doc_link(ids[sid], docname) if sid in ids else nodes.Text(sid)
        if rec:
            r = rec["run"]
            status = f"recorded {str(r.get('end', ''))[:10]}"
            host = str(rec["host"].get("gpu", "?"))
            where = f"{r.get('image_digest') or r.get('image')}, Miles {str(r.get('miles_commit'))[:9]}"
            events = "; ".join(f"{e.get('kind')}: {e.get('detail')}" for e in r.get("events", [])) or "none"
        else:
            status, host, where, events = "pending", "—", str(run.get("image", "—")), "—"
        n_values = len(run.get("values") or {})
        rows.append([nodes.literal("", run_id), run.get("title", ""), sections, status, host, where, events,
                     f"{n_values} value(s)"])
    out.append(table(["Run", "What", "Cited by", "Status", "Host", "Image and commit", "Events", "Yields"], rows))
    failed = [a for a in capture.attempts]
    if failed:
        out.append(nodes.rubric("", "Failed and interrupted attempts (never read as data)"))
        out.append(table(["Attempt", "Run", "Reason", "Ended"],
                         [[a["dir"], a.get("id", "?"), str(a.get("reason", "?")), str(a.get("end", "?"))] for a in failed]))
    pending = [f"{rid}.{name}" for rid, run in sorted(capture.runs.items()) if rid not in capture.recordings
               for name in (run.get("values") or {})]
    out.append(nodes.rubric("", f"Pending values ({len(pending)})"))
    if pending:
        items = nodes.bullet_list()
        for key in pending:
            items += nodes.list_item("", nodes.paragraph("", "", nodes.literal("", key)))
        out.append(items)
    else:
        out.append(nodes.paragraph("", "None: every declared value has a valid recording."))
    return out


def sources_list(app: Sphinx, docname: str) -> list[nodes.Node]:
    env = app.env
    capture, domain, book = capture_of(env), domain_of(env), current_book(env)
    out: list[nodes.Node] = [nodes.rubric("", "Sources named in manual.json")]
    out.append(table(["Source", "Where", "Used for"],
                     [[s["name"], s["path"], s["usedFor"]] for s in book.data["sources"]]))
    files: dict[str, set[str]] = defaultdict(set)
    for doc, cite in domain.cites("src"):
        files[cite["key"]].add(doc)
    out.append(nodes.rubric("", f"Miles files cited ({len(files)})"))
    out.append(table(["File", "Cited in"], [
        [nodes.reference("", path, refuri=capture.src_url(path)), _doc_links(sorted(docs), docname)]
        for path, docs in sorted(files.items())]))
    issues: dict[str, set[str]] = defaultdict(set)
    for doc, cite in domain.cites("issue"):
        issues[cite["key"]].add(doc)
    out.append(nodes.rubric("", f"Issues and pull requests cited ({len(issues)})"))
    out.append(table(["Issue", "Cited in"], [
        [nodes.reference("", ref, refuri="https://github.com/{}/issues/{}".format(*ref.split("#"))),
         _doc_links(sorted(docs), docname)] for ref, docs in sorted(issues.items())]))
    facts: dict[str, set[str]] = defaultdict(set)
    for doc, cite in domain.cites("fact"):
        facts[cite["key"]].add(doc)
    out.append(nodes.rubric("", f"Public facts cited ({len(facts)})"))
    rows = []
    for key, docs in sorted(facts.items()):
        value = capture.value("fact", key)
        src = (value.detail.get("source") if value else "") or ""
        rows.append([nodes.literal("", key), nodes.reference("", value.detail.get("source_title") or src, refuri=src)
                     if src else nodes.Text("—"), str(value.detail.get("read", "—")) if value else "—",
                     _doc_links(sorted(docs), docname)])
    out.append(table(["Fact", "Source", "Read", "Cited in"], rows))
    return out


def _doc_links(docs: list[str], fromdoc: str) -> nodes.inline:
    box = nodes.inline()
    for i, doc in enumerate(docs):
        if i:
            box += nodes.Text(", ")
        box += doc_link(doc, fromdoc)
    return box


def figure_index(app: Sphinx, docname: str) -> list[nodes.Node]:
    env = app.env
    book = current_book(env)
    order = {s.docname: i for i, s in enumerate(book.sections)}
    order[book.root_doc] = -1
    figures = sorted(domain_of(env).figures(), key=lambda f: (order.get(f[1]["docname"], 999), f[0]))
    rows = []
    for fig_id, fig in figures:
        link = make_refnode(app.builder, docname, fig["docname"], fig_id, nodes.literal("", fig_id))
        rows.append([link, fig["title"], doc_link(fig["docname"], docname)])
    return [table(["Figure", "Title", "Page"], rows), nodes.paragraph("", f"{len(rows)} figures in the book.")]


BUILDERS = {"flags-by-job": flags_by_job, "metrics-table": metrics_table, "lab-notes": lab_notes,
            "sources-list": sources_list, "figure-index": figure_index}


class FillGenerated(SphinxPostTransform):
    """Replace each placeholder with its table, before Sphinx resolves the links it holds."""

    default_priority = 5

    def run(self, **kwargs) -> None:
        for node in list(self.document.findall(generated)):
            content = BUILDERS[node["kind"]](current_app(self.env), self.env.docname)
            box = nodes.container(classes=["m101-generated", f"m101-{node['kind']}"])
            box.extend(content)
            node.replace_self(box)


def generated_docs(env) -> dict[str, list[str]]:
    """The pages holding generated tables, and which tables each holds."""
    return {d: rec["generated"] for d, rec in domain_of(env).data["docs"].items() if rec.get("generated")}


def table_inputs(env, kind: str) -> object:
    """Everything one kind of generated table reads, as JSON-able data (its digest decides rewrites)."""
    capture, domain = capture_of(env), domain_of(env)
    titles = {d: env.titles[d].astext() for d in env.titles}
    if kind == "flags-by-job":
        return [capture.provenance, capture.flags, capture.families, domain.documented_flags(), titles]
    if kind == "metrics-table":
        return [capture.provenance, capture.metrics, [r for _, r in capture.metric_patterns],
                list(domain.cites("metric")), titles]
    if kind == "lab-notes":
        return [capture.runs, capture.recordings, capture.attempts, titles]
    if kind == "sources-list":
        facts = {k: v.detail for (kind_, k), v in capture.values.items() if kind_ == "fact"}
        return [capture.provenance, [list(domain.cites(k)) for k in ("src", "issue", "fact")], facts, titles]
    if kind == "figure-index":
        return [sorted(domain.figures()), titles]
    raise KeyError(kind)
