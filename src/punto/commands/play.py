"""``punto play GAME``: a table for a person at a terminal.

The table itself is :class:`punto.ui.playtable.PlayTable`, over a live table;
this module reads the command line, builds the table (refusing a bad game,
layout, deck count, cut card, bankroll or limits before anything is printed)
and runs it on standard input and output.  The limits are ``punto table``'s
options, with its defaults.  Input may be a terminal or a pipe; end of input leaves the table
cleanly.
"""

from __future__ import annotations

import argparse
from typing import Any

from punto.commands import common
from punto.money import format_money
from punto.ui.playtable import (
    DEFAULT_BANKROLL,
    DEFAULT_CUT_CARD,
    DEFAULT_DECKS,
    DEFAULT_DELAY,
    PlayOptions,
    PlayTable,
    console_input,
)


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "play",
        help="play a game at a terminal table",
        description="Sit at a table: place bets, watch each coup dealt card by card, "
        "take Insurance Plus when it is offered (Tiger Buffalo) and be paid exactly. "
        "The shoe's SHA-256 commitment is shown before the first coup and checked "
        "when the shoe ends. Bets are held to the table's limits (--minimum, --maximum, "
        "--differential). Type 'help' at the table for the commands.",
    )
    common.add_game_arguments(parser)
    parser.add_argument(
        "--seed", metavar="S", help="shuffle reproducibly from this seed (default: secure shuffle)"
    )
    parser.add_argument(
        "--decks",
        metavar="N",
        type=common.whole_number,
        default=DEFAULT_DECKS,
        help=f"decks in the shoe (default {DEFAULT_DECKS})",
    )
    parser.add_argument(
        "--bankroll",
        metavar="AMOUNT",
        default=format_money(DEFAULT_BANKROLL),
        help=f"money to play with (default {format_money(DEFAULT_BANKROLL)})",
    )
    parser.add_argument(
        "--cut-card",
        metavar="N",
        type=common.whole_number,
        default=DEFAULT_CUT_CARD,
        help=f"cards left behind the cut card (default {DEFAULT_CUT_CARD}); the coup in "
        "which it comes out is the last of the shoe",
    )
    common.add_limit_arguments(parser)
    parser.add_argument(
        "--delay",
        metavar="SECONDS",
        type=common.number,
        default=DEFAULT_DELAY,
        help=f"pause between cards (default {DEFAULT_DELAY}; 0 for none)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    table = common.resolve_table(args)
    options = PlayOptions(
        decks=args.decks,
        seed=args.seed,
        bankroll=common.money_argument("--bankroll", args.bankroll),
        cut_card=args.cut_card,
        delay=args.delay,
        limits=common.table_limits(args, table.game),
    )
    console = common.console()
    play = PlayTable(
        table.game,
        layout=table.layout,
        pair_rule=table.pair_rule,
        options=options,
        console=console,
        input_fn=console_input(console),
    )
    return play.run()
