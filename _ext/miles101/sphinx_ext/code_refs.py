"""A `{ref}` to a section whose title holds code shows that code as code.

Sphinx writes a resolved `{ref}` as the target section's title in plain text, so a link to 7.1's
entry `` `Max retries (60) reached, failing...` `` reads as prose, and its digits as typed numbers.
After the references resolve, each link to a section whose title holds code gets the title's code
spans back as code (`nodes.literal`; a link inside the title, such as a `{metric}`, becomes its code
alone, since a link cannot hold a link), in every builder.
"""
from __future__ import annotations

import weakref

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform


#: A title as (is code, text) runs.
Runs = tuple[tuple[bool, str], ...]
#: Per build environment (one per build): docname → section id → its title's runs.
_TITLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def code_runs(section: nodes.Element | None) -> Runs | None:
    """`section`'s title as runs of code and text when any of it is code, else None."""
    if not isinstance(section, nodes.section) or not section.children or not isinstance(section[0], nodes.title):
        return None
    title = section[0]
    if not any(True for _ in title.findall(nodes.literal)):
        return None
    return tuple((not isinstance(child, nodes.Text) and any(True for _ in child.findall(nodes.literal)), child.astext())
                 for child in title.children)


class CodeTitleRefs(SphinxPostTransform):
    """Give each resolved `{ref}` to a section whose title holds code that title's code spans."""

    default_priority = 11  # right after Sphinx's ReferencesResolver (10)

    def _code_titles(self, docname: str) -> dict[str, Runs]:
        """Section id → its title's runs, for the sections of `docname` whose title holds code."""
        cache: dict[str, dict[str, Runs]] = _TITLES.setdefault(self.env, {})
        if docname not in cache:
            doctree = self.document if docname == self.env.docname else self.env.get_doctree(docname)
            cache[docname] = {sid: runs for section in doctree.findall(nodes.section)
                              if (runs := code_runs(section)) for sid in section["ids"]}
        return cache[docname]

    def run(self, **kwargs) -> None:
        labels = self.env.get_domain("std").labels  # name → (docname, labelid, sectname)
        by_anchor = {(labelid, sectname): docname for docname, labelid, sectname in labels.values() if sectname}
        for ref in list(self.document.findall(nodes.reference)):
            if len(ref.children) != 1 or not isinstance(ref[0], nodes.inline) or "std-ref" not in ref[0]["classes"]:
                continue
            anchor = ref.get("refid") or ref.get("refuri", "").rpartition("#")[2]
            text = ref[0].astext()
            docname = by_anchor.get((anchor, text))
            runs = self._code_titles(docname).get(anchor) if docname is not None else None
            if runs is None or "".join(part for _, part in runs) != text:
                continue
            ref[0][:] = [nodes.literal(part, part) if code else nodes.Text(part) for code, part in runs]


def setup_code_refs(app: Sphinx) -> None:
    app.add_post_transform(CodeTitleRefs)
