"""Keyed requests on the server: the ways a route answers a retry once
(:mod:`punto.store.requests`, the one store).

- :func:`table_action`: an action at a table (the dealer's, a player's
  withdrawal): its key is reserved with the action's first event, in the
  journal's transaction, and the answer follows; a retry whose answer was
  lost with a process gets it rebuilt from the table.
- :func:`in_journal`: a request whose writes can share the journal's
  transaction (a cage deposit): what it did, its key and its answer commit
  together.
- :func:`after_acting`: a request whose store writes its own transaction
  (the admin's account controls): the key and the answer are written right
  after, so only a process dying in between leaves a retry to act again,
  and each of these sets a state that acting again leaves as it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Header
from sqlalchemy.engine import Connection

from punto.server.json_response import JSONText
from punto.store import db
from punto.store.requests import (
    Answer,
    answer_given,
    run_within,
)

if TYPE_CHECKING:
    from punto.server.services import Server
    from punto.server.tables.runtime import TableRuntime
    from punto.store.accounts import User

__all__ = [
    "REPLAYED",
    "IdempotencyKey",
    "after_acting",
    "after_acting_async",
    "in_journal",
    "respond",
    "table_action",
]

IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=200,
        description="the request's own key: a retry with it gets the first answer and "
        "acts no second time; the same key for another request is refused (409)",
    ),
]

#: The response header set on an answer given again to a retry.
REPLAYED = "Idempotent-Replayed"


def respond(answer: Answer, fresh: bool) -> JSONText:
    """The HTTP answer; a retry's says so in :data:`REPLAYED`."""
    headers = None if fresh else {REPLAYED: "true"}
    return JSONText(answer.body, status_code=answer.status, headers=headers)


def table_action(
    runtime: TableRuntime,
    user: User,
    kind: str,
    request: Mapping[str, Any],
    key: str | None,
    act: Callable[[], dict[str, Any]],
    *,
    clause: str | None = None,
    users: Iterable[str] = (),
    done: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """``act`` (a runtime action, which takes the table's lock) as a keyed
    action of ``runtime``; ``done`` (the audit) runs once, not for a retry.
    A retry whose answer a dead process never stored gets the table as it
    is now and ``"replayed": true``."""
    result: list[dict[str, Any]] = []

    def run() -> None:
        result.append(act())

    def answer() -> dict[str, Any]:
        if result:
            return result[0]
        r = runtime.round
        return {
            "table_id": runtime.id,
            "round_id": r.round_id if r is not None else None,
            "phase": r.phase.value if r is not None else None,
            "action": kind,
            "replayed": True,
        }

    return runtime.keyed_action(
        user.id, kind, request, key, run, answer, clause=clause, users=users, done=done
    )


def in_journal(
    server: Server,
    user: User,
    key: str | None,
    request: Mapping[str, Any],
    act: Callable[[Connection], Answer],
    *,
    where: tuple[str, str] = ("", ""),
) -> tuple[Answer, bool]:
    """``act`` (which writes in the connection it is given) with its key and
    its answer in one transaction of the journal; (answer, whether it acted now)."""

    def work(conn: Connection) -> tuple[Answer, bool]:
        return run_within(conn, user.id, key, request, act, where=where)

    done = server.journal.run(work)
    assert done is not None  # waited for
    return done


def after_acting(
    server: Server,
    user: User,
    key: str | None,
    request: Mapping[str, Any],
    act: Callable[[], Answer],
    *,
    where: tuple[str, str] = ("", ""),
) -> tuple[Answer, bool]:
    """``act`` (which writes its own transaction) once per key: the stored
    answer to a retry, or ``act`` done and its answer stored straight after."""
    if key is None:
        return act(), True
    given = answer_given(server.engine, user.id, key, request)
    if given is not None:
        return given, False
    return _store(server, user, key, request, act(), where), True


async def after_acting_async(
    server: Server,
    user: User,
    key: str | None,
    request: Mapping[str, Any],
    act: Callable[[], Awaitable[Answer]],
    *,
    where: tuple[str, str] = ("", ""),
) -> tuple[Answer, bool]:
    """:func:`after_acting` for a route of the event loop (the database in worker threads)."""
    if key is None:
        return await act(), True
    given = await asyncio.to_thread(answer_given, server.engine, user.id, key, request)
    if given is not None:
        return given, False
    answer = await act()
    return await asyncio.to_thread(_store, server, user, key, request, answer, where), True


def _store(
    server: Server,
    user: User,
    key: str,
    request: Mapping[str, Any],
    answer: Answer,
    where: tuple[str, str],
) -> Answer:
    """Store ``answer`` for ``key``; the one stored first if a concurrent retry won."""

    def store(conn: Connection) -> tuple[Answer, bool]:
        return run_within(conn, user.id, key, request, lambda _: answer, where=where)

    stored, _ = db.run_transaction(server.engine, store, retry_integrity=True)
    return stored
