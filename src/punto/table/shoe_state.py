"""The shoe a table deals from and every card out of it, folded from events.

One fold for :class:`~punto.table.live.LiveTable` and for a replay of a whole
shoe (:mod:`punto.table.replay`): both feed it the table's ``ShoeStarted``
events and every round event as it is written, and both ask it, before a
round event is written, whether the cards it names can have come out of the
shoe (:meth:`ShoeState.check`).

* A shoe whose order is known (a live table's own shoe, a recorded or seeded
  shoe in a replay): the cards named as out of the dealing device must be
  its next cards, in order.  A shoe of which only the decks are known (a
  replay of a table whose order was not recorded): no card may come out
  more often than the decks hold it.
* Cards the coup does not use are held (``CardsHeld``) and dealt first in
  the next round, as source ``held``: no card of the shoe is dealt while a
  held card waits (RWS 5.8; MBS 5.7, 5.8 as punto reads them).
* The cutting card comes out when the card behind it is drawn, or when the
  Dealer reports it (MBS 3.22, 3.22.1; Dragon Tiger 3.17, 3.17.1): the
  round is completed and the shoe ends after it.
* The cards are replaced mid-shoe only where the rules say so
  (:meth:`ShoeState.check_replace`): RWS 5.11.2, MBS 5.11.5, 5.12.2, 5.13.
* Cards keyed in or read by a card-reading shoe (sources ``keyed``,
  ``device``): at a *physical* shoe (only its decks known, the table's cards
  come from outside) each is checked against the composition still in the
  shoe and taken out of it, like any card of such a shoe; at a *sealed*
  table (its own shuffled shoe deals every card) none is taken (2.1: the
  game is played with the table's decks, and its shoe's published
  commitment must describe the cards dealt).  Elsewhere (a replay, a table
  not told either) they are not checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from punto.errors import ActionError, PhaseError, ShoeError
from punto.rules.cards import DECK, Card, format_cards
from punto.rules.game import Game
from punto.rules.shoe import Shoe
from punto.table.events import (
    CardDealt,
    CardsHeld,
    CardsReconstructed,
    Event,
    IrregularityNoted,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    ShoeStarted,
    WithdrawalOffered,
)
from punto.table.record import CLAIM_EVENTS, ShoeRecord, check_claim
from punto.table.roles import Role
from punto.table.round import Phase, Round

__all__ = [
    "OUTSIDE_SOURCES",
    "TABLE_SOURCES",
    "DeviceCardsError",
    "OutsideCardError",
    "ShoeState",
    "shoe_json",
    "shoe_started",
]

#: Sources of cards that are the table's own: the others (``keyed``,
#: ``device``) are cards from a physical shoe the table does not run.
TABLE_SOURCES = frozenset(
    {"shoe", "reconstructed", "simultaneous", "held", "set_aside", "table", "replacement"}
)
#: Sources of cards from a physical shoe: keyed in, or read by a card-reading shoe.
OUTSIDE_SOURCES = frozenset({"keyed", "device"})
#: Sources of cards that came out of a shoe in the order the table knows: its
#: own shoe's, and cards held over from the round before in the order they came out.
_KNOWN_ORDER = frozenset({"shoe", "held"})
#: Sources of cards dealt during an irregularity that came out of the device.
_DEVICE_SOURCES = frozenset({"reconstructed", "simultaneous"})


class DeviceCardsError(ShoeError):
    """Cards said to have come out of the table's dealing device that are not
    the next cards of its shoe (or that its decks do not hold): the dealer
    named cards that are not there."""


class OutsideCardError(ShoeError):
    """A card keyed in or read from outside at a table whose own shuffled
    shoe deals every card: nobody chooses a card there."""


class ShoeState:
    """The shoe in use, the cards out of it, the cards held for the next
    round, and what the rules require of the shoe before the next round."""

    def __init__(self, game: Game) -> None:
        self.game = game
        #: the shoe in use when its order is known (None: no shoe, or decks only)
        self.shoe: Shoe | None = None
        self.shoe_id = ""
        self.shoes = 0
        self.decks = 0
        #: the rounds settled out of the shoe in use, in the order they settled
        #: (each time: a round settled again is here again) -- its roads
        self.settled: list[Round] = []
        self._cut_card: int | None = None  # of a shoe whose order is not known
        self._shuffled = False  # the table shuffled the shoe in use (a commitment published)
        self._left: Counter[Card] | None = None  # cards the shoe can still give (None: unknown)
        self._short = False  # a round was voided for want of cards: the shoe is spent
        self._out: list[Card] = []  # cards out of the shoe in use, in order
        self._held: list[Card] = []  # held for the next round, not dealt yet
        self._held_clause: str | None = None  # the clause that held them
        self._external: set[str] = set()  # rounds dealt (partly) from a physical shoe
        self._sorted: str | None = None  # the clause under which the device was sorted
        self._due: str | None = None  # the clause that replaces the cards before a round
        self._cut_noted = False  # the cutting card reported out with no card past it
        self._this_round = 0  # cards out of this shoe in the round in play
        self._held_dealt: list[Card] = []  # held cards dealt in the round in play
        #: the table's own shuffled shoe deals every card: a keyed or device
        #: card is refused (set by the table; a replay leaves it off)
        self.sealed = False

    # -- folding ----------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """A shoe is in use (its order known or not)."""
        return self.shoes > 0

    def load(self, event: ShoeStarted) -> None:
        """A new shoe (or the cards replaced): nothing of the old one is left."""
        if event.cards:
            self.shoe = Shoe(event.cards, cut_card=event.cut_card, nonce=event.nonce)
            self._left = Counter(event.cards)
            self.decks = len(event.cards) // len(DECK)
        else:
            self.shoe = None
            self._left = Counter(DECK * event.decks) if event.decks else None
            self.decks = event.decks
        self._cut_card = event.cut_card
        self._shuffled = bool(event.cards) and bool(event.commitment)
        self._short = False
        self.shoe_id = event.shoe_id
        self.shoes += 1
        self._out = []
        self.settled = []
        # Cards held for the next round belong to the old set of cards: with a
        # complete new set they would be an excess of cards (MBS 5.1; RWS 5.5.2).
        self._held.clear()
        self._sorted = self._due = None
        self._cut_noted = False
        self._this_round = 0

    @property
    def physical(self) -> bool:
        """The shoe in use is a physical one: its decks are known, its order
        is not, and its cards are keyed in or read by a device."""
        return self.started and self.shoe is None and self._left is not None

    def composition(self) -> dict[Card, int] | None:
        """The cards still in the shoe in use, by card (None: not known), in
        deck order -- the audit of a physical shoe."""
        if self._left is None:
            return None
        return {card: self._left[card] for card in dict.fromkeys(DECK)}

    def own(self, r: Round) -> bool:
        """Whether the round is dealt from this table's shoe (no card of it
        keyed in or read from a physical shoe)."""
        return r.round_id not in self._external

    def device_cards(self, r: Round, event: Event) -> tuple[Card, ...]:
        """The cards ``event`` says came out of the table's dealing device, in
        order; ``r`` is the round before the event."""
        match event:
            case CardDealt(card=card, source="shoe"):
                return (card,)
            case CardDealt(card=card, source=source) if source in OUTSIDE_SOURCES and self.physical:
                return (card,)  # a physical shoe's card: out of its composition
            case CardDealt(card=card, source=source) if source in _DEVICE_SOURCES and self.own(r):
                return (card,)
            case CardsHeld(cards=cards) if self.own(r):
                return cards
            case CardsReconstructed(cards=cards) if self.own(r):
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

    def track(self, r: Round, event: Event) -> None:
        """Fold one round event (``r`` is the round before it) into the shoe
        and the table's card state: once it is written, and on restoring."""
        game = self.game
        out = self.device_cards(r, event)
        if out and self.started and self._sorted is None:
            for card in out:
                if self.shoe is not None:
                    self.shoe.draw()
                if self._left is not None:
                    self._left[card] -= 1
                self._out.append(card)
            self._this_round += len(out)
        match event:
            case RoundOpened():
                self._this_round = 0
                self._held_dealt.clear()
            case RoundSettled():
                self.settled.append(r)
            case CardsHeld(cards=cards, clause=clause):
                self._held.extend(cards)
                self._held_clause = clause
            case CardDealt(card=card, source="held"):
                if self._held and self._held[0] == card:
                    self._held.pop(0)
                self._held_dealt.append(card)
            case CardDealt(source=source) if source not in TABLE_SOURCES and not self.physical:
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
            case RoundVoided(clause=clause) if clause == game.clause("insufficient_cards"):
                self._short = True
            case _:
                pass

    # -- checking ---------------------------------------------------------------------------

    def check(self, r: Round, events: Sequence[Event]) -> None:
        """Refuse ``events`` (about to be written to ``r``, in order) that deal
        a card of the shoe while held cards wait, deal held cards out of
        order, name cards out of the device that are not the shoe's next
        (or that its decks no longer hold), or report a cutting card the
        shoe has not reached."""
        self._check_outside(events)
        self._check_held(events)
        self._check_cut_card(r, events)
        if not self.started or self._sorted is not None:
            return
        state = r.fork() if len(events) > 1 else r
        named: list[Card] = []
        for event in events:
            # each claim against the record as it stands at that event (a bet
            # or a card claims nothing: the record is not read for them)
            if isinstance(event, CLAIM_EVENTS):
                check_claim(self.game, self.record(state), event, state.deal)
            named.extend(self.device_cards(state, event))
            if state is not r:
                state._apply(event)
                state.events.append(event)
        if not named:
            return
        clause = next((c for e in events if isinstance(c := getattr(e, "clause", None), str)), None)
        if self.shoe is None:
            if self._left is not None:
                self._check_composition(named, self._left, clause)
            return
        shoe = self.shoe
        upcoming = shoe.order[shoe.position : shoe.position + len(named)]
        simultaneous = any(isinstance(e, CardDealt) and e.source == "simultaneous" for e in events)
        # Cards drawn together from a physical device may have come out in an
        # order nobody saw; from the table's own sealed shoe they came out in
        # the shoe's order, which is the record (punto.table.record).
        loose = simultaneous and not self.sealed
        if tuple(named) == upcoming or (loose and Counter(named) == Counter(upcoming)):
            return
        if len(upcoming) < len(named):
            what = f"only {len(upcoming)} cards are left in shoe {self.shoe_id}"
        elif loose:
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

    def _check_composition(
        self, named: Sequence[Card], left: Counter[Card], clause: str | None
    ) -> None:
        """A shoe of known decks, unknown order: no card comes out more often
        than the decks hold it."""
        for card, n in Counter(named).items():
            if n > left[card]:
                held = DECK.count(card) * self.decks
                raise DeviceCardsError(
                    f"{card} cannot come out of shoe {self.shoe_id}: its {self.decks} decks "
                    f"hold {held} and {held - left[card]} are already out",
                    clause=clause or self.game.decks.clause,
                    hint="check the cards named; a card the shoe cannot hold is a foreign "
                    f"card ({self.game.clause('foreign_card')}) or an excess of cards",
                )

    def _check_outside(self, events: Sequence[Event]) -> None:
        """At a sealed table every card comes out of its own shuffled shoe, in
        order: a card keyed in or read from outside is refused (2.1)."""
        if not self.sealed:
            return
        for event in events:
            if isinstance(event, CardDealt) and event.source in OUTSIDE_SOURCES:
                where = f"shoe {self.shoe_id}" if self.started else "its shuffled shoe"
                raise OutsideCardError(
                    f"{event.card} cannot be {event.source} in: this table's cards come out "
                    f"of {where}, in order, and no card is chosen",
                    clause=self.game.decks.clause,
                    hint="draw the next card from the shoe; a table dealt from a physical "
                    "shoe is set up with the card source device",
                )

    def _check_held(self, events: Sequence[Event]) -> None:
        waiting = list(self._held)
        clause = self._held_clause
        for event in events:
            if isinstance(event, CardsHeld):
                waiting.extend(event.cards)
                clause = event.clause
            if not isinstance(event, CardDealt):
                continue
            if event.source == "held":
                if not waiting or waiting[0] != event.card:
                    raise ShoeError(
                        f"{event.card} is not the next card held from the previous round"
                        + (f": {waiting[0]} is" if waiting else ": no card is held"),
                        clause=clause,
                        hint="deal the held cards first, in the order they came out"
                        if waiting
                        else "deal it from the shoe",
                    )
                waiting.pop(0)
            elif waiting and (
                event.source == "shoe" or (event.source in OUTSIDE_SOURCES and self.physical)
            ):  # a physical shoe's keyed or read card is a card of the shoe too
                raise ShoeError(
                    f"cards held from the previous round are dealt first: "
                    f"{format_cards(waiting)} before any card of the shoe",
                    clause=clause,
                    hint=f'deal {waiting[0]} with source "held"',
                )

    def _check_cut_card(self, r: Round, events: Sequence[Event]) -> None:
        """A cutting card reported where the shoe shows none: it comes out
        when the card behind it is drawn (3.22), and it is the round's first
        card when exactly the cards in front of it are out (3.22.1)."""
        game = self.game
        cut, first = game.clause("cut_card"), game.clause("cut_card_first")
        depth = self.cut_card
        if depth is None or not self.own(r) or self._sorted is not None:
            return
        for event in events:
            if isinstance(event, IrregularityNoted) and event.clause == cut:
                # the Dealer removes it before the card behind it is drawn, or after
                if self.position < depth:
                    raise PhaseError(
                        f"the cutting card of shoe {self.shoe_id} is {depth} cards deep "
                        f"and only {self.position} cards are out",
                        clause=cut,
                        hint="it is reported when it comes out of the shoe",
                    )
            elif (
                isinstance(event, WithdrawalOffered)
                and event.clause == first
                and self.position != depth
            ):
                raise PhaseError(
                    f"the cutting card of shoe {self.shoe_id} is not the next card: it is "
                    f"{depth} cards deep and {self.position} cards are out",
                    clause=first,
                    hint="the option is given when the cutting card comes out first",
                )

    def check_claim(self, r: Round, event: Event) -> None:
        """Refuse ``event``, about to be made in ``r``, if this shoe's record
        contradicts the claim it makes (:func:`punto.table.record.check_claim`)."""
        if isinstance(event, CLAIM_EVENTS) and self.started and self._sorted is None:
            check_claim(self.game, self.record(r), event, r.deal)

    def record(self, r: Round) -> ShoeRecord:
        """What the table knows of round ``r``'s cards and the shoe in use
        (:mod:`punto.table.record`): whether it shuffled that shoe itself,
        where the round's cards stand in it, their order where the table
        knows it (its own shoe, or a card-reading shoe's reading), the cards
        left where the shoe's order is known."""
        sources = [e.source for e in r.events if isinstance(e, CardDealt)]
        reordered = any(isinstance(e, CardsReconstructed) for e in r.events)
        known = _KNOWN_ORDER | ({"device"} if self.physical else set())
        in_order = self.own(r) and not reordered and all(s in known for s in sources)
        return ShoeRecord(
            r.round_id,
            self.shoe_id,
            shuffled_by_table=self._shuffled,
            own=self.own(r),
            first=self.position - self._this_round + 1 if self._this_round else 0,
            last=self.position if self._this_round else 0,
            order=tuple(r.deal.cards)
            if in_order and (self.shoe is not None or self.physical)
            else None,
            left=len(self.shoe) + len(self._held) if self.shoe is not None else None,
            sealed=self.sealed,
        )

    @property
    def cut_card(self) -> int | None:
        """Cards in front of the cutting card of the shoe in use (None: no
        cutting card known); the shoe's own, where its order is known."""
        return self.shoe.cut_card if self.shoe is not None else self._cut_card

    @property
    def position(self) -> int:
        """Cards out of the shoe in use."""
        return len(self._out)

    # -- what the table asks ----------------------------------------------------------------

    @property
    def held(self) -> tuple[Card, ...]:
        """Cards held over from a previous round, dealt first in the next
        (RWS 5.8), in the order they came out of the device."""
        return tuple(self._held)

    def discards(self) -> tuple[Card, ...]:
        """The cards of this shoe out of the device before the round in play
        (held cards not dealt yet included; held cards dealt this round are
        in play), as MBS 5.11.2.1 counts them."""
        in_play = Counter(self._held_dealt)
        out = []
        for card in self._out[: len(self._out) - self._this_round]:
            if in_play[card]:
                in_play[card] -= 1
            else:
                out.append(card)
        return tuple(out)

    @property
    def sorted(self) -> str | None:
        """The clause under which the device's cards were sorted into decks
        (MBS 5.11.2): none can be drawn until the cards are replaced."""
        return self._sorted

    @property
    def replacement_due(self) -> str | None:
        """The clause under which the cards must be replaced before the next
        round commences (MBS 5.11.5, 5.12.2), if any."""
        return self._due

    @property
    def cut_card_out(self) -> bool:
        """The cutting card of the shoe in use has come out: a card behind it
        was drawn, or it was reported out (3.22, 3.22.1)."""
        return self._cut_noted or (self.cut_card is not None and self.position > self.cut_card)

    @property
    def ended(self) -> bool:
        """The shoe in use is over: its cutting card came out, or a round was
        voided for want of cards (MBS 5.3; RWS 5.5.4)."""
        return self.cut_card_out or self._short

    def cut_card_first(self, r: Round) -> bool:
        """The round's first card would be drawn from behind the cutting card."""
        return (
            self.cut_card is not None
            and self.position == self.cut_card
            and not self._cut_noted
            and not r.deal.cards
        )

    def check_new_round(self) -> None:
        """Why no round may begin on this shoe, if none may: the cards are to
        be replaced first (MBS 5.11.5, 5.12.2), or its cutting card came out
        (3.22: the shoe ends after the round it came out in)."""
        if self._due is not None:
            raise PhaseError(
                "the cards are replaced before the next round of play commences",
                clause=self._due,
                hint=f"replace them first under {self._due}",
            )
        if self.ended:
            raise PhaseError(
                f"shoe {self.shoe_id or '(not declared)'} has ended: "
                + (
                    "the cutting card came out, and the shoe ends with that round"
                    if self.cut_card_out
                    else "a round was voided for want of cards"
                ),
                clause=self.game.clause("cut_card"),
                hint="begin a new shoe",
            )

    def check_new_shoe(self, r: Round | None) -> None:
        """Why a new shoe cannot begin now (``r``: the last round), if it
        cannot: a round is in play (3.22: it is completed first), or the
        shoe in use has not ended -- mid-shoe the cards are replaced only
        under a clause that allows it (:meth:`check_replace`)."""
        cut = self.game.clause("cut_card")
        if r is not None and r.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {r.round_id} is still in play ({r.phase.value}): it is completed "
                "before the shoe changes",
                clause=cut,
                hint="settle or void it first",
            )
        if self.started and not self.ended:
            allowed = ", ".join(self.replacements()) or "no clause"
            raise PhaseError(
                f"shoe {self.shoe_id} is still in use: its cutting card has not come out",
                clause=cut,
                hint=f"the cards are replaced mid-shoe only under {allowed}: replace_shoe",
            )

    def replacements(self) -> dict[str, tuple[Role, bool]]:
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

    def check_replace(self, role: Role, clause: str, r: Round | None) -> None:
        """Why the cards cannot be replaced now under ``clause`` (``r``: the
        last round), if they cannot."""
        allowed = self.replacements()
        if clause not in allowed:
            raise ActionError(
                f"the {self.game.title} rules do not replace the cards under {clause!r}",
                clause=clause,
                hint=(
                    f"the cards are replaced mid-shoe under {', '.join(allowed)}"
                    if allowed
                    else "the rules replace the cards mid-shoe under no clause"
                )
                + "; a shoe whose cutting card came out is followed by a new shoe",
            )
        required, mid_round = allowed[clause]
        role.check_acts_as(required, "replace the cards", clause)
        game = self.game
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


def shoe_started(
    game: Game,
    shoe_id: str,
    *,
    decks: int | None = None,
    cards: Sequence[Card] | None = None,
    seed: str | None = None,
    cut_card: int | None = None,
    clause: str = "",
    role: Role = Role.DEALER,
) -> ShoeStarted:
    """The ``ShoeStarted`` of a shoe declared in a replay: its order recorded
    (``cards``: complete decks, as many as the game allows, 2.1; RWS 2.2.1),
    shuffled from a ``seed`` (as a live table shuffles with one), or only its
    ``decks`` known.  ``cut_card``: the cards in front of the cutting card."""
    if cards is not None and seed is not None:
        raise ShoeError(
            "a shoe's order is recorded (cards) or shuffled from a seed, not both",
            hint="give cards or seed",
        )
    if cards is not None:
        whole, rest = divmod(len(cards), len(DECK))
        if rest or Counter(cards) != Counter(DECK * whole):
            raise ShoeError(
                f"the {len(cards)} cards given are not complete decks",
                clause=game.decks.clause,
                hint="give every card of the shoe, in dealing order",
            )
        if decks is not None and decks != whole:
            raise ShoeError(f"the cards given are {whole} decks, not {decks}", hint="give one")
        decks = whole
    if decks is None:
        raise ShoeError(
            "how many decks does the shoe hold?", hint="give decks (and cards or seed if known)"
        )
    game.decks.check(decks)
    size = len(DECK) * decks
    if cut_card is not None and not 0 <= cut_card <= size:
        raise ShoeError(
            f"the cutting card cannot go {cut_card} cards deep in a shoe of {size} cards",
            hint=f"cut_card: the cards in front of it, 0 to {size}",
        )
    if cards is not None:
        return ShoeStarted(shoe_id, tuple(cards), cut_card, "", "", clause, role)
    if seed is not None:
        shoe = game.new_shoe(decks, seed=seed, cut_card=cut_card)
        nonce, _ = shoe.reveal()
        return ShoeStarted(shoe_id, shoe.order, cut_card, shoe.commitment, nonce, clause, role)
    return ShoeStarted(shoe_id, (), cut_card, "", "", clause, role, decks)


def shoe_json(event: ShoeStarted, round_ids: Sequence[str], state: ShoeState) -> dict[str, Any]:
    """A shoe as a replay reports it: its decks, whether its order was
    known, its cutting card, the clause it replaced the cards under, the
    rounds dealt from it; for the shoe in use (``state``'s), the cards out
    of it, the cards held and whether it has ended."""
    decks = len(event.cards) // len(DECK) if event.cards else event.decks
    out: dict[str, Any] = {
        "shoe": event.shoe_id,
        "decks": decks or None,
        "order": "known" if event.cards else "unknown",
        "cut_card": event.cut_card,
        "clause": event.clause or None,
        "rounds": list(round_ids),
    }
    if event.shoe_id == state.shoe_id:
        out["cards_out"] = state.position
        out["held"] = [str(c) for c in state.held]
        out["ended"] = state.ended
    return out
