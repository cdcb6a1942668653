"""The refusals of a table's runtime that are not the engine's."""

from __future__ import annotations

from punto.errors import ActionError
from punto.store.requests import IdempotencyKeyError

__all__ = ["BetNotFoundError", "IdempotencyKeyError", "TableStoppedError"]


class BetNotFoundError(ActionError):
    """No such bet in the round (or not one of yours)."""


class TableStoppedError(ActionError):
    """The table is not running (inactive or stopping)."""
