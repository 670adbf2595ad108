"""```{crosscheck-table} host```: a host's cross-check beside the computed trainer state, labelled with its GPU.

Every cell is a cited value (with its provenance on hover and focus), so the table follows
capture/crosscheck/results/<host>.json and capture/computed.json, and the page is read again
when either changes. The heading line says plainly which GPU it ran on and that it is not a GB10.
"""
from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from .directives import ManualDirective
from .domain import capture_of
from ..capture import format_value

COLUMNS = (
    ("Model", None),
    ("Parameters (equal to computed)", "params"),
    ("Held after the step", "held"),
    ("Computed (table above)", "computed"),
    ("Held ÷ computed", "held_ratio"),
    ("Peak, forward and backward", "peak"),
    ("… with checkpointing", "peak_ckpt"),
    ("Peak of the optimizer step", "step_peak"),
)
FORMATS = {"params": ",", "held": ".1f", "held_ratio": ".3f", "peak": ".1f", "peak_ckpt": ".1f", "step_peak": ".1f",
           "computed": ".1f"}


class CrosscheckTableDirective(ManualDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        host = self.arguments[0].strip()
        capture = capture_of(self.env)
        keys = capture.value_keys("crosscheck")
        for key in keys:
            self.note("crosscheck", key)
        models = sorted({k.split(".", 1)[1].rsplit(".", 1)[0] for k in keys if k.startswith(host + ".")},
                        key=lambda m: capture.value("crosscheck", f"{host}.{m}.params").value)
        if not models:
            hosts = sorted({k.split(".", 1)[0] for k in keys})
            return self.problem("unknown_value", f"no cross-check results for host {host!r} (have: {', '.join(hosts) or 'none'}).",
                                "run `python3 -m capture.crosscheck` on that host (README: the cross-check).")
        first = capture.value("crosscheck", f"{host}.{models[0]}.params").detail
        intro = nodes.paragraph(classes=["m101-crosscheck-intro"])
        intro += nodes.strong("", f"Checked with PyTorch's allocator on an {first['gpu']}, not a GB10.")
        versions = ", ".join(f"{name} {first[name]}" for name in ("torch", "transformers") if first.get(name))
        intro += nodes.Text(f" {first.get('date')}, one GPU, {first.get('tokens')} tokens per step, {versions}; "
                            f"random weights in Miles's FSDP set-up; sizes in GiB. Data: {first['file']}, "
                            "made by python3 -m capture.crosscheck and held against capture/computed.json by --check.")
        table = nodes.table(classes=["m101-crosscheck-table"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        group.extend(nodes.colspec(colwidth=1) for _ in COLUMNS)
        head = nodes.thead()
        head += nodes.row("", *(nodes.entry("", nodes.paragraph("", title)) for title, _ in COLUMNS))
        group += head
        body = nodes.tbody()
        for model in models:
            row = nodes.row()
            row += nodes.entry("", nodes.paragraph("", "", nodes.literal("", model)))
            for _, field in COLUMNS[1:]:
                kind, key = (("computed", f"trainer_state.{model}") if field == "computed"
                             else ("crosscheck", f"{host}.{model}.{field}"))
                value = capture.value(kind, key)
                cell = nodes.paragraph()
                if value is not None:
                    self.note(kind, key)
                    spec = FORMATS[field]
                    # plain numbers: the heading carries the provenance once (a tooltip per cell would
                    # repeat it 77 times); the dependency above still re-reads the page on any change
                    cell += nodes.Text(f"{format_value(value, spec)} {value.unit}".strip())
                else:
                    cell += nodes.Text("—")
                row += nodes.entry("", cell)
            body += row
        group += body
        return [intro, table]


def setup_crosscheck(app: Sphinx) -> None:
    """Register the directive."""
    app.add_directive("crosscheck-table", CrosscheckTableDirective)
