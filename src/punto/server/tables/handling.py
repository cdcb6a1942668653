"""Card handling on the table server (MBS Tiger Baccarat and Dragon Tiger
3.9-3.12), as the table's state shows it: the Method, who squeezes which hand,
what the dealer's page may offer.  The routes that act are
:mod:`punto.server.routes.handling`."""

from __future__ import annotations

from typing import Any

from punto.errors import PhaseError, PuntoError
from punto.rules.coup import Side
from punto.table import handling
from punto.table.events import Method
from punto.table.live import LiveTable
from punto.table.roles import Role
from punto.table.round import Round

__all__ = ["check_hlga_change", "round_json", "staff_json", "table_method"]


def table_method(table: LiveTable) -> str | None:
    """The Method new rounds at the table are conducted by (None: its rules have none)."""
    method = table.method
    return method.value if method is not None else None


def round_json(r: Round) -> dict[str, Any] | None:
    """Who handles the cards in ``r``: the Method, who squeezes which hand
    (None: the Dealer), who refused, who holds the device, and who the
    Dealer passes each hand's cards to next; None where the rules have no
    Methods."""
    if r.game.clause("methods") is None:
        return None
    data = handling.summary(r)
    data["next"] = {side.value: _next_squeezer(r, side) for side in Side}
    data["allowed"] = sorted(handling.handling(r).allowed)
    data["text"] = handling.describe_round(r)
    return data


def _next_squeezer(r: Round, side: Side) -> str | None:
    """Who the Dealer would pass ``side``'s cards to now; None: nobody, or not now."""
    try:
        return handling.check_pass_cards(r, side)
    except PuntoError:
        return None


def staff_json(table: LiveTable) -> dict[str, Any]:
    """What the dealer page may offer now: ``pass``, per hand, whether a
    Dealer may pass its cards; ``choose_method``, per Method, whether it can
    be chosen now by the position that may (the phase and HLGA: the route
    still checks the user's own position)."""
    r = table.round
    if table.method is None:
        return {}
    return {
        "pass": {side.value: r is not None and handling.can_pass_cards(r, side) for side in Side},
        "choose_method": {
            m.value: table.can_choose_method(m, Role.ASSISTANT_CASINO_MANAGER) for m in Method
        },
    }


def check_hlga_change(table_id: str, table: LiveTable, hlga: bool) -> None:
    """A table conducted by Method C stays in HLGA until the Method changes:
    Method C "shall only be permitted within HLGA" (3.9.2), and a table
    that left HLGA under it could not open its next round."""
    if hlga or not table.hlga or table.method is not Method.C:
        return
    raise PhaseError(
        f"table {table_id} is conducted by Method C, which is permitted only within HLGA",
        clause=handling.rule(table.game, "method_choice"),
        hint="the Pit Manager chooses Method A or B first (POST .../handling/method)",
    )
