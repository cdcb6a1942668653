"""Baccarat Tournament: formats, sessions, eliminations and a live leaderboard.

The Baccarat Tournament rules (file 003) fix the game -- Banker and Player
pay 1 to 1, Tie 8 to 1, the Pairs 11 to 1; this package runs the competition
around it, by the competition rules T1-T8 of ``docs/tournament.md``:

* :mod:`~punto.tournament.format` and :mod:`~punto.tournament.formats` --
  formats as data (TOML), loaded and checked;
* :class:`~punto.tournament.tournament.Tournament` -- a tournament as a fold
  over its events, with check/can/act for registration, seating, bets,
  hands, sudden-death tie-breaks, sessions and the final;
* :mod:`~punto.tournament.irregularities` -- the rules' irregularities
  (5.1-5.5) of a tournament hand, by the table engine's own procedures;
* :data:`~punto.tournament.events.TOURNAMENT_STREAM` -- the tournament's
  stream in an event log (:mod:`punto.eventlog`: in memory; the database's
  by :func:`punto.store.eventlog.open_event_log`);
* :mod:`~punto.tournament.runner` -- people at a terminal and automated
  entrants (:mod:`~punto.tournament.strategies`);
* :mod:`~punto.tournament.export` -- results as CSV and JSON;
* :mod:`~punto.tournament.analysis` -- many tournaments simulated fast.
"""

from __future__ import annotations

from punto.tournament.errors import (
    BetLimitError,
    FormatError,
    IrregularityError,
    IrregularityRecordError,
    IrregularityRoleError,
    MinHandsError,
    RegistrationError,
    TiebreakError,
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
    UnknownFormatError,
)
from punto.tournament.events import TOURNAMENT_STREAM
from punto.tournament.format import Format, Session, load_format
from punto.tournament.formats import all_formats, get_format, load_format_file
from punto.tournament.tournament import Phase, Stage, Tournament

__all__ = [
    "TOURNAMENT_STREAM",
    "BetLimitError",
    "Format",
    "FormatError",
    "IrregularityError",
    "IrregularityRecordError",
    "IrregularityRoleError",
    "MinHandsError",
    "Phase",
    "RegistrationError",
    "Session",
    "Stage",
    "TiebreakError",
    "Tournament",
    "TournamentError",
    "TournamentLogError",
    "TournamentPhaseError",
    "UnknownFormatError",
    "all_formats",
    "get_format",
    "load_format",
    "load_format_file",
]
