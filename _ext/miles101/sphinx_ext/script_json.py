"""JSON for a `<script>` element of a page: data that stays data (issue 51).

A browser ends a script element at the first `</script`, and `<!--<script` inside one changes how it
finds that end (the "double-escaped" state), so a label in the data could swallow the rest of the page.
`json_for_script` writes `<`, `>`, `&` and `'` as JSON's \\u escapes, as Jinja's `tojson` filter does:
the text parses to the same value and holds none of those characters.
"""
from __future__ import annotations

import json
from typing import Any

_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def json_for_script(obj: Any, **dumps: Any) -> str:
    """`obj` as JSON text that is safe inside `<script type="application/json">` (and an HTML attribute)."""
    return json.dumps(obj, **dumps).translate(_ESCAPES)
