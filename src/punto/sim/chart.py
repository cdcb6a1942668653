"""The chart of ``punto counting --chart``: edge against true count.

Drawn on the small PNG canvas of :mod:`punto.analysis.png` (no plotting
library): for each wager counted, the exact edge of the states the
simulation passed through (a line, by true-count bin) and the simulated
edge (dots), between the true counts where enough coups were seen.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from punto.analysis.png import BLACK, DARK, GREY, Canvas, Color, text_width
from punto.sim.counting import WagerCount

#: Line colours, one per wager (cycled).
PALETTE: tuple[Color, ...] = (
    (50, 100, 190),
    (200, 60, 50),
    (40, 150, 80),
    (150, 80, 170),
    (220, 140, 30),
    (30, 160, 170),
    (120, 120, 120),
    (170, 110, 60),
)

#: Bins with fewer coups than this are left off.
MIN_COUPS = 2000


def _line(canvas: Canvas, x0: int, y0: int, x1: int, y1: int, color: Color, width: int = 2) -> None:
    """A straight line (Bresenham), ``width`` pixels thick."""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    half = width // 2
    while True:
        canvas.rect(x0 - half, y0 - half, x0 - half + width - 1, y0 - half + width - 1, color)
        if x0 == x1 and y0 == y1:
            return
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def edge_chart(
    title: str, wagers: Sequence[WagerCount], *, width: int = 1000, height: int = 620
) -> bytes:
    """Edge (per cent) against true count, exact (lines) and simulated (dots)."""
    series = []
    for w in wagers:
        points = [b for b in w.bins if b.coups >= MIN_COUPS and -40 < b.count < 60]
        if points:
            series.append((w, points))
    canvas = Canvas(width, height)
    scale = 2
    canvas.text(12, 10, title, scale=scale)
    left, right, top, bottom = 90, width - 20, 50, height - 60 - 22 * ((len(series) + 1) // 2)
    xs = [b.count for _, pts in series for b in pts] or [0, 1]
    ys = [
        100 * v
        for _, pts in series
        for b in pts
        for v in ((b.exact_edge if b.exact_edge is not None else b.edge), b.edge)
    ] or [0.0, 1.0]
    x_lo, x_hi = min(xs), max(max(xs), min(xs) + 1)
    y_lo, y_hi = min(min(ys), 0.0), max(max(ys), 0.0)
    pad = (y_hi - y_lo) * 0.05 or 1.0
    y_lo, y_hi = y_lo - pad, y_hi + pad

    def px(x: float) -> int:
        return left + round((x - x_lo) / (x_hi - x_lo) * (right - left))

    def py(y: float) -> int:
        return bottom - round((y - y_lo) / (y_hi - y_lo) * (bottom - top))

    # grid, zero line and axes
    step = _nice_step((y_hi - y_lo) / 8)
    tick = step * int(y_lo / step)
    while tick <= y_hi:
        y = py(tick)
        if top <= y <= bottom:
            canvas.rect(left, y, right, y, GREY)
            label = f"{tick:+.0f}%" if step >= 1 else f"{tick:+.1f}%"
            canvas.text(left - 8 - text_width(label, 1), y - 3, label, scale=1)
        tick += step
    canvas.rect(left, py(0.0), right, py(0.0), DARK)
    canvas.rect(left, top, left, bottom, BLACK)
    canvas.rect(left, bottom, right, bottom, BLACK)
    xstep = max(1, int(_nice_step((x_hi - x_lo) / 12)))
    for x in range(x_lo - x_lo % xstep, x_hi + 1, xstep):
        if x_lo <= x <= x_hi:
            canvas.rect(px(x), bottom, px(x), bottom + 4, BLACK)
            label = f"{x:+d}" if x else "0"
            canvas.text(px(x) - text_width(label, 1) // 2, bottom + 8, label, scale=1)
    canvas.text(
        (left + right) // 2 - text_width("TRUE COUNT", 1) // 2, bottom + 20, "TRUE COUNT", scale=1
    )
    canvas.text(8, top - 14, "EDGE", scale=1)

    for i, (w, pts) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        exact = [(b.count, b.exact_edge) for b in pts if b.exact_edge is not None]
        for (xa, ya), (xb, yb) in itertools.pairwise(exact):
            _line(canvas, px(xa), py(100 * ya), px(xb), py(100 * yb), color)
        for b in pts:
            x, y = px(b.count), py(100 * b.edge)
            canvas.rect(x - 2, y - 2, x + 2, y + 2, color)
        row, col = divmod(i, 2)
        lx = 20 + col * (width // 2)
        ly = height - 22 * ((len(series) + 1) // 2) - 8 + row * 22
        canvas.rect(lx, ly + 5, lx + 24, ly + 7, color)
        canvas.text(lx + 32, ly, f"{w.name} ({w.tags.text()})", scale=1)
    note = "LINES: EXACT EDGE OF THE SHOE STATES MET   DOTS: SIMULATED"
    canvas.text(width - 20 - text_width(note, 1), 32, note, scale=1, color=DARK)
    return canvas.png()


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** int(f"{raw:e}".split("e")[1])
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power
