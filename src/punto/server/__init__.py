"""The table server: HTTP and WebSocket API, automatic dealers, web pages.

:func:`punto.server.app.create_app` builds the ASGI application; ``punto
serve`` runs it under uvicorn.  See :mod:`punto.server.runtime` for how a
table, its event log and the ledger are kept consistent.
"""
