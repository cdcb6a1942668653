"""The batcher of the forwarded requests and answers (punto.server.batching)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

from punto.server.batching import Batcher


def test_items_put_while_a_batch_is_written_make_the_next_batch() -> None:
    batches: list[list[int]] = []
    writing = threading.Event()
    go_on = threading.Event()

    def write(items: Sequence[int]) -> list[str]:
        batches.append(list(items))
        if len(batches) == 1:
            writing.set()
            go_on.wait(10)
        return [f"#{item}" for item in items]

    async def main() -> list[str]:
        batcher: Batcher[int, str] = Batcher(write, most=3)
        first = asyncio.create_task(batcher.put(0))
        await asyncio.to_thread(writing.wait, 10)  # the first batch is being written
        rest = [asyncio.create_task(batcher.put(n)) for n in range(1, 6)]
        await asyncio.sleep(0)
        go_on.set()
        return [await first, *[await r for r in rest]]

    assert asyncio.run(main()) == [f"#{n}" for n in range(6)]
    assert batches == [[0], [1, 2, 3], [4, 5]]  # at most three at once, in order


def test_a_batch_that_fails_fails_each_of_its_items_and_not_the_next() -> None:
    def write(items: Sequence[int]) -> list[int]:
        if 13 in items:
            raise ValueError("unlucky batch")
        return list(items)

    async def main() -> tuple[list[BaseException | int], int]:
        batcher: Batcher[int, int] = Batcher(write)
        failed = await asyncio.gather(batcher.put(13), batcher.put(1), return_exceptions=True)
        return list(failed), await batcher.put(2)

    failed, after = asyncio.run(main())
    assert [type(f) for f in failed] == [ValueError, ValueError]
    assert after == 2
