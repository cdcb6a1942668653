"""The optional parts of punto (``pip install 'punto[EXTRA]'``) and the one
line a command prints when the part it needs is not installed.

The core install (rules engine, exact mathematics, the command line for them,
the terminal table) needs only ``rich``; an event log in a database
(:mod:`punto.store.eventlog`), the server, PostgreSQL, the simulation
kernels, the charts and the data frames are extras, declared in
``pyproject.toml``.  Code that needs one imports it through :func:`require`,
which names the extra when it is missing:

>>> require("json", "report").__name__
'json'
"""

from __future__ import annotations

import importlib
from typing import Any

from punto.errors import PuntoError

__all__ = [
    "COMMAND_EXTRAS",
    "EXTRA_OF_MODULE",
    "CommandNeedsExtraError",
    "MissingExtraError",
    "missing_extra",
    "require",
    "require_command",
    "require_extra",
]

#: The extra that installs each optional top-level module.  SQLAlchemy,
#: Alembic and orjson are ``store``'s (an event log in a database), which ``server`` and
#: ``postgres`` bring too.
EXTRA_OF_MODULE = {
    "fastapi": "server",
    "starlette": "server",
    "uvicorn": "server",
    "argon2": "server",
    "limits": "server",
    "swagger_ui_bundle": "server",
    "sqlalchemy": "store",
    "alembic": "store",
    "orjson": "store",
    "psycopg": "postgres",
    "numpy": "sim",
    "numba": "sim",
    "distributed": "sim",
    "dask": "sim",
    "matplotlib": "report",
    "pandas": "frames",
}

#: Commands that cannot run at all without an extra, and the modules checked
#: before they start (so that nothing is done -- a database file created, a
#: shoe dealt -- before the refusal).
COMMAND_EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "serve": (
        "server",
        ("fastapi", "uvicorn", "sqlalchemy", "alembic", "argon2", "limits", "swagger_ui_bundle"),
    ),
    "simulate": ("sim", ("numpy", "numba")),
    "counting": ("sim", ("numpy", "numba")),
}


class MissingExtraError(PuntoError):
    """An optional dependency is not installed: the message names it, the hint
    the ``pip install`` line that installs it."""

    def __init__(self, message: str, *, extra: str) -> None:
        self.extra = extra
        super().__init__(message, hint=f"pip install 'punto[{extra}]'")


class CommandNeedsExtraError(MissingExtraError):
    """A command needs an optional part of punto that is not installed."""

    def __init__(self, command: str, extra: str, *, purpose: str = "", otherwise: str = "") -> None:
        self.command = command
        self.otherwise = otherwise
        what = f"punto {command}: needs the {extra} extra" + (f" {purpose}" if purpose else "")
        super().__init__(what, extra=extra)

    def __str__(self) -> str:
        return f"{self.message}: {self.hint}" + (f", or {self.otherwise}" if self.otherwise else "")


def require(module: str, extra: str) -> Any:
    """Import ``module``, or refuse naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(f"{module.split('.')[0]} is not installed", extra=extra) from None


def _importable(module: str) -> bool:
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_command(command: str) -> None:
    """Refuse, before it starts, a command whose extra is not installed."""
    needed = COMMAND_EXTRAS.get(command)
    if needed is None:
        return
    extra, modules = needed
    require_extra(command, extra, modules)


def require_extra(
    command: str, extra: str, modules: tuple[str, ...], *, purpose: str = "", otherwise: str = ""
) -> None:
    """Refuse ``command`` unless ``modules`` are importable: for a part of a
    command that needs an extra (``purpose``, e.g. "for its counting run"),
    checked before the command starts, with what to give instead (``otherwise``).

    >>> require_extra("report", "sim", ("no_such_module",), purpose="for its counting run",
    ...               otherwise="--counting-shoes 0 leaves the run out")
    Traceback (most recent call last):
    ...
    punto.extras.CommandNeedsExtraError: punto report: needs the sim extra for its counting run: pip install 'punto[sim]', or --counting-shoes 0 leaves the run out
    """
    if not all(_importable(module) for module in modules):
        raise CommandNeedsExtraError(command, extra, purpose=purpose, otherwise=otherwise)


def missing_extra(command: str, error: ModuleNotFoundError) -> CommandNeedsExtraError | None:
    """The refusal for an import that failed because an extra is missing, if it was."""
    top = (error.name or "").partition(".")[0]
    if top not in EXTRA_OF_MODULE:
        return None
    extra = COMMAND_EXTRAS[command][0] if command in COMMAND_EXTRAS else EXTRA_OF_MODULE[top]
    return CommandNeedsExtraError(command, extra)
