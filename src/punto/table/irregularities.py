"""Irregularities: the procedures of sections 5 and 6 of each rules file,
played on a :class:`~punto.table.round.Round` through its public actions.

Each procedure is one function.  It checks that the person acting holds the
position the clause names (or a higher one, MBS 6.2; RWS 1.17), finds the
clause in the game's data, and carries out the consequence as round
actions, each of which appends one event: a void (``RoundVoided``), a
withdrawal option (``WithdrawalOffered`` / ``PlayerWithdrew`` /
``WithdrawalClosed``), a reconstruction (``CardsReconstructed``), cards dealt
(``CardDealt``), cards out of the device that the coup does not use, held
for the next round (``CardsHeld``), a record of what was done
(``IrregularityNoted``).
"Outcome established" is always computed from the cards
(:meth:`Round.outcome_established`), never given by hand.

A procedure is atomic: it is first tried on a copy of the round
(:meth:`Round.fork`), so one that is refused leaves no event behind.  Where
players have an option (withdraw, or have their bet returned) their choices
are collected while the game is paused and passed as ``withdrawing``; the
option is opened, taken by each of them, and closed, all in the log.

Where a rules file has no procedure for an irregularity,
:class:`NotCoveredError` says so; the Gaming Shift Manager then decides it
with :func:`unforeseen` (MBS 6.1; RWS 5.19).

>>> from decimal import Decimal
>>> from punto.cards import parse_cards
>>> from punto.games import get_game
>>> from punto.table.limits import TableLimits
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)))
>>> r.open(); r.place_bet("ann", 1, "banker", Decimal(100)); r.close_betting()
'b1'
>>> r.deal_card(parse_cards("9H")[0])
>>> foreign_card(r)
Ruling(clause='5.1', consequence='void')
>>> [(s.bet.player, s.outcome, s.net) for s in r.results()]
[('ann', 'void', Decimal('0'))]
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Concatenate, ParamSpec, TypeVar

from punto.cards import Card, format_cards
from punto.coup import Deal, Side, cards_needed
from punto.errors import ActionError, DealError, InsuranceError, PhaseError
from punto.insurance import INSURANCE_EVENTS, Moment, completions, insurance_event
from punto.table import handling
from punto.table.events import WithdrawalOffered
from punto.table.facts import check_table_fact
from punto.table.roles import Role
from punto.table.round import IN_PLAY, Phase, Round

__all__ = [
    "NotCoveredError",
    "Ruling",
    "absent_player",
    "card_exposed_in_error",
    "card_face_up_in_device",
    "cards_in_wrong_order",
    "cards_to_wrong_player",
    "cut_card",
    "cut_card_first",
    "dealing_error_options",
    "device_reset",
    "excess_cards",
    "extra_or_missing_cards",
    "foreign_card",
    "forgotten_insurance",
    "incorrect_number_of_cards",
    "insufficient_cards",
    "left_with_cards",
    "missing_cards",
    "order_altered",
    "power_failure",
    "simultaneous_draw",
    "squeeze_waiver",
    "unforeseen",
    "unshuffled_cards",
]


class NotCoveredError(ActionError):
    """The rules of this game have no procedure for the irregularity: it is
    referred to the Gaming Shift Manager (MBS 6.1; RWS 5.19)."""


@dataclass(frozen=True)
class Ruling:
    """What a procedure did, under which clause."""

    clause: str
    #: void / continue / withdrawal / options / reopened / offered / returned / stand
    consequence: str
    #: players who took a withdrawal option (all their wagers returned)
    withdrawn: tuple[str, ...] = field(default=(), repr=False)
    #: bets returned one by one (RWS 5.14.2)
    returned: tuple[str, ...] = field(default=(), repr=False)
    #: cards out of the device that this coup does not use: they go to the next
    #: round (recorded as ``CardsHeld``; a live table deals them first)
    next_round: tuple[Card, ...] = field(default=(), repr=False)
    #: cards determined missing and replaced (MBS 5.11)
    missing: tuple[Card, ...] = field(default=(), repr=False)
    #: set-aside cards the coup did not need (MBS 5.11.4); not held for the next
    #: round: every card is replaced before it commences (5.11.5)
    unused: tuple[Card, ...] = field(default=(), repr=False)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _atomic(
    procedure: Callable[Concatenate[Round, _P], _R],
) -> Callable[Concatenate[Round, _P], _R]:
    """Run ``procedure`` on a copy of the round first: if any step is refused
    nothing is written; otherwise run it on the round itself."""

    @functools.wraps(procedure)
    def run(round_: Round, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if "withdrawing" in kwargs:  # an iterator would be spent by the trial run
            kwargs["withdrawing"] = tuple(kwargs["withdrawing"])  # type: ignore[arg-type]
        copy = round_.fork()
        trial = procedure(copy, *args, **kwargs)
        # The table checks the procedure's events as a whole (the cards it
        # says came out of the device, in order) before any is written.
        round_.vet(copy.events[len(round_.events) :])
        wanted: tuple[str, ...] = tuple(kwargs.get("withdrawing") or ())  # type: ignore[arg-type]
        if wanted and isinstance(trial, Ruling):
            refused = [p for p in wanted if p not in trial.withdrawn]
            if refused:
                # The procedure's clause refuses when it is one (RWS 5.8.1: no
                # option with an outcome established); where the rules have none
                # ("not covered"), the game's "no withdrawal after No more bets"
                # does (No Commission and Tournament 5.7).
                covered = trial.clause[:1].isdigit()
                raise ActionError(
                    f"{', '.join(refused)} cannot withdraw: "
                    f"{f'{trial.clause} gives' if covered else 'the rules give'} no "
                    f"withdrawal option here ({trial.consequence})",
                    clause=trial.clause
                    if covered
                    else round_.game.clause("late_withdrawal") or trial.clause,
                    hint="after 'No more bets' wagers win or lose on the outcome",
                )
        with round_.checked():
            return procedure(round_, *args, **kwargs)

    return run


def _clause(round_: Round, key: str, what: str, *, literal: str | None = None) -> str:
    """The clause of this game for ``key``, or :class:`NotCoveredError`."""
    game = round_.game
    clause = game.clause(key) or (game.clause(literal) if literal else None)
    if clause is None:
        raise NotCoveredError(
            f"the {game.title} rules have no procedure for {what}",
            clause=game.clause("unforeseen"),
            hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
        )
    return clause


def _by_method_c(round_: Round, said: bool, key: str) -> bool:
    """Whether the Method C procedure (MBS 5.12) applies to ``round_``: by
    the Method the round is conducted by, never by the caller's word alone
    (``said``: the caller reports a Method C irregularity)."""
    method = handling.method_of(round_)
    if method is None:
        return said  # rules without Methods: _clause says 5.12 is not covered
    if said and method is not handling.Method.C:
        raise ActionError(
            f"this round is conducted by Method {method.value}: the Method C procedure "
            "applies only when operating the game by Method C",
            clause=_clause(round_, key, "Method C dealing"),
            hint="report it without the Method C flag (the Method A/B procedure applies)",
        )
    return method is handling.Method.C


def _unforeseen_clause(round_: Round) -> str:
    return round_.game.clause("unforeseen") or "not covered by the rules"


def _check_role(role: Role, required: Role, action: str, clause: str) -> None:
    role.check_acts_as(required, action, clause)


def _stands_clause(round_: Round, clause: str) -> str:
    """Where the rules say previous rounds stand."""
    return round_.game.clause("previous_rounds_stand") or clause


def _check_in_play(round_: Round, clause: str) -> None:
    if round_.phase is Phase.NEW:
        raise PhaseError("the round has not opened yet", clause=clause)
    if round_.phase not in IN_PLAY:
        raise PhaseError(
            f"the round is {round_.phase.value}: previous rounds stand",
            clause=_stands_clause(round_, clause),
        )


def _check_dealing(round_: Round, clause: str) -> None:
    _check_in_play(round_, clause)
    if round_.phase is Phase.BETTING:
        raise PhaseError("no card is out yet: bets are still open", clause=clause)


def _options(
    round_: Round, clause: str, reason: str, withdrawing: Iterable[str], role: Role
) -> tuple[str, ...]:
    """Give every player the option to withdraw all their wagers; the
    players in ``withdrawing`` take it; then the option closes."""
    round_.offer_withdrawal(clause, reason, role)
    taken = tuple(dict.fromkeys(withdrawing))
    for player in taken:
        round_.withdraw_player(player)
    round_.close_withdrawal(role)
    return taken


def _deal(round_: Round, cards: Sequence[Card], source: str) -> tuple[Card, ...]:
    """Deal ``cards`` where the Table of Play gives them, as far as the coup
    needs them; returns the cards it did not need."""
    taken = 0
    for card in cards:
        if round_.phase is not Phase.DEALING:
            break
        round_.deal_card(card, source)
        taken += 1
    return tuple(cards[taken:])


def _hold(round_: Round, cards: tuple[Card, ...], clause: str, role: Role) -> tuple[Card, ...]:
    """Hold ``cards`` (out of the device, not used by this coup) for the next
    round; returns them.  RWS 5.8 says so; MBS is silent and punto reads it
    the same way (docs/interpretations.md)."""
    if cards:
        round_.hold_for_next_round(cards, round_.game.clause("excess_cards") or clause, role)
    return cards


def _established_options(
    round_: Round, clause: str, reason: str, withdrawing: Iterable[str], role: Role
) -> tuple[str, ...] | None:
    """RWS 5.13 options, "provided no outcome has been established"; None
    when an outcome is established and no option is given."""
    if round_.outcome_established():
        return None
    return _options(round_, _options_clause(round_), f"{clause}: {reason}", withdrawing, role)


def _ruling_with_options(
    clause: str, taken: tuple[str, ...] | None, next_round: tuple[Card, ...] = ()
) -> Ruling:
    if taken is None:
        return Ruling(clause, "continue", next_round=next_round)
    return Ruling(clause, "options", withdrawn=taken, next_round=next_round)


def _options_clause(round_: Round) -> str:
    return _clause(round_, "dealing_error_options", "dealing-error options")


def _is_rws(round_: Round) -> bool:
    """Rules with the dealing-error options of RWS 5.13."""
    return round_.game.clause("dealing_error_options") is not None


# -- the round is void --------------------------------------------------------------


def _void(round_: Round, clause: str, reason: str, role: Role, *, settled: bool = False) -> Ruling:
    if not (settled and round_.phase is Phase.SETTLED):
        _check_in_play(round_, clause)
    round_.void_round(reason, clause, role, settled=settled)
    return Ruling(clause, "void")


@_atomic
def foreign_card(round_: Round, card: Card | None = None, *, role: Role = Role.DEALER) -> Ruling:
    """A card that does not belong to the decks in use is found: the round is
    void, every bet returned, previous rounds stand (MBS 5.1; RWS 5.5.1, 5.17)."""
    clause = _clause(round_, "foreign_card", "a foreign card")
    found = f" ({card})" if card is not None else ""
    return _void(round_, clause, f"a card that does not belong to the decks in use{found}", role)


@_atomic
def extra_or_missing_cards(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """Extra or missing cards in the decks: void (MBS 5.1 of Tiger Baccarat,
    Tiger No Commission, Dragon Tiger; RWS 5.5.2).  Baccarat Tournament 5.1
    speaks of foreign cards only."""
    clause = _clause(
        round_, "shortage_or_excess", "extra or missing cards", literal="extra_or_missing"
    )
    return _void(round_, clause, "extra or missing cards in the decks in use", role)


@_atomic
def unshuffled_cards(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """Unshuffled cards are used: void (MBS 5.1 of Tiger Baccarat and Dragon
    Tiger; RWS 5.5.5)."""
    clause = _clause(round_, "unshuffled", "unshuffled cards")
    return _void(round_, clause, "the cards were not shuffled", role)


@_atomic
def order_altered(
    round_: Round, *, reconstructable: bool, method_c: bool = False, role: Role = Role.DEALER
) -> Ruling:
    """The order of the cards in the dealing device is altered.  If it cannot
    be reconstructed the round is void, whether or not cards were exposed
    (MBS 5.2; 5.4 of No Commission and Tournament; by Method C, 5.12.2, and
    the cards are replaced); if it can, it is, and play continues.  Whether
    the round is dealt by Method C is the round's own Method
    (:func:`punto.table.handling.method_of`); ``method_c`` only confirms it."""
    method_c = _by_method_c(round_, method_c, "method_c_order")
    if method_c:
        clause = _clause(round_, "method_c_order", "Method C dealing")
    else:
        clause = _clause(round_, "order_altered", "an altered order of cards")
    if reconstructable:
        _check_in_play(round_, clause)
        round_.note_irregularity(clause, "order of the cards restored; play continues", role)
        return Ruling(clause, "continue")
    reason = "order of the cards in the dealing device altered and not reconstructable"
    if method_c:
        reason += "; the cards are replaced"
    return _void(round_, clause, reason, role)


@_atomic
def insufficient_cards(round_: Round, *, remaining: int, role: Role = Role.DEALER) -> Ruling:
    """Too few cards left in the device to complete the round: void
    (MBS 5.3; 5.5 of No Commission and Tournament; RWS 5.5.4).  ``remaining``
    is what the device holds; the void stands only if the coup needs more."""
    clause = _clause(round_, "insufficient_cards", "insufficient cards")
    _check_in_play(round_, clause)
    if remaining < 0:
        raise ActionError(
            f"a device cannot hold {remaining} cards",
            clause=clause,
            hint="give the number of cards left in the device: 0 or more",
        )
    dealt = round_.deal.cards
    needed = 0 if round_.deal.is_complete else cards_needed(dealt) - len(dealt)
    if remaining >= needed:
        raise ActionError(
            f"the device holds {remaining} cards and the coup needs {needed} more now",
            clause=clause,
            hint="deal on; the round is void only when the cards run out",
        )
    return _void(round_, clause, f"insufficient cards: {remaining} left, {needed} needed", role)


@_atomic
def incorrect_number_of_cards(
    round_: Round,
    cards: Sequence[Card],
    *,
    reconstructable: bool,
    next_round_commenced: bool = False,
    withdrawing: Iterable[str] = (),
    role: Role = Role.DEALER,
) -> Ruling:
    """A hand was dealt an incorrect number of cards.  ``cards``: every card
    out of the device this round, in the order drawn.

    Not reconstructable, and noticed before the next round commenced: void,
    even after settlement (5.2 of No Commission and Tournament; RWS 5.5.3).
    Reconstructable: the cards go where the Table of Play says, those the
    coup does not use go to the next round (RWS 5.8, with the options of
    5.13 if no outcome is established).  Tiger Baccarat and Dragon Tiger
    have no such clause: a reconstructable deal is put right under 5.7, the
    rest is for the Gaming Shift Manager.
    """
    game = round_.game
    key = "incorrect_number" if game.clause("incorrect_number") else "wrong_order"
    clause = _clause(round_, key, "an incorrect number of cards")
    if next_round_commenced:
        # The clause itself sets the proviso ("provided this is noticed before
        # the commencement of play of the next game"): it is what refuses.
        raise PhaseError(
            "the next round has commenced: the outcome of this round stands",
            clause=clause,
            hint=f"previous rounds stand ({_stands_clause(round_, clause)})",
        )
    if round_.phase is not Phase.SETTLED or reconstructable:
        _check_dealing(round_, clause)
    if not reconstructable:
        if key != "incorrect_number":
            raise NotCoveredError(
                f"the {game.title} rules have no procedure for a hand dealt an incorrect "
                f"number of cards that cannot be reconstructed",
                clause=game.clause("unforeseen"),
                hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
            )
        return _void(
            round_,
            clause,
            "a hand was dealt an incorrect number of cards, not reconstructable",
            role,
            settled=True,
        )
    intended, rest = _table_of_play(cards)
    drawn = _minus(intended, round_.deal.cards, clause)
    if _is_rws(round_):
        clause = _clause(round_, "excess_cards", "excess cards")
    round_.reconstruct(intended, clause, role, drawn=drawn)
    _hold(round_, rest, clause, role)
    if not _is_rws(round_):
        return Ruling(clause, "continue", next_round=rest)
    taken = _established_options(
        round_, clause, "a hand was dealt an incorrect number of cards", withdrawing, role
    )
    return _ruling_with_options(clause, taken, rest)


def _table_of_play(cards: Sequence[Card]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The cards in drawn order split into the coup the Table of Play makes
    of them and the cards left over."""
    state = Deal()
    for n, card in enumerate(cards):
        if state.is_complete:
            return state.cards, tuple(cards[n:])
        state = state.add(card)
    return state.cards, ()


def _minus(whole: Sequence[Card], part: Sequence[Card], clause: str) -> tuple[Card, ...]:
    """``whole`` less ``part`` as multisets; ``part`` must be inside ``whole``."""
    left = Counter(whole)
    left.subtract(part)
    if any(n < 0 for n in left.values()):
        raise DealError(
            f"the cards dealt ({format_cards(part)}) are not all among {format_cards(whole)}",
            clause=clause,
            hint="give every card out of the device this round, in the order drawn",
        )
    return tuple(left.elements())


# -- interruptions -------------------------------------------------------------------------


@_atomic
def power_failure(
    round_: Round, *, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """A power failure (MBS 5.17; RWS 5.4).  Outcome established (from the
    cards): play continues.  Not established: MBS gives each player the
    option to withdraw all their wagers, then the round is concluded; RWS
    voids the round."""
    round_.check_power_failure(role)
    clause = round_.game.clause("power_failure") or _unforeseen_clause(round_)
    then = round_.power_failure(role)
    if then == "withdrawal":
        assert round_.withdrawal_open is not None
        clause = round_.withdrawal_open.clause
        taken = tuple(dict.fromkeys(withdrawing))
        for player in taken:
            round_.withdraw_player(player)
        round_.close_withdrawal(role)
        return Ruling(clause, "withdrawal", withdrawn=taken)
    if then == "void":
        assert round_.void is not None
        return Ruling(round_.void.clause, "void")
    return Ruling(round_.game.clause("power_failure_established") or clause, "continue")


@_atomic
def device_reset(
    round_: Round, *, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """MBS 5.9: a Dealer error needs the electronic dealing device reset after
    'No more bets': each player may withdraw their wagers; then betting
    opens again before 'No more bets' is announced again.  Refused at a
    table without an electronic dealing device (:mod:`punto.table.facts`)."""
    clause = _clause(round_, "device_reset", "a dealing device reset")
    check_table_fact(round_, "electronic_device", clause)
    taken = _options(round_, clause, "dealing device reset after 'No more bets'", withdrawing, role)
    round_.reopen_betting(clause, role)
    return Ruling(clause, "reopened", withdrawn=taken)


@_atomic
def cut_card(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """The cutting card appears during the round: it is removed and the round
    completed (MBS 3.22 of Tiger Baccarat, 3.17 of Dragon Tiger); the shoe
    ends after it (``LiveTable.shoe_finished``)."""
    clause = _clause(round_, "cut_card", "the cutting card")
    _check_in_play(round_, clause)
    _check_cut_card_once(round_, clause)
    round_.note_irregularity(clause, "cutting card removed; the round is completed", role)
    return Ruling(clause, "continue")


@_atomic
def cut_card_first(
    round_: Round, *, hlga: bool, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """In HLGA, the cutting card appears as the first card of the round: the
    Dealer may allow players to withdraw their wagers (MBS 3.22.1; Dragon
    Tiger 3.17.1).  Calling this is the Dealer allowing it."""
    clause = _check_cut_card_first(round_, hlga)
    taken = _options(round_, clause, _CUT_CARD_FIRST, withdrawing, role)
    return Ruling(clause, "withdrawal", withdrawn=taken)


@_atomic
def offer_cut_card_withdrawal(round_: Round, *, hlga: bool, role: Role = Role.DEALER) -> Ruling:
    """:func:`cut_card_first` with the option left open: the players take
    it (``round.withdraw_player``) and the Dealer closes it
    (``round.close_withdrawal``) before the first card is drawn.  A live
    table whose own shoe shows the cutting card first calls this."""
    clause = _check_cut_card_first(round_, hlga)
    round_.offer_withdrawal(clause, _CUT_CARD_FIRST, role)
    return Ruling(clause, "offered")


_CUT_CARD_FIRST = "cutting card as the first card (HLGA)"


def _check_cut_card_first(round_: Round, hlga: bool) -> str:
    clause = _clause(round_, "cut_card_first", "the cutting card as first card")
    if not hlga:
        raise ActionError(
            "wagers are withdrawn for a first-card cutting card only in HLGA",
            clause=clause,
            hint=f"elsewhere the round is completed ({round_.game.clause('cut_card')})",
        )
    if round_.phase is not Phase.DEALING or round_.deal.cards:
        raise PhaseError(
            "the cutting card is the first card of the round only before any card is dealt",
            clause=clause,
        )
    _check_cut_card_once(round_, clause)
    return clause


def _check_cut_card_once(round_: Round, clause: str) -> None:
    """A shoe has one cutting card: reported once in a round (removed during
    it, 3.22, or out as its first card, 3.22.1), never twice -- a second
    report would say the shoe ended twice."""
    game = round_.game
    cut, first = game.clause("cut_card"), game.clause("cut_card_first")
    if any(note.clause == cut for note in round_.irregularities) or any(
        isinstance(e, WithdrawalOffered) and e.clause == first for e in round_.events
    ):
        raise PhaseError(
            "the cutting card was already removed in this round: a shoe has one",
            clause=clause,
            hint="complete the round; the shoe ends after it",
        )


# -- dealing errors ---------------------------------------------------------------------------


@_atomic
def simultaneous_draw(
    round_: Round,
    cards: Sequence[Card],
    *,
    order_known: bool,
    order: Sequence[Card] | None = None,
    withdrawing: Iterable[str] = (),
    role: Role = Role.DEALER,
) -> Ruling:
    """Two or more cards drawn from the device at once.  ``cards``: in drawn
    order if ``order_known``; otherwise ``order`` is the order decided.

    * MBS 5.8: order known -- each player may withdraw (5.8.1), then the
      cards are reconstructed.  Not known: during the initial deal the round
      is void (5.8.2.1); after it the Pit Manager sets the order and each
      player may withdraw all remaining wagers (5.8.2.2).
    * No Commission, Tournament 5.3: not known during the initial deal:
      void; known: the cards are dealt in that order.
    * RWS 5.11: not known -- a Pit Supervisor or above decides the order; a
      dealing error either way (5.11.1): the options of 5.13.

    Cards the coup does not need go to the next round.
    """
    game = round_.game
    if len(cards) < 2:
        raise ActionError(
            "a simultaneous draw is two or more cards",
            clause=game.clause("simultaneous") or game.clause("simultaneous_initial"),
            hint="one card out of the device is dealt as it comes",
        )
    initial = len(round_.deal.cards) < 4
    if _is_rws(round_):
        return _simultaneous_rws(round_, cards, order_known, order, withdrawing, role)
    if game.clause("simultaneous_withdraw") is None:
        clause = _clause(round_, "simultaneous_initial", "cards drawn simultaneously")
        _check_dealing(round_, clause)
        if not order_known and initial:
            return _void(round_, clause, _simultaneous_reason(cards, "undetermined"), role)
        if not order_known:
            raise NotCoveredError(
                f"the {game.title} rules have no procedure for simultaneous cards of "
                f"undetermined order after the initial deal",
                clause=clause,
                hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
            )
        round_.note_irregularity(clause, _simultaneous_reason(cards, "ascertained"), role)
        rest = _hold(round_, _deal(round_, cards, "simultaneous"), clause, role)
        return Ruling(clause, "continue", next_round=rest)
    _check_dealing(round_, _clause(round_, "simultaneous", "cards drawn simultaneously"))
    if order_known:
        clause = _clause(round_, "simultaneous_withdraw", "cards drawn simultaneously")
        taken = _options(
            round_, clause, _simultaneous_reason(cards, "ascertained"), withdrawing, role
        )
        rest = _hold(round_, _deal(round_, cards, "simultaneous"), clause, role)
        return Ruling(clause, "withdrawal", withdrawn=taken, next_round=rest)
    if initial:
        clause = _clause(round_, "simultaneous_initial", "cards drawn simultaneously")
        return _void(round_, clause, _simultaneous_reason(cards, "undetermined"), role)
    clause = _clause(round_, "simultaneous_after", "cards drawn simultaneously")
    decided = _decided_order(cards, order, clause)
    round_.note_irregularity(
        clause,
        f"order of simultaneous cards set: {format_cards(decided)}",
        role,
        required=Role.PIT_MANAGER,
    )
    taken = _options(round_, clause, _simultaneous_reason(cards, "set"), withdrawing, role)
    rest = _hold(round_, _deal(round_, decided, "simultaneous"), clause, role)
    return Ruling(clause, "withdrawal", withdrawn=taken, next_round=rest)


def _simultaneous_rws(
    round_: Round,
    cards: Sequence[Card],
    order_known: bool,
    order: Sequence[Card] | None,
    withdrawing: Iterable[str],
    role: Role,
) -> Ruling:
    clause = _clause(round_, "simultaneous", "cards drawn simultaneously")
    _check_dealing(round_, clause)
    if order_known:
        decided = tuple(cards)
        round_.note_irregularity(clause, _simultaneous_reason(cards, "ascertained"), role)
    else:
        decided = _decided_order(cards, order, clause)
        round_.note_irregularity(
            clause,
            f"order of simultaneous cards decided: {format_cards(decided)}",
            role,
            required=Role.PIT_SUPERVISOR,
        )
    error = _clause(round_, "simultaneous_dealing_error", "a dealing error")
    taken = _options(
        round_, _options_clause(round_), f"{error}: cards drawn simultaneously", withdrawing, role
    )
    rest = _hold(round_, _deal(round_, decided, "simultaneous"), clause, role)
    return Ruling(clause, "options", withdrawn=taken, next_round=rest)


def _simultaneous_reason(cards: Sequence[Card], order: str) -> str:
    return f"cards drawn simultaneously ({format_cards(cards)}), order {order}"


def _decided_order(
    cards: Sequence[Card], order: Sequence[Card] | None, clause: str
) -> tuple[Card, ...]:
    if order is None or Counter(order) != Counter(cards):
        raise ActionError(
            "the order of the simultaneous cards must be decided",
            clause=clause,
            hint=f"give order= as the cards {format_cards(cards)} in the order decided",
        )
    return tuple(order)


@_atomic
def card_face_up_in_device(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """A card found face up in the dealing device after the first card of the
    round: it is played as if face down (MBS 5.6)."""
    clause = _clause(round_, "card_face_up", "a card face up in the device")
    if _is_rws(round_):
        raise NotCoveredError(
            "in RWS rules a card exposed in the device is an exposed card",
            clause=round_.game.clause("excess_cards"),
            hint="use excess_cards(round, [card]) (5.8)",
        )
    _check_dealing(round_, clause)
    if not round_.deal.cards:
        raise NotCoveredError(
            "a card face up in the device before the first card is dealt is not in 5.6",
            clause=clause,
            hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
        )
    round_.note_irregularity(
        clause, "card found face up in the device; played as if face down", role
    )
    return Ruling(clause, "continue")


@_atomic
def card_exposed_in_error(
    round_: Round,
    *,
    method_c_device: bool = False,
    withdrawing: Iterable[str] = (),
    role: Role = Role.DEALER,
) -> Ruling:
    """A card dealt face up, or exposed in error, or not passed to the
    player who was to squeeze it.

    * MBS 5.7.1: not a wrong delivery; the outcome stands and play
      continues.  By Method C, exposed moving the device
      (``method_c_device``, refused unless the round is conducted by Method
      C): played as if face down (5.12.1).
    * RWS 5.10: play continues and the result stands; the options of 5.13
      if no outcome is established.  Only at a table where the cards are
      dealt face down (:mod:`punto.table.facts`): elsewhere a card dealt
      face up is how cards are dealt.
    """
    if _is_rws(round_):
        clause = _clause(round_, "card_face_up", "a card dealt face up")
        check_table_fact(round_, "face_down", clause)
        _check_dealing(round_, clause)
        round_.note_irregularity(clause, "card dealt face up; play continues", role)
        taken = _established_options(round_, clause, "card dealt face up", withdrawing, role)
        return _ruling_with_options(clause, taken)
    if method_c_device and _by_method_c(round_, True, "method_c_exposed"):
        clause = _clause(round_, "method_c_exposed", "Method C dealing")
        reason = "card exposed moving the dealing device; played as if face down"
    else:
        clause = _clause(round_, "exposed_in_error", "a card exposed in error")
        reason = "card exposed in error; the outcome stands and play continues"
    _check_dealing(round_, clause)
    round_.note_irregularity(clause, reason, role)
    return Ruling(clause, "continue")


@_atomic
def cards_in_wrong_order(
    round_: Round,
    intended: Sequence[Card] | None,
    *,
    withdrawing: Iterable[str] = (),
    role: Role = Role.DEALER,
) -> Ruling:
    """Cards dealt in an incorrect order, or to the wrong hand's area.
    ``intended``: the cards dealt so far in their intended order, or None
    if they cannot be reconstructed.

    * MBS 5.7: reconstructed, play continues.  Not reconstructable: the
      order is altered beyond reconstruction -- void (5.2; No Commission
      and Tournament 5.4, which also reconstruct when they can).
    * RWS 5.9.1: reconstructed before play continues; the options of 5.13,
      except where an outcome is established and the cards were
      reconstructed.  Not reconstructable: play continues on the cards as
      dealt (5.13.1), with the options.
    """
    if _is_rws(round_):
        clause = _clause(round_, "wrong_area", "cards in the wrong area")
        return _wrong_rws(
            round_, clause, intended, "cards dealt to the wrong area", withdrawing, role
        )
    key = "wrong_order" if round_.game.clause("wrong_order") else "order_altered"
    clause = _clause(round_, key, "cards dealt in the wrong order")
    _check_dealing(round_, clause)
    if intended is None:
        void_clause = _clause(round_, "order_altered", "an altered order of cards")
        return _void(round_, void_clause, "cards dealt out of order, not reconstructable", role)
    round_.reconstruct(intended, clause, role)
    return Ruling(clause, "continue")


@_atomic
def cards_to_wrong_player(
    round_: Round,
    intended: Sequence[Card] | None = None,
    *,
    reconstructable: bool = True,
    withdrawing: Iterable[str] = (),
    role: Role = Role.DEALER,
) -> Ruling:
    """Cards passed to the wrong player (the one accepting the other hand).

    * MBS 5.7: retrieved and passed to the correct player; play continues.
    * RWS 5.9.2: reconstructed before play continues (``intended``: the
      cards in their intended order, if the engine holds them otherwise);
      the options of 5.13, except where an outcome is established and the
      cards were reconstructed.
    """
    if _is_rws(round_):
        clause = _clause(round_, "wrong_area", "cards passed to the wrong person")
        cards = (intended or round_.deal.cards) if reconstructable else None
        return _wrong_rws(
            round_, clause, cards, "cards passed to the wrong person", withdrawing, role
        )
    clause = _clause(round_, "wrong_order", "cards passed to the wrong player")
    _check_dealing(round_, clause)
    if intended is not None:
        round_.reconstruct(intended, clause, role)
    else:
        round_.note_irregularity(
            clause, "cards retrieved and passed to the correct player; play continues", role
        )
    return Ruling(clause, "continue")


def _wrong_rws(
    round_: Round,
    clause: str,
    intended: Sequence[Card] | None,
    reason: str,
    withdrawing: Iterable[str],
    role: Role,
) -> Ruling:
    _check_dealing(round_, clause)
    if intended is not None:
        round_.reconstruct(intended, clause, role)
        if round_.outcome_established():
            return Ruling(clause, "continue")
    else:
        round_.note_irregularity(
            clause,
            f"{reason}; not reconstructable: play continues on the cards as dealt",
            role,
            required=Role.PIT_SUPERVISOR,
        )
    taken = _options(round_, _options_clause(round_), f"{clause}: {reason}", withdrawing, role)
    return Ruling(clause, "options", withdrawn=taken)


@_atomic
def excess_cards(
    round_: Round,
    cards: Sequence[Card],
    *,
    reconstructable: bool = True,
    withdrawing: Iterable[str] = (),
    role: Role = Role.DEALER,
) -> Ruling:
    """Cards drawn in excess, or exposed, beyond the cards dealt so far
    (``cards``, in drawn order).

    * RWS 5.8: reconstructed by the Table of Play (each goes to the hand
      that is due a card) and/or used in the next round; the options of
      5.13 provided no outcome is established.  If the House (a Pit
      Supervisor or above) finds they cannot be reconstructed, a hand has an
      incorrect number of cards: void (5.5.3).
    * MBS (Tiger Baccarat, Dragon Tiger) 5.7: put right by reconstruction,
      play continues.  No Commission and Tournament: 5.2, reconstructed or
      void.
    """
    game = round_.game
    if _is_rws(round_):
        clause = _clause(round_, "excess_cards", "excess cards")
    else:
        key = "wrong_order" if game.clause("wrong_order") else "incorrect_number"
        clause = _clause(round_, key, "cards drawn in excess")
    _check_dealing(round_, clause)
    if not reconstructable:
        _check_role(role, Role.PIT_SUPERVISOR, "find cards not reconstructable", clause)
        void_clause = _clause(round_, "incorrect_number", "excess cards not reconstructable")
        return _void(round_, void_clause, "cards drawn in excess, not reconstructable", role)
    round_.note_irregularity(
        clause, f"cards drawn in excess or exposed: {format_cards(cards)}", role
    )
    rest = _hold(round_, _deal(round_, cards, "reconstructed"), clause, role)
    if not _is_rws(round_):
        return Ruling(clause, "continue", next_round=rest)
    taken = _established_options(round_, clause, "cards drawn in excess", withdrawing, role)
    return _ruling_with_options(clause, taken, rest)


@_atomic
def dealing_error_options(
    round_: Round, reason: str, *, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """RWS 5.13: after a dealing error, every player may continue (on the
    cards as dealt, or reconstructed) or have their bet returned; those who
    continue accept any later cards.  ``withdrawing``: the players who have
    their bets returned."""
    clause = _options_clause(round_)
    _check_in_play(round_, clause)
    taken = _options(round_, clause, reason, withdrawing, role)
    return Ruling(clause, "options", withdrawn=taken)


@_atomic
def absent_player(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """MBS 5.10: the player handling the cards is not there to expose them or
    take more cards: the Dealer exposes them, play continues."""
    clause = _clause(round_, "absent_player", "an absent player")
    _check_dealing(round_, clause)
    round_.note_irregularity(
        clause, "player handling the cards absent; the Dealer exposes them", role
    )
    return Ruling(clause, "continue")


def missing_cards(
    shoe: Sequence[Card],
    *,
    discards: Sequence[Card],
    in_play: Sequence[Card],
    set_aside: Sequence[Card],
    remaining: Sequence[Card],
    clause: str = "5.11.2.1",
) -> tuple[Card, ...]:
    """The cards missing from the shoe: every card of the decks in use, less
    the discards of previous rounds, the cards in play, the two set-aside
    cards and the cards remaining in the device (MBS 5.11.2.1), as a
    multiset.  Refuses counts that do not add up: a card that does not
    belong there is a 5.1 matter."""
    left = Counter(shoe)
    for part in (discards, in_play, set_aside, remaining):
        left.subtract(part)
    extra = sorted((c for c, n in left.items() if n < 0), key=_in_deck_order)
    if extra:
        raise ActionError(
            f"{format_cards(extra)} are more often on the table than in the decks in use",
            clause=clause,
            hint="a card that does not belong to the decks voids the round (5.1)",
        )
    return tuple(sorted(left.elements(), key=_in_deck_order))


@_atomic
def left_with_cards(
    round_: Round,
    *,
    shoe: Sequence[Card],
    discards: Sequence[Card],
    on_table: Sequence[Card | None],
    set_aside: Sequence[Card],
    remaining: Sequence[Card],
    order: Sequence[Card] | None = None,
    role: Role = Role.SHIFT_MANAGER,
) -> Ruling:
    """MBS 5.11: a player left the table with cards whose value neither the
    device nor surveillance can tell.

    In the presence of a Gaming Shift Manager (``role``) two cards are taken
    from the device and kept in drawn order (``set_aside``, 5.11.1); the
    rest of the device (``remaining``) and the ``discards`` of previous
    rounds are sorted into decks (5.11.2); the missing cards are what the
    ``shoe`` (every card of the decks in use) lacks once those, the cards in
    play and the set-aside cards are counted (5.11.2.1); cards of the same
    suit and value replace them (5.11.3) and are dealt where the missing
    cards were; the round is completed with the set-aside cards if the Table
    of Play needs them (5.11.4).

    ``on_table``: this round's cards in the order drawn, None for each card
    that left with the player.  Where more than one card is missing and
    their order matters, the Shift Manager gives it as ``order``.
    """
    clause = _clause(round_, "left_with_cards", "a player leaving with cards")
    _check_role(role, Role.SHIFT_MANAGER, "have the missing cards determined", f"{clause}.1")
    if round_.phase is not Phase.DEALING:
        raise PhaseError("the missing cards are replaced while the coup is dealt", clause=clause)
    gaps = [n for n, card in enumerate(on_table) if card is None]
    if not gaps:
        raise ActionError("no card left the table", clause=clause)
    dealt = round_.deal.cards
    if len(dealt) > gaps[0] or tuple(on_table[: len(dealt)]) != dealt:
        raise ActionError(
            f"the cards dealt so far ({format_cards(dealt)}) must open on_table, before the "
            f"first card that left",
            clause=clause,
            hint="a card the engine holds is not missing",
        )
    if len(set_aside) > 2 or (len(set_aside) < 2 and remaining):
        raise ActionError("two cards are taken from the device and set aside", clause=f"{clause}.1")
    known = [card for card in on_table if card is not None]
    missing = missing_cards(
        shoe,
        discards=discards,
        in_play=known,
        set_aside=set_aside,
        remaining=remaining,
        clause=f"{clause}.2.1",
    )
    if len(missing) != len(gaps):
        raise ActionError(
            f"{len(gaps)} cards left the table but {len(missing)} are missing from the decks "
            f"({format_cards(missing) or 'none'})",
            clause=f"{clause}.2.1",
            hint="extra or missing cards void the round (5.1)",
        )
    placed = _place_missing(missing, gaps, order, f"{clause}.2.1")
    full = list(on_table)
    for n, card in zip(gaps, placed, strict=True):
        full[n] = card
    Deal(tuple(c for c in full if c is not None))  # the Table of Play must accept them
    round_.note_irregularity(
        clause,
        f"player left with cards: missing {format_cards(missing)} determined and replaced "
        f"from a complete deck; set aside {format_cards(set_aside)}",
        role,
        required=Role.SHIFT_MANAGER,
    )
    for n in range(len(dealt), len(full)):
        out = full[n]
        assert out is not None
        round_.deal_card(out, "replacement" if n in gaps else "table")
    unused = _deal(round_, set_aside, "set_aside")
    return Ruling(clause, "continue", missing=missing, unused=unused)


def _in_deck_order(card: Card) -> tuple[int, str]:
    return (card.rank.value, card.suit.value)


def _place_missing(
    missing: Sequence[Card], gaps: Sequence[int], order: Sequence[Card] | None, clause: str
) -> tuple[Card, ...]:
    """The missing cards in the order of the gaps they fill."""
    if order is not None:
        if Counter(order) != Counter(missing):
            raise ActionError(
                f"the order given is not the missing cards {format_cards(missing)}", clause=clause
            )
        return tuple(order)
    one_hand_pair = set(gaps) in ({0, 2}, {1, 3})  # a hand's first two cards: order immaterial
    if len(set(missing)) > 1 and not one_hand_pair:
        raise ActionError(
            f"the missing cards {format_cards(missing)} could have been dealt in more than one "
            f"order",
            clause=clause,
            hint="the Gaming Shift Manager decides the order: give order=",
        )
    return tuple(missing)


# -- Insurance Plus (RWS) ---------------------------------------------------------------------


@_atomic
def squeeze_waiver(
    round_: Round, reason: str, *, requester: str | None = None, role: Role = Role.DEALER
) -> Ruling:
    """RWS 3.14: the House lets the highest bettor (``requester``, checked
    when named) squeeze (or expose) the Banker's third card before the
    Player's is opened: every player's Insurance after the Player's third
    card is waived this round."""
    clause = _clause(round_, "squeeze_waiver", "a squeeze waiver")
    round_.waive_insurance(reason, role, requester=requester)
    return Ruling(clause, "continue")


@_atomic
def forgotten_insurance(
    round_: Round,
    *,
    moment: Moment | None = None,
    players: Sequence[str] | None = None,
    intended: Mapping[str, Side] | None = None,
    role: Role = Role.PIT_MANAGER,
) -> Ruling:
    """RWS 5.14: the Dealer neglected to offer Insurance at ``moment`` (by
    default the last moment passed that had an offer).

    * No outcome established (5.14.1): a Pit Manager or above offers it now
      to the affected ``players`` (default: all with an Original Bet on a
      hand offered), at that moment's odds, total payout capped at the
      Original Bet; they bet with ``round.place_insurance(...,
      moment=moment)`` before the next card.
    * Outcome established (5.14.2): a Pit Manager or above returns the
      Original Bet of each player in ``intended`` (player -> hand they meant
      to insure) whose Insurance would have won.  Not at a table with the
      no-insurance notice (4.2.2).
    """
    clause = _clause(round_, "insurance_forgotten", "a neglected Insurance offer")
    _check_role(role, Role.PIT_MANAGER, "remedy a neglected Insurance offer", clause)
    if not round_.insurance_offered:
        raise InsuranceError(
            "no Insurance is offered at this table (the notice is displayed)",
            clause=round_.game.clause("no_insurance_notice"),
            hint=f"{clause} does not apply",
        )
    when = moment or _last_missed(round_, clause)
    if not round_.insured_outcome_established():
        open_clause = _clause(round_, "insurance_forgotten_open", "a neglected Insurance offer")
        sides = {o.insures for o in round_.missed_insurance_offers(when)}
        offer_to = (
            list(players)
            if players is not None
            else [p for p in round_.players if any(round_.original_bet(p, s) for s in sides)]
        )
        round_.reoffer_insurance(when, offer_to, role)
        return Ruling(open_clause, "offered")
    late_clause = _clause(round_, "insurance_forgotten_established", "a neglected Insurance offer")
    if round_.phase not in (Phase.DEALING, Phase.RESULT):
        raise PhaseError(
            "the Original Bet is returned before the round is settled", clause=late_clause
        )
    offers = {o.insures: o for o in round_.missed_insurance_offers(when)}
    returned: list[str] = []
    would_win: list[str] = []
    for player, side in (intended or {}).items():
        offer = offers.get(side)
        if offer is None:
            raise InsuranceError(
                f"no {side.value} insurance was offered {when.words}", clause=late_clause
            )
        events = {insurance_event(coup, offer) for coup in completions(round_.deal)}
        if len(events) > 1:
            raise PhaseError(
                f"whether {player}'s {side.value} insurance would have won is not known yet",
                clause=late_clause,
                hint="deal on and apply it once the cards tell",
            )
        event = events.pop()
        if event is not None and INSURANCE_EVENTS[event]:
            would_win.append(player)
            for bet in round_.active_bets:
                if bet.player == player and bet.wager == side.value:
                    returned.append(bet.bet_id)
    round_.note_irregularity(
        late_clause,
        f"Insurance {when.words} not offered; noticed after an outcome was established; "
        f"Original Bet returned to {', '.join(would_win) or 'nobody'}",
        role,
        required=Role.PIT_MANAGER,
    )
    for bet_id in returned:
        round_.return_bet(bet_id, late_clause, "intended Insurance would have won", role)
    return Ruling(late_clause, "returned", returned=tuple(returned))


def _last_missed(round_: Round, clause: str) -> Moment:
    for moment in (Moment.PLAYER_THIRD_CARD, Moment.FOUR_CARDS):
        if round_.missed_insurance_offers(moment):
            return moment
    raise InsuranceError(
        "no Insurance offer has been missed this round",
        clause=clause,
        hint="an offer still open is taken as it stands",
    )


# -- not covered --------------------------------------------------------------------------------


@_atomic
def unforeseen(
    round_: Round, reason: str, *, void: bool, role: Role = Role.SHIFT_MANAGER
) -> Ruling:
    """An irregularity the rules do not cover, decided by the Gaming Shift
    Manager (MBS 6.1; RWS 5.19, the Table Game Shift Manager or above):
    void the round, or let it stand, recorded with the reason."""
    clause = _unforeseen_clause(round_)
    if void:
        round_.void_round(reason, clause, role, required=Role.SHIFT_MANAGER)
        return Ruling(clause, "void")
    round_.note_irregularity(clause, reason, role, required=Role.SHIFT_MANAGER)
    return Ruling(clause, "stand")
