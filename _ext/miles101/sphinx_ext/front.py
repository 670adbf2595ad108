"""The front page's directives: everything they show comes from manual.json."""
from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.addnodes import pending_xref
from sphinx.util.docutils import SphinxDirective

from ..kinds import BY_NAME, LegendEntry, legend
from ..palette import HUES, MEANINGS
from ..problems import Subtype
from .base import ManualDirective
from .domain import capture_of, domain_of
from .figures import DiagramDirective
from .marks import mark_of
from .repository import record_yourself, repository_url
from .theory import TOPIC_SEPARATORS, TheoryTermLinks
from .values import value_inline


def _para(text: str, *classes: str) -> nodes.paragraph:
    return nodes.paragraph("", text, classes=list(classes))


def doc_link(docname: str, fromdoc: str) -> pending_xref:
    """A link to a page whose text is the page's title, resolved by Sphinx's std domain."""
    return pending_xref("", nodes.inline("", docname), refdomain="std", reftype="doc",
                        reftarget="/" + docname, refdoc=fromdoc, refexplicit=False, refwarn=True)


def front_book(env):
    """The book, noted as read by this page: the page is read again when manual.json's content changes."""
    return domain_of(env).note_book(env.docname, "front")


class BookDirective(ManualDirective):
    """A front-page directive: what it shows comes from manual.json, noted as read by the page."""

    @property
    def book(self):
        return front_book(self.env)


class CoverDirective(BookDirective):
    """Subtitle, summary, edition and status."""

    def run(self) -> list[nodes.Node]:
        d = self.book.data
        box = nodes.container(classes=["m101-cover"])
        box += _para(d["subtitle"], "m101-subtitle")
        box += _para(d["summary"], "m101-summary")
        capture = capture_of(self.env)
        for run_id in capture.runs:  # the line below follows every recording
            self.note("run", run_id)
        done = sum(capture.recorded(run_id) for run_id in capture.runs)
        meta = nodes.paragraph(classes=["m101-edition"])
        meta += nodes.Text(f"Edition {d['edition']} · ")
        state = "none-recorded" if done == 0 else "all-recorded" if done == len(capture.runs) else "some-recorded"
        meta += nodes.inline("", f"runs recorded on a DGX Spark: {done} of {len(capture.runs)}",
                             classes=["m101-badge", f"m101-status-{state}"])
        box += meta
        if done == 0:
            box += _para("No run is recorded yet, so no measured line exists yet: each shows as pending until its "
                         "run is recorded on a Spark. Beside them you find public references (someone else's "
                         "hardware, or a rule in code), labelled as such.", "m101-honesty")
        elif done < len(capture.runs):
            box += _para("Until a run is recorded, its numbers show as pending. Beside them you find public "
                         "references (someone else's hardware, or a rule in code), labelled as such.", "m101-honesty")
        return [box]


class AudienceDirective(BookDirective):
    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["m101-audience"])
        box += nodes.rubric("", "Who this is for")
        box += _para(self.book.data["audience"])
        return [box]


class OutcomesDirective(BookDirective):
    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["m101-outcomes"])
        box += nodes.rubric("", "What you will be able to do")
        items = nodes.bullet_list()
        for outcome in self.book.data["outcomes"]:
            items += nodes.list_item("", _para(outcome))
        box += items
        return [box]


class PlateDirective(DiagramDirective):
    """The plate: the diagram in the page, its id, title and caption from manual.json."""

    required_arguments = 0
    option_spec = {}

    def run(self) -> list[nodes.Node]:
        plate = self.book.data["plate"]
        code = "\n".join(self.content)
        if not code.strip():
            return self.problem(Subtype.BAD_REFERENCE, "the plate has no diagram.",
                                "write the plate's mermaid code inside {book-plate}.")
        run_id = self.plate_run()
        recorded = run_id is None or capture_of(self.env).recorded(run_id)
        label = "" if recorded else "The run this figure will show, once it is recorded on a DGX Spark:"
        fig = self.figure(plate["figure"], plate["title"], plate["caption"], code, caption_label=label)
        if fig is None:
            return []
        fig["classes"].append("m101-plate")
        values = self.plate_values()
        if values:
            if not recorded:
                fig += nodes.paragraph(
                    "", "", nodes.Text(f"Not recorded yet: the author records the run {run_id} on a DGX Spark; until "
                                       "then its numbers below show as pending."),
                    *record_yourself(run_id, repository_url(self.config)),
                    classes=["m101-pending-box"])
            fig += values
        return [fig]

    def plate_run(self) -> str | None:
        """The run whose values the plate shows (the run file with a `plate:` list), if any."""
        return next((rid for rid, run in capture_of(self.env).runs.items() if run.get("plate")), None)

    @property
    def book(self):
        return front_book(self.env)

    def plate_values(self) -> nodes.Node | None:
        """The values named by a run file's `plate:` list, each as a measured value."""
        capture = capture_of(self.env)
        runs = [(rid, run) for rid, run in capture.runs.items() if run.get("plate")]
        if not runs:
            return None
        run_id, run = runs[0]
        self.note("run", run_id)
        items = nodes.bullet_list(classes=["m101-plate-values"], m101_run=run_id)
        for name in run["plate"]:
            key = f"{run_id}.{name}"
            value = capture.value("measured", key)
            self.note("measured", key)
            if value is None:
                self.problem(Subtype.UNKNOWN_VALUE, f"the plate names {name!r}, which {run_id}.yaml does not declare.",
                             f"declare it under values: in capture/runs/{run_id}.yaml.")
                continue
            node = value_inline(value)
            items += nodes.list_item("", nodes.paragraph("", "", nodes.Text(f"{value.what}: "), node))
        return items


class PartsDirective(BookDirective):
    """One card per part, and the Reference: number, title, thesis, summary, accent, sections."""

    def run(self) -> list[nodes.Node]:
        grid = nodes.container(classes=["m101-cards"])
        for part in self.book.parts:
            card = nodes.container(classes=["m101-card", f"m101-accent-{part.accent}"])
            card += _para("Reference" if part.key == "R" else f"Part {part.key}", "m101-card-number")
            card += _para(part.title, "m101-card-title")
            card += _para(part.thesis, "m101-card-thesis")
            if part.summary:
                card += _para(part.summary, "m101-card-summary")
            links = nodes.bullet_list(classes=["m101-card-sections"])
            for sec in part.sections:
                item = nodes.paragraph()
                item += doc_link(sec.docname, self.env.docname)  # the title carries its number
                links += nodes.list_item("", item)
            card += links
            grid += card
        return [grid]


class PaletteDirective(BookDirective):
    """The legend: a swatch per hue, its meaning, and the figure class that wears it."""

    def run(self) -> list[nodes.Node]:
        by_hue = {hue: meaning for meaning, hue in MEANINGS.items()}
        legend = nodes.bullet_list(classes=["m101-palette"])
        for entry in self.book.data["palette"]:
            hue = entry["hue"]
            para = nodes.paragraph()
            para += nodes.inline("", "", classes=["m101-swatch", f"m101-accent-{hue}"])
            para += nodes.strong("", hue)
            para += nodes.Text(f": {entry['meaning']}")
            if hue in by_hue:
                para += nodes.Text(" (figure class ")
                para += nodes.literal("", by_hue[hue])
                para += nodes.Text(")")
            legend += nodes.list_item("", para, classes=[] if hue in HUES else ["m101-unknown-hue"])
        return [legend]


def legend_mark(entry: LegendEntry) -> list[nodes.Node]:
    """The mark as the page draws it (pending: the badge itself), inside its kind's class so it is styled alike."""
    if entry.mark is None:
        return []
    if entry.term == "pending":
        badge = nodes.inline("", "", nodes.inline("", entry.mark, classes=["m101-shown"]), classes=["m101-pending"])
        return [badge, nodes.Text(" ")]
    return [nodes.inline("", "", *mark_of(entry.kind), classes=[*([f"m101-{entry.kind}"] if BY_NAME[entry.kind].value else []), "m101-legend-mark"])]


class ValueKindsDirective(SphinxDirective):
    """```{value-kinds}```: the legend of the book's kinds of value, generated from `miles101.kinds`, each with
    the mark its values wear; with `:glossary:`, as glossary entries (R.6), so `{term}` links reach them."""

    option_spec = {"glossary": directives.flag}

    def run(self) -> list[nodes.Node]:
        entries = legend()
        if "glossary" in self.options:
            return self.glossary(entries)
        items = nodes.bullet_list(classes=["m101-kinds-legend"])
        for entry in entries:
            para = nodes.paragraph("", "", *legend_mark(entry), nodes.strong("", entry.term),
                                   nodes.Text(f": {entry.meaning}"))
            items += nodes.list_item("", para, classes=["m101-kinds-legend-entry"])
        return [items]

    def glossary(self, entries: tuple[LegendEntry, ...]) -> list[nodes.Node]:
        """Sphinx's own glossary, parsed from the table, each definition opening with its kind's mark."""
        lines = ["```{glossary}"]
        for entry in entries:
            lines += [entry.term, f"  {entry.meaning}", ""]
        box = nodes.container(classes=["m101-kinds-legend-glossary"])
        self.state.nested_parse(StringList([*lines, "```"], source=self.get_source_info()[0]), self.content_offset, box)
        for entry, definition in zip(entries, box.findall(nodes.definition)):
            first = next(definition.findall(nodes.paragraph))
            for i, mark in enumerate(legend_mark(entry)):
                first.insert(i, mark)
        return [box]


ACRONYMS = {"ppo": "PPO", "rlhf": "RLHF", "reinforce": "REINFORCE", "llms": "LLMs", "grpo": "GRPO", "rl": "RL",
            "kl": "KL", "dpo": "DPO"}


def lesson_title(slug: str) -> str:
    """A course path's last part as a reader's title: `06-policy-gradients-reinforce` → `Policy gradients, REINFORCE`."""
    words = [w for w in slug.split("-") if not w.isdigit()]
    shown = [ACRONYMS.get(w, w) for w in words]
    if shown and shown[0] == words[0]:
        shown[0] = shown[0][:1].upper() + shown[0][1:]
    text = " ".join(shown)
    tail = [ACRONYMS[w] for w in words[1:] if w in ACRONYMS]  # "reward modeling rlhf" → "Reward modeling (RLHF)"
    if len(words) > 1 and tail and words[-1] in ACRONYMS and words[0] not in ACRONYMS:
        text = " ".join(shown[:-1]) + f" ({shown[-1]})"
    return text


class RelatedDirective(BookDirective):
    """The theory a reader should know first: the course's lessons by readable title (the course has no links
    here), each topic of a title marked for TheoryTermLinks to link to its glossary entry."""

    def run(self) -> list[nodes.Node]:
        related = self.book.data.get("related") or []
        if not related:
            return []
        box = nodes.container(classes=["m101-related"])
        box += nodes.rubric("", "Theory to know first")
        items = nodes.bullet_list()
        for path in related:
            parts = path.strip("/").split("/")
            para = nodes.paragraph()
            title = nodes.strong()
            for i, piece in enumerate(TOPIC_SEPARATORS.split(lesson_title(parts[-1]))):
                if piece:
                    title += nodes.Text(piece) if i % 2 else nodes.inline("", piece, classes=["m101-theory-topic"])
            para += title
            if len(parts) > 1:
                para += nodes.Text(f" — {lesson_title(parts[-2])}")
            items += nodes.list_item("", para, m101_lesson=path)
        box += items
        return [box]


DIRECTIVES = {
    "book-cover": CoverDirective, "book-audience": AudienceDirective, "book-outcomes": OutcomesDirective,
    "book-plate": PlateDirective, "book-parts": PartsDirective, "book-palette": PaletteDirective,
    "book-related": RelatedDirective, "value-kinds": ValueKindsDirective,
}


def setup_front(app) -> None:
    for name, cls in DIRECTIVES.items():
        app.add_directive(name, cls)
    app.add_post_transform(TheoryTermLinks)
