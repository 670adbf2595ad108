"""The fact-check record (capture/factcheck.json): which page was checked against which Miles commit.

No Sphinx imports. `load_factcheck(root)` reads the record (schema _ext/miles101/schema/factcheck.schema.json,
validated with every other capture file by `miles101.validate`); `FactChecks.last_checked(page)` is
what a page shows as "facts last checked against commit X"; `factcheck_problems` is the part a
schema cannot say (known pages and classes, counts that add up, Miles lines that exist), reported by
`capture/run.py --check`, which also holds each universal claim the record lists (a sentence with
"every", "always", "never", "only", "each", "no") to be still on its page, once, with its source
resolving: Miles lines at the captured commit, or another page that says the same.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problem, capture_problem

FILE = "capture/factcheck.json"


@dataclass(frozen=True)
class Check:
    """One checker's pass over one page against one Miles commit."""

    page: str
    commit: str
    date: str
    checker: str
    independent: bool
    scope: str
    claims_checked: int
    wrong_found: int
    fixed: int
    classes_checked: tuple[str, ...]
    notes: str = ""
    fixes: tuple[dict[str, Any], ...] = ()
    at: int = 0  # its index in the file's `checks`, for messages

    @classmethod
    def from_record(cls, rec: dict[str, Any], at: int = 0) -> Check:
        return cls(page=rec["page"], commit=rec["commit"], date=rec["date"], checker=rec["checker"],
                   independent=bool(rec["independent"]), scope=rec["scope"], claims_checked=rec["claims_checked"],
                   wrong_found=rec["wrong_found"], fixed=rec["fixed"], classes_checked=tuple(rec["classes_checked"]),
                   notes=rec.get("notes", ""), fixes=tuple(rec.get("fixes", [])), at=at)


@dataclass(frozen=True)
class UniversalClaim:
    """A sentence of a page that states a universal claim, and what decides it (exactly one of the four)."""

    page: str
    sentence: str
    src: str | None = None  #: Miles path[:line[-end]] at the captured commit
    command: str | None = None  #: a command whose `output` decides it
    output: str | None = None
    other_page: str | None = None  #: another page that must say the same: it holds `says`
    says: str | None = None
    evidence: str | None = None  #: what the reader read or ran, where no single source above decides it
    quantifier: str | None = None
    at: int = 0  # its index in the page's list, for messages

    @classmethod
    def from_record(cls, page: str, rec: dict[str, Any], at: int = 0) -> UniversalClaim:
        """Raises KeyError or TypeError for an entry of the wrong shape (the schema names it; `load` leaves it out)."""
        source = rec["source"]
        claim = cls(page=page, sentence=rec["sentence"], src=source.get("src"), command=source.get("command"),
                    output=source.get("output"), other_page=source.get("page"), says=source.get("says"),
                    evidence=source.get("evidence"), quantifier=rec.get("quantifier"), at=at)
        texts = (claim.sentence, claim.src, claim.command, claim.output, claim.other_page, claim.says, claim.evidence)
        if not isinstance(claim.sentence, str) or not all(t is None or isinstance(t, str) for t in texts):
            raise TypeError(f"universal claim {at} of {page}: a sentence or source field is not a string")
        return claim


@dataclass(frozen=True)
class FactChecks:
    """Every check in the record, in the file's order, the classes of error they name, and the universal claims."""

    classes: dict[str, str] = field(default_factory=dict)
    checks: tuple[Check, ...] = ()
    claims: tuple[UniversalClaim, ...] = ()

    def for_page(self, page: str) -> list[Check]:
        """The checks of one page (e.g. "sections/2-4-size-the-weight-update.md"), oldest first."""
        return sorted((c for c in self.checks if c.page == page), key=lambda c: c.date)

    def last_checked(self, page: str, independent: bool | None = None) -> Check | None:
        """The page's latest check (by date; the later entry wins a tie), optionally only independent ones."""
        found = [c for c in self.for_page(page) if independent is None or c.independent == independent]
        return found[-1] if found else None

    def pages(self) -> list[str]:
        return sorted({c.page for c in self.checks})


def load_factcheck(root: Path) -> FactChecks:
    """The record under `root`, or an empty one when the file does not exist.

    An entry of the wrong shape is left out (`capture/run.py --check` names it by its JSON path);
    a file that is not JSON raises ValueError.
    """
    path = root / FILE
    if not path.is_file():
        return FactChecks()
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        return FactChecks()
    checks = []
    for at, rec in enumerate(doc.get("checks") or []):
        try:
            checks.append(Check.from_record(rec, at))
        except (KeyError, TypeError):
            continue
    claims = []
    listed = doc.get("universal_claims")
    for page, recs in (listed.items() if isinstance(listed, dict) else ()):
        for at, rec in enumerate(recs if isinstance(recs, list) else []):
            try:
                claims.append(UniversalClaim.from_record(page, rec, at))
            except (KeyError, TypeError, AttributeError):
                continue
    classes = doc.get("classes")
    return FactChecks(classes=dict(classes) if isinstance(classes, dict) else {}, checks=tuple(checks),
                      claims=tuple(claims))


def _flat(text: str) -> str:
    """Text with every run of whitespace one space: a sentence is found whatever the page's line breaks."""
    return re.sub(r"\s+", " ", text)


def claim_problems(record: FactChecks, pages: list[str] | None, root: Path, capture: Any) -> list[Problem]:
    """Each universal claim whose sentence is no longer on its page once, or whose source does not resolve."""
    found: list[Problem] = []
    texts: dict[str, str | None] = {}
    if pages is None:  # the book could not be read (named on its own): no claim's page can be judged
        return found

    def text_of(page: str) -> str | None:
        if page not in texts:
            path = root / page
            texts[page] = _flat(path.read_text(encoding="utf-8")) if page in pages and path.is_file() else None
        return texts[page]

    for claim in record.claims:
        where = f"{FILE}:$.universal_claims[{json.dumps(claim.page)}][{claim.at}]"
        text = text_of(claim.page)
        if text is None:
            found.append(capture_problem(where, f"{claim.page!r} is not a page of the book.",
                                         "name a page file listed in manual.json (front.md or sections/<file>.md)."))
            continue
        count = text.count(_flat(claim.sentence))
        if count != 1:
            said = "is no longer on" if count == 0 else f"is on {count} places of"
            found.append(capture_problem(f"{where}.sentence", f"the claim {claim.sentence[:80]!r} {said} {claim.page}.",
                                         "if the page changed, check the new sentence against its source and record "
                                         "it here; give a fragment that occurs once on the page."))
        if claim.src is not None:
            why = capture.src_spec_problem(claim.src)
            if why:
                found.append(capture_problem(f"{where}.source.src", why, "cite lines of Miles at the captured commit."))
        if claim.other_page is not None:
            other = text_of(claim.other_page)
            if other is None or _flat(claim.says or "") not in other:
                found.append(capture_problem(f"{where}.source", f"{claim.other_page} does not say "
                                             f"{(claim.says or '')[:80]!r}, which {claim.page} must agree with.",
                                             "make the two pages say the same, then record what the other page says now."))
    return found


def factcheck_problems(record: FactChecks, pages: list[str] | None, capture: Any) -> list[Problem]:
    """What the schema cannot check, each a `manual.capture` problem at its JSON path.

    `pages` are the book's page files (None when the book could not be read: no page is judged then); `capture` is the loaded capture (its commit and Miles's files).
    A fix's Miles lines are checked only when the check was made against the captured commit;
    a `book:<path>` source must be a file of this project.
    """
    found: list[Problem] = []

    def add(where: str, message: str, fix: str) -> None:
        found.append(capture_problem(where, message, fix))

    captured = str(capture.provenance.get("commit", ""))
    for check in record.checks:
        where = f"{FILE}:$.checks[{check.at}]"
        if pages is not None and check.page not in pages:
            add(f"{where}.page", f"{check.page!r} is not a page of the book.",
                "name a page file listed in manual.json (front.md or sections/<file>.md).")
        unknown = [c for c in check.classes_checked if c not in record.classes]
        if unknown:
            add(f"{where}.classes_checked", f"unknown class(es) {', '.join(unknown)}.",
                f"use one of {', '.join(sorted(record.classes))}, or define it under $.classes.")
        if not check.fixed <= check.wrong_found <= check.claims_checked:
            add(where, f"the counts do not add up: {check.fixed} fixed, {check.wrong_found} wrong, "
                       f"{check.claims_checked} checked.",
                "fixed <= wrong_found <= claims_checked.")
        if check.fixes and len(check.fixes) != check.fixed:
            add(f"{where}.fixes", f"{len(check.fixes)} fix(es) listed but fixed is {check.fixed}.",
                "list every fix, or none.")
        for j, fix in enumerate(check.fixes):
            if fix.get("class") and fix["class"] not in record.classes:
                add(f"{where}.fixes[{j}].class", f"unknown class {fix['class']!r}.",
                    "use a class defined under $.classes.")
            for spec in fix.get("src", []):
                if spec.startswith("book:"):
                    if not (Path(capture.root) / spec[5:]).exists():
                        add(f"{where}.fixes[{j}].src", f"this repository has no {spec[5:]!r}.",
                            "name a file of the project after book:.")
                elif not spec.startswith("https://") and check.commit == captured:
                    why = capture.src_spec_problem(spec)
                    if why:
                        add(f"{where}.fixes[{j}].src", why, "cite lines of Miles at the check's commit.")
    return found + claim_problems(record, pages, Path(capture.root), capture)
