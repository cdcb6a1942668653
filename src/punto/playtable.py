"""A table for one person at a terminal: bet, watch the deal, get paid.

:class:`PlayTable` runs a session of one game: it shows the wagers on offer
and the shoe's SHA-256 commitment, takes bets typed as ``banker 100``, deals
each coup card by card from the shoe, offers Insurance Plus at the two
moments of 4.1.15 (Tiger Buffalo), settles with :func:`punto.settlement.settle`
and keeps the bankroll in exact :class:`~decimal.Decimal` money.  When the cut
card comes out the coup is completed and the shoe ends (Tiger Baccarat 3.22);
the shoe's nonce and order are then revealed and checked against the
commitment.

Nothing here needs a terminal: input comes from ``input_fn`` (raising
:class:`EOFError` at the end), output goes to a rich :class:`Console`, and the
pause between cards is ``sleep``, so a session can be scripted.

>>> import io
>>> from rich.console import Console
>>> from punto.games import get_game
>>> out = Console(file=io.StringIO(), width=100)
>>> script = io.StringIO("banker 100\\nfoo\\ndeal\\nquit\\n")
>>> table = PlayTable(get_game("tiger-baccarat"), console=out,
...                   input_fn=console_input(out, script), options=PlayOptions(seed=1, delay=0))
>>> table.run(), len(table.history), table.bankroll == 10000 + table.history[0].settlement.net
(0, 1, True)
>>> "unknown command 'foo'" in out.file.getvalue()
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import Decimal

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from punto.cards import Card, Suit
from punto.coup import Coup, Deal, Side, Winner
from punto.errors import PuntoError, ShoeError, WagerError
from punto.established import decided
from punto.game import Game, Wager
from punto.inputs import InputFn, SleepFn
from punto.insurance import InsuranceOffer, Moment, moment_of
from punto.money import format_money, parse_stake
from punto.playtable_text import HELP as HELP
from punto.playtable_text import RoundRecord as RoundRecord
from punto.playtable_text import ShoeRecord as ShoeRecord
from punto.playtable_text import console_input as console_input
from punto.playtable_text import event_words as event_words
from punto.playtable_text import looks_like_money as looks_like_money
from punto.playtable_text import normalize_name as normalize_name
from punto.playtable_text import outcome_text as outcome_text
from punto.playtable_text import pays_text as pays_text
from punto.playtable_text import signed_money as signed_money
from punto.playtable_text import signed_text as signed_text
from punto.playtable_text import wager_aliases as wager_aliases
from punto.settlement import Bet, Settlement, settle
from punto.shoe import Shoe, verify_commitment
from punto.wagers import PairRule

#: Where each game's rules say the shoe ends once the cutting card appears.
#: Games whose rules are silent follow Tiger Baccarat 3.22.
DEFAULT_BANKROLL = Decimal(10000)
DEFAULT_DECKS = 8
#: Cards left behind the cut card by default.
DEFAULT_CUT_CARD = 14
DEFAULT_DELAY = 0.4

_YES = {"", "y", "yes", "new"}
_NO = {"n", "no", "q", "quit", "exit", "stop"}
_PASS = {"", "pass", "p", "no", "n", "skip"}


@dataclass(frozen=True)
class PlayOptions:
    """How the table is set up."""

    decks: int = DEFAULT_DECKS
    #: a seed makes every shoe reproducible; None shuffles from the OS's secure source
    seed: int | str | None = None
    bankroll: Decimal = DEFAULT_BANKROLL
    #: cards left behind the cut card
    cut_card: int = DEFAULT_CUT_CARD
    #: seconds between cards
    delay: float = DEFAULT_DELAY


@dataclass
class _Round:
    """The bets of the coup being played."""

    bets: dict[str, Decimal] = field(default_factory=dict)
    insurance: list[Bet] = field(default_factory=list)

    @property
    def staked(self) -> Decimal:
        return sum(self.bets.values(), Decimal(0)) + sum(
            (b.stake for b in self.insurance), Decimal(0)
        )


class PlayTable:
    """One person playing one game, shoe after shoe, until they quit."""

    def __init__(
        self,
        game: Game,
        *,
        console: Console,
        input_fn: InputFn,
        layout: str | None = None,
        pair_rule: PairRule | None = None,
        options: PlayOptions | None = None,
        sleep: SleepFn = time.sleep,
    ) -> None:
        self.game = game
        self.layout = game.check_layout(layout)
        self.pair_rule = pair_rule or game.pair_rule
        self.options = options or PlayOptions()
        self.console = console
        self._input = input_fn
        self._sleep = sleep
        if not 0 <= self.options.delay < math.inf:  # refuses nan and inf too
            raise PuntoError(
                f"a delay of {self.options.delay} seconds is not possible",
                hint="give 0 or more seconds",
            )
        if self.options.bankroll <= 0:
            raise WagerError(
                f"a bankroll of {format_money(self.options.bankroll)} cannot bet",
                hint="give a positive amount",
            )
        self.bankroll = self.options.bankroll
        self.history: list[RoundRecord] = []
        self.shoes: list[ShoeRecord] = []
        offered = game.offered(self.layout)
        #: wagers placed before the deal (Insurance Plus is placed during it)
        self.wagers = {wid: w for wid, w in offered.items() if w.insures is None}
        self._insurance = {w.insures: w for w in offered.values() if w.insures is not None}
        self.wager_aliases = wager_aliases(self.wagers.values())
        self._unicode = console.encoding.lower().startswith("utf")
        self._ended = False  # input ran out: finish the coup, then stop
        self._last_bets: dict[str, Decimal] = {}
        self.shoe_number = 0
        # The first shoe is made now, so that a bad --decks or --cut-card is
        # refused before anything is printed.
        self.shoe = self._new_shoe()
        self._revealed = False
        self._cut_announced = False

    # -- the session -----------------------------------------------------------

    def run(self) -> int:
        """Play until the person quits or input ends; 0 when it ends normally."""
        self._show_welcome()
        self._show_shoe()
        try:
            while True:
                table = _Round()
                if not self._take_bets(table):
                    break
                self._play_coup(table)
                if self.shoe_ended:
                    self._end_shoe()
                    if self._ended or not self._ask_new_shoe():
                        break
                    self._start_shoe()
                elif self._ended:
                    break
        except KeyboardInterrupt:
            self.console.print()
            self.console.print("[yellow]Interrupted.[/]")
            self._finish()
            return 130
        self._finish()
        return 0

    @property
    def shoe_ended(self) -> bool:
        return self._shoe_void or self.shoe.cut_card_reached

    def _new_shoe(self) -> Shoe:
        self.shoe_number += 1
        seed = self.options.seed
        if seed is not None and self.shoe_number > 1:
            seed = f"{seed}/{self.shoe_number}"
        self.game.decks.check(self.options.decks)
        total = self.options.decks * 52
        behind = self.options.cut_card
        if not 0 <= behind <= total:
            raise ShoeError(
                f"the cut card cannot go {behind} cards from the end of a shoe of {total} cards",
                hint=f"choose from 0 to {total} cards behind the cut card",
            )
        shoe = self.game.new_shoe(self.options.decks, seed=seed, cut_card=total - behind)
        self._shoe_void = False
        return shoe

    def _start_shoe(self) -> None:
        self.shoe = self._new_shoe()
        self._revealed = False
        self._cut_announced = False
        self._show_shoe()

    def _finish(self) -> None:
        if not self._revealed:
            self.console.print()
            self.console.print(f"The table closes with shoe {self.shoe_number} unfinished.")
            self._reveal()
        self._show_summary()

    # -- input -----------------------------------------------------------------

    def _ask(self, prompt: str) -> str | None:
        """A line of input, or None when input has ended."""
        if self._ended:
            return None
        try:
            return self._input(prompt)
        except EOFError:
            self._ended = True
            return None

    def _refuse(self, message: str) -> None:
        self.console.print(Text.assemble(("✗ " if self._unicode else "x ", "bold red"), message))

    # -- betting ---------------------------------------------------------------

    def _take_bets(self, table: _Round) -> bool:
        """Take bets until ``deal`` (True) or ``quit`` / end of input (False)."""
        self.console.print()
        self.console.print(
            f"[bold]Coup {len(self.history) + 1}[/] · bankroll [bold]"
            f"{format_money(self.bankroll)}[/] · place your bets ([cyan]help[/] for commands)"
        )
        while True:
            line = self._ask("bet> ")
            if line is None:
                return False
            words = line.split()
            if not words:
                continue
            command = words[0].lower()
            try:
                if command in ("deal", "d"):
                    if len(words) > 1:
                        raise WagerError("'deal' takes nothing after it", hint="type deal")
                    self._last_bets = dict(table.bets)
                    return True
                if command in ("quit", "exit", "q"):
                    return False
                if command in ("help", "h", "?"):
                    self.console.print(HELP)
                elif command == "clear":
                    self._clear(table, words[1:])
                elif command == "bets":
                    self._show_bets(table)
                elif command in ("wagers", "table"):
                    self._show_wagers()
                elif command == "shoe":
                    self._show_shoe()
                elif command in ("rebet", "repeat", "again"):
                    self._rebet(table)
                else:
                    self._place(table, words[1:] if command == "bet" else words)
            except PuntoError as error:
                self._refuse(str(error))

    def _place(self, table: _Round, words: list[str]) -> None:
        if not words:
            raise WagerError("which wager?", hint="e.g. 'bet banker 100'")
        if len(words) == 1:
            if looks_like_money(words[0]):
                raise WagerError(
                    f"which wager is the {words[0]} on?", hint=f"e.g. 'banker {words[0]}'"
                )
            try:
                wager = self._resolve(words[0])
            except WagerError:
                raise WagerError(
                    f"unknown command {words[0]!r}",
                    hint="bet like 'banker 100', or type help for the commands",
                ) from None
            raise WagerError(
                f"say how much to stake on {wager.name}", hint=f"e.g. '{wager.id} 100'"
            )
        name_words, amount = words[:-1], words[-1]
        if not looks_like_money(amount) and looks_like_money(words[0]):
            name_words, amount = words[1:], words[0]  # '100 banker'
        wager = self._resolve(" ".join(name_words))
        stake = parse_stake(amount)
        room = self.bankroll - table.staked
        if stake > room:
            raise WagerError(
                f"a stake of {format_money(stake)} is more than your bankroll allows "
                f"({format_money(self.bankroll)}, with {format_money(table.staked)} on the table)",
                hint=f"you can stake up to {format_money(room)} more"
                if room > 0
                else "clear a bet first",
            )
        table.bets[wager.id] = table.bets.get(wager.id, Decimal(0)) + stake
        self.console.print(
            f"  {escape(wager.name)}: [bold]{format_money(table.bets[wager.id])}[/]"
            f"  (on the table {format_money(table.staked)}, "
            f"bankroll left {format_money(self.bankroll - table.staked)})"
        )

    def _resolve(self, text: str) -> Wager:
        """The bettable wager ``text`` names: its id or name, or an unambiguous start of one."""
        key = normalize_name(text)
        if not key:
            raise WagerError("which wager?", hint="e.g. 'banker 100'")
        if key in self.wager_aliases:
            return self.wager_aliases[key]
        found = {w.id: w for alias, w in self.wager_aliases.items() if alias.startswith(key)}
        if len(found) == 1:
            return next(iter(found.values()))
        if found:
            raise WagerError(
                f"{text!r} could be {', '.join(found)}", hint="type more of the wager's name"
            )
        for side, wager in self._insurance.items():
            if key in (wager.id, normalize_name(wager.name)):
                raise WagerError(
                    f"{wager.name} is not placed before the deal: it is offered during the deal "
                    f"when you have a bet on {side.value.title()}",
                    clause="4.1.15",
                    hint="bet on the hand first, then take the offer when it comes",
                )
        if key in self.game.wagers:
            self.game.wager(key, self.layout)  # explains which layouts offer it
        raise WagerError(
            f"there is no wager {text!r} at this table",
            hint=f"wagers: {', '.join(self.wagers)}",
        )

    def _clear(self, table: _Round, words: list[str]) -> None:
        if not words:
            table.bets.clear()
            self.console.print("  Bets cleared.")
            return
        wager = self._resolve(" ".join(words))
        if table.bets.pop(wager.id, None) is None:
            raise WagerError(f"there is no bet on {wager.name} to clear")
        self.console.print(f"  Bet on {escape(wager.name)} taken back.")

    def _rebet(self, table: _Round) -> None:
        if not self._last_bets:
            raise WagerError("there were no bets on the last coup", hint="place bets as usual")
        total = sum(self._last_bets.values(), Decimal(0))
        if total > self.bankroll:
            raise WagerError(
                f"the last coup's bets total {format_money(total)}, more than your bankroll "
                f"of {format_money(self.bankroll)}"
            )
        table.bets = dict(self._last_bets)
        self._show_bets(table)

    # -- dealing ---------------------------------------------------------------

    def _play_coup(self, table: _Round) -> None:
        number = len(self.history) + 1
        self.console.print()
        self.console.rule(f"Coup {number} · shoe {self.shoe_number}")
        if not table.bets:
            self.console.print("[dim]No bets: the coup is dealt for you to watch.[/]")
        state = Deal()
        told: set[str] = set()
        try:
            while not state.is_complete:
                if state.cards and self.options.delay > 0:
                    self._sleep(self.options.delay)
                card = self.shoe.draw()
                side = state.next_side
                assert side is not None
                state = state.add(card)
                self._show_card(state, side, card)
                if self.shoe.cut_card_reached and not self._cut_announced:
                    self._announce_cut_card()
                if state.is_initial_deal_done and not state.is_complete:
                    self._show_decided(state, table, told)
                    if self._insurance and table.bets:
                        self._offer_insurance(state, table)
        except ShoeError as error:
            # Too few cards to complete the coup: the round is void (5.3).
            self._shoe_void = True
            self.console.print(f"[bold red]{escape(str(error))}[/]")
            self.console.print("The coup is void: every bet is returned.")
            record = RoundRecord(number, self.shoe_number, None, (), None, self.bankroll)
            self.history.append(record)
            return
        coup = state.to_coup()
        bets = tuple(Bet(wid, stake) for wid, stake in table.bets.items()) + tuple(table.insurance)
        settlement = settle(self.game, coup, bets, layout=self.layout, pair_rule=self.pair_rule)
        self._show_result(coup)
        self.bankroll += settlement.net
        self.history.append(
            RoundRecord(number, self.shoe_number, coup, bets, settlement, self.bankroll)
        )
        self._show_settlement(settlement)
        if self.bankroll <= 0:
            self.console.print("[bold red]Your bankroll is spent.[/] Type quit to leave.")

    def _show_card(self, state: Deal, side: Side, card: Card) -> None:
        hand = state.player if side is Side.PLAYER else state.banker
        line = Text(f"  {side.value.title():<7}", style="bold")
        line.append_text(self._card_text(card))
        line.append("   ")
        line.append(f"{self._cards_plain(hand.cards)} = {hand.total}", style="dim")
        self.console.print(line)

    def _card_text(self, card: Card) -> Text:
        label = card.pretty() if self._unicode else str(card)
        red = card.suit in (Suit.HEARTS, Suit.DIAMONDS)
        return Text(f"{label:>3}", style="bold red" if red else "bold")

    def _cards_plain(self, cards: tuple[Card, ...]) -> str:
        return " ".join(c.pretty() if self._unicode else str(c) for c in cards)

    def _show_decided(self, state: Deal, table: _Round, told: set[str]) -> None:
        """Tell the person which of their bets the cards have already decided."""
        if not table.bets:
            return
        known = decided(self.game, state, layout=self.layout, pair_rule=self.pair_rule)
        for wid in table.bets:
            if wid in known and wid not in told:
                told.add(wid)
                event = known[wid]
                name = escape(self.wagers[wid].name)
                if event is None:
                    self.console.print(f"  [dim]{name} has lost: the cards already say so.[/]")
                else:
                    pays = self.wagers[wid].pays[event]
                    self.console.print(
                        f"  [green]{name} is already decided: {event_words(event)} ({pays}).[/]"
                    )

    def _announce_cut_card(self) -> None:
        self._cut_announced = True
        clause = self.game.clause("cut_card")
        cite = f"clause {clause}" if clause else "as Tiger Baccarat 3.22"
        self.console.print(
            f"  [bold yellow]The cut card has come out:[/] this coup is completed and it is the "
            f"last of the shoe ({cite})."
        )

    # -- Insurance Plus ----------------------------------------------------------

    def _offer_insurance(self, state: Deal, table: _Round) -> None:
        """At the moments of 4.1.15, offer Insurance on each hand the person has bet on."""
        assert self.game.insurance is not None
        moment = moment_of(state)
        if moment is None:
            return
        for offer in self.game.insurance.offers(state):
            original = table.bets.get(offer.insures.value, Decimal(0))
            wager = self._insurance.get(offer.insures)
            if original == 0 or wager is None:
                continue
            self._insurance_prompt(offer, wager, moment, original, table)

    def _insurance_prompt(
        self, offer: InsuranceOffer, wager: Wager, moment: Moment, original: Decimal, table: _Round
    ) -> None:
        assert self.game.insurance is not None
        hand = offer.insures.value.title()
        cap = self.game.insurance.max_stake(offer, original)
        room = self.bankroll - table.staked
        limit = min(cap, room)
        p, b = (
            (offer.hand_points, offer.other_points)
            if offer.insures is Side.PLAYER
            else (offer.other_points, offer.hand_points)
        )
        tie = "; a Tie also pays (4.2.1)" if offer.row.tie_pays else "; a Tie returns the bet"
        self.console.print(
            f"  [bold magenta]Insurance Plus[/] on the {hand} hand {moment.words}: "
            f"Player {p} v Banker {b} pays [bold]{offer.row.pays}[/] if the {hand} hand loses"
            f"{tie} (clause {escape(offer.row.clause)})."
        )
        why = f"your Original Bet on {hand} is {format_money(original)}"
        if limit < cap:
            why += f"; your bankroll leaves {format_money(room)}"
        self.console.print(
            f"  Cap {format_money(cap)} (3.12.2: {why}). "
            "Type an amount, [cyan]max[/] or [cyan]pass[/]."
        )
        if limit <= 0:
            self.console.print("  [dim]Your bankroll cannot cover it: passed.[/]")
            return
        while True:
            line = self._ask(f"insure {offer.insures.value}> ")
            if line is None:
                self.console.print("  [dim]No answer: passed.[/]")
                return
            text = line.strip().lower()
            if text in _PASS:
                self.console.print("  Passed.")
                return
            if text in ("help", "?"):
                self.console.print(
                    f"  Type a stake up to {format_money(limit)}, [cyan]max[/] for "
                    f"{format_money(limit)}, or [cyan]pass[/]."
                )
                continue
            try:
                stake = limit if text in ("max", "all") else parse_stake(text)
                if stake > cap:
                    raise WagerError(
                        f"{format_money(stake)} is over the cap of {format_money(cap)}: "
                        f"Insurance may not exceed the Original Bet on the hand",
                        clause=self.game.insurance.cap_clause,
                        hint=f"stake up to {format_money(limit)}, or pass",
                    )
                if stake > room:
                    raise WagerError(
                        f"{format_money(stake)} is more than your bankroll allows",
                        hint=f"stake up to {format_money(limit)}, or pass",
                    )
            except PuntoError as error:
                self._refuse(str(error))
                continue
            table.insurance.append(Bet(wager.id, stake, moment))
            self.console.print(
                f"  {escape(wager.name)} {moment.words}: [bold]{format_money(stake)}[/] "
                f"at {offer.row.pays}."
            )
            return

    # -- results ---------------------------------------------------------------

    def _show_result(self, coup: Coup) -> None:
        p, b = coup.player, coup.banker
        if coup.winner is Winner.TIE:
            verdict = f"Tie, {p.total} all"
        else:
            winner = coup.winner.value.title()
            high, low = max(p.total, b.total), min(p.total, b.total)
            verdict = f"{winner} wins {high} to {low}"
        if coup.natural:
            verdict += ", a natural"
        self.console.print(
            f"  Player {self._cards_plain(p.cards)} ({p.total}) · "
            f"Banker {self._cards_plain(b.cards)} ({b.total}): [bold]{verdict}[/]"
        )

    def _show_settlement(self, settlement: Settlement) -> None:
        if settlement.results:
            grid = Table(title="Settlement", title_justify="left", show_edge=False)
            grid.add_column("wager")
            grid.add_column("stake", justify="right")
            grid.add_column("outcome")
            grid.add_column("event")
            grid.add_column("pays")
            grid.add_column("net", justify="right")
            for result in settlement.results:
                grid.add_row(
                    self._bet_label(result.bet),
                    format_money(result.bet.stake),
                    outcome_text(result),
                    event_words(result.event) if result.event else "-",
                    result.pays or "-",
                    signed_text(result.net),
                )
            self.console.print(grid)
        self.console.print(
            Text.assemble(
                "  Net this coup ",
                signed_text(settlement.net),
                "   Bankroll: ",
                (format_money(self.bankroll), "bold"),
            )
        )

    def _bet_label(self, bet: Bet) -> str:
        wager = self.game.wagers[bet.wager]
        if bet.moment is not None:
            return f"{wager.name} ({bet.moment.words})"
        return wager.name

    # -- the end of a shoe -------------------------------------------------------

    def _end_shoe(self) -> None:
        self.console.print()
        self.console.rule(f"End of shoe {self.shoe_number}")
        if self.shoe.cut_card_reached:
            self.console.print(
                f"The cut card ended the shoe with {len(self.shoe)} cards left unplayed."
            )
        self._reveal()

    def _reveal(self) -> None:
        nonce, order = self.shoe.reveal()
        ok = verify_commitment(self.shoe.commitment, nonce, order)
        self._revealed = True
        self.shoes.append(ShoeRecord(self.shoe_number, self.shoe.commitment, nonce, order, ok))
        self.console.print(f"Shoe {self.shoe_number} revealed.")
        self.console.print(f"  nonce: {nonce}")
        self.console.print(f"  order: {order}", soft_wrap=True)
        self.console.print(f"  SHA-256 commitment: {self.shoe.commitment}")
        if ok:
            self.console.print(
                "  [bold green]The commitment verifies:[/] SHA-256 of "
                "'punto-shoe-v1', the nonce and the order, one a line, is the commitment "
                "published before the first coup."
            )
        else:  # pragma: no cover - a shoe that does not match its own commitment
            self.console.print("  [bold red]The commitment does NOT verify.[/]")

    def _ask_new_shoe(self) -> bool:
        while True:
            line = self._ask("new shoe? [Y/n] ")
            if line is None:
                return False
            answer = line.strip().lower()
            if answer in _YES:
                return True
            if answer in _NO:
                return False
            self._refuse(f"{line.strip()!r}: answer y for a new shoe or n to leave the table")

    # -- screens -----------------------------------------------------------------

    def _show_welcome(self) -> None:
        game = self.game
        self.console.rule(f"[bold]{escape(game.title)}[/]")
        where = f" · layout {self.layout}" if self.layout else ""
        self.console.print(
            f"{escape(game.operator)} rules {escape(game.rules_file)}, version "
            f"{escape(game.version)}, effective {game.effective}{where} · "
            f"pairs: {self.pair_rule.value}"
        )
        self._show_wagers()
        self.console.print(f"Bankroll: [bold]{format_money(self.bankroll)}[/]")

    def _show_wagers(self) -> None:
        grid = Table(title="Wagers on offer", title_justify="left", show_edge=False)
        grid.add_column("type")
        grid.add_column("wager")
        grid.add_column("pays")
        grid.add_column("clauses", style="dim")
        for wager in self.wagers.values():
            grid.add_row(wager.id, wager.name, pays_text(wager), wager.clause)
        self.console.print(grid)
        if self._insurance:
            names = " and ".join(w.name for w in self._insurance.values())
            self.console.print(
                f"{escape(names)}: offered during the deal, after four cards and after the "
                "Player's third card, when you have an Original Bet on that hand (4.1.15)."
            )

    def _show_shoe(self) -> None:
        shoe = self.shoe
        depth = shoe.cut_card
        cut = (
            f", cut card {self.options.cut_card} from the end"
            if depth is not None and not shoe.cut_card_reached
            else ""
        )
        self.console.print(
            f"Shoe {self.shoe_number}: {self.options.decks} decks, {len(shoe)} cards left{cut}"
        )
        self.console.print(f"  SHA-256 commitment: {shoe.commitment}")

    def _show_bets(self, table: _Round) -> None:
        if not table.bets:
            self.console.print("  No bets on the table.")
            return
        for wid, stake in table.bets.items():
            self.console.print(f"  {escape(self.wagers[wid].name)}: {format_money(stake)}")
        self.console.print(
            f"  On the table {format_money(table.staked)}, bankroll left "
            f"{format_money(self.bankroll - table.staked)}"
        )

    def _show_summary(self) -> None:
        played = [r for r in self.history if r.settlement is not None]
        staked = sum((b.stake for r in played for b in r.bets), Decimal(0))
        net = self.bankroll - self.options.bankroll
        self.console.print()
        self.console.rule("Session summary")
        shoes = f"{self.shoe_number} shoe" + ("s" if self.shoe_number != 1 else "")
        rounds = f"{len(played)} round" + ("s" if len(played) != 1 else "")
        self.console.print(
            Text.assemble(
                f"{rounds} in {shoes}, staked {format_money(staked)}, net ",
                signed_text(net),
                f", bankroll {format_money(self.bankroll)} "
                f"(started with {format_money(self.options.bankroll)})",
            )
        )
