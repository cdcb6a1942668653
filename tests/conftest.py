"""What every layer's tests share: the databases (``tests/db_fixtures.py``)
and the markers that let a developer leave out what needs Chromium or
PostgreSQL (README, "Running part of the tests")."""

from __future__ import annotations

import pytest

from tests import db_fixtures

db_url = db_fixtures.db_url
engine = db_fixtures.engine

#: The parameters that name a test's database (db_url's own, an indirect
#: db_url, or a backend passed to a subprocess).
_DATABASE_PARAMETERS = ("db_url", "backend")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    unmarked: list[str] = []
    for item in items:
        # The one way a test gets Chromium is the ``browser`` fixture
        # (tests/browser.py), directly or through a page or site fixture.
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and any(
            callspec.params.get(name) == "postgresql" for name in _DATABASE_PARAMETERS
        )
        if on_postgres and item.get_closest_marker("postgres") is None:
            unmarked.append(item.nodeid)
    if unmarked:
        # A PostgreSQL parameter without its mark would run under
        # -m "not postgres": db_fixtures.POSTGRESQL carries the mark.
        raise pytest.UsageError(
            "tests on PostgreSQL without the postgres marker (use db_fixtures.POSTGRESQL "
            f"or db_fixtures.BACKENDS): {unmarked[:5]}"
        )
