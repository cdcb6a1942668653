"""Shared helpers for the rulebook tests: hand-checked coups, one-bet settlement,
and the Table of Play transcribed from the rules text.

Every coup here was worked out by hand from the Table of Play before the
engine saw it.  Cards are given in shoe order: Player, Banker, Player, Banker,
then the Player's third card (if drawn) and the Banker's third card (if drawn).
:meth:`Picked.coup` checks the engine deals the hands the way the hand working
says, so a coup that is not what its comment claims fails loudly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from punto.rules.cards import Card, parse_cards
from punto.rules.coup import Coup, Deal, Side
from punto.rules.game import Game
from punto.rules.insurance import Moment
from punto.rules.settlement import Bet, BetResult, Outcome, settle
from punto.rules.wagers import PairRule

STAKE = Decimal("100")
SIDE_STAKE = Decimal("10")


@dataclass(frozen=True)
class Picked:
    """A coup picked by hand, with each hand as (point total, number of cards)
    worked out by hand from the Table of Play."""

    cards: str
    player: tuple[int, int]
    banker: tuple[int, int]

    def coup(self) -> Coup:
        coup = Coup.parse(self.cards)
        dealt = (
            (coup.player.total, coup.player.card_count),
            (coup.banker.total, coup.banker.card_count),
        )
        assert dealt == (self.player, self.banker), (
            f"{self.cards}: the engine dealt Player/Banker {dealt}, "
            f"worked by hand as {(self.player, self.banker)}"
        )
        return coup


# -- The catalogue of hand-worked coups -----------------------------------------------
# "P 2+3=5 draws K" reads: the Player's two cards total 5, it draws a King.

#: P 9+K=9 natural; B 2+3=5.  Player wins 9 v 5 on four cards.  No pairs.
PLAYER_NATURAL_NINE = Picked("9H 2C KD 3S", player=(9, 2), banker=(5, 2))
#: P 2+3=5; B 9+K=9 natural.  Banker wins 9 v 5 on four cards.  No pairs.
BANKER_NATURAL_NINE = Picked("2H 9C 3D KS", player=(5, 2), banker=(9, 2))
#: P 9+K=9, B 9+K=9, both natural.  A Tie on nine.  No pairs.
NATURAL_TIE = Picked("9H 9C KD KS", player=(9, 2), banker=(9, 2))
#: P 6+K=6 stands; B 6+K=6 stands (Player stood).  A Tie on six, four cards.
TIE_ON_SIX = Picked("6H 6C KD KS", player=(6, 2), banker=(6, 2))

#: P 2+3=5 draws K (5); B 4+2=6 stands on a Player third card of 0.
#: Banker wins 6 v 5 with two cards.
BANKER_SIX_TWO_CARDS = Picked("2H 4C 3D 2S KH", player=(5, 3), banker=(6, 2))
#: P Q+2=2 draws 3 (5); B 2+K=2 draws 4 (6).  Banker wins 6 v 5 with three cards.
BANKER_SIX_THREE_CARDS = Picked("QH 2C 2D KS 3H 4D", player=(5, 3), banker=(6, 3))

#: P 7+K=7 stands; B 6+K=6 stands.  Player wins 7 v 6, two cards each (4 cards).
PLAYER_SEVEN_OVER_SIX_FOUR_CARDS = Picked("7H 6C KD KS", player=(7, 2), banker=(6, 2))
#: P 2+3=5 draws 2 (7); B 4+2=6 stands on a 2.  Player (3 cards) 7 v Banker (2 cards) 6.
PLAYER_SEVEN_OVER_SIX_FIVE_CARDS = Picked("2H 4C 3D 2S 2D", player=(7, 3), banker=(6, 2))
#: P 7+K=7 stands; B 3+K=3 draws (Player stood) 3 (6).  Player (2 cards) 7 v Banker (3) 6.
PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX = Picked("7H 3C KD KS 3D", player=(7, 2), banker=(6, 3))
#: P Q+2=2 draws 5 (7); B 2+K=2 draws 4 (6).  Player 7 v Banker 6, three cards each.
PLAYER_SEVEN_OVER_SIX_SIX_CARDS = Picked("QH 2C 2D KS 5H 4D", player=(7, 3), banker=(6, 3))

#: P 6+K=6 stands; B 3+K=3 draws (Player stood) 2 (5).  Player wins 6 v 5 with two cards.
PLAYER_SIX_TWO_CARDS = Picked("6H 3C KD KS 2D", player=(6, 2), banker=(5, 3))
#: P Q+2=2 draws 4 (6); B 2+K=2 draws 3 (5).  Player wins 6 v 5 with three cards.
PLAYER_SIX_THREE_CARDS = Picked("QH 2C 2D KS 4H 3D", player=(6, 3), banker=(5, 3))
#: P Q+2=2 draws 3 (5); B 2+K=2 draws 5 (7).  Banker wins 7 v 5 with three cards.
BANKER_SEVEN_THREE_CARDS = Picked("QH 2C 2D KS 3H 5D", player=(5, 3), banker=(7, 3))
#: P 6+K=6 stands; B 7+K=7 stands.  Banker wins 7 v 6, two cards each (4 cards).
BANKER_SEVEN_OVER_SIX_FOUR_CARDS = Picked("6H 7C KD KS", player=(6, 2), banker=(7, 2))
#: P 7+K=7 stands; B 3+K=3 draws (Player stood) 5 (8).  Banker (3 cards) 8 v Player (2) 7.
BANKER_EIGHT_OVER_SEVEN_FIVE_CARDS = Picked("7H 3C KD KS 5D", player=(7, 2), banker=(8, 3))
#: P Q+2=2 draws 4 (6); B 2+K=2 draws 5 (7).  Banker 7 v Player 6, three cards each.
BANKER_SEVEN_OVER_SIX_SIX_CARDS = Picked("QH 2C 2D KS 4H 5D", player=(6, 3), banker=(7, 3))
#: P 8+K=8 natural; B 7+K=7.  Player wins 8 v 7 on four cards.
PLAYER_EIGHT_OVER_SEVEN = Picked("8H 7C KD KS", player=(8, 2), banker=(7, 2))
#: P 9+K=9 natural; B 8+K=8 natural.  Player wins 9 v 8 on four cards.
PLAYER_NINE_OVER_EIGHT = Picked("9H 8C KD KS", player=(9, 2), banker=(8, 2))
#: P 7+K=7; B 8+K=8 natural.  Banker wins 8 v 7 on four cards.
BANKER_EIGHT_OVER_SEVEN = Picked("7H 8C KD KS", player=(7, 2), banker=(8, 2))
#: P 8+K=8 natural; B 9+K=9 natural.  Banker wins 9 v 8 on four cards.
BANKER_NINE_OVER_EIGHT = Picked("8H 9C KD KS", player=(8, 2), banker=(9, 2))

#: P A+K=1 draws J (1); B 3+K=3 draws on a Player third card of 0 (3 draws except
#: on an 8), takes 7 (0).  Player wins 1 v 0.  No pairs.
PLAYER_ONE_OVER_ZERO = Picked("AH 3C KD KS JH 7D", player=(1, 3), banker=(0, 3))

#: P 4+4=8 natural (a pair of 4s); B 2+3=5.  Player wins 8 v 5.
PLAYER_PAIR = Picked("4H 2C 4D 3S", player=(8, 2), banker=(5, 2))
#: P 2+3=5; B 4+4=8 natural (a pair of 4s).  Banker wins 8 v 5.
BANKER_PAIR = Picked("2H 4C 3D 4S", player=(5, 2), banker=(8, 2))
#: P 4+4=8 natural (4s); B 2+2=4 (2s).  Both hands pair, different pairs.  Player wins.
DOUBLE_PAIR = Picked("4H 2C 4D 2S", player=(8, 2), banker=(4, 2))
#: P 4+4=8, B 4+4=8, both natural: the same pair in both hands.  A Tie on eight.
TWIN_PAIR = Picked("4H 4C 4D 4S", player=(8, 2), banker=(8, 2))


# -- Settling ---------------------------------------------------------------------------


def settle_one(
    game: Game,
    picked: Picked,
    wager: str,
    stake: Decimal = SIDE_STAKE,
    *,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
    moment: Moment | None = None,
) -> BetResult:
    """Settle one bet on a hand-picked coup."""
    settlement = settle(
        game, picked.coup(), [Bet(wager, stake, moment)], layout=layout, pair_rule=pair_rule
    )
    (result,) = settlement.results
    return result


def summary(result: BetResult) -> tuple[Outcome, str | None, Decimal]:
    """Outcome, event and net money of a result, for one-line comparisons."""
    return result.outcome, result.event, result.net


def won(event: str, net: str) -> tuple[Outcome, str, Decimal]:
    return Outcome.WIN, event, Decimal(net)


def lost(stake: Decimal = SIDE_STAKE) -> tuple[Outcome, None, Decimal]:
    return Outcome.LOSE, None, -stake


PUSHED: tuple[Outcome, str, Decimal] = (Outcome.PUSH, "tie", Decimal(0))


# -- The wager x event matrix -----------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One wager settled on one coup: the expected event (None: the bet loses)
    and the exact net money, worked out by hand from the pay tables."""

    wager: str
    event: str | None
    picked: Picked
    outcome: Outcome
    net: Decimal
    stake: Decimal = SIDE_STAKE
    label: str = ""

    @property
    def id(self) -> str:
        return "-".join(filter(None, (self.wager, self.event or "lose", self.label)))


def win(
    wager: str,
    event: str,
    picked: Picked,
    net: str,
    stake: Decimal = SIDE_STAKE,
    label: str = "",
) -> Case:
    return Case(wager, event, picked, Outcome.WIN, Decimal(net), stake, label)


def lose(wager: str, picked: Picked, stake: Decimal = SIDE_STAKE, label: str = "") -> Case:
    return Case(wager, None, picked, Outcome.LOSE, -stake, stake, label)


def push(wager: str, picked: Picked, stake: Decimal = STAKE) -> Case:
    return Case(wager, "tie", picked, Outcome.PUSH, Decimal(0), stake)


def wager_events(game: Game, layout: str | None) -> set[tuple[str, str | None]]:
    """Every (wager, event) an offered wager can produce, None standing for a loss."""
    found: set[tuple[str, str | None]] = set()
    for wid, wager in game.offered(layout).items():
        if wager.kind is None:  # Insurance Plus: priced per offer, tested on its own
            continue
        found.add((wid, None))
        found.update((wid, event) for event in wager.kind.events)
    return found


def matrix(game: Game, cases: Iterable[Case]) -> list[tuple[str, Case]]:
    """(layout, case) for every layout and every case whose wager it offers."""
    return [
        (layout, case)
        for layout in game.layouts
        for case in cases
        if case.wager in game.offered(layout)
    ]


def matrix_id(value: object) -> str:
    return value.id if isinstance(value, Case) else str(value)


# -- The Table of Play, transcribed from the rules text ---------------------------------

#: The Banker column of the Table of Play as every rules file prints it: the
#: point values of the Player's third card on which a Banker two-card total
#: draws ("0, 1, 2 Draws a Card"; "3 Draws except when Player draws an 8";
#: "4 Draws when Player 3rd Card is 2-7"; "5 ... 4-7"; "6 ... 6 or 7"; "7 Stands").
BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset(range(10)) - {8},
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}


def value_card(value: int, suit: str) -> str:
    """A card of the given point value: a Ten for zero, an Ace for one."""
    return {0: "T", 1: "A"}.get(value, str(value)) + suit


def two_card_hand(total: int, suit: str) -> tuple[str, str]:
    """Two cards totalling ``total``: a King and a card of that value (King-Queen for 0)."""
    return "K" + suit, ("Q" + suit if total == 0 else value_card(total, suit))


def initial_deal(player_total: int, banker_total: int) -> Deal:
    """The four cards of an initial deal with these two-card totals (P, B, P, B)."""
    p1, p2 = two_card_hand(player_total, "H")
    b1, b2 = two_card_hand(banker_total, "C")
    return Deal(parse_cards([p1, b1, p2, b2]))


def player_draws(player_total: int, banker_total: int) -> bool:
    """Whether the engine gives the Player a third card after this initial deal."""
    return initial_deal(player_total, banker_total).next_side is Side.PLAYER


def banker_draws_when_player_stands(player_total: int, banker_total: int) -> bool:
    deal = initial_deal(player_total, banker_total)
    assert deal.next_side is not Side.PLAYER
    return deal.next_side is Side.BANKER


def banker_draws_after_third_card(banker_total: int, third: int) -> bool:
    """Whether the engine gives the Banker a third card when the Player (2+3=5)
    drew a card of point value ``third``."""
    deal = initial_deal(5, banker_total)
    assert deal.next_side is Side.PLAYER
    return deal.add(parse_cards([value_card(third, "D")])[0]).next_side is Side.BANKER


# -- Outcome established, by brute force ---------------------------------------------------


def endings(deal: Deal) -> list[Coup]:
    """Every way the coup can still end, trying a card of each point value for
    each card still to come (once the initial four cards are out, the hands
    depend only on point values)."""
    assert deal.is_initial_deal_done, "pairs need ranks: give at least the four cards"
    if deal.is_complete:
        return [deal.to_coup()]
    return [
        coup
        for value in range(10)
        for coup in endings(deal.add(Card.parse(value_card(value, "S"))))
    ]


def settled_by_every_ending(
    game: Game, deal: Deal, layout: str | None = None
) -> dict[str, str | None]:
    """The wagers whose event is the same however the coup ends (None: lost)."""
    coups = endings(deal)
    found: dict[str, str | None] = {}
    for wid, wager in game.offered(layout).items():
        if wager.kind is None:
            continue
        events = {wager.kind(coup, game.pair_rule) for coup in coups}
        if len(events) == 1:
            found[wid] = events.pop()
    return found
