"""The database behind the table server: one schema on SQLite or PostgreSQL.

:func:`connect` makes an engine for ``sqlite:///path/to/file.db`` (WAL,
foreign keys on, fully synchronous commits, a busy timeout) or
``postgresql+psycopg://user@host:port/db`` (psycopg 3), and brings the schema
to the newest Alembic revision.  The tables are SQLAlchemy Core objects here;
the migrations under ``migrations/versions`` create them, and a test checks the
two agree.

Writers go through :func:`write_transaction`, which on SQLite starts with
``BEGIN IMMEDIATE`` (the write lock is taken up front, so two writers never
both read a balance and then both write it) and on PostgreSQL is an ordinary
READ COMMITTED transaction in which the writer locks the rows it will change
(``SELECT ... FOR UPDATE``).  :func:`run_transaction` retries a unit of work on
the errors a concurrent writer can cause (deadlock, serialization failure, a
busy SQLite file).

:class:`punto.store.sql_log.SQLEventLog` keeps the event logs of tables and
tournaments in ``table_events`` and ``tournament_events``.

>>> engine = connect("sqlite://")          # in memory, one connection
>>> current_revision(engine) == head_revision()
True
"""

from __future__ import annotations

import functools
import random
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Double,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    create_engine,
    event,
    false,
    func,
    inspect,
    select,
    text,
    true,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.engine.url import URL
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from punto.store.columns import BET_STATUSES as BET_STATUSES
from punto.store.columns import ID as ID
from punto.store.columns import POSTING_KINDS as POSTING_KINDS
from punto.store.columns import ROLES as ROLES
from punto.store.columns import WALLET_KINDS as WALLET_KINDS
from punto.store.columns import UTCDateTime as UTCDateTime
from punto.store.columns import utc_now as utc_now
from punto.store.errors import StoreError
from punto.store.protection_schema import protection_tables
from punto.store.shifts_schema import shift_table

if TYPE_CHECKING:
    from alembic.config import Config

#: How long a SQLite connection waits for another writer before giving up (ms).
SQLITE_BUSY_TIMEOUT_MS = 30_000

#: PostgreSQL advisory lock key held while migrating (any 64-bit number; "punto" in ASCII).
_MIGRATION_LOCK = 0x70756E746F

MIGRATIONS = Path(__file__).with_name("migrations")

T = TypeVar("T")


class DatabaseError(StoreError):
    """The database could not be opened, migrated, read or written."""


# --- column types: punto.store.columns ---------------------------------------------


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


# --- the schema ----------------------------------------------------------------------

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("username", String(64), nullable=False, unique=True),
    Column("role", String(32), nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("disabled", Boolean, nullable=False, server_default=false()),
    Column("created_at", UTCDateTime, nullable=False),
    Column("password_changed_at", UTCDateTime, nullable=False),
    CheckConstraint(_one_of("role", ROLES), name="role"),
)

#: Failed logins per user name *and* client address (revision 0008), whether or
#: not such a user exists, so that lockout behaves the same for both and tells an
#: attacker nothing -- and so that a stranger's failures lock out the stranger,
#: not the user.  ``locks``: how many locks in a row (each twice the last).
#: Rows whose failures are long past are pruned (:meth:`Accounts.prune_login_attempts`).
login_attempts = Table(
    "login_attempts",
    metadata,
    Column("username", String(64), primary_key=True),
    Column("client", String(80), primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("locks", Integer, nullable=False),
    Column("last_failure_at", UTCDateTime, nullable=False),
    Column("locked_until", UTCDateTime, nullable=True),
)
Index("ix_login_attempts_last_failure_at", login_attempts.c.last_failure_at)

#: Sessions ended or accounts changed (revision 0008): every process's session
#: cache reads the rows after the last it saw, a few times a second, and forgets
#: those sessions and accounts (see :class:`punto.server.security.auth.SessionCache`).
session_invalidations = Table(
    "session_invalidations",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("token_hash", String(64), nullable=True),
    Column("account_id", ID, nullable=True),
    Column("at", UTCDateTime, nullable=False),
)
Index("ix_session_invalidations_at", session_invalidations.c.at)

sessions = Table(
    "sessions",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column(
        "account_id",
        ID,
        ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("revoked_at", UTCDateTime, nullable=True),
)

#: Ledger accounts: a player's wallet, the house, a table's holding account.
wallets = Table(
    "wallets",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("code", String(200), nullable=False, unique=True),
    Column("kind", String(16), nullable=False),
    Column("owner", String(200), nullable=True),
    Column("account_id", ID, ForeignKey("accounts.id"), nullable=True, index=True),
    Column("table_id", String(200), nullable=True),
    Column("balance", BigInteger, nullable=False, server_default=text("0")),
    Column("created_at", UTCDateTime, nullable=False),
    CheckConstraint(_one_of("kind", WALLET_KINDS), name="kind"),
    CheckConstraint("kind = 'house' OR balance >= 0", name="balance_not_negative"),
)

ledger_transactions = Table(
    "ledger_transactions",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    #: a posting is made once: its key, and the hash of what was asked with it
    #: (the same key with another request is refused; revision 0017)
    Column("idempotency_key", String(200), nullable=False, unique=True),
    Column("request_hash", String(64), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("table_id", String(200), nullable=True),
    Column("round_id", String(200), nullable=True),
    Column("bet_id", String(200), nullable=True),
    Column("memo", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    CheckConstraint(_one_of("kind", POSTING_KINDS), name="kind"),
)

ledger_entries = Table(
    "ledger_entries",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column(
        "transaction_id",
        ID,
        ForeignKey("ledger_transactions.id"),
        nullable=False,
        index=True,
    ),
    Column("wallet_id", ID, ForeignKey("wallets.id"), nullable=False, index=True),
    Column("amount", BigInteger, nullable=False),
    CheckConstraint("amount <> 0", name="amount_not_zero"),
)

#: Stakes held at a table: what each open bet still has in the holding account.
ledger_bets = Table(
    "ledger_bets",
    metadata,
    Column("table_id", String(200), nullable=False),
    Column("bet_id", String(200), nullable=False),
    Column("wallet_id", ID, ForeignKey("wallets.id"), nullable=False, index=True),
    Column("round_id", String(200), nullable=True),
    Column("placed", BigInteger, nullable=False),
    Column("held", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),
    Column("placed_by", ID, ForeignKey("ledger_transactions.id"), nullable=False),
    Column("closed_by", ID, ForeignKey("ledger_transactions.id"), nullable=True),
    PrimaryKeyConstraint("table_id", "bet_id"),
    CheckConstraint("held >= 0 AND held <= placed", name="held_within_placed"),
    CheckConstraint(_one_of("status", BET_STATUSES), name="status"),
)

#: The open bets of a table (revision 0018): what settling a round reads, as
#: long as the round however many bets the table took before.
Index(
    "ix_ledger_bets_open",
    ledger_bets.c.table_id,
    postgresql_where=ledger_bets.c.status == "open",
    sqlite_where=ledger_bets.c.status == "open",
)

table_events = Table(
    "table_events",
    metadata,
    Column("table_id", String(200), nullable=False),
    Column("seq", BigInteger, nullable=False, autoincrement=False),
    Column("round_id", String(200), nullable=False),
    Column("type", String(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("recorded_at", UTCDateTime, nullable=False, server_default=func.current_timestamp()),
    PrimaryKeyConstraint("table_id", "seq"),
)

Index("ix_table_events_round", table_events.c.table_id, table_events.c.round_id)

# -- tournaments (revision 0003): their event log (punto.store.sql_log.SQLEventLog) --

tournament_events = Table(
    "tournament_events",
    metadata,
    Column("tournament_id", String(200), nullable=False),
    Column("seq", Integer, nullable=False, autoincrement=False),
    Column("type", String(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("recorded_at", String(40), nullable=False, server_default=text("CURRENT_TIMESTAMP")),
    PrimaryKeyConstraint("tournament_id", "seq"),
)

# -- the table server (revision 0002) --------------------------------------------

#: How a table runs: its own automatic dealer, or a person at the dealer console.
MODES = ("auto", "dealer")
#: Where the cards come from: the server's shuffled shoe, or a card-reading shoe.
CARD_SOURCES = ("virtual", "device")

server_tables = Table(
    "server_tables",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("game", String(64), nullable=False),
    Column("layout", String(8), nullable=True),
    Column("mode", String(16), nullable=False),
    Column("card_source", String(16), nullable=False),
    #: TableLimits as JSON (minimum, maximum, differential, wagers, wagers_per_area)
    Column("limits", Text, nullable=False),
    Column("decks", Integer, nullable=False),
    Column("betting_seconds", Float, nullable=False),
    Column("card_delay", Float, nullable=False),
    Column("insurance_seconds", Float, nullable=False),
    Column("result_seconds", Float, nullable=False),
    Column("seed", String(200), nullable=True),
    Column("device_token_hash", String(64), nullable=True),
    Column("active", Boolean, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    #: the table is in HLGA (MBS 3.22.1: the withdrawal option when the cut card comes first)
    Column("hlga", Boolean, nullable=False, server_default=false()),
    #: Insurance is offered (revision 0008; RWS 4.2.2: not, at a private table on request)
    Column("insurance_offered", Boolean, nullable=False, server_default=true()),
    #: the cards are dealt face down (revision 0009_face_down; RWS 5.10 applies only there)
    Column("face_down", Boolean, nullable=False, server_default=false()),
    #: a pit manager's confirmations of the wagers offered that favour the
    #: player, as JSON (revision 0014; punto.protection.edges.EdgeConfirmation)
    Column("edge_confirmations", Text, nullable=False, server_default="[]"),
    #: how the table reads a Pair (revision 0020): NULL, the game's default;
    #: 'literal' only where set explicitly (Tiger Baccarat 1.1.14 as written)
    Column("pair_rule", String(16), nullable=True),
    CheckConstraint("mode IN ('auto', 'dealer')", name="mode"),
    CheckConstraint("card_source IN ('virtual', 'device')", name="card_source"),
)

#: One row per request made with an Idempotency-Key, every kind (the one
#: store, :mod:`punto.store.requests`): where it acted and, once given, the
#: answer.  ``table_id`` is empty off the tables (revision 0015).
server_requests = Table(
    "server_requests",
    metadata,
    Column("key", String(300), primary_key=True),
    Column("account_id", ID, ForeignKey("accounts.id"), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("table_id", String(64), nullable=False),
    Column("round_id", String(200), nullable=False),
    Column("bet_id", String(200), nullable=False),
    Column("status_code", Integer, nullable=True),
    Column("response", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
)
Index(
    "ix_server_requests_table_id_created_at",
    server_requests.c.table_id,
    server_requests.c.created_at,
)

#: Who did what at which table (staff actions, logins, table changes).
server_audit = Table(
    "server_audit",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("at", UTCDateTime, nullable=False),
    Column("account_id", ID, nullable=True),
    Column("username", String(64), nullable=True),
    Column("role", String(32), nullable=True),
    Column("table_id", String(64), nullable=True),
    Column("round_id", String(200), nullable=True),
    Column("action", String(64), nullable=False),
    Column("detail", Text, nullable=False),
)
Index("ix_server_audit_table", server_audit.c.table_id, server_audit.c.id)


# --- engines -------------------------------------------------------------------------


def normalize_url(url: str | URL) -> URL:
    """``postgres://`` and ``postgresql://`` mean psycopg 3; SQLite stays as it is."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseError(
            f"unsupported database URL {parsed.render_as_string(hide_password=True)!r}",
            hint="use sqlite:///FILE or postgresql+psycopg://USER@HOST:PORT/DATABASE",
        )
    if parsed.get_backend_name() == "postgresql" and parsed.drivername != "postgresql+psycopg":
        raise DatabaseError(
            f"unsupported PostgreSQL driver {parsed.drivername!r}",
            hint="use postgresql+psycopg:// (psycopg 3)",
        )
    return parsed


def _sqlite_on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin
    # (see _sqlite_on_begin), and set up every new connection the same way.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA synchronous = FULL")
        _sqlite_wal(cursor)
    finally:
        cursor.close()


def _sqlite_wal(cursor: Any) -> None:
    """Put the file in WAL mode (it stays so).  Switching needs the file to
    itself, and SQLite answers "locked" at once rather than wait, so wait here."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        mode = str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode in ("wal", "memory"):
            return
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.001, 0.01))


def _sqlite_on_begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")


def connect(url: str | URL, *, migrate: bool = True, echo: bool = False) -> Engine:
    """An engine for ``url``, its schema at the newest revision unless ``migrate=False``.

    ``sqlite://`` (no path) is an in-memory database on a single shared
    connection: fine for examples and single-threaded tests, not for racing
    writers.
    """
    parsed = normalize_url(url)
    engine: Engine
    if parsed.get_backend_name() == "sqlite":
        memory = parsed.database in (None, "", ":memory:")
        if memory:
            engine = create_engine(
                parsed,
                echo=echo,
                poolclass=StaticPool,
                connect_args={"check_same_thread": False},
            )
        else:
            Path(str(parsed.database)).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(
                parsed,
                echo=echo,
                pool_size=20,
                max_overflow=20,
                connect_args={
                    "check_same_thread": False,
                    "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
                },
            )
        event.listen(engine, "connect", _sqlite_on_connect)
        event.listen(engine, "begin", _sqlite_on_begin)
    else:
        engine = create_engine(parsed, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=30)
    if migrate:
        upgrade(engine)
    return engine


def is_sqlite(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "sqlite"


#: Which server process runs each table (:mod:`punto.store.leases`, revision 0012).
table_leases = Table(
    "table_leases",
    metadata,
    Column("table_id", String(200), primary_key=True),
    Column("owner", String(200), nullable=False),
    Column("token", BigInteger, nullable=False),
    Column("expires_at", Double, nullable=False),
    CheckConstraint("token > 0", name="token_positive"),
)


#: Requests forwarded to the process that runs their table (``punto.server.cluster.forwarding``):
#: ``request`` and ``answer`` are JSON (method, path, headers, body; status, headers, body).
table_requests = Table(
    "table_requests",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("table_id", String(200), nullable=False),
    Column("request", Text, nullable=False),
    Column("taken_by", String(200), nullable=True),
    Column("answer", Text, nullable=True),
    Column("created_at", Double, nullable=False),
)

Index("ix_table_requests_table_id_taken_by", table_requests.c.table_id, table_requests.c.taken_by)

#: Each bet's value at placement and the pit's alerts (:mod:`punto.store.protection`, 0013).
bet_values, protection_alerts, protection_thresholds = protection_tables(metadata)

#: The pit's shifts, one open at a time (:mod:`punto.store.shifts`, revision 0019).
pit_shifts = shift_table(metadata)


# --- migrations ----------------------------------------------------------------------


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic ``Config`` for punto's migrations (no ini file needed)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` in one transaction; concurrent callers wait.

    Alembic (about a hundred modules with Mako's) is imported only when there
    is something to migrate: a server restarting on a current schema, or a
    command opening one, answers that much sooner.
    """
    try:
        with write_transaction(engine) as conn:
            if not is_sqlite(conn):
                conn.execute(select(func.pg_advisory_xact_lock(_MIGRATION_LOCK)))
            if revision == "head" and _current(conn) == newest_script():
                return
            from alembic import command

            command.upgrade(alembic_config(conn), revision)
    except DBAPIError as error:
        raise DatabaseError(f"cannot migrate the database: {error.orig}") from error


def migrate(url: str | URL) -> None:
    """Bring the database at ``url`` to the newest schema (and dispose of the engine)."""
    connect(url, migrate=True).dispose()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return _current(conn)


def head_revision() -> str | None:
    """The newest revision, as Alembic reads it from the scripts."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


#: The migration scripts' names: ``rNNNN_what.py`` for revision ``"NNNN"``.
_SCRIPT = re.compile(r"r(\d{4})_\w+\.py")


@functools.cache
def newest_script() -> str:
    """The newest revision, from the scripts' names alone: they are one chain,
    ``r0001_...`` to the newest, each revising the one before, the newest's
    revision its number (a test holds this to :func:`head_revision`)."""
    numbers = [
        m[1] for p in (MIGRATIONS / "versions").iterdir() if (m := _SCRIPT.fullmatch(p.name))
    ]
    return max(numbers)


def _current(conn: Connection) -> str | None:
    """The revision the database is at (None: not migrated yet), read as Alembic
    keeps it: the one row of ``alembic_version``."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one_or_none()


# --- transactions --------------------------------------------------------------------


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A transaction that will write: ``BEGIN IMMEDIATE`` on SQLite.

    Commits when the block ends, rolls back if it raises.
    """
    with engine.connect() as conn:
        if is_sqlite(conn):
            conn.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            yield conn


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Connection]:
    """A read-only view of one consistent snapshot (REPEATABLE READ on PostgreSQL)."""
    with engine.connect() as conn:
        if not is_sqlite(conn):
            conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            yield conn


#: PostgreSQL SQLSTATEs worth retrying: serialization failure, deadlock.
_TRANSIENT_SQLSTATES = {"40001", "40P01"}


def is_transient(error: BaseException) -> bool:
    """Whether a concurrent writer caused ``error``, so trying again may succeed."""
    if not isinstance(error, DBAPIError):
        return False
    sqlstate = getattr(error.orig, "sqlstate", None)
    if sqlstate in _TRANSIENT_SQLSTATES:
        return True
    if isinstance(error, OperationalError):
        message = str(error.orig).lower()
        return "database is locked" in message or "database is busy" in message
    return False


def run_transaction(
    engine: Engine,
    work: Callable[[Connection], T],
    *,
    attempts: int = 20,
    retry_integrity: bool = False,
) -> T:
    """Run ``work`` in a :func:`write_transaction`, retrying on transient conflicts.

    With ``retry_integrity`` a unique-key violation (another writer inserted the
    same key first) is retried too: ``work`` must then look before it inserts,
    so that on the retry it sees the other writer's row.
    """
    for attempt in range(1, attempts + 1):
        try:
            with write_transaction(engine) as conn:
                return work(conn)
        except IntegrityError:
            if not retry_integrity or attempt == attempts:
                raise
        except DBAPIError as error:
            if not is_transient(error) or attempt == attempts:
                raise
        time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.1)))
    raise AssertionError("unreachable")  # pragma: no cover
