"""The drift report as data (``--json``) and as text for the terminal."""
from __future__ import annotations

from collections import Counter, defaultdict

from . import SCHEMA
from .change import CATEGORIES, Change, sort_key
from .flags import RENAME_HEURISTIC
from .sides import Side

SRC_NOTE = ("cited src lines are compared by text when both sides have Miles's source (revisions, or capture "
            "directories whose commit --miles-src holds); otherwise only by file presence and line count.")


def side_json(side: Side) -> dict:
    prov = side.provenance
    return {"commit": prov.get("commit"), "commit_date": prov.get("commit_date"), "read_from": prov.get("read_from"),
            "label": side.label, "source_text": side.source is not None}


def heading(key: str, pages_at: str) -> str:
    """A category's heading; src headings name the side the cited lines were checked against."""
    base, other = ("OLD", "NEW") if pages_at == "old" else ("NEW", "OLD")
    return CATEGORIES[tuple(key.split("."))].format(base=base, other=other)


def build(old: Side, new: Side, changes: list[Change], pages: list[str], refs: list, pages_root: str,
          pages_at: str = "old") -> dict:
    """The whole report: sides, counts, changes by category, pages touched, exit status."""
    changes = sorted(changes, key=sort_key)
    counts = {f"{g}.{c}": {"heading": heading(f"{g}.{c}", pages_at), "changes": 0, "cited": 0}
              for g, c in CATEGORIES}
    touched: dict[str, list[dict]] = defaultdict(list)
    for ch in changes:
        counts[f"{ch.group}.{ch.category}"]["changes"] += 1
        if ch.cited_by:
            counts[f"{ch.group}.{ch.category}"]["cited"] += 1
        for cite in ch.cited_by:
            touched[cite["file"]].append({"line": cite["line"], "kind": cite["kind"], "text": cite["text"],
                                          "change": f"{ch.group}.{ch.category}", "key": ch.key})
    by_kind = Counter(r.kind for r in refs)
    return {
        "schema": SCHEMA,
        "old": side_json(old),
        "new": side_json(new),
        "pages": {"root": pages_root, "files": len(pages), "references": dict(sorted(by_kind.items())),
                  "lines_of": pages_at},
        "heuristics": {"renamed": RENAME_HEURISTIC, "src": SRC_NOTE},
        "notes": old.notes + new.notes,
        "counts": counts,
        "changes": [c.to_json() for c in changes],
        "pages_touched": {f: sorted(v, key=lambda e: e["line"]) for f, v in sorted(touched.items())},
        "exit": 1 if touched else 0,
    }


def _cite_line(cite: dict) -> str:
    text = f"      cited at {cite['file']}:{cite['line']}  {{{cite['kind']}}}`{cite['text']}`"
    if "states_old" in cite:
        text += ("  - prose states the old value: " + ", ".join(repr(s) for s in cite["states_old"])
                 if cite["states_old"] else "  - prose does not state the old value")
    return text


def _change_line(ch: dict) -> str:
    mark = "*" if ch.get("cited_by") else " "
    parts = [f"  {mark} {ch['key']}"]
    if "old" in ch or "new" in ch:
        parts.append(f"{ch.get('old', '-')} -> {ch.get('new', '-')}")
    if ch.get("where"):
        parts.append(f"[{ch['where']}]")
    lines = ["  ".join(parts)]
    lines += [f"      {f['field']}: {f['old']} -> {f['new']}" for f in ch.get("fields", [])]
    if ch.get("detail"):
        lines.append(f"      {ch['detail']}")
    return "\n".join(lines)


def text(report: dict, cited_only: bool = False) -> str:
    """The report for a terminal: header, summary table, pages touched, then every category."""
    o, n, p = report["old"], report["new"], report["pages"]
    out = [f"Miles drift: {o['commit'][:9]} ({o['commit_date']}) -> {n['commit'][:9]} ({n['commit_date']})",
           f"  old: {o['label']}" + ("" if o["source_text"] else "  (capture files only)"),
           f"  new: {n['label']}" + ("" if n["source_text"] else "  (capture files only)"),
           f"  pages: {p['files']} files under {p['root']}, "
           + ", ".join(f"{v} {k}" for k, v in p["references"].items()) + " references; their {src} line numbers "
           + f"are read as {p['lines_of'].upper()}'s"]
    out += [f"  note: {note}" for note in report["notes"]]
    out += ["", f"{'category':58} {'changes':>7} {'cited':>6}"]
    for key, c in report["counts"].items():
        if c["changes"]:
            out.append(f"  {c['heading']:56} {c['changes']:7d} {c['cited']:6d}")
    touched = report["pages_touched"]
    out += ["", f"Pages touched: {len(touched)}" + ("" if touched else " (nothing the manual cites changed)")]
    for page, cites in touched.items():
        kinds = Counter(c["kind"] for c in cites)
        out.append(f"  {page}: {len(cites)} reference(s) ("
                   + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")")
    groups: dict[str, list[dict]] = defaultdict(list)
    for ch in report["changes"]:
        if ch.get("cited_by") or not cited_only:
            groups[f"{ch['group']}.{ch['category']}"].append(ch)
    for key in report["counts"]:
        if not groups.get(key):
            continue
        out += ["", f"== {report['counts'][key]['heading']} ({len(groups[key])}) =="]
        if key == "flags.renamed":
            out.append(f"   {report['heuristics']['renamed']}")
        for ch in groups[key]:
            out.append(_change_line(ch))
            out += [_cite_line(c) for c in ch.get("cited_by", [])]
    verdict = "the manual cites something that changed" if report["exit"] else "nothing the manual cites changed"
    out += ["", f"note: {report['heuristics']['src']}", f"(* = cited by a page.) exit {report['exit']}: {verdict}."]
    return "\n".join(out)
