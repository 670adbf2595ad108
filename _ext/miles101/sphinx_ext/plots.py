"""Plots of runs: ```{run-plot} run-id``` (a recording of this book) and ```{series-plot} series-id``` (a public
run's series), each a figure drawn from its data as inline SVG (`miles101.plotsvg`) when the page is read.

A run's plot reads `capture/gpu/<run>/steps.jsonl` (one seed: its line; several: the median and the band from
the lowest to the highest seed). Until the run is recorded its slot says *pending* and draws no curve; once the
recording is there the same page draws it (the page follows the run, `Cites.note`). A public series is a
`reference`: it wears the reference kind's mark, its caption says where it comes from and its settings, and it
never fills a run's slot. Every plot carries its numbers as a table (the text alternative, shown by every
edition); the SVG is written by the web and EPUB builders, and the PDF says where to see it.

```{series-plot} verl-gsm8k-qwen2.5-0.5b-ppo
:metric: critic/score/mean
:id: fig-verl-ppo-score
:title: Mean score per step, verl PPO on GSM8K
Your words after the generated source line (roles welcome).
```
"""
from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from ..figurerules import FIGURE_ID, SAME_ID_FIX, twice_on_page
from ..master_copy import flag_number
from ..palette import HUES, MEANINGS
from ..plotsvg import Line, gap_text, median_band, sample_rows, svg
from ..problems import ProblemError, Subtype
from ..strict import read_bytes
from ..validate import read_steps
from .base import ManualDirective, add_markup
from .domain import FIGURE, Figure, capture_of
from .figures import figure_box
from .marks import mark_of

#: Rows of the numbers table (a sample of steps, the first and last among them).
TABLE_ROWS = 12


class plot_svg(nodes.General, nodes.Element):
    """A plot's drawing (`svg`, markup made by `miles101.plotsvg`): written inline by HTML builders (the site,
    the EPUB); the PDF and the text editions show its numbers table instead."""


def standalone_svg(markup: str) -> str:
    """A plot as its own SVG file (the EPUB's): the palette's light colours in its own style sheet, since no page
    style reaches an image (as the EPUB's diagrams keep their light colours)."""
    rules = "".join(f".m101-plot-line.m101-plot-{m}{{stroke:{HUES[h].light_ink}}}"
                    f".m101-plot-dot.m101-plot-{m}{{fill:{HUES[h].light_ink}}}"
                    f".m101-plot-band.m101-plot-{m}{{fill:{HUES[h].light_tint};stroke:none}}" for m, h in MEANINGS.items())
    head, sep, rest = markup.partition("</title>")
    return re.sub(r'\saria-labelledby="[^"]*"', "", head) + sep + f"<style>{rules}</style>" + rest + "\n"


def visit_plot_html(self: Any, node: plot_svg) -> None:
    """Inline on the web site (coloured by the page's palette classes, light and dark); in the EPUB an image file
    beside the page (EPUB content documents holding inline SVG must declare it in the OPF, which Sphinx does not)."""
    if self.builder.name == "epub":
        name = f"m101-plot-{node['fig_id']}.svg"
        folder = Path(self.builder.outdir) / self.builder.imagedir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(standalone_svg(node["svg"]), encoding="utf-8")
        self.body.append(f'<div class="m101-plot-drawing"><img src="{self.builder.imgpath}/{name}" '
                         f'alt="{escape(node["alt"])}"/></div>\n')
        raise nodes.SkipNode
    self.body.append(f'<div class="m101-plot-drawing">{node["svg"]}</div>\n')
    raise nodes.SkipNode


def visit_plot_latex(self: Any, node: plot_svg) -> None:
    self.body.append("\n\\par\\emph{The plot is drawn in the web and EPUB editions; its numbers follow.}\\par\n")
    raise nodes.SkipNode


def visit_plot_text(self: Any, node: plot_svg) -> None:
    self.add_text("[plot: drawn in the web and EPUB editions; its numbers follow]")
    raise nodes.SkipNode


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def _number(v: float | None) -> str:
    return "no number" if v is None else f"{v:g}"


def setting_number(v: object) -> str:
    """A setting as a run file writes it (`1e-6`, where Python's `:g` gives `1e-06`), so a caption setting a
    public run's value beside a {run-arg} shows one value in one form; 'not in the log' for none."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "not in the log"
    return flag_number(v)


def counted(n: object, one: str, many: str) -> str:
    """`1 GPU`, `8 GPUs`; 'an unknown number of <many>' when the log does not give it."""
    if not isinstance(n, int) or isinstance(n, bool):
        return f"an unknown number of {many}"
    return f"{n} {one if n == 1 else many}"


def numbers_table(points: list[tuple[int, float | None]], metric: str, band: dict[int, tuple[float, float]]
                  ) -> nodes.table:
    """The text alternative: a sample of the steps with their values (and the seeds' range for a median)."""
    heads = ["step", metric] + (["lowest–highest seed"] if band else [])
    table = nodes.table(classes=["m101-plot-numbers"])
    group = nodes.tgroup(cols=len(heads))
    table += group
    group.extend(nodes.colspec(colwidth=max(len(h), 8)) for h in heads)  # the text builder sizes columns by it
    thead, tbody = nodes.thead(), nodes.tbody()
    group += [thead, tbody]
    row = nodes.row()
    row.extend(nodes.entry("", nodes.paragraph("", h)) for h in heads)
    thead += row
    for step, value in sample_rows(points, TABLE_ROWS):
        row = nodes.row()
        cells = [str(step), _number(value)]
        if band:
            lo_hi = band.get(step)
            cells.append("—" if lo_hi is None else f"{lo_hi[0]:g}–{lo_hi[1]:g}")
        row.extend(nodes.entry("", nodes.paragraph("", c)) for c in cells)
        tbody += row
    return table


class PlotDirective(ManualDirective):
    """The shared half of the two plot directives: options, the figure box, the caption, the numbers."""

    has_content = True
    required_arguments = 1
    option_spec: ClassVar = {"metric": directives.unchanged_required, "id": directives.unchanged_required,
                             "title": directives.unchanged_required, "meaning": directives.unchanged}
    cites = ""  # the kind its argument names

    def run(self) -> list[nodes.Node]:
        result = self.resolved_argument(self.cites)
        if result is None:
            return []
        missing = [o for o in ("metric", "id", "title") if not self.options.get(o)]
        if missing:
            return self.problem(Subtype.BAD_FORMAT, f"{{{self.name}}} {result.key}: no :{missing[0]}: option.",
                                "give the plot :metric:, :id: (fig-…) and :title:.")
        fig_id, meaning = self.options["id"].strip(), (self.options.get("meaning") or "data").strip()
        if not FIGURE_ID.match(fig_id):
            return self.problem(Subtype.BAD_REFERENCE, f"plot id {fig_id!r} is not a slug.",
                                "use lower-case letters, digits and hyphens, e.g. fig-reward-per-step.")
        if meaning not in MEANINGS:
            return self.problem(Subtype.BAD_FORMAT, f"plot meaning {meaning!r} is not a palette meaning.",
                                f"use one of {', '.join(MEANINGS)}.")
        if isinstance(self.state.document.ids.get(fig_id), figure_box):
            return self.problem(Subtype.DUPLICATE, twice_on_page(fig_id), SAME_ID_FIX)
        return self.draw(result, fig_id, meaning)

    def draw(self, result: Any, fig_id: str, meaning: str) -> list[nodes.Node]:
        raise NotImplementedError

    def box(self, fig_id: str, title: str, source: list[nodes.Node], reference: bool
            ) -> tuple[figure_box, nodes.paragraph]:
        """The figure: its heading (with the reference mark for someone else's run) and its caption (the
        generated source line, then the author's words)."""
        caption_text = " ".join(n.astext() for n in source) + " " + " ".join(self.content)
        fig = figure_box(classes=["m101-figure", "m101-plot"], ids=[fig_id], names=[fig_id], m101_title=title,
                         **{FIGURE: Figure(title, " ".join(caption_text.split()))})
        heading = nodes.paragraph("", "", classes=["m101-figure-title"])
        if reference:
            heading += mark_of("reference")
        heading += nodes.strong("", title)
        fig += heading
        cap = nodes.paragraph("", "", classes=["m101-figure-caption"])
        cap.extend(source)
        if self.content:
            inline, messages = self.state.inline_text(" ".join(line.strip() for line in self.content), self.lineno)
            cap += nodes.Text(" ")
            cap.extend(inline)
            fig.extend(messages)
        self.set_source_info(fig)
        self.state.document.note_explicit_target(fig)
        return fig, cap

    def drawing(self, fig: figure_box, cap: nodes.paragraph, lines: list[Line], metric: str,
                points: list[tuple[int, float | None]], band: dict[int, tuple[float, float]], every: str) -> None:
        """The SVG, the caption, what is missing, and the numbers, in that order."""
        title = f"{fig['m101_title']}: {metric} per step"
        fig += plot_svg("", svg=svg(lines, title, "step", fig["ids"][0]), fig_id=fig["ids"][0], alt=title)
        fig += cap
        gaps = gap_text(points)
        if gaps:
            fig += nodes.paragraph("", gaps, classes=["m101-plot-gaps"])
        fig += nodes.paragraph("", every, classes=["m101-plot-numbers-intro"])
        fig += numbers_table(points, metric, band)


class SeriesPlotDirective(PlotDirective):
    """```{series-plot} series-id``` a public run's series (capture/series/<id>.json), marked as a reference."""

    cites = "series"

    def draw(self, result: Any, fig_id: str, meaning: str) -> list[nodes.Node]:
        doc, metric = result.value, self.options["metric"].strip()
        column = (doc.get("metrics") or {}).get(metric)
        if column is None:
            known = ", ".join(sorted(doc.get("metrics") or {})[:12])
            return self.problem(Subtype.UNKNOWN_METRIC, f"the public series {result.key} has no metric {metric!r} "
                                f"(it holds {known}, ...).", f"name a key of capture/series/{result.key}.json's metrics.")
        points = list(zip(doc["steps"], column))
        s, src = doc.get("settings") or {}, doc.get("source") or {}
        lora = f"LoRA rank {s['lora_rank']}" if s.get("lora_rank") else "full parameters (no LoRA)"
        commit = doc.get("framework_commit")
        at = f"commit {commit[:9]}" if commit else "its commit not stated in the log"
        words = (f"Public reference, not a measurement of this book: {doc.get('framework')} "
                 f"({at}), {s.get('method')}, {lora}, "
                 f"{doc.get('model')}, actor learning rate {setting_number(s.get('lr'))}, "
                 f"{counted(s.get('samples_per_prompt'), 'sample', 'samples')} per prompt, "
                 f"{counted(s.get('gpus'), 'GPU', 'GPUs')}. {doc.get('gpu_note')} {doc.get('rounding')} Metric {metric} is "
                 f"{doc.get('framework')}'s, plotted under {doc.get('framework')}'s name. "
                 f"{doc.get('partial', '')}{' ' if doc.get('partial') else ''}Source: ")
        link = nodes.reference("", f"{src.get('repository')} {src.get('path')} at {str(src.get('commit'))[:9]}",
                               refuri=src.get("url", ""))
        fig, cap = self.box(fig_id, self.options["title"].strip(), [nodes.Text(words), link, nodes.Text(".")], True)
        self.drawing(fig, cap, [Line(metric, meaning, points, dashed=True)], metric, points, {},
                     f"The numbers: {len(sample_rows(points, TABLE_ROWS))} of {len(points)} steps in the series file.")
        return [fig]


def _value(row: dict[str, Any], metric: str) -> float | None:
    """`metric` in a steps.jsonl row: under its section (`rollout`, `perf`, ...) or at the top; None if absent."""
    for part in row.values():
        if isinstance(part, dict) and metric in part:
            v = part[metric]
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    return None


class RunPlotDirective(PlotDirective):
    """```{run-plot} run-id``` a metric of one of the book's runs: pending until recorded, then drawn from
    capture/gpu/<run>/steps.jsonl, one line per run (the median over seeds, with their band)."""

    cites = "run"

    def draw(self, result: Any, fig_id: str, meaning: str) -> list[nodes.Node]:
        capture, run_id, metric = capture_of(self.env), result.key, self.options["metric"].strip()
        run, recording = result.value, result.extra.get("recording")
        seeds = run.get("seeds") or []
        title = self.options["title"].strip()
        if recording is None:
            fig, cap = self.box(fig_id, title, [nodes.Text(
                f"Run {run_id} ({run.get('title', run_id)}), seed(s) {', '.join(map(str, seeds)) or 'none named'}, "
                "on a DGX Spark (GB10) once recorded.")], False)
            fig += nodes.paragraph("", "", nodes.inline("", "pending", classes=["m101-badge"]), nodes.Text(
                f" No curve yet: the run {run_id} has not been recorded on a DGX Spark. This plot draws {metric} "
                "per step from its recording when there is one; until then nothing is drawn."),
                classes=["m101-plot-pending"])
            fig += cap
            return [fig]
        rel = f"capture/gpu/{run_id}/steps.jsonl"
        try:
            raw = read_bytes(capture.root / rel, rel, capture.root, "record the run again, or restore it from git")
        except ProblemError as exc:
            return self.refuse(exc.problem)
        rows, problems = read_steps(raw, rel)
        if problems:
            return self.refuse(problems[0])
        per_seed: dict[object, dict[int, float | None]] = {}
        for row in rows:
            per_seed.setdefault(row.get("seed"), {})[row["step"]] = _value(row, metric)
        if not per_seed:
            return self.problem(Subtype.CAPTURE, f"{rel} holds no step.", "record the run again.")
        gpu = (recording.get("host") or {}).get("gpu") or "unknown GPU"
        seeds_seen = sorted(per_seed, key=str)
        if len(per_seed) == 1:
            points = sorted(next(iter(per_seed.values())).items())
            lines, band = [Line(metric, meaning, points)], {}
            shown = f"seed {seeds_seen[0]}"
        else:
            points, band_rows = median_band(per_seed)
            lines = [Line(f"median of {len(per_seed)} seeds", meaning, points, band=band_rows)]
            band = {s: (lo, hi) for s, lo, hi in band_rows}
            shown = f"median of seeds {', '.join(map(str, seeds_seen))}, shaded from the lowest to the highest"
        commit = str((recording.get("run") or {}).get("miles_commit") or "?")[:9]
        fig, cap = self.box(fig_id, title, [nodes.Text(
            f"Run {run_id} ({run.get('title', run_id)}), {shown}, recorded on {gpu} (Miles {commit}); "
            f"metric {metric} from {rel}.")], False)
        self.drawing(fig, cap, lines, metric, points, band,
                     f"The numbers: {len(sample_rows(points, TABLE_ROWS))} of {len(points)} steps of the recording.")
        return [fig]


DIRECTIVES = {"run-plot": RunPlotDirective, "series-plot": SeriesPlotDirective}


def setup_plots(app: Sphinx) -> None:
    app.add_node(plot_svg, html=(visit_plot_html, None), latex=(visit_plot_latex, None),
                 text=(visit_plot_text, None), **{b: (_skip, None) for b in ("man", "texinfo")})
    add_markup(app, {}, DIRECTIVES)

