"""The exact value of a bet when it was placed.

From the cards *seen* in the shoe so far (dealt face up; never the shoe's
undealt order, which a virtual shoe knows and a player does not), the
composition still unseen, and from it the exact return per unit of every
wager on offer -- computed by the code ``punto odds`` runs for a composition
(:func:`punto.analysis.tables.odds_table`).  Insurance Plus: the exact value of
the offer taken, from the cards on the table and the shoe
(:func:`punto.analysis.insurance_values.deal_values`).

>>> from punto.rules.games import get_game
>>> game = get_game("tiger-baccarat")
>>> returns = wager_returns(game, None, game.pair_rule, Composition.of_decks(8))
>>> returns["banker"]
Fraction(-114753351728, 10847218479825)
>>> value = BetValue("b1", "ann", "banker", 1000, returns["banker"])
>>> f"{float(value.expected_value):.2f}", value.house_edge > 0
('-10.58', True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from punto.analysis.composition import Composition, CompositionError
from punto.analysis.insurance_values import deal_values
from punto.analysis.tables import odds_table
from punto.errors import PuntoError
from punto.rules.cards import Card
from punto.rules.game import Game
from punto.rules.games import get_game
from punto.rules.insurance import Moment
from punto.rules.wagers import PairRule

__all__ = [
    "MAIN_WAGERS",
    "BetValue",
    "ValuationError",
    "insurance_value",
    "unseen",
    "wager_returns",
    "watched_wagers",
]

#: The game's main wagers (Player, Banker, Tie; Dragon, Tiger, Tie by the same
#: ids): counting gains little on them, so the detector watches the others.
MAIN_WAGERS = frozenset({"player", "banker", "tie"})

#: Compositions kept (all tables start at the full shoe, so the first few
#: hundred are shared by every table of a game).
CACHE_SIZE = 4096


class ValuationError(PuntoError):
    """A bet that cannot be valued (no cards left to deal a coup, a wager
    the analysis does not price)."""


@dataclass(frozen=True, slots=True)
class BetValue:
    """What one bet was worth when it was placed.

    ``stake`` in minor units; ``return_per_unit`` the exact expected net
    result of one unit staked, for the composition unseen then."""

    bet_id: str
    player: str
    wager: str
    stake: int
    return_per_unit: Fraction

    @property
    def expected_value(self) -> Fraction:
        """The player's expected net result in minor units (stake × return)."""
        return self.stake * self.return_per_unit

    @property
    def house_edge(self) -> Fraction:
        return -self.return_per_unit

    @property
    def theoretical_win(self) -> Fraction:
        """The house's expected win in minor units (stake × house edge)."""
        return -self.expected_value


def unseen(decks: int, seen: Iterable[Card]) -> Composition:
    """The composition of a shoe of ``decks`` decks less the cards ``seen``.

    >>> from punto.rules.cards import Card
    >>> unseen(8, [Card.parse("AS"), Card.parse("AH")]).counts[:2]
    (30, 32)
    """
    counts = [4 * decks] * 13
    taken = Counter(card.rank for card in seen)
    for rank, n in taken.items():
        counts[rank - 1] -= n
    if any(c < 0 for c in counts):
        raise ValuationError(
            f"more cards seen than {decks} decks hold ({sum(taken.values())} seen)",
            hint="the cards seen must come from the table's decks",
        )
    try:
        return Composition(tuple(counts), decks if sum(counts) == 52 * decks else None)
    except CompositionError as error:
        raise ValuationError(str(error), hint="no bet is valued on a spent shoe") from None


def wager_returns(
    game: Game, layout: str | None, pair_rule: PairRule, composition: Composition
) -> Mapping[str, Fraction]:
    """The exact return per unit of every wager ``game`` offers on ``layout``
    that the coup alone settles (not Insurance Plus), for ``composition``."""
    if _registered(game):
        return _returns(game.id, layout, pair_rule, composition.counts)
    table = odds_table(game, composition, layout, pair_rule)
    return {wid: w.return_exact for wid, w in table.wagers.items()}


@lru_cache(maxsize=CACHE_SIZE)
def _returns(
    game_id: str, layout: str | None, pair_rule: PairRule, counts: tuple[int, ...]
) -> Mapping[str, Fraction]:
    table = odds_table(get_game(game_id), Composition(counts), layout, pair_rule)
    return {wid: w.return_exact for wid, w in table.wagers.items()}


def _registered(game: Game) -> bool:
    try:
        return get_game(game.id) is game
    except PuntoError:
        return False


def watched_wagers(game: Game, layout: str | None) -> tuple[str, ...]:
    """The side bets on offer (every priced wager but the main ones), which a
    counter can beat and the detector watches."""
    from punto.analysis.plan import analysable

    return tuple(w for w in analysable(game.offered(layout)) if w not in MAIN_WAGERS)


def insurance_value(
    game: Game, composition: Composition, cards: Sequence[Card], wager: str, moment: Moment
) -> Fraction:
    """The exact value per unit of the Insurance Plus offer taken on ``wager``
    at ``moment``, with ``cards`` (the round's cards, in order) on the table
    dealt from a shoe of ``composition``."""
    insures = game.wagers[wager].insures
    on_table = tuple(cards[: 4 if moment is Moment.FOUR_CARDS else 5])
    for value in deal_values(game, composition, on_table):
        if value.offer.insures is insures and value.offer.moment is moment:
            return value.value
    raise ValuationError(
        f"no {wager} offer is open at {moment.value} on {' '.join(map(str, on_table))}",
        clause="4.1.15",
        hint="an Insurance Plus bet is valued on the offer it took",
    )
