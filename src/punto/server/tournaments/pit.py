"""The pit's irregularity procedures for tournament hands (Baccarat
Tournament rules 5.1-5.4; 5.5 is the engine's own, when a shoe runs short).

``POST /api/tournaments/{id}/irregularities/{procedure}`` with the table and
what the pit saw applies :class:`punto.tournament.Tournament`'s procedure to
the hand in play there (or, under 5.2, the hand just settled):

=============================  ==================================================
procedure                      body
=============================  ==================================================
``foreign_card``               ``table``, ``dealt`` (5.1)
``incorrect_number_of_cards``  ``table``, ``reconstructable``, ``dealt`` (5.2)
``simultaneous_draw``          ``table``, ``cards``, ``order_known``, ``dealt`` (5.3)
``order_altered``              ``table``, ``reconstructable``, ``dealt`` (5.4)
=============================  ==================================================

Pit positions only (a pit supervisor or higher; voiding a settled hand takes
a pit manager, as on a table); ``Idempotency-Key`` makes a retry return the
first answer and write nothing.  Every card of a tournament hand comes out of
the engine's own shoe: a claim it disproves (5.1, 5.2, 5.4, and 5.3 with the
order not known: the cards came out in the shoe's order) is refused 409
(``IrregularityRecordError``) naming the shoe, whoever makes it, so no
person's word voids a hand here.  The answer is the event written:
``hand_irregularity_noted`` (5.3 with the order known); ``hand_voided`` (every
entrant's chips after it) is the engine's own, when its shoe runs short (5.5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from punto.server.routes import errors
from punto.server.routes.idempotency import IdempotencyKey
from punto.server.security.auth import table_role
from punto.server.tournaments.deps import service, user_of
from punto.table.roles import Role
from punto.tournament import Tournament
from punto.tournament.errors import IrregularityError
from punto.tournament.events import TournamentEvent

#: The procedures, with the fields each needs besides ``table`` and ``dealt``.
PROCEDURES: dict[str, tuple[str, ...]] = {
    "foreign_card": (),
    "incorrect_number_of_cards": ("reconstructable",),
    "simultaneous_draw": ("cards", "order_known"),
    "order_altered": ("reconstructable",),
}


class IrregularityIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: Annotated[int, Field(ge=1, le=100)]
    dealt: Annotated[int, Field(ge=0, le=416)] = Field(
        0, description="cards of the hand out of the shoe before the irregularity"
    )
    reconstructable: bool | None = Field(
        None, description="5.2, 5.4: whether the cards can be put back as they should be"
    )
    cards: Annotated[int, Field(ge=2, le=416)] | None = Field(
        None, description="5.3: how many cards came out together"
    )
    order_known: bool | None = Field(
        None, description="5.3: whether the order they were drawn in can be ascertained"
    )


router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses=errors.RESPONSES)


def _check(
    t: Tournament, name: str, body: IrregularityIn, role: Role
) -> Callable[[], TournamentEvent]:
    """The engine's check for procedure ``name``: returns the event it writes."""
    missing = [f for f in PROCEDURES[name] if getattr(body, f) is None]
    if missing:
        raise IrregularityError(
            f"{name} needs {', '.join(missing)}",
            hint=f"send {', '.join(PROCEDURES[name])} with the table",
        )
    n, dealt = body.table, body.dealt
    if name == "foreign_card":
        return lambda: t.check_foreign_card(n, dealt=dealt, role=role)
    if name == "incorrect_number_of_cards":
        rebuilt = bool(body.reconstructable)
        return lambda: t.check_incorrect_number_of_cards(
            n, reconstructable=rebuilt, dealt=dealt, role=role
        )
    if name == "simultaneous_draw":
        together, known = body.cards or 0, bool(body.order_known)
        return lambda: t.check_simultaneous_draw(
            n, together, order_known=known, dealt=dealt, role=role
        )
    rebuilt = bool(body.reconstructable)
    return lambda: t.check_order_altered(n, reconstructable=rebuilt, dealt=dealt, role=role)


@router.post("/{tournament_id}/irregularities/{procedure}")
def irregularity(
    tournament_id: str,
    procedure: str,
    body: IrregularityIn,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Apply an irregularity procedure of the Baccarat Tournament rules to the
    hand in play at ``table`` (5.1-5.4; 5.2 also to the hand just settled,
    before the next game commences).  A pit supervisor or higher; a void
    after settlement takes a pit manager.  The event written is the answer."""
    user = user_of(request)
    role = table_role(user, Role.PIT_SUPERVISOR, "apply a tournament irregularity procedure")
    if procedure not in PROCEDURES:
        raise IrregularityError(
            f"no irregularity procedure {procedure[:64]!r} for a tournament hand",
            hint=f"procedures: {', '.join(PROCEDURES)}",
        )
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    request_body: dict[str, Any] = {"op": procedure, **body.model_dump()}
    answer = tournaments.money.pit_request(
        entry, user, idempotency_key, request_body, _check(entry.tournament, procedure, body, role)
    )
    return JSONResponse(answer.body, status_code=answer.status)
