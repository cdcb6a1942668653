"""Memory comes back after a flood.

As found (``benchmarks/bench_memory_floods.py``): every flood of WebSockets
left the server 14 MiB larger than the last -- +25, +39, +54 MiB after three
floods of 300 sockets -- because the server freezes what has lived a second
out of the garbage collector's sight (:func:`punto.server.app._keep_collections_short`),
and a connection that lived past a freeze is a reference cycle that becomes
garbage only once frozen.  Now what was frozen is thawed and collected once
a minute, and the C library gives its free memory back.
"""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from punto.server import app as server_app


class Connection:
    """A stand-in for a connection's protocol: a cycle, as uvicorn's are."""

    def __init__(self) -> None:
        self.me = self
        self.buffer = bytearray(1024 * 1024)


def test_security_cyclic_garbage_frozen_before_it_died_is_reclaimed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server_app, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(server_app, "RECLAIM_SECONDS", 1000.0)  # not yet
    trimmed: list[bool] = []
    monkeypatch.setattr(server_app, "_give_back", lambda: trimmed.append(True))

    async def scenario() -> weakref.ref[Connection]:
        keeper = asyncio.create_task(server_app._keep_collections_short())
        connection = Connection()
        gone = weakref.ref(connection)
        await asyncio.sleep(0.05)  # frozen with the connection alive
        assert gc.get_freeze_count() > 0
        del connection  # the connection closes: its cycle is garbage, frozen
        await asyncio.sleep(0.2)  # many young passes and freezes
        assert gone() is not None  # the young passes do not see it
        monkeypatch.setattr(server_app, "RECLAIM_SECONDS", 0.0)  # the minute is up
        for _ in range(250):
            if gone() is None:
                break
            await asyncio.sleep(0.02)
        keeper.cancel()
        return gone

    try:
        gone = asyncio.run(scenario())
    finally:
        gc.unfreeze()
    assert gone() is None, "a frozen cycle was never reclaimed"
    assert trimmed, "the C library was not asked to give memory back"
