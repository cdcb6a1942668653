"""``punto report``: a game's exact mathematics as one document.

One self-contained HTML file (every chart inline SVG, the style inline, no
script and no external request: it opens offline and prints as it shows),
and on request the same page printed to PDF by Chromium.  The contents: the
pay tables, the exact odds with their integer counts, the house edge by deck
count (the game's whole deck range) of every wager, the effect of removal,
Insurance Plus values (Tiger Buffalo), and how far a card counter can beat
each side bet.  Every section names the rules version and the clauses its
figures come from.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from punto.analysis.composition import RANK_HEADINGS, Composition
from punto.analysis.insurance_values import OfferValue, insurance_values
from punto.analysis.removal import Removal, effects_of_removal, pair_readings
from punto.analysis.tables import OddsTable, odds_table, shoe_words
from punto.rules.game import Game
from punto.rules.wagers import PairRule
from punto.ui.charts.exact import (
    edge_text,
    house_edge_by_decks_chart,
    insurance_chart,
    removal_chart,
    removal_text,
    return_text,
    returns_chart,
)
from punto.ui.charts.figure import require, svg_text
from punto.ui.charts.pdf import print_pdf

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from punto.sim.vulnerability import Vulnerability

__all__ = ["ReportFiles", "report_html", "write_report"]

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
caption { text-align: left; font-size: 0.85em; color: #555; padding: 0.2em 0; }
.pos { color: #1a7f37; font-weight: bold; }
figure { margin: 1em 0; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #555; }
.source { font-size: 0.85em; color: #555; }
h2 { break-after: avoid; }
@media print { body { margin: 0; } }
"""


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    html: Path
    pdf: Path | None

    @property
    def paths(self) -> list[Path]:
        return [self.html] + ([self.pdf] if self.pdf is not None else [])


def write_report(
    game: Game,
    composition: Composition,
    out: Path,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
    *,
    pdf: bool = False,
    counting_shoes: int = 2000,
    seed: int = 0,
) -> ReportFiles:
    """Write ``out/index.html`` (and ``out/report.pdf`` with ``pdf``)."""
    page = report_html(
        game, composition, layout, pair_rule, counting_shoes=counting_shoes, seed=seed
    )
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(page, "utf-8")
    printed = None
    if pdf:
        printed = out / "report.pdf"
        print_pdf(index, printed)
    return ReportFiles(index, printed)


def report_html(
    game: Game,
    composition: Composition,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
    *,
    counting_shoes: int = 2000,
    seed: int = 0,
) -> str:
    """The report as one HTML document (``counting_shoes`` 0 leaves out the
    counting section, the one simulated part)."""
    require("matplotlib", "report")
    rule = pair_rule or game.pair_rule
    table = odds_table(game, composition, layout, rule)
    by_decks = [
        odds_table(game, Composition.of_decks(d), layout, rule)
        for d in range(game.decks.minimum, game.decks.maximum + 1)
    ]
    removal = effects_of_removal(game, composition, layout, rule)
    readings = pair_readings(game, composition, layout)
    offers = insurance_values(game, composition) if game.insurance is not None else []
    counted: list[Vulnerability] = []
    if counting_shoes and composition.decks is not None:
        # the simulation's kernels (the sim extra) only for its one section
        from punto.sim.vulnerability import side_bet_vulnerability

        counted = side_bet_vulnerability(
            game, layout, rule, composition.decks, shoes=counting_shoes, seed=seed
        )
    e = html.escape
    where = f", layout {table.layout}" if table.layout else ""
    version = f"{game.operator} rules version {game.version}"
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(game.title)}: exact mathematics</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{e(game.title)}{e(where)}: exact mathematics</h1>",
        f"<p>{e(version)}, effective {game.effective.isoformat()} "
        f"(<code>{e(game.rules_file)}</code>).  Shoe: {e(shoe_words(table.composition))}; "
        f"pairs read by the {e(table.pair_rule.value)} rule (clause "
        f"{e(game.pair_rule_clause)}).  Every round counts as an ordered six-card "
        f"sequence: {table.total:,} in all.  The clauses of each figure are beside it.</p>",
    ]
    parts += _pay_tables(table)
    parts += _wagers(table, version)
    parts += _by_decks(by_decks, version)
    parts += _removal(game, removal, readings, version)
    if offers:
        parts += _insurance(game, offers, version)
    if counted:
        parts += _counting(counted, counting_shoes, seed, version)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _figure(fig: Figure, caption: str, name: str) -> str:
    return (
        f'<figure data-figure="{html.escape(name)}">{svg_text(fig, name)}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _clauses(table: OddsTable, wid: str) -> str:
    return table.game.wagers[wid].clause


def _pay_tables(table: OddsTable) -> list[str]:
    e = html.escape
    game = table.game
    parts = [
        "<h2>Pay tables</h2>",
        f'<p class="source">As the rules write them (layouts: clause {e(game.layout_clause)}).</p>',
        "<table><tr><th>wager</th><th>event</th><th>pays</th><th>layouts</th><th>clauses</th></tr>",
    ]
    for wid in table.wagers:
        wager = game.wagers[wid]
        layouts = ", ".join(sorted(wager.layouts)) if wager.layouts else "every layout"
        for i, (event, pays) in enumerate(wager.pays.items()):
            first = i == 0
            parts.append(
                f"<tr><td>{e(wager.name) if first else ''}</td><td>{e(event)}</td>"
                f"<td>{e(pays.text)}</td><td>{e(layouts) if first else ''}</td>"
                f"<td>{e(wager.clause) if first else ''}</td></tr>"
            )
    parts.append("</table>")
    return parts


def _wagers(table: OddsTable, version: str) -> list[str]:
    e = html.escape
    parts = [
        "<h2>Wagers</h2>",
        _figure(
            returns_chart(table),
            f"Return per unit staked of every wager ({version}; clauses in the table below).",
            "returns",
        ),
        "<table><caption>House edge, exact return (a fraction), standard deviation and hit "
        "frequency per unit staked</caption><tr><th>wager</th><th>house edge</th>"
        "<th>return (exact)</th><th>std. dev.</th><th>hit frequency</th><th>clauses</th></tr>",
    ]
    for wid, w in table.wagers.items():
        parts.append(
            f"<tr><td>{e(w.name)} (<code>{e(wid)}</code>)</td><td>{edge_text(w.house_edge)}</td>"
            f"<td>{w.return_exact}</td><td>{w.std_dev:.4f}</td><td>{w.hit_frequency:.4%}</td>"
            f"<td>{e(_clauses(table, wid))}</td></tr>"
        )
    parts.append("</table>")
    parts.append(
        "<h2>Events</h2><table><caption>Exact odds: the ordered six-card sequences on which "
        "each event happens, out of "
        f"{table.total:,}</caption><tr><th>wager</th><th>event</th><th>pays</th>"
        "<th>combinations</th><th>probability</th><th>clauses</th></tr>"
    )
    for wid, w in table.wagers.items():
        for ev in w.events:
            parts.append(
                f"<tr><td>{e(wid)}</td><td>{e(ev.event)}</td><td>{e(ev.pays_text)}</td>"
                f"<td>{ev.combinations:,}</td><td>{ev.combinations / ev.total:.8f}</td>"
                f"<td>{e(_clauses(table, wid))}</td></tr>"
            )
    parts.append("</table>")
    return parts


def _by_decks(tables: list[OddsTable], version: str) -> list[str]:
    e = html.escape
    first = tables[0]
    decks = [t.composition.decks for t in tables]
    parts = [
        "<h2>House edge by deck count</h2>",
        _figure(
            house_edge_by_decks_chart(tables),
            f"House edge of every wager from {decks[0]} to {decks[-1]} decks, the deck range "
            f"of clause {first.game.decks.clause} ({version}).",
            "house_edge_by_decks",
        ),
        "<table><tr><th>wager</th>"
        + "".join(f"<th>{d} decks</th>" for d in decks)
        + "<th>clauses</th></tr>",
    ]
    for wid, w in first.wagers.items():
        cells = "".join(f"<td>{edge_text(t.wagers[wid].house_edge)}</td>" for t in tables)
        parts.append(f"<tr><td>{e(w.name)}</td>{cells}<td>{e(_clauses(first, wid))}</td></tr>")
    parts.append("</table>")
    return parts


def _removal(
    game: Game,
    removal: dict[str, Removal],
    readings: dict[PairRule, dict[str, Removal]],
    version: str,
) -> list[str]:
    e = html.escape
    # (wager, row label, figure name, effects): pair wagers once more per reading
    rows: list[tuple[str, str, str, Removal]] = [(w, w, w, r) for w, r in removal.items()]
    for reading, found in readings.items():
        rows += [
            (w, f"{w} ({reading.value} pairs)", f"{w}_{reading.value}", r) for w, r in found.items()
        ]
    parts = [
        "<h2>Effect of removal</h2><p>Change in return per unit staked when one card of the "
        "rank leaves the shoe, in units of 1/10,000 of the stake.  Pair wagers are shown "
        f"under both readings of a Pair (clause {e(game.pair_rule_clause)}).</p>",
        "<table><tr><th>wager</th>"
        + "".join(f"<th>{r}</th>" for r in RANK_HEADINGS)
        + "<th>clauses</th></tr>",
    ]
    for wid, name, _, r in rows:
        cells = "".join(
            "<td>—</td>" if x is None else f"<td>{removal_text(float(x))}</td>" for x in r.effects
        )
        parts.append(f"<tr><td>{e(name)}</td>{cells}<td>{e(game.wagers[wid].clause)}</td></tr>")
    parts.append("</table>")
    for wid, name, key, r in rows:
        parts.append(
            _figure(
                removal_chart(r, r.name if name == wid else f"{r.name} ({name})"),
                f"Effect of removal on {name} ({version}; clauses {game.wagers[wid].clause}).",
                f"removal_{key}",
            )
        )
    return parts


def _insurance(game: Game, offers: list[OfferValue], version: str) -> list[str]:
    e = html.escape
    clause = "clauses 4.1.15, 4.2.1"
    parts = [
        f"<h2>Insurance Plus ({clause})</h2>",
        "<p>Chances of the insured hand averaged over every way of reaching the offer; "
        "the exact-card range is the value over the cards that can be on the table, and "
        "the share (by weight) where it favours the bettor.</p>",
        _figure(
            insurance_chart(offers, clause),
            f"Expected value per unit of every Insurance Plus offer ({version}; {clause}).",
            "insurance",
        ),
        "<table><tr><th>offer</th><th>reach</th><th>loses</th><th>ties</th><th>wins</th>"
        "<th>value</th><th>exact cards</th><th>positive share</th></tr>",
    ]
    for o in offers:
        mark = ' class="pos"' if o.positive else ""
        parts.append(
            f"<tr><td>{e(str(o.offer))}</td><td>{float(o.reach):.5f}</td>"
            f"<td>{float(o.loses):.6f}</td><td>{float(o.ties):.6f}</td>"
            f"<td>{float(o.wins):.6f}</td><td{mark}>{float(o.value):+.5f}</td>"
            f"<td>{float(o.exact_min):+.4f} .. {float(o.exact_max):+.4f}</td>"
            f"<td>{float(o.positive_share):.2%}</td></tr>"
        )
    parts.append("</table>")
    return parts


def _counting(counted: list[Vulnerability], shoes: int, seed: int, version: str) -> list[str]:
    e = html.escape
    parts = [
        "<h2>Counting vulnerability of the side bets</h2>",
        "<p>For each side bet, a balanced point count derived from its exact effects of "
        "removal (the betting correlation says how well it follows them), and what a "
        "counter who bets only when the true count is at least the best threshold wins per "
        f"100 coups: the exact edge of the shoe states met, over {shoes:,} simulated shoes "
        f"(seed {seed}, cut card 14 cards from the end).  A side bet is vulnerable when the "
        "counter wins at least 0.01 units per 100 coups.</p>",
        "<table><tr><th>side bet</th><th>tags A..K</th><th>betting correlation</th>"
        "<th>best threshold</th><th>bets per coup</th><th>edge when betting</th>"
        "<th>win per 100 coups</th><th>vulnerable</th><th>clauses</th></tr>",
    ]
    for v in counted:
        best = v.best
        parts.append(
            f"<tr><td>{e(v.name)}</td>"
            + (
                f"<td>{e(v.tags)}</td><td>{v.correlation:.3f}</td>"
                if v.countable
                else '<td colspan="2">not countable: every rank has the same effect</td>'
            )
            + (
                "<td>—</td><td>—</td><td>—</td><td>—</td>"
                if best is None
                else f"<td>{best.count:+d}</td><td>{best.bet_frequency:.4f}</td>"
                f"<td>{return_text(best.edge)}</td><td>{best.win_per_100:+.4f}</td>"
            )
            + f"<td>{'yes' if v.vulnerable else 'no'}</td><td>{e(v.clauses)}</td></tr>"
        )
    parts.append(f'</table><p class="source">{e(version)}.</p>')
    return parts
