"""A result as a table, for notebooks: ``_repr_html_`` and ``to_frame()``.

The main result types (:class:`~punto.analysis.tables.OddsTable`,
:class:`~punto.analysis.removal.Removal`, Insurance Plus values, simulation
and tournament reports) say what their table is (:class:`Tabular`); this
module turns it into HTML for Jupyter, or into a pandas DataFrame where
pandas is installed (the ``frames`` extra).

>>> t = Tabular("Two wagers", ("wager", "house edge"), (("banker", 0.0106), ("tie", 0.1436)))
>>> print(t.html())  # doctest: +ELLIPSIS
<table><caption>Two wagers</caption><thead><tr><th>wager</th><th>house edge</th></tr>...
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from punto.extras import require

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Cell", "Tabular"]

#: What a cell may hold: exact fractions stay exact in a frame (object column).
Cell = str | bool | int | float | Fraction | None


@dataclass(frozen=True)
class Tabular:
    """A caption, the column names and the rows of a result."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def html(self) -> str:
        """An HTML table: numbers right-aligned, floats to 6 significant digits."""
        e = html.escape
        head = "".join(f"<th>{e(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in self.rows
        )
        return (
            f"<table><caption>{e(self.caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )

    def _repr_html_(self) -> str:
        return self.html()

    def to_frame(self) -> pd.DataFrame:
        return self.frame()

    def frame(self) -> pd.DataFrame:
        """A pandas DataFrame of the rows (needs ``pip install 'punto[frames]'``)."""
        pandas = require("pandas", "frames")
        frame: pd.DataFrame = pandas.DataFrame(list(self.rows), columns=list(self.columns))
        frame.attrs["caption"] = self.caption
        return frame


def _cell(value: Cell) -> str:
    if value is None:
        return "<td>—</td>"
    if isinstance(value, str):
        return f"<td>{html.escape(value)}</td>"
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, float):
        return f'<td style="text-align:right">{value:.6g}</td>'
    if isinstance(value, int):
        return f'<td style="text-align:right">{value:,}</td>'
    return f'<td style="text-align:right">{value}</td>'
