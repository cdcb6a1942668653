"""Running chunks of a simulation: in this process, or on Dask distributed.

A run is a list of chunk indices.  They are grouped into tasks (the grouping
may depend on the number of workers; the chunks may not), each task deals
its chunks and returns what they add up to, and the results are merged by
adding integers -- so the merged result is the same whatever the grouping,
the number of workers or the order in which tasks finish.

* ``workers`` 0 or 1 without a scheduler -- every chunk in this process, one
  after another: a cluster of one worker would only add its start-up (a
  scheduler, a nanny and a worker process that imports and loads the kernels
  again, about 2-4 s) and the shipping of every result.
* ``scheduler`` -- an existing cluster (``tcp://host:8786``); its workers
  must have punto installed.
* otherwise a :class:`distributed.LocalCluster` of ``workers`` processes of
  one thread each, on 127.0.0.1, without a dashboard, closed at the end.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from punto.errors import PuntoError

R = TypeVar("R")


class ClusterError(PuntoError):
    """The cluster could not be started or reached."""


class Mergeable(Protocol):
    def add(self, other: Any) -> None: ...


def default_workers() -> int:
    """One worker per CPU this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def in_process(workers: int, scheduler: str | None) -> bool:
    """Whether a run goes in this process (no cluster).

    >>> in_process(0, None), in_process(1, None), in_process(2, None), in_process(1, "tcp://h:1")
    (True, True, False, False)
    """
    return scheduler is None and workers <= 1


def group_chunks(nchunks: int, workers: int) -> list[list[int]]:
    """Contiguous groups of chunk indices: a few tasks per worker, none too
    large for a progress bar to move.

    >>> group_chunks(3, 4)
    [[0], [1], [2]]
    >>> [len(task) for task in group_chunks(20, 2)]
    [2, 2, 2, 2, 2, 2, 2, 2, 2, 2]
    """
    per_task = max(1, min(16, nchunks // max(1, 4 * workers)))
    return [list(range(i, min(i + per_task, nchunks))) for i in range(0, nchunks, per_task)]


@contextlib.contextmanager
def client_for(workers: int, scheduler: str | None, *, processes: bool = True) -> Iterator[Any]:
    """A Dask client: to ``scheduler``, or to a new local cluster."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as missing:  # pragma: no cover - a dependency
        raise ClusterError(
            f"Dask distributed is not installed ({missing})", hint="pip install distributed"
        ) from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {scheduler}: {error}",
                hint="start one with 'dask scheduler' and workers with 'dask worker ADDRESS', "
                "or leave out --scheduler for a local cluster",
            ) from None
        with client:
            yield client
        return
    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=workers,
        threads_per_worker=1,
        processes=processes,
        host="127.0.0.1",
        dashboard_address=None,
        # no dashboard; the scheduler's small HTTP server (health) on a free
        # loopback port rather than 8787
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=50,
    )
    try:
        with Client(cluster) as client:  # type: ignore[no-untyped-call]
            yield client
    finally:
        cluster.close()


@contextlib.contextmanager
def maybe_client(
    workers: int, scheduler: str | None, *, processes: bool = True
) -> Iterator[Any | None]:
    """A client for several rounds of tasks, or None to run in this process."""
    if in_process(workers, scheduler):
        yield None
        return
    with client_for(workers, scheduler, processes=processes) as client:
        yield client


def run_tasks(
    fn: Callable[..., R],
    job: Any,
    tasks: Sequence[Sequence[int]],
    merge: Any,
    *,
    workers: int = 0,
    scheduler: str | None = None,
    processes: bool = True,
    client: Any | None = None,
    on_done: Callable[[Sequence[int]], None] | None = None,
) -> tuple[Any, float]:
    """``fn(job, chunks)`` for every task, added into ``merge``; and the
    seconds from the first task submitted to the last result (a cluster's
    start-up not included).  With ``client`` the tasks go to it; otherwise
    see :func:`maybe_client`."""
    if client is None:
        if in_process(workers, scheduler):
            start = time.perf_counter()
            for chunks in tasks:
                _add(merge, fn(job, chunks))
                if on_done is not None:
                    on_done(chunks)
            return merge, time.perf_counter() - start
        with client_for(workers, scheduler, processes=processes) as own:
            return run_tasks(fn, job, tasks, merge, client=own, on_done=on_done)
    from distributed import as_completed

    start = time.perf_counter()
    futures = {client.submit(fn, job, list(chunks), pure=False): chunks for chunks in tasks}
    for future in as_completed(futures):  # type: ignore[no-untyped-call]
        _add(merge, future.result())
        if on_done is not None:
            on_done(futures[future])
        future.release()
    return merge, time.perf_counter() - start


def _add(merge: Any, result: Any) -> None:
    merge.add(result)
