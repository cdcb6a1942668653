"""The irregularities of the cards and the shoe: a foreign card, extra or missing
cards, an unshuffled or re-ordered shoe, too few cards, a wrong number of
cards, a power failure or a device reset, and the cutting card
(:mod:`punto.table.irregularities` exports them with the others).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from punto.errors import ActionError, DealError, PhaseError
from punto.rules.cards import Card, format_cards
from punto.rules.coup import Deal, cards_needed
from punto.table.events import RoundVoided, WithdrawalOffered
from punto.table.facts import check_table_fact
from punto.table.irregularity_rules import (
    NotCoveredError,
    Ruling,
    atomic,
    by_method_c,
    check_dealing,
    check_in_play,
    established_options,
    game_clause,
    give_options,
    hold_for_next,
    is_rws,
    ruling_with_options,
    stands_clause,
    unforeseen_clause,
    void_round,
)
from punto.table.roles import Role
from punto.table.round import Phase, Round


@atomic
def foreign_card(round_: Round, card: Card | None = None, *, role: Role = Role.DEALER) -> Ruling:
    """A card that does not belong to the decks in use is found: the round is
    void, every bet returned, previous rounds stand (MBS 5.1; RWS 5.5.1, 5.17)."""
    clause = game_clause(round_, "foreign_card", "a foreign card")
    found = f" ({card})" if card is not None else ""
    return void_round(
        round_, clause, f"a card that does not belong to the decks in use{found}", role
    )


@atomic
def extra_or_missing_cards(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """Extra or missing cards in the decks: void (MBS 5.1 of Tiger Baccarat,
    Tiger No Commission, Dragon Tiger; RWS 5.5.2).  Baccarat Tournament 5.1
    speaks of foreign cards only."""
    clause = game_clause(
        round_, "shortage_or_excess", "extra or missing cards", literal="extra_or_missing"
    )
    return void_round(round_, clause, "extra or missing cards in the decks in use", role)


@atomic
def unshuffled_cards(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """Unshuffled cards are used: void (MBS 5.1 of Tiger Baccarat and Dragon
    Tiger; RWS 5.5.5)."""
    clause = game_clause(round_, "unshuffled", "unshuffled cards")
    return void_round(round_, clause, "the cards were not shuffled", role)


@atomic
def order_altered(
    round_: Round, *, reconstructable: bool, method_c: bool = False, role: Role = Role.DEALER
) -> Ruling:
    """The order of the cards in the dealing device is altered.  If it cannot
    be reconstructed the round is void, whether or not cards were exposed
    (MBS 5.2; 5.4 of No Commission and Tournament; by Method C, 5.12.2, and
    the cards are replaced); if it can, it is, and play continues.  Whether
    the round is dealt by Method C is the round's own Method
    (:func:`punto.table.handling.method_of`); ``method_c`` only confirms it."""
    method_c = by_method_c(round_, method_c, "method_c_order")
    if method_c:
        clause = game_clause(round_, "method_c_order", "Method C dealing")
    else:
        clause = game_clause(round_, "order_altered", "an altered order of cards")
    if reconstructable:
        check_in_play(round_, clause)
        round_.note_irregularity(clause, "order of the cards restored; play continues", role)
        return Ruling(clause, "continue")
    reason = "order of the cards in the dealing device altered and not reconstructable"
    if method_c:
        reason += "; the cards are replaced"
    return void_round(round_, clause, reason, role)


@atomic
def insufficient_cards(round_: Round, *, remaining: int, role: Role = Role.DEALER) -> Ruling:
    """Too few cards left in the device to complete the round: void
    (MBS 5.3; 5.5 of No Commission and Tournament; RWS 5.5.4).  ``remaining``
    is what the device holds; the void stands only if the coup needs more."""
    clause = game_clause(round_, "insufficient_cards", "insufficient cards")
    check_in_play(round_, clause)
    # the shoe's own count, where the table knows it, before the count claimed
    round_.consult_record(RoundVoided("insufficient cards", clause, role))
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
    return void_round(
        round_, clause, f"insufficient cards: {remaining} left, {needed} needed", role
    )


@atomic
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
    clause = game_clause(round_, key, "an incorrect number of cards")
    if next_round_commenced:
        # The clause itself sets the proviso ("provided this is noticed before
        # the commencement of play of the next game"): it is what refuses.
        raise PhaseError(
            "the next round has commenced: the outcome of this round stands",
            clause=clause,
            hint=f"previous rounds stand ({stands_clause(round_, clause)})",
        )
    if round_.phase is not Phase.SETTLED or reconstructable:
        check_dealing(round_, clause)
    if not reconstructable:
        if key != "incorrect_number":
            raise NotCoveredError(
                f"the {game.title} rules have no procedure for a hand dealt an incorrect "
                f"number of cards that cannot be reconstructed",
                clause=game.clause("unforeseen"),
                hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
            )
        return void_round(
            round_,
            clause,
            "a hand was dealt an incorrect number of cards, not reconstructable",
            role,
            settled=True,
        )
    intended, rest = _table_of_play(cards)
    drawn = _minus(intended, round_.deal.cards, clause)
    if is_rws(round_):
        clause = game_clause(round_, "excess_cards", "excess cards")
    round_.reconstruct(intended, clause, role, drawn=drawn)
    hold_for_next(round_, rest, clause, role)
    if not is_rws(round_):
        return Ruling(clause, "continue", next_round=rest)
    taken = established_options(
        round_, clause, "a hand was dealt an incorrect number of cards", withdrawing, role
    )
    return ruling_with_options(clause, taken, rest)


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


@atomic
def power_failure(
    round_: Round, *, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """A power failure (MBS 5.17; RWS 5.4).  Outcome established (from the
    cards): play continues.  Not established: MBS gives each player the
    option to withdraw all their wagers, then the round is concluded; RWS
    voids the round."""
    round_.check_power_failure(role)
    clause = round_.game.clause("power_failure") or unforeseen_clause(round_)
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


@atomic
def device_reset(
    round_: Round, *, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """MBS 5.9: a Dealer error needs the electronic dealing device reset after
    'No more bets': each player may withdraw their wagers; then betting
    opens again before 'No more bets' is announced again.  Refused at a
    table without an electronic dealing device (:mod:`punto.table.facts`)."""
    clause = game_clause(round_, "device_reset", "a dealing device reset")
    check_table_fact(round_, "electronic_device", clause)
    taken = give_options(
        round_, clause, "dealing device reset after 'No more bets'", withdrawing, role
    )
    round_.reopen_betting(clause, role)
    return Ruling(clause, "reopened", withdrawn=taken)


@atomic
def cut_card(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """The cutting card appears during the round: it is removed and the round
    completed (MBS 3.22 of Tiger Baccarat, 3.17 of Dragon Tiger); the shoe
    ends after it (``LiveTable.shoe_finished``)."""
    clause = game_clause(round_, "cut_card", "the cutting card")
    check_in_play(round_, clause)
    _check_cut_card_once(round_, clause)
    round_.note_irregularity(clause, "cutting card removed; the round is completed", role)
    return Ruling(clause, "continue")


@atomic
def cut_card_first(
    round_: Round, *, hlga: bool, withdrawing: Iterable[str] = (), role: Role = Role.DEALER
) -> Ruling:
    """In HLGA, the cutting card appears as the first card of the round: the
    Dealer may allow players to withdraw their wagers (MBS 3.22.1; Dragon
    Tiger 3.17.1).  Calling this is the Dealer allowing it."""
    clause = _check_cut_card_first(round_, hlga)
    taken = give_options(round_, clause, _CUT_CARD_FIRST, withdrawing, role)
    return Ruling(clause, "withdrawal", withdrawn=taken)


@atomic
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
    clause = game_clause(round_, "cut_card_first", "the cutting card as first card")
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
