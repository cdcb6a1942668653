"""Persistence: the ledger, the accounts and the event logs in the database
(:mod:`punto.store.db`), and opening an event log by URL
(:func:`punto.store.eventlog.open_event_log`)."""
