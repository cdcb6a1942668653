"""Wager kinds: what wins, once, in the rules' words.

A wager kind is a plain function of a finished :class:`~punto.rules.coup.Coup` that
names the event it won on (``"two_cards"``, ``"tie"``, ...), or returns None
for "any other outcome" (a loss).  What an event *pays* is game data (the
TOML files in :mod:`punto.rules.games`); a kind never knows its odds.  Settlement,
the exact analysis and the simulation all call these same functions.

>>> coup = Coup.parse("QH 2C 2D KS 3H 4D")   # Banker 6 on three cards v Player 5
>>> KINDS["banker"](coup), KINDS["tiger"](coup), KINDS["small_tiger"](coup)
('win', 'three_cards', None)
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from punto.rules.cards import Card
from punto.rules.coup import Coup, Winner


class PairRule(enum.Enum):
    """When two cards make a Pair.

    ``RANK``: the same rank (two 9's, two Q's) -- Tiger No Commission 1.1.10,
    Tiger Buffalo 1.21/1.33, Baccarat Tournament 1.1.4.

    ``LITERAL``: Tiger Baccarat 1.1.14 as written -- the same point value, or
    identical face cards; two different face cards are not a Pair, so a Ten
    with a Jack is (both value zero, not two face cards).
    """

    LITERAL = "literal"
    RANK = "rank"


def is_pair(a: Card, b: Card, rule: PairRule) -> bool:
    """Whether two cards form a Pair under ``rule``.

    >>> from punto.rules.cards import parse_cards
    >>> ten, jack, queen = parse_cards("TS JH QD")
    >>> is_pair(ten, jack, PairRule.LITERAL), is_pair(ten, jack, PairRule.RANK)
    (True, False)
    >>> is_pair(jack, queen, PairRule.LITERAL)
    False
    """
    if a.rank is b.rank:
        return True
    if rule is PairRule.RANK:
        return False
    return a.value == b.value and not (a.rank.is_face and b.rank.is_face)


#: What every output says where pairs are read by the literal reading (Tiger
#: Baccarat 1.1.14 as written): an explicit option, never the default.
LITERAL_PAIR_WARNING = (
    "pairs read by the literal reading of Tiger Baccarat 1.1.14 (an explicit option, "
    "not the default): a Ten with a Jack, Queen or King is a Pair, and the approved "
    "Tiger Pair paytable then favours the player (docs/interpretations.md)"
)


def pair_rule_warning(rule: PairRule) -> str | None:
    """The warning an output carries for ``rule``, if any.

    >>> pair_rule_warning(PairRule.RANK) is None
    True
    >>> pair_rule_warning(PairRule.LITERAL).startswith("pairs read by the literal reading")
    True
    """
    return LITERAL_PAIR_WARNING if rule is PairRule.LITERAL else None


class Basis(enum.Enum):
    """What a kind looks at, which tells the analysis how to tabulate it."""

    #: only the coup class: both totals and both card counts
    CLASS = "class"
    #: only the first two cards of each hand
    PAIRS = "pairs"


Decide = Callable[[Coup, PairRule], "str | None"]


@dataclass(frozen=True, slots=True)
class WagerKind:
    """What makes a wager win, and every event it can win (or push) on."""

    name: str
    events: tuple[str, ...]
    basis: Basis
    decide: Decide
    definition: str

    def __call__(self, coup: Coup, rule: PairRule = PairRule.RANK) -> str | None:
        return self.decide(coup, rule)


KINDS: dict[str, WagerKind] = {}


def _kind(*events: str, basis: Basis = Basis.CLASS) -> Callable[[Decide], Decide]:
    def register(fn: Decide) -> Decide:
        name = fn.__name__
        KINDS[name] = WagerKind(name, events, basis, fn, (fn.__doc__ or "").strip())
        return fn

    return register


def _wins_with(coup: Coup, winner: Winner, total: int, cards: int | None = None) -> bool:
    hand = coup.player if winner is Winner.PLAYER else coup.banker
    return (
        coup.winner is winner
        and hand.total == total
        and (cards is None or hand.card_count == cards)
    )


# -- Player, Banker, Tie ------------------------------------------------------


@_kind("win", "tie")
def player(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand has the higher point total; a Tie returns the wager."""
    if coup.winner is Winner.PLAYER:
        return "win"
    return "tie" if coup.winner is Winner.TIE else None


@_kind("win", "tie")
def banker(coup: Coup, rule: PairRule) -> str | None:
    """The Banker hand has the higher point total; a Tie returns the wager."""
    if coup.winner is Winner.BANKER:
        return "win"
    return "tie" if coup.winner is Winner.TIE else None


@_kind("win", "win_on_six", "tie")
def banker_on_six(coup: Coup, rule: PairRule) -> str | None:
    """Banker wager of a no-commission game: a win with a point total of six
    is its own event (it pays less); a Tie returns the wager."""
    if coup.winner is Winner.BANKER:
        return "win_on_six" if coup.banker.total == 6 else "win"
    return "tie" if coup.winner is Winner.TIE else None


@_kind("tie")
def tie(coup: Coup, rule: PairRule) -> str | None:
    """Both hands have the same point total."""
    return "tie" if coup.winner is Winner.TIE else None


# -- Banker wins with six: the Tiger family -------------------------------------


@_kind("two_cards", "three_cards")
def tiger(coup: Coup, rule: PairRule) -> str | None:
    """The Banker wins with a point total of six, on two or three cards."""
    if _wins_with(coup, Winner.BANKER, 6):
        return "two_cards" if coup.banker.card_count == 2 else "three_cards"
    return None


@_kind("win")
def small_tiger(coup: Coup, rule: PairRule) -> str | None:
    """The Banker wins with a point total of six with two cards."""
    return "win" if _wins_with(coup, Winner.BANKER, 6, 2) else None


@_kind("win")
def big_tiger(coup: Coup, rule: PairRule) -> str | None:
    """The Banker wins with a point total of six with three cards."""
    return "win" if _wins_with(coup, Winner.BANKER, 6, 3) else None


@_kind("win")
def tiger_tie(coup: Coup, rule: PairRule) -> str | None:
    """Both hands tie on a point total of six."""
    return "win" if coup.winner is Winner.TIE and coup.player.total == 6 else None


# -- Pairs ---------------------------------------------------------------------------


@_kind("pair", basis=Basis.PAIRS)
def player_pair(coup: Coup, rule: PairRule) -> str | None:
    """The first two cards of the Player hand form a Pair."""
    a, b = coup.player.cards[:2]
    return "pair" if is_pair(a, b, rule) else None


@_kind("pair", basis=Basis.PAIRS)
def banker_pair(coup: Coup, rule: PairRule) -> str | None:
    """The first two cards of the Banker hand form a Pair."""
    a, b = coup.banker.cards[:2]
    return "pair" if is_pair(a, b, rule) else None


@_kind("single", "double", "twin", basis=Basis.PAIRS)
def tiger_pair(coup: Coup, rule: PairRule) -> str | None:
    """The first two cards of either hand or both form a Pair: Single (one
    hand), Double (both), Twin (both, and the two pairs are the same pair --
    all four cards pair with one another)."""
    p, b = coup.player.cards[:2], coup.banker.cards[:2]
    player_has, banker_has = is_pair(p[0], p[1], rule), is_pair(b[0], b[1], rule)
    if player_has and banker_has:
        twin = all(is_pair(x, y, rule) for x in p for y in b)
        return "twin" if twin else "double"
    return "single" if player_has or banker_has else None


# -- Dragon Tiger ---------------------------------------------------------------------


@_kind("win")
def big_dragon(coup: Coup, rule: PairRule) -> str | None:
    """The Player wins with a point total of seven with three cards."""
    return "win" if _wins_with(coup, Winner.PLAYER, 7, 3) else None


@_kind("win")
def small_dragon(coup: Coup, rule: PairRule) -> str | None:
    """The Player wins with a point total of seven with two cards."""
    return "win" if _wins_with(coup, Winner.PLAYER, 7, 2) else None


_CARD_COUNT_EVENTS = {4: "four_cards", 5: "five_cards", 6: "six_cards"}


@_kind("four_cards", "five_cards", "six_cards")
def dragon_tiger(coup: Coup, rule: PairRule) -> str | None:
    """The Player wins with seven over the Banker's six; the event is the
    number of cards in both hands together."""
    if coup.winner is Winner.PLAYER and coup.player.total == 7 and coup.banker.total == 6:
        return _CARD_COUNT_EVENTS[len(coup.cards)]
    return None


# -- Tiger Buffalo side bets ---------------------------------------------------------


@_kind("win")
def small_buffalo(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand, comprising two cards, wins with a point total of six."""
    return "win" if _wins_with(coup, Winner.PLAYER, 6, 2) else None


@_kind("win")
def big_buffalo(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand, comprising three cards, wins with a point total of six."""
    return "win" if _wins_with(coup, Winner.PLAYER, 6, 3) else None


@_kind("win")
def tiger_buffalo(coup: Coup, rule: PairRule) -> str | None:
    """The Banker hand or the Player hand wins with a point total of six."""
    won = _wins_with(coup, Winner.BANKER, 6) or _wins_with(coup, Winner.PLAYER, 6)
    return "win" if won else None


@_kind("win")
def banker_big_7(coup: Coup, rule: PairRule) -> str | None:
    """The Banker hand, comprising three cards, wins with a point total of seven."""
    return "win" if _wins_with(coup, Winner.BANKER, 7, 3) else None


@_kind("win")
def banker_small_7(coup: Coup, rule: PairRule) -> str | None:
    """The Banker hand, comprising two cards, wins with a point total of seven."""
    return "win" if _wins_with(coup, Winner.BANKER, 7, 2) else None


@_kind("win")
def player_big_7(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand, comprising three cards, wins with a point total of seven."""
    return "win" if _wins_with(coup, Winner.PLAYER, 7, 3) else None


@_kind("win")
def player_small_7(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand, comprising two cards, wins with a point total of seven."""
    return "win" if _wins_with(coup, Winner.PLAYER, 7, 2) else None


@_kind("win")
def wu_dalang(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand wins with a point total of one."""
    return "win" if _wins_with(coup, Winner.PLAYER, 1) else None


def _char_siu(coup: Coup, winner: Winner) -> str | None:
    hand, other = (
        (coup.player, coup.banker) if winner is Winner.PLAYER else (coup.banker, coup.player)
    )
    if coup.winner is winner and hand.total in (7, 8, 9) and hand.total - other.total == 1:
        return _CARD_COUNT_EVENTS[len(coup.cards)]
    return None


@_kind("four_cards", "five_cards", "six_cards")
def player_char_siu(coup: Coup, rule: PairRule) -> str | None:
    """The Player hand wins by one point with 7 over 6, 8 over 7 or 9 over 8;
    the event is the number of cards in both hands together."""
    return _char_siu(coup, Winner.PLAYER)


@_kind("four_cards", "five_cards", "six_cards")
def banker_char_siu(coup: Coup, rule: PairRule) -> str | None:
    """The Banker hand wins by one point with 7 over 6, 8 over 7 or 9 over 8;
    the event is the number of cards in both hands together."""
    return _char_siu(coup, Winner.BANKER)
