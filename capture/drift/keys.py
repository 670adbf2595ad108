"""Metric keys, model definitions and computed values: added, removed, changed."""
from __future__ import annotations

import re

from capture.extract.models import FIELDS

from .change import Change, prose_forms, show
from .sides import Side

MODEL_FIELDS = [*FIELDS, "normalization", "switches", "arch_flags", "env_defaults", "file"]


class MetricIndex:
    """Resolves a cited metric key as the pages do: a literal key first, then the first matching pattern."""

    def __init__(self, records: list[dict]) -> None:
        self.literal = {r["key"]: r for r in records if r["kind"] != "pattern" or not r.get("regex")}
        self.patterns = [(re.compile(r["regex"]), r) for r in records if r["kind"] == "pattern" and r.get("regex")]

    def resolve(self, key: str) -> str | None:
        """The key of the record ``key`` resolves to, or None."""
        if key in self.literal:
            return key
        return next((r["key"] for rx, r in self.patterns if rx.fullmatch(key)), None)


def metric_changes(old: Side, new: Side) -> list[Change]:
    """Metric keys (literal keys and patterns) that appear on one side only."""
    o_index, n_index = MetricIndex(old.metrics), MetricIndex(new.metrics)
    o_recs = {r["key"]: r for r in old.metrics}
    n_recs = {r["key"]: r for r in new.metrics}
    out = []
    for key in sorted(set(o_recs) - set(n_recs)):
        rec = o_recs[key]
        out.append(Change("metrics", "removed", key, where=f"{rec['file']}:{rec['line']}", detail=rec["kind"],
                          match=lambda ref, k=key: ref.kind == "metric" and o_index.resolve(ref.key) == k))
    for key in sorted(set(n_recs) - set(o_recs)):
        rec = n_recs[key]
        out.append(Change("metrics", "added", key, where=f"{rec['file']}:{rec['line']}", detail=rec["kind"],
                          match=lambda ref, k=key: ref.kind == "metric" and n_index.resolve(ref.key) == k
                          and o_index.resolve(ref.key) != k))
    return out


def _model_match(name: str, files: set[str]):
    def match(ref) -> bool:
        if ref.kind == "computed":
            return ref.key.partition(".")[2] == name
        return ref.kind == "src" and ref.key in files
    return match


def model_changes(old: Side, new: Side) -> list[Change]:
    """Model scripts added, removed, or whose shape (layers, hidden, ... switches) changed."""
    olds = {m["name"]: m for m in old.models}
    news = {m["name"]: m for m in new.models}
    out = []
    for name in sorted(set(olds) | set(news)):
        o, n = olds.get(name), news.get(name)
        if o is None or n is None:
            m = o or n
            out.append(Change("models", "added" if o is None else "removed", name, where=f"{m['file']}:{m['line']}",
                              detail=", ".join(f"{k} {m.get(k)}" for k in ("layers", "hidden", "experts")),
                              match=_model_match(name, {m["file"]})))
            continue
        diffs = [k for k in MODEL_FIELDS if o.get(k) != n.get(k)]
        if not diffs and o.get("args") != n.get("args"):
            diffs = ["args"]
        if diffs:
            stated = [form for k in diffs if k in FIELDS for form in prose_forms(o.get(k)) if o.get(k) is not None]
            out.append(Change("models", "changed", name, where=f"{n['file']}:{n['line']}", stated=stated,
                              fields=[(k, show(o.get(k)), show(n.get(k))) for k in diffs],
                              match=_model_match(name, {o["file"], n["file"]})))
    return out


def _value_forms(value: object) -> list[str]:
    forms = prose_forms(value)
    if isinstance(value, float):
        forms += [f"{value:.1f}", f"{value:.2f}", f"{value:,.0f}"]
    return sorted(set(forms))


def computed_changes(old: Side, new: Side) -> list[Change]:
    """Values ``_ext/miles101/derive.py`` computes from each side's models and flags."""
    if old.computed is None or new.computed is None:
        return []
    olds, news = old.computed["values"], new.computed["values"]
    out = []
    for key in sorted(set(olds) | set(news)):
        o, n = olds.get(key), news.get(key)
        if o is not None and n is not None and o["value"] == n["value"]:
            continue
        category = "added" if o is None else "removed" if n is None else "changed"
        out.append(Change("computed", category, key, None if o is None else show(o["value"]),
                          None if n is None else show(n["value"]), detail=(n or o).get("what", ""),
                          stated=_value_forms(o["value"]) if o is not None else [],
                          match=lambda ref, k=key: ref.kind == "computed" and ref.key == k))
    return out
