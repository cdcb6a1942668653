"""The exact house edge off the top of every wager a table offers, and the
pit manager's confirmation a wager that favours the player needs.

The figures are :func:`punto.analysis.tables.odds_table`'s, the code of
``punto odds``: one full shoe of the table's decks, the game's reading of the
pairs.  Insurance Plus is an offer valued at the moment it is made, not a
wager off the top, so it has no entry here.

>>> [e.wager for e in table_edges("tiger-baccarat", None, 8) if e.player_favoured]
[]
>>> from punto.rules.wagers import PairRule
>>> edges = table_edges("tiger-baccarat", None, 8, PairRule.LITERAL)  # 1.1.14 read literally
>>> [(e.wager, f"{e.edge_float:.4%}") for e in edges if e.player_favoured]
[('tiger_pair', '-37.6587%')]
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from punto.analysis.composition import Composition
from punto.analysis.tables import odds_table
from punto.errors import RoleError, WagerError
from punto.rules.games import get_game
from punto.rules.roles import Role
from punto.rules.wagers import PairRule

#: The position that may confirm a wager favouring the player (MBS 6.2: or higher).
CONFIRMS = Role.PIT_MANAGER


class PlayerFavouredError(WagerError):
    """A table set up with a wager whose house edge is negative, unconfirmed."""


@dataclass(frozen=True)
class WagerEdge:
    """One wager's exact house edge off the top, and the variance of one unit's result."""

    wager: str
    name: str
    clause: str
    #: the casino's expected gain per unit staked (negative: the player's)
    edge: Fraction
    #: the variance of one unit's net result (for the hold test of anomalies)
    variance: Fraction

    @property
    def player_favoured(self) -> bool:
        return self.edge < 0

    @property
    def edge_float(self) -> float:
        return float(self.edge)

    def to_json(self) -> dict[str, Any]:
        return {
            "wager": self.wager,
            "name": self.name,
            "clause": self.clause,
            "house_edge": f"{self.edge.numerator}/{self.edge.denominator}",
            "house_edge_percent": f"{float(self.edge) * 100:.4f}",
        }


@cache
def table_edges(
    game_id: str, layout: str | None, decks: int, pair_rule: PairRule | None = None
) -> tuple[WagerEdge, ...]:
    """Every analysable wager ``game_id`` offers on ``layout``, off the top of
    ``decks`` decks, pairs read by ``pair_rule`` (the game's own without one)."""
    game = get_game(game_id)
    table = odds_table(game, Composition.of_decks(decks), layout, pair_rule)
    offered = game.offered(layout)
    return tuple(
        WagerEdge(wid, w.name, offered[wid].clause, w.house_edge_exact, w.variance_exact)
        for wid, w in table.wagers.items()
    )


def edge_of(
    game_id: str, layout: str | None, decks: int, wager: str, pair_rule: PairRule | None = None
) -> WagerEdge | None:
    """The edge of one wager (None: not analysable off the top, e.g. Insurance Plus)."""
    for found in table_edges(game_id, layout, decks, pair_rule):
        if found.wager == wager:
            return found
    return None


@dataclass(frozen=True)
class EdgeConfirmation:
    """A pit manager's confirmation that a table offers a wager favouring the player."""

    wager: str
    #: the exact edge confirmed, ``numerator/denominator``: a new edge (other
    #: decks, another reading of the pairs) needs a new confirmation
    edge: str
    by: str
    role: str
    at: str

    def to_json(self) -> dict[str, str]:
        return {
            "wager": self.wager,
            "edge": self.edge,
            "by": self.by,
            "role": self.role,
            "at": self.at,
        }

    @classmethod
    def from_json(cls, data: Any) -> EdgeConfirmation:
        if not isinstance(data, dict) or not all(
            isinstance(data.get(k), str) for k in ("wager", "edge", "by", "role", "at")
        ):
            raise WagerError(
                "a confirmation of a player-favoured wager is "
                '{"wager", "edge", "by", "role", "at"}, all strings'
            )
        return cls(data["wager"], data["edge"], data["by"], data["role"], data["at"])


def exact(edge: Fraction) -> str:
    return f"{edge.numerator}/{edge.denominator}"


def favoured(edges: Iterable[WagerEdge]) -> list[WagerEdge]:
    """The wagers among ``edges`` that return the player more than they stake."""
    return [e for e in edges if e.player_favoured]


def unconfirmed(
    edges: Iterable[WagerEdge], confirmations: Sequence[EdgeConfirmation]
) -> list[WagerEdge]:
    """The player-favoured wagers with no confirmation of their exact edge."""
    done = {(c.wager, c.edge) for c in confirmations}
    return [e for e in favoured(edges) if (e.wager, exact(e.edge)) not in done]


def check_confirmed(
    edges: Iterable[WagerEdge],
    confirmations: Sequence[EdgeConfirmation],
    *,
    confirming: Iterable[str] = (),
    role: Role | None = None,
    by: str = "",
    at: datetime.datetime | None = None,
) -> tuple[EdgeConfirmation, ...]:
    """The confirmations a table offering ``edges`` carries after this change.

    Each player-favoured wager needs a confirmation of its exact edge: one it
    already has, or one given now (its id in ``confirming``) by ``by`` acting
    as ``role``, a pit manager or higher (``None``: no table position, e.g. the
    admin).  A wager it no longer offers at that edge loses its confirmation.
    Refuses with :class:`PlayerFavouredError` (the first wager unconfirmed) or
    :class:`punto.errors.RoleError` (a confirmation from a lower position).
    """
    edges = list(edges)
    asked = set(confirming)
    kept = [
        c
        for c in confirmations
        if any(e.wager == c.wager and exact(e.edge) == c.edge for e in favoured(edges))
    ]
    missing = unconfirmed(edges, kept)
    if missing and asked & {e.wager for e in missing}:
        if role is None:
            raise RoleError(
                "only a table position may confirm a wager that favours the player",
                clause="6.2",
                hint=f"it takes a {CONFIRMS.words} or higher, logged in as themselves",
            )
        role.check_acts_as(CONFIRMS, "confirm a wager that favours the player", "6.2")
    when = (at or datetime.datetime.now(datetime.UTC)).isoformat()
    for e in missing:
        if e.wager not in asked:
            raise PlayerFavouredError(
                f"{e.wager} has a house edge of {e.edge_float:.4%} ({exact(e.edge)}): "
                "it returns the player more than they stake",
                clause=e.clause,
                hint=f"a {CONFIRMS.words} must confirm it "
                f'(send "confirm_player_favoured": ["{e.wager}"])',
            )
        kept.append(EdgeConfirmation(e.wager, exact(e.edge), by, role.value if role else "", when))
    return tuple(kept)


#: The position recorded for the operator's own confirmation at start-up (the demo).
OPERATOR = "operator"


def operator_confirmations(edges: Iterable[WagerEdge], by: str) -> tuple[EdgeConfirmation, ...]:
    """The confirmations the operator who starts the server gives for tables it
    sets up itself (``punto serve --demo``): recorded as the operator, by name,
    never as a pit manager (docs/interpretations.md)."""
    when = datetime.datetime.now(datetime.UTC).isoformat()
    return tuple(
        EdgeConfirmation(e.wager, exact(e.edge), by, OPERATOR, when) for e in favoured(edges)
    )
