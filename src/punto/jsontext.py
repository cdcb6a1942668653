"""JSON text on the server's paths: by orjson where it is installed (the
``store`` extra, which ``server`` brings), else by the standard library -- the same text either way.

The text is compact (no spaces), in UTF-8 rather than ``\\u`` escapes, keys
sorted where asked.  A value orjson cannot write (an integer over 64 bits, a
key that is not a string) is written by the standard library, as before.

>>> dumps({"b": [1, None], "a": "é"}, sort_keys=True)
'{"a":"é","b":[1,null]}'
>>> loads(b'{"stake": "25.00"}')
{'stake': '25.00'}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["JSONDecodeError", "ascii_dumps", "dumps", "dumps_bytes", "loads"]

try:  # pragma: no branch - which one depends on the install
    import orjson as _orjson
except ImportError:  # pragma: no cover - the core install
    _orjson = None  # type: ignore[assignment]

#: what :func:`loads` raises for text that is not JSON (either library's is one)
JSONDecodeError = ValueError

_Default = Callable[[Any], Any] | None


def _standard(value: Any, sort_keys: bool, default: _Default) -> str:
    return json.dumps(
        value, sort_keys=sort_keys, default=default, separators=(",", ":"), ensure_ascii=False
    )


def dumps_bytes(value: Any, *, sort_keys: bool = False, default: _Default = None) -> bytes:
    """``value`` as JSON text in UTF-8.  ``default`` turns a value JSON has
    no type for into one it has (orjson writes a ``datetime`` itself, in ISO
    8601 as ``isoformat`` does)."""
    if _orjson is not None:
        try:
            return _orjson.dumps(
                value, default=default, option=_orjson.OPT_SORT_KEYS if sort_keys else 0
            )
        except TypeError:
            pass  # a big integer or a key that is not a string: as the library below writes it
    return _standard(value, sort_keys, default).encode()


def dumps(value: Any, *, sort_keys: bool = False, default: _Default = None) -> str:
    """``value`` as JSON text (see :func:`dumps_bytes`)."""
    return dumps_bytes(value, sort_keys=sort_keys, default=default).decode()


def ascii_dumps(value: Any) -> str:
    """``value`` as canonical JSON text in ASCII (keys sorted, compact, any other
    character escaped), as ``json.dumps(value, sort_keys=True, separators=(",", ":"))``
    writes it: a hash of it is the same as before.

    >>> ascii_dumps({"b": 1, "a": "é"})
    '{"a":"\\\\u00e9","b":1}'
    """
    text = dumps(value, sort_keys=True)
    if text.isascii() and "\x7f" not in text:  # DEL is ASCII, and escaped all the same
        return text
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """The value of JSON text; raises :data:`JSONDecodeError` (a ``ValueError``)."""
    if _orjson is not None:
        return _orjson.loads(text)
    return json.loads(text)
