"""The time products of the run pages, recomputed: one rule for the build and `capture/run.py --check` (issue 60 §5).

A page plans a run's time as plain arithmetic of its text, both factors shown as roles and the result
typed: {run-arg}`seed-repeats --num-rollout` × {reference}`slime-gb10.step-time` ≈ 34 min, or a sum of
such products (`A × R +\nB × R ≈ 35 min`). The rule reads every such expression on any page (the form,
not a list of pages), multiplies each run file's value by the reference's (a time per step in s), adds
the terms, and refuses a result that is off by more than its own rounding
(half a unit of its last digit), naming the page, the line and the right figure. A factor that does not
resolve is left to the reference check, which names it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from .pagetext import line_of
from .problems import Problem, Subtype
from .resolve import resolve

#: Seconds per unit of a result.
UNITS = {"s": 1, "min": 60, "h": 3600}
#: One term, `{kind}`text`` × `{kind}`text`` (one word may follow a factor: "… --num-rollout` steps × …").
_FACTOR = r"\{([a-z][\w-]*)\}`([^`]+)`(?:\s+[a-z]+)?"
TERM = re.compile(rf"{_FACTOR}\s*×\s*{_FACTOR}")
#: A product, or a sum of products (1.1's evening: `A × R +\nB × R ≈ 35 min`), and its typed result.
PRODUCT = re.compile(rf"(?:{_FACTOR}\s*×\s*{_FACTOR}\s*\+\s*)*{_FACTOR}\s*×\s*{_FACTOR}\s*≈\s*"
                     r"(?P<figure>\d+(?:\.\d+)?)(?:\s*(?P<unit>min|s|h)\b)?")
FORM = "{run-arg}`<run> --num-rollout` × {reference}`<a time per step>` ≈ N min (terms may be summed with +)"


@dataclass(frozen=True)
class Product:
    """One product or sum of products on a page: where its result stands, its terms' roles, the typed result."""

    line: int
    start: int  # the span of the whole expression in the prose
    end: int
    terms: tuple[tuple[tuple[str, str], tuple[str, str]], ...]  # ((kind, text), (kind, text)) per term
    figure: str
    unit: str | None


def products(prose: str) -> list[Product]:
    """Every product (or sum of products) ≈ N in the prose (code already blanked: `miles101.pagetext.split`)."""
    if "≈" not in prose:
        return []
    found = []
    for m in PRODUCT.finditer(prose):
        expression = prose[m.start():m.start("figure")]
        terms = tuple(((t[1], t[2]), (t[3], t[4])) for t in TERM.finditer(expression))
        found.append(Product(line_of(prose, m.start("figure")), m.start(), m.end(), terms, m["figure"], m["unit"]))
    return found


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _time_unit(unit: str) -> int | None:
    """Seconds per unit of a reference's unit ("s per rollout step" → 1), or None when it is no time."""
    return UNITS.get((unit or "").split(" ", 1)[0])


def _term_seconds(capture: Any, term: tuple[tuple[str, str], tuple[str, str]], figure: str
                  ) -> tuple[float, str] | Problem | None:
    """(seconds, "48 × 41.9 s") of one term; a Problem (message, fix) when it is no time; None when a role does not
    resolve (the reference check names it)."""
    kinds = sorted(kind for kind, _ in term)
    if kinds != ["reference", "run-arg"]:
        return Problem(Subtype.BAD_REFERENCE, f"the product ≈ {figure} multiplies {{{term[0][0]}}} by {{{term[1][0]}}}, "
                       "which the gates cannot recompute.", f"write a time product as {FORM}, or cite the result as a "
                       "value.")
    arg_text = next(t for k, t in term if k == "run-arg")
    ref_text = next(t for k, t in term if k == "reference")
    arg, ref = resolve(capture, "run-arg", arg_text), resolve(capture, "reference", ref_text)
    if isinstance(arg, Problem) or isinstance(ref, Problem):
        return None
    count, per_step = _number(arg.value), ref.value
    if count is None:
        return Problem(Subtype.BAD_REFERENCE, f"{{run-arg}}`{arg_text}` is {arg.value!r}, not a number, so "
                       f"≈ {figure} cannot be recomputed.", "multiply a run file's count (--num-rollout).")
    seconds = _time_unit(per_step.unit)
    if seconds is None or per_step.value is None:
        return Problem(Subtype.BAD_REFERENCE, f"{{reference}}`{ref_text}` is {per_step.unit!r}, not a time per step, "
                       f"so ≈ {figure} is no time.", "multiply by a reference in s per step.")
    return count * per_step.value * seconds, f"{arg.value} × {per_step.value:g} s"


def product_problem(capture: Any, rel: str, product: Product) -> Problem | None:
    """Why one product (or sum) is wrong or cannot be checked, at its page and line; None when it holds."""
    where = f"{rel}:{product.line}"
    total, shown = 0.0, []
    for term in product.terms:
        result = _term_seconds(capture, term, product.figure)
        if result is None:
            return None
        if isinstance(result, Problem):
            return replace(result, where=where)
        total += result[0]
        shown.append(result[1])
    if product.unit is None:
        return Problem(Subtype.BAD_REFERENCE, f"the time product ≈ {product.figure} has no unit.",
                       f"write its unit after the figure: {FORM}.", where)
    exact = total / UNITS[product.unit]
    decimals = len(product.figure.partition(".")[2])
    if abs(exact - float(product.figure)) <= 0.5 * 10 ** -decimals + 1e-9:
        return None
    right = f"{exact:.{decimals}f}"
    factors = " + ".join(f"{{run-arg}}`{_arg(t)}` × {{reference}}`{_ref(t)}`" for t in product.terms)
    return Problem(Subtype.BAD_REFERENCE,
                   f"{factors} is {' + '.join(shown)} = {exact:.2f} {product.unit}, which rounds to {right} "
                   f"{product.unit}, not {product.figure} {product.unit}.",
                   f"write ≈ {right} {product.unit} (the run file or the reference changed since the page was written).",
                   where)


def _arg(term: tuple[tuple[str, str], tuple[str, str]]) -> str:
    return next(t for k, t in term if k == "run-arg")


def _ref(term: tuple[tuple[str, str], tuple[str, str]]) -> str:
    return next(t for k, t in term if k == "reference")


def time_product_problems(capture: Any, rel: str, prose: str) -> list[Problem]:
    """Each product on a page that does not hold, at its page and line."""
    return [p for p in (product_problem(capture, rel, prod) for prod in products(prose)) if p is not None]
