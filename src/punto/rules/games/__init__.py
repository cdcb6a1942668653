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

import os
import threading
from functools import cache

from punto.errors import UnknownGameError
from punto.rules.game import Game, load_game
from punto.rules.games.parsed import read_toml

#: The data files sit beside this module (a plain directory in every install,
#: read with ``os`` rather than ``importlib.resources``, whose import alone
#: costs a command more than reading a file).
_DIR = os.path.dirname(os.path.abspath(__file__))
_loaded: dict[str, Game] = {}
_lock = threading.Lock()


@cache
def _files() -> tuple[str, ...]:
    # Listed once: a game is looked up on every snapshot of a table, and the
    # directory of an installed package does not change under a running process.
    return tuple(sorted(name for name in os.listdir(_DIR) if name.endswith(".toml")))


def _load(file_name: str) -> Game:
    """The game of one data file, read once (so every lookup returns the same object)."""
    with _lock:
        game = _loaded.get(file_name)
        if game is None:
            game = load_game(read_toml(os.path.join(_DIR, file_name)), file_name)
            _loaded[file_name] = game
        return game


@cache
def _registry() -> dict[str, Game]:
    games = [_load(name) for name in _files()]
    games.sort(key=lambda g: g.rules_file)
    return {game.id: game for game in games}


def all_games() -> list[Game]:
    """Every registered game, in the order of the rules files."""
    return list(_registry().values())


def get_game(game_id: str) -> Game:
    """The game registered as ``game_id``."""
    # A command names one game: read its file alone when the file is named
    # after the id (tiger-baccarat: tiger_baccarat.toml), the others only if not.
    file_name = game_id.replace("-", "_") + ".toml"
    if file_name in _files():
        game = _load(file_name)
        if game.id == game_id:
            return game
    games = _registry()
    if game_id not in games:
        raise UnknownGameError(f"no game {game_id!r}", hint=f"known games: {', '.join(games)}")
    return games[game_id]
