"""``punto games`` and ``punto rules``: what each game offers and which clause says so."""

from __future__ import annotations

import argparse
from typing import Any

from punto.commands.common import SubParsers, add_game_arguments, console, print_json, resolve_table
from punto.rules.game import Game, Wager
from punto.rules.games import all_games


def register(sub: SubParsers) -> None:
    games = sub.add_parser("games", help="list the games and their rule versions")
    games.add_argument("--json", action="store_true", help="machine-readable output")
    games.set_defaults(run=run_games)

    rules = sub.add_parser("rules", help="a game's wagers, pays and clauses")
    add_game_arguments(rules)
    rules.add_argument("--json", action="store_true", help="machine-readable output")
    rules.set_defaults(run=run_rules)


def game_json(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "title": game.title,
        "operator": game.operator,
        "version": game.version,
        "effective": game.effective.isoformat(),
        "rules_file": game.rules_file,
        "decks": {
            "min": game.decks.minimum,
            "max": game.decks.maximum,
            "clause": game.decks.clause,
        },
        "pair_rule": {"default": game.pair_rule.value, "clause": game.pair_rule_clause},
        "layouts": {
            lid: {
                "positions": list(layout.positions),
                "clause": layout.clause,
                "wagers": list(layout.wagers),
            }
            for lid, layout in game.layouts.items()
        },
    }


def wager_json(wager: Wager) -> dict[str, Any]:
    return {
        "name": wager.name,
        "clauses": list(wager.clauses),
        "pays": {event: str(pays) for event, pays in wager.pays.items()},
        "layouts": sorted(wager.layouts) if wager.layouts is not None else None,
        "insures": wager.insures.value if wager.insures else None,
    }


def run_games(args: argparse.Namespace) -> int:
    games = all_games()
    if args.json:
        print_json([game_json(g) for g in games])
        return 0
    from rich.table import Table as RichTable  # rich only for output to people: --json goes without

    table = RichTable(title="punto games")
    for column in ("id", "title", "operator", "version", "effective", "decks", "layouts"):
        table.add_column(column)
    for g in games:
        table.add_row(
            g.id,
            g.title,
            g.operator,
            g.version,
            g.effective.isoformat(),
            f"{g.decks.minimum}-{g.decks.maximum}",
            " ".join(g.layouts),
        )
    console().print(table)
    return 0


def run_rules(args: argparse.Namespace) -> int:
    table = resolve_table(args, layout_required=False)
    game, layout = table.game, table.layout
    offered = game.offered(layout)
    if args.json:
        data = game_json(game)
        data["layout"] = layout
        data["pair_rule"]["in_use"] = table.pair_rule.value
        data["wagers"] = {wid: wager_json(w) for wid, w in offered.items()}
        if game.insurance is not None:
            data["insurance"] = [
                {
                    "insures": row.insures.value,
                    "moment": row.moment.value,
                    "hand_points": sorted(row.hand),
                    "other_points": sorted(row.other),
                    "pays": str(row.pays),
                    "tie_pays": row.tie_pays,
                    "clause": row.clause,
                }
                for row in game.insurance.rows
            ]
        print_json(data)
        return 0
    from rich.table import Table as RichTable  # rich only for output to people: --json goes without

    out = console()
    where = f", layout {layout}" if layout else ""
    out.print(
        f"[bold]{game.title}[/bold] ({game.operator}) version {game.version}, "
        f"effective {game.effective.isoformat()}{where}"
    )
    out.print(
        f"{game.decks.minimum} to {game.decks.maximum} decks (clause {game.decks.clause}); "
        f"pairs: {table.pair_rule.value} (clause {game.pair_rule_clause})"
    )
    wagers = RichTable(title="wagers")
    for column in ("wager", "name", "event", "pays", "clauses", "layouts"):
        wagers.add_column(column)
    for wid, w in offered.items():
        where_offered = "all" if w.layouts is None else " ".join(sorted(w.layouts))
        if w.insures is not None:
            wagers.add_row(
                wid,
                w.name,
                "insured hand loses",
                "by the Insurance Plus Pay Table",
                w.clause,
                where_offered,
            )
            continue
        for i, (event, pays) in enumerate(w.pays.items()):
            wagers.add_row(
                wid if i == 0 else "",
                w.name if i == 0 else "",
                event,
                str(pays),
                w.clause if i == 0 else "",
                where_offered if i == 0 else "",
            )
    out.print(wagers)
    if game.insurance is not None:
        ins = RichTable(title="Baccarat Insurance Plus Pay Table (4.1.15)")
        for column in ("insures", "moment", "hand points", "other points", "pays", "clause"):
            ins.add_column(column)
        for row in game.insurance.rows:
            ins.add_row(
                row.insures.value,
                row.moment.words,
                _span(row.hand),
                _span(row.other),
                str(row.pays) + (" (tie paid)" if row.tie_pays else ""),
                row.clause,
            )
        out.print(ins)
    return 0


def _span(points: frozenset[int]) -> str:
    low, high = min(points), max(points)
    return str(low) if low == high else f"{low}-{high}"
