"""The time products of the run pages, recomputed: one rule for the build and `capture/run.py --check` (issue 60 §5).

A page plans a run's time as plain arithmetic of its text, both factors shown as roles and the result
typed: {run-arg}`seed-repeats --num-rollout` × {reference}`slime-gb10.step-time` ≈ 34 min. The rule
reads every such product on any page (the form, not a list of pages), multiplies the run file's value by
the reference's (a time per step in s), and refuses a result that is off by more than its own rounding
(half a unit of its last digit), naming the page, the line and the right figure. A factor that does not
resolve is left to the reference check, which names it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .pagetext import line_of
from .problems import Problem, Subtype
from .resolve import resolve

#: Seconds per unit of a result.
UNITS = {"s": 1, "min": 60, "h": 3600}
#: `{kind}`text`` × `{kind}`text`` ≈ N unit: a product of two roles and its typed result (one word may follow a
#: factor: "… --num-rollout` steps × …").
PRODUCT = re.compile(r"\{(?P<k1>[a-z][\w-]*)\}`(?P<t1>[^`]+)`(?:\s+[a-z]+)?\s*×\s*"
                     r"\{(?P<k2>[a-z][\w-]*)\}`(?P<t2>[^`]+)`(?:\s+[a-z]+)?\s*≈\s*"
                     r"(?P<figure>\d+(?:\.\d+)?)(?:\s*(?P<unit>min|s|h)\b)?")
FORM = "{run-arg}`<run> --num-rollout` × {reference}`<a time per step>` ≈ N min"


@dataclass(frozen=True)
class Product:
    """One product on a page: where its result stands, its factors' roles and the typed result."""

    line: int
    start: int  # the index of the product in the prose (the `≈` figure's span ends at `end`)
    end: int
    factors: tuple[tuple[str, str], tuple[str, str]]
    figure: str
    unit: str | None


def products(prose: str) -> list[Product]:
    """Every role × role ≈ N in the prose (code already blanked: `miles101.pagetext.split`)."""
    if "≈" not in prose:
        return []
    return [Product(line_of(prose, m.start("figure")), m.start(), m.end(), ((m["k1"], m["t1"]), (m["k2"], m["t2"])),
                    m["figure"], m["unit"]) for m in PRODUCT.finditer(prose)]


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _time_unit(unit: str) -> int | None:
    """Seconds per unit of a reference's unit ("s per rollout step" → 1), or None when it is no time."""
    return UNITS.get((unit or "").split(" ", 1)[0])


def product_problem(capture: Any, rel: str, product: Product) -> Problem | None:
    """Why one product is wrong (or cannot be checked), at its page and line; None when it holds."""
    where = f"{rel}:{product.line}"
    kinds = sorted(kind for kind, _ in product.factors)
    if kinds != ["reference", "run-arg"]:
        return Problem(Subtype.BAD_REFERENCE, f"the product ≈ {product.figure} multiplies {{{product.factors[0][0]}}} by "
                       f"{{{product.factors[1][0]}}}, which the gates cannot recompute.",
                       f"write a time product as {FORM}, or cite the result as a value.", where)
    arg_text = next(t for k, t in product.factors if k == "run-arg")
    ref_text = next(t for k, t in product.factors if k == "reference")
    arg, ref = resolve(capture, "run-arg", arg_text), resolve(capture, "reference", ref_text)
    if isinstance(arg, Problem) or isinstance(ref, Problem):
        return None  # the reference check names the factor that does not resolve
    count, per_step = _number(arg.value), ref.value
    if count is None:
        return Problem(Subtype.BAD_REFERENCE, f"{{run-arg}}`{arg_text}` is {arg.value!r}, not a number, so "
                       f"≈ {product.figure} cannot be recomputed.", "multiply a run file's count (--num-rollout).", where)
    seconds = _time_unit(per_step.unit)
    if seconds is None or per_step.value is None:
        return Problem(Subtype.BAD_REFERENCE, f"{{reference}}`{ref_text}` is {per_step.unit!r}, not a time per step, so "
                       f"≈ {product.figure} {product.unit or ''} is no time.".replace("  ", " "),
                       "multiply by a reference in s per step.", where)
    if product.unit is None:
        return Problem(Subtype.BAD_REFERENCE, f"the time product ≈ {product.figure} has no unit.",
                       f"write its unit after the figure: {FORM}.", where)
    exact = count * per_step.value * seconds / UNITS[product.unit]
    decimals = len(product.figure.partition(".")[2])
    if abs(exact - float(product.figure)) <= 0.5 * 10 ** -decimals + 1e-9:
        return None
    right = f"{exact:.{decimals}f}"
    return Problem(Subtype.BAD_REFERENCE,
                   f"{{run-arg}}`{arg_text}` × {{reference}}`{ref_text}` is {arg.value} × {per_step.value:g} s = "
                   f"{exact:.2f} {product.unit}, which rounds to {right} {product.unit}, not {product.figure} {product.unit}.",
                   f"write ≈ {right} {product.unit} (the run file or the reference changed since the page was written).",
                   where)


def time_product_problems(capture: Any, rel: str, prose: str) -> list[Problem]:
    """Each product on a page that does not hold, at its page and line."""
    return [p for p in (product_problem(capture, rel, prod) for prod in products(prose)) if p is not None]
