"""A bet for a named round: ``round_id`` in the bet request.

A bet is for the round the player saw.  Without a round of its own, a request
that arrived late (held by a slow network, a retry after a timeout) landed in
whatever round was open then: a round the player never saw, with other
cards and other odds of having been dealt.  A bet that names its round is
refused, as a late bet, if that round is no longer taking bets; the game's
``late_bet`` clause governs it (MBS 5.4 and 5.6, RWS 5.7: no bet after "No
more bets").

``round_id`` is optional: an API client that sends none bets on the round
open when the bet arrives, as before (docs/interpretations.md).  A retry with
an Idempotency-Key is answered as the first request was, before this check,
so a retry after the round moved on still gets its bet back, not a refusal.
"""

from __future__ import annotations

from punto.errors import BettingClosedError
from punto.rules.game import Game
from punto.table.round import Round


def check_named_round(game: Game, r: Round, round_id: str | None) -> None:
    """Refuse a bet for ``round_id`` when ``r``, the round in play, is another."""
    if round_id is None or round_id == r.round_id:
        return  # the round's own checks (betting open, the deadline) apply as they are
    raise BettingClosedError(
        f"this bet is for round {round_id}, which is no longer taking bets: the round "
        f"in play is {r.round_id} ({r.phase.value})",
        clause=game.clause("late_bet"),
        hint=f"look at round {r.round_id} and bet on it if you still want to",
    )
