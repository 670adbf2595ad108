"""The Reference part's tables, built from the data and from what every page cites.

Each directive leaves a placeholder; `fill_generated_tables` replaces it at `doctree-resolved`,
once every page has been read (as sphinx.ext.todo fills its todolist). A table is first described
as plain data (`Heading`, `Table`, `Para`, `Items`, whose cells hold `Code`, `Link`, `DocLink`,
`Ext` and text), then written for the builder at hand: the web builders (html, dirhtml,
singlehtml) get one raw HTML node (hundreds of rows as docutils nodes cost a quarter of the
build, and Sphinx's search still indexes raw text), every other builder (epub, whose wide tables
are stacked for a small screen, latex, text, man, texinfo, ...) gets real docutils tables. A page is rewritten only when the inputs of its own
tables change (`table_inputs`, `incremental.rewritten_docs`).
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from html import escape
from typing import Any, NamedTuple, Union

from docutils import nodes
from sphinx.application import Sphinx

from ..kinds import record_command
from .base import ManualDirective, skip_node
from .domain import book_of, capture_of, domain_of, flag_anchor
from .flags import Fact, flag_fields

KINDS = ("flags-by-job", "metrics-table", "lab-notes", "sources-list", "figure-index")


class m101_generated(nodes.General, nodes.Element):
    """A placeholder for a table built after every page is read (R.1 ... R.5), replaced before writing."""


class GeneratedDirective(ManualDirective):
    """```{flags-by-job}``` and friends: a placeholder filled after reading."""

    def run(self) -> list[nodes.Node]:
        record = domain_of(self.env).record(self.env.docname)
        record["generated"] = sorted({*record.get("generated", []), self.name})
        return [m101_generated("", kind=self.name)]


# -- the tables as data ------------------------------------------------------------------------
class Code(NamedTuple):
    text: str
    anchor: str | None = None


class DocLink(NamedTuple):
    """A link to a page, its text the page's title."""

    docname: str


class Link(NamedTuple):
    """A link to an anchor on a page of the book."""

    docname: str
    anchor: str
    inner: Any


class Ext(NamedTuple):
    url: str
    inner: Any


Inline = Union[str, Code, DocLink, Link, Ext, list]


class Heading(NamedTuple):
    inner: Inline
    rubric: bool = False
    strong: bool = False


class Table(NamedTuple):
    headers: list[str]
    rows: list[list[Inline]]


class Para(NamedTuple):
    inner: Inline


class Items(NamedTuple):
    items: list[Inline]


def fact(f: Fact) -> Inline:
    inner: Inline = Code(f.text) if f.code else f.text
    return Ext(f.href, inner) if f.href else inner


def docs(docnames: Iterable[str]) -> list:
    out: list = []
    for i, d in enumerate(docnames):
        out.extend([", ", DocLink(d)] if i else [DocLink(d)])
    return out


# -- writers -----------------------------------------------------------------------------------
class HtmlWriter:
    """The tables as one HTML string, links relative to the page being written."""

    def __init__(self, app: Sphinx, fromdoc: str) -> None:
        self.builder, self.env, self.fromdoc = app.builder, app.env, fromdoc

    def href(self, docname: str, anchor: str = "") -> str:
        return escape(self.builder.get_relative_uri(self.fromdoc, docname) + (f"#{anchor}" if anchor else ""))

    def inline(self, x: Inline) -> str:
        if isinstance(x, str):
            return escape(x)
        if isinstance(x, Code):
            ident = f' id="{escape(x.anchor)}"' if x.anchor else ""
            return f'<code class="docutils literal notranslate"{ident}>{escape(x.text)}</code>'
        if isinstance(x, DocLink):
            title = self.env.titles[x.docname].astext() if x.docname in self.env.titles else x.docname
            return f'<a class="reference internal" href="{self.href(x.docname)}">{escape(title)}</a>'
        if isinstance(x, Link):
            return f'<a class="reference internal" href="{self.href(x.docname, x.anchor)}">{self.inline(x.inner)}</a>'
        if isinstance(x, Ext):
            return f'<a class="reference external" href="{escape(x.url)}">{self.inline(x.inner)}</a>'
        return "".join(self.inline(part) for part in x)

    def block(self, b: Any) -> str:
        if isinstance(b, Heading):
            inner = f"<strong>{self.inline(b.inner)}</strong>" if b.strong else self.inline(b.inner)
            return f'<p class="{"rubric" if b.rubric else "m101-table-heading"}">{inner}</p>'
        if isinstance(b, Table):
            head = "".join(f'<th class="head">{escape(h)}</th>' for h in b.headers)
            body = "".join("<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in row) + "</tr>" for row in b.rows)
            return (f'<div class="table-wrapper"><table class="docutils m101-table">'
                    f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
        if isinstance(b, Para):
            return f"<p>{self.inline(b.inner)}</p>"
        return '<ul class="simple">' + "".join(f"<li><p>{self.inline(i)}</p></li>" for i in b.items) + "</ul>"

    def write(self, blocks: list) -> list[nodes.Node]:
        return [nodes.raw("", "\n".join(self.block(b) for b in blocks), format="html")]


class NodeWriter:
    """The tables as docutils nodes (tables, rubrics, paragraphs), for every other builder."""

    def __init__(self, app: Sphinx, fromdoc: str) -> None:
        self.builder, self.env, self.fromdoc = app.builder, app.env, fromdoc

    def ref(self, docname: str, anchor: str, children: list[nodes.Node]) -> nodes.reference:
        uri = self.builder.get_relative_uri(self.fromdoc, docname) + (f"#{anchor}" if anchor else "")
        return nodes.reference("", "", *children, internal=True, refuri=uri)

    def inline(self, x: Inline) -> list[nodes.Node]:
        if isinstance(x, str):
            return [nodes.Text(x)]
        if isinstance(x, Code):
            return [nodes.literal(x.text, x.text, ids=[x.anchor] if x.anchor else [])]
        if isinstance(x, DocLink):
            title = self.env.titles[x.docname].astext() if x.docname in self.env.titles else x.docname
            return [self.ref(x.docname, "", [nodes.inline(title, title)])]
        if isinstance(x, Link):
            return [self.ref(x.docname, x.anchor, self.inline(x.inner))]
        if isinstance(x, Ext):
            return [nodes.reference("", "", *self.inline(x.inner), refuri=x.url)]
        return [n for part in x for n in self.inline(part)]

    def para(self, x: Inline) -> nodes.paragraph:
        return nodes.paragraph("", "", *self.inline(x))

    def block(self, b: Any) -> nodes.Node:
        if isinstance(b, Heading):
            inner = [nodes.strong("", "", *self.inline(b.inner))] if b.strong else self.inline(b.inner)
            return nodes.rubric("", "", *inner) if b.rubric else nodes.paragraph("", "", *inner)
        if isinstance(b, Table):
            table = nodes.table(classes=["m101-table"])
            group = nodes.tgroup(cols=len(b.headers))
            table += group
            cells = [[self.para(c) for c in row] for row in b.rows]
            widths = [min(40, 2 + max([len(h), *(len(row[i].astext()) for row in cells)])) for i, h in enumerate(b.headers)]
            group.extend(nodes.colspec(colwidth=w) for w in widths)  # the text writer's widths; latex's ratios
            head = nodes.thead()
            head += nodes.row("", *(nodes.entry("", nodes.paragraph(h, h)) for h in b.headers))
            body = nodes.tbody()
            for row in cells:
                body += nodes.row("", *(nodes.entry("", p) for p in row))
            group += [head, body]
            return table
        if isinstance(b, Para):
            return self.para(b.inner)
        return nodes.bullet_list("", *(nodes.list_item("", self.para(i)) for i in b.items))

    def write(self, blocks: list) -> list[nodes.Node]:
        return [self.block(b) for b in blocks]


def _flag_row(rec: dict, capture, name: Inline) -> list[Inline]:
    facts = {f.label: f for f in flag_fields(rec, capture)}
    default = fact(facts["Default"]) if "Default" in facts else "—"
    return [name, default, rec.get("type") or "—", rec.get("backend") or "both", fact(facts["Defined at"])]


FLAG_HEADERS = ["Flag", "Default", "Type", "Backend", "Defined at"]


def flags_by_job(env) -> list:
    capture, domain, book = capture_of(env), domain_of(env), book_of(env)
    documented = domain.documented_flags()
    out: list = []
    by_doc: dict[str, list[str]] = defaultdict(list)
    for name, (doc, _) in documented.items():
        by_doc[doc].append(name)
    for section in book.sections:
        names = sorted(by_doc.get(section.docname, []))
        if not names:
            continue
        out.append(Heading(DocLink(section.docname)))  # the title carries its number
        rows = []
        for name in names:
            link = Link(section.docname, documented[name][1], Code(name))
            rows.extend(_flag_row(rec, capture, link) for rec in capture.flags.get(name) or capture.flag(name))
        out.append(Table(FLAG_HEADERS, rows))
    groups: dict[str, list[dict]] = defaultdict(list)
    for rec in sorted({id(r): r for rs in capture.flags.values() for r in rs}.values(),
                      key=lambda r: (r["name"], r["file"], r["line"])):
        if rec["name"] not in documented:
            groups[rec.get("group") or "other"].append(rec)
    out.append(Heading("Every other Miles flag, by argument group", rubric=True))
    seen: set[str] = set()
    for group in sorted(groups):
        out.append(Heading(group, strong=True))
        rows = []
        for rec in groups[group]:
            anchor = None if rec["name"] in seen else flag_anchor(rec["name"])
            seen.add(rec["name"])
            rows.append(_flag_row(rec, capture, Code(rec["name"], anchor)))
        out.append(Table(FLAG_HEADERS, rows))
    out.extend(passthrough_cited(env, capture, domain, documented))
    for fam in capture.families:
        members = fam.get("members")
        count = "members not extracted" if members is None else f"{len(members)} options"
        if fam.get("members_source"):
            count += f"; read from {fam['members_source']}"
        where = Ext(capture.src_url(fam.get("file", ""), fam.get("line")), f"{fam.get('file')}:{fam.get('line')}")
        out.append(Para(["Passthrough family ", Code(fam["prefix"] + "*", family_anchor(fam)),
                         f" ({fam.get('kind', '')}, {count}): ", where]))
    return out


def family_anchor(fam: dict) -> str:
    return "flag-family-" + (fam["prefix"].strip("-") or fam.get("kind") or "other").replace("_", "-")


def passthrough_cited(env, capture, domain, documented: dict) -> list:
    """One row, under the flag's own anchor, for every passthrough flag a page cites: its family and readers."""
    cited: dict[str, set[str]] = defaultdict(set)
    for docname, cite in domain.cites("flag"):
        if cite.key not in documented and cite.key not in capture.flags:
            cited[cite.key].add(docname)
    r1 = env.config.m101_reference_docs["R.1"]
    rows = []
    for name in sorted(cited):
        fam = capture.family_of(name)
        if fam is None:
            continue
        source = str(fam.get("members_source") or "")
        where = re.split(r"[;,(]", source)[0].strip() if source else "not extracted: it depends on the image"
        members = fam.get("members")
        if members is not None:
            where += "; in that list" if "--" + name[len(fam["prefix"]):] in members else "; not in that list"
        rows.append([Code(name, flag_anchor(name)),
                     [Link(r1, family_anchor(fam), Code(fam["prefix"] + "*")), f" ({fam.get('kind', '')})"],
                     where, docs(sorted(cited[name]))])
    if not rows:
        return []
    return [Heading("Passthrough flags the book cites", rubric=True),
            Para("Miles hands these to another program (SGLang, its router, or Megatron) by their family's "
                 "prefix, so their defaults are that program's. Each row names the family, where its members were "
                 "read from, and the pages that cite the flag."),
            Table(["Flag", "Family", "Members read from", "Cited on"], rows)]


def metrics_table(env) -> list:
    capture, domain = capture_of(env), domain_of(env)
    explained: dict[str, list[str]] = defaultdict(list)
    for doc, cite in domain.cites("metric"):
        if doc not in explained[cite.key]:
            explained[cite.key].append(doc)
    records = sorted([*capture.metrics.values(), *(rec for _, rec in capture.metric_patterns)], key=lambda r: r["key"])
    headers = ["Key", "Kind", "Logged at", "Explained in"]

    def row(rec: dict) -> list[Inline]:
        where = Ext(capture.src_url(rec["file"], rec["line"]), f"{rec['file']}:{rec['line']}")
        return [Code(rec["key"], domain.metric_anchor(rec["key"])), rec.get("kind", "literal"), where,
                docs(explained.get(rec["key"], []))]

    out: list = [Heading("Metrics this manual explains", rubric=True),
                 Table(headers, [row(r) for r in records if r["key"] in explained])]
    by_prefix: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        if rec["key"] not in explained:
            by_prefix[rec.get("prefix") or rec["key"].split("/")[0]].append(rec)
    out.append(Heading("Every other key Miles logs", rubric=True))
    for prefix in sorted(by_prefix):
        out.append(Heading(f"{prefix}/", strong=True))
        out.append(Table(headers, [row(r) for r in by_prefix[prefix]]))
    return out


def lab_notes(env) -> list:
    capture, book = capture_of(env), book_of(env)
    ids = {s.id: s.docname for s in book.sections}
    rows = []
    for run_id, run in sorted(capture.runs.items()):
        rec = capture.recordings.get(run_id)
        cited: list = []
        for i, s in enumerate(run.get("sections") or []):
            cited += ([", "] if i else []) + [DocLink(ids[s]) if s in ids else str(s)]
        if rec:
            r = rec["run"]
            status = f"recorded {str(r.get('end', ''))[:10]}"
            host = str(rec["host"].get("gpu", "?"))
            where = f"{r.get('image_digest') or r.get('image')}, Miles {str(r.get('miles_commit'))[:9]}"
            events = "; ".join(f"{e.get('kind')}: {e.get('detail')}" for e in r.get("events", [])) or "none"
        elif run.get("not_recorded"):  # a launch the book shows, which the lab does not record on a Spark
            status, host, where, events = f"not recorded: {run['not_recorded']}", "—", str(run.get("image", "—")), "—"
        else:
            status, host, where, events = "pending", "—", str(run.get("image", "—")), "—"
        rows.append([Code(run_id), run.get("title", ""), cited, status, host, where, events,
                     f"{len(run.get('values') or {})} value(s)"])
    url = env.config.m101_repository_url
    record = Code(record_command("<run-id>"))
    where: list = (["This book's repository: ", Ext(url, url), ". To record a run yourself, clone it on a DGX Spark (",
                    Code(f"git clone {url}"), ") and run ", record, " in it."] if url else
                   ["To record a run yourself, run ", record, " in a clone of this book's repository on a DGX Spark."])
    out: list = [Para(where),
                 Table(["Run", "What", "Cited by", "Status", "Host", "Image and commit", "Events", "Yields"], rows)]
    if capture.attempts:
        out.append(Heading("Failed and interrupted attempts (never read as data)", rubric=True))
        out.append(Table(["Attempt", "Run", "Reason", "Ended"], [
            [str(a["dir"]), str(a.get("id", "?")), str(a.get("reason", "?")), str(a.get("end", "?"))]
            for a in capture.attempts]))
    pending = [f"{rid}.{name}" for rid, run in sorted(capture.runs.items()) if rid not in capture.recordings
               for name in (run.get("values") or {})]
    out.append(Heading(f"Pending values ({len(pending)})", rubric=True))
    if pending:
        out.append(Items([Code(k) for k in pending]))
    else:
        out.append(Para("None: every declared value has a valid recording."))
    return out


def sources_list(env) -> list:
    capture, domain, book = capture_of(env), domain_of(env), book_of(env)
    out: list = [Heading("Sources named in manual.json", rubric=True),
                 Table(["Source", "Where", "Used for"], [[s["name"], s["path"], s["usedFor"]] for s in book.data["sources"]])]
    cited: dict[str, dict[str, set[str]]] = {k: defaultdict(set) for k in ("src", "issue", "fact")}
    for kind, found in cited.items():
        for doc, cite in domain.cites(kind):
            found[cite.key].add(doc)
    out.append(Heading(f"Miles files cited ({len(cited['src'])})", rubric=True))
    out.append(Table(["File", "Cited in"], [[Ext(capture.src_url(path), path), docs(sorted(d))]
                                            for path, d in sorted(cited["src"].items())]))
    out.append(Heading(f"Issues and pull requests cited ({len(cited['issue'])})", rubric=True))
    out.append(Table(["Issue", "Cited in"], [
        [Ext("https://github.com/{}/issues/{}".format(*ref.split("#")), ref), docs(sorted(d))]
        for ref, d in sorted(cited["issue"].items())]))
    out.append(Heading(f"Public facts cited ({len(cited['fact'])})", rubric=True))
    rows = []
    for key, d in sorted(cited["fact"].items()):
        value = capture.value("fact", key)
        src = (value.detail.get("source") if value else "") or ""
        title = (value.detail.get("source_title") if value else "") or src
        rows.append([Code(key), Ext(src, title) if src else "—",
                     str(value.detail.get("read", "—")) if value else "—", docs(sorted(d))])
    out.append(Table(["Fact", "Source", "Read", "Cited in"], rows))
    return out


def figure_index(env) -> list:
    book = book_of(env)
    order = {s.docname: i for i, s in enumerate(book.sections)}
    order[book.root_doc] = -1
    figures = sorted(domain_of(env).figures(), key=lambda f: (order.get(f[1].docname, 999), f[0]))
    rows = [[Link(fig.docname, fig_id, Code(fig_id)), fig.title, DocLink(fig.docname)] for fig_id, fig in figures]
    return [Table(["Figure", "Title", "Page"], rows), Para(f"{len(rows)} figures in the book.")]


TABLES = {"flags-by-job": flags_by_job, "metrics-table": metrics_table, "lab-notes": lab_notes,
          "sources-list": sources_list, "figure-index": figure_index}


def fill_generated_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Replace each placeholder with its table, written for this builder (`docname` is the page written)."""
    placeholders = list(doctree.findall(m101_generated))
    if not placeholders:
        return
    # EPUB gets nodes, so its wide tables can be stacked for a small screen (editions.stack_wide_tables).
    as_html = app.builder.format == "html" and not app.builder.name.startswith("epub")
    writer = (HtmlWriter if as_html else NodeWriter)(app, docname)
    for node in placeholders:
        box = nodes.container(classes=["m101-generated", f"m101-{node['kind']}"])
        box += writer.write(TABLES[node["kind"]](app.env))
        node.replace_self(box)


def table_inputs(env, kind: str) -> object:
    """Everything one kind of generated table reads, as JSON-able data (its digest decides rewrites)."""
    capture, domain = capture_of(env), domain_of(env)
    titles = {d: env.titles[d].astext() for d in env.titles}

    if kind == "flags-by-job":
        return [[capture.provenance, capture.flags, capture.families],
                domain.documented_flags(), titles, sorted({(d, c.key) for d, c in domain.cites("flag")})]
    if kind == "metrics-table":
        return [[capture.provenance, capture.metrics, [r for _, r in capture.metric_patterns]],
                list(domain.cites("metric")), titles]
    if kind == "lab-notes":
        return [[capture.runs, capture.recordings, capture.attempts],
                titles, env.config.m101_repository_url]
    if kind == "sources-list":
        facts = {k: v.detail for (kind_, k), v in capture.values.items() if kind_ == "fact"}
        # Only what the table shows: which page cites which key (not the shown text or the line).
        return [capture.provenance,
                [sorted({(d, c.key) for d, c in domain.cites(k)}) for k in ("src", "issue", "fact")], facts, titles]
    if kind == "figure-index":
        return [list(domain.figures()), titles]
    raise KeyError(kind)


def setup_reference_tables(app: Sphinx) -> None:
    for name in KINDS:
        app.add_directive(name, GeneratedDirective)
    app.add_node(m101_generated, **{b: (skip_node, None) for b in ("html", "text", "latex", "man", "texinfo")})
    app.connect("doctree-resolved", fill_generated_tables)
