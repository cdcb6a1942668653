"""Display names (a tournament entrant's name on the leaderboard): one spelling
each, nothing hidden, nobody else's.

A name is normalised to Unicode NFKC (so that full-width ``Ａｎｎ`` and the
ligature ``ﬁ`` are the ``Ann`` and ``fi`` they look like), its spaces
trimmed and runs of them made one; it is refused if it holds a control,
format, bidi, zero-width or private-use character (a right-to-left override
can make ``Ann`` read as ``nnA`` after it, a zero-width space makes a second
``Ann`` that looks like the first), or if it is longer than
:data:`MAX_NAME` characters.  Two names are the same name when their
:func:`name_key` -- the NFKC case-fold -- is: ``ANN`` and ``ann`` cannot
both enter.

>>> display_name("  Ａｎｎ   Lee ")
'Ann Lee'
>>> name_key("ANN LEE") == name_key("ann lee")
True
>>> display_name("Ann\\u202e")
Traceback (most recent call last):
...
punto.names.DisplayNameError: a name may not hold the invisible or control character U+202E; type the name with letters, digits, spaces and punctuation only
"""

from __future__ import annotations

import unicodedata

from punto.errors import PuntoError

#: The longest display name.
MAX_NAME = 40

#: Unicode categories refused: controls, format (bidi marks, zero-width joiners,
#: the BOM), line and paragraph separators, private use, surrogates, unassigned.
_REFUSED = {"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"}
#: Characters outside those categories that show nothing all the same.
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}


class DisplayNameError(PuntoError, ValueError):
    """A display name that cannot be shown as given."""


def display_name(text: str, *, clause: str | None = None) -> str:
    """``text`` as a display name (see the module), or :class:`DisplayNameError`."""
    name = " ".join(unicodedata.normalize("NFKC", text).split())
    for char in name:
        if unicodedata.category(char) in _REFUSED or char in _INVISIBLE:
            raise DisplayNameError(
                f"a name may not hold the invisible or control character U+{ord(char):04X}",
                clause=clause,
                hint="type the name with letters, digits, spaces and punctuation only",
            )
    if not name:
        raise DisplayNameError("a name needs a letter or digit", clause=clause)
    if len(name) > MAX_NAME:
        raise DisplayNameError(
            f"a name of {len(name)} characters is too long",
            clause=clause,
            hint=f"use at most {MAX_NAME}",
        )
    return name


def name_key(name: str) -> str:
    """What two names are compared by: equal keys are the same name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
