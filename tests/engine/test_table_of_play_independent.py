"""A second, deliberately naive Table of Play, and a check that the engine agrees.

The naive reading below is written from the clause text, the way a dealer reads
it off the felt, and does not look at :mod:`punto.rules.tableau`:

* Tiger Baccarat 3.13 / 3.15 (the same printed table is Tiger No Commission 3.9,
  Tiger Buffalo 3.15 and Dragon Tiger 3.14);
* Baccarat Tournament 3.9.1-3.9.4, which writes the same table out in words.

The engine is then compared with it on every sequence of card values a coup can
see: all 10^4 first-four-card values, every Player third card and every Banker
third card -- the number of cards dealt, the hand each card goes to, both
totals and the winner.
"""

# The naive reading is deliberately written as a dealer reads the table, one
# if/elif branch per printed row, not as the shortest boolean expression.
# ruff: noqa: SIM103, SIM114

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from punto.errors import DealError
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Coup, Deal, Side, Winner, cards_needed, deal
from punto.rules.tableau import banker_draws, player_draws

# --- the naive reading ---------------------------------------------------------------

PLAYER = "Player"
BANKER = "Banker"
TIE = "Tie"


def point_total(values: Sequence[int]) -> int:
    """3.4: the number itself up to nine, else its right digit."""
    total = 0
    for value in values:
        total = total + value
    while total >= 10:
        total = total - 10
    return total


def naive_player_draws(player_total: int) -> bool:
    """3.9.2 / 3.15 'Player' column (no Natural on the table)."""
    if player_total in (0, 1, 2, 3, 4, 5):
        return True  # "Draws a Card"
    elif player_total in (6, 7):
        return False  # "Stand"
    else:
        raise AssertionError("a Natural never reaches the Player column")


def naive_banker_draws(banker_total: int, player_third: int | None) -> bool:
    """3.9.3 / 3.9.4 / 3.15 'Banker' column (no Natural on the table).

    ``player_third`` is the point value of the Player's third card, or None
    when the Player stood.
    """
    if player_third is None:
        # 3.9.3: "When the Player stands, the Banker draws on 0-5 and stands on 6 or 7."
        # 3.15: "When Player stands on 6 or 7, Banker draws on 0 - 5".
        if banker_total <= 5:
            return True
        else:
            return False
    if banker_total == 0 or banker_total == 1 or banker_total == 2:
        return True  # "draws when the Player third card has a point value of 0-9"
    elif banker_total == 3:
        # "Draws except when Player draws an 8 as 3rd Card"
        if player_third == 8:
            return False
        else:
            return True
    elif banker_total == 4:
        # "Draws when Player 3rd Card is 2, 3, 4, 5, 6 or 7"
        if player_third == 2 or player_third == 3 or player_third == 4:
            return True
        elif player_third == 5 or player_third == 6 or player_third == 7:
            return True
        else:
            return False
    elif banker_total == 5:
        # "Draws when Player 3rd Card is 4, 5, 6 or 7"
        if player_third >= 4 and player_third <= 7:
            return True
        else:
            return False
    elif banker_total == 6:
        # "Draws when Player 3rd Card is 6 or 7"
        if player_third == 6 or player_third == 7:
            return True
        else:
            return False
    else:
        # 7: "Stands" -- "Banker stands at all other times."
        return False


@dataclass(frozen=True)
class NaiveCoup:
    """What a dealer does with a run of card values: who got which card, and who won."""

    receivers: tuple[str, ...]  # the hand each dealt card went to, in shoe order
    player_total: int
    banker_total: int
    winner: str
    natural: bool

    @property
    def cards_dealt(self) -> int:
        return len(self.receivers)


def naive_coup(values: Sequence[int]) -> NaiveCoup:
    """Deal from ``values`` (enough of them for any coup) as the rules read.

    3.13: the first and third cards are the Player's first two, the second and
    fourth the Banker's first two.  3.15 / 3.9.1: a Natural (8 or 9 on either
    hand) ends the deal.  Otherwise the Player's column, then the Banker's.
    """
    player = [values[0], values[2]]
    banker = [values[1], values[3]]
    receivers = [PLAYER, BANKER, PLAYER, BANKER]
    next_card = 4
    player_two = point_total(player)
    banker_two = point_total(banker)
    natural = player_two in (8, 9) or banker_two in (8, 9)
    if not natural:
        player_third: int | None = None
        if naive_player_draws(player_two):
            player_third = values[next_card]
            player.append(player_third)
            receivers.append(PLAYER)
            next_card = next_card + 1
        if naive_banker_draws(banker_two, player_third):
            banker.append(values[next_card])
            receivers.append(BANKER)
            next_card = next_card + 1
    p = point_total(player)
    b = point_total(banker)
    # 3.16: the hand with the highest point total; 3.16.1: equal totals are a Tie.
    if p > b:
        winner = PLAYER
    elif b > p:
        winner = BANKER
    else:
        winner = TIE
    return NaiveCoup(tuple(receivers), p, b, winner, natural)


# --- cards standing for values: Ten for 0, Ace..Nine for 1..9 ---------------------------

_RANK_FOR_VALUE = (Rank.TEN, *(Rank(v) for v in range(1, 10)))
_SUITS = tuple(Suit)


def card_of(value: int, position: int = 0) -> Card:
    """A card of point ``value``; the suit varies with the position, for variety."""
    return Card(_RANK_FOR_VALUE[value], _SUITS[position % 4])


_SIDE_NAME = {Side.PLAYER: PLAYER, Side.BANKER: BANKER}
_WINNER_NAME = {Winner.PLAYER: PLAYER, Winner.BANKER: BANKER, Winner.TIE: TIE}


# --- sanity checks of the naive reading against the printed rows -------------------------


@pytest.mark.parametrize(
    ("values", "cards_dealt", "winner"),
    [
        ((9, 2, 0, 6), 4, PLAYER),  # Player natural 9: no more cards (3.9.1)
        ((2, 8, 4, 0), 4, BANKER),  # Banker natural 8 stops a drawing Player
        ((3, 0, 4, 6), 4, PLAYER),  # Player 7 stands, Banker 6 stands (3.9.3)
        ((3, 0, 3, 5, 2), 5, BANKER),  # Player 6 stands, Banker 5 draws on the 5th card
        ((0, 3, 0, 0, 8), 5, PLAYER),  # Banker 3 stands on a Player third 8
        ((0, 3, 0, 0, 9, 4), 6, PLAYER),  # ... and draws on a Player third 9
        ((0, 4, 0, 0, 1), 5, BANKER),  # Banker 4 stands on a Player third 1
        ((0, 6, 0, 0, 6, 1), 6, BANKER),  # Banker 6 draws on a Player third 6
    ],
)
def test_naive_reading_follows_the_printed_rows(
    values: tuple[int, ...], cards_dealt: int, winner: str
) -> None:
    padded = (*values, 0, 0)
    naive = naive_coup(padded)
    assert naive.cards_dealt == cards_dealt
    assert naive.winner == winner


# --- the engine agrees with the naive reading ------------------------------------------


@pytest.mark.slow
def test_table_of_play_3_15_agrees_with_naive_reading_on_all_first_four_cards() -> None:
    """Every value sequence of a coup: 10^4 initial deals x every Player third
    card x every Banker third card (all 10^6 six-value runs, by the prefixes
    the coup actually uses).

    At each card the engine's ``Deal.next_side`` must name the hand the naive
    dealer gives the next card to (None where the naive dealer stops); each
    finished coup must have the naive hands, card for card, totals and winner.
    """
    card_at = [[card_of(v, i) for v in range(10)] for i in range(6)]
    empty = Deal()
    coups = 0
    six_value_runs = 0
    for first_four in itertools.product(range(10), repeat=4):
        naive4 = naive_coup((*first_four, 0, 0))
        four = tuple(card_at[i][v] for i, v in enumerate(first_four))
        state = empty
        for i, card in enumerate(four):  # 3.13: Player, Banker, Player, Banker
            assert state.next_side is not None
            assert _SIDE_NAME[state.next_side] == naive4.receivers[i]
            state = state.add(card)
        _assert_next_receiver(state, naive4, 4)
        # every fifth and sixth value, grouped by the prefix the coup actually uses
        fifths = range(10) if naive4.cards_dealt > 4 else [None]
        for fifth in fifths:
            values5 = (*first_four, 0 if fifth is None else fifth)
            naive5 = naive_coup((*values5, 0))
            state5 = state
            if fifth is not None:
                state5 = state.add(card_at[4][fifth])
                _assert_next_receiver(state5, naive5, 5)
            sixths = range(10) if naive5.cards_dealt > 5 else [None]
            for sixth in sixths:
                values = (*values5, 0 if sixth is None else sixth)
                naive = naive_coup(values)
                six_value_runs += (10 if fifth is None else 1) * (10 if sixth is None else 1)
                cards = tuple(card_at[i][values[i]] for i in range(naive.cards_dealt))
                coup = Coup.from_cards(cards)
                context = f"values {values[: naive.cards_dealt]}"
                assert len(coup.cards) == naive.cards_dealt, context
                naive_player = tuple(
                    c for c, r in zip(cards, naive.receivers, strict=True) if r == PLAYER
                )
                naive_banker = tuple(
                    c for c, r in zip(cards, naive.receivers, strict=True) if r == BANKER
                )
                assert coup.player.cards == naive_player, context
                assert coup.banker.cards == naive_banker, context
                assert coup.player.total == naive.player_total, context
                assert coup.banker.total == naive.banker_total, context
                assert _WINNER_NAME[coup.winner] == naive.winner, context
                assert coup.natural == naive.natural, context
                assert cards_needed(coup.cards) == naive.cards_dealt, context
                coups += 1
    assert six_value_runs == 10**6
    assert coups == 339_400  # distinct coups, one per prefix a coup uses


def _assert_next_receiver(state: Deal, naive: NaiveCoup, dealt: int) -> None:
    """After ``dealt`` cards the engine hands the next card where the naive dealer does."""
    expected = naive.receivers[dealt] if naive.cards_dealt > dealt else None
    side = state.next_side
    got = None if side is None else _SIDE_NAME[side]
    assert got == expected, f"after {state.cards}: engine {got}, naive {expected}"
    assert state.is_complete == (expected is None)


def test_table_of_play_3_9_4_tableau_functions_agree_with_naive_reading() -> None:
    """The engine's table, cell by cell: every pair of two-card totals and every
    Player third card (or none)."""
    for p, b in itertools.product(range(10), repeat=2):
        natural = p in (8, 9) or b in (8, 9)
        if natural:
            assert not player_draws(p, b)
            for third in (None, *range(10)):
                assert not banker_draws(p, b, third)
            continue
        assert player_draws(p, b) == naive_player_draws(p), (p, b)
        if naive_player_draws(p):
            for third in range(10):
                assert banker_draws(p, b, third) == naive_banker_draws(b, third), (p, b, third)
        else:
            assert banker_draws(p, b, None) == naive_banker_draws(b, None), (p, b)


def test_table_of_play_3_9_1_deal_from_a_source_takes_exactly_the_naive_count() -> None:
    """``deal`` takes from a longer run exactly the cards the coup needs and
    leaves the rest, for every six-value run that starts with a given card pair."""
    for values in itertools.product(range(10), repeat=4):
        for fifth, sixth in ((0, 0), (8, 3), (6, 7), (2, 9)):
            run = (*values, fifth, sixth, 5)
            source = iter([card_of(v, i) for i, v in enumerate(run)])
            coup = deal(source)
            naive = naive_coup(run)
            assert len(coup.cards) == naive.cards_dealt, run
            assert next(source) == card_of(run[naive.cards_dealt], naive.cards_dealt), run


def test_table_of_play_engine_refuses_a_card_past_the_naive_end() -> None:
    """After the naive dealer stops, the engine takes no further card."""
    for values in itertools.product(range(10), repeat=4):
        run = (*values, 4, 4)
        naive = naive_coup(run)
        cards = tuple(card_of(v, i) for i, v in enumerate(run[: naive.cards_dealt]))
        state = Deal(cards)
        assert state.is_complete, run
        with pytest.raises(DealError, match="complete"):
            state.add(card_of(0))
