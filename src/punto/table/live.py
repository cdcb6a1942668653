"""A live table: its shoe, its rounds one after another, and its event log.

Every action goes to the log before it is acknowledged.  Starting a table
again on the same log restores the shoe and every round exactly; a round
that was being dealt when the process stopped is then handled as a power
failure (MBS 5.17, RWS 5.4), by the rules, from the cards already out.

The table keeps its shoe in step with every card that leaves the dealing
device, not only the cards :meth:`LiveTable.draw` deals: an irregularity
procedure that names cards out of the device (excess cards, simultaneous
cards, a reconstruction) must name the shoe's next cards, in order, or it
is refused and nothing is written.  Cards the coup does not use are held
(``CardsHeld``) and dealt first in the next round (source ``held``).  A
cutting card that comes out as the first card of a round opens the
withdrawal option at an HLGA table (MBS 3.22.1); the cards are replaced
mid-shoe only where the rules say so (:meth:`LiveTable.replace_shoe`).

>>> from decimal import Decimal
>>> from punto.rules.games import get_game
>>> from punto.eventlog import MemoryEventLog
>>> from punto.table.events import TABLE_STREAM
>>> log = MemoryEventLog(TABLE_STREAM)
>>> table = LiveTable("t1", get_game("dragon-tiger"), limits=TableLimits(Decimal(10), Decimal(500)),
...                   log=log, seed="doc")
>>> r = table.new_round()
>>> r.place_bet("ann", 1, "player", Decimal(50)) and r.close_betting()
>>> table.deal_to_completion(); r.settle()
>>> again = LiveTable("t1", get_game("dragon-tiger"), limits=table.limits, log=log, seed="doc")
>>> again.round.results() == r.results() and again.shoe.position == table.shoe.position
True
"""

from __future__ import annotations

import json
from collections.abc import Callable

from punto.errors import ActionError, PhaseError, PuntoError, ShoeError
from punto.eventlog import EventLog
from punto.rules.cards import DECK, Card
from punto.rules.game import Game
from punto.rules.shoe import Shoe
from punto.rules.wagers import PairRule
from punto.table import handling, irregularities
from punto.table.events import (
    Event,
    Method,
    MethodChosen,
    RoundOpened,
    ShoeStarted,
    TableConfigured,
)
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Phase, Round
from punto.table.shoe_state import TABLE_SOURCES, DeviceCardsError, ShoeState

__all__ = [
    "TABLE_SOURCES",
    "DeviceCardsError",
    "LiveTable",
    "TableConfigError",
    "check_cut_card",
    "check_hlga",
]


class TableConfigError(PuntoError):
    """A table opened on a log written for another game or layout."""


def check_hlga(game: Game, hlga: bool) -> None:
    """Refuse an HLGA table where the rules give no withdrawal option for a
    cutting card that comes out first (MBS 3.22.1): the setting would change
    nothing."""
    if hlga and game.clause("cut_card_first") is None:
        raise TableConfigError(
            f"the {game.title} rules give no withdrawal option for a cutting card "
            "that comes out first: an HLGA setting would change nothing",
            clause=game.clause("cut_card"),
            hint="leave HLGA off for this game",
        )


def check_cut_card(decks: int, from_end: int) -> None:
    """Refuse a cutting card placed outside a shoe of ``decks`` decks: it goes
    ``from_end`` cards from the end, 0 to every card of the shoe (3.22)."""
    total = len(DECK) * decks
    if not 0 <= from_end <= total:
        raise ShoeError(
            f"the cut card cannot go {from_end} cards from the end of a shoe of {total} cards",
            hint=f"choose from 0 to {total} cards behind the cut card",
        )


class LiveTable:
    """One table running one game and layout, round after round.

    The table's configuration is in its log: a restart with other limits (or
    decks, cut card, insurance notice, pair reading) logs the change, which
    applies from the next round; rounds already played keep the limits they
    were played under.

    ``hlga``: the table is in HLGA, where the Dealer allows players to
    withdraw their wagers when the cutting card comes out as the first card
    of a round (MBS 3.22.1; Dragon Tiger 3.17.1).

    ``electronic_device``: an electronic dealing device is in use (MBS 5.9)
    -- the table's own shuffled shoe is one, and so is a card-reading shoe;
    a table whose cards are keyed from a manual shoe has none.
    ``face_down``: the cards are dealt face down (RWS 5.10).  Both are
    logged with the configuration; each round keeps the facts in force when
    it opened (:mod:`punto.table.facts`).

    ``physical_shoe``: where the cards come from.  False: the table's own
    shuffled shoe deals every card, in order, and a card keyed in or read
    from outside is refused (2.1).  True: a physical shoe of ``decks``
    decks, its order unknown; every card is keyed in or read by a device
    and checked against the composition still in it.  None (a table not
    told, as the engine's own tests use it): the own shoe deals, and cards
    keyed from outside are taken unchecked.  Changed only between shoes
    (:meth:`set_physical_shoe`).
    """

    def __init__(
        self,
        table_id: str,
        game: Game,
        *,
        limits: TableLimits,
        log: EventLog[Event],
        layout: str | None = None,
        decks: int = 8,
        cut_card_from_end: int = 14,
        seed: int | str | None = None,
        pair_rule: PairRule | None = None,
        insurance_offered: bool = True,
        hlga: bool = False,
        electronic_device: bool = True,
        face_down: bool = False,
        physical_shoe: bool | None = None,
        recover: bool = True,
    ) -> None:
        check_hlga(game, hlga)
        check_cut_card(decks, cut_card_from_end)
        self.table_id = table_id
        self.game = game
        self.layout = game.check_layout(layout)
        self._limits = limits
        self.log = log
        self.decks = decks
        self.cut_card_from_end = cut_card_from_end
        self.seed = seed
        self.pair_rule = pair_rule or game.pair_rule
        self.insurance_offered = insurance_offered
        self.hlga = hlga
        self._electronic_device = electronic_device
        self._face_down = face_down
        #: the shoe, the cards out of it and held from it (one fold with the replay's)
        self.cards = ShoeState(game)
        self._physical_shoe = physical_shoe
        self.cards.sealed = physical_shoe is False
        self.rounds: list[Round] = []
        self.under_minimum_settled: set[str] = set()
        #: what recovery did to an interrupted round ("continue", "withdrawal", "void"), if anything
        self.recovered: str | None = None
        self._logged_config: TableConfigured | None = None
        self._method: MethodChosen | None = None  # the last Method chosen (MBS 3.9.2)
        self._restore(recover)

    @property
    def round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def shoe(self) -> Shoe | None:
        """The shoe in use (None before the first round)."""
        return self.cards.shoe

    @property
    def shoe_id(self) -> str:
        return self.cards.shoe_id

    @property
    def shoes(self) -> int:
        """Shoes begun at this table (replacements of the cards included)."""
        return self.cards.shoes

    @property
    def limits(self) -> TableLimits:
        """The limits new rounds open under."""
        return self._limits

    @limits.setter
    def limits(self, limits: TableLimits) -> None:
        """Change the limits from the next round on (the change is logged)."""
        self._limits = limits
        self._log_config()

    @property
    def electronic_device(self) -> bool:
        """An electronic dealing device is in use (MBS 5.9), from the next round on."""
        return self._electronic_device

    @electronic_device.setter
    def electronic_device(self, value: bool) -> None:
        self._electronic_device = value
        self._log_config()

    @property
    def face_down(self) -> bool:
        """The cards are dealt face down (RWS 5.10), from the next round on."""
        return self._face_down

    @face_down.setter
    def face_down(self, value: bool) -> None:
        self._face_down = value
        self._log_config()

    def configuration(self) -> TableConfigured:
        return TableConfigured(
            self.game.id,
            self.layout,
            self.pair_rule.value,
            self.decks,
            self.cut_card_from_end,
            self.insurance_offered,
            json.dumps(self._limits.to_json(), sort_keys=True),
            self.hlga,
            self._electronic_device,
            self._face_down,
        )

    def _log_config(self) -> None:
        config = self.configuration()
        if config != self._logged_config:
            self.log.append(self.table_id, config)
            self._logged_config = config

    # -- the log -----------------------------------------------------------------

    def _writer(self, r: Round) -> Callable[[Event], None]:
        def write(event: Event) -> None:
            self.log.append(self.table_id, event, round_id=r.round_id)
            self.cards.track(r, event)  # only once it is durable

        return write

    def _attach(self, r: Round) -> None:
        r.on_event = self._writer(r)
        r.check_events = self.cards.check
        r.check_claim = self.cards.check_claim

    def _restore(self, recover: bool) -> None:
        current: Round | None = None
        in_force = self._limits
        facts: TableConfigured | None = None
        for stored in self.log.read(self.table_id):
            event = stored.event
            if isinstance(event, TableConfigured):
                self._check_identity(event)
                self._logged_config = facts = event
                in_force = TableLimits.from_json(json.loads(event.limits))
                continue
            if isinstance(event, ShoeStarted):
                self._load_shoe(event)
                continue
            if isinstance(event, MethodChosen) and not stored.round_id:
                self._method = event  # chosen between rounds; each round records it again
                continue
            if isinstance(event, RoundOpened):
                if current is not None:
                    self._finish(current)
                current = self._make_round(
                    stored.round_id, persist=False, limits=in_force, facts=facts
                )
                self.rounds.append(current)
            if current is None:
                raise ShoeError(
                    f"event {event.type} of table {self.table_id} comes before any round"
                )
            self.cards.track(current, event)
            current._apply(event)
            current.events.append(event)
        for r in self.rounds:
            self._attach(r)
        self._log_config()
        if current is not None:
            self._finish(current)
            if recover and current.phase is Phase.DEALING and current.pending_claim is None:
                self.recovered = current.power_failure(Role.DEALER)

    def _check_identity(self, logged: TableConfigured) -> None:
        if (logged.game, logged.layout) != (self.game.id, self.layout):
            where = f" layout {logged.layout}" if logged.layout else ""
            raise TableConfigError(
                f"table {self.table_id}'s log was written for {logged.game}{where}",
                hint="open it with the same game and layout, or use another table id",
            )

    def _finish(self, r: Round) -> None:
        if r.phase is Phase.SETTLED:
            self.under_minimum_settled |= r.newly_under_minimum()

    def _load_shoe(self, event: ShoeStarted) -> None:
        self.cards.load(event)

    def _make_round(
        self,
        round_id: str,
        *,
        persist: bool = True,
        limits: TableLimits | None = None,
        facts: TableConfigured | None = None,
    ) -> Round:
        """A round under the configuration in force: the table's now, or
        ``limits`` and the facts of ``facts`` (a logged configuration) when
        a round is restored from the log."""
        r = Round(
            self.game,
            limits=limits or self._limits,
            layout=self.layout,
            pair_rule=self.pair_rule,
            insurance_offered=self.insurance_offered,
            electronic_device=self._electronic_device if facts is None else facts.electronic_device,
            face_down=self._face_down if facts is None else facts.face_down,
            under_minimum_settled=self.under_minimum_settled,
            round_id=round_id,
        )
        if persist:
            self._attach(r)
        return r

    # -- cards out of the device -----------------------------------------------------------

    @property
    def held(self) -> tuple[Card, ...]:
        """Cards held over from a previous round, dealt first in the next
        (RWS 5.8), in the order they came out of the device."""
        return self.cards.held

    def discards(self) -> tuple[Card, ...]:
        """The cards of this shoe out of the device before the round in play,
        as MBS 5.11.2.1 counts them (:meth:`ShoeState.discards`)."""
        return self.cards.discards()

    # -- shoe and rounds ---------------------------------------------------------------

    def check_new_shoe(self) -> None:
        """Why a new shoe cannot begin now, if it cannot: a round is in play
        (3.22: it is completed first), or the shoe in use has not ended --
        mid-shoe the cards are replaced only under a clause that allows it
        (:meth:`replace_shoe`)."""
        self.cards.check_new_shoe(self.round)

    def can_new_shoe(self) -> bool:
        try:
            self.check_new_shoe()
        except PuntoError:
            return False
        return True

    def new_shoe(self, role: Role = Role.DEALER) -> Shoe | None:
        """Shuffle a new shoe and log its order (with the published
        commitment); at a physical-shoe table, log its decks (None returned:
        the order is not the table's)."""
        self.check_new_shoe()
        return self._start_shoe("", role)

    @property
    def physical_shoe(self) -> bool | None:
        """Where new shoes come from (see the class): True physical, False the
        table's own shuffled shoe only, None not told."""
        return self._physical_shoe

    def check_set_physical_shoe(self) -> None:
        """Why the card source cannot change now, if it cannot: only between
        shoes -- no round in play, and the shoe in use has ended (3.22) --
        so that every shoe is dealt from one source and audited as one."""
        cut, r = self.game.clause("cut_card"), self.round
        if r is not None and r.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {r.round_id} is in play ({r.phase.value}): the card source changes "
                "between shoes",
                clause=cut,
                hint="settle or void it, and change the source once the shoe has ended",
            )
        if not self.shoe_finished:
            raise PhaseError(
                f"shoe {self.shoe_id} is in use: the card source changes between shoes, "
                "once its cutting card has come out",
                clause=cut,
                hint="change it when the shoe ends; every shoe is dealt from one source",
            )

    def set_physical_shoe(self, physical: bool) -> None:
        """Deal the next shoe from a physical shoe (True) or the table's own
        shuffled shoe (False); between shoes only."""
        if physical == self._physical_shoe:
            return
        self.check_set_physical_shoe()
        self._physical_shoe = physical
        self.cards.sealed = not physical

    def _start_shoe(self, clause: str, role: Role) -> Shoe | None:
        if self._physical_shoe:
            # a physical shoe: its decks are declared, its order is not known
            event = ShoeStarted(f"s{self.shoes + 1}", (), None, "", "", clause, role, self.decks)
            self.log.append(self.table_id, event)
            self._load_shoe(event)
            return None
        seed = None if self.seed is None else f"{self.seed}:{self.shoes + 1}"
        shoe = self.game.new_shoe(self.decks, seed=seed)
        shoe.cut_card = max(0, len(shoe) - self.cut_card_from_end)
        nonce, _ = shoe.reveal()
        event = ShoeStarted(
            f"s{self.shoes + 1}", shoe.order, shoe.cut_card, shoe.commitment, nonce, clause, role
        )
        self.log.append(self.table_id, event)
        self._load_shoe(event)
        assert self.shoe is not None
        return self.shoe

    def check_replace_shoe(self, role: Role, clause: str) -> None:
        """Why the cards cannot be replaced now under ``clause``, if they cannot."""
        self.cards.check_replace(role, clause, self.round)

    def can_replace_shoe(self, role: Role, clause: str) -> bool:
        try:
            self.check_replace_shoe(role, clause)
        except PuntoError:
            return False
        return True

    def replace_shoe(self, role: Role, clause: str) -> Shoe | None:
        """Replace the cards with a new, shuffled set, under ``clause``: RWS
        5.11.2 (after a simultaneous draw, even mid-round, by a Pit Supervisor
        or above); MBS 5.11.5 and 5.12.2 (required before the next round) and
        5.13 (after a void).  Logs a new ``ShoeStarted`` with its commitment;
        cards held for the next round go with the old set."""
        self.check_replace_shoe(role, clause)
        return self._start_shoe(clause, role)

    @property
    def replacement_due(self) -> str | None:
        """The clause under which the cards must be replaced before the next
        round commences (MBS 5.11.5, 5.12.2), if any."""
        return self.cards.replacement_due

    @property
    def cut_card_out(self) -> bool:
        """The cutting card of the shoe in use has come out: a card behind it
        was drawn, or it was reported out (3.22, 3.22.1)."""
        return self.cards.cut_card_out

    @property
    def shoe_finished(self) -> bool:
        """The cut card came out in the last round: the shoe ends (3.22); or
        a round was voided for want of cards (MBS 5.3; RWS 5.5.4)."""
        return not self.cards.started or self.cards.ended

    # -- card handling (MBS 3.9-3.12) ------------------------------------------------------

    @property
    def method(self) -> Method | None:
        """The Method new rounds are conducted by (None: the rules have none);
        Method A until one is chosen (docs/interpretations.md)."""
        if self.game.clause("methods") is None:
            return None
        return self._method.method if self._method is not None else handling.DEFAULT_METHOD

    def check_choose_method(self, method: Method, role: Role) -> None:
        """Why ``role`` may not choose ``method`` now, if they may not: the Pit
        Manager chooses A or B, an Assistant Casino Manager allows C at an HLGA
        table, before a round commences (3.9.2)."""
        clause = handling.check_choice(self.game, method, role, hlga=self.hlga)
        r = self.round
        if r is not None and r.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {r.round_id} is in play: the Method may be changed only before "
                "a round of play commences",
                clause=clause,
                hint="settle or void it first",
            )

    def can_choose_method(self, method: Method, role: Role) -> bool:
        try:
            self.check_choose_method(method, role)
        except PuntoError:
            return False
        return True

    def choose_method(self, method: Method, role: Role) -> None:
        """Conduct the rounds from the next one on by ``method`` (logged; each
        round records it again when it opens)."""
        self.check_choose_method(method, role)
        clause = handling.rule(self.game, "method_choice")
        event = MethodChosen(method, role, clause, self.hlga)
        self.log.append(self.table_id, event)
        self._method = event

    def new_round(self, role: Role = Role.DEALER) -> Round:
        """'Place your bets, please' on a new round (a new shoe first if needed)."""
        if self.round is not None and self.round.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {self.round.round_id} is still {self.round.phase.value}",
                hint="settle or void it first",
            )
        if self.round is not None:
            self.round.check_no_claim_pending()  # a ruling on a settled round waits too
        if self._method is not None and self._method.method is Method.C and not self.hlga:
            raise ActionError(
                "the table is conducted by Method C, which is permitted only within HLGA, "
                "and the table is no longer in HLGA",
                clause=self._method.clause,
                hint="the Pit Manager chooses Method A or B first (choose_method)",
            )
        due = self.cards.replacement_due
        if due is not None:
            raise PhaseError(
                "the cards are replaced before the next round of play commences",
                clause=due,
                hint=f"replace them first: replace_shoe(role, {due!r})",
            )
        if self.round is not None:
            self._finish(self.round)
        if self.shoe_finished:
            self.new_shoe()
        previous = self.round
        if previous is not None:
            handling.end_of_round(previous)  # 3.12.8.2, in the round it happened in
        r = self._make_round(f"r{len(self.rounds) + 1}")
        self.rounds.append(r)
        r.open(role)
        # the Method chosen, and by Method C the device's holder keeping control (3.12.8)
        handling.carry_over(previous, r, self._method)
        return r

    def draw(self) -> None:
        """Deal the next card to the round in play: a card held over from the
        previous round first, then the next card of the shoe.

        At an HLGA table, when the cutting card comes out as the first card
        of the round, no card is dealt: the withdrawal option opens (3.22.1)
        and the next card is drawn once the Dealer closes it."""
        r = self.round
        if r is None:
            raise PhaseError("no round is in play")
        r.check_deal_card()
        r.deal.check_add()
        if self.cards.held:
            r.deal_card(self.cards.held[0], "held")
            return
        if self.cards.sorted is not None:
            raise ShoeError(
                "the cards of the dealing device were sorted into decks: none can be drawn",
                clause=self.cards.sorted,
                hint="the round is completed with the replacement and set-aside cards",
            )
        if self.cards.physical:
            raise ActionError(
                "this table's cards come from a physical shoe: none is drawn by the table",
                clause=self.game.decks.clause,
                hint="key the card in, or let the card-reading shoe send it",
            )
        if self.shoe is None or len(self.shoe) == 0:
            raise ShoeError(
                "the shoe has no cards left",
                clause=self.game.clause("insufficient_cards"),
                hint="void the round: there are insufficient cards",
            )
        if self.hlga and self.cards.cut_card_first(r):
            irregularities.offer_cut_card_withdrawal(r, hlga=True)
            return
        r.deal_card(self.shoe.peek(), "shoe")  # the log moves the shoe (ShoeState.track)

    def deal_to_completion(self) -> None:
        """Draw until the coup is complete or an Insurance window (or a
        withdrawal option) opens."""
        r = self.round
        while r is not None and r.can_deal_card():
            self.draw()
            if r.insurance_offers():
                return
