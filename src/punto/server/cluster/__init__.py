"""Several server processes sharing the tables on one PostgreSQL: the
leases that say which process runs a table, a request forwarded to the
process that runs its table, the table's watchers relayed to every process,
and the one-process lock of a SQLite file."""
