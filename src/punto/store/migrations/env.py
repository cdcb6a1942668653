"""Alembic's environment for punto's schema.

Run by :func:`punto.store.db.upgrade` with an open connection in
``config.attributes["connection"]`` (the usual way), or by the ``alembic``
command with ``-c src/punto/store/alembic.ini`` and the database URL in
``PUNTO_DATABASE_URL`` (to write a new revision, say).  Importing this module
outside Alembic does nothing.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy.engine import Connection

from punto.store import db


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=db.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if context.is_offline_mode():
        url = os.environ.get("PUNTO_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
        if not url:
            raise SystemExit("set PUNTO_DATABASE_URL to the database to write SQL for")
        context.configure(url=str(db.normalize_url(url)), target_metadata=db.metadata)
        with context.begin_transaction():
            context.run_migrations()
    elif connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
    else:
        url = os.environ.get("PUNTO_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
        if not url:
            raise SystemExit("set PUNTO_DATABASE_URL to the database to migrate")
        engine = db.connect(url, migrate=False)
        try:
            with db.write_transaction(engine) as conn:
                _configure(conn)
                with context.begin_transaction():
                    context.run_migrations()
        finally:
            engine.dispose()


# Alembic installs its proxy before it runs this file; a plain import (pytest's
# doctest collection, mypy) finds none and runs nothing.
if getattr(context, "_proxy", None) is not None:
    run_migrations()
