"""A table offering a wager that favours the player: the pit manager's
confirmation, asked when the table is set up or changed.

The rules of it are :func:`punto.protection.edges.check_confirmed`; here
they meet the request (its ``confirm_player_favoured``, the user's position)
and the audit log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from punto.protection.edges import EdgeConfirmation, check_confirmed
from punto.server.tables.config import ConfigError, TableConfig
from punto.store.accounts import User

if TYPE_CHECKING:
    from punto.server.services import Server

#: The request field naming the player-favoured wagers the user confirms.
CONFIRM = "confirm_player_favoured"


def confirm_edges(
    body: Mapping[str, Any], old: TableConfig | None, user: User
) -> tuple[TableConfig, tuple[str, ...]]:
    """The configuration ``body`` asks for (a new table, or ``old`` changed),
    carrying the confirmations its player-favoured wagers need, and the
    wagers confirmed by this request; refused if one is not confirmed, or is
    confirmed by a user below a pit manager."""
    if not isinstance(body, Mapping):
        raise ConfigError("a table configuration is a JSON object")
    asked = body.get(CONFIRM, [])
    if not isinstance(asked, list) or not all(isinstance(w, str) for w in asked):
        raise ConfigError(f"{CONFIRM} is a list of wager ids")
    settings = {k: v for k, v in body.items() if k != CONFIRM}
    config = TableConfig.from_json(settings, base=old)
    if not config.active and not asked:
        # A closed table offers nothing: closing one (or setting one up closed)
        # needs no confirmation; opening it again does.
        return config, ()
    confirmations = check_confirmed(
        config.edges,
        config.confirmations,
        confirming=asked,
        role=user.role.table_role,
        by=user.username,
    )
    return replace(config, confirmations=confirmations), tuple(asked)


def record_confirmations(
    server: Server,
    user: User,
    before: Sequence[EdgeConfirmation],
    config: TableConfig,
    confirming: Sequence[str],
) -> None:
    """Each confirmation given by this request, in the audit log."""
    new = [c for c in config.confirmations if c not in before and c.wager in confirming]
    edges = {e.wager: e for e in config.edges}
    for c in new:
        edge = edges[c.wager]
        server.audit.record(
            "confirm_player_favoured",
            user=user,
            table_id=config.id,
            wager=c.wager,
            house_edge=c.edge,
            house_edge_percent=f"{edge.edge_float * 100:.4f}",
            clause=edge.clause,
            decks=config.decks,
            at=c.at,
        )
