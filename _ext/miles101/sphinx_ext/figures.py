"""Figures: ```{diagram} fig-id``` (and the front page's plate), their labels and their ids.

A figure is a `figure_box` (a container Sphinx knows as an enumerable node, whose title is the
figure's :title:), so `{ref}`fig-id`` works through the std domain's own label collection: the
directive only notes the box as an explicit target of the document. A figure id is checked twice:
on its page while reading (twice on one page is an error) and across pages once every page is read
(`env-check-consistency`), which also sees pages read by different `-j` workers.
"""
from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..figurerules import SAME_ID_FIX, also_used_in, figure_problems, twice_on_page
from ..problems import Subtype
from .base import ManualDirective, warn
from .domain import FIGURE, Figure, domain_of



class figure_box(nodes.container):
    """A figure: title, diagram, caption; written by every builder as the container it is."""


def _visit(self: Any, node: figure_box) -> None:
    self.visit_container(node)


def _depart(self: Any, node: figure_box) -> None:
    self.depart_container(node)


class diagram_source(nodes.General, nodes.Element):
    """A diagram's mermaid source (`code`): every edition shows its committed drawing instead
    (miles101.sphinx_ext.editions.DiagramsForEditions); no reader's page runs mermaid."""


def visit_source_html(self: Any, node: diagram_source) -> None:
    """A diagram without a drawing (a build that warned, or `m101_diagrams=text`): its source, named."""
    label = self.attval(text_alternative(node.parent)) if isinstance(node.parent, figure_box) else ""
    named = f' role="img" aria-label="{label}"' if label else ""
    self.body.append(f'<pre class="m101-diagram-source"{named}>{self.encode(node["code"])}</pre>\n')
    raise nodes.SkipNode


def visit_source_text(self: Any, node: diagram_source) -> None:
    """The site's page text (llms-full.txt) for a diagram without a drawing: its title and caption."""
    self.add_text(f"[diagram: {node['alt']}]")
    raise nodes.SkipNode


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def text_alternative(node: figure_box) -> str:
    """What a screen reader says for a figure's drawing: its title, then its caption as plain text."""
    caption = next((c for c in node.findall(nodes.paragraph) if "m101-figure-caption" in c["classes"]), None)
    text = " ".join(caption.astext().split()) if caption is not None else ""
    title = node["m101_title"].rstrip(".")
    return f"{title}. {text}" if text else title


def figure_title(node: figure_box) -> str:
    return node["m101_title"]


class DiagramDirective(ManualDirective):
    """```{diagram} fig-id``` with :title: and :caption:: a figure written in mermaid, coloured by meaning."""

    has_content = True
    required_arguments = 1
    option_spec: ClassVar = {"title": directives.unchanged_required, "caption": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        fig_id = self.arguments[0].strip()
        bad = figure_problems(fig_id, self.options, "\n".join(self.content))  # the rules --check applies too
        if bad:
            return self.problem(Subtype.BAD_REFERENCE, *bad[0])
        fig = self.figure(fig_id, self.options["title"], self.options["caption"], "\n".join(self.content))
        return [fig] if fig is not None else []

    def figure(self, fig_id: str, title: str, caption: str, code: str,
               caption_label: str = "") -> figure_box | None:
        """The figure's node, holding its record (`FIGURE`) and noted as a label; None (and a problem) if this page
        drew a figure of this id already (its id is the document's: registered while reading, in a block too)."""
        if isinstance(self.state.document.ids.get(fig_id), figure_box):  # this page drew one of this id already
            self.problem(Subtype.DUPLICATE, twice_on_page(fig_id), SAME_ID_FIX)
            return None
        fig = figure_box(classes=["m101-figure", "m101-diagram"], ids=[fig_id], names=[fig_id], m101_title=title,
                         **{FIGURE: Figure(title, caption)})
        heading = nodes.paragraph("", "", classes=["m101-figure-title"])
        heading += nodes.strong("", title)
        fig += heading
        diagram = diagram_source("", code=code, alt=f"{title}. {caption}")
        fig += diagram
        cap = nodes.paragraph("", "", classes=["m101-figure-caption"])
        if caption_label:
            cap += [nodes.strong("", caption_label), nodes.Text(" ")]
        inline, messages = self.state.inline_text(caption, self.lineno)
        cap.extend(inline)
        for raw in list(cap.findall(nodes.raw)):  # MyST with raw HTML off: a caption (manual.json's plate) shows tags as text
            raw.replace_self(nodes.Text(raw.astext()))
        fig += cap
        fig.extend(messages)
        self.set_source_info(fig)
        self.state.document.note_explicit_target(fig)  # the std domain makes the label, titled by figure_title
        return fig


DIRECTIVES = {"diagram": DiagramDirective}


def check_figure_ids(app: Sphinx, env: BuildEnvironment) -> None:
    """A figure id names one figure in the whole book: a second page using it is an error there."""
    domain = domain_of(env)
    for fig_id, first, other in domain.duplicate_figures():
        warn(Subtype.DUPLICATE, also_used_in(fig_id, first), location=(other, None), fix=SAME_ID_FIX)
        domain.state.inconsistencies += 1


def setup_figures(app: Sphinx) -> None:
    visitors = {b: (_visit, _depart) for b in ("html", "latex", "text", "man", "texinfo")}
    app.add_enumerable_node(figure_box, "m101-figure", figure_title, **visitors)
    app.add_node(diagram_source, html=(visit_source_html, None), text=(visit_source_text, None),
                 **{b: (_skip, None) for b in ("latex", "man", "texinfo")})
    for name, cls in DIRECTIVES.items():
        app.add_directive(name, cls)
    app.connect("env-check-consistency", check_figure_ids)
