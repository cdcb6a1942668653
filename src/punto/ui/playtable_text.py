"""Reading and writing the terminal table's words: the lines typed (from a
terminal or a script), wager names, and money, outcomes, settlements and
limits as shown (:mod:`punto.ui.playtable` exports the names it uses).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import IO

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from punto.errors import WagerError
from punto.inputs import InputFn
from punto.money import format_money, parse_stake
from punto.rules.cards import Card, Suit
from punto.rules.coup import Coup, Deal, Side, Winner
from punto.rules.game import Game, Wager
from punto.rules.insurance import InsuranceOffer, Moment
from punto.rules.settlement import Bet
from punto.table.limits import TableLimits
from punto.table.round import BetSettlement
from punto.words import count

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
    """One coup of the session as the round settled it (``coup`` is None for
    a void round), and the bankroll after it."""

    number: int
    shoe: int
    coup: Coup | None
    bets: tuple[Bet, ...]
    results: tuple[BetSettlement, ...]
    bankroll: Decimal

    @property
    def net(self) -> Decimal:
        """What the coup won (positive) or lost (negative) the person."""
        return sum((s.net for s in self.results), Decimal(0))


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


_OUTCOME_STYLES = {"win": "green", "lose": "red", "push": "yellow"}


def outcome_text(outcome: str, clause: str | None = None) -> Text:
    """A bet's outcome as the round gives it (win, lose, push, returned, void),
    with the clause that changed or returned it."""
    text = outcome + (f" ({clause})" if clause else "")
    return Text(text, style=_OUTCOME_STYLES.get(outcome, "yellow"))


def cards_text(cards: Iterable[Card], unicode: bool) -> str:
    return " ".join(c.pretty() if unicode else str(c) for c in cards)


def card_line(deal: Deal, side: Side, unicode: bool) -> Text:
    """The card just dealt to ``side``, and that hand so far."""
    card = deal.cards[-1]
    hand = deal.player if side is Side.PLAYER else deal.banker
    label = card.pretty() if unicode else str(card)
    red = card.suit in (Suit.HEARTS, Suit.DIAMONDS)
    line = Text(f"  {side.value.title():<7}", style="bold")
    line.append(f"{label:>3}", style="bold red" if red else "bold")
    line.append("   ")
    line.append(f"{cards_text(hand.cards, unicode)} = {hand.total}", style="dim")
    return line


def result_text(coup: Coup, unicode: bool) -> str:
    """The coup's hands and who won, in rich markup."""
    p, b = coup.player, coup.banker
    if coup.winner is Winner.TIE:
        verdict = f"Tie, {p.total} all"
    else:
        high, low = max(p.total, b.total), min(p.total, b.total)
        verdict = f"{coup.winner.value.title()} wins {high} to {low}"
    if coup.natural:
        verdict += ", a natural"
    return (
        f"  Player {cards_text(p.cards, unicode)} ({p.total}) · "
        f"Banker {cards_text(b.cards, unicode)} ({b.total}): [bold]{verdict}[/]"
    )


def settlement_table(game: Game, results: Iterable[BetSettlement]) -> Table:
    """The round's settlement of the person's bets, one row a bet."""
    grid = Table(title="Settlement", title_justify="left", show_edge=False)
    for column in ("wager", "stake", "outcome", "event", "pays", "net"):
        grid.add_column(column, justify="right" if column in ("stake", "net") else "left")
    for s in results:
        name = game.wagers[s.bet.wager].name
        if s.bet.moment is not None:
            name += f" ({s.bet.moment.words})"
        stake = format_money(s.bet.stake)
        # a limit policy (MBS 5.15; RWS 5.1.1) may settle a bet on less than its stake
        if s.settled_stake not in (s.bet.stake, 0):
            stake += f" (settled on {format_money(s.settled_stake)})"
        grid.add_row(
            name,
            stake,
            outcome_text(s.outcome, s.clause),
            event_words(s.event) if s.event else "-",
            s.pays or "-",
            signed_text(s.net),
        )
    return grid


def offer_text(
    offer: InsuranceOffer,
    moment: Moment,
    original: Decimal,
    cap: Decimal,
    room: Decimal,
    maximum: Decimal,
    cap_clause: str,
) -> list[str]:
    """An Insurance Plus offer as made to the person (rich markup): the odds,
    and the cap (3.12.2) with why it is what it is."""
    hand = offer.insures.value.title()
    p, b = (
        (offer.hand_points, offer.other_points)
        if offer.insures is Side.PLAYER
        else (offer.other_points, offer.hand_points)
    )
    tie = "; a Tie also pays (4.2.1)" if offer.row.tie_pays else "; a Tie returns the bet"
    why = f"your Original Bet on {hand} is {format_money(original)}"
    if cap < original:
        why += (
            f"; at {offer.row.pays} no more than a quarter of the table maximum of "
            f"{format_money(maximum)}"
        )
    if room < cap:
        why += f"; your bankroll leaves {format_money(room)}"
    return [
        f"  [bold magenta]Insurance Plus[/] on the {hand} hand {moment.words}: "
        f"Player {p} v Banker {b} pays [bold]{offer.row.pays}[/] if the {hand} hand loses"
        f"{tie} (clause {escape(offer.row.clause)}).",
        f"  Cap {format_money(cap)} ({cap_clause}: {why}). "
        "Type an amount, [cyan]max[/] or [cyan]pass[/].",
    ]


def reveal_text(shoe: ShoeRecord) -> list[str]:
    """A finished shoe's nonce and order, and whether they verify (rich markup)."""
    lines = [
        f"Shoe {shoe.number} revealed.",
        f"  nonce: {shoe.nonce}",
        f"  order: {shoe.order}",
        f"  SHA-256 commitment: {shoe.commitment}",
    ]
    if shoe.verified:
        lines.append(
            "  [bold green]The commitment verifies:[/] SHA-256 of "
            "'punto-shoe-v1', the nonce and the order, one a line, is the commitment "
            "published before the first coup."
        )
    else:  # pragma: no cover - a shoe that does not match its own commitment
        lines.append("  [bold red]The commitment does NOT verify.[/]")
    return lines


def wagers_table(wagers: Iterable[Wager]) -> Table:
    grid = Table(title="Wagers on offer", title_justify="left", show_edge=False)
    grid.add_column("type")
    grid.add_column("wager")
    grid.add_column("pays")
    grid.add_column("clauses", style="dim")
    for wager in wagers:
        grid.add_row(wager.id, wager.name, pays_text(wager), wager.clause)
    return grid


def limits_text(limits: TableLimits, game: Game) -> str:
    """The limits displayed at the table (MBS 3.5.1; RWS 3.4)."""
    text = f"minimum {format_money(limits.minimum)}, maximum {format_money(limits.maximum)}"
    if limits.differential is not None:
        text += f", differential {format_money(limits.differential)}"
    for wager, limit in limits.wagers.items():
        name = game.wagers[wager].name if wager in game.wagers else wager
        text += f"; {name} {format_money(limit.minimum)} to {format_money(limit.maximum)}"
    clause = game.clause("bet_limits")
    return text + (f" (clause {clause})" if clause else "")


def summary_text(
    history: Iterable[RoundRecord], shoes: int, bankroll: Decimal, start: Decimal
) -> Text:
    played = [r for r in history if r.coup is not None]
    staked = sum((b.stake for r in played for b in r.bets), Decimal(0))
    return Text.assemble(
        f"{count(len(played), 'round')} in {count(shoes, 'shoe')}, staked {format_money(staked)}, net ",
        signed_text(bankroll - start),
        f", bankroll {format_money(bankroll)} (started with {format_money(start)})",
    )
