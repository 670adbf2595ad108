"""Sources: Miles's own code and issues, and the commit the book read them at.

- `{src}` path[:line[-end]] or `text <path:line>`: a link into Miles at the captured commit;
- `{issue}` owner/repo#N: a link to an issue or pull request, collected for R.4;
- ```{pin}```: manual.json's pin beside what the capture read; a mismatch is said plainly.
"""
from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..resolve import Resolved
from .base import ManualDirective, ResolvedRole, add_markup
from .domain import CITE, Cite, book_of, capture_of


class SrcRole(ResolvedRole):
    """`{src}` path[:line[-end]] or `text <path:line>`: a link into Miles at the captured commit."""

    kind = "src"

    def render(self, result: Resolved) -> list[nodes.Node]:
        text = result.extra["text"]
        child: nodes.Node = nodes.Text(text) if result.extra["explicit"] else nodes.literal(text, text)
        return [nodes.reference(self.rawtext, "", child, refuri=result.extra["url"], classes=["m101-src"],
                                **{CITE: Cite("src", result.key, line=result.value["start"])})]


class IssueRole(ResolvedRole):
    """`{issue}` owner/repo#N: a link to the issue or pull request, collected for R.4."""

    kind = "issue"
    follows_data = False  # a link only: nothing in the capture changes it

    def render(self, result: Resolved) -> list[nodes.Node]:
        return [nodes.reference(self.rawtext, result.key, refuri=result.extra["url"], classes=["m101-issue"],
                                **{CITE: Cite("issue", result.key)})]


class PinDirective(ManualDirective):
    """```{pin}```: manual.json's pin beside what the capture read; a mismatch is said plainly."""

    def run(self) -> list[nodes.Node]:
        pin = book_of(self.env).data["pin"]
        capture = capture_of(self.env)
        self.note("pin", "capture")
        read = capture.provenance
        commit = str(read.get("commit", ""))
        table = nodes.field_list(classes=["m101-pin"])
        rows = [  # each date says what it dates: the pinned commit, the pin's check, the commit read
            ("This edition targets", f"{pin['subject']} {pin['commit']}, committed {pin['date']} ({pin['version']})"),
            ("Pin verified on", pin.get("verified", "—")),
            ("Read from", f"commit {commit[:10] or 'none yet'}, committed {read.get('commit_date', '?')}"),
        ]
        for label, text in rows:
            table += nodes.field("", nodes.field_name("", label), nodes.field_body("", nodes.paragraph("", text)))
        meaning = nodes.paragraph("", "", nodes.Text(
            f"What this means for you: every flag, default and source line in this book is Miles at commit "
            f"{commit[:10] or pin['commit']}. If you run another Miles, a flag may have moved or changed its default; "),
            nodes.literal("", "python3 preflight.py --compare-image IMAGE"),
            nodes.Text(" (section 1.1, step 2) lists what in your image differs where the pages look."),
            classes=["m101-pin-meaning"])
        out: list[nodes.Node] = [table, meaning]
        if not commit or not commit.startswith(pin["commit"]):
            note = nodes.admonition(classes=["m101-pin-mismatch", "note"])
            note += nodes.title("", "The pin and the capture differ")
            note += nodes.paragraph("", (
                f"This edition targets Miles {pin['commit']}, but what it shows was read from "
                f"{commit[:10] or 'no commit'}: go by the commit that was read. R.4 Sources says how the "
                "book is brought to the pin."))
            out.append(note)
        return out


ROLES = {"src": SrcRole(), "issue": IssueRole()}
DIRECTIVES = {"pin": PinDirective}


def setup_sources(app: Sphinx) -> None:
    add_markup(app, ROLES, DIRECTIVES)
