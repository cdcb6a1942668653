"""The store: the database, the double-entry ledger, postings and accounts."""
