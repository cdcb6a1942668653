"""The clauses that grant a procedure moving money outside ordinary settlement.

After "No more bets" a wager wins or loses on the cards (MBS 5.5, 5.7 of No
Commission and Tournament; RWS 5.7) "unless otherwise stated in these
rules".  What is otherwise stated is each game's ``[grants]`` table: for a
withdrawal option, a void, a bet returned and betting reopened, the clauses
that grant it and their conditions (phases, lowest role, what the cards must
show, cards dealt, an event that must come first, a fact of the table).  :func:`check_grant`
refuses anything else -- free text, a clause of another game, a clause whose
conditions are not met -- with a typed error naming the clause that governs
the refusal and the clauses that do grant the procedure.

>>> from decimal import Decimal
>>> from punto.rules.games import get_game
>>> from punto.table.limits import TableLimits
>>> from punto.table.round import Round
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)))
>>> r.open(); r.place_bet("ann", 1, "player", Decimal(500)); r.close_betting()
'b1'
>>> r.check_offer_withdrawal("goodwill")
Traceback (most recent call last):
...
punto.errors.ActionError: 'goodwill' is not a clause of Tiger Baccarat that gives players the option to withdraw (clause 5.8.1, 5.8.2.2, 5.9, 5.17.1, 3.22.1, 6.1); after 'No more bets' wagers win or lose on the outcome unless one of these clauses applies
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from punto.errors import ActionError, PhaseError
from punto.rules.coup import Deal
from punto.rules.game import Game, Grant
from punto.table.events import CardsHeld, CardsReconstructed, Event, IrregularityNoted
from punto.table.facts import AtTable, check_table_fact
from punto.table.roles import Role
from punto.table.round_state import Phase, TableBet


class RoundSoFar(AtTable, Protocol):
    """What a grant is checked against: a round as far as it has gone
    (typed structurally so this module need not import the round's)."""

    @property
    def game(self) -> Game: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def deal(self) -> Deal: ...
    @property
    def power_failed(self) -> bool: ...
    @property
    def round_id(self) -> str: ...
    @property
    def events(self) -> Sequence[Event]: ...
    def outcome_established(self, wagers: Collection[str] | None = None) -> bool: ...


__all__ = ["RECORDS", "WHAT", "check_grant"]

#: The events that record an irregularity in a round, each under its clause.
RECORDS = (IrregularityNoted, CardsReconstructed, CardsHeld)

#: Each procedure in words, for refusals.
WHAT = {
    "withdrawal": "gives players the option to withdraw",
    "void": "voids the round",
    "return_bet": "returns a bet after 'No more bets'",
    "reopen_betting": "reopens betting after 'No more bets'",
    "reconstruct": "reconstructs the cards",
}

#: Where the rules forbid the procedure when no clause grants it.
_FORBIDDEN_BY = {
    "withdrawal": "late_withdrawal",
    "return_bet": "late_withdrawal",
    "reopen_betting": "late_bet",
    "void": "unforeseen",
    "reconstruct": "unforeseen",
}


def check_grant(
    round_: RoundSoFar,
    procedure: str,
    clause: str,
    role: Role,
    *,
    required: Role = Role.DEALER,
    bet: TableBet | None = None,
) -> Grant:
    """The grant of ``procedure`` by ``clause``, if this game grants it and
    its conditions hold now for ``role``; a typed refusal otherwise.
    ``required``: a higher position the caller's own procedure asks for."""
    game = round_.game
    grant = game.grant(procedure, clause)
    if grant is None:
        granting = game.granting(procedure)
        raise ActionError(
            f"{clause!r} is not a clause of {game.title} that {WHAT[procedure]}",
            clause=", ".join(granting) or game.clause(_FORBIDDEN_BY[procedure]),
            hint="after 'No more bets' wagers win or lose on the outcome unless one of these "
            "clauses applies"
            if granting
            else f"the {game.title} rules grant this nowhere",
        )
    lowest = grant.role if grant.role.rank >= required.rank else required
    role.check_acts_as(lowest, f"act under {clause} ({grant.words})", clause)
    if grant.table is not None:
        check_table_fact(round_, grant.table, clause)
    phase = round_.phase.value
    if phase not in grant.phases:
        raise PhaseError(
            f"{clause} applies while the round is {' or '.join(sorted(grant.phases))}, "
            f"and it is {phase}"
            + ("; previous rounds stand" if phase in ("settled", "void") else ""),
            clause=clause,
        )
    if grant.after == "power_failure" and not round_.power_failed:
        raise PhaseError(
            f"{clause} applies after a power failure, and none is recorded this round",
            clause=clause,
            hint="declare the power failure first: its procedure gives the consequence",
        )
    dealt = len(round_.deal.cards)
    if grant.cards is not None and not grant.cards[0] <= dealt <= grant.cards[1]:
        low, high = grant.cards
        span = f"{low}" if low == high else f"{low} to {high}"
        raise PhaseError(
            f"{clause} applies with {span} cards dealt, and {dealt} are out", clause=clause
        )
    if grant.recorded is not None:
        _check_recorded(round_, grant)
    _check_outcome(round_, grant)
    if bet is not None and grant.bets is not None and bet.wager not in grant.bets:
        raise ActionError(
            f"{clause} returns only {', '.join(sorted(grant.bets))} wagers, "
            f"not {bet.wager} ({bet.bet_id})",
            clause=clause,
        )
    return grant


def _check_recorded(round_: RoundSoFar, grant: Grant) -> None:
    """The triggering event of ``grant`` is in the round's own record: an
    irregularity noted, or cards reconstructed or held, under one of the
    clauses it names.  A clause that gives an option "in the event that" cards
    were drawn simultaneously (MBS 5.8.1) or after a dealing error (RWS 5.13)
    gives none where the round records no such event."""
    assert grant.recorded is not None
    for event in round_.events:
        if isinstance(event, RECORDS) and event.clause in grant.recorded:
            return
    # in the rules' own order: 5.8 before 5.10
    clauses = ", ".join(
        sorted(grant.recorded, key=lambda c: [int(n) if n.isdigit() else 0 for n in c.split(".")])
    )
    raise PhaseError(
        f"{grant.clause} applies after {grant.words.split(':')[0]}, and round "
        f"{round_.round_id or 'in play'} records none ({clauses})",
        clause=grant.clause,
        hint="apply the procedure of the irregularity itself: it records the event and "
        "gives the option its clause grants",
    )


def _check_outcome(round_: RoundSoFar, grant: Grant) -> None:
    if grant.outcome == "either":
        return
    established = round_.outcome_established(grant.counts)
    whose = (
        f"the {' and '.join(sorted(grant.counts))} wagers" if grant.counts else "the wagers in play"
    )
    if grant.outcome == "not-established" and established:
        raise PhaseError(
            f"an outcome is established ({whose}: the cards have decided some): "
            f"{grant.clause} applies only when none has conclusively won or lost",
            clause=grant.clause,
            hint="play continues and the round is concluded on the cards",
        )
    if grant.outcome == "established" and not established:
        raise PhaseError(
            f"no outcome is established yet ({whose}): {grant.clause} applies once the cards "
            f"have decided one",
            clause=grant.clause,
            hint="deal on, or use the clause for an outcome not established",
        )
