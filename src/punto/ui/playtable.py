"""A table for one person at a terminal: bet, watch the deal, get paid.

:class:`PlayTable` is a user interface over one
:class:`~punto.table.live.LiveTable` whose events go to an in-memory log: the
person's bets are placed in the table's :class:`~punto.table.round.Round`
(every refusal is the engine's typed error, with its clause, shown on one
line), each coup is dealt card by card from the table's shoe, Insurance Plus
is offered at the moments the round opens it (Tiger Buffalo 4.1.15) and the
money is the round's settlement, under the table's limits.  What is the
person's alone is the bankroll, exact :class:`~decimal.Decimal` money: no
stake may take more than it holds.  When the cut card comes out the coup is
completed and the shoe ends (Tiger Baccarat 3.22); the shoe's nonce and order
are then revealed and checked against the commitment published before the
first coup.

Nothing here needs a terminal: input comes from ``input_fn`` (raising
:class:`EOFError` at the end), output goes to a rich :class:`Console`, and the
pause between cards is ``sleep``, so a session can be scripted.

>>> import io
>>> from rich.console import Console
>>> from punto.rules.games import get_game
>>> out = Console(file=io.StringIO(), width=100)
>>> script = io.StringIO("banker 100\\nfoo\\ndeal\\nquit\\n")
>>> table = PlayTable(get_game("tiger-baccarat"), console=out,
...                   input_fn=console_input(out, script), options=PlayOptions(seed=1, delay=0))
>>> table.run(), len(table.history), table.bankroll == 10000 + table.history[0].net
(0, 1, True)
>>> "unknown command 'foo'" in out.file.getvalue()
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from punto.errors import PuntoError, ShoeError, WagerError
from punto.eventlog import MemoryEventLog
from punto.inputs import InputFn, SleepFn
from punto.money import format_money, parse_stake
from punto.rules.game import Game, Wager
from punto.rules.insurance import InsuranceOffer, Moment, moment_of
from punto.rules.settlement import Bet
from punto.rules.shoe import Shoe, verify_commitment
from punto.rules.wagers import PairRule
from punto.table import irregularities
from punto.table.bet_limits import check_table_limits
from punto.table.events import TABLE_STREAM
from punto.table.limits import DEFAULT_LIMITS, TableLimits
from punto.table.live import LiveTable
from punto.table.round import BetSettlement, Round, TableBet
from punto.ui.playtable_text import (
    HELP,
    card_line,
    event_words,
    limits_text,
    looks_like_money,
    normalize_name,
    offer_text,
    result_text,
    reveal_text,
    settlement_table,
    signed_text,
    summary_text,
    wager_aliases,
    wagers_table,
)
from punto.ui.playtable_text import RoundRecord as RoundRecord
from punto.ui.playtable_text import ShoeRecord as ShoeRecord
from punto.ui.playtable_text import console_input as console_input

DEFAULT_BANKROLL = Decimal(10000)
DEFAULT_DECKS = 8
#: Cards left behind the cut card by default.
DEFAULT_CUT_CARD = 14
DEFAULT_DELAY = 0.4
#: The person at the table, and their seat: the table has no other player.
PLAYER = "you"
POSITION = 1

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
    #: the limits displayed at the table (3.5.1), as ``punto table`` opens with
    limits: TableLimits = DEFAULT_LIMITS


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
        check_table_limits(game, self.options.limits)
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
        #: the table the person sits at: its shoe, its rounds, its log
        self.live = LiveTable(
            "play",
            game,
            limits=self.options.limits,
            log=MemoryEventLog(TABLE_STREAM),
            layout=self.layout,
            decks=self.options.decks,
            cut_card_from_end=self.options.cut_card,
            seed=self.options.seed,
            pair_rule=self.pair_rule,
        )
        # The first shoe is shuffled now (a deck count the game does not allow
        # is refused before anything is printed): its commitment is shown
        # before the first coup.
        self.live.new_shoe()
        self._revealed = False
        self._cut_announced = False

    # -- the session -----------------------------------------------------------

    def run(self) -> int:
        """Play until the person quits or input ends; 0 when it ends normally."""
        self._show_welcome()
        self._show_shoe()
        try:
            while True:
                r = self.live.new_round()
                if not self._take_bets(r):
                    break
                self._play_coup(r)
                if self.live.shoe_finished:
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
    def shoe(self) -> Shoe:
        """The table's shoe in use."""
        shoe = self.live.shoe
        assert shoe is not None  # the table's own shuffled shoe, from the start
        return shoe

    @property
    def shoe_number(self) -> int:
        return self.live.shoes

    @property
    def shoe_ended(self) -> bool:
        return self.live.shoe_finished

    def _start_shoe(self) -> None:
        self.live.new_shoe()
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

    def _take_bets(self, r: Round) -> bool:
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
                    r.close_betting()  # refused over the differential (MBS 5.18)
                    self._last_bets = self._stakes(r)
                    return True
                if command in ("quit", "exit", "q"):
                    return False
                if command in ("help", "h", "?"):
                    self.console.print(HELP)
                elif command == "clear":
                    self._clear(r, words[1:])
                elif command == "bets":
                    self._show_bets(r)
                elif command in ("wagers", "table"):
                    self._show_wagers()
                elif command == "shoe":
                    self._show_shoe()
                elif command in ("rebet", "repeat", "again"):
                    self._rebet(r)
                else:
                    self._place(r, words[1:] if command == "bet" else words)
            except PuntoError as error:
                self._refuse(str(error))

    def _place(self, r: Round, words: list[str]) -> None:
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
        bets = self._stakes(r)
        staked = self._staked(r)
        bets[wager.id] = bets.get(wager.id, Decimal(0)) + stake
        room = self.bankroll - staked

        def too_much() -> PuntoError:
            return WagerError(
                f"a stake of {format_money(stake)} is more than your bankroll allows "
                f"({format_money(self.bankroll)}, with {format_money(staked)} on the table)",
                hint=f"you can stake up to {format_money(room)} more"
                if room > 0
                else "clear a bet first",
            )

        self._set_bets(r, bets, too_much)
        self.console.print(
            f"  {escape(wager.name)}: [bold]{format_money(bets[wager.id])}[/]"
            f"  (on the table {format_money(self._staked(r))}, "
            f"bankroll left {format_money(self.bankroll - self._staked(r))})"
        )

    def _resolve(self, text: str) -> Wager:
        """The wager ``text`` names: its id or name, or an unambiguous start of
        one; the table refuses the wagers it does not take now."""
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
        for wager in self._insurance.values():
            if key in (wager.id, normalize_name(wager.name)):
                return wager  # the round refuses it while betting (3.12)
        if key in self.game.wagers:
            self.game.wager(key, self.layout)  # explains which layouts offer it
        raise WagerError(
            f"there is no wager {text!r} at this table",
            hint=f"wagers: {', '.join(self.wagers)}",
        )

    def _clear(self, r: Round, words: list[str]) -> None:
        bets = self._stakes(r)
        if not words:
            self._set_bets(r, {})
            self.console.print("  Bets cleared.")
            return
        wager = self._resolve(" ".join(words))
        if bets.pop(wager.id, None) is None:
            raise WagerError(f"there is no bet on {wager.name} to clear")
        self._set_bets(r, bets)
        self.console.print(f"  Bet on {escape(wager.name)} taken back.")

    def _rebet(self, r: Round) -> None:
        if not self._last_bets:
            raise WagerError("there were no bets on the last coup", hint="place bets as usual")
        total = sum(self._last_bets.values(), Decimal(0))
        self._set_bets(
            r,
            dict(self._last_bets),
            lambda: WagerError(
                f"the last coup's bets total {format_money(total)}, more than your bankroll "
                f"of {format_money(self.bankroll)}"
            ),
        )
        self._show_bets(r)

    def _bets(self, r: Round) -> dict[str, TableBet]:
        """The person's bet on each wager, placed before the deal."""
        return {b.wager: b for b in r.active_bets if b.moment is None}

    def _stakes(self, r: Round) -> dict[str, Decimal]:
        return {wager: b.stake for wager, b in self._bets(r).items()}

    def _staked(self, r: Round) -> Decimal:
        return sum((b.stake for b in r.active_bets), Decimal(0))

    def _set_bets(
        self,
        r: Round,
        wanted: dict[str, Decimal],
        too_much: Callable[[], PuntoError] | None = None,
    ) -> None:
        """Make the person's bets ``wanted`` (wager -> stake): a bet whose stake
        changes is taken back and placed again at its new stake, so that the
        limits apply to the wager as a whole (3.5.1) and it settles as one.
        The change is tried on a copy of the round first: a refusal by the
        round or the bankroll leaves every bet as it was."""
        current = self._bets(r)
        take_back = [b.bet_id for w, b in current.items() if wanted.get(w) != b.stake]
        place = [(w, s) for w, s in wanted.items() if w not in current or current[w].stake != s]
        for target in (r.fork(), r):
            for bet_id in take_back:
                target.withdraw_bet(bet_id)
            for wager, stake in place:
                target.place_bet(PLAYER, POSITION, wager, stake)
            if target is not r and too_much is not None and self._staked(target) > self.bankroll:
                raise too_much()

    # -- dealing ---------------------------------------------------------------

    def _play_coup(self, r: Round) -> None:
        number = len(self.history) + 1
        self.console.print()
        self.console.rule(f"Coup {number} · shoe {self.shoe_number}")
        if not r.active_bets:
            self.console.print("[dim]No bets: the coup is dealt for you to watch.[/]")
        told: set[str] = set()
        while r.can_deal_card():
            if r.deal.cards and self.options.delay > 0:
                self._sleep(self.options.delay)
            side = r.deal.next_side
            assert side is not None
            try:
                self.live.draw()
            except ShoeError as error:
                if len(self.shoe) > 0:
                    raise
                self._void(r, number, error)
                return
            self.console.print(card_line(r.deal, side, self._unicode))
            if self.live.cut_card_out and not self._cut_announced:
                self._announce_cut_card()
            if r.deal.is_initial_deal_done and not r.deal.is_complete:
                self._show_decided(r, told)
                for offer in r.insurance_offers():
                    self._offer_insurance(r, offer)
        r.settle()
        coup = r.deal.to_coup()
        results = tuple(s for s in r.results() if s.outcome != "withdrawn")
        self.console.print(result_text(coup, self._unicode))
        self.bankroll += sum((s.net for s in results), Decimal(0))
        self.history.append(
            RoundRecord(number, self.shoe_number, coup, _bets(r), results, self.bankroll)
        )
        self._show_settlement(results)
        if self.bankroll <= 0:
            self.console.print("[bold red]Your bankroll is spent.[/] Type quit to leave.")

    def _void(self, r: Round, number: int, error: ShoeError) -> None:
        """Too few cards to complete the coup: the round is void and every bet returned."""
        self.console.print(f"[bold red]{escape(str(error))}[/]")
        ruling = irregularities.insufficient_cards(r, remaining=len(self.shoe))
        void = r.void
        assert void is not None
        self.console.print(
            f"The coup is void (clause {escape(ruling.clause)}: {escape(void.reason)}): "
            "every bet is returned."
        )
        results = tuple(s for s in r.results() if s.outcome != "withdrawn")
        self.history.append(
            RoundRecord(number, self.shoe_number, None, _bets(r), results, self.bankroll)
        )

    def _show_decided(self, r: Round, told: set[str]) -> None:
        """Tell the person which of their bets the cards have already decided."""
        known = r.decided_bets()
        for bet in r.active_bets:
            if bet.moment is not None or bet.bet_id not in known or bet.bet_id in told:
                continue
            told.add(bet.bet_id)
            event = known[bet.bet_id]
            wager = self.wagers[bet.wager]
            name = escape(wager.name)
            if event is None:
                self.console.print(f"  [dim]{name} has lost: the cards already say so.[/]")
            else:
                self.console.print(
                    f"  [green]{name} is already decided: {event_words(event)} "
                    f"({wager.pays[event]}).[/]"
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

    def _offer_insurance(self, r: Round, offer: InsuranceOffer) -> None:
        """An offer the round has open (4.1.15), made to the person if they
        have an Original Bet on the hand it insures (3.11)."""
        original = r.original_bet(PLAYER, offer.insures)
        wager = self._insurance.get(offer.insures)
        moment = moment_of(r.deal)
        if original == 0 or wager is None or moment is None:
            return
        self._insurance_prompt(r, offer, wager, moment, original)

    def _insurance_prompt(
        self, r: Round, offer: InsuranceOffer, wager: Wager, moment: Moment, original: Decimal
    ) -> None:
        assert self.game.insurance is not None
        cap = r.insurance_cap(PLAYER, offer)
        room = self.bankroll - self._staked(r)
        limit = min(cap, room)
        for shown in offer_text(
            offer, moment, original, cap, room, r.limits.maximum, self.game.insurance.cap_clause
        ):
            self.console.print(shown)
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
                r.check_place_insurance(PLAYER, wager.id, stake)
                if stake > room:
                    raise WagerError(
                        f"{format_money(stake)} is more than your bankroll allows",
                        hint=f"stake up to {format_money(limit)}, or pass",
                    )
                r.place_insurance(PLAYER, wager.id, stake)
            except PuntoError as error:
                self._refuse(str(error))
                continue
            self.console.print(
                f"  {escape(wager.name)} {moment.words}: [bold]{format_money(stake)}[/] "
                f"at {offer.row.pays}."
            )
            return

    # -- results ---------------------------------------------------------------

    def _show_settlement(self, results: tuple[BetSettlement, ...]) -> None:
        if results:
            self.console.print(settlement_table(self.game, results))
        self.console.print(
            Text.assemble(
                "  Net this coup ",
                signed_text(sum((s.net for s in results), Decimal(0))),
                "   Bankroll: ",
                (format_money(self.bankroll), "bold"),
            )
        )

    # -- the end of a shoe -------------------------------------------------------

    def _end_shoe(self) -> None:
        self.console.print()
        self.console.rule(f"End of shoe {self.shoe_number}")
        if self.live.cut_card_out:
            self.console.print(
                f"The cut card ended the shoe with {len(self.shoe)} cards left unplayed."
            )
        self._reveal()

    def _reveal(self) -> None:
        shoe = self.shoe
        nonce, order = shoe.reveal()
        ok = verify_commitment(shoe.commitment, nonce, order)
        self._revealed = True
        self.shoes.append(ShoeRecord(self.shoe_number, shoe.commitment, nonce, order, ok))
        for line in reveal_text(self.shoes[-1]):
            self.console.print(line, soft_wrap=True)

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
        self.console.print(wagers_table(self.wagers.values()))
        if self._insurance:
            names = " and ".join(w.name for w in self._insurance.values())
            self.console.print(
                f"{escape(names)}: offered during the deal, after four cards and after the "
                "Player's third card, when you have an Original Bet on that hand (4.1.15)."
            )
        self.console.print(f"Table limits: {limits_text(self.live.limits, self.game)}")

    def _show_shoe(self) -> None:
        shoe = self.shoe
        cut = (
            f", cut card {self.options.cut_card} from the end"
            if shoe.cut_card is not None and not self.live.cut_card_out
            else ""
        )
        self.console.print(
            f"Shoe {self.shoe_number}: {self.options.decks} decks, {len(shoe)} cards left{cut}"
        )
        self.console.print(f"  SHA-256 commitment: {shoe.commitment}")

    def _show_bets(self, r: Round) -> None:
        bets = self._stakes(r)
        if not bets:
            self.console.print("  No bets on the table.")
            return
        for wid, stake in bets.items():
            self.console.print(f"  {escape(self.wagers[wid].name)}: {format_money(stake)}")
        self.console.print(
            f"  On the table {format_money(self._staked(r))}, bankroll left "
            f"{format_money(self.bankroll - self._staked(r))}"
        )

    def _show_summary(self) -> None:
        self.console.print()
        self.console.rule("Session summary")
        self.console.print(
            summary_text(self.history, self.shoe_number, self.bankroll, self.options.bankroll)
        )


def _bets(r: Round) -> tuple[Bet, ...]:
    """The person's bets in play in ``r``, in the order placed."""
    return tuple(Bet(b.wager, b.stake, b.moment) for b in r.active_bets)
