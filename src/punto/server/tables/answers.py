"""The answers a table gave to keyed requests (:class:`Answers`): a retry
with the same ``Idempotency-Key`` gets the first answer, from memory if this
process gave it, else from the database; another request with the key is
refused."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete
from sqlalchemy.engine import Connection

from punto.jsontext import dumps, loads
from punto.server.tables.host import TableHost
from punto.server.tables.schema import server_requests
from punto.store.requests import conflict, hash_request

__all__ = ["ANSWERS_KEPT", "Answers", "hash_request"]

#: How many answers to keyed bet requests a table remembers (older ones are in the database).
ANSWERS_KEPT = 20_000


class Answers:
    """The answers given lately, and the way to the stored ones (lock held)."""

    def __init__(self, runtime: TableHost) -> None:
        self.rt = runtime
        #: the answers given to keyed requests lately: key -> (request hash, response)
        #: (as JSON text: strings are no work for the garbage collector, dicts are)
        self._answers: OrderedDict[str, tuple[str, str]] = OrderedDict()

    def __contains__(self, full_key: str) -> bool:
        return full_key in self._answers

    def given(self, full_key: str) -> tuple[str, str] | None:
        """(request hash, response as JSON) of an answer given lately."""
        return self._answers.get(full_key)

    def remember(self, full_key: str, request_hash: str, response: dict[str, Any]) -> None:
        self._answers[full_key] = (request_hash, dumps(response))
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)

    def request_row(self, full_key: str) -> tuple[Any, ...] | None:
        """The stored reservation of a bet request (one indexed read)."""
        return self.rt.journal.requests.one(full_key)

    def unreserve(self, full_key: str) -> None:
        def work(conn: Connection) -> None:
            conn.execute(
                delete(server_requests).where(
                    server_requests.c.key == full_key, server_requests.c.response.is_(None)
                )
            )

        self.rt.journal.run(work)

    def store_response(
        self, full_key: str, status: int, response: dict[str, Any], stored: bool = False
    ) -> None:
        """Keep the answer for a retry (written in the next group; not waited for:
        a retry before it is written gets the same answer rebuilt from the round).
        ``stored``: the journal wrote it with the bet already."""
        if not stored:
            self.rt.journal.store_response(full_key, status, dumps(response, sort_keys=True))

    def keyed_answer(
        self,
        full_key: str,
        request_hash: str,
        answer: Callable[[], dict[str, Any]],
        clause: str | None,
    ) -> dict[str, Any] | None:
        """Lock held: the answer already given to ``full_key``, or None to go ahead."""
        different = conflict(clause)
        given = self._answers.get(full_key)
        if given is not None:
            if given[0] != request_hash:
                raise different
            first: dict[str, Any] = loads(given[1])
            return first
        stored = self.request_row(full_key)
        if stored is None:
            return None
        stored_hash, table_id, _, _, _, response = stored
        if stored_hash != request_hash or table_id != self.rt.id:
            raise different
        if response is not None:
            first = loads(response)
            return first
        rebuilt = answer()  # written, but the answer was lost before it was stored
        self.remember(full_key, request_hash, rebuilt)
        self.store_response(full_key, 200, rebuilt)
        return rebuilt
