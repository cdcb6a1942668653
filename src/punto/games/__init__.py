"""The registry of games: one data file per approved rule set, looked up by id.

>>> [game.id for game in all_games()]
['tiger-baccarat', 'tiger-no-commission', 'tiger-buffalo', 'baccarat-tournament', 'dragon-tiger']
>>> get_game("tiger-baccarat").wagers["tiger"].pays["three_cards"].odds
Fraction(20, 1)
>>> get_game("punto-banco")
Traceback (most recent call last):
...
punto.errors.UnknownGameError: no game 'punto-banco'; known games: tiger-baccarat, tiger-no-commission, tiger-buffalo, baccarat-tournament, dragon-tiger
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

from punto.errors import UnknownGameError
from punto.game import Game, load_game


@cache
def _registry() -> dict[str, Game]:
    games = []
    for entry in resources.files(__name__).iterdir():
        if entry.name.endswith(".toml"):
            games.append(load_game(tomllib.loads(entry.read_text("utf-8")), entry.name))
    games.sort(key=lambda g: g.rules_file)
    return {game.id: game for game in games}


def all_games() -> list[Game]:
    """Every registered game, in the order of the rules files."""
    return list(_registry().values())


def get_game(game_id: str) -> Game:
    """The game registered as ``game_id``."""
    games = _registry()
    if game_id not in games:
        raise UnknownGameError(f"no game {game_id!r}", hint=f"known games: {', '.join(games)}")
    return games[game_id]
