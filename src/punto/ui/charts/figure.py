"""matplotlib, headless, and what a figure is written as.

Figures are built on :class:`matplotlib.figure.Figure` directly (never
``pyplot``: no global state, no GUI backend, safe in a server).  SVG keeps
its text as text (``svg.fonttype = none``) so that a reader can select it
and a test can read the labels; output carries no date, so the same figures
give the same bytes.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from punto.errors import PuntoError
from punto.extras import MissingExtraError, require

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FORMATS",
    "ChartFileError",
    "ChartFormat",
    "MissingExtraError",
    "chart_format",
    "check_chart_file",
    "new_figure",
    "render",
    "require",
    "svg_text",
    "write_chart",
]

ChartFormat = Literal["svg", "png", "pdf"]

#: The file suffixes a chart may be written as.
FORMATS: tuple[ChartFormat, ...] = ("svg", "png", "pdf")

#: Bars of a figure that favours the bettor, and of one that does not.
POSITIVE = "#1a7f37"
NEGATIVE = "#c0392b"


def new_figure(width: float, height: float) -> Figure:
    """An empty figure ``width`` x ``height`` inches, headless."""
    figure = require("matplotlib.figure", "report")
    fig: Figure = figure.Figure(figsize=(width, height), layout="constrained")
    return fig


_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "punto",
    "pdf.fonttype": 42,
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def render(fig: Figure, fmt: ChartFormat = "svg", *, salt: str = "punto") -> bytes:
    """The figure as an SVG, PNG or PDF file (``salt``: of the ids in an SVG,
    so that several SVGs inline in one page never share one)."""
    matplotlib = require("matplotlib", "report")
    buffer = io.BytesIO()
    metadata: dict[str, Any] = {"Date": None} if fmt == "svg" else {}
    if fmt == "pdf":
        metadata = {"CreationDate": None}
    elif fmt == "png":
        metadata = {"Software": None}
    with matplotlib.rc_context({**_RC, "svg.hashsalt": salt}):
        fig.savefig(buffer, format=fmt, metadata=metadata, dpi=150 if fmt == "png" else "figure")
    return buffer.getvalue()


def svg_text(fig: Figure, salt: str) -> str:
    """The figure as SVG markup to put inline in HTML (no XML prolog); ``salt``
    a name of its own in the page."""
    text = render(fig, "svg", salt=salt).decode("utf-8")
    return text[text.index("<svg") :]


def chart_format(path: str | Path) -> ChartFormat:
    """The format a chart file's name asks for: ``.svg``, ``.png`` or ``.pdf``.

    >>> chart_format("edge.png"), chart_format("edge.SVG")
    ('png', 'svg')
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    for fmt in FORMATS:
        if suffix == fmt:
            return fmt
    raise ChartFileError(
        f"cannot tell the chart format of {str(path)!r}",
        hint="name the file .svg, .png or .pdf",
    )


def check_chart_file(path: str | Path) -> ChartFormat:
    """Refuse, before any work, a chart that cannot be drawn: a file name of
    no known format, or matplotlib missing."""
    fmt = chart_format(path)
    require("matplotlib", "report")
    return fmt


class ChartFileError(PuntoError):
    """A chart file that cannot be written."""


def write_chart(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` in the format its suffix names."""
    target = Path(path)
    data = render(fig, chart_format(target))
    try:
        target.write_bytes(data)
    except OSError as error:
        raise ChartFileError(
            f"cannot write the chart {target}: {error.strerror}",
            hint="give a file in a directory you can write to",
        ) from None
    return target
