"""Database fixtures shared by the store tests: every test runs on SQLite and PostgreSQL.

``tests/conftest.py`` brings ``db_url`` and ``engine`` to every test.

``db_url`` is parametrized over ``sqlite`` (a fresh file under ``tmp_path``)
and ``postgresql`` (a fresh schema in the database named by the environment
variable ``PUNTO_TEST_POSTGRES``, dropped after the test), marked ``postgres``
so that ``pytest -m "not postgres"`` leaves it out.  Without that
variable the PostgreSQL tests are skipped, except under ``CI=true``, where they
fail: CI must never pass by silently not testing PostgreSQL.  Start a local
server with::

    export PUNTO_TEST_POSTGRES="$(bash scripts/postgres.sh)"
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from punto.store.db import connect, normalize_url

#: A test on PostgreSQL, marked so: ``[POSTGRESQL]`` where only PostgreSQL will do
#: (``@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)``).
POSTGRESQL = pytest.param("postgresql", marks=pytest.mark.postgres)
BACKENDS = [pytest.param("sqlite"), POSTGRESQL]
POSTGRES_ENV = "PUNTO_TEST_POSTGRES"


def postgres_base_url() -> str:
    """The PostgreSQL URL for tests; skips the test, or fails it under CI, if unset."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if url:
        return url
    how = f'set {POSTGRES_ENV}, e.g. export {POSTGRES_ENV}="$(bash scripts/postgres.sh)"'
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail(
            f"CI=true but {POSTGRES_ENV} is not set: the PostgreSQL tests cannot run; {how}"
        )
    pytest.skip(f"{POSTGRES_ENV} is not set; {how}")


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of each backend, private to the test."""
    with fresh_database(request.param, tmp_path) as url:
        yield url


@contextmanager
def fresh_database(backend: str, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of ``backend`` ("sqlite", "postgresql"),
    dropped (PostgreSQL) when the block ends."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'punto.db'}"
        return
    base = normalize_url(postgres_base_url())
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = base.update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on the fresh database, migrated to the newest schema."""
    engine = connect(db_url)
    try:
        yield engine
    finally:
        engine.dispose()
