"""punto: the approved baccarat games of ``shared/rules``, exactly as written.

>>> import punto
>>> game = punto.get_game("tiger-baccarat")
>>> coup = punto.Coup.parse("QH 2C 2D KS 3H 4D")
>>> [r.event for r in punto.settle(game, coup, [punto.Bet("tiger", punto.Decimal(10))]).results]
['three_cards']
"""

from decimal import Decimal

from punto.cards import Card, Rank, Suit, format_cards, parse_cards
from punto.coup import Coup, Deal, Hand, Side, Winner, deal
from punto.errors import PuntoError
from punto.game import Game, Layout, Wager
from punto.games import all_games, get_game
from punto.settlement import Bet, BetResult, Outcome, Settlement, settle
from punto.shoe import Shoe
from punto.wagers import KINDS, PairRule

__all__ = [
    "KINDS",
    "Bet",
    "BetResult",
    "Card",
    "Coup",
    "Deal",
    "Decimal",
    "Game",
    "Hand",
    "Layout",
    "Outcome",
    "PairRule",
    "PuntoError",
    "Rank",
    "Settlement",
    "Shoe",
    "Side",
    "Suit",
    "Wager",
    "Winner",
    "all_games",
    "deal",
    "format_cards",
    "get_game",
    "parse_cards",
    "settle",
]

__version__ = "0.1.0"
