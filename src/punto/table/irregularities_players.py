"""The irregularities of the players and the rest: an absent player, missing
cards, a player who leaves with cards, the squeeze waived, a forgotten
Insurance Plus, and what the rules do not foresee (the Gaming Shift Manager's
decision) (:mod:`punto.table.irregularities` exports them with the others).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from punto.errors import ActionError, InsuranceError, PhaseError
from punto.rules.cards import Card, format_cards
from punto.rules.coup import Deal, Side
from punto.rules.insurance import INSURANCE_EVENTS, Moment, completions, insurance_event
from punto.table.irregularity_rules import (
    Ruling,
    atomic,
    check_dealing,
    check_role,
    deal_as_needed,
    game_clause,
    unforeseen_clause,
)
from punto.table.roles import Role
from punto.table.round import Phase, Round


@atomic
def absent_player(round_: Round, *, role: Role = Role.DEALER) -> Ruling:
    """MBS 5.10: the player handling the cards is not there to expose them or
    take more cards: the Dealer exposes them, play continues."""
    clause = game_clause(round_, "absent_player", "an absent player")
    check_dealing(round_, clause)
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


@atomic
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
    clause = game_clause(round_, "left_with_cards", "a player leaving with cards")
    check_role(role, Role.SHIFT_MANAGER, "have the missing cards determined", f"{clause}.1")
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
    unused = deal_as_needed(round_, set_aside, "set_aside")
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


@atomic
def squeeze_waiver(
    round_: Round, reason: str, *, requester: str | None = None, role: Role = Role.DEALER
) -> Ruling:
    """RWS 3.14: the House lets the highest bettor (``requester``, checked
    when named) squeeze (or expose) the Banker's third card before the
    Player's is opened: every player's Insurance after the Player's third
    card is waived this round."""
    clause = game_clause(round_, "squeeze_waiver", "a squeeze waiver")
    round_.waive_insurance(reason, role, requester=requester)
    return Ruling(clause, "continue")


@atomic
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
    clause = game_clause(round_, "insurance_forgotten", "a neglected Insurance offer")
    check_role(role, Role.PIT_MANAGER, "remedy a neglected Insurance offer", clause)
    if not round_.insurance_offered:
        raise InsuranceError(
            "no Insurance is offered at this table (the notice is displayed)",
            clause=round_.game.clause("no_insurance_notice"),
            hint=f"{clause} does not apply",
        )
    when = moment or _last_missed(round_, clause)
    if not round_.insured_outcome_established():
        open_clause = game_clause(round_, "insurance_forgotten_open", "a neglected Insurance offer")
        sides = {o.insures for o in round_.missed_insurance_offers(when)}
        offer_to = (
            list(players)
            if players is not None
            else [p for p in round_.players if any(round_.original_bet(p, s) for s in sides)]
        )
        round_.reoffer_insurance(when, offer_to, role)
        return Ruling(open_clause, "offered")
    late_clause = game_clause(
        round_, "insurance_forgotten_established", "a neglected Insurance offer"
    )
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


@atomic
def unforeseen(
    round_: Round, reason: str, *, void: bool, role: Role = Role.SHIFT_MANAGER
) -> Ruling:
    """An irregularity the rules do not cover, decided by the Gaming Shift
    Manager (MBS 6.1; RWS 5.19, the Table Game Shift Manager or above):
    void the round, or let it stand, recorded with the reason."""
    clause = unforeseen_clause(round_)
    if void:
        round_.void_round(reason, clause, role, required=Role.SHIFT_MANAGER)
        return Ruling(clause, "void")
    round_.note_irregularity(clause, reason, role, required=Role.SHIFT_MANAGER)
    return Ruling(clause, "stand")
