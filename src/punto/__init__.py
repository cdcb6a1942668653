"""punto: the approved baccarat games of ``shared/rules``, exactly as written.

>>> import punto
>>> game = punto.get_game("tiger-baccarat")
>>> coup = punto.Coup.parse("QH 2C 2D KS 3H 4D")
>>> [r.event for r in punto.settle(game, coup, [punto.Bet("tiger", punto.Decimal(10))]).results]
['three_cards']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from decimal import Decimal

    from punto.errors import PuntoError
    from punto.rules.cards import Card, Rank, Suit, format_cards, parse_cards
    from punto.rules.coup import Coup, Deal, Hand, Side, Winner, deal
    from punto.rules.game import Game, Layout, Wager
    from punto.rules.games import all_games, get_game
    from punto.rules.settlement import Bet, BetResult, Outcome, Settlement, settle
    from punto.rules.shoe import Shoe
    from punto.rules.wagers import KINDS, PairRule

#: Where each name of the package is defined.  They are imported on first use
#: (PEP 562), so that ``import punto.cli`` -- every ``punto`` command -- does
#: not pay for the modules a command does not need.
_HOMES = {
    "Decimal": "decimal",
    **dict.fromkeys(("Card", "Rank", "Suit", "format_cards", "parse_cards"), "punto.rules.cards"),
    **dict.fromkeys(("Coup", "Deal", "Hand", "Side", "Winner", "deal"), "punto.rules.coup"),
    "PuntoError": "punto.errors",
    **dict.fromkeys(("Game", "Layout", "Wager"), "punto.rules.game"),
    **dict.fromkeys(("all_games", "get_game"), "punto.rules.games"),
    **dict.fromkeys(
        ("Bet", "BetResult", "Outcome", "Settlement", "settle"), "punto.rules.settlement"
    ),
    "Shoe": "punto.rules.shoe",
    **dict.fromkeys(("KINDS", "PairRule"), "punto.rules.wagers"),
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # One source: the version pyproject.toml gives the installed package.
        from importlib.metadata import version

        return version("punto")
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'punto' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
