"""No money moves on one person's word: a ruling filed, then confirmed.

After "No more bets" a ruling that moves money -- voids the round, gives an
option to withdraw, returns a bet, reopens betting, offers Insurance again,
puts cards in another order -- is a claim about an event.  The table checks
it against its own record first (:mod:`punto.table.record`: a claim the
record contradicts is refused, whoever makes it).  Where the record cannot
decide, one person files the claim (:func:`file_claim`) and another, of the
position the clause names and never below a Pit Supervisor (MBS 6.2),
confirms it (:func:`confirm_claim`) or rejects it (:func:`reject_claim`).
Until then the round waits: nothing else is written to it.

A claim stores the procedure's parameters as filed; the confirmation
applies exactly those, through the procedure itself (``run``), so the
confirming person rules on what was claimed and nothing else.

>>> from decimal import Decimal
>>> from punto.rules.cards import Card
>>> from punto.rules.games import get_game
>>> from punto.table import irregularities as irr
>>> from punto.table.limits import TableLimits
>>> from punto.table.roles import Role
>>> from punto.table.round import Round
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)))
>>> r.open(); r.place_bet("ann", 1, "banker", Decimal(100)); r.close_betting()
'b1'
>>> r.deal_card(Card.parse("9H"), "keyed")
>>> foreign = lambda r, role: irr.foreign_card(r, Card.parse("QS"), role=role)
>>> claim = file_claim(r, "foreign_card", {"card": "QS"}, foreign, by="dan", role=Role.DEALER)
>>> claim.claim_id, claim.confirming.words, r.phase.value
('c1', 'pit supervisor', 'dealing')
>>> confirm_claim(r, foreign, by="dan", role=Role.PIT_MANAGER)
Traceback (most recent call last):
...
punto.errors.ActionError: claim c1 was filed by dan: another person confirms it (clause 5.1); a Pit Supervisor or above confirms it from their own session
>>> confirm_claim(r, foreign, by="pat", role=Role.PIT_SUPERVISOR)
Ruling(clause='5.1', consequence='void')
>>> [(s.bet.player, s.outcome) for s in r.results()]
[('ann', 'void')]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from punto.errors import ActionError, PhaseError, RoleError
from punto.table.events import (
    BetReduced,
    BetReturned,
    BettingReopened,
    CardsReconstructed,
    ClaimConfirmed,
    ClaimRejected,
    Event,
    InsuranceReoffered,
    PlayerWithdrew,
    RoundVoided,
    RulingClaimed,
    WithdrawalOffered,
)
from punto.table.irregularity_rules import Ruling
from punto.table.roles import Role
from punto.table.round import Phase, Round, TableBet

__all__ = [
    "CONFIRMING",
    "MONEY_EVENTS",
    "Affected",
    "ClaimRecord",
    "Procedure",
    "affected",
    "claim_records",
    "claims_of",
    "confirm_claim",
    "confirming_role",
    "file_claim",
    "moves_money",
    "parameters_of",
    "reject_claim",
    "trial",
]

#: A procedure as a claim runs it: on a round, in a position.
Procedure = Callable[[Round, Role], Ruling]

#: The events by which a ruling moves money outside ordinary settlement,
#: with the procedure of the game's ``[grants]`` that grants each.
MONEY_EVENTS: dict[type[Event], str | None] = {
    RoundVoided: "void",
    WithdrawalOffered: "withdrawal",
    PlayerWithdrew: None,
    BetReturned: "return_bet",
    BettingReopened: "reopen_betting",
    CardsReconstructed: "reconstruct",
    InsuranceReoffered: None,
    BetReduced: None,
}

#: Who confirms where the clause names nobody higher (MBS 6.2: "a Pit
#: Supervisor or above"; RWS 1.17).
CONFIRMING = Role.PIT_SUPERVISOR


def trial(round_: Round, run: Procedure, role: Role) -> tuple[Ruling, tuple[Event, ...]]:
    """What ``run`` would do to the round in ``role``: its ruling and the
    events it would write, tried on a copy and checked by the table (its
    record refuses a claim it contradicts); nothing is written."""
    copy = round_.fork()
    ruling = run(copy, role)
    events = tuple(copy.events[len(round_.events) :])
    round_.vet(events)
    return ruling, events


def moves_money(round_: Round, events: Sequence[Event]) -> bool:
    """Whether ``events``, written to the round now, would move money outside
    ordinary settlement after "No more bets" (before it, every player may
    still withdraw their own bets: nothing is decided for them)."""
    if round_.phase in (Phase.NEW, Phase.BETTING):
        return False
    return any(type(e) in MONEY_EVENTS for e in events)


def confirming_role(round_: Round, run: Procedure) -> tuple[Role, Ruling, tuple[Event, ...]]:
    """The lowest position that may make the ruling ``run`` makes -- the one
    its clauses name, and never below a Pit Supervisor -- with the ruling and
    the events it would write in that position (:func:`trial`).  A refusal
    other than the position's (the record, the phase, the cards) is raised."""
    refused: RoleError | None = None
    for role in Role:
        if role is Role.PLAYER or role.rank < CONFIRMING.rank:
            continue
        try:
            ruling, events = trial(round_, run, role)
        except RoleError as error:
            refused = error
            continue
        return role, ruling, events
    assert refused is not None
    raise refused


def claims_of(round_: Round) -> list[RulingClaimed]:
    """The claims filed in the round, in order."""
    return [e for e in round_.events if isinstance(e, RulingClaimed)]


@dataclass(frozen=True, slots=True)
class ClaimRecord:
    """A claim and what became of it: ``pending``, ``confirmed`` or
    ``rejected`` (``withdrawn`` when the person who filed it took it back)."""

    claim: RulingClaimed
    status: str = "pending"
    decided_by: str | None = None
    decided_role: Role | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        c = self.claim
        return {
            "claim_id": c.claim_id,
            "procedure": c.procedure,
            "parameters": parameters_of(c),
            "clause": c.clause,
            "filed_by": c.by,
            "filed_role": c.role.value,
            "confirming": c.confirming.value,
            "status": self.status,
            "decided_by": self.decided_by,
            "decided_role": None if self.decided_role is None else self.decided_role.value,
            "reason": self.reason,
        }


def claim_records(round_: Round) -> list[ClaimRecord]:
    """Every claim of the round, in order, with what became of it."""
    out: list[ClaimRecord] = []
    for event in round_.events:
        match event:
            case RulingClaimed():
                out.append(ClaimRecord(event))
            case ClaimConfirmed(by=by, role=role) if out:
                out[-1] = ClaimRecord(out[-1].claim, "confirmed", by, role)
            case ClaimRejected(by=by, role=role, reason=reason) if out:
                status = "withdrawn" if _same(by, out[-1].claim.by) else "rejected"
                out[-1] = ClaimRecord(out[-1].claim, status, by, role, reason)
            case _:
                pass
    return out


def file_claim(
    round_: Round,
    procedure: str,
    parameters: Mapping[str, Any],
    run: Procedure,
    *,
    by: str,
    role: Role,
    tried: tuple[Role, Ruling, tuple[Event, ...]] | None = None,
) -> RulingClaimed:
    """File ``procedure`` with ``parameters`` (JSON values, as a replay file
    or a request gives them) as a claim by ``by`` in ``role``: the table's
    record checks it first (a claim it contradicts is refused here), and
    one that moves no money is refused (apply it directly).  The round then
    waits for :func:`confirm_claim` or :func:`reject_claim`."""
    _check_person(by)
    round_.check_no_claim_pending()
    role.check_acts_as(Role.DEALER, f"file a claim for {procedure.replace('_', ' ')}")
    # ``tried``: :func:`confirming_role`'s answer, where the caller has it already
    confirming, ruling, events = tried or confirming_role(round_, run)
    if not moves_money(round_, events):
        raise ActionError(
            f"{procedure.replace('_', ' ')} here moves no money ({ruling.consequence}): "
            "it needs no second person",
            clause=ruling.clause,
            hint="apply the procedure directly",
        )
    claim = RulingClaimed(
        f"c{len(claims_of(round_)) + 1}",
        procedure,
        json.dumps(dict(parameters), sort_keys=True, separators=(",", ":")),
        ruling.clause,
        by,
        confirming,
        role,
    )
    round_.record_claim(claim)
    return claim


def confirm_claim(round_: Round, run: Procedure, *, by: str, role: Role) -> Ruling:
    """A second person, ``by`` in ``role``, confirms the pending claim: its
    procedure (``run``, the claim's own with its parameters as filed) is
    applied in the confirming person's position, after ``ClaimConfirmed``.
    Refused for the person who filed it, below the position it needs, or
    where the record now contradicts it; nothing is written then."""
    claim = _pending(round_)
    _check_person(by)
    if _same(by, claim.by):
        raise ActionError(
            f"claim {claim.claim_id} was filed by {claim.by}: another person confirms it",
            clause=claim.clause,
            hint=f"a {_title(claim.confirming)} or above confirms it from their own session",
        )
    role.check_acts_as(claim.confirming, f"confirm claim {claim.claim_id}", claim.clause)
    copy = round_.fork()
    copy.record_claim(ClaimConfirmed(claim.claim_id, by, role))
    run(copy, role)
    round_.vet(copy.events[len(round_.events) :])
    with round_.checked():
        round_.record_claim(ClaimConfirmed(claim.claim_id, by, role))
        return run(round_, role)


def reject_claim(round_: Round, *, by: str, role: Role, reason: str) -> ClaimRejected:
    """The pending claim is rejected by a person who may confirm it, or
    withdrawn by the person who filed it: nothing moves, the round goes on."""
    claim = _pending(round_)
    _check_person(by)
    if not _same(by, claim.by):
        role.check_acts_as(claim.confirming, f"reject claim {claim.claim_id}", claim.clause)
    if not reason.strip():
        raise ActionError(
            "a rejection says why", clause=claim.clause, hint="give the reason in a few words"
        )
    event = ClaimRejected(claim.claim_id, by, reason.strip(), role)
    round_.record_claim(event)
    return event


@dataclass(frozen=True, slots=True)
class Affected:
    """A wager a pending ruling would return or change: what it is now
    (``active``, ``won``, ``lost``, or a result already in) and after."""

    bet: TableBet
    now: str
    then: str


def affected(round_: Round, run: Procedure) -> list[Affected]:
    """The wagers the pending claim's ruling (``run``, in the position that
    confirms it) would return or change, tried on a copy of the round
    without the claim: what the person confirming weighs."""
    claim = _pending(round_)
    base = type(round_).replay(
        round_.game, [e for e in round_.events if e is not claim], **round_.options
    )
    after = base.fork()
    run(after, claim.confirming)
    out = []
    for bet in base.bets:
        now, then = _standing(base, bet), _standing(after, bet)
        if now != then:
            out.append(Affected(bet, now, then))
    return out


def _standing(r: Round, bet: TableBet) -> str:
    status = r.bet(bet.bet_id).status
    if status != "active":
        return status
    if r.phase is Phase.VOID:
        return "returned"
    if r.phase is Phase.SETTLED:
        return next(s.outcome for s in r.results() if s.bet.bet_id == bet.bet_id)
    decided = r.decided_bets()
    if bet.bet_id not in decided:
        return "undecided"
    return "lost" if decided[bet.bet_id] is None else "won"


def parameters_of(claim: RulingClaimed) -> dict[str, Any]:
    """The procedure's parameters as the claim was filed."""
    data: dict[str, Any] = json.loads(claim.parameters)
    return data


def _pending(round_: Round) -> RulingClaimed:
    claim = round_.pending_claim
    if claim is None:
        raise PhaseError(
            f"no ruling is pending in round {round_.round_id or 'in play'}",
            hint="a claim is filed first",
        )
    return claim


def _check_person(by: str) -> None:
    if not by.strip():
        raise ActionError("say who: a claim and its confirmation each name a person")


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _title(role: Role) -> str:
    return role.words.title()
