"""The table server: HTTP and WebSocket API, automatic dealers, web pages.

:func:`punto.server.app.create_app` builds the ASGI application; ``punto
serve`` runs it under uvicorn.  See :mod:`punto.server.tables.runtime` for how a
table, its event log and the ledger are kept consistent.

Imports go one way (the import-linter contracts in pyproject.toml): ``app``
assembles everything and nothing imports it; then the tournaments' routes,
the tables' routes (:mod:`punto.server.routes`), the services a request
reaches (:mod:`punto.server.services`), the processes sharing the tables
(:mod:`punto.server.cluster`), the table runtime
(:mod:`punto.server.tables`), who is asking (:mod:`punto.server.security`),
and the plumbing every layer uses, over :mod:`punto.store`.
"""
