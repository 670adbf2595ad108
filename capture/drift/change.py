"""A change between the two sides, the categories it is listed under, and how values are shown."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# (group, category) -> heading, in the order the report lists them.
CATEGORIES: dict[tuple[str, str], str] = {
    ("flags", "added"): "Flags added",
    ("flags", "removed"): "Flags removed",
    ("flags", "renamed"): "Flags renamed (heuristic)",
    ("flags", "default"): "Flag defaults changed",
    ("flags", "type"): "Flag types or choices changed",
    ("flags", "moved"): "Flags moved to another file",
    ("flags", "other"): "Flags changed otherwise (action, nargs, aliases, backend, ...)",
    ("families", "added"): "Passthrough families added",
    ("families", "removed"): "Passthrough families removed",
    ("families", "changed"): "Passthrough families changed",
    ("metrics", "added"): "Metric keys added",
    ("metrics", "removed"): "Metric keys removed",
    ("models", "added"): "Model definitions added",
    ("models", "removed"): "Model definitions removed",
    ("models", "changed"): "Model definitions changed",
    ("computed", "added"): "Computed values added",
    ("computed", "removed"): "Computed values removed",
    ("computed", "changed"): "Computed values changed",
    # src: the pages cite lines of one side ({base}); what those lines are on the {other} side
    ("src", "file_missing"): "Cited source files missing in {other}",
    ("src", "past_end"): "Cited source lines past the end of the file in {other}",
    ("src", "line_moved"): "Cited source lines moved in {other}",
    ("src", "line_changed"): "Cited source lines changed in {other}",
    ("src", "unverified"): "Cited source files of another length in {other} (lines not compared)",
    ("src", "now_resolves"): "Cited source files missing in {base} but present in {other}",
}


def never(_ref: Any) -> bool:
    return False


@dataclass
class Change:
    """One thing that changed: where it is listed, old and new as text, and which references cite it."""

    group: str
    category: str
    key: str
    old: str | None = None
    new: str | None = None
    detail: str = ""
    where: str = ""
    stated: list[str] = field(default_factory=list)  # old values whose presence in prose counts as "stated"
    match: Callable[[Any], bool] = field(default=never, repr=False, compare=False)
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (field, old, new) when several changed
    cited_by: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        out = {"group": self.group, "category": self.category, "key": self.key, "old": self.old, "new": self.new,
               "fields": [{"field": f, "old": a, "new": b} for f, a, b in self.fields] or None,
               "detail": self.detail, "where": self.where, "cited_by": self.cited_by}
        return {k: v for k, v in out.items() if v not in (None, "")}


def sort_key(change: Change) -> tuple:
    order = list(CATEGORIES)
    return order.index((change.group, change.category)), change.key


def show(value: Any) -> str:
    """A JSON-ish rendering of a value (strings quoted, so "" and None differ)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def prose_forms(value: Any) -> list[str]:
    """How prose might write a value: 8192 and 8,192; 1e-06 and 1e-6; True and true."""
    if value is None:
        return ["None"]
    if isinstance(value, bool):
        return [str(value), str(value).lower()]
    if isinstance(value, int):
        forms = [str(value)]
        if abs(value) >= 1000:
            forms.append(f"{value:,}")
        return forms
    if isinstance(value, float):
        forms = {repr(value), f"{value:g}"}
        for text in list(forms):
            if "e" in text:
                mant, _, exp = text.partition("e")
                forms.add(f"{mant}e{int(exp)}")
        if value.is_integer():
            forms.add(str(int(value)))
        return sorted(forms)
    if isinstance(value, str):
        return [value] if value.strip() else []
    return [show(value)]
