"""The HTTP API's routes by area, gathered under ``/api`` by :mod:`punto.server.routes.api`."""
