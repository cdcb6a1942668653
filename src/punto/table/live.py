"""A live table: its shoe, its rounds one after another, and its event log.

Every action goes to the log before it is acknowledged.  Starting a table
again on the same log restores the shoe and every round exactly; a round
that was being dealt when the process stopped is then handled as a power
failure (MBS 5.17, RWS 5.4), by the rules, from the cards already out.

>>> from decimal import Decimal
>>> from punto.games import get_game
>>> from punto.store import MemoryEventLog
>>> log = MemoryEventLog()
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

from punto.errors import PhaseError, PuntoError, ShoeError
from punto.game import Game
from punto.shoe import Shoe
from punto.store.eventlog import EventLog
from punto.table.events import CardDealt, Event, RoundOpened, ShoeStarted, TableConfigured
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Phase, Round
from punto.wagers import PairRule


class TableConfigError(PuntoError):
    """A table opened on a log written for another game or layout."""


class LiveTable:
    """One table running one game and layout, round after round.

    The table's configuration is in its log: a restart with other limits (or
    decks, cut card, insurance notice, pair reading) logs the change, which
    applies from the next round; rounds already played keep the limits they
    were played under.
    """

    def __init__(
        self,
        table_id: str,
        game: Game,
        *,
        limits: TableLimits,
        log: EventLog,
        layout: str | None = None,
        decks: int = 8,
        cut_card_from_end: int = 14,
        seed: int | str | None = None,
        pair_rule: PairRule | None = None,
        insurance_offered: bool = True,
        recover: bool = True,
    ) -> None:
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
        self.shoe: Shoe | None = None
        self.shoe_id = ""
        self.shoes = 0
        self.rounds: list[Round] = []
        self.under_minimum_settled: set[str] = set()
        #: what recovery did to an interrupted round ("continue", "withdrawal", "void"), if anything
        self.recovered: str | None = None
        self._logged_config: TableConfigured | None = None
        self._restore(recover)

    @property
    def round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def limits(self) -> TableLimits:
        """The limits new rounds open under."""
        return self._limits

    @limits.setter
    def limits(self, limits: TableLimits) -> None:
        """Change the limits from the next round on (the change is logged)."""
        self._limits = limits
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
        )

    def _log_config(self) -> None:
        config = self.configuration()
        if config != self._logged_config:
            self.log.append(self.table_id, "", config)
            self._logged_config = config

    # -- the log -----------------------------------------------------------------

    def _writer(self, round_id: str) -> Callable[[Event], None]:
        def write(event: Event) -> None:
            self.log.append(self.table_id, round_id, event)

        return write

    def _restore(self, recover: bool) -> None:
        current: Round | None = None
        in_force = self._limits
        for stored in self.log.read(self.table_id):
            event = stored.event
            if isinstance(event, TableConfigured):
                self._check_identity(event)
                self._logged_config = event
                in_force = TableLimits.from_json(json.loads(event.limits))
                continue
            if isinstance(event, ShoeStarted):
                self._load_shoe(event)
                continue
            if isinstance(event, RoundOpened):
                if current is not None:
                    self._finish(current)
                current = self._make_round(stored.round_id, persist=False, limits=in_force)
                self.rounds.append(current)
            if current is None:
                raise ShoeError(
                    f"event {event.type} of table {self.table_id} comes before any round"
                )
            current._apply(event)
            current.events.append(event)
            if isinstance(event, CardDealt) and event.source == "shoe" and self.shoe is not None:
                self.shoe.draw()
        for r in self.rounds:
            r.on_event = self._writer(r.round_id)
        self._log_config()
        if current is not None:
            self._finish(current)
            if recover and current.phase is Phase.DEALING:
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
        self.shoe = Shoe(event.cards, cut_card=event.cut_card, nonce=event.nonce)
        self.shoe_id = event.shoe_id
        self.shoes += 1

    def _make_round(
        self, round_id: str, *, persist: bool = True, limits: TableLimits | None = None
    ) -> Round:
        return Round(
            self.game,
            limits=limits or self._limits,
            layout=self.layout,
            pair_rule=self.pair_rule,
            insurance_offered=self.insurance_offered,
            under_minimum_settled=self.under_minimum_settled,
            on_event=self._writer(round_id) if persist else None,
            round_id=round_id,
        )

    # -- shoe and rounds ---------------------------------------------------------------

    def new_shoe(self) -> Shoe:
        """Shuffle a new shoe and log its order (with the published commitment)."""
        if self.round is not None and self.round.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError("finish the round in play before changing the shoe")
        seed = None if self.seed is None else f"{self.seed}:{self.shoes + 1}"
        shoe = self.game.new_shoe(self.decks, seed=seed)
        shoe.cut_card = max(0, len(shoe) - self.cut_card_from_end)
        nonce, _ = shoe.reveal()
        event = ShoeStarted(f"s{self.shoes + 1}", shoe.order, shoe.cut_card, shoe.commitment, nonce)
        self.log.append(self.table_id, "", event)
        self._load_shoe(event)
        assert self.shoe is not None
        return self.shoe

    @property
    def shoe_finished(self) -> bool:
        """The cut card came out in the last round: the shoe ends (3.22)."""
        return self.shoe is None or self.shoe.cut_card_reached

    def new_round(self, role: Role = Role.DEALER) -> Round:
        """'Place your bets, please' on a new round (a new shoe first if needed)."""
        if self.round is not None and self.round.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {self.round.round_id} is still {self.round.phase.value}",
                hint="settle or void it first",
            )
        if self.round is not None:
            self._finish(self.round)
        if self.shoe_finished:
            self.new_shoe()
        r = self._make_round(f"r{len(self.rounds) + 1}")
        self.rounds.append(r)
        r.open(role)
        return r

    def draw(self) -> None:
        """Deal the next card of the shoe to the round in play."""
        r = self.round
        if r is None:
            raise PhaseError("no round is in play")
        r.check_deal_card()
        r.deal.check_add()
        if self.shoe is None or len(self.shoe) == 0:
            raise ShoeError(
                "the shoe has no cards left",
                clause=self.game.clause("insufficient_cards"),
                hint="void the round: there are insufficient cards",
            )
        r.deal_card(self.shoe.peek(), "shoe")  # a refused card stays in the shoe
        self.shoe.draw()

    def deal_to_completion(self) -> None:
        """Draw until the coup is complete or an Insurance window opens."""
        r = self.round
        while r is not None and r.can_deal_card():
            self.draw()
            if r.insurance_offers():
                return
