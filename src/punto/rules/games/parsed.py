"""The game data files, parsed once per text.

``tomllib`` is pure Python: parsing the five game files was a fifth of the
start-up of ``punto games``.  The parsed tables are kept beside each file
(``__pycache__/NAME.toml.marshal``, like the ``.pyc`` of a module) together
with the exact bytes they were parsed from, and used only while the file
still holds those bytes: an edited file is parsed again.  Nothing is written
where Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``) or the package
directory is read-only; the files are then parsed each time, as before.
"""

from __future__ import annotations

import datetime
import marshal
import os
import sys
import tomllib
from collections.abc import Callable
from typing import Any

#: Changes whenever the layout of a cache file does.
_MAGIC = "punto-toml-1"

#: TOML's dates and times, which marshal cannot hold, as (kind, ISO text).
_THAW: dict[str, Callable[[str], Any]] = {
    "datetime": datetime.datetime.fromisoformat,
    "date": datetime.date.fromisoformat,
    "time": datetime.time.fromisoformat,
}


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _freeze(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_freeze(item) for item in value]
    if isinstance(value, datetime.datetime):  # before date: a datetime is a date
        return ("datetime", value.isoformat())
    if isinstance(value, datetime.date):
        return ("date", value.isoformat())
    if isinstance(value, datetime.time):
        return ("time", value.isoformat())
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_thaw(item) for item in value]
    if isinstance(value, tuple):  # tomllib makes no tuples: only _freeze's dates
        kind, text = value
        return _THAW[kind](text)
    return value


def _cache_path(path: str) -> str:
    folder, name = os.path.split(path)
    return os.path.join(folder, "__pycache__", name + ".marshal")


def read_toml(path: str) -> dict[str, Any]:
    """The tables of the TOML file at ``path``, exactly as ``tomllib`` reads them."""
    with open(path, "rb") as source:
        raw = source.read()
    cached = _cache_path(path)
    try:
        with open(cached, "rb") as kept:
            magic, text, frozen = marshal.load(kept)
        if magic == _MAGIC and text == raw:
            data: dict[str, Any] = _thaw(frozen)
            return data
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        pass  # no cache yet, or one of another version: parse
    data = tomllib.loads(raw.decode("utf-8").replace("\r\n", "\n"))  # as text mode reads it
    if not sys.dont_write_bytecode:
        _keep(cached, raw, data)
    return data


def _keep(cached: str, raw: bytes, data: dict[str, Any]) -> None:
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        partial = f"{cached}.{os.getpid()}.tmp"
        with open(partial, "wb") as out:
            marshal.dump((_MAGIC, raw, _freeze(data)), out)
        os.replace(partial, cached)  # whole or not at all, whoever reads at once
    except OSError:
        pass  # a read-only install parses each time
