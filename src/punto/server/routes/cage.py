"""The cage's amounts: read by the one reader of money, and bounded.

The security review found ``true`` taken as a deposit of 1.00 (a JSON ``true`` is an
``int`` to a lax model) and deposits that overflowed the ledger.  A cage
amount here is a JSON string (``"500.00"``) or a whole JSON number (``500``);
a boolean, a fraction written as a JSON number (``500.5``: a float, and money
is never a float), anything else is refused with the way to write it, by
:func:`punto.money.parse_stake`; then the cage's maximum
(:class:`punto.store.bounds.MoneyBounds`) applies.

A deposit (:func:`deposit`) is posted in the journal's transaction with its
``Idempotency-Key`` and its answer (:mod:`punto.server.routes.idempotency`): a
retry gets the first answer and credits nothing again.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Annotated

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr
from sqlalchemy import select
from sqlalchemy.engine import Connection

from punto.errors import WagerError
from punto.inputs import quoted
from punto.money import CENT, parse_stake
from punto.server.routes.idempotency import in_journal
from punto.server.tables.forms import money
from punto.store import postings
from punto.store.bounds import MoneyBounds
from punto.store.db import wallets
from punto.store.requests import Answer

if TYPE_CHECKING:
    from punto.server.services import Server
    from punto.store.accounts import User

#: What a cage amount may arrive as.  Booleans and floats are let through the model
#: (strictly, so that ``true`` stays a bool) to be refused below with a clear message,
#: rather than turned into 1 or into a float's approximation.
CageAmount = Annotated[
    StrictStr | StrictInt | StrictBool | StrictFloat, Field(union_mode="left_to_right")
]

_HOW = 'write it as a string of digits, like "500" or "12.50"'


def cage_units(value: str | int | bool | float, what: str, bounds: MoneyBounds) -> int:
    """A positive cage amount (``what``: "deposit", "withdrawal") in minor units,
    within the cage's maximum; refused with a :class:`WagerError` or a
    :class:`~punto.store.bounds.MoneyBoundError` otherwise."""
    if isinstance(value, bool):  # as the request wrote it: JSON's true or false
        raise WagerError(f"a {what} of {str(value).lower()} is not an amount of money", hint=_HOW)
    if isinstance(value, float):
        raise WagerError(f"a {what} of {quoted(value)} is not an amount of money", hint=_HOW)
    try:
        amount: Decimal = parse_stake(value)
    except WagerError as refused:
        told = refused.message.removeprefix("stake ")  # parse_stake speaks of stakes
        raise WagerError(f"a {what} of {told}", hint=refused.hint) from None
    units = int(amount / CENT)  # whole cents: parse_stake checked it
    bounds.check_cage_amount(units, what)
    return units


def deposit(
    server: Server, user: User, player: User, units: int, receipt: str, key: str | None
) -> tuple[Answer, bool]:
    """Credit ``player``'s wallet with ``units`` at the cage, once per cage
    ``receipt`` (the ledger's key) and once per ``key`` (the request's):
    the posting, the key and the answer commit together.  (answer, whether
    it was posted now); the audit records a posting made now."""
    wallet = server.ledger.player_wallet(player.username, account_id=player.id)
    bounds = server.money_bounds
    posted: list[bool] = []

    def act(conn: Connection) -> Answer:
        request = postings.Deposit(wallet.code, units, receipt, None, bounds.max_balance)
        posted.append(not server.ledger.post(request, within=conn).replayed)
        left = conn.execute(select(wallets.c.balance).where(wallets.c.code == wallet.code))
        return Answer(201, {"username": player.username, "balance": money(int(left.scalar_one()))})

    asked = {"op": "cage_deposit", "player": player.username, "units": units, "receipt": receipt}
    try:
        answer, fresh = in_journal(server, user, key, asked, act)
    finally:
        server.journal.forget_balance(wallet.code)  # it has more now
    if posted and posted[-1]:
        server.audit.record("deposit", user=user, player=player.username, amount=money(units))
    return answer, fresh
