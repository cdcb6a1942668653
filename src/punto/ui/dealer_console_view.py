"""What the dealer console shows: the table's state, the cards, rulings,
settlements and the scoreboard (:class:`punto.ui.dealer_console.DealerConsole`
takes the commands and shows through a :class:`ConsoleView`).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from punto.money import format_money
from punto.rules.cards import Card, format_cards
from punto.rules.game import Game
from punto.rules.roads import Scoreboard
from punto.rules.wagers import pair_rule_warning
from punto.table import handling
from punto.table.events import RoundOpened, ShoeStarted
from punto.table.irregularities import Ruling
from punto.table.live import LiveTable
from punto.table.replay import (
    IRREGULARITIES,
)
from punto.table.round import Phase, Round
from punto.ui.playtable_text import signed_money
from punto.words import count

__all__ = ["ConsoleView"]


class ConsoleView:
    """The console's output for one live table."""

    def __init__(self, console: Console, table: LiveTable, game: Game, where: str | None) -> None:
        self.console = console
        self.table = table
        self.game = game
        self.where = where
        self.unicode = console.encoding.lower().startswith("utf")

    def welcome(self) -> None:
        game, table = self.game, self.table
        self.console.rule(f"[bold]{escape(game.title)}[/] · dealer console")
        limits = table.limits
        text = (
            f"Table {escape(table.table_id)}"
            + (f" · layout {table.layout}" if table.layout else "")
            + f" · limits {format_money(limits.minimum)} to {format_money(limits.maximum)}"
            + (
                f", differential {format_money(limits.differential)}"
                if limits.differential is not None
                else ""
            )
            + f" · {table.decks} decks"
        )
        self.console.print(text)
        warning = pair_rule_warning(table.pair_rule)
        if warning is not None:
            self.console.print(Text(f"Warning: {warning}", style="bold red"))
        self.console.print(
            f"Event log: {escape(self.where)}" if self.where else "Event log: in memory"
        )
        if table.rounds:
            r = table.rounds[-1]
            self.console.print(
                f"[bold]Resumed[/]: {count(len(table.rounds), 'round')} on the log; round {r.round_id} "
                f"is {r.phase.value}."
            )
            if table.recovered is not None:
                self.show_recovery(r, table.recovered)
            self.show_status()
        self.console.print("Type [cyan]help[/] for the commands.")

    def show_recovery(self, r: Round, recovered: str) -> None:
        clause = self.game.clause("power_failure") or "-"
        if r.withdrawal_open is not None:
            clause = r.withdrawal_open.clause
        elif r.void is not None:
            clause = r.void.clause
        if recovered == "withdrawal":
            self.console.print(
                f"  The round was being dealt when the console stopped: handled as a power "
                f"failure with no outcome established (clause {clause}). Players may withdraw "
                f"all their wagers: [cyan]take PLAYER[/], then [cyan]close_withdrawal[/]."
            )
        elif recovered == "void":
            self.console.print(
                f"  The round was being dealt when the console stopped: handled as a power "
                f"failure with no outcome established; the round is void (clause {clause})."
            )
        else:
            self.console.print(
                "  The round was being dealt when the console stopped: handled as a power "
                "failure; play continues and the round is concluded."
            )

    def goodbye(self) -> None:
        r = self.table.round
        self.console.print()
        in_play = r is not None and r.phase not in (Phase.SETTLED, Phase.VOID)
        if r is None or not in_play:
            pass
        elif not self.where:
            self.console.print(f"Round {r.round_id} is {r.phase.value}; it is not kept.")
        elif r.phase is Phase.DEALING:
            clause = self.game.clause("power_failure") or "no clause"
            self.console.print(
                f"Round {r.round_id} is being dealt: started again on this log, the console "
                f"handles it as a power failure ({clause})."
            )
        else:
            self.console.print(f"Round {r.round_id} is {r.phase.value}; the log keeps it.")
        self.console.print(
            "The console closes." + ("" if self.where else " (The log was in memory.)")
        )

    def show_cards(self, r: Round, before: int) -> None:
        deal = r.deal
        new = deal.cards[before:]
        if new:
            self.console.print(
                f"  Cards: {self.cards(new)}  ·  Player {self.cards(deal.player.cards)} = "
                f"{deal.player.total} · Banker {self.cards(deal.banker.cards)} = {deal.banker.total}"
            )
        if self.table.cut_card_out:
            self.console.print(
                "  [yellow]The cut card has come out[/]: this round is completed and is the last "
                "of the shoe."
            )
        if not deal.cards and r.withdrawal_open is not None:
            self.console.print(
                f"  The cut card came out first (clause {r.withdrawal_open.clause}): players may "
                "withdraw all their wagers: [cyan]take PLAYER[/], then [cyan]close_withdrawal[/]."
            )
        if deal.is_complete:
            coup = deal.to_coup()
            won = coup.winner.value
            verdict = "Tie" if won == "tie" else f"{won.title()} wins"
            self.console.print(
                f"  [bold]{verdict}[/] (Player {coup.player.total}, Banker {coup.banker.total}); "
                f"type [cyan]settle[/]."
            )
        self.show_insurance(r)

    def show_insurance(self, r: Round) -> None:
        offers = r.insurance_offers()
        if not offers:
            return
        self.console.print(
            "  [bold magenta]Insurance Plus window open[/] (the next card closes it):"
        )
        for offer in offers:
            players = [p for p in r.players if r.original_bet(p, offer.insures) > 0]
            caps = ", ".join(
                f"{escape(p)} up to {format_money(r.insurance_cap(p, offer))}" for p in players
            )
            self.console.print(
                f"    {escape(str(offer))} (clause {escape(offer.row.clause)}): "
                f"{caps or 'nobody has an Original Bet on that hand'}"
            )
        wager = f"{offers[0].insures.value}_insurance"
        self.console.print(f"    Record with [cyan]insure PLAYER {wager} STAKE[/].")

    def show_ruling(self, ruling: Ruling) -> None:
        text = f"  Ruling (clause {ruling.clause}): [bold]{ruling.consequence}[/]"
        if ruling.withdrawn:
            text += f"; withdrawn: {escape(', '.join(ruling.withdrawn))}"
        if ruling.returned:
            text += f"; returned: {', '.join(ruling.returned)}"
        self.console.print(text)
        for label, cards in (
            ("held for the next round (dealt first)", ruling.next_round),
            ("missing, replaced", ruling.missing),
            ("set aside, unused", ruling.unused),
        ):
            if cards:
                self.console.print(f"  Cards {label}: {format_cards(cards)}")
        r = self.table.round
        if r is not None and r.phase is Phase.VOID and r.void is not None:
            self.console.print(f"  Round {r.round_id} is void: every bet is returned.")
        self.show_replacement()

    def show_replacement(self) -> None:
        due = self.table.replacement_due
        if due is not None:
            self.console.print(
                f"  [yellow]The cards must be replaced before the next round[/] (clause {due}): "
                f"[cyan]replace_shoe {due}[/]."
            )

    def show_settlement(self, r: Round) -> None:
        grid = Table(title=f"Round {r.round_id} settled", title_justify="left", show_edge=False)
        for column in ("bet", "player", "wager", "stake", "outcome", "event", "settled on", "net"):
            grid.add_column(column, justify="right" if column in ("stake", "net") else "left")
        for s in r.results():
            grid.add_row(
                s.bet.bet_id,
                s.bet.player,
                s.bet.wager,
                format_money(s.bet.stake),
                s.outcome + (f" ({s.clause})" if s.clause else ""),
                s.event or "-",
                format_money(s.settled_stake),
                signed_money(s.net),
            )
        self.console.print(grid)
        nets = ", ".join(f"{escape(p)} {signed_money(n)}" for p, n in r.nets().items())
        self.console.print(f"  Players: {nets or 'no bets'} · house {signed_money(r.house_net())}")
        if self.table.shoe_finished:
            self.console.print(
                "  The shoe has ended (the cut card came out): [cyan]open[/] starts a new shoe."
            )
        self.show_status()

    def show_status(self) -> None:
        """The round beside the scoreboard."""
        grid = Table.grid(padding=(0, 2))
        grid.add_column()
        grid.add_column()
        grid.add_row(
            Panel(self.round_view(), title="Round", title_align="left"),
            Panel(Text(self.board().render(width=12)), title="Scoreboard", title_align="left"),
        )
        self.console.print(grid)

    def round_view(self) -> Group:
        r = self.table.round
        if r is None:
            return Group(Text("No round yet: type open."))
        lines: list[Text | Table] = [Text(f"{r.round_id} · {r.phase.value}", style="bold")]
        if pair_rule_warning(self.table.pair_rule) is not None:
            lines.append(
                Text("Pairs read literally (1.1.14): Tiger Pair favours the player", style="red")
            )
        if r.bets:
            bets = Table(show_edge=False, box=None, padding=(0, 1))
            for column in ("bet", "player", "pos", "wager", "stake", "status"):
                bets.add_column(column, justify="right" if column == "stake" else "left")
            ended = (
                {s.bet.bet_id: s for s in r.results()}
                if r.phase in (Phase.SETTLED, Phase.VOID)
                else {}
            )
            for b in r.bets:
                status = b.status + (f" ({b.clause})" if b.clause else "")
                if b.bet_id in ended:
                    end = ended[b.bet_id]
                    status = f"{end.outcome} {signed_money(end.net)}" + (
                        f" ({end.clause})" if end.clause else ""
                    )
                bets.add_row(
                    b.bet_id,
                    b.player,
                    str(b.position) + ("" if b.seated else " st"),
                    b.wager + (f" @{b.moment.value}" if b.moment else ""),
                    format_money(b.stake),
                    status,
                )
            lines.append(bets)
        else:
            lines.append(Text("No bets."))
        deal = r.deal
        if deal.cards:
            lines.append(
                Text(
                    f"Player {self.cards(deal.player.cards)} = {deal.player.total}\n"
                    f"Banker {self.cards(deal.banker.cards)} = {deal.banker.total}"
                )
            )
        if r.withdrawal_open is not None:
            lines.append(
                Text(
                    f"Withdrawal option open (clause {r.withdrawal_open.clause}): take PLAYER, "
                    "then close_withdrawal",
                    style="yellow",
                )
            )
        if (handled := handling.describe_round(r)) is not None:
            lines.append(Text(handled))
        for note in r.irregularities:
            lines.append(Text(f"{note.clause}: {note.reason}", style="dim"))
        if r.void is not None:
            lines.append(Text(f"Void ({r.void.clause}): {r.void.reason}", style="red"))
        return Group(*lines)

    def board(self) -> Scoreboard:
        """The scoreboard of the current shoe: its settled rounds, in order."""
        board = Scoreboard(pair_rule=self.table.pair_rule)
        by_id = {r.round_id: r for r in self.table.rounds}
        for round_id in self.shoe_rounds():
            r = by_id.get(round_id)
            if r is not None and r.phase is Phase.SETTLED:
                board.add(r.deal.to_coup())
        return board

    def shoe_rounds(self) -> list[str]:
        ids: list[str] = []
        for stored in self.table.log.read(self.table.table_id):
            if isinstance(stored.event, ShoeStarted):
                ids = []
            elif isinstance(stored.event, RoundOpened):
                ids.append(stored.round_id)
        return ids

    def show_board(self) -> None:
        self.console.print(Text(self.board().render()))

    def show_shoe(self) -> None:
        shoe = self.table.shoe
        if shoe is None:
            self.console.print("No shoe yet: the first open shuffles one.")
            return
        cut = "" if shoe.cut_card is None else f", cut card after {shoe.cut_card} cards"
        self.console.print(
            f"Shoe {self.table.shoe_id}: {len(shoe)} cards left of {len(shoe.order)}{cut}"
            + (" (the cut card has come out)" if self.table.cut_card_out else "")
        )
        self.console.print(f"  SHA-256 commitment: {shoe.commitment}")
        if self.table.held:
            self.console.print(
                f"  Held for the next round, dealt first: {format_cards(self.table.held)}"
            )
        if self.table.replacement_due is not None:
            self.console.print(
                "  The cards are replaced before the next round: "
                f"[cyan]replace_shoe {self.table.replacement_due}[/]"
            )

    def show_irregularities(self) -> None:
        grid = Table(title="Irregularities", title_justify="left", show_edge=False)
        grid.add_column("name")
        grid.add_column("parameters")
        grid.add_column("what it is", overflow="fold")
        for spec in IRREGULARITIES.values():
            params = " ".join(
                p.name if p.required else f"[{p.name}]" for p in spec.params if p.name != "role"
            )
            grid.add_row(spec.name, escape(params), escape(spec.summary))
        self.console.print(grid)

    def cards(self, cards: Iterable[Card]) -> str:
        return " ".join(c.pretty() if self.unicode else str(c) for c in cards) or "-"
