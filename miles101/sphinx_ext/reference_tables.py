"""The Reference part's tables, built from the data and from what every page cites.

Each directive leaves a placeholder; `FillGenerated` replaces it once every page has been read
(like sphinx.ext.todo's todolist). The tables are written as HTML directly: they hold hundreds
of rows, and one raw node (which Sphinx's search still indexes) costs a fraction of a docutils
table. A page is rewritten only when the inputs of its own tables change (`table_inputs`).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from html import escape

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from .directives import flag_fields
from .domain import capture_of, domain_of, flag_anchor, metric_anchor
from .elements import m101_generated as generated
from .state import current_app, current_book

KINDS = ("flags-by-job", "metrics-table", "lab-notes", "sources-list", "figure-index")


class GeneratedDirective(SphinxDirective):
    """```{flags-by-job}``` and friends: a placeholder filled after reading."""

    def run(self) -> list[nodes.Node]:
        record = domain_of(self.env).record(self.env.docname)
        record["generated"] = sorted({*record.get("generated", []), self.name})
        return [generated("", kind=self.name)]


class Page:
    """HTML pieces for one page: links relative to it, code, tables, headings."""

    def __init__(self, app, docname: str) -> None:
        self.app, self.env, self.docname = app, app.env, docname

    def href(self, docname: str, anchor: str = "") -> str:
        uri = self.app.builder.get_relative_uri(self.docname, docname)
        return escape(uri + (f"#{anchor}" if anchor else ""))

    def doc(self, docname: str) -> str:
        title = self.env.titles[docname].astext() if docname in self.env.titles else docname
        return f'<a class="reference internal" href="{self.href(docname)}">{escape(title)}</a>'

    def docs(self, docnames: Iterable[str]) -> str:
        return ", ".join(self.doc(d) for d in docnames)

    @staticmethod
    def code(text: str, anchor: str | None = None) -> str:
        ident = f' id="{escape(anchor)}"' if anchor else ""
        return f'<code class="docutils literal notranslate"{ident}>{escape(text)}</code>'

    @staticmethod
    def ext(url: str, text: str) -> str:
        return f'<a class="reference external" href="{escape(url)}">{escape(text)}</a>'

    @staticmethod
    def heading(inner_html: str, rubric: bool = False) -> str:
        return f'<p class="{"rubric" if rubric else "m101-table-heading"}">{inner_html}</p>'

    @staticmethod
    def table(headers: list[str], rows: Iterable[list[str]]) -> str:
        """Cells are HTML already; headers are plain text."""
        head = "".join(f'<th class="head">{escape(h)}</th>' for h in headers)
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
        return (f'<div class="table-wrapper"><table class="docutils m101-table">'
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def _flag_row(page: Page, rec: dict, capture, name_html: str) -> list[str]:
    facts = {f.label: f for f in flag_fields(rec, capture)}
    default = facts["Default"].html() if "Default" in facts else "—"
    return [name_html, default, escape(rec.get("type") or "—"), escape(rec.get("backend") or "both"),
            facts["Defined at"].html()]


FLAG_HEADERS = ["Flag", "Default", "Type", "Backend", "Defined at"]


def flags_by_job(page: Page) -> list[str]:
    env = page.env
    capture, domain, book = capture_of(env), domain_of(env), current_book(env)
    documented = domain.documented_flags()
    out: list[str] = []
    by_doc: dict[str, list[str]] = defaultdict(list)
    for name, (doc, _) in documented.items():
        by_doc[doc].append(name)
    for section in book.sections:
        names = sorted(by_doc.get(section.docname, []))
        if not names:
            continue
        out.append(page.heading(page.doc(section.docname)))  # the title carries its number
        rows = []
        for name in names:
            link = f'<a class="reference internal" href="{page.href(section.docname, documented[name][1])}">' \
                   f"{page.code(name)}</a>"
            rows.extend(_flag_row(page, rec, capture, link) for rec in capture.flags.get(name) or capture.flag(name))
        out.append(page.table(FLAG_HEADERS, rows))
    groups: dict[str, list[dict]] = defaultdict(list)
    for rec in sorted({id(r): r for rs in capture.flags.values() for r in rs}.values(),
                      key=lambda r: (r["name"], r["file"], r["line"])):
        if rec["name"] not in documented:
            groups[rec.get("group") or "other"].append(rec)
    out.append(page.heading("Every other Miles flag, by argument group", rubric=True))
    seen: set[str] = set()
    for group in sorted(groups):
        out.append(page.heading(f"<strong>{escape(group)}</strong>"))
        rows = []
        for rec in groups[group]:
            anchor = None if rec["name"] in seen else flag_anchor(rec["name"])
            seen.add(rec["name"])
            rows.append(_flag_row(page, rec, capture, page.code(rec["name"], anchor)))
        out.append(page.table(FLAG_HEADERS, rows))
    for fam in capture.families:
        members = fam.get("members")
        count = "members not extracted" if members is None else f"{len(members)} options"
        if fam.get("members_source"):
            count += f"; read from {fam['members_source']}"
        out.append(f"<p>Passthrough family {page.code(fam['prefix'] + '*')} ({escape(fam.get('kind', ''))}, "
                   f"{count}): {page.ext(capture.src_url(fam.get('file', ''), fam.get('line')), str(fam.get('file')) + ':' + str(fam.get('line')))}</p>")
    return out


def metrics_table(page: Page) -> list[str]:
    capture, domain = capture_of(page.env), domain_of(page.env)
    explained: dict[str, list[str]] = defaultdict(list)
    for doc, cite in domain.cites("metric"):
        if doc not in explained[cite["key"]]:
            explained[cite["key"]].append(doc)
    records = sorted([*capture.metrics.values(), *(rec for _, rec in capture.metric_patterns)], key=lambda r: r["key"])
    headers = ["Key", "Kind", "Logged at", "Explained in"]

    def row(rec: dict) -> list[str]:
        where = page.ext(capture.src_url(rec["file"], rec["line"]), f"{rec['file']}:{rec['line']}")
        return [page.code(rec["key"], metric_anchor(rec["key"])), escape(rec.get("kind", "literal")), where,
                page.docs(explained.get(rec["key"], []))]

    out = [page.heading("Metrics this manual explains", rubric=True),
           page.table(headers, [row(r) for r in records if r["key"] in explained])]
    by_prefix: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        if rec["key"] not in explained:
            by_prefix[rec.get("prefix") or rec["key"].split("/")[0]].append(rec)
    out.append(page.heading("Every other key Miles logs", rubric=True))
    for prefix in sorted(by_prefix):
        out.append(page.heading(f"<strong>{escape(prefix)}/</strong>"))
        out.append(page.table(headers, [row(r) for r in by_prefix[prefix]]))
    return out


def lab_notes(page: Page) -> list[str]:
    capture, book = capture_of(page.env), current_book(page.env)
    ids = {s.id: s.docname for s in book.sections}
    rows = []
    for run_id, run in sorted(capture.runs.items()):
        rec = capture.recordings.get(run_id)
        cited = ", ".join(page.doc(ids[s]) if s in ids else escape(str(s)) for s in run.get("sections") or [])
        if rec:
            r = rec["run"]
            status = f"recorded {str(r.get('end', ''))[:10]}"
            host = str(rec["host"].get("gpu", "?"))
            where = f"{r.get('image_digest') or r.get('image')}, Miles {str(r.get('miles_commit'))[:9]}"
            events = "; ".join(f"{e.get('kind')}: {e.get('detail')}" for e in r.get("events", [])) or "none"
        else:
            status, host, where, events = "pending", "—", str(run.get("image", "—")), "—"
        rows.append([page.code(run_id), escape(run.get("title", "")), cited, escape(status), escape(host),
                     escape(where), escape(events), f"{len(run.get('values') or {})} value(s)"])
    out = [page.table(["Run", "What", "Cited by", "Status", "Host", "Image and commit", "Events", "Yields"], rows)]
    if capture.attempts:
        out.append(page.heading("Failed and interrupted attempts (never read as data)", rubric=True))
        out.append(page.table(["Attempt", "Run", "Reason", "Ended"], [
            [escape(a["dir"]), escape(str(a.get("id", "?"))), escape(str(a.get("reason", "?"))),
             escape(str(a.get("end", "?")))] for a in capture.attempts]))
    pending = [f"{rid}.{name}" for rid, run in sorted(capture.runs.items()) if rid not in capture.recordings
               for name in (run.get("values") or {})]
    out.append(page.heading(f"Pending values ({len(pending)})", rubric=True))
    if pending:
        out.append('<ul class="simple">' + "".join(f"<li><p>{page.code(k)}</p></li>" for k in pending) + "</ul>")
    else:
        out.append("<p>None: every declared value has a valid recording.</p>")
    return out


def sources_list(page: Page) -> list[str]:
    capture, domain, book = capture_of(page.env), domain_of(page.env), current_book(page.env)
    out = [page.heading("Sources named in manual.json", rubric=True),
           page.table(["Source", "Where", "Used for"],
                      [[escape(s["name"]), escape(s["path"]), escape(s["usedFor"])] for s in book.data["sources"]])]
    cited: dict[str, dict[str, set[str]]] = {k: defaultdict(set) for k in ("src", "issue", "fact")}
    for kind, found in cited.items():
        for doc, cite in domain.cites(kind):
            found[cite["key"]].add(doc)
    out.append(page.heading(f"Miles files cited ({len(cited['src'])})", rubric=True))
    out.append(page.table(["File", "Cited in"], [[page.ext(capture.src_url(path), path), page.docs(sorted(docs))]
                                                 for path, docs in sorted(cited["src"].items())]))
    out.append(page.heading(f"Issues and pull requests cited ({len(cited['issue'])})", rubric=True))
    out.append(page.table(["Issue", "Cited in"], [
        [page.ext("https://github.com/{}/issues/{}".format(*ref.split("#")), ref), page.docs(sorted(docs))]
        for ref, docs in sorted(cited["issue"].items())]))
    out.append(page.heading(f"Public facts cited ({len(cited['fact'])})", rubric=True))
    rows = []
    for key, docs in sorted(cited["fact"].items()):
        value = capture.value("fact", key)
        src = (value.detail.get("source") if value else "") or ""
        title = (value.detail.get("source_title") if value else "") or src
        rows.append([page.code(key), page.ext(src, title) if src else "—",
                     escape(str(value.detail.get("read", "—"))) if value else "—", page.docs(sorted(docs))])
    out.append(page.table(["Fact", "Source", "Read", "Cited in"], rows))
    return out


def figure_index(page: Page) -> list[str]:
    book = current_book(page.env)
    order = {s.docname: i for i, s in enumerate(book.sections)}
    order[book.root_doc] = -1
    figures = sorted(domain_of(page.env).figures(), key=lambda f: (order.get(f[1]["docname"], 999), f[0]))
    rows = [[f'<a class="reference internal" href="{page.href(fig["docname"], fig_id)}">{page.code(fig_id)}</a>',
             escape(fig["title"]), page.doc(fig["docname"])] for fig_id, fig in figures]
    return [page.table(["Figure", "Title", "Page"], rows), f"<p>{len(rows)} figures in the book.</p>"]


BUILDERS = {"flags-by-job": flags_by_job, "metrics-table": metrics_table, "lab-notes": lab_notes,
            "sources-list": sources_list, "figure-index": figure_index}


class FillGenerated(SphinxPostTransform):
    """Replace each placeholder with its table, before Sphinx resolves the links it holds."""

    default_priority = 5

    def run(self, **kwargs) -> None:
        app = current_app(self.env)
        for node in list(self.document.findall(generated)):
            box = nodes.container(classes=["m101-generated", f"m101-{node['kind']}"])
            if app.builder.format == "html":
                html = "\n".join(BUILDERS[node["kind"]](Page(app, self.env.docname)))
                box += nodes.raw("", html, format="html")
            else:
                box += nodes.paragraph("", "This table is generated for the HTML edition of the manual.")
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
