"""Items written together: from the event loop, one worker-thread call a batch
(:class:`Batcher`); in a thread of their own, the next batch off a queue
(:func:`next_batch`).

Each :meth:`Batcher.put` waits for its own result; the items put while a
batch is being written make the next batch, so under load one transaction
(and one hop to a worker thread) carries many items, and alone an item
goes at once.  A batch that fails fails each of its items.

>>> import asyncio
>>> calls = []
>>> def write(items):
...     calls.append(list(items))
...     return [item * 10 for item in items]
>>> async def main():
...     batcher = Batcher(write)
...     return await asyncio.gather(*(batcher.put(n) for n in range(4)))
>>> asyncio.run(main())
[0, 10, 20, 30]
>>> calls
[[0, 1, 2, 3]]
"""

from __future__ import annotations

import asyncio
import queue
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["Batcher", "next_batch"]

Item = TypeVar("Item")
Result = TypeVar("Result")


class Batcher(Generic[Item, Result]):
    """Writes the items put, in batches, with ``write`` (run in a worker
    thread; one result an item, in order)."""

    def __init__(
        self, write: Callable[[Sequence[Item]], Sequence[Result]], most: int = 500
    ) -> None:
        self._write = write
        self._most = most
        self._waiting: list[tuple[Item, asyncio.Future[Result]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def put(self, item: Item) -> Result:
        """``item`` written (with those put meanwhile); its result."""
        done: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        return await done

    async def _drain(self) -> None:
        batch: list[tuple[Item, asyncio.Future[Result]]] = []
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[: self._most], self._waiting[self._most :]
                try:
                    results = await asyncio.to_thread(self._write, [item for item, _ in batch])
                except Exception as error:  # each item fails with it
                    _fail(batch, error)
                    continue
                for (_, done), result in zip(batch, results, strict=True):
                    if not done.done():
                        done.set_result(result)
        except BaseException:  # cancelled (the loop stops): nobody waits for ever
            _fail(batch + self._waiting, RuntimeError("stopped before it was written"))
            self._waiting = []
            raise


def _fail(batch: Sequence[tuple[object, asyncio.Future[Result]]], error: BaseException) -> None:
    for _, done in batch:
        if not done.done():
            done.set_exception(error)


def next_batch(
    items: queue.SimpleQueue[Item | None],
    most: int,
    *,
    weight: Callable[[Item], int] | None = None,
    most_weight: int | None = None,
) -> tuple[list[Item], bool] | None:
    """For a thread writing what a queue brings: the next batch -- its first
    item waited for, then those waiting already, up to ``most`` of them (and,
    with ``weight``, until they weigh ``most_weight``) -- and whether a None,
    the stop, came after them.  None if the stop came first.

    >>> items = queue.SimpleQueue()
    >>> for item in (1, 2, 3, None):
    ...     items.put(item)
    >>> next_batch(items, 2)
    ([1, 2], False)
    >>> next_batch(items, 2)
    ([3], True)
    >>> items.put(None)
    >>> next_batch(items, 2) is None
    True
    """
    first = items.get()
    if first is None:
        return None
    batch = [first]
    weighed = weight(first) if weight is not None else 0
    while len(batch) < most and (most_weight is None or weighed < most_weight):
        try:
            more = items.get_nowait()
        except queue.Empty:
            return batch, False
        if more is None:
            return batch, True
        batch.append(more)
        if weight is not None:
            weighed += weight(more)
    return batch, False
