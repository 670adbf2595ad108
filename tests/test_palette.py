"""The palette: every hue readable in light and dark mode, every meaning mapped, CSS from one place."""
from __future__ import annotations

import json

import pytest

from buildutil import ROOT
from miles101.palette import HUES, MEANINGS, PAGE_BACKGROUND, contrast, contrast_pairs, stylesheet


@pytest.mark.parametrize("hue", sorted(HUES))
def test_ink_is_readable_on_page_and_tint(hue: str) -> None:
    h = HUES[hue]
    for mode, ink, tint in (("light", h.light_ink, h.light_tint), ("dark", h.dark_ink, h.dark_tint)):
        assert contrast(ink, PAGE_BACKGROUND[mode]) >= 4.5, (hue, mode, "on page")
        assert contrast(ink, tint) >= 4.5, (hue, mode, "on tint")


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_every_pair_the_book_draws_meets_wcag_aa(mode: str) -> None:
    """4.5:1 for text, 3:1 for graphics, in both themes; the failures are listed with their ratios."""
    pairs = contrast_pairs(mode)
    assert len(pairs) >= 4 * len(HUES)
    low = [f"{what}: {fg} on {bg} is {contrast(fg, bg):.2f}:1, under {minimum}:1"
           for what, fg, bg, minimum in pairs if contrast(fg, bg) < minimum]
    assert not low, f"[{mode}] " + "\n".join(low)


def test_contrast_pairs_catch_a_low_ratio() -> None:
    """The check can fail: a light grey ink on white is under 4.5:1."""
    assert contrast("#9ca3af", PAGE_BACKGROUND["light"]) < 4.5


def test_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#777777") == pytest.approx(1.0)


def test_every_book_colour_is_defined() -> None:
    book = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))
    used = {p["hue"] for p in book["palette"]} | {p["accent"] for p in book["parts"]} | {book["reference"]["accent"]}
    assert used <= set(HUES)
    assert set(MEANINGS.values()) <= {p["hue"] for p in book["palette"]}


def test_stylesheet_has_both_modes_and_every_class() -> None:
    css = stylesheet()
    assert 'body[data-theme="dark"]' in css and "prefers-color-scheme: dark" in css
    for hue in HUES:
        assert f".m101-accent-{hue} " in css and f"--m101-{hue}-tint:" in css
    for meaning in MEANINGS:
        assert f".m101-diagram .node.{meaning} " in css
