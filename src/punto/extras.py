"""Optional dependencies (extras): imported only when used, and refused with
the ``pip install`` line that installs them when missing.

>>> require("json", "report").__name__
'json'
"""

from __future__ import annotations

import importlib
from typing import Any

from punto.errors import PuntoError

__all__ = ["MissingExtraError", "require"]


class MissingExtraError(PuntoError):
    """An optional dependency is not installed."""


def require(module: str, extra: str) -> Any:
    """Import ``module``, or refuse naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{module.split('.')[0]} is not installed",
            hint=f"pip install 'punto[{extra}]'",
        ) from None
