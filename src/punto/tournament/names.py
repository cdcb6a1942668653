"""Display names (a tournament entrant's name on the leaderboard): one spelling
each, nothing hidden, nobody else's.

A name is normalised to Unicode NFKC (so that full-width ``Ａｎｎ`` and the
ligature ``ﬁ`` are the ``Ann`` and ``fi`` they look like), its spaces
trimmed and runs of them made one; it is refused if it holds a control,
format, bidi, zero-width or private-use character (a right-to-left override
can make ``Ann`` read as ``nnA`` after it, a zero-width space makes a second
``Ann`` that looks like the first), or if it is longer than
:data:`MAX_NAME` characters.

Two names are the same name when their :func:`name_key` is: the Unicode
TR39 confusable skeleton (``disarm``'s, with TR39's digits: ``1`` is ``l``,
``0`` is ``O``), case-folded -- ``ANN`` and ``ann`` cannot both enter, nor
``Ann`` and a Greek ``ΑΝΝ``.  And a name may not impersonate the staff: one
whose words read, skeleton for skeleton, as a role or a staff title
(:data:`STAFF_WORDS`: "dealer", "Admin", "pit boss", ...) is refused
(:func:`check_not_staff`), so "dеaler" with a Cyrillic е is refused as
"dealer" is.  The same rules hold for account names
(:mod:`punto.store.accounts`) and tournament entrants.

>>> display_name("  Ａｎｎ   Lee ")
'Ann Lee'
>>> name_key("ANN LEE") == name_key("ann lee") == name_key("\u0391NN LEE")
True
>>> check_not_staff("Pit  Boss")
Traceback (most recent call last):
...
punto.tournament.names.DisplayNameError: the name 'Pit  Boss' reads as 'pit boss', a staff role or title; choose a name that is not one
>>> check_not_staff("Anne Dealerson")
>>> display_name("Ann\\u202e")
Traceback (most recent call last):
...
punto.tournament.names.DisplayNameError: a name may not hold the invisible or control character U+202E; type the name with letters, digits, spaces and punctuation only
"""

from __future__ import annotations

import re
import unicodedata

from disarm import skeleton_key

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
    """What two names are compared by: equal keys are the same name (the
    confusable skeleton of the module's docstring)."""
    return skeleton_key(unicodedata.normalize("NFKC", name), digit_policy="tr39")


#: The roles and staff titles no player or entrant may be called, alone or as
#: words of a longer name (compared by skeleton, spaces and punctuation aside).
STAFF_WORDS = (
    "dealer",
    "croupier",
    "admin",
    "administrator",
    "pit",
    "pit boss",
    "pit manager",
    "pit supervisor",
    "floor manager",
    "floor supervisor",
    "shift manager",
    "gaming shift manager",
    "casino manager",
    "assistant casino manager",
    "manager",
    "supervisor",
    "cashier",
    "house",
    "staff",
    "surveillance",
    "operator",
    "moderator",
)
#: What separates the words of a name (for the staff check).
_SEPARATORS = re.compile(r"[\s._@\-'’]+")


def _words(name: str) -> list[str]:
    return [w for w in _SEPARATORS.split(name_key(name)) if w]


_STAFF = {"".join(_words(w)): w for w in STAFF_WORDS}
_LONGEST = max(len(_words(w)) for w in STAFF_WORDS)


def check_not_staff(name: str, *, clause: str | None = None) -> None:
    """Refuse (:class:`DisplayNameError`) a name that reads as a staff role or
    title, by any run of its words (``Dealer``, ``pit-boss``, ``Admin 2``,
    ``dеaler`` with a Cyrillic е)."""
    words = _words(name)
    for start in range(len(words)):
        for end in range(min(len(words), start + _LONGEST), start, -1):  # the longest first
            staff = _STAFF.get("".join(words[start:end]))
            if staff is not None:
                raise DisplayNameError(
                    f"the name {name!r} reads as {staff!r}, a staff role or title",
                    clause=clause,
                    hint="choose a name that is not one",
                )
