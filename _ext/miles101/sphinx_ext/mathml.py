"""Math as MathML, written at build time: no script, no CDN, readable offline and in dark mode.

Docutils' own LaTeX-to-MathML converter does the work; browsers render MathML Core natively.
A formula it cannot convert is a `manual.bad_format` warning with its location, shown as code.
"""
from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.utils.math import latex2mathml

from ..problems import Subtype
from .base import warn


#: Named entities docutils' MathML writer emits that XHTML does not declare (an EPUB chapter is XHTML,
#: and a strict reader stops at the first undeclared entity): written as the characters they name.
XHTML_ENTITIES = {"&ApplyFunction;": "\u2061"}


def _mathml(self: Any, node: nodes.Element, display: bool) -> str | None:
    try:
        out = latex2mathml.tex2mathml(node.astext().strip(), as_block=display)
        for entity, char in XHTML_ENTITIES.items():
            out = out.replace(entity, char)
        return out
    except Exception as exc:  # docutils raises SyntaxError and friends for unsupported LaTeX
        warn(Subtype.BAD_FORMAT, f"cannot turn this formula into MathML ({exc}).", location=node,
             fix="use the LaTeX subset docutils supports (no \\big, \\iff; use (), \\Leftrightarrow).")
        return None


def visit_math(self: Any, node: nodes.math) -> None:
    out = _mathml(self, node, display=False)
    self.body.append(out if out is not None else f"<code>{self.encode(node.astext())}</code>")
    raise nodes.SkipNode


def visit_math_block(self: Any, node: nodes.math_block) -> None:
    out = _mathml(self, node, display=True)
    self.body.append(self.starttag(node, "div", CLASS="math m101-math"))
    self.body.append(out if out is not None else f"<pre>{self.encode(node.astext())}</pre>")
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup_mathml(app) -> None:
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_math_block, None))
