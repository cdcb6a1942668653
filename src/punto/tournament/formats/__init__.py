"""The registry of tournament formats: one TOML file each, looked up by id.

>>> [f.id for f in all_formats()]
['championship', 'daily', 'turbo']
>>> get_format("weekly")
Traceback (most recent call last):
...
punto.tournament.errors.UnknownFormatError: no tournament format 'weekly'; known formats: championship, daily, turbo, or the path of a .toml file
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path

from punto.tournament.errors import FormatError, UnknownFormatError
from punto.tournament.format import Format, load_format


@cache
def _registry() -> dict[str, Format]:
    formats = []
    for entry in resources.files(__name__).iterdir():
        if entry.name.endswith(".toml"):
            formats.append(load_format(tomllib.loads(entry.read_text("utf-8")), entry.name))
    formats.sort(key=lambda f: f.id)
    return {f.id: f for f in formats}


def all_formats() -> list[Format]:
    """Every registered format, by id."""
    return list(_registry().values())


def get_format(name: str) -> Format:
    """The format registered as ``name``, or read from the ``.toml`` file ``name``."""
    formats = _registry()
    if name in formats:
        return formats[name]
    if name.endswith(".toml"):
        return load_format_file(name)
    raise UnknownFormatError(
        f"no tournament format {name!r}",
        hint=f"known formats: {', '.join(formats)}, or the path of a .toml file",
    )


def load_format_file(path: str | Path) -> Format:
    """A format from a TOML file of one's own."""
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except OSError as error:
        raise FormatError(f"cannot read the format file {str(file)!r}: {error.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise FormatError(f"{file.name}: not valid TOML: {error}") from None
    return load_format(data, file.name)
