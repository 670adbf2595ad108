"""The front page's "Theory to know first" lines, linked to the glossary: each topic of a lesson's title that
names a glossary term of R.6 becomes a `{term}` link once every page is read (the glossary may be read after
the front page)."""
from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from ..problems import Subtype

logger = logging.getLogger(__name__)

#: What separates the topics of a lesson's title: "Policy gradients, REINFORCE", "Reward modeling (RLHF)".
TOPIC_SEPARATORS = re.compile(r"(, | \(|\))")


def glossary_term(topic: str, terms: dict[str, str]) -> str | None:
    """The glossary term a topic names, by the term's own words or their plural or -ing form
    ("Policy gradients" → policy gradient, "Reward modeling" → reward model); None if none."""
    low = topic.lower()
    for suffix in ("", "s", "es", "ing"):
        stem = low[:len(low) - len(suffix)] if suffix else low
        if low.endswith(suffix) and stem in terms:
            return terms[stem]
    return None


class TheoryTermLinks(SphinxPostTransform):
    """Link each topic of a "Theory to know first" line to its glossary entry (R.6), once every page is read;
    a line whose title names no glossary term warns, so each line keeps a link."""

    default_priority = 5  # before Sphinx's ReferencesResolver (10), which resolves the links made here

    def run(self, **kwargs: Any) -> None:
        lines = [item for box in self.document.findall(nodes.container) if "m101-related" in box["classes"]
                 for item in box.findall(nodes.list_item)]
        if not lines:
            return
        terms = {name.lower(): name for kind, name in self.env.get_domain("std").objects if kind == "term"}
        if not terms:
            return  # a book without a glossary has nothing to link to
        for item in lines:
            linked = 0
            for topic in list(item.findall(nodes.inline)):
                if "m101-theory-topic" not in topic["classes"]:
                    continue
                term = glossary_term(topic.astext(), terms)
                if term is not None:
                    topic.replace_self(pending_xref("", nodes.inline("", topic.astext()), refdomain="std",
                                                    reftype="term", reftarget=term, refdoc=self.env.docname,
                                                    refexplicit=True, refwarn=True))
                    linked += 1
            if not linked:
                logger.warning("the lesson %r under \"Theory to know first\" names no glossary term, so its line "
                               "links nothing. Fix: add an entry for what it teaches to sections/r-6-glossary.md, "
                               "or change manual.json's related list.", item.get("m101_lesson"),
                               type="manual", subtype=Subtype.BOOK.value, location=item)
