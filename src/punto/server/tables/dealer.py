"""The automatic dealer: one asyncio task per self-running table.

It calls :meth:`TableRuntime.step` (in a worker thread: table actions write
to the database) and sleeps until the next move is due -- the end of the
betting countdown, the next card, the end of an Insurance Plus window, the
next round -- or until something happens at the table (a dealer's action, a
card from the card-reading shoe), whichever comes first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from punto.server.tables.runtime import TableRuntime
from punto.server.tables.tasks import finish

log = logging.getLogger("punto.server.tables.dealer")

#: How long to wait after an action the engine refused before trying again.
RETRY_SECONDS = 1.0


class AutoDealer:
    def __init__(self, runtime: TableRuntime) -> None:
        self.runtime = runtime
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        #: the last move found nothing due and no time to wait for (see :meth:`_step`)
        self._open_ended = True

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        wake = self._wake

        def changed(frequent: bool) -> None:
            # A bet moves no time the dealer waits for: it wakes only a dealer
            # waiting on the players (the differential, MBS 5.18), not every
            # dealer for every bet (a hop to a worker thread and the table's lock).
            if frequent and not self._open_ended:
                return
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(wake.set)

        self.runtime.on_change = changed
        self._task = loop.create_task(self._run(), name=f"dealer-{self.runtime.id}")

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopping and not self.runtime.stopped:
            self._wake.clear()
            try:
                delay = await asyncio.to_thread(self._step)
            except asyncio.CancelledError:
                raise
            except Exception:
                # A dealer at the console or a device acted in between, or the
                # database is busy: look again shortly.
                log.warning(
                    "table %s: automatic dealer step failed", self.runtime.id, exc_info=True
                )
                delay = RETRY_SECONDS
            if delay is not None and delay <= 0:
                await asyncio.sleep(0)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    def _step(self) -> float | None:
        # Decided and noted under the table's lock, which a bet's change holds
        # too: a bet after the move sees the note, one before is in the move.
        with self.runtime.lock:
            delay = self.runtime.step()
            self._open_ended = delay is None
        return delay

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop after the move in progress (a move is never cut in half)."""
        self._stopping = True
        self.runtime.on_change = None
        if self._wake is not None:
            self._wake.set()
        task, self._task = self._task, None
        await finish(task, timeout)
