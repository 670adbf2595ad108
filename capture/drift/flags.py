"""Flag and passthrough-family changes: added, removed, renamed, default, type/choices, moved, other."""
from __future__ import annotations

from collections import defaultdict

from miles101.tools.miles_tree import RENAME_HEURISTIC, find_renames

from .change import Change, prose_forms, show
from .sides import Side

__all__ = ["RENAME_HEURISTIC", "family_changes", "find_renames", "flag_changes", "record_changes"]

TYPE_FIELDS = ("type", "choices", "choices_expr")
OTHER_FIELDS = ("aliases", "action", "nargs", "const", "required", "backend", "conditional", "kind", "group")
def show_default(rec: dict) -> str:
    kind = rec["default_kind"]
    if kind == "computed":
        return f"<computed: {rec['default_expr']}>"
    if kind == "none":
        return "(no default set)"
    return show(rec["default"]) + (" (implicit)" if kind == "implicit" else "")


def at(rec: dict) -> str:
    return f"{rec['file']}:{rec['line']}"


def options(rec: dict) -> set[str]:
    return {rec["name"], *rec.get("aliases", [])}


def _flag_match(names: set[str]):
    return lambda ref: ref.kind == "flag" and ref.key in names


def _by_name(records: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        out[rec["name"]].append(rec)
    return out


def _pair(olds: list[dict], news: list[dict]) -> list[tuple[dict | None, dict | None]]:
    """Records of one name, paired by (kind, backend), then in order; leftovers stand alone."""
    olds, news, pairs = list(olds), list(news), []
    for same in (lambda a, b: (a["kind"], a["backend"]) == (b["kind"], b["backend"]), lambda a, b: True):
        for old in list(olds):
            new = next((n for n in news if same(old, n)), None)
            if new is not None:
                pairs.append((old, new))
                olds.remove(old)
                news.remove(new)
    return pairs + [(o, None) for o in olds] + [(None, n) for n in news]


def record_changes(old: dict, new: dict, key: str, names: set[str]) -> list[Change]:
    """What changed between two records of the same flag (or of a renamed pair)."""
    match = _flag_match(names)
    out = []
    if (old["default_kind"], old["default"], old["default_expr"]) != (new["default_kind"], new["default"],
                                                                      new["default_expr"]):
        same_value = old["default"] == new["default"] and {old["default_kind"], new["default_kind"]} <= {
            "literal", "implicit"}
        if not same_value:
            stated = prose_forms(old["default"]) if old["default_kind"] in ("literal", "implicit") else []
            out.append(Change("flags", "default", key, show_default(old), show_default(new), where=at(new),
                              stated=stated, match=match))
    diffs = [f for f in TYPE_FIELDS if old.get(f) != new.get(f)]
    if diffs:
        gone = [c for c in (old.get("choices") or []) if c not in (new.get("choices") or [])]
        stated = ([str(old["type"])] if "type" in diffs and old["type"] else []) + [str(c) for c in gone]
        out.append(Change("flags", "type", key, where=at(new), stated=stated, match=match,
                          fields=[(f, show(old.get(f)), show(new.get(f))) for f in diffs]))
    if old["file"] != new["file"]:
        out.append(Change("flags", "moved", key, at(old), at(new), stated=[old["file"]], match=match))
    diffs = [f for f in OTHER_FIELDS if old.get(f) != new.get(f)]
    if diffs:
        out.append(Change("flags", "other", key, where=at(new), match=match,
                          fields=[(f, show(old.get(f)), show(new.get(f))) for f in diffs]))
    return out


def flag_changes(old: Side, new: Side) -> list[Change]:
    """Every flag change between the two sides."""
    olds, news = _by_name(old.flags), _by_name(new.flags)
    new_options = {opt: r for r in new.flags for opt in options(r)}
    out: list[Change] = []
    for name in sorted(set(olds) & set(news)):
        for o, n in _pair(olds[name], news[name]):
            if o and n:
                out.extend(record_changes(o, n, name, options(o) | options(n)))
            else:
                rec = o or n
                out.append(Change("flags", "other", name, f"registration {rec['kind']} at {at(rec)}" if o else None,
                                  None if o else f"registration {rec['kind']} at {at(rec)}", where=at(rec),
                                  detail="one of the flag's registrations " + ("is gone" if o else "is new"),
                                  match=_flag_match({name})))
    removed = [r for name in sorted(set(olds) - set(news)) for r in olds[name]]
    added = [r for name in sorted(set(news) - set(olds)) for r in news[name]]
    renamed = []
    for o in list(removed):  # the old name kept as an alias of a new flag: a rename that keeps old pages working
        n = new_options.get(o["name"])
        if n is not None and n in added:
            renamed.append((o, n, f"the new flag keeps {o['name']} as an alias"))
            removed.remove(o)
            added.remove(n)
    for o, n, why in find_renames(removed, added, old.flags, new.flags, lambda file: old.linemap(new, file)):
        renamed.append((o, n, why))
        removed.remove(o)
        added.remove(n)
    for o, n, why in renamed:
        names = options(o) | options(n)
        extra = [f"{c.category} {c.old} -> {c.new}" if not c.fields else
                 f"{c.category} " + ", ".join(f"{f} {a} -> {b}" for f, a, b in c.fields)
                 for c in record_changes(o, n, n["name"], names) if c.category != "moved"]
        out.append(Change("flags", "renamed", o["name"], o["name"], n["name"], where=f"{at(o)} -> {at(n)}",
                          detail="; ".join([why, *extra]), stated=[o["name"]], match=_flag_match(names)))
    for rec in removed:
        out.append(Change("flags", "removed", rec["name"], old=show_default(rec), where=at(rec),
                          detail=f"dest {rec['dest']}, type {rec['type']}", match=_flag_match(options(rec))))
    for rec in added:
        out.append(Change("flags", "added", rec["name"], new=show_default(rec), where=at(rec),
                          detail=f"dest {rec['dest']}, type {rec['type']}, group {rec['group']}",
                          match=_flag_match(options(rec))))
    return out


def _family_key(fam: dict) -> str:
    """A family's prefix, or its registrar and file when the extractor could not bind the prefix."""
    return fam["prefix"] + "*" if fam.get("prefix") else f"(unbound prefix) {fam.get('registrar')} in {fam['file']}"


def _family_match(fams: list[dict], explicit: set[str], names: set[str] | None = None):
    """Refs to a name a family passes through (on either side), optionally only the given names."""
    prefix = fams[0]["prefix"]
    lists = [f.get("members") for f in fams]
    members = None if any(m is None for m in lists) else {m.removeprefix("--") for ms in lists for m in ms}

    def match(ref) -> bool:
        if ref.kind != "flag" or not prefix or not ref.key.startswith(prefix) or ref.key in explicit:
            return False
        rest = ref.key[len(prefix):]
        if members is not None and rest not in members:
            return False
        return names is None or rest.replace("-", "_") in names
    return match


def family_changes(old: Side, new: Side) -> list[Change]:
    """Passthrough families (``--sglang-*``) added, removed or changed (skipped names, members, site)."""
    olds = {_family_key(f): f for f in old.families}
    news = {_family_key(f): f for f in new.families}
    explicit = {opt for side in (old, new) for r in side.flags for opt in options(r)}
    out = []
    for prefix in sorted(set(olds) | set(news)):
        o, n = olds.get(prefix), news.get(prefix)
        if o is None or n is None:
            fam = o or n
            if fam["kind"] == "megatron" and not any(f["kind"] == "megatron" for f in (new if o else old).families):
                continue  # Megatron's flags come from Megatron-LM, read only with --megatron-src: not a Miles change
            out.append(Change("families", "added" if o is None else "removed", prefix,
                              where=f"{fam['file']}:{fam['line']}", detail=f"{fam['kind']} via {fam.get('registrar')}",
                              match=_family_match([fam], explicit)))
            continue
        parts, whole = [], False
        skip_o, skip_n = set(o.get("skipped") or []), set(n.get("skipped") or [])
        if skip_n - skip_o:
            parts.append("now skipped (no longer passed through): " + ", ".join(sorted(skip_n - skip_o)))
        if skip_o - skip_n:
            parts.append("no longer skipped: " + ", ".join(sorted(skip_o - skip_n)))
        names = {s.replace("-", "_") for s in skip_o ^ skip_n}
        mem_o, mem_n = set(o.get("members") or []), set(n.get("members") or [])
        if o.get("members") is not None and n.get("members") is not None and mem_o != mem_n:
            parts.append(f"members: {len(mem_n - mem_o)} added, {len(mem_o - mem_n)} removed")
            names |= {m.removeprefix("--").replace("-", "_") for m in mem_o ^ mem_n}
        elif (o.get("members") is None) != (n.get("members") is None):
            parts.append(f"members {'listed' if n.get('members') is not None else 'no longer listed'}")
            whole = True
        for key in ("kind", "dest_prefix", "inherit", "file"):
            if o.get(key) != n.get(key):
                parts.append(f"{key} {show(o.get(key))} -> {show(n.get(key))}")
                whole = True  # every name under the prefix is touched
        if parts:
            out.append(Change("families", "changed", prefix, where=f"{n['file']}:{n['line']}",
                              detail="; ".join(parts), match=_family_match([o, n], explicit, None if whole else names)))
    return out
