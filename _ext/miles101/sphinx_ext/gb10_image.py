"""```{gb10-build}```: the served Dockerfile.gb10's build line, its base by digest and its untested mark, from data.

The build line is the one in the file's header and the base is the file's `ARG BASE_IMAGE`/`ARG BASE_DIGEST`,
held to what `capture/run.py slime` recorded from slime (`capture/slime/gb10.json`, `miles101.gb10_image`):
the page types neither. A file that no longer agrees with the record warns (`manual.capture`). The page is
read again when the file or the record changes.
"""
from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from .. import gb10_image
from ..problems import Subtype
from .base import ManualDirective
from .domain import capture_of

#: Where the page serves the file from, relative to the project root (the `{download}` beside the directive).
SERVED = Path("_ext") / "miles101" / "tools" / "Dockerfile.gb10"


class Gb10BuildDirective(ManualDirective):
    """```{gb10-build}``` (no argument, no content): the build command block and a line naming the base."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = capture_of(self.env).root
        served, record_path = root / SERVED, root / gb10_image.RECORD
        for path in (served, record_path):
            self.env.note_dependency(str(path))
        try:
            dockerfile = gb10_image.read(served)
            record = json.loads(record_path.read_text(encoding="utf-8"))
            found = gb10_image.problems(dockerfile, record, capture_of(self.env).files)
        except (OSError, ValueError, KeyError, TypeError, gb10_image.DockerfileError) as exc:
            return self.problem(Subtype.CAPTURE, f"{{gb10-build}} cannot read {SERVED} or {gb10_image.RECORD}: {exc}",
                                "run `python3 capture/run.py slime --slime-src <slime git dir>` and check the file")
        if found:
            return self.problem(Subtype.CAPTURE, f"{SERVED} does not agree with {gb10_image.RECORD}: {found[0]}",
                                "fix the Dockerfile's line, or re-read slime with `python3 capture/run.py slime`")
        block = nodes.literal_block(dockerfile.build_command, dockerfile.build_command, language="bash")
        self.set_source_info(block)
        path, lines = record["base"]["at"].split(":")
        commit = record["provenance"]["commit"]
        url = f"https://github.com/{gb10_image.SLIME_REPO}/blob/{commit}/{path}#L{lines.replace('-', '-L')}"
        base = nodes.paragraph(
            "", "", nodes.Text("It starts from "), nodes.literal("", dockerfile.base),
            nodes.Text(", the base and digest slime's file pins ("),
            nodes.reference("", "", nodes.literal("", f"{path}:{lines}"), refuri=url),
            nodes.Text(" at "), nodes.literal("", commit[:9]), nodes.Text("). "),
            nodes.emphasis("", "Not yet built by this book."))
        return [block, base]


DIRECTIVES = {"gb10-build": Gb10BuildDirective}


def setup_gb10_image(app: Sphinx) -> None:
    """Register the directive."""
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
