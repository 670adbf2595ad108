"""The book's frame: toctrees from manual.json, section numbers and accents, per-page value lists."""
from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from .domain import book_of, capture_of, domain_of
from .roles import HOME_HARDWARE, provenance_text
from .repository import record_yourself, repository_url
from ..text import record_command


def add_toctrees(app: Sphinx, docname: str, source: list[str]) -> None:
    """Append one hidden, captioned toctree per part (then the Reference) to the root page."""
    book = book_of(app.env)
    if docname != book.root_doc:
        return
    blocks = []
    for part in book.parts:
        entries = "\n".join(s.docname for s in part.sections)
        blocks.append(f"\n\n```{{toctree}}\n:caption: {part.caption}\n:hidden:\n\n{entries}\n```\n")
    source[0] += "".join(blocks)


class SectionChrome(SphinxTransform):
    """Number the title ("2.3 ..."), add the part eyebrow in its accent, mark unwritten pages."""

    default_priority = 400

    def apply(self, **kwargs) -> None:
        section = book_of(self.env).section_for(self.env.docname)
        if section is None:
            return
        domain_of(self.env).note_book(self.env.docname, f"section:{self.env.docname}")
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None or not isinstance(top[0], nodes.title):
            return
        title = top[0]
        title.insert(0, nodes.inline("", f"{section.id} ", classes=["m101-secnum"]))
        part = section.part
        eyebrow = nodes.paragraph(classes=["m101-eyebrow", f"m101-accent-{part.accent}"])
        eyebrow += nodes.inline("", part.caption if part.key != "R" else "Reference", classes=["m101-part"])
        eyebrow += nodes.inline("", f" · {section.id}", classes=["m101-secid"])
        unwritten = all(isinstance(child, (nodes.title, nodes.target, nodes.comment)) for child in top)
        top.insert(1, eyebrow)
        self.document["classes"].append(f"m101-accent-{part.accent}")
        if unwritten:
            top.insert(2, nodes.paragraph("", part.thesis, classes=["m101-thesis", "m101-unwritten"]))


#: What a page cites that is not a value (a name or a link): every other kind is listed with its source.
NOT_VALUES = frozenset({"flag", "metric", "src", "issue"})


class ValuesOnPage(SphinxTransform):
    """End every page that cites values with a list of them and where each comes from."""

    default_priority = 880

    def apply(self, **kwargs) -> None:
        if not self.env.docname:
            return
        cites = [c for c in domain_of(self.env).record(self.env.docname)["cites"]
                 if c["kind"] not in NOT_VALUES]
        if not cites:
            return
        capture = capture_of(self.env)
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None:
            return
        section = nodes.section(ids=["values-on-this-page"], classes=["m101-values-list"])
        section += nodes.title("", "Values on this page")
        values = []
        seen: set[tuple[str, str]] = set()
        for cite in cites:
            if (cite["kind"], cite["key"]) in seen:
                continue
            seen.add((cite["kind"], cite["key"]))
            value = capture.value(cite["kind"], cite["key"])
            if value is not None:
                values.append((cite, value))
        section += pending_runs(capture, [v for _, v in values if v.kind == "measured" and v.pending],
                                repository_url(self.config))
        groups: dict[str, nodes.bullet_list] = {}
        for cite, value in values:  # one list per source: a run, a formula; facts each name their own
            para = nodes.paragraph()  # the group's heading names the kind; "other" rows name theirs
            grouped = value.kind == "computed" or (value.kind == "measured" and value.pending)
            para += nodes.literal("", cite["key"] if grouped else f"{cite['kind']}:{cite['key']}")
            if value.kind == "measured" and value.missing:
                head = f"Measured by the run {value.detail['run']}, recorded, not derivable from its recording:"
                para += nodes.Text(f" — {value.what}: {value.missing}.")
            elif value.kind == "measured" and value.pending:
                head = f"Measured by the run {value.detail['run']}, pending:"
                para += nodes.Text(f" — {value.what}.")
            elif value.kind == "computed":
                head = f"Computed by {value.detail.get('formula')} from Miles's extracted data:"
                para += nodes.Text(f" — {cite['shown']}: {value.what}.")
            else:
                head = "Other values, each with its source:"
                para += nodes.Text(f" — {cite['shown']}. {provenance_text(value, HOME_HARDWARE)}")
            groups.setdefault(head, nodes.bullet_list()).append(nodes.list_item("", para))
        for head, items in groups.items():
            section += nodes.paragraph("", head, classes=["m101-values-source"])
            section += items
        top += section


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
            names = "; ".join(f"{v.key.partition('.')[2]}: {v.missing}" for v in values)
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


def setup_chrome(app: Sphinx) -> None:
    app.connect("source-read", add_toctrees)
    app.add_transform(SectionChrome)
    app.add_transform(ValuesOnPage)
