"""``punto report``: an HTML page and PNG charts of a game's exact mathematics.

The page shows, for one shoe: every wager's house edge, exact return,
standard deviation, hit frequency and events; the effect of removal of each
rank (pair wagers under both readings of a Pair); and for Tiger Buffalo the
value of every Insurance Plus offer.  Charts are drawn by
:mod:`punto.analysis.png`, without a plotting library.
"""

from __future__ import annotations

import html
from pathlib import Path

from punto.analysis.composition import RANK_HEADINGS, Composition
from punto.analysis.insurance_values import OfferValue, insurance_values
from punto.analysis.png import bar_chart, column_chart
from punto.analysis.removal import Removal, effects_of_removal, pair_readings
from punto.analysis.tables import OddsTable, odds_table, shoe_words
from punto.game import Game
from punto.wagers import PairRule

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.pos { color: #1a7f37; font-weight: bold; }
img { display: block; margin: 1em 0; max-width: 100%; }
"""


def write_report(
    game: Game,
    composition: Composition,
    out: Path,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
) -> list[Path]:
    """Write ``out/index.html`` and its charts; return the files written."""
    rule = pair_rule or game.pair_rule
    table = odds_table(game, composition, layout, rule)
    removal = effects_of_removal(game, composition, layout, rule)
    readings = pair_readings(game, composition, layout)
    offers = insurance_values(game, composition) if game.insurance is not None else []

    charts: dict[str, bytes] = {"returns.png": _returns_chart(table)}
    for wid, r in removal.items():
        charts[f"removal_{wid}.png"] = _removal_chart(r, wid)
    for reading, found in readings.items():
        for wid, r in found.items():
            charts[f"removal_{wid}_{reading.value}.png"] = _removal_chart(
                r, f"{wid} ({reading.value} pairs)"
            )
    if offers:
        charts["insurance.png"] = _insurance_chart(offers)

    page = _page(table, removal, readings, offers, sorted(charts))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in charts.items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    index = out / "index.html"
    index.write_text(page, "utf-8")
    written.append(index)
    return written


def _returns_chart(table: OddsTable) -> bytes:
    labels = list(table.wagers)
    values = [w.return_float for w in table.wagers.values()]
    texts = [f"{v:+.4%}" for v in values]
    title = f"{table.game.id}: return per unit staked, {shoe_words(table.composition)}"
    return bar_chart(title, labels, values, value_text=texts)


def _removal_chart(removal: Removal, name: str) -> bytes:
    values = [0.0 if x is None else float(x) * 1e4 for x in removal.effects]
    return column_chart(
        f"effect of removal: {name} (1/10000 of the stake)", list(RANK_HEADINGS), values
    )


def _insurance_chart(offers: list[OfferValue]) -> bytes:
    labels = [
        f"{o.offer.insures.value[0]} {'4c' if o.offer.moment.cards == 4 else 'p3'} "
        f"P{o.player_points} B{o.banker_points} {o.offer.row.pays.text.replace(' to ', ':')}"
        for o in offers
    ]
    values = [float(o.value) for o in offers]
    return bar_chart("insurance plus: value per unit", labels, values)


def _page(
    table: OddsTable,
    removal: dict[str, Removal],
    readings: dict[PairRule, dict[str, Removal]],
    offers: list[OfferValue],
    charts: list[str],
) -> str:
    e = html.escape
    game = table.game
    where = f", layout {table.layout}" if table.layout else ""
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(game.title)}: exact mathematics</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{e(game.title)}{e(where)}: exact mathematics</h1>",
        f"<p>{e(game.operator)} rules version {e(game.version)}, effective "
        f"{game.effective.isoformat()}.  Shoe: {e(shoe_words(table.composition))}; pairs read "
        f"by the {e(table.pair_rule.value)} rule (clause {e(game.pair_rule_clause)}).  Every "
        f"round counts as an ordered six-card sequence: {table.total:,} in all.</p>",
        "<h2>Wagers</h2>",
        '<img src="returns.png" alt="return per unit staked of every wager">',
        "<table><tr><th>wager</th><th>house edge</th><th>return (exact)</th>"
        "<th>std. dev.</th><th>hit frequency</th></tr>",
    ]
    for wid, w in table.wagers.items():
        parts.append(
            f"<tr><td>{e(w.name)} (<code>{e(wid)}</code>)</td><td>{w.house_edge:.4%}</td>"
            f"<td>{w.return_exact}</td><td>{w.std_dev:.4f}</td><td>{w.hit_frequency:.4%}</td></tr>"
        )
    parts.append("</table>")
    parts.append("<h2>Events</h2><table><tr><th>wager</th><th>event</th><th>pays</th>")
    parts.append("<th>combinations</th><th>probability</th></tr>")
    for wid, w in table.wagers.items():
        for ev in w.events:
            parts.append(
                f"<tr><td>{e(wid)}</td><td>{e(ev.event)}</td><td>{e(ev.pays_text)}</td>"
                f"<td>{ev.combinations:,}</td><td>{ev.combinations / ev.total:.8f}</td></tr>"
            )
    parts.append("</table>")
    parts.append(
        "<h2>Effect of removal</h2><p>Change in return per unit staked when one card of the "
        "rank leaves the shoe, in units of 1/10,000 of the stake.</p>"
    )
    rows = list(removal.items())
    for reading, found in readings.items():
        rows += [(f"{wid} ({reading.value} pairs)", r) for wid, r in found.items()]
    parts.append(
        "<table><tr><th>wager</th>" + "".join(f"<th>{r}</th>" for r in RANK_HEADINGS) + "</tr>"
    )
    for name, r in rows:
        cells = "".join(
            "<td>—</td>" if x is None else f"<td>{float(x) * 1e4:+.2f}</td>" for x in r.effects
        )
        parts.append(f"<tr><td>{e(name)}</td>{cells}</tr>")
    parts.append("</table>")
    for chart in charts:
        if chart.startswith("removal_"):
            parts.append(f'<img src="{e(chart)}" alt="{e(chart[:-4])}">')
    if offers:
        parts += [
            "<h2>Insurance Plus (4.1.15, 4.2.1)</h2>",
            "<p>Chances of the insured hand averaged over every way of reaching the offer; "
            "the exact-card range is the value over the cards that can be on the table, and "
            "the share (by weight) where it favours the bettor.  Chart labels: P or B, the "
            "hand insured; 4C after four cards, P3 after the Player's third card; the points "
            "of the Player and the Banker; the odds.</p>",
            '<img src="insurance.png" alt="value of every Insurance Plus offer">',
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
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
