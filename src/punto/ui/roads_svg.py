"""The five roads of a shoe as one SVG: the drawing the scoreboard page
shows (``server/static/felt.js``, ``roadSvg`` and ``DRAW``), for audit
files and reports.

Drawn from :meth:`punto.rules.roads.Scoreboard.to_dict`, the same data the page
draws from: every cell at its display (x, y), cells 10 units square, the
colours of the page.  Each cell is a ``<g>`` carrying its road, position
and what it shows (``data-winner``, ``data-side``, ``data-colour``) so that
an auditor's tool -- or a test -- can read the roads back off the picture.
Plain SVG text: no plotting library.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from punto.rules.roads import Scoreboard
from punto.words import count

__all__ = ["ROADS", "RoadsPicture", "roads_svg", "text_width"]

#: The roads, in the order drawn, with their titles (keys of ``to_dict``).
ROADS = (
    ("bead_plate", "Bead plate"),
    ("big_road", "Big road"),
    ("big_eye_boy", "Big eye boy"),
    ("small_road", "Small road"),
    ("cockroach_pig", "Cockroach pig"),
)

_COLOURS = {
    "banker": "#d32f2f",
    "player": "#1e63d6",
    "tie": "#2e9e4f",
    "red": "#d32f2f",
    "blue": "#1e63d6",
}
_LETTER = {"banker": "B", "player": "P", "tie": "T"}
_SIZE = 10
_TITLE = 9  # height of a road's title line
_GAP = 6


def _pair_dots(cell: Mapping[str, Any], r: float) -> list[str]:
    dots = []
    if cell.get("banker_pair"):
        dots.append(
            f'<circle cx="{-r * 0.72:.2f}" cy="{-r * 0.72:.2f}" r="1.5" '
            f'fill="{_COLOURS["banker"]}" class="pair-dot banker-pair"/>'
        )
    if cell.get("player_pair"):
        dots.append(
            f'<circle cx="{r * 0.72:.2f}" cy="{r * 0.72:.2f}" r="1.5" '
            f'fill="{_COLOURS["player"]}" class="pair-dot player-pair"/>'
        )
    return dots


def _cell(road: str, cell: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The data attribute and the shapes of one cell."""
    if road == "bead_plate":
        winner = str(cell["winner"])
        return f'data-winner="{winner}"', [
            f'<circle r="4.3" fill="{_COLOURS[winner]}"/>',
            f'<text y="0.4" text-anchor="middle" dominant-baseline="middle" '
            f'font-size="5" font-weight="700" fill="#fff">{_LETTER[winner]}</text>',
            *_pair_dots(cell, 4.3),
        ]
    if road == "big_road":
        side = str(cell["side"])
        ties = int(cell.get("ties") or 0) + int(cell.get("leading_ties") or 0)
        shapes = [f'<circle r="3.6" fill="none" stroke="{_COLOURS[side]}" stroke-width="1.5"/>']
        if ties:
            shapes.append(
                f'<line x1="-3.6" y1="3.6" x2="3.6" y2="-3.6" stroke="{_COLOURS["tie"]}" '
                'stroke-width="1.4"/>'
            )
        if ties > 1:
            shapes.append(
                f'<text y="0.5" text-anchor="middle" dominant-baseline="middle" '
                f'font-size="4.6" font-weight="700" fill="{_COLOURS["tie"]}">{ties}</text>'
            )
        return f'data-side="{side}" data-ties="{ties}"', shapes + _pair_dots(cell, 4.3)
    colour = str(cell["colour"])
    fill = _COLOURS[colour]
    if road == "big_eye_boy":
        shape = f'<circle r="3.2" fill="none" stroke="{fill}" stroke-width="1.6"/>'
    elif road == "small_road":
        shape = f'<circle r="3.4" fill="{fill}"/>'
    else:
        shape = (
            f'<line x1="-3.4" y1="3.4" x2="3.4" y2="-3.4" stroke="{fill}" '
            'stroke-width="1.8" stroke-linecap="round"/>'
        )
    return f'data-colour="{colour}"', [shape]


#: The picture's fonts: Arial or a font with Arial's widths (Liberation Sans,
#: which Debian's Chromium draws with), so that its text can be measured here.
FONTS = "Arial, 'Liberation Sans', Helvetica, sans-serif"
#: Advances in ems, at least those of Arial Bold and Arial Regular for each
#: group: spaces; narrow letters and punctuation; the widest letters; the other
#: capitals; everything else (lower case, digits).
_SPACE = frozenset(" ")
_NARROW = frozenset(".,:;'!|()[]-/ijlftr")
_WIDE = frozenset("mwMW@%")
_ADVANCES = (0.3, 0.4, 1.02, 0.78, 0.62)


def text_width(text: str, size: float) -> float:
    """How wide ``text`` at font size ``size`` is drawn in :data:`FONTS`, at
    most (an estimate, over rather than under: the SVG carries no font of its own).

    >>> text_width("Big road (0)", 6) < text_width("WWWWWWWWWWWW", 6)
    True
    """
    ems = 0.0
    for character in text:
        if unicodedata.east_asian_width(character) in ("W", "F"):
            ems += 1.0  # a Chinese character: one em square
        elif character in _SPACE:
            ems += _ADVANCES[0]
        elif character in _NARROW:
            ems += _ADVANCES[1]
        elif character in _WIDE:
            ems += _ADVANCES[2]
        elif character.isupper():
            ems += _ADVANCES[3]
        else:
            ems += _ADVANCES[4]
    return ems * size


def roads_svg(board: Scoreboard, title: str | None = None) -> str:
    """The five roads of ``board``, one above the other, every column shown,
    with the shoe's statistics underneath; as wide as the widest of the roads
    and the lines of text."""
    data = board.to_dict()
    rows = int(data["rows"])
    columns = max([1, *(int(data[name]["width"]) for name, _ in ROADS)])
    width = columns * _SIZE
    texts: list[tuple[str, float]] = []  # every line of text and its font size
    parts: list[str] = []
    y = 0
    if title:
        parts.append(
            f'<text x="0" y="8" font-size="8" font-weight="700" class="title">{escape(title)}</text>'
        )
        texts.append((title, 8))
        y = 12
    for name, heading in ROADS:
        road = data[name]
        cells = road["cells"]
        road_title = f"{heading} ({len(cells)})"
        parts.append(
            f'<text x="0" y="{y + 7}" font-size="6" fill="#555" class="road-title">'
            f"{escape(road_title)}</text>"
        )
        texts.append((road_title, 6))
        top = y + _TITLE
        height = rows * _SIZE
        lines = "".join(f"M{x * _SIZE} 0V{height}" for x in range(columns + 1))
        lines += "".join(f"M0 {r * _SIZE}H{width}" for r in range(rows + 1))
        parts.append(
            f'<g class="road {name}" data-road="{name}" transform="translate(0 {top})">'
            f'<rect width="{width}" height="{height}" fill="#fff"/>'
            f'<path d="{lines}" stroke="#dfe3e8" stroke-width="0.4" fill="none"/>'
        )
        for cell in cells:
            attribute, shapes = _cell(name, cell)
            cx = int(cell["x"]) * _SIZE + _SIZE // 2
            cy = int(cell["y"]) * _SIZE + _SIZE // 2
            parts.append(
                f'<g class="cell" data-x="{cell["x"]}" data-y="{cell["y"]}" {attribute} '
                f'transform="translate({cx} {cy})">{"".join(shapes)}</g>'
            )
        parts.append("</g>")
        y = top + height + _GAP
    stats = data["stats"]
    summary = (
        f"{count(stats['coups'], 'coup')}: Banker {stats['banker']}, Player {stats['player']}, "
        f"Tie {stats['tie']}; Player pairs {stats['player_pairs']}, Banker pairs "
        f"{stats['banker_pairs']}, naturals {stats['naturals']}"
    )
    parts.append(f'<text x="0" y="{y + 6}" font-size="6" class="stats">{escape(summary)}</text>')
    texts.append((summary, 6))
    height = y + 10
    width = max(width, *(math.ceil(text_width(text, size)) for text, size in texts))
    label = quoteattr(f"the five roads of a shoe: {summary}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width * 2}" height="{height * 2}" role="img" aria-label={label} '
        f"font-family={quoteattr(FONTS)}>" + "".join(parts) + "</svg>\n"
    )


class RoadsPicture:
    """The roads of a board as a picture a notebook shows (``_repr_svg_``)."""

    def __init__(self, board: Scoreboard, title: str | None = None) -> None:
        self.board = board
        self.title = title

    def _repr_svg_(self) -> str:
        return roads_svg(self.board, self.title)
