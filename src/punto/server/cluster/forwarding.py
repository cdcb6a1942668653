"""A request for a table another process runs, forwarded to it through the database.

On PostgreSQL several server processes share the tables (each runs those
whose lease it holds: :mod:`punto.server.cluster.ownership`), and a client need not
know which: a request under ``/api/tables/{id}`` for a table another live
process runs is written to ``table_requests`` (method, path, the headers that
matter, the body, and who is asking: an :class:`punto.server.security.auth.Identity`,
the session's digest with the account and role the first process
authenticated -- never the bearer token, the cookie or a device token, so
that nothing in the table grants access to whoever reads it) and announced with ``NOTIFY`` (its id and table: never
its content, which any session of the database could hear); the process
that runs the table reads it at once on the notice (or takes it from the
table, ``FOR UPDATE SKIP LOCKED``), answers it with its own application --
the same authentication, checks and answers as a request of its own, a bet
acknowledged only once durable -- and writes the answer back, announced the
same way (a bet's by the very transaction that commits it:
:mod:`punto.server.forwarded`); the first process answers its client with it.

A notice can be missed (a connection lost), so both sides also look at the
table every :data:`POLL_SECONDS`; a request the look finds that this
process started on its notice is not started again.  A request no process
answers within :data:`FORWARD_SECONDS` is answered 503 (retry: a bet's
``Idempotency-Key`` makes the retry safe); a request waiting while its
table is taken over is answered by the process that takes it over.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import queue
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar
from urllib.parse import unquote

from fastapi import FastAPI
from sqlalchemy import (
    ARRAY,
    BigInteger,
    String,
    Text,
    bindparam,
    cast,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from starlette.requests import cookie_parser
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from punto.server.batching import Batcher, next_batch
from punto.server.cluster.ownership import Ownership
from punto.server.forwarded import ANSWERING, ANSWERS, Answering, notice, pack, unpack
from punto.server.http_errors import error_body, replaying
from punto.server.notices import UNHURRIED_TOO, Notices, notifying
from punto.server.security.auth import FORWARDED_IDENTITY, Identity, token_digest, token_in
from punto.store import db
from punto.store.accounts import AuthError
from punto.store.kept import KeptConnection
from punto.store.leases import Lease, db_now, table_requests
from punto.store.listed import listed

log = logging.getLogger("punto.server.cluster.forwarding")

#: How long a forwarded request waits for the process that runs its table.
FORWARD_SECONDS = 10.0
#: How often each side looks at the table besides the notices (seconds).
POLL_SECONDS = 0.5
#: How long a request started here is remembered, so that the poll taking it
#: too (started on its notice, its answer not in yet) does not start
#: it again: past this its client gave up (FORWARD_SECONDS) long ago.
STARTED_SECONDS = 3 * FORWARD_SECONDS
#: How long an answered request's row is kept (seconds).
KEEP_SECONDS = 300.0
#: Answers kept for requests not waited for (yet): see Forwarding._heard_answer.
EARLY_KEPT = 1000
#: The most requests read in one statement.
READ_MOST = 500
_NONE_YET: Any = object()
REQUESTS = "punto_table_requests"
T = TypeVar("T")
#: The database's clock, in seconds since the epoch (as leases.db_now reads it).
_NOW = func.extract("epoch", func.clock_timestamp())
_UNANSWERED = select(table_requests.c.id, table_requests.c.request).where(
    listed(table_requests.c.id, "ids"), table_requests.c.answer.is_(None)
)
#: Requests written, each announced by its id and table, never its content:
#: any session of the database may listen on a channel, and a request holds
#: the client's credentials (docs/security.md).  Not waited onto the disk: a
#: request lost in a crash is never answered, and its client retries (a bet's
#: Idempotency-Key makes that safe).
_SENT = (
    insert(table_requests)
    .from_select(
        ["table_id", "request", "created_at"],
        select(
            func.unnest(bindparam("tables", type_=ARRAY(String))),
            func.unnest(bindparam("requests", type_=ARRAY(Text))),
            _NOW,
        ),
    )
    .returning(table_requests.c.id, table_requests.c.table_id)
    .cte("sent")
)
_SEND = select(
    _SENT.c.id,
    _SENT.c.table_id,
    notifying(REQUESTS, cast(_SENT.c.id, Text) + " " + _SENT.c.table_id),
    UNHURRIED_TOO,
)
#: Answers written to their requests' rows, and announced (those given a
#: notice: a bet's went out with its commit) -- one statement.  Not waited onto
#: the disk: what they answer is durable already (a bet is acknowledged by its
#: journal), and a lost answer is asked again.
_GIVEN = select(
    func.unnest(bindparam("ids", type_=ARRAY(BigInteger))).label("id"),
    func.unnest(bindparam("answers", type_=ARRAY(Text))).label("answer"),
    func.unnest(bindparam("notices", type_=ARRAY(Text))).label("notice"),
).cte("given")
_WRITTEN = (
    update(table_requests)
    .where(table_requests.c.id == _GIVEN.c.id)
    .values(answer=_GIVEN.c.answer)
    .returning(table_requests.c.id)
    .cte("written")
)
_ANSWER = select(
    func.count(_WRITTEN.c.id),
    select(func.count(notifying(ANSWERS, _GIVEN.c.notice)))
    .where(_GIVEN.c.notice.is_not(None))
    .scalar_subquery(),
    UNHURRIED_TOO,
)
#: What is forwarded: a table's own resources (not the list of tables, nor a new one).
_TABLE_PATH = re.compile(r"/api/tables/([^/]+)(?:/.*)?")
#: A table's resources answered by any process, never forwarded: a new device
#: token (only the database is written) would otherwise lie in its answer's row.
_ANSWERED_HERE = re.compile(r"/api/tables/[^/]+/device-token")
#: The request headers the owner needs to answer as the first process would:
#: not the credentials (Authorization, Cookie, X-Device-Token), which stay
#: here; who is asking travels as an Identity instead.
_HEADERS = {"content-type", "idempotency-key", "accept"}
_ANSWER_HEADERS = {"content-type", "retry-after", "www-authenticate"}


class Forwarding:
    """Both sides of forwarding for one server process (see the module)."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None  # the application behind the middleware
        self.fastapi: FastAPI | None = None
        self.engine: Engine | None = None
        self.ownership: Ownership | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._waiting: dict[int, asyncio.Future[str | None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._answering: set[asyncio.Task[None]] = set()
        #: answers heard to requests no one here waits for (yet), by id
        self._early: OrderedDict[int, str | None] = OrderedDict()
        self._early_lock = threading.Lock()
        #: the requests started here lately, by id: when (the loop's clock)
        self._started: dict[int, float] = {}
        # Written together: under load one transaction carries many of each.
        self._requests = Batcher(self.send_requests)
        self._answers = Batcher(self.write_answers)
        #: the ids of the requests noticed for tables run here, to be read
        #: (by the reading thread; None stops it)
        self._to_read: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._reader: threading.Thread | None = None
        #: the connections kept for the batches, by batcher (see _held)
        self._kept: dict[str, KeptConnection] = {}

    @property
    def on(self) -> bool:
        return self._task is not None

    async def start(self, engine: Engine, ownership: Ownership, notices: Notices) -> None:
        """Listen for requests and answers (PostgreSQL only; ``notices`` is
        started after)."""
        self.engine, self.ownership = engine, ownership
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        notices.listen(REQUESTS, lambda payload: self._noticed(REQUESTS, payload))
        notices.listen(ANSWERS, lambda payload: self._noticed(ANSWERS, payload))
        self._task = self._loop.create_task(self._serve(), name="punto-forwarding")
        self._reader = threading.Thread(
            target=self._read_noticed, args=(self._loop,), name="punto-forwarded", daemon=True
        )
        self._reader.start()

    async def stop(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            self._to_read.put(None)
            await asyncio.to_thread(reader.join, 10)
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for answering in list(self._answering):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(answering, 10)
        for kept in self._kept.values():
            await asyncio.to_thread(kept.drop)

    # -- the process that got the request -------------------------------------------------------

    def elsewhere(self, table_id: str, tables: dict[str, Any]) -> bool:
        """Whether a request for ``table_id`` goes to another process (a worker
        thread's question: it may read the lease)."""
        if not self.on or self.ownership is None or table_id in tables:
            return False
        return self._held_elsewhere(self.ownership.holder(table_id))

    def elsewhere_known(self, table_id: str, tables: dict[str, Any]) -> bool | None:
        """:meth:`elsewhere` without a read, for the event loop; None if the
        lease was not read lately (ask :meth:`elsewhere` on a worker thread)."""
        if not self.on or self.ownership is None or table_id in tables:
            return False
        known, lease = self.ownership.holder_known(table_id)
        return self._held_elsewhere(lease) if known else None

    def _held_elsewhere(self, lease: Lease | None) -> bool:
        assert self.ownership is not None
        return lease is not None and lease.owner != self.ownership.owner and lease.expires_at > 0

    async def forward(
        self, table_id: str, scope: Scope, body: bytes, identity: Identity | None = None
    ) -> tuple[int, list[Any], bytes]:
        """Send the request to the process that runs ``table_id`` as ``identity``;
        its answer (status, headers, body), or 503 if none comes in time."""
        assert self.engine is not None
        assert self._loop is not None
        request = {
            "identity": None if identity is None else identity.as_json(),
            "method": scope["method"],
            "path": scope["path"],
            "query": scope.get("query_string", b"").decode("latin-1"),
            "headers": [
                [k.decode("latin-1"), v.decode("latin-1")]
                for k, v in scope.get("headers", ())
                if k.decode("latin-1").lower() in _HEADERS
            ],
            "body": base64.b64encode(body).decode("ascii"),
        }
        try:
            request_id = await self._requests.put((table_id, json.dumps(request)))
        except Exception:
            log.warning("forwarding: a request for table %s not sent", table_id, exc_info=True)
            return _not_answered(table_id, "the request could not be sent to it")
        done: asyncio.Future[str | None] = self._loop.create_future()
        with self._early_lock:
            self._waiting[request_id] = done
            early = self._early.pop(request_id, _NONE_YET)
        if early is not _NONE_YET:
            done.set_result(early)
        try:
            deadline = self._loop.time() + FORWARD_SECONDS
            while True:
                # The answer comes in its notice (read from its row if it is too
                # long for one, or the notice was missed: looked for every poll).
                left = deadline - self._loop.time()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(done), max(0, min(POLL_SECONDS, left)))
                noticed = done.result() if done.done() else None
                answer = (
                    unpack(noticed)
                    if noticed is not None
                    else await asyncio.to_thread(self._read_answer, request_id)
                )
                if answer is not None:
                    return answer
                if deadline - self._loop.time() <= 0:
                    break
        finally:
            self._waiting.pop(request_id, None)
        return _not_answered(table_id, "it did not answer in time")

    def send_requests(self, requests: Sequence[tuple[str, str]]) -> list[int]:
        """Write ``requests`` (table id, request); their ids.  One statement, its
        own transaction, on a connection kept for it: under load each round
        trip waits for a core, and a transaction of its own took five."""
        tables = [t for t, _ in requests]
        # Not again: a write that failed may have committed all the same.
        sent = self._held(
            "requests",
            lambda conn: conn.execute(
                _SEND, {"tables": tables, "requests": [r for _, r in requests]}
            ).all(),
            again=False,
        )
        if [row.table_id for row in sent] != tables:  # PostgreSQL returns them in order
            raise RuntimeError("forwarded requests written out of order")
        return [int(row.id) for row in sent]

    def _held(self, name: str, work: Callable[[Connection], T], *, again: bool = True) -> T:
        """``work`` on the connection kept for ``name`` (autocommit: each statement
        its own transaction); one batch at a time uses it (see :class:`Batcher`).
        With ``again``, tried once more on a new connection if the old was gone."""
        assert self.engine is not None
        kept = self._kept.get(name)
        if kept is None:
            kept = self._kept[name] = KeptConnection(self.engine, autocommit=True)
        return kept.run(work, again=again)

    def _read_answer(self, request_id: int) -> tuple[int, list[Any], bytes] | None:
        assert self.engine is not None
        with self.engine.connect() as conn:
            query = select(table_requests.c.answer).where(table_requests.c.id == request_id)
            answer = conn.execute(query).scalar_one_or_none()
        return None if answer is None else unpack(answer)

    # -- the process that runs the table ---------------------------------------------------------

    def _noticed(self, channel: str, payload: str) -> None:
        loop = self._loop
        if loop is None:
            return
        # Every process hears every notice: those for another process's tables,
        # or answers to another's requests, are dropped here, in the listener's
        # thread, costing the busy event loop nothing.
        with contextlib.suppress(RuntimeError):  # the loop is closed
            if channel == REQUESTS:
                number, _, table_id = payload.partition(" ")
                if not (number.isdigit() and table_id):  # another form: look at the table
                    if self._wake is not None:
                        loop.call_soon_threadsafe(self._wake.set)
                elif self.ownership is not None and self.ownership.holds(table_id):
                    # read at once by the reading thread, not through the loop
                    self._to_read.put(int(number))
            elif channel == ANSWERS:
                number, _, answer = payload.partition(" ")
                if number.isdigit():
                    self._heard_answer(loop, int(number), answer or None)

    def _heard_answer(
        self, loop: asyncio.AbstractEventLoop, request_id: int, answer: str | None
    ) -> None:
        """The listener's thread: an answer to a request of this process's is
        handed to its waiter; any other is kept a little, since a request's
        answer can come before the process that sent it has seen its id."""
        with self._early_lock:
            if request_id not in self._waiting:
                self._early[request_id] = answer
                while len(self._early) > EARLY_KEPT:
                    self._early.popitem(last=False)
                return
        loop.call_soon_threadsafe(self._answered, request_id, answer)

    def _read_noticed(self, loop: asyncio.AbstractEventLoop) -> None:
        """The reading thread: the requests announced for tables run here, read
        (those noticed meanwhile together, one statement) and started at once,
        without taking them (else their owner's, or the poll's, to take).  A
        thread of its own: a busy event loop would take a turn for each step."""
        while True:
            taken = next_batch(self._to_read, READ_MOST)
            if taken is None:
                return
            ids, stopping = taken
            try:
                requests = self.read_requests(ids)
            except Exception:  # the poll takes them
                log.warning("forwarding: reading requests %s failed", ids, exc_info=True)
            else:
                found = [(i, r) for i, r in zip(ids, requests, strict=True) if r is not None]
                with contextlib.suppress(RuntimeError):  # the loop is closed
                    loop.call_soon_threadsafe(self._start_all, found)
            if stopping:
                return

    def _start_all(self, requests: Sequence[tuple[int, dict[str, Any]]]) -> None:
        for request_id, request in requests:
            self._start(request_id, request)

    def read_requests(self, ids: Sequence[int]) -> list[dict[str, Any] | None]:
        """The requests of ``ids`` not answered yet (None for the others)."""
        rows = self._held("reads", lambda conn: conn.execute(_UNANSWERED, {"ids": list(ids)}).all())
        found = dict(rows)
        return [json.loads(found[i]) if i in found else None for i in ids]

    def _start(self, request_id: int, request: dict[str, Any]) -> None:
        """Answer the request unless this process is answering it already (it
        was started on its notice, and the poll took it too before its answer
        was in)."""
        now = asyncio.get_running_loop().time()
        if request_id in self._started:
            return
        self._started[request_id] = now
        while self._started:  # the oldest first: forgotten once no poll can return them
            oldest = next(iter(self._started))
            if now - self._started[oldest] < STARTED_SECONDS:
                break
            del self._started[oldest]
        self._keep(self._answer(request_id, request))

    def _keep(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task kept until it ends (:meth:`stop` waits for them)."""
        task = asyncio.create_task(work)
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    def _answered(self, request_id: int, answer: str | None) -> None:
        done = self._waiting.get(request_id)
        if done is not None and not done.done():
            done.set_result(answer)

    async def _serve(self) -> None:
        assert self._wake is not None
        turns = 0
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_SECONDS)
            self._wake.clear()
            try:
                for request_id, request in await asyncio.to_thread(self.take_waiting):
                    self._start(request_id, request)
                turns += 1
                if turns % 120 == 0:
                    await asyncio.to_thread(self._forget_old)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("forwarding: taking requests failed", exc_info=True)

    def take_waiting(self) -> list[tuple[int, dict[str, Any]]]:
        """The requests waiting for the tables this process runs, now taken: those
        nobody took, and those a process that ran the table before took and did
        not answer (it died, or lost the lease, half-way: its client would
        otherwise wait out FORWARD_SECONDS; run again here, a bet's
        Idempotency-Key gives its stored answer, or places it once)."""
        assert self.engine is not None
        assert self.ownership is not None
        held = sorted(self.ownership.held())
        if not held:
            return []
        me = self.ownership.owner
        with db.write_transaction(self.engine) as conn:
            waiting = (
                select(table_requests.c.id)
                .where(
                    table_requests.c.table_id.in_(held),
                    table_requests.c.answer.is_(None),
                    or_(table_requests.c.taken_by.is_(None), table_requests.c.taken_by != me),
                )
                .order_by(table_requests.c.id)
                .limit(200)
                .with_for_update(skip_locked=True)
                .scalar_subquery()
            )
            rows = conn.execute(
                update(table_requests)
                .where(table_requests.c.id.in_(waiting))
                .values(taken_by=me)
                # not waited onto the disk: taken again by the next process if this one dies
                .returning(table_requests.c.id, table_requests.c.request, UNHURRIED_TOO)
            ).all()
        return sorted((int(i), json.loads(r)) for i, r, _ in rows)

    def _forget_old(self) -> None:
        assert self.engine is not None
        with db.write_transaction(self.engine) as conn:
            old = db_now(conn) - KEEP_SECONDS
            conn.execute(delete(table_requests).where(table_requests.c.created_at < old))

    async def _answer(self, request_id: int, request: dict[str, Any]) -> None:
        """Answer a forwarded request with this process's application; write the answer."""
        try:
            # Not cut short: a request stopped half-way (a bet whose key is claimed,
            # say) could leave its table in between; the first process gives up
            # waiting on its own (FORWARD_SECONDS) and its client retries.
            answering = Answering(request_id)
            status, headers, body = await self._run(answering, request)
        except Exception:
            log.exception("forwarding: request %d failed here", request_id)
            status, headers = 500, [["content-type", "application/json"]]
            body = json.dumps(error_body("InternalError", "the server failed")).encode()
        # The row is kept for a notice missed, also when the commit announced it.
        await self._answers.put((request_id, pack(status, headers, body), not answering.announced))

    def write_answers(self, answers: Sequence[tuple[int, str, bool]]) -> list[None]:
        """Write ``answers`` (request id, answer, whether to announce it), one
        statement.  An answer rides in its notice when it fits one (the first
        process need not read it back); the row keeps it for a notice missed."""
        given = {
            "ids": [i for i, _, _ in answers],
            "answers": [a for _, a, _ in answers],
            "notices": [notice(i, a) if announce else None for i, a, announce in answers],
        }
        self._held("answers", lambda conn: conn.execute(_ANSWER, given).all())
        return [None] * len(answers)

    async def _run(
        self, answering: Answering, request: dict[str, Any]
    ) -> tuple[int, list[Any], bytes]:
        assert self.app is not None
        # A bet's answer is then announced by the transaction that commits it (the
        # journal's), not after it: the first process answers its client sooner.
        ANSWERING.set(answering)
        body = base64.b64decode(request["body"])
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in request["headers"]]
        identity = request.get("identity")
        who = Identity.from_json(identity) if isinstance(identity, dict) else None
        vouched = None
        server = getattr(getattr(self.fastapi, "state", None), "server", None)
        if who is not None and who.device is not None and server is not None:
            match = _TABLE_PATH.fullmatch(request["path"])
            if match is not None and unquote(match.group(1)) == who.device:
                vouched = server.store.vouch_device(who.device)
                headers.append((b"x-device-token", vouched.encode("ascii")))
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request["method"],
            "scheme": "http",
            "path": request["path"],
            "raw_path": request["path"].encode(),
            "query_string": request["query"].encode("latin-1"),
            "root_path": "",
            "headers": headers,
            "client": ("forwarded", 0),
            "server": ("punto", 0),
            "app": self.fastapi,
            "punto.body": body,
        }
        if who is not None:
            scope[FORWARDED_IDENTITY] = who
        status = 500
        answer_headers: list[list[str]] = []
        chunks: list[bytes] = []

        async def receive() -> Message:
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                for k, v in message.get("headers", ()):
                    name = k.decode("latin-1").lower()
                    if name in _ANSWER_HEADERS:
                        answer_headers.append([name, v.decode("latin-1")])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.app(scope, replaying(body, receive), send)
        finally:
            if vouched is not None and server is not None:
                server.store.unvouch(vouched)
        return status, answer_headers, b"".join(chunks)


def _not_answered(table_id: str, why: str) -> tuple[int, list[Any], bytes]:
    """The answer to a request its table's process did not answer: 503, retry."""
    return (
        503,
        [["content-type", "application/json"], ["retry-after", "1"]],
        json.dumps(
            error_body(
                "TableElsewhereError",
                f"table {table_id} is run by another server process; {why}; retry",
                hint="retry in a moment (a bet with the same Idempotency-Key is never "
                "placed twice)",
            )
        ).encode(),
    )


async def identity_of(server: Any, table_id: str, scope: Scope) -> Identity | None:
    """Who is asking, as this process finds it, to go with a request forwarded
    for ``table_id`` instead of its credentials (None: nobody logged in, no
    device).  A session not valid here is still sent by its digest, so that
    the process answering refuses it as it would its own."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    authorization = headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    device_token = headers.get("x-device-token")
    if device_token is None and scheme.lower() == "device":
        device_token = value.strip()
    device = None
    if device_token:
        checked = await asyncio.to_thread(
            server.store.check_device_token, table_id, device_token[:200]
        )
        device = table_id if checked else None
    token = token_in(authorization, cookie_parser(headers.get("cookie", "")))
    if token is None:
        return None if device is None else Identity(device=device)
    digest = token_digest(token)
    user = server.sessions.peek_digest(digest)
    if user is None:
        with contextlib.suppress(AuthError):
            user = await asyncio.to_thread(
                server.sessions.authenticate_digest, server.accounts, digest
            )
    if user is None:
        return Identity(session=digest, device=device)
    return Identity(session=digest, account=user.id, role=user.role.value, device=device)


class Forward:
    """Pure ASGI, behind the fast lane and the body limit: a request under a
    table another process runs is forwarded to it (see the module); everything
    else passes on."""

    def __init__(
        self, app: ASGIApp, forwarding: Forwarding, lane: Callable[[ASGIApp], ASGIApp]
    ) -> None:
        self.app = app
        self.forwarding = forwarding
        # A request forwarded here is answered as one of this process's own,
        # a player's bet through ``lane`` (the fast lane) in front of the router.
        forwarding.app = lane(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _TABLE_PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if match is not None and _ANSWERED_HERE.fullmatch(scope["path"]):
            match = None
        server = getattr(getattr(scope.get("app"), "state", None), "server", None)
        if match is None or server is None or not self.forwarding.on:
            await self.app(scope, receive, send)
            return
        table_id = unquote(match.group(1))
        elsewhere = self.forwarding.elsewhere_known(table_id, server.tables)
        if elsewhere is None:  # the lease not read lately: read on a worker thread
            elsewhere = await asyncio.to_thread(self.forwarding.elsewhere, table_id, server.tables)
        if not elsewhere:
            await self.app(scope, receive, send)
            return
        body = scope.get("punto.body", b"")  # read by errors.BodyLimit, in front
        identity = await identity_of(server, table_id, scope)
        status, headers, answer = await self.forwarding.forward(table_id, scope, body, identity)
        response = Response(answer, status_code=status, headers=dict(headers))
        await response(scope, receive, send)
