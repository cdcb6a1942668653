"""The chart of ``punto tournament analyse``: for each variant of a format,
how often the half-way leader advances or wins, and who wins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from punto.tournament.analysis import Report
from punto.ui.charts.figure import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["share_text", "tournament_chart"]


def share_text(value: float | None) -> str:
    """A share as the analysis table prints it.

    >>> share_text(0.4567), share_text(None)
    ('45.7%', '—')
    """
    return "—" if value is None else f"{value:.1%}"


def tournament_chart(report: Report) -> Figure:
    """Two panels, a group of bars per variant: the leaders' chances, and the
    share of tournaments won by each kind of entrant (values on the bars)."""
    mix = list(dict.fromkeys(report.mix))
    labels = [row.label for row in report.rows]
    fig = new_figure(max(7.0, 1.6 * len(labels) + 3.0), 7.0)
    first = report.rows[0]
    fig.suptitle(
        f"Tournament format {first.format.id}: {first.tournaments:,} simulated tournaments per variant, "
        f"{report.entrants} entrants, seed {report.seed}"
    )
    top, bottom = fig.subplots(2, 1)
    series = {
        "leader at half-way advances": [row.leader_advances for row in report.rows],
        "final's half-way leader wins": [row.final_leader_wins for row in report.rows],
    }
    _grouped(top, labels, series)
    top.set_ylabel("share of leaders (%)")
    top.set_title("Does the chip leader at half-way go through?")
    wins: dict[str, list[float | None]] = {
        m: [row.win_share(m) for row in report.rows] for m in mix
    }
    _grouped(bottom, labels, wins)
    bottom.set_ylabel("share of tournaments won (%)")
    bottom.set_xlabel("variant")
    bottom.set_title("Which kind of entrant wins?")
    return fig


def _grouped(ax: object, labels: list[str], series: dict[str, list[float | None]]) -> None:
    from matplotlib.axes import Axes

    assert isinstance(ax, Axes)
    width = 0.8 / max(len(series), 1)
    for i, (name, values) in enumerate(series.items()):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(labels))]
        heights = [0.0 if v is None else 100 * v for v in values]
        bars = ax.bar(xs, heights, width, label=name)
        ax.bar_label(bars, labels=[share_text(v) for v in values], fontsize=6.5, padding=1)
    ax.set_xticks(range(len(labels)), labels)
    ax.margins(y=0.15)
    ax.legend(fontsize=7, loc="upper right")
