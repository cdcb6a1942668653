"""The password policy and the Argon2id parameters of the table server.

**Argon2id parameters.**  OWASP's Password Storage Cheat Sheet (2025) gives
Argon2id with 19 MiB of memory, 2 iterations and 1 degree of parallelism as
its first configuration; RFC 9106 (section 4) leaves memory to what the
machine can spare.  The table server runs on two cores next to the tables, so
the parameters are OWASP's: about 25 ms and 19 MiB a hash here, and with
at most :data:`punto.server.security.login_guard.HASH_SLOTS` hashes at a time a login flood
costs at most a few tens of MiB.  (argon2-cffi's own default, used before,
is RFC 9106's low-memory profile: 64 MiB and 4 lanes a hash, which at 64
concurrent logins took the server from 92 MiB to 1.7 GiB.)  A hash made with
other parameters still verifies -- the parameters are in the hash -- and is
made again with these at the account's next login.

**Passwords.**  At least :data:`MIN_PASSWORD_LENGTH` characters for a player
and :data:`MIN_STAFF_PASSWORD_LENGTH` for the staff (whose sessions move
cards and money), at most :data:`MAX_PASSWORD_LENGTH` (a login with a longer
one is refused before any hashing), not one of the commonest passwords
(``common_passwords.txt``, compared case-folded), not one character repeated,
and not the user name.

>>> policy_problem("12345678", staff=True)
('that password is too short for a staff account', 'use at least 12 characters; a few words make a good one')
>>> policy_problem("Password123", staff=False)[0]
'that password is one of the commonest passwords'
>>> policy_problem("three plain words", staff=True) is None
True
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from argon2 import PasswordHasher

#: A player's password: at least this many characters.
MIN_PASSWORD_LENGTH = 8
#: A staff member's (dealer and up, and the admin).
MIN_STAFF_PASSWORD_LENGTH = 12
#: Longer is refused, at login before any hashing (NIST SP 800-63B asks for at least 64).
MAX_PASSWORD_LENGTH = 256

#: OWASP's Argon2id configuration (see the module's docstring).
ARGON2_TIME_COST = 2
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_PARALLELISM = 1


def default_hasher() -> PasswordHasher:
    """The Argon2id hasher of the server (the parameters above)."""
    return PasswordHasher(
        time_cost=ARGON2_TIME_COST,
        memory_cost=ARGON2_MEMORY_KIB,
        parallelism=ARGON2_PARALLELISM,
    )


@cache
def common_passwords() -> frozenset[str]:
    """The commonest passwords, case-folded (the package's ``common_passwords.txt``)."""
    text = resources.files("punto.store").joinpath("common_passwords.txt").read_text("utf-8")
    return frozenset(
        line.strip().casefold()
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    )


def policy_problem(password: object, *, staff: bool, username: str = "") -> tuple[str, str] | None:
    """What is wrong with ``password`` as a new password, and what to do (message,
    hint); None if nothing is."""
    least = MIN_STAFF_PASSWORD_LENGTH if staff else MIN_PASSWORD_LENGTH
    advice = f"use at least {least} characters; a few words make a good one"
    if not isinstance(password, str):
        return "a password is text", advice
    if len(password) < least:
        whose = "a staff account" if staff else "an account"
        return f"that password is too short for {whose}", advice
    if len(password) > MAX_PASSWORD_LENGTH:
        return "that password is too long", f"use at most {MAX_PASSWORD_LENGTH} characters"
    folded = password.casefold()
    if folded in common_passwords():
        return "that password is one of the commonest passwords", (
            "anyone guessing tries it first: choose another, a few words make a good one"
        )
    if len(set(folded)) == 1:
        return "that password is one character repeated", advice
    if username and folded == username.casefold():
        return "that password is the user name", "choose a password nobody can guess from the name"
    return None
