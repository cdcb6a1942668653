"""Arguments and output shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from punto.errors import LimitError, WagerError
from punto.money import format_money, parse_stake
from punto.rules.game import Game
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.table.bet_limits import check_table_limits
from punto.table.limits import DEFAULT_LIMITS, TableLimits

if TYPE_CHECKING:
    from rich.console import Console

#: ``add_subparsers()``'s return type, which argparse does not export.
SubParsers = Any


@dataclass(frozen=True)
class Table:
    """The game, layout and pair reading a command runs with."""

    game: Game
    layout: str | None
    pair_rule: PairRule


def whole_number(text: str) -> int:
    """An argparse ``type``: a whole number in ASCII digits (a sign allowed, so
    that the command can say why a negative one does not do).

    ``int()`` alone would also take "1_000", " 8" and digits of other scripts
    ("٨"); a refusal here is argparse's one line with exit code 2.
    """
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 9):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a whole number (ASCII digits)")
    return int(text)


def number(text: str) -> float:
    """An argparse ``type``: a number of seconds or a fraction, in ASCII digits
    with at most one decimal point (a sign allowed, so that the command can say
    why a negative one does not do).

    ``float()`` alone would also take "nan", "inf" and "1e9", which no limit
    or delay means, and which a check like ``value <= 0`` lets through.

    >>> number("2.5"), number("-1")
    (2.5, -1.0)
    >>> number("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'nan' is not a number (ASCII digits, e.g. 5 or 0.5)
    """
    digits = text[1:] if text.startswith("-") else text
    whole, _point, fraction = digits.partition(".")
    if not (
        (whole or fraction)
        and all(part == "" or (part.isascii() and part.isdigit()) for part in (whole, fraction))
        and len(digits) <= 12
    ):
        raise argparse.ArgumentTypeError(
            f"{text[:20]!r} is not a number (ASCII digits, e.g. 5 or 0.5)"
        )
    return float(text)


def add_game_arguments(parser: argparse.ArgumentParser, *, pair_rule: bool = True) -> None:
    parser.add_argument("game", metavar="GAME", help="game id (see 'punto games')")
    parser.add_argument("--layout", metavar="L", help="table layout (Appendix letter)")
    if pair_rule:
        parser.add_argument(
            "--pair-rule",
            choices=[r.value for r in PairRule],
            help="when two cards are a Pair: 'literal' (Tiger Baccarat 1.1.14 as written) "
            "or 'rank'; default: the game's own",
        )


def resolve_table(args: argparse.Namespace, *, layout_required: bool = True) -> Table:
    """The game and layout named on the command line, checked.

    With ``layout_required``, a game whose layouts offer different wagers
    (Tiger Buffalo) must be given one.
    """
    game = get_game(args.game)
    layout = (
        game.check_layout(args.layout)
        if layout_required
        else (game.layout(args.layout).id if args.layout else None)
    )
    rule_text = getattr(args, "pair_rule", None)
    rule = PairRule(rule_text) if rule_text else game.pair_rule
    return Table(game, layout, rule)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The table limits a terminal table opens with (``punto table``, ``punto play``)."""
    low, high = format_money(DEFAULT_LIMITS.minimum), format_money(DEFAULT_LIMITS.maximum)
    parser.add_argument("--minimum", metavar="AMOUNT", default=low, help=f"table minimum ({low})")
    parser.add_argument("--maximum", metavar="AMOUNT", default=high, help=f"table maximum ({high})")
    parser.add_argument("--differential", metavar="AMOUNT", help="table differential (none)")
    parser.add_argument(
        "--wagers-per-area",
        metavar="N",
        type=whole_number,
        help="the Pit Manager's fewer wagers per playing area (MBS 3.7.1; "
        "default: the rules' three, where the game has the rule)",
    )


def table_limits(args: argparse.Namespace, game: Game) -> TableLimits:
    """The limits of :func:`add_limit_arguments`, checked against ``game``'s rules."""
    limits = TableLimits(
        money_argument("--minimum", args.minimum),
        money_argument("--maximum", args.maximum),
        differential=None
        if args.differential is None
        else money_argument("--differential", args.differential),
        wagers_per_area=args.wagers_per_area,
    )
    if limits.maximum < limits.minimum:
        raise LimitError(
            f"--maximum {format_money(limits.maximum)} is below --minimum "
            f"{format_money(limits.minimum)}",
            clause=game.clause("bet_limits"),
            hint="give a maximum at least the minimum",
        )
    try:
        check_table_limits(game, limits)
    except LimitError as error:
        raise LimitError(
            f"--wagers-per-area: {error.message}", clause=error.clause, hint=error.hint
        ) from None
    return limits


def money_argument(option: str, text: str) -> Decimal:
    """An amount of money given as ``option`` on the command line."""
    try:
        return parse_stake(text)
    except WagerError as error:
        raise WagerError(f"{option}: {error.message}", hint=error.hint) from None


def print_json(data: Any) -> None:
    """One JSON document on standard output."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def console() -> Console:
    """A console for people; plain text when the output is not a terminal."""
    from rich.console import Console  # rich only for output to people: --json goes without

    # Off a terminal rich would wrap tables at 80 columns; give them room.
    width = None if sys.stdout.isatty() else 160
    return Console(highlight=False, soft_wrap=True, width=width)
