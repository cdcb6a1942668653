"""The irregularities of the deal: cards drawn together, a card face up in the
device or exposed in error, cards in the wrong order or to the wrong player,
excess cards, and the dealing-error options
(:mod:`punto.table.irregularities` exports them with the others).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from punto.errors import ActionError
from punto.rules.cards import Card, format_cards
from punto.table.facts import check_table_fact
from punto.table.irregularity_rules import (
    NotCoveredError,
    Ruling,
    atomic,
    by_method_c,
    check_dealing,
    check_in_play,
    check_role,
    deal_as_needed,
    established_options,
    game_clause,
    give_options,
    hold_for_next,
    is_rws,
    options_clause,
    ruling_with_options,
    void_round,
)
from punto.table.roles import Role
from punto.table.round import Round


@atomic
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
    if is_rws(round_):
        return _simultaneous_rws(round_, cards, order_known, order, withdrawing, role)
    if game.clause("simultaneous_withdraw") is None:
        clause = game_clause(round_, "simultaneous_initial", "cards drawn simultaneously")
        check_dealing(round_, clause)
        if not order_known and initial:
            return void_round(round_, clause, _simultaneous_reason(cards, "undetermined"), role)
        if not order_known:
            raise NotCoveredError(
                f"the {game.title} rules have no procedure for simultaneous cards of "
                f"undetermined order after the initial deal",
                clause=clause,
                hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
            )
        round_.note_irregularity(clause, _simultaneous_reason(cards, "ascertained"), role)
        rest = hold_for_next(round_, deal_as_needed(round_, cards, "simultaneous"), clause, role)
        return Ruling(clause, "continue", next_round=rest)
    drawn = game_clause(round_, "simultaneous", "cards drawn simultaneously")
    check_dealing(round_, drawn)
    if order_known:
        clause = game_clause(round_, "simultaneous_withdraw", "cards drawn simultaneously")
        # the draw itself first: the option of 5.8.1 is granted only where the
        # round records one (punto.table.grants)
        round_.note_irregularity(drawn, _simultaneous_reason(cards, "ascertained"), role)
        taken = give_options(
            round_, clause, _simultaneous_reason(cards, "ascertained"), withdrawing, role
        )
        rest = hold_for_next(round_, deal_as_needed(round_, cards, "simultaneous"), clause, role)
        return Ruling(clause, "withdrawal", withdrawn=taken, next_round=rest)
    if initial:
        clause = game_clause(round_, "simultaneous_initial", "cards drawn simultaneously")
        return void_round(round_, clause, _simultaneous_reason(cards, "undetermined"), role)
    clause = game_clause(round_, "simultaneous_after", "cards drawn simultaneously")
    decided = _decided_order(cards, order, clause)
    round_.note_irregularity(
        clause,
        f"order of simultaneous cards set: {format_cards(decided)}",
        role,
        required=Role.PIT_MANAGER,
    )
    taken = give_options(round_, clause, _simultaneous_reason(cards, "set"), withdrawing, role)
    rest = hold_for_next(round_, deal_as_needed(round_, decided, "simultaneous"), clause, role)
    return Ruling(clause, "withdrawal", withdrawn=taken, next_round=rest)


def _simultaneous_rws(
    round_: Round,
    cards: Sequence[Card],
    order_known: bool,
    order: Sequence[Card] | None,
    withdrawing: Iterable[str],
    role: Role,
) -> Ruling:
    clause = game_clause(round_, "simultaneous", "cards drawn simultaneously")
    check_dealing(round_, clause)
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
    error = game_clause(round_, "simultaneous_dealing_error", "a dealing error")
    taken = give_options(
        round_, options_clause(round_), f"{error}: cards drawn simultaneously", withdrawing, role
    )
    rest = hold_for_next(round_, deal_as_needed(round_, decided, "simultaneous"), clause, role)
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


@atomic
def card_face_up_in_device(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """A card found face up in the dealing device after the first card of the
    round: it is played as if face down (MBS 5.6)."""
    clause = game_clause(round_, "card_face_up", "a card face up in the device")
    if is_rws(round_):
        raise NotCoveredError(
            "in RWS rules a card exposed in the device is an exposed card",
            clause=round_.game.clause("excess_cards"),
            hint="use excess_cards(round, [card]) (5.8)",
        )
    check_dealing(round_, clause)
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


@atomic
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
    if is_rws(round_):
        clause = game_clause(round_, "card_face_up", "a card dealt face up")
        check_table_fact(round_, "face_down", clause)
        check_dealing(round_, clause)
        round_.note_irregularity(clause, "card dealt face up; play continues", role)
        taken = established_options(round_, clause, "card dealt face up", withdrawing, role)
        return ruling_with_options(clause, taken)
    if method_c_device and by_method_c(round_, True, "method_c_exposed"):
        clause = game_clause(round_, "method_c_exposed", "Method C dealing")
        reason = "card exposed moving the dealing device; played as if face down"
    else:
        clause = game_clause(round_, "exposed_in_error", "a card exposed in error")
        reason = "card exposed in error; the outcome stands and play continues"
    check_dealing(round_, clause)
    round_.note_irregularity(clause, reason, role)
    return Ruling(clause, "continue")


@atomic
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
    if is_rws(round_):
        clause = game_clause(round_, "wrong_area", "cards in the wrong area")
        return _wrong_rws(
            round_, clause, intended, "cards dealt to the wrong area", withdrawing, role
        )
    key = "wrong_order" if round_.game.clause("wrong_order") else "order_altered"
    clause = game_clause(round_, key, "cards dealt in the wrong order")
    check_dealing(round_, clause)
    if intended is None:
        void_clause = game_clause(round_, "order_altered", "an altered order of cards")
        return void_round(
            round_, void_clause, "cards dealt out of order, not reconstructable", role
        )
    round_.reconstruct(intended, clause, role)
    return Ruling(clause, "continue")


@atomic
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
    if is_rws(round_):
        clause = game_clause(round_, "wrong_area", "cards passed to the wrong person")
        cards = (intended or round_.deal.cards) if reconstructable else None
        return _wrong_rws(
            round_, clause, cards, "cards passed to the wrong person", withdrawing, role
        )
    clause = game_clause(round_, "wrong_order", "cards passed to the wrong player")
    check_dealing(round_, clause)
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
    check_dealing(round_, clause)
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
    taken = give_options(round_, options_clause(round_), f"{clause}: {reason}", withdrawing, role)
    return Ruling(clause, "options", withdrawn=taken)


@atomic
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
    if is_rws(round_):
        clause = game_clause(round_, "excess_cards", "excess cards")
    else:
        key = "wrong_order" if game.clause("wrong_order") else "incorrect_number"
        clause = game_clause(round_, key, "cards drawn in excess")
    check_dealing(round_, clause)
    if not reconstructable:
        check_role(role, Role.PIT_SUPERVISOR, "find cards not reconstructable", clause)
        void_clause = game_clause(round_, "incorrect_number", "excess cards not reconstructable")
        return void_round(round_, void_clause, "cards drawn in excess, not reconstructable", role)
    round_.note_irregularity(
        clause, f"cards drawn in excess or exposed: {format_cards(cards)}", role
    )
    rest = hold_for_next(round_, deal_as_needed(round_, cards, "reconstructed"), clause, role)
    if not is_rws(round_):
        return Ruling(clause, "continue", next_round=rest)
    taken = established_options(round_, clause, "cards drawn in excess", withdrawing, role)
    return ruling_with_options(clause, taken, rest)


@atomic
def dealing_error_options(
    round_: Round, reason: str, *, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """RWS 5.13: after a dealing error, every player may continue (on the
    cards as dealt, or reconstructed) or have their bet returned; those who
    continue accept any later cards.  ``withdrawing``: the players who have
    their bets returned."""
    clause = options_clause(round_)
    check_in_play(round_, clause)
    # the dealing error is recorded before the option it gives (5.13: "in the
    # event of any dealing error")
    round_.note_irregularity(clause, f"dealing error: {reason}", role)
    taken = give_options(round_, clause, reason, withdrawing, role)
    return Ruling(clause, "options", withdrawn=taken)
