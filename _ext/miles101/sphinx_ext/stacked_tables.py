"""Stackable tables: a table with the class `m101-stack` reads as one block per row when it does not fit.

A page marks a wide table it cannot do without (1.3's health table) with MyST's table directive:

    :::{table}
    :class: m101-stack
    | signal | ... |
    :::

In the HTML builders each body cell gets its column's name as a leading `.m101-cell-label`, hidden
while the table is a table. miles101.js gives the table the class `m101-stacked` whenever it is wider
than its column (a phone, a narrow window); the stylesheet then draws each row as a block and shows
each cell's label, so no column is ever cut off. The first column names the row and keeps no label.
"""
from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

STACK = "m101-stack"


def column_names(tgroup: nodes.tgroup) -> list[str]:
    """The header's first row as one name per column (a spanning header repeats its name)."""
    thead = next(iter(tgroup.findall(nodes.thead)), None)
    row = next(iter(thead.findall(nodes.row)), None) if thead is not None else None
    names: list[str] = []
    for entry in row.children if row is not None else []:
        names += [" ".join(entry.astext().split())] * (1 + entry.get("morecols", 0))
    return names


class StackableTables(SphinxPostTransform):
    """Give every body cell of an `m101-stack` table its column's name, for the stacked layout."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for table in self.document.findall(nodes.table):
            if STACK not in table["classes"]:
                continue
            tgroup = next(iter(table.findall(nodes.tgroup)), None)
            if tgroup is None:
                continue
            names = column_names(tgroup)
            for tbody in tgroup.findall(nodes.tbody):
                for row in tbody.findall(nodes.row):
                    column = 0
                    for entry in row.children:
                        name = names[column] if column < len(names) else ""
                        column += 1 + entry.get("morecols", 0)
                        if column == 1 + entry.get("morecols", 0) or not name:
                            continue  # the first column names the row
                        label = nodes.inline("", f"{name}: ", classes=["m101-cell-label"])
                        if entry.children and isinstance(entry[0], nodes.paragraph):
                            entry[0].insert(0, label)
                        else:
                            entry.insert(0, nodes.paragraph("", "", label))


def setup_stacked_tables(app: Sphinx) -> None:
    app.add_post_transform(StackableTables)
