"""The table server: HTTP and WebSocket API, automatic dealers, web pages.

:func:`punto.server.app.create_app` builds the ASGI application; ``punto
serve`` runs it under uvicorn.  See :mod:`punto.server.runtime` for how a
table, its event log and the ledger are kept consistent.

Imports go one way (the import-linter contracts in pyproject.toml): ``app``
assembles everything and nothing imports it; the routes (``api``, ``admin``,
``logins``, ``ws``, :mod:`punto.server.tournaments`' ``routes`` and ``pit``)
take :class:`punto.server.services.Server` from the request; below them the
services: the table runtimes and their dealers, the tournament service, the
journal, over :mod:`punto.store`.
"""
