"""Stopping the server's own asyncio tasks (the tables' automatic dealers,
the live tournaments' clocks) without cutting a step in half."""

from __future__ import annotations

import asyncio
import contextlib


async def finish(task: asyncio.Task[None] | None, timeout: float) -> None:
    """Let ``task`` finish the step it is taking (a step is never cut in half);
    cancel it if that takes more than ``timeout`` seconds."""
    if task is None:
        return
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    except TimeoutError:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
