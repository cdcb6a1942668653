"""Typed errors.  Every refusal says what was wrong, the clause where one
applies, and what to do instead, so a dealer, a lab or a program can act on it.

>>> err = DeckCountError("a shoe of 3 decks is not allowed", clause="2.1", hint="use 4 to 10")
>>> str(err)
'a shoe of 3 decks is not allowed (clause 2.1); use 4 to 10'
"""

from __future__ import annotations

from collections.abc import Callable


class PuntoError(Exception):
    """Base of every error punto raises on purpose."""

    def __init__(self, message: str, *, clause: str | None = None, hint: str | None = None) -> None:
        self.message = message
        self.clause = clause
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        text = self.message
        if self.clause:
            # "clause 3.15", but "(Table of Play)" or "(Appendix K)" as they stand
            label = "clause " if self.clause[0].isdigit() else ""
            text += f" ({label}{self.clause})"
        if self.hint:
            text += f"; {self.hint}"
        return text


class CardError(PuntoError, ValueError):
    """A card token could not be read."""


class DeckCountError(PuntoError, ValueError):
    """A shoe with a number of decks the game does not allow."""


class ShoeError(PuntoError):
    """The shoe cannot do what was asked (empty, commitment mismatch, ...)."""


class DealError(PuntoError):
    """Cards that do not fit the Table of Play: too few, too many."""


class GameDataError(PuntoError):
    """A game data file is malformed or inconsistent with the wager kinds."""


class UnknownGameError(PuntoError, KeyError):
    """No game is registered under that id."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return PuntoError.__str__(self)


class WagerError(PuntoError):
    """A bet the game or layout does not offer, or a stake that is not money."""


class InsuranceError(WagerError):
    """An Insurance Plus bet that is not on offer, or over its cap."""


class ActionError(PuntoError):
    """A table action that is not allowed now; says why and cites the clause."""


class BettingClosedError(ActionError):
    """A bet placed, increased or withdrawn after "No more bets" (MBS 5.4, 5.5; RWS 5.7)."""


class LimitError(ActionError):
    """A bet outside the table's limits, or a differential exceeded."""


class RoleError(ActionError):
    """An action by someone whose position may not take it (6.2: or any higher position)."""


class PhaseError(ActionError):
    """An action that does not fit where the round stands."""


def can(
    check: Callable[..., object], *args: object, refusal: type[PuntoError] = PuntoError
) -> bool:
    """The ``can_x`` of a check/can/act trio: whether ``check(*args)`` passes,
    a ``refusal`` raised by it meaning no.

    >>> def check_open(phase: str) -> None:
    ...     if phase != "new":
    ...         raise PuntoError("the round is already open")
    >>> can(check_open, "new"), can(check_open, "betting")
    (True, False)
    """
    try:
        check(*args)
    except refusal:
        return False
    return True
