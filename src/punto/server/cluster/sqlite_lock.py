"""One ``punto serve`` per SQLite file: an OS lock on a file beside the database.

SQLite serves one process: two servers on one file would both run every
table and fight over its log.  The lock is a POSIX record lock
(``fcntl.lockf``) on ``FILE.serve.lock``, which holds the server's pid for
the message a second server gets.  The operating system drops the lock with
the process, however it ends (SIGKILL included), so a restart right after a
crash starts.  Record locks belong to a process: several servers built in
one process (as tests do) share it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url

from punto.errors import PuntoError


class ServedElsewhereError(PuntoError):
    """Another process serves this SQLite file."""


def lock_path(database: str) -> Path:
    return Path(f"{database}.serve.lock")


def lock_sqlite(url: str) -> IO[str] | None:
    """Lock the SQLite file of ``url`` for this process (keep the returned file
    open as long as the process serves it); None for PostgreSQL or an in-memory
    database.  Refuses with :class:`ServedElsewhereError` if another process has it."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    database = str(parsed.database)
    path = lock_path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            pid = handle.read().strip() or "unknown"
            handle.close()
            raise ServedElsewhereError(
                f"another punto serve (pid {pid}) is serving {database}; SQLite serves one "
                "process; use PostgreSQL to run several",
                hint="stop the other server, or give this one another --database",
            ) from None
        # A server stopping removes the file (release_sqlite): if it did so between
        # the open and the lock, this lock is on a file nobody else will find.
        if _same_file(handle, path):
            break
        handle.close()
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def release_sqlite(handle: IO[str] | None) -> None:
    """Remove the lock file of :func:`lock_sqlite` and drop the lock: a server
    stopped cleanly leaves nothing beside its database.  (One killed leaves the
    file, unlocked: the next server takes it over.)"""
    if handle is None:
        return
    path = Path(handle.name)
    if _same_file(handle, path):
        path.unlink()  # while still holding the lock: no one else has this file
    handle.close()


def _same_file(handle: IO[str], path: Path) -> bool:
    """Whether ``path`` still names the file ``handle`` has open."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(handle.fileno())
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
