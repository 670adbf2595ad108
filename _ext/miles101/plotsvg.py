"""Plots of runs drawn from their data: a metric's series per step as plain SVG markup, no plotting library.

The drawing is written here, from the numbers, on every build (so it cannot drift from its data), and it
names no colour: each line wears a palette meaning's class (`m101-plot-<meaning>`, coloured by
`miles101.palette`, light and dark). A gap in the data (a step missing from the file, a value that is not a
number, a metric absent at a step) breaks the line and is said in words (`gap_text`); it is never bridged.
A long series is thinned deterministically (`thin`: the first, lowest, highest and last point of each of a
bounded number of buckets), so 100,000 steps draw in bounded time and size. Stdlib only, no Sphinx.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape

#: The drawing's own size in CSS pixels: it is shown at most this wide and shrinks to the column, so at a
#: 390 px phone (a column of about 350 px) the 13 px labels still read at 11 px or more.
WIDTH, HEIGHT, FONT = 400, 250, 13
LEFT, RIGHT, TOP, BOTTOM = 50, 12, 14, 40
#: Buckets a long segment is thinned to (each keeps at most four points).
BUCKETS = 150

Point = tuple[int, "float | None"]


@dataclass
class Line:
    """One series to draw: its points (step, value or None for a gap), its meaning (the palette class) and,
    for a median over seeds, the band (step, low, high) drawn under it."""

    label: str
    meaning: str
    points: list[Point]
    band: list[tuple[int, float, float]] = field(default_factory=list)
    dashed: bool = False


def segments(points: Sequence[Point]) -> list[list[tuple[int, float]]]:
    """The unbroken runs of a series: a None value or a step number skipped ends one (no line across a gap)."""
    out: list[list[tuple[int, float]]] = []
    current: list[tuple[int, float]] = []
    last: int | None = None
    for step, value in points:
        if value is None or (last is not None and step != last + 1):
            if current:
                out.append(current)
            current = []
        if value is not None:
            current.append((step, value))
        last = step
    if current:
        out.append(current)
    return out


def thin(segment: list[tuple[int, float]], x0: int, x1: int, buckets: int = BUCKETS) -> list[tuple[int, float]]:
    """A segment thinned to its drawing: the steps are cut into `buckets` equal spans of [x0, x1] (the whole
    plot's, so several segments share the budget) and each span keeps its first, lowest, highest and last point,
    in step order. Deterministic; a segment with no more points than its spans can show is returned as it is."""
    width = max(x1 - x0, 1)
    spans: dict[int, list[tuple[int, float]]] = {}
    for point in segment:
        spans.setdefault(min(int((point[0] - x0) * buckets / width), buckets - 1), []).append(point)
    if all(len(chunk) <= 4 for chunk in spans.values()):
        return segment
    out: list[tuple[int, float]] = []
    for _, chunk in sorted(spans.items()):
        keep = {0, len(chunk) - 1, min(range(len(chunk)), key=lambda i: chunk[i][1]),
                max(range(len(chunk)), key=lambda i: chunk[i][1])}
        out.extend(chunk[i] for i in sorted(keep))
    return out


def _dots(singles: list[tuple[int, float]], x0: int, x1: int, buckets: int = BUCKETS) -> list[tuple[int, float]]:
    """Single points (segments of one) thinned like `thin`: at most the lowest and highest of each span."""
    width = max(x1 - x0, 1)
    spans: dict[int, list[tuple[int, float]]] = {}
    for point in singles:
        spans.setdefault(min(int((point[0] - x0) * buckets / width), buckets - 1), []).append(point)
    return [p for _, chunk in sorted(spans.items())
            for p in sorted({min(chunk, key=lambda q: q[1]), max(chunk, key=lambda q: q[1])})]


def _band_steps(band: list[tuple[int, float, float]], x0: int, x1: int) -> list[list[tuple[int, float, float]]]:
    """A median's band as unbroken runs of (step, low, high), each thinned like `thin` (the steps that keep the
    low edge's and the high edge's first, lowest, highest and last point of each span), so a long band draws in
    bounded size too."""
    high = {s: h for s, _, h in band}
    out = []
    for seg in segments([(s, lo) for s, lo, _ in band]):
        keep = {s for s, _ in thin(seg, x0, x1)} | {s for s, _ in thin([(s, high[s]) for s, _ in seg], x0, x1)}
        out.append([(s, lo, high[s]) for s, lo in seg if s in keep])
    return out


def _ranges(steps: Iterable[int]) -> str:
    """"3, 5–9, 12" for a sorted run of step numbers."""
    parts: list[str] = []
    run: list[int] = []
    for s in steps:
        if run and s == run[-1] + 1:
            run.append(s)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}")
        run = [s]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}")
    return ", ".join(parts[:8]) + (f" and {len(parts) - 8} more ranges" if len(parts) > 8 else "")


def gap_text(points: Sequence[Point]) -> str:
    """What is missing from a series, in words ('' when nothing is): steps absent from the file between its
    first and last, and steps whose value is not a number or is not logged."""
    if not points:
        return "No step of the file holds this metric."
    steps = [s for s, _ in points]
    absent = sorted(set(range(min(steps), max(steps) + 1)) - set(steps))
    blank = sorted(s for s, v in points if v is None)
    said = []
    if absent:
        said.append(f"{len(absent)} step(s) not in the data file drawn from ({_ranges(absent)})")
    if blank:
        said.append(f"{len(blank)} step(s) with no number for this metric ({_ranges(blank)})")
    return ("Not drawn, so the line breaks there: " + "; ".join(said) + ".") if said else ""


def median_band(per_seed: dict[object, dict[int, float | None]]) -> tuple[list[Point], list[tuple[int, float, float]]]:
    """The median over seeds at each step, and the band from the lowest to the highest seed (steps where no
    seed has a number are gaps)."""
    import statistics  # here, not at the top: the extension imports this module; only a plot of seeds needs it

    steps = sorted({s for rows in per_seed.values() for s in rows})
    points: list[Point] = []
    band: list[tuple[int, float, float]] = []
    for s in steps:
        got = [v for rows in per_seed.values() if (v := rows.get(s)) is not None]
        points.append((s, statistics.median(got) if got else None))
        if got:
            band.append((s, min(got), max(got)))
    return points, band


def nice_ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Round tick values covering [low, high] (about `count` of them)."""
    if high <= low:
        high = low + (abs(low) or 1.0)
    raw = (high - low) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(low / step) * step
    ticks, t = [], first
    while t <= high + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    if ticks[-1] < high:
        ticks.append(round(t, 12))
    return ticks


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def _tick_label(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e5 else f"{v:.2g}"


def svg(lines: Sequence[Line], title: str, x_label: str, fig_id: str) -> str:
    """The plot as SVG markup: axes with ticks, each line's unbroken segments (thinned), single points as dots,
    a median's band; every colour through a class. `title` names the drawing for assistive technology (the
    figure's heading above it names the metric, the y axis)."""
    xs = [s for line in lines for s, _ in line.points]
    x0, x1 = (min(xs), max(xs)) if xs else (0, 1)
    drawn = []
    for line in lines:
        segs = segments(line.points)
        singles = _dots([seg[0] for seg in segs if len(seg) == 1], x0, x1)
        drawn.append((line, [thin(seg, x0, x1) for seg in segs if len(seg) > 1] + [[p] for p in singles],
                      _band_steps(line.band, x0, x1)))
    ys = [v for line, segs, _ in drawn for seg in segs for _, v in seg]
    ys += [v for line in lines for _, lo, hi in line.band for v in (lo, hi)]
    if x1 == x0:
        x1 = x0 + 1
    yt = nice_ticks(min(ys), max(ys)) if ys else [0.0, 1.0]
    y0, y1 = yt[0], yt[-1]
    xt = [t for t in nice_ticks(x0, x1, 5) if x0 <= t <= x1]
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(s: float) -> str:
        return _num(LEFT + (s - x0) / (x1 - x0) * pw)

    def py(v: float) -> str:
        return _num(TOP + (1 - (v - y0) / (y1 - y0)) * ph)

    title_id = f"{fig_id}-svg-title"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="m101-plot-svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="{title_id}" font-size="{FONT}">',
           f'<title id="{title_id}">{escape(title)}</title>',
           f'<g class="m101-plot-grid" stroke="currentColor" stroke-opacity="0.2" stroke-width="1">']
    out += [f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py(t)}" y2="{py(t)}"/>' for t in yt]
    out.append("</g>")
    out.append('<g class="m101-plot-axis" fill="currentColor">')
    out += [f'<text x="{LEFT - 4}" y="{py(t)}" text-anchor="end" dominant-baseline="middle">{_tick_label(t)}</text>'
            for t in yt]
    out += [f'<text x="{px(t)}" y="{HEIGHT - BOTTOM + FONT + 3}" text-anchor="middle">{_tick_label(t)}</text>'
            for t in xt]
    out.append(f'<text x="{LEFT + pw / 2:g}" y="{HEIGHT - 4}" text-anchor="middle">{escape(x_label)}</text>')
    out.append("</g>")
    for line, segs, band in drawn:
        for seg in band:
            top = " ".join(f"{px(s)},{py(hi)}" for s, _, hi in seg)
            bottom = " ".join(f"{px(s)},{py(lo)}" for s, lo, _ in reversed(seg))
            out.append(f'<polygon class="m101-plot-band m101-plot-{line.meaning}" points="{top} {bottom}"/>')
        dash = ' stroke-dasharray="5 3"' if line.dashed else ""
        for seg in segs:
            if len(seg) == 1:
                s, v = seg[0]
                out.append(f'<circle class="m101-plot-dot m101-plot-{line.meaning}" cx="{px(s)}" cy="{py(v)}" r="2.5"/>')
                continue
            path = " ".join(f"{px(s)},{py(v)}" for s, v in seg)
            out.append(f'<polyline class="m101-plot-line m101-plot-{line.meaning}" fill="none" stroke="currentColor" '
                       f'stroke-width="2"{dash} points="{path}"/>')
    out.append(f'<g class="m101-plot-frame" stroke="currentColor" stroke-width="1"><line x1="{LEFT}" x2="{LEFT}" '
               f'y1="{TOP}" y2="{HEIGHT - BOTTOM}"/><line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" '
               f'y2="{HEIGHT - BOTTOM}"/></g>')
    out.append("</svg>")
    return "".join(out)


def sample_rows(points: Sequence[Point], rows: int = 12) -> list[Point]:
    """About `rows` points of a series for its table: evenly spaced by position, the first and the last kept."""
    if len(points) <= rows:
        return list(points)
    picks = sorted({round(i * (len(points) - 1) / (rows - 1)) for i in range(rows)})
    return [points[i] for i in picks]
