"""Who may do what at a table.

Positions are ordered; a function of one position "may also be performed by
any person ... holding a higher position" (MBS 6.2; RWS 1.17).

>>> Role.PIT_MANAGER.may_act_as(Role.DEALER), Role.DEALER.may_act_as(Role.PIT_MANAGER)
(True, False)
"""

from __future__ import annotations

import enum

from punto.errors import RoleError
from punto.words import a


class Role(enum.Enum):
    PLAYER = "player"
    DEALER = "dealer"
    PIT_SUPERVISOR = "pit_supervisor"
    PIT_MANAGER = "pit_manager"
    SHIFT_MANAGER = "shift_manager"
    #: allows Method C and drawing without a wager (MBS 3.9.2, 3.12.2)
    ASSISTANT_CASINO_MANAGER = "assistant_casino_manager"

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def may_act_as(self, required: Role) -> bool:
        """Whether this position may perform ``required``'s function."""
        if required is Role.PLAYER or self is Role.PLAYER:
            return self is required
        return self.rank >= required.rank

    def check_acts_as(self, required: Role, action: str, clause: str | None = None) -> None:
        if not self.may_act_as(required):
            raise RoleError(
                f"{a(self.words)} may not {action}",
                clause=clause,
                hint=f"it takes {a(required.words)}"
                + (" or higher" if required is not Role.PLAYER else ""),
            )

    @property
    def words(self) -> str:
        return self.value.replace("_", " ")
