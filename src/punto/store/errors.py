"""The store's error, below every store module that raises it."""

from __future__ import annotations

from punto.errors import PuntoError

__all__ = ["StoreError"]


class StoreError(PuntoError):
    """The event log could not be read or written."""
