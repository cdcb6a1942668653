"""Reading what people and files give the command line: JSON, names, text, counts.

One reading for every reader (the replay file, ``punto settle``'s lines, the
dealer console), so that what one refuses the others refuse too, and each
refusal is one line that quotes the value cut short -- never a traceback, and
never a quotation as long as the input.

>>> read_json('{"a": 1, "a": 2}', "x.json")
Traceback (most recent call last):
...
punto.inputs.InputError: x.json: the key 'a' is given twice in one object; keep one
>>> quoted("ann" * 40)
"'annannannannannan...annannannannannann'"
>>> read_name("  ", "player")
Traceback (most recent call last):
...
punto.inputs.InputError: player '  ' is empty; give a name, e.g. "ann"
"""

from __future__ import annotations

import json
import reprlib
import unicodedata
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from punto.errors import PuntoError

#: Reads one line after showing a prompt; raises EOFError when input ends
#: (the terminal table, the tournament runner and the dealer console read so).
InputFn = Callable[[str], str]
#: Pauses for a number of seconds (``time.sleep``).
SleepFn = Callable[[float], None]

__all__ = [
    "MAX_DEPTH",
    "MAX_NAME",
    "MAX_TEXT",
    "InputError",
    "quoted",
    "read_count",
    "read_json",
    "read_name",
    "read_text",
]

#: The deepest nesting of arrays and objects a file may have.  The deepest a
#: replay needs is 4 (file, actions, an action, a list of cards); the bound keeps
#: every reader (and every ``repr`` in an error message) far from Python's
#: recursion limit.
MAX_DEPTH = 32
#: The longest name (a player, a bet id) and the longest free text (a reason).
MAX_NAME = 64
MAX_TEXT = 1000


def _label(what: str, value: object) -> str:
    return f"{what} {quoted(value)}" if what else quoted(value)


class InputError(PuntoError):
    """Input that cannot be read: not JSON, nested too deep, a name that is no name."""


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 40
_repr.maxlevel = 3


def quoted(value: object) -> str:
    """``value`` as an error message shows it: its ``repr``, cut short."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        # str() of a number of over 4,300 digits raises; this is close enough
        return f"<a number of about {int(value.bit_length() * 0.30103) + 1} digits>"
    try:
        return _repr.repr(value)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__}>"


def read_json(text: str, where: str) -> Any:
    """The JSON document ``text`` (named ``where`` in a refusal).

    Fractional numbers are read as :class:`~decimal.Decimal` (so a refusal can
    quote them exactly); a key given twice in one object, a number of more
    than 4,300 digits and nesting deeper than :data:`MAX_DEPTH` are refused.
    """
    try:
        data = json.loads(text, parse_float=Decimal, object_pairs_hook=_unique_keys)
    except InputError as error:
        raise InputError(f"{where}: {error.message}", hint=error.hint) from None
    except json.JSONDecodeError as error:
        raise InputError(
            f"{where} is not JSON: {error.msg} at line {error.lineno} column {error.colno}",
            hint="see docs/replay.md for the format",
        ) from None
    except RecursionError:
        raise InputError(
            f"{where} is nested too deep to read", hint=f"nest at most {MAX_DEPTH} levels"
        ) from None
    except ValueError as error:  # a number Python will not convert (over 4,300 digits)
        raise InputError(
            f"{where} has a number too long to read ({str(error).split(';')[0]})",
            hint="write numbers of at most 15 digits",
        ) from None
    _check_depth(data, where)
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A key given twice would silently keep the last value: a misspelt replay
    # could change without anyone seeing it.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"the key {quoted(key)} is given twice in one object", hint="keep one")
        out[key] = value
    return out


def _check_depth(data: Any, where: str) -> None:
    level = [data] if isinstance(data, list | Mapping) else []
    for _ in range(MAX_DEPTH):  # one level of arrays and objects a pass
        level = [
            item
            for value in level
            for item in (value.values() if isinstance(value, Mapping) else value)
            if isinstance(item, list | Mapping)
        ]
        if not level:
            return
    raise InputError(
        f"{where} is nested more than {MAX_DEPTH} levels deep", hint="see docs/replay.md"
    )


def read_text(value: Any, what: str = "", *, longest: int = MAX_TEXT) -> str:
    """Free text (a reason, a clause): a string with something in it, on one
    line, of printable characters."""
    if not isinstance(value, str):
        raise InputError(f"{_label(what, value)} is not text", hint="give it as a string")
    if not value.strip():
        raise InputError(f"{_label(what, value)} is empty", hint="write something in it")
    if len(value) > longest:
        raise InputError(
            f"{_label(what, value)} is {len(value)} characters long",
            hint=f"at most {longest}",
        )
    bad = next((c for c in value if unicodedata.category(c).startswith("C")), None)
    if bad is not None:
        raise InputError(
            f"{_label(what, value)} has the control character U+{ord(bad):04X}",
            hint="write it on one line, of printable characters",
        )
    return value


def read_name(value: Any, what: str = "") -> str:
    """A name (a player, a bet id): text of at most :data:`MAX_NAME` characters
    that does not begin or end with a space ("ann" and "ann " would be two
    players nobody could tell apart)."""
    if not isinstance(value, str) or not value.strip():
        missing = "is empty" if isinstance(value, str) else "is not a name"
        raise InputError(f"{_label(what, value)} {missing}", hint='give a name, e.g. "ann"')
    name = read_text(value, what, longest=MAX_NAME)
    if name != name.strip():
        raise InputError(
            f"{_label(what, name)} begins or ends with a space",
            hint=f"write it as {quoted(name.strip())}",
        )
    return name


def read_count(value: Any, what: str = "", *, least: int = 0, most: int) -> int:
    """A whole number from ``least`` to ``most``: a JSON integer, or ASCII digits."""
    text = value.strip() if isinstance(value, str) else None
    if isinstance(value, bool) or not (
        isinstance(value, int) or (text is not None and text.isascii() and text.isdigit())
    ):
        raise InputError(
            f"{_label(what, value)} is not a whole number", hint="write ASCII digits, e.g. 3"
        )
    # a string of more digits than ``most`` has is out of range without reading it
    too_long = text is not None and len(text.lstrip("0")) > len(str(most))
    number = 0 if too_long or text is None else int(text)
    if isinstance(value, int):
        number = value
    if too_long or not least <= number <= most:
        raise InputError(f"{_label(what, value)} is out of range", hint=f"give {least} to {most}")
    return number
