"""``punto deal`` (one coup from given cards) and ``punto settle`` (a batch).

Both check everything before they print anything: a bad card, a wager the
layout does not offer or a wrong number of cards is one line on standard
error and exit code 2, with nothing on standard output.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from punto.commands.common import (
    SubParsers,
    Table,
    add_game_arguments,
    console,
    print_json,
    resolve_table,
)
from punto.errors import PuntoError, WagerError
from punto.inputs import InputError, quoted, read_json, read_text
from punto.money import Rounding, format_money, parse_stake
from punto.rules.cards import parse_cards
from punto.rules.coup import Coup
from punto.rules.insurance import Moment
from punto.rules.settlement import Bet, Settlement, settle


def register(sub: SubParsers) -> None:
    deal = sub.add_parser(
        "deal",
        help="deal given cards by the Table of Play and settle bets",
        description="Deal the given cards (in shoe order) by the Table of Play and settle the bets.",
    )
    add_game_arguments(deal)
    deal.add_argument("--cards", required=True, help='cards in shoe order, e.g. "QH 9C 2D 6S 8H"')
    deal.add_argument(
        "--bet",
        action="append",
        default=[],
        metavar="WAGER=STAKE[@MOMENT]",
        help="a bet, e.g. banker=100; Insurance Plus: player_insurance=50@four_cards "
        "or @player_third_card (repeatable)",
    )
    _money_arguments(deal)
    deal.add_argument("--json", action="store_true", help="machine-readable output")
    deal.set_defaults(run=run_deal)

    batch = sub.add_parser(
        "settle",
        help="settle recorded rounds: JSON lines on stdin, one result per line out",
        description='Each input line: {"cards": ["QH", ...], "bets": [{"wager": "banker", '
        '"stake": "100"}]}; each output line is the JSON of "punto deal --json".',
    )
    add_game_arguments(batch)
    _money_arguments(batch)
    batch.set_defaults(run=run_settle)


def _money_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rounding",
        choices=[r.value for r in Rounding],
        default=Rounding.DOWN.value,
        help="rounding of winnings that are not whole cents (default: down)",
    )
    parser.add_argument(
        "--table-max",
        metavar="AMOUNT",
        help="the table maximum, for the 10 to 1 Insurance cap (3.12.2)",
    )


def parse_bet(text: str) -> Bet:
    """``banker=100`` or ``player_insurance=50@four_cards``.

    >>> parse_bet("banker=100")
    Bet(wager='banker', stake=Decimal('100'), moment=None)
    >>> parse_bet("player_insurance=50@four_cards").moment
    <Moment.FOUR_CARDS: 'four_cards'>
    """
    wager, sep, rest = text.partition("=")
    if not sep or not wager.strip():
        raise WagerError(f"cannot read bet {text!r}", hint="write WAGER=STAKE, e.g. banker=100")
    stake_text, _, moment_text = rest.partition("@")
    return Bet(wager.strip().lower(), parse_stake(stake_text), _moment(moment_text or None))


def _moment(text: str | None) -> Moment | None:
    if text is None:
        return None
    try:
        return Moment(text.strip().lower())
    except ValueError:
        raise WagerError(
            f"no insurance moment {text!r}",
            clause="4.1.15",
            hint="use four_cards or player_third_card",
        ) from None


def _settle(table: Table, cards: Any, bets: list[Bet], args: argparse.Namespace) -> Settlement:
    card_list = parse_cards(cards) if isinstance(cards, str) else parse_cards(list(cards))
    coup = Coup.from_cards(card_list)
    table_max = parse_stake(args.table_max) if args.table_max else None
    return settle(
        table.game,
        coup,
        bets,
        layout=table.layout,
        pair_rule=table.pair_rule,
        rounding=Rounding(args.rounding),
        table_maximum=table_max,
    )


def run_deal(args: argparse.Namespace) -> int:
    table = resolve_table(args)
    bets = [parse_bet(text) for text in args.bet]
    result = _settle(table, args.cards, bets, args)
    if args.json:
        print_json(result.to_json())
    else:
        show(result)
    return 0


def run_settle(args: argparse.Namespace) -> int:
    table = resolve_table(args)
    lines = []
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            record = read_json(line, "the line")
            if not isinstance(record, dict) or "cards" not in record:
                raise InputError('expected an object with "cards" and "bets"')
            unknown = sorted(set(record) - {"cards", "bets"})
            if unknown:
                raise InputError(
                    f"a line takes no {', '.join(quoted(k) for k in unknown[:5])}",
                    hint="a line takes cards and bets",
                )
            bets_data = record.get("bets", [])
            if not isinstance(bets_data, list):
                raise InputError('"bets" is a list, e.g. [{"wager": "banker", "stake": "100"}]')
            cards = record["cards"]
            if not isinstance(cards, str | list):
                raise InputError('"cards" is a string or a list, e.g. "QH 9C 2D 6S"')
            cards = read_text(cards, "cards") if isinstance(cards, str) else cards
            cards = cards if isinstance(cards, str) else [read_text(c, "card") for c in cards]
            bets = [_bet_from_json(b) for b in bets_data]
            lines.append(json.dumps(_settle(table, cards, bets, args).to_json()))
        except PuntoError as error:
            raise InputError(f"line {number}: {error}") from None
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


def _bet_from_json(data: Any) -> Bet:
    keys = {"wager", "stake", "moment"}
    if not isinstance(data, dict) or "wager" not in data or "stake" not in data:
        raise InputError(
            'each bet needs "wager" and "stake", e.g. {"wager": "banker", "stake": "100"}'
        )
    unknown = sorted(set(data) - keys)
    if unknown:
        raise InputError(
            f"a bet takes no {', '.join(quoted(k) for k in unknown[:5])}",
            hint="a bet takes wager, stake and moment",
        )
    moment = data.get("moment")
    if moment is not None and not isinstance(moment, str):
        raise InputError(
            f"moment {quoted(moment)} is not text", hint="four_cards or player_third_card"
        )
    stake = data["stake"]
    if isinstance(stake, bool) or not isinstance(stake, str | int):
        raise WagerError(
            f"stake {quoted(stake)} is not a string or a whole number",
            hint='write money as a string, e.g. "12.50"',
        )
    return Bet(read_text(data["wager"], "wager").lower(), parse_stake(stake), _moment(moment))


def show(result: Settlement) -> None:
    from rich.table import Table as RichTable  # rich only for output to people: --json goes without

    coup = result.coup
    out = console()
    layout = f" (layout {result.layout})" if result.layout else ""
    out.print(f"[bold]{result.game.title}[/bold]{layout}")
    for side in ("player", "banker"):
        hand = coup.player if side == "player" else coup.banker
        cards = " ".join(c.pretty() for c in hand.cards)
        out.print(f"{side.title():7} {cards:14} {hand.total}")
    out.print(
        f"[bold]{coup.winner.value.title()}[/bold]"
        + (" wins" if coup.winner.value != "tie" else "")
    )
    if not result.results:
        return
    bets = RichTable()
    for column in ("wager", "stake", "outcome", "event", "net"):
        bets.add_column(column, justify="right" if column in ("stake", "net") else "left")
    for r in result.results:
        bets.add_row(
            r.bet.wager,
            format_money(r.bet.stake),
            r.outcome.value,
            r.event or "-",
            format_money(r.net),
        )
    bets.add_row("total", "", "", "", format_money(result.net))
    out.print(bets)
