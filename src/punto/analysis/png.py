"""A small raster canvas that writes PNG files, with a 5x7 pixel font.

Enough for the bar charts of ``punto report`` without a plotting library:
filled rectangles, horizontal and vertical lines, and upper-case text.

>>> canvas = Canvas(40, 12)
>>> canvas.text(1, 1, "1.5%", scale=1)
>>> data = canvas.png()
>>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", len(data) > 60
(True, True)
>>> text_width("AB", scale=2)
22
"""

from __future__ import annotations

import struct
import zlib

Color = tuple[int, int, int]

WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
GREY: Color = (200, 200, 200)
DARK: Color = (90, 90, 90)
RED: Color = (200, 60, 50)
GREEN: Color = (40, 150, 80)
BLUE: Color = (50, 100, 190)

# Columns of each glyph, bit 0 at the top (the classic 5x7 LCD font).
_FONT: dict[str, tuple[int, int, int, int, int]] = {
    " ": (0x00, 0x00, 0x00, 0x00, 0x00),
    "0": (0x3E, 0x51, 0x49, 0x45, 0x3E),
    "1": (0x00, 0x42, 0x7F, 0x40, 0x00),
    "2": (0x42, 0x61, 0x51, 0x49, 0x46),
    "3": (0x21, 0x41, 0x45, 0x4B, 0x31),
    "4": (0x18, 0x14, 0x12, 0x7F, 0x10),
    "5": (0x27, 0x45, 0x45, 0x45, 0x39),
    "6": (0x3C, 0x4A, 0x49, 0x49, 0x30),
    "7": (0x01, 0x71, 0x09, 0x05, 0x03),
    "8": (0x36, 0x49, 0x49, 0x49, 0x36),
    "9": (0x06, 0x49, 0x49, 0x29, 0x1E),
    "A": (0x7E, 0x11, 0x11, 0x11, 0x7E),
    "B": (0x7F, 0x49, 0x49, 0x49, 0x36),
    "C": (0x3E, 0x41, 0x41, 0x41, 0x22),
    "D": (0x7F, 0x41, 0x41, 0x22, 0x1C),
    "E": (0x7F, 0x49, 0x49, 0x49, 0x41),
    "F": (0x7F, 0x09, 0x09, 0x09, 0x01),
    "G": (0x3E, 0x41, 0x49, 0x49, 0x7A),
    "H": (0x7F, 0x08, 0x08, 0x08, 0x7F),
    "I": (0x00, 0x41, 0x7F, 0x41, 0x00),
    "J": (0x20, 0x40, 0x41, 0x3F, 0x01),
    "K": (0x7F, 0x08, 0x14, 0x22, 0x41),
    "L": (0x7F, 0x40, 0x40, 0x40, 0x40),
    "M": (0x7F, 0x02, 0x0C, 0x02, 0x7F),
    "N": (0x7F, 0x04, 0x08, 0x10, 0x7F),
    "O": (0x3E, 0x41, 0x41, 0x41, 0x3E),
    "P": (0x7F, 0x09, 0x09, 0x09, 0x06),
    "Q": (0x3E, 0x41, 0x51, 0x21, 0x5E),
    "R": (0x7F, 0x09, 0x19, 0x29, 0x46),
    "S": (0x46, 0x49, 0x49, 0x49, 0x31),
    "T": (0x01, 0x01, 0x7F, 0x01, 0x01),
    "U": (0x3F, 0x40, 0x40, 0x40, 0x3F),
    "V": (0x1F, 0x20, 0x40, 0x20, 0x1F),
    "W": (0x3F, 0x40, 0x38, 0x40, 0x3F),
    "X": (0x63, 0x14, 0x08, 0x14, 0x63),
    "Y": (0x07, 0x08, 0x70, 0x08, 0x07),
    "Z": (0x61, 0x51, 0x49, 0x45, 0x43),
    ".": (0x00, 0x60, 0x60, 0x00, 0x00),
    ",": (0x00, 0x50, 0x30, 0x00, 0x00),
    ":": (0x00, 0x36, 0x36, 0x00, 0x00),
    "-": (0x08, 0x08, 0x08, 0x08, 0x08),
    "+": (0x08, 0x08, 0x3E, 0x08, 0x08),
    "%": (0x23, 0x13, 0x08, 0x64, 0x62),
    "/": (0x20, 0x10, 0x08, 0x04, 0x02),
    "(": (0x00, 0x1C, 0x22, 0x41, 0x00),
    ")": (0x00, 0x41, 0x22, 0x1C, 0x00),
    "_": (0x40, 0x40, 0x40, 0x40, 0x40),
    "=": (0x14, 0x14, 0x14, 0x14, 0x14),
    "*": (0x14, 0x08, 0x3E, 0x08, 0x14),
}


def text_width(text: str, scale: int = 2) -> int:
    """Width in pixels of ``text`` (6 columns a character, less the last gap)."""
    return max(len(text) * 6 - 1, 0) * scale


class Canvas:
    """An RGB image, white to begin with."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows = [bytearray(WHITE * width) for _ in range(height)]

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        """Fill the rectangle with corners (x0, y0) and (x1, y1), inclusive."""
        xa, xb = sorted((x0, x1))
        ya, yb = sorted((y0, y1))
        xa, xb = max(xa, 0), min(xb, self.width - 1)
        ya, yb = max(ya, 0), min(yb, self.height - 1)
        if xa > xb or ya > yb:
            return
        run = bytes(color) * (xb - xa + 1)
        for y in range(ya, yb + 1):
            self.rows[y][3 * xa : 3 * (xb + 1)] = run

    def text(self, x: int, y: int, text: str, *, scale: int = 2, color: Color = BLACK) -> None:
        """Upper-case ``text`` with its top left corner at (x, y)."""
        for i, char in enumerate(text.upper()):
            columns = _FONT.get(char, _FONT["*"])
            left = x + i * 6 * scale
            for cx, bits in enumerate(columns):
                for cy in range(7):
                    if bits >> cy & 1:
                        px, py = left + cx * scale, y + cy * scale
                        self.rect(px, py, px + scale - 1, py + scale - 1, color)

    def png(self) -> bytes:
        """The image as a PNG file."""
        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def bar_chart(
    title: str,
    labels: list[str],
    values: list[float],
    *,
    value_text: list[str] | None = None,
    width: int = 900,
) -> bytes:
    """Horizontal bars from a zero line: positive to the right (green),
    negative to the left (red).  One row per label."""
    scale = 2
    row = 26
    label_w = max(text_width(label, scale) for label in labels) + 20 if labels else 40
    texts = value_text or [f"{v:+.4f}" for v in values]
    value_w = max(text_width(t, scale) for t in texts) + 16 if texts else 40
    height = 50 + row * len(labels) + 20
    canvas = Canvas(width, height)
    canvas.text(10, 12, title, scale=scale)
    plot_left, plot_right = label_w, width - value_w
    low, high = min(0.0, *values), max(0.0, *values)
    span = (high - low) or 1.0

    def x_of(v: float) -> int:
        return plot_left + round((v - low) / span * (plot_right - plot_left))

    zero = x_of(0.0)
    top = 44
    canvas.rect(zero, top - 4, zero, top + row * len(labels), DARK)
    for i, (label, value, text) in enumerate(zip(labels, values, texts, strict=True)):
        y = top + i * row
        canvas.text(label_w - 10 - text_width(label, scale), y + 4, label, scale=scale)
        x = x_of(value)
        canvas.rect(min(zero, x), y + 2, max(zero, x), y + row - 6, GREEN if value > 0 else RED)
        if value >= 0:
            canvas.text(max(x, zero) + 6, y + 4, text, scale=scale, color=DARK)
        else:
            canvas.text(plot_right + 6, y + 4, text, scale=scale, color=DARK)
    return canvas.png()


def column_chart(title: str, labels: list[str], values: list[float], *, width: int = 900) -> bytes:
    """Vertical bars from a zero line, one per label (e.g. a rank)."""
    scale = 2
    height = 320
    canvas = Canvas(width, height)
    canvas.text(10, 12, title, scale=scale)
    top, bottom = 50, height - 40
    low, high = min(0.0, *values), max(0.0, *values)
    span = (high - low) or 1.0

    def y_of(v: float) -> int:
        return bottom - round((v - low) / span * (bottom - top))

    zero = y_of(0.0)
    left = 20
    slot = (width - 2 * left) // max(len(labels), 1)
    canvas.rect(left, zero, width - left, zero, DARK)
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        x = left + i * slot
        y = y_of(value)
        canvas.rect(x + 8, min(zero, y), x + slot - 8, max(zero, y), GREEN if value > 0 else RED)
        canvas.text(x + (slot - text_width(label, scale)) // 2, height - 30, label, scale=scale)
    return canvas.png()
