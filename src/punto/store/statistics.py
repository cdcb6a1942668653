"""The planner's statistics of a young PostgreSQL database (:func:`analyze_grown`).

PostgreSQL plans a statement from its tables' statistics, which ``ANALYZE``
makes.  Autovacuum makes them, but looks once a minute, and a table nobody
has analysed yet is taken, from its declared column widths, for a fraction
of the rows it holds.  So the first minutes of a new database are planned as
if its tables were nearly empty: in a 20 s load on a new database a group's
bet keys were looked up by reading every posting ever made (a sequential
scan chosen over the unique index, 100-130 ms a lookup by the end), and the
tables' writes waited on it.  ``ANALYZE`` also has every connection plan
again the statements it had kept plans of for the table.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine

__all__ = ["GROWN", "LEAST", "analyze_grown"]

#: A table is analysed again once the rows changed since its statistics were
#: made reach this many times the rows they counted: 500, 2,500, 12,500 ... --
#: a young table's few first (autovacuum keeps a grown one's, at a tenth) ...
GROWN = 4.0
#: ... and at least this many.
LEAST = 500

_GROWN = text(
    "SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid "
    "WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze >= :least "
    "AND s.n_mod_since_analyze >= :grown * greatest(c.reltuples, 0) ORDER BY s.relname"
)


def analyze_grown(engine: Engine) -> list[str]:
    """``ANALYZE`` the tables of ``engine``'s schema (PostgreSQL) that changed by
    :data:`GROWN` times their rows since their statistics were made; returns
    their names.  A table another session is analysing is left for the next
    time.

    Cheap at any size: ``ANALYZE`` reads a sample of 30,000 rows at most, and a
    table grows fivefold ever more rarely.  More often cost the server more
    than it gave (three pairs of saturation runs at half the rows: 8% fewer
    bets): each analysis has every connection plan its statements again.
    """
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        names = [str(n) for n in conn.scalars(_GROWN, {"least": LEAST, "grown": GROWN})]
        quote = conn.dialect.identifier_preparer.quote
        for name in names:
            conn.execute(text(f"ANALYZE (SKIP_LOCKED) {quote(name)}"))
    return names
