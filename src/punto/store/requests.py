"""The one idempotency store: the answers given to keyed requests (``server_requests``).

Every state-changing request may carry an ``Idempotency-Key``.  Keys are the
account's own (``{account_id}:{key}``), one space for every kind of request:
a key answered once answers a retry of the same request (the same hash of
what it asked) with the stored status and body, and refuses any other
request (:class:`IdempotencyKeyError`, 409).  A row says where the request
acted: ``table_id`` (``""`` off the tables), ``round_id`` (the round, the
tournament or ``""``) and ``bet_id`` (the bet, or the kind of request).

The table's requests reserve their key with their first event (the journal
writes the row with it) and add the answer after; every other request
writes its key, its answer and what it did in one transaction
(:func:`run_within`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine

from punto.errors import ActionError
from punto.jsontext import dumps, loads
from punto.store import db
from punto.store.db import server_requests

__all__ = [
    "OFF_TABLE",
    "STORED_COLUMNS",
    "Answer",
    "IdempotencyKeyError",
    "StoredRequest",
    "answer_given",
    "answer_row",
    "conflict",
    "full_key",
    "hash_request",
    "recent_keys",
    "run_within",
    "stored_request",
]

#: The ``table_id`` of a request that acts off the tables (the cage, the admin, tournaments).
OFF_TABLE = ""


class IdempotencyKeyError(ActionError):
    """An idempotency key used again for a different request."""


def conflict(clause: str | None = None) -> IdempotencyKeyError:
    return IdempotencyKeyError(
        "this Idempotency-Key was already used for a different request",
        clause=clause,
        hint="use a new key for a new request; repeat a key only to retry the same one",
    )


def hash_request(content: Mapping[str, Any]) -> str:
    """What a request asked, as a hash: the same request hashes the same."""
    return hashlib.sha256(json.dumps(dict(content), sort_keys=True).encode()).hexdigest()


def full_key(account_id: int, key: str) -> str:
    """The stored key: the account's own (two accounts may use the same key)."""
    return f"{account_id}:{key}"


def recent_keys(engine: Engine, table_id: str, since: datetime) -> frozenset[str]:
    """The keys of the requests made at ``table_id`` since ``since``."""
    query = select(server_requests.c.key).where(
        server_requests.c.table_id == table_id, server_requests.c.created_at >= since
    )
    with db.read_transaction(engine) as conn:
        return frozenset(str(key) for key in conn.execute(query).scalars())


@dataclass(frozen=True)
class Answer:
    """An answer given to a request: its HTTP status and JSON body."""

    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class StoredRequest:
    """A stored request: its hash, where it acted, and its answer (None: not yet stored)."""

    request_hash: str
    table_id: str
    round_id: str
    bet_id: str
    answer: Answer | None


#: What a stored request says of itself, in the order :func:`stored_request` reads it.
STORED_COLUMNS = (
    server_requests.c.request_hash,
    server_requests.c.table_id,
    server_requests.c.round_id,
    server_requests.c.bet_id,
    server_requests.c.status_code,
    server_requests.c.response,
)


def stored_request(conn: Connection, key: str) -> StoredRequest | None:
    """The row of the full key ``key``, or None."""
    row = conn.execute(select(*STORED_COLUMNS).where(server_requests.c.key == key)).first()
    if row is None:
        return None
    answer = None
    if row.response is not None:
        answer = Answer(int(row.status_code or 200), loads(row.response))
    return StoredRequest(
        str(row.request_hash), str(row.table_id), str(row.round_id), str(row.bet_id), answer
    )


def answer_given(
    engine: Engine, account_id: int, key: str | None, request: Mapping[str, Any]
) -> Answer | None:
    """The answer given before to the account's ``key`` for this same request,
    or None (no key, or none given yet); :func:`conflict` for another request
    or one still without its answer."""
    if key is None:
        return None
    with engine.connect() as conn:
        found = stored_request(conn, full_key(account_id, key))
    if found is None:
        return None
    if found.request_hash != hash_request(request) or found.answer is None:
        raise conflict()
    return found.answer


def answer_row(
    key: str,
    account_id: int,
    request_hash: str,
    answer: Answer,
    *,
    table_id: str = OFF_TABLE,
    round_id: str = "",
    bet_id: str = "",
) -> dict[str, Any]:
    """The row of a request answered in the transaction that did it."""
    return {
        "key": key,
        "account_id": account_id,
        "request_hash": request_hash,
        "table_id": table_id,
        "round_id": round_id,
        "bet_id": bet_id,
        "status_code": answer.status,
        "response": dumps(answer.body, sort_keys=True),
        "created_at": db.utc_now(),
    }


def run_within(
    conn: Connection,
    account_id: int,
    key: str | None,
    request: Mapping[str, Any],
    act: Callable[[Connection], Answer],
    *,
    where: tuple[str, str] = ("", ""),
    clause: str | None = None,
) -> tuple[Answer, bool]:
    """In ``conn``'s write transaction: the answer already given to ``key``
    (the same request), or ``act`` done and its answer stored with what it
    wrote.  (answer, whether ``act`` ran now).  ``where``: (round_id, bet_id)
    of the row, e.g. the tournament and the kind of request."""
    if key is None:
        return act(conn), True
    stored_key = full_key(account_id, key)
    request_hash = hash_request(request)
    found = stored_request(conn, stored_key)
    if found is not None:
        if found.request_hash != request_hash or found.answer is None:
            raise conflict(clause)
        return found.answer, False
    answer = act(conn)
    round_id, bet_id = where
    conn.execute(
        insert(server_requests).values(
            answer_row(
                stored_key, account_id, request_hash, answer, round_id=round_id, bet_id=bet_id
            )
        )
    )
    return answer, True
