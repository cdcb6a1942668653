"""Reading and writing the terminal table's words: the lines typed (from a
terminal or a script), wager names, and money and outcomes as shown
(:mod:`punto.playtable` exports every name here).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import IO

from rich.console import Console
from rich.text import Text

from punto.coup import Coup
from punto.errors import WagerError
from punto.game import Wager
from punto.inputs import InputFn
from punto.money import format_money, parse_stake
from punto.settlement import Bet, BetResult, Outcome, Settlement

HELP = """\
[bold]Commands[/]
  [cyan]WAGER AMOUNT[/]   bet on a wager, e.g. [cyan]banker 100[/], [cyan]tiger 10[/], [cyan]player_pair 5[/]
                 (names may be shortened while unambiguous; a second bet adds to the first)
  [cyan]clear[/] [WAGER]  take back every bet, or the bet on one wager
  [cyan]rebet[/]          place the bets of the last coup again
  [cyan]bets[/]           show the bets on the table
  [cyan]wagers[/]         show the wagers on offer and what they pay
  [cyan]shoe[/]           show the shoe: cards left and its commitment
  [cyan]deal[/]           deal the coup
  [cyan]help[/]           this text
  [cyan]quit[/]           leave the table (end of input does the same)"""


@dataclass(frozen=True)
class RoundRecord:
    """One coup of the session, as settled (``coup`` is None for a void round)."""

    number: int
    shoe: int
    coup: Coup | None
    bets: tuple[Bet, ...]
    settlement: Settlement | None
    bankroll: Decimal


@dataclass(frozen=True)
class ShoeRecord:
    """A finished shoe: its commitment, what was revealed and whether it verified."""

    number: int
    commitment: str
    nonce: str
    order: str
    verified: bool


def console_input(console: Console, stream: IO[str] | None = None) -> InputFn:
    """Read lines for a :class:`PlayTable`: from a terminal with line editing,
    or from a pipe or file (``stream``, default standard input), echoing each
    line after its prompt so the transcript reads like a session."""

    def read(prompt: str) -> str:
        source = stream if stream is not None else sys.stdin
        if source.isatty():
            with contextlib.suppress(ImportError):  # line editing and history for input()
                import readline  # noqa: F401
            return console.input(Text(prompt, style="bold cyan"))
        console.print(Text(prompt, style="bold cyan"), end="")
        line = source.readline()
        if not line:
            console.print()
            raise EOFError
        text = line.rstrip("\r\n")
        console.print(text, markup=False, highlight=False)
        return text

    return read


def normalize_name(text: str) -> str:
    return "_".join(text.strip().lower().replace("-", " ").replace("_", " ").split())


def wager_aliases(wagers: Iterable[Wager]) -> dict[str, Wager]:
    """Each wager under its id and its name, normalized."""
    out: dict[str, Wager] = {}
    for wager in wagers:
        out[normalize_name(wager.id)] = wager
        out.setdefault(normalize_name(wager.name), wager)
    return out


def looks_like_money(text: str) -> bool:
    try:
        parse_stake(text)
    except WagerError:
        return False
    return True


def event_words(event: str) -> str:
    return event.replace("_", " ")


def pays_text(wager: Wager) -> str:
    if list(wager.pays) == ["win"]:
        return str(wager.pays["win"])
    return ", ".join(f"{event_words(event)} {pays}" for event, pays in wager.pays.items())


def signed_money(amount: Decimal) -> str:
    return f"+{format_money(amount)}" if amount > 0 else format_money(amount)


def signed_text(amount: Decimal) -> Text:
    style = "bold green" if amount > 0 else "bold red" if amount < 0 else ""
    return Text(signed_money(amount), style=style)


def outcome_text(result: BetResult) -> Text:
    style = {Outcome.WIN: "green", Outcome.LOSE: "red", Outcome.PUSH: "yellow"}[result.outcome]
    return Text(result.outcome.value, style=style)
