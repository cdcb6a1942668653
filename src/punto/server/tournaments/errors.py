"""The tournament server's own refusals, and the HTTP status of each
tournament refusal (the engine's and these)."""

from __future__ import annotations

from punto.tournament import (
    BetLimitError,
    FormatError,
    MinHandsError,
    RegistrationError,
    TiebreakError,
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
    UnknownFormatError,
)
from punto.tournament.errors import IrregularityRecordError, IrregularityRoleError


class UnknownTournamentError(TournamentError):
    """No tournament with that id on this server."""


class TournamentExistsError(TournamentError):
    """A tournament with that id exists already."""


#: Most specific first (as :data:`punto.server.routes.errors.STATUS`).
STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (UnknownTournamentError, 404),
    (UnknownFormatError, 404),
    (TournamentExistsError, 409),
    (IrregularityRoleError, 403),
    # the engine's shoe disproves the claim: a conflict with the record, as a
    # table's RecordError (a ShoeError) is
    (IrregularityRecordError, 409),
    (TournamentPhaseError, 409),
    (TournamentLogError, 409),
    (RegistrationError, 422),
    (BetLimitError, 422),
    (MinHandsError, 422),
    (TiebreakError, 422),
    (FormatError, 422),
    (TournamentError, 422),
)


def status_of(error: TournamentError) -> int:
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 422  # pragma: no cover - TournamentError is last
