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
from collections import Counter
from collections.abc import Callable, Sequence

from punto.cards import Card, format_cards
from punto.errors import ActionError, PhaseError, PuntoError, ShoeError
from punto.game import Game
from punto.shoe import Shoe
from punto.store.eventlog import EventLog
from punto.table import handling, irregularities
from punto.table.events import (
    CardDealt,
    CardsHeld,
    CardsReconstructed,
    Event,
    IrregularityNoted,
    Method,
    MethodChosen,
    RoundOpened,
    RoundVoided,
    ShoeStarted,
    TableConfigured,
    WithdrawalOffered,
)
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Phase, Round
from punto.wagers import PairRule

#: Sources of cards that are the table's own: the others (``keyed``,
#: ``device``) are cards from a physical shoe the table does not run.
TABLE_SOURCES = frozenset(
    {"shoe", "reconstructed", "simultaneous", "held", "set_aside", "table", "replacement"}
)
#: Sources of cards dealt during an irregularity that came out of the device.
_DEVICE_SOURCES = frozenset({"reconstructed", "simultaneous"})


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


class DeviceCardsError(ShoeError):
    """Cards said to have come out of the table's dealing device that are not
    the next cards of its shoe: the dealer named cards that are not there."""


class LiveTable:
    """One table running one game and layout, round after round.

    The table's configuration is in its log: a restart with other limits (or
    decks, cut card, insurance notice, pair reading) logs the change, which
    applies from the next round; rounds already played keep the limits they
    were played under.

    ``hlga``: the table is in HLGA, where the Dealer allows players to
    withdraw their wagers when the cutting card comes out as the first card
    of a round (MBS 3.22.1; Dragon Tiger 3.17.1).
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
        hlga: bool = False,
        recover: bool = True,
    ) -> None:
        check_hlga(game, hlga)
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
        self.shoe: Shoe | None = None
        self.shoe_id = ""
        self.shoes = 0
        self.rounds: list[Round] = []
        self.under_minimum_settled: set[str] = set()
        #: what recovery did to an interrupted round ("continue", "withdrawal", "void"), if anything
        self.recovered: str | None = None
        self._logged_config: TableConfigured | None = None
        # What the log says of the shoe beyond its position, folded in _track:
        self._held: list[Card] = []  # held for the next round, not dealt yet
        self._external: set[str] = set()  # rounds dealt (partly) from a physical shoe
        self._sorted: str | None = None  # the clause under which the device was sorted
        self._due: str | None = None  # the clause that replaces the cards before a round
        self._cut_noted = False  # the cutting card reported out with no card past it
        self._this_round = 0  # cards out of this shoe in the round in play
        self._held_dealt: list[Card] = []  # held cards dealt in the round in play
        self._method: MethodChosen | None = None  # the last Method chosen (MBS 3.9.2)
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
            self.hlga,
        )

    def _log_config(self) -> None:
        config = self.configuration()
        if config != self._logged_config:
            self.log.append(self.table_id, "", config)
            self._logged_config = config

    # -- the log -----------------------------------------------------------------

    def _writer(self, r: Round) -> Callable[[Event], None]:
        def write(event: Event) -> None:
            self.log.append(self.table_id, r.round_id, event)
            self._track(r, event)  # only once it is durable

        return write

    def _attach(self, r: Round) -> None:
        r.on_event = self._writer(r)
        r.check_events = self._check_device

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
            if isinstance(event, MethodChosen) and not stored.round_id:
                self._method = event  # chosen between rounds; each round records it again
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
            self._track(current, event)
            current._apply(event)
            current.events.append(event)
        for r in self.rounds:
            self._attach(r)
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
        # Cards held for the next round belong to the old set of cards: with a
        # complete new set they would be an excess of cards (MBS 5.1; RWS 5.5.2).
        self._held.clear()
        self._sorted = self._due = None
        self._cut_noted = False
        self._this_round = 0

    def _make_round(
        self, round_id: str, *, persist: bool = True, limits: TableLimits | None = None
    ) -> Round:
        r = Round(
            self.game,
            limits=limits or self._limits,
            layout=self.layout,
            pair_rule=self.pair_rule,
            insurance_offered=self.insurance_offered,
            under_minimum_settled=self.under_minimum_settled,
            round_id=round_id,
        )
        if persist:
            self._attach(r)
        return r

    # -- cards out of the device -----------------------------------------------------------

    def _own(self, r: Round) -> bool:
        """Whether the round is dealt from this table's shoe (no card of it
        keyed in or read from a physical shoe)."""
        return r.round_id not in self._external

    def _device_cards(self, r: Round, event: Event) -> tuple[Card, ...]:
        """The cards ``event`` says came out of the table's dealing device, in
        order; ``r`` is the round before the event."""
        match event:
            case CardDealt(card=card, source="shoe"):
                return (card,)
            case CardDealt(card=card, source=source) if source in _DEVICE_SOURCES and self._own(r):
                return (card,)
            case CardsHeld(cards=cards) if self._own(r):
                return cards
            case CardsReconstructed(cards=cards) if self._own(r):
                # the cards drawn but never dealt as such (RWS 5.5.3, 5.8): the
                # reconstruction less the cards already on the table, in order
                left = Counter(r.deal.cards)
                drawn = []
                for card in cards:
                    if left[card]:
                        left[card] -= 1
                    else:
                        drawn.append(card)
                return tuple(drawn)
        return ()

    def _track(self, r: Round, event: Event) -> None:
        """Fold one round event into the shoe and the table's card state
        (live, after the event is written; and restoring from the log)."""
        game = self.game
        out = self._device_cards(r, event)
        if out and self.shoe is not None and self._sorted is None:
            for _ in out:
                self.shoe.draw()
            self._this_round += len(out)
        match event:
            case RoundOpened():
                self._this_round = 0
                self._held_dealt.clear()
            case CardsHeld(cards=cards):
                self._held.extend(cards)
            case CardDealt(card=card, source="held"):
                if self._held and self._held[0] == card:
                    self._held.pop(0)
                self._held_dealt.append(card)
            case CardDealt(source=source) if source not in TABLE_SOURCES:
                self._external.add(r.round_id)
            case IrregularityNoted(clause=clause) if clause == game.clause("left_with_cards"):
                # 5.11.2: the device and the discards are sorted into decks; the
                # shoe's order is gone and the cards are replaced (5.11.5)
                self._sorted, self._due = f"{clause}.2", f"{clause}.5"
            case IrregularityNoted(clause=clause) if clause == game.clause("cut_card"):
                self._cut_noted = True
            case WithdrawalOffered(clause=clause) if clause == game.clause("cut_card_first"):
                self._cut_noted = True
            case RoundVoided(clause=clause) if clause == game.clause("method_c_order"):
                self._due = clause  # 5.12.2: "void and the cards shall be replaced"
            case _:
                pass

    def _check_device(self, r: Round, events: Sequence[Event]) -> None:
        """Refuse events that name cards out of the device which are not the
        shoe's next cards, in order.  Cards drawn simultaneously are compared
        as a set: the device cannot tell their order, which is ascertained
        or decided (MBS 5.8, RWS 5.11)."""
        shoe = self.shoe
        if shoe is None or self._sorted is not None:
            return
        state = r.fork() if len(events) > 1 else r
        named: list[Card] = []
        for event in events:
            named.extend(self._device_cards(state, event))
            if state is not r:
                state._apply(event)
                state.events.append(event)
        if not named:
            return
        upcoming = shoe.order[shoe.position : shoe.position + len(named)]
        simultaneous = any(isinstance(e, CardDealt) and e.source == "simultaneous" for e in events)
        if tuple(named) == upcoming or (simultaneous and Counter(named) == Counter(upcoming)):
            return
        clause = next((c for e in events if isinstance(c := getattr(e, "clause", None), str)), None)
        if len(upcoming) < len(named):
            what = f"only {len(upcoming)} cards are left in shoe {self.shoe_id}"
        elif simultaneous:
            what = f"{format_cards(named)} are not the next cards out of shoe {self.shoe_id}"
        else:
            n = next(i for i, (a, b) in enumerate(zip(named, upcoming, strict=True)) if a != b)
            what = (
                f"{named[n]} is not the next card out of shoe {self.shoe_id} "
                f"(card {n + 1} of {format_cards(named)})"
            )
        raise DeviceCardsError(
            f"the cards named did not come out of the table's dealing device: {what}",
            clause=clause,
            hint="name the cards in the order they came out of the device; a card that is "
            f"not in the shoe is a foreign card ({self.game.clause('foreign_card')})",
        )

    @property
    def held(self) -> tuple[Card, ...]:
        """Cards held over from a previous round, dealt first in the next
        (RWS 5.8), in the order they came out of the device."""
        return tuple(self._held)

    def discards(self) -> tuple[Card, ...]:
        """The cards of this shoe out of the device before the round in play
        (held cards not dealt yet included; held cards dealt this round are
        in play), as MBS 5.11.2.1 counts them."""
        if self.shoe is None:
            return ()
        in_play = Counter(self._held_dealt)
        out = []
        for card in self.shoe.order[: self.shoe.position - self._this_round]:
            if in_play[card]:
                in_play[card] -= 1
            else:
                out.append(card)
        return tuple(out)

    # -- shoe and rounds ---------------------------------------------------------------

    def new_shoe(self) -> Shoe:
        """Shuffle a new shoe and log its order (with the published commitment)."""
        if self.round is not None and self.round.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError("finish the round in play before changing the shoe")
        return self._start_shoe("", Role.DEALER)

    def _start_shoe(self, clause: str, role: Role) -> Shoe:
        seed = None if self.seed is None else f"{self.seed}:{self.shoes + 1}"
        shoe = self.game.new_shoe(self.decks, seed=seed)
        shoe.cut_card = max(0, len(shoe) - self.cut_card_from_end)
        nonce, _ = shoe.reveal()
        event = ShoeStarted(
            f"s{self.shoes + 1}", shoe.order, shoe.cut_card, shoe.commitment, nonce, clause, role
        )
        self.log.append(self.table_id, "", event)
        self._load_shoe(event)
        assert self.shoe is not None
        return self.shoe

    def _replacements(self) -> dict[str, tuple[Role, bool]]:
        """The clauses under which this game replaces the cards mid-shoe:
        clause -> (the position that decides it, whether it may be done while
        a round is in play)."""
        game = self.game
        out: dict[str, tuple[Role, bool]] = {}
        if (clause := game.clause("replace_cards")) is not None:
            out[clause] = (Role.PIT_SUPERVISOR, True)  # RWS 5.11.2
        if (clause := game.clause("left_with_cards")) is not None:
            out[f"{clause}.5"] = (Role.DEALER, False)  # MBS 5.11.5
        for key in ("method_c_order", "cards_replaced"):  # MBS 5.12.2, 5.13
            if (clause := game.clause(key)) is not None:
                out[clause] = (Role.DEALER, False)
        return out

    def check_replace_shoe(self, role: Role, clause: str) -> None:
        """Why the cards cannot be replaced now under ``clause``, if they cannot."""
        allowed = self._replacements()
        if clause not in allowed:
            raise ActionError(
                f"the {self.game.title} rules do not replace the cards under {clause!r}",
                clause=clause,
                hint=(
                    f"the cards are replaced mid-shoe under {', '.join(allowed)}"
                    if allowed
                    else "the rules replace the cards mid-shoe under no clause"
                )
                + "; a shoe whose cutting card came out is changed by the next new round",
            )
        required, mid_round = allowed[clause]
        role.check_acts_as(required, "replace the cards", clause)
        game, r = self.game, self.round
        in_play = r is not None and r.phase not in (Phase.SETTLED, Phase.VOID)
        if in_play and not mid_round:
            raise PhaseError("the cards are replaced once the round in play is over", clause=clause)
        if clause == game.clause("replace_cards"):
            simultaneous = game.clause("simultaneous")
            if r is None or not any(n.clause == simultaneous for n in r.irregularities):
                raise PhaseError(
                    "the cards are replaced under this clause after cards were drawn "
                    f"simultaneously ({simultaneous}) in the round",
                    clause=clause,
                )
        elif clause == game.clause("cards_replaced"):
            if r is None or r.phase is not Phase.VOID:
                raise PhaseError(
                    "the cards may be replaced under this clause after a round is voided",
                    clause=clause,
                )
        elif clause != self._due:
            raise PhaseError(
                "no round of this shoe called for the cards to be replaced under this clause",
                clause=clause,
            )

    def can_replace_shoe(self, role: Role, clause: str) -> bool:
        try:
            self.check_replace_shoe(role, clause)
        except PuntoError:
            return False
        return True

    def replace_shoe(self, role: Role, clause: str) -> Shoe:
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
        return self._due

    @property
    def cut_card_out(self) -> bool:
        """The cutting card of the shoe in use has come out: a card behind it
        was drawn, or it was reported out (3.22, 3.22.1)."""
        return self.shoe is not None and (self.shoe.cut_card_reached or self._cut_noted)

    @property
    def shoe_finished(self) -> bool:
        """The cut card came out in the last round: the shoe ends (3.22)."""
        return self.shoe is None or self.cut_card_out

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
        self.log.append(self.table_id, "", event)
        self._method = event

    def new_round(self, role: Role = Role.DEALER) -> Round:
        """'Place your bets, please' on a new round (a new shoe first if needed)."""
        if self.round is not None and self.round.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {self.round.round_id} is still {self.round.phase.value}",
                hint="settle or void it first",
            )
        if self._method is not None and self._method.method is Method.C and not self.hlga:
            raise ActionError(
                "the table is conducted by Method C, which is permitted only within HLGA, "
                "and the table is no longer in HLGA",
                clause=self._method.clause,
                hint="the Pit Manager chooses Method A or B first (choose_method)",
            )
        if self._due is not None:
            raise PhaseError(
                "the cards are replaced before the next round of play commences",
                clause=self._due,
                hint=f"replace them first: replace_shoe(role, {self._due!r})",
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

    def _cut_card_first(self, r: Round) -> bool:
        """The round's first card would be drawn from behind the cutting card."""
        shoe = self.shoe
        return (
            shoe is not None
            and shoe.cut_card is not None
            and shoe.position == shoe.cut_card
            and not self._cut_noted
            and not r.deal.cards
        )

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
        if self._held:
            r.deal_card(self._held[0], "held")
            return
        if self._sorted is not None:
            raise ShoeError(
                "the cards of the dealing device were sorted into decks: none can be drawn",
                clause=self._sorted,
                hint="the round is completed with the replacement and set-aside cards",
            )
        if self.shoe is None or len(self.shoe) == 0:
            raise ShoeError(
                "the shoe has no cards left",
                clause=self.game.clause("insufficient_cards"),
                hint="void the round: there are insufficient cards",
            )
        if self.hlga and self._cut_card_first(r):
            irregularities.offer_cut_card_withdrawal(r, hlga=True)
            return
        r.deal_card(self.shoe.peek(), "shoe")  # the log moves the shoe (_track)

    def deal_to_completion(self) -> None:
        """Draw until the coup is complete or an Insurance window (or a
        withdrawal option) opens."""
        r = self.round
        while r is not None and r.can_deal_card():
            self.draw()
            if r.insurance_offers():
                return
