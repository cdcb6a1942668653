"""Account names: the rules of :mod:`punto.tournament.names` for the names people log in
under and are shown by at the tables.

An account name is typed case-insensitively in Unicode NFKC (full-width
``ｄｅｍｏ`` is ``demo``) and is then 1 to 64 ASCII letters, digits and
``. _ @ -``: nothing invisible or from another script can hide in it.  A
player's name may not read as a staff role or title (``dealer``, ``admin``,
``pit-boss``, ``dea1er``: :func:`punto.tournament.names.check_not_staff`; the staff's
own accounts are named by the admin), and no name may be another account's
by its confusable skeleton (``dem0`` beside ``demo``).

>>> account_name(" Ｄemo ", player=True, taken=[])
'demo'
>>> account_name("dem0", player=True, taken=["demo"])
Traceback (most recent call last):
...
punto.store.account_names.UsernameError: user name 'dem0' reads as the account 'demo'; choose a user name that does not look like another's
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from punto.errors import PuntoError
from punto.tournament.names import DisplayNameError, check_not_staff, name_key

__all__ = ["UsernameError", "account_name", "normalize_username"]

_USERNAME = re.compile(r"[a-z0-9][a-z0-9._@-]{0,63}")


class UsernameError(PuntoError, ValueError):
    """A user name that is not allowed."""


def normalize_username(username: str) -> str:
    """User names are case-insensitive and typed in NFKC: ``" Ann "`` is ``"ann"``."""
    return unicodedata.normalize("NFKC", username).strip().casefold()


def account_name(username: str, *, player: bool, taken: Iterable[str]) -> str:
    """``username`` as the name of a new account, or :class:`UsernameError`
    saying why not (see the module); ``taken``: the names of the accounts
    there are."""
    name = normalize_username(username)
    if not _USERNAME.fullmatch(name):
        odd = next((c for c in name if not (c.isascii() and (c.isalnum() or c in "._@-"))), None)
        why = f": {odd!r} (U+{ord(odd):04X}) is not one of them" if odd is not None else ""
        raise UsernameError(
            f"user name {username!r} is not allowed{why}",
            hint="use 1 to 64 letters a-z, digits and . _ @ -, starting with a letter or digit",
        )
    if player:
        try:
            check_not_staff(name)
        except DisplayNameError as error:
            raise UsernameError(
                f"user name {name!r}: {error.message.removeprefix(f'the name {name!r} ')}",
                hint="a player's name may not be a staff role or title: choose another",
            ) from None
    key = name_key(name)
    other = next((t for t in taken if t != name and name_key(t) == key), None)
    if other is not None:
        raise UsernameError(
            f"user name {name!r} reads as the account {other!r}",
            hint="choose a user name that does not look like another's",
        )
    return name
