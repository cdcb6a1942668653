"""Typed refusals of the tournament, each citing the competition rule.

The Baccarat Tournament rules (file 003) fix the game; the competition
around it -- chips, hands, minimum bets, advancement, tie-breaks -- follows
the competition rules ``T1``-``T8`` written out in ``docs/tournament.md``,
with the numbers of each format.  Every error names the rule it enforces
and the format it was read from:

>>> err = BetLimitError("a bet of 500 is under the minimum bet of 1,000",
...                     clause="T4.2, format daily", hint="bet at least 1,000")
>>> str(err)
'a bet of 500 is under the minimum bet of 1,000 (T4.2, format daily); bet at least 1,000'
"""

from __future__ import annotations

from collections.abc import Callable

from punto import errors
from punto.errors import PuntoError


class TournamentError(PuntoError):
    """Base of every tournament refusal."""


def can(check: Callable[..., object], *args: object) -> bool:
    """:func:`punto.errors.can` for the tournament's trios, whose refusals are
    :class:`TournamentError`."""
    return errors.can(check, *args, refusal=TournamentError)


class FormatError(TournamentError, ValueError):
    """A format file is malformed, inconsistent, or cannot seat the entrants."""


class UnknownFormatError(TournamentError, KeyError):
    """No format is registered under that id."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return PuntoError.__str__(self)


class TournamentPhaseError(TournamentError):
    """An action that does not fit where the tournament, the session or the hand stands."""


class RegistrationError(TournamentError):
    """Registration, late registration or re-entry refused (T2)."""


class BetLimitError(TournamentError):
    """A bet outside the format's minimum or maximum, the chips held, or the wagers offered (T4)."""


class MinHandsError(TournamentError):
    """Sitting out a hand would leave the minimum number of hands unreachable (T5.2)."""


class TiebreakError(TournamentError):
    """A sudden-death choice that is not allowed (T7)."""


class IrregularityError(TournamentError):
    """An irregularity procedure of the Baccarat Tournament rules (section 5)
    that does not apply to the hand as it stands; the clause says why."""


class IrregularityRoleError(IrregularityError):
    """An irregularity procedure taken by a position that may not take it
    (MBS 6.2: or any higher position)."""


class IrregularityRecordError(IrregularityError):
    """An irregularity the engine's own shoe disproves: every tournament card
    comes out of the shoe the engine shuffled, one at a time by the Table of
    Play, so a foreign card, an altered order, a hand dealt a wrong number of
    cards or a shoe run dry while it holds cards enough did not happen,
    whoever claims it (:class:`punto.table.record.RecordError`, raised on a
    tournament hand).  The message names the hand and the shoe."""


class TournamentLogError(TournamentError):
    """The tournament's event log cannot be read, written or replayed."""
