"""Charts of the exact mathematics: returns, house edge by deck count,
effect of removal, Insurance Plus values.

Each chart prints the figures it shows as they are printed in the report's
tables (the same format strings, :data:`EDGE_FORMAT` and friends), so a
figure read off a chart is the figure in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from punto.analysis.composition import RANK_HEADINGS
from punto.analysis.insurance_values import OfferValue
from punto.analysis.removal import Removal
from punto.analysis.tables import OddsTable, shoe_words
from punto.ui.charts.figure import NEGATIVE, POSITIVE, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "edge_text",
    "house_edge_by_decks_chart",
    "insurance_chart",
    "insurance_label",
    "removal_chart",
    "removal_text",
    "return_text",
    "returns_chart",
]


def edge_text(value: float) -> str:
    """A house edge as the report prints it.

    >>> edge_text(0.010579)
    '1.0579%'
    """
    return f"{value:.4%}"


def return_text(value: float) -> str:
    """A return per unit staked as the report prints it (signed)."""
    return f"{value:+.4%}"


def removal_text(value: float) -> str:
    """An effect of removal in units of 1/10,000 of the stake, as printed."""
    return f"{value * 1e4:+.2f}"


def _colours(values: Sequence[float]) -> list[str]:
    return [POSITIVE if v > 0 else NEGATIVE for v in values]


def returns_chart(table: OddsTable) -> Figure:
    """Return per unit staked of every wager, horizontal bars with their values."""
    wagers = list(table.wagers.values())
    labels = [w.name for w in wagers]
    values = [100 * w.return_float for w in wagers]
    fig = new_figure(8.0, 0.9 + 0.32 * len(wagers))
    ax = fig.add_subplot()
    bars = ax.barh(labels, values, color=_colours(values))
    ax.bar_label(bars, labels=[return_text(w.return_float) for w in wagers], padding=3)
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("return per unit staked (%)")
    ax.margins(x=0.25)
    ax.set_title(
        f"{table.game.title}\nreturn of every wager, {shoe_words(table.composition)} "
        f"(rules version {table.game.version})"
    )
    return fig


def house_edge_by_decks_chart(tables: Sequence[OddsTable]) -> Figure:
    """House edge of every wager against the deck count, one panel a wager,
    each point labelled with its figure."""
    first = tables[0]
    decks = [t.composition.decks or 0 for t in tables]
    wids = list(first.wagers)
    columns = 3 if len(wids) > 4 else 2
    rows = -(-len(wids) // columns)
    fig = new_figure(4.0 * columns, 2.7 * rows + 0.6)
    where = f", layout {first.layout}" if first.layout else ""
    fig.suptitle(
        f"{first.game.title}{where}: house edge by deck count "
        f"(rules version {first.game.version}; pairs read by the {first.pair_rule.value} rule)"
    )
    axes = fig.subplots(rows, columns, squeeze=False)
    for i, wid in enumerate(wids):
        ax = axes[i // columns][i % columns]
        edges = [t.wagers[wid].house_edge for t in tables]
        ax.plot(decks, [100 * e for e in edges], marker="o", color="#1e63d6")
        for x, e in zip(decks, edges, strict=True):
            ax.annotate(
                edge_text(e),
                (x, 100 * e),
                textcoords="offset points",
                xytext=(0, 6),
                ha="center",
                fontsize=6.5,
            )
        ax.set_title(first.wagers[wid].name)
        ax.set_xticks(decks)
        ax.set_xlabel("decks")
        ax.set_ylabel("house edge (%)")
        ax.margins(x=0.1, y=0.3)
    for j in range(len(wids), rows * columns):
        axes[j // columns][j % columns].set_visible(False)
    return fig


def removal_chart(removal: Removal, title: str) -> Figure:
    """Effect of removal of one card of each rank, a column a rank, labelled."""
    values = [0.0 if x is None else float(x) for x in removal.effects]
    fig = new_figure(8.0, 3.2)
    ax = fig.add_subplot()
    scaled = [1e4 * v for v in values]
    bars = ax.bar(list(RANK_HEADINGS), scaled, color=_colours(scaled))
    texts = ["—" if x is None else removal_text(float(x)) for x in removal.effects]
    ax.bar_label(bars, labels=texts, padding=2, fontsize=7)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("rank of the card removed")
    ax.set_ylabel("change in return (1/10,000 of the stake)")
    ax.margins(y=0.2)
    ax.set_title(f"Effect of removal: {title}")
    return fig


def insurance_label(o: OfferValue) -> str:
    """An offer in a few words: the hand insured, the moment, the points, the odds."""
    moment = "after 4 cards" if o.offer.moment.cards == 4 else "after Player's 3rd"
    return (
        f"{o.offer.insures.value.capitalize()} {moment}, P{o.player_points} B{o.banker_points}, "
        f"pays {o.offer.row.pays.text}"
    )


def insurance_chart(offers: Sequence[OfferValue], clause: str) -> Figure:
    """Expected value of every Insurance Plus offer per unit, labelled."""
    values = [float(o.value) for o in offers]
    fig = new_figure(9.0, 0.9 + 0.24 * len(offers))
    ax = fig.add_subplot()
    bars = ax.barh([insurance_label(o) for o in offers], values, color=_colours(values))
    ax.bar_label(bars, labels=[f"{v:+.5f}" for v in values], padding=3, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.tick_params(axis="y", labelsize=7)
    ax.margins(y=0.01)
    ax.set_xlabel("expected value per unit staked")
    ax.margins(x=0.2)
    ax.set_title(f"Insurance Plus: value of every offer ({clause})")
    return fig
