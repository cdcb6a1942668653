"""Alembic migrations of punto's database schema (see :mod:`punto.store.db`)."""
