"""Charts of simulations: edge against true count (``punto counting``) and
a run's running estimates converging on the exact returns (``punto
simulate``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from punto.rules.game import Game
from punto.sim.counting import WagerCount
from punto.sim.run import Z95, ShoeRules, SimJob
from punto.sim.running import RunningEstimate, running_estimate
from punto.ui.charts.figure import new_figure, write_chart

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "MIN_COUPS",
    "counted_bins",
    "edge_chart",
    "running_chart",
    "write_edge_chart",
    "write_running_chart",
]

#: Bins of the true count with fewer coups than this are left off the chart.
MIN_COUPS = 2000


def counted_bins(w: WagerCount) -> list[tuple[int, float, float | None]]:
    """(true count, simulated edge, exact edge) of the bins a chart shows."""
    return [
        (b.count, b.edge, b.exact_edge)
        for b in w.bins
        if b.coups >= MIN_COUPS and -40 < b.count < 60
    ]


def edge_chart(title: str, wagers: Sequence[WagerCount]) -> Figure:
    """Edge (per cent) against the true count: the exact edge of the shoe
    states the simulation passed through (lines) and the simulated edge
    (dots), one colour a wager."""
    fig = new_figure(9.0, 5.5)
    ax = fig.add_subplot()
    for w in wagers:
        points = counted_bins(w)
        if not points:
            continue
        exact = [(x, e) for x, _, e in points if e is not None]
        (line,) = ax.plot(
            [x for x, _ in exact],
            [100 * e for _, e in exact],
            marker="o",
            markersize=3,
            label=f"{w.name} (tags {w.tags.text()})",
            gid=f"exact:{w.id}",
        )
        ax.plot(
            [x for x, _, _ in points],
            [100 * s for _, s, _ in points],
            linestyle="none",
            marker="o",
            markersize=3,
            markerfacecolor="none",
            color=line.get_color(),
            gid=f"simulated:{w.id}",
        )
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.grid(True, color="#e0e0e0", linewidth=0.6)
    ax.set_xlabel("true count (running count per deck left)")
    ax.set_ylabel("player's edge (%)")
    ax.set_title(
        f"{title}\nlines and dots: exact edge of the shoe states met; rings: simulated edge",
        fontsize=9,
    )
    if ax.get_legend_handles_labels()[0]:
        fig.legend(fontsize=7, loc="outside lower center", ncols=2)
    return fig


def running_chart(running: RunningEstimate) -> Figure:
    """Each wager's estimated return against coups dealt, its 95% interval
    shaded, converging on the exact return (dashed, labelled)."""
    n = len(running.wager_ids)
    columns = 3 if n > 4 else 2 if n > 1 else 1
    rows = -(-n // columns)
    fig = new_figure(4.2 * columns, 2.8 * rows + 0.6)
    job = running.job
    where = f", layout {job.layout}" if job.layout else ""
    fig.suptitle(
        f"{job.game_id}{where}: running estimate of each wager's return, "
        f"{job.rules.describe()}, seed {job.seed}"
    )
    axes = fig.subplots(rows, columns, squeeze=False)
    coups = [p.coups for p in running.points]
    for w in range(n):
        ax = axes[w // columns][w % columns]
        means = [100 * p.returns[w].mean for p in running.points]
        spread = [100 * Z95 * p.returns[w].se for p in running.points]
        low = [m - s for m, s in zip(means, spread, strict=True)]
        high = [m + s for m, s in zip(means, spread, strict=True)]
        ax.fill_between(coups, low, high, color="#8ab4ff", alpha=0.5, label="95% interval")
        ax.plot(coups, means, color="#1e63d6", marker=".", label="simulated")
        exact = 100 * float(running.exact[w])
        ax.axhline(exact, color="#d32f2f", linestyle="--", linewidth=1.0, label="exact")
        ax.set_xscale("log")
        last = running.points[-1].returns[w]
        ax.set_title(f"{running.names[w]}: exact {float(running.exact[w]):+.4%}", fontsize=9)
        ax.text(
            0.98,
            0.96,
            f"simulated {last.mean:+.4%} ± {Z95 * last.se:.4%}",
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=7,
        )
        ax.set_xlabel("coups dealt")
        ax.set_ylabel("return per unit (%)")
        if w == 0:
            ax.legend(fontsize=6, loc="lower right")
    for j in range(n, rows * columns):
        axes[j // columns][j % columns].set_visible(False)
    return fig


def write_edge_chart(game: Game, rules: ShoeRules, wagers: Sequence[WagerCount], path: str) -> None:
    """``punto counting --chart``: the edge chart of a counting run, to ``path``."""
    title = (
        f"{game.title}: edge against true count, {rules.describe()} (rules version {game.version})"
    )
    write_chart(edge_chart(title, wagers), path)


def write_running_chart(job: SimJob, path: str) -> None:
    """``punto simulate --chart``: the run dealt again in this process, prefix
    by prefix (:mod:`punto.sim.running`), its running estimates to ``path``."""
    write_chart(running_chart(running_estimate(job)), path)
