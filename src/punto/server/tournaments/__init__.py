"""Tournaments on the table server, in layers: the routes
(:mod:`~punto.server.tournaments.routes`, :mod:`~punto.server.tournaments.pit`)
over the service (:mod:`~punto.server.tournaments.service`: the tournaments in
the process, their clocks; :mod:`~punto.server.tournaments.money`: their
money on the ledger), over the engine (:mod:`punto.tournament`) and the store.
"""
