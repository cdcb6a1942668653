"""Table configuration, kept in the database (``server_tables``), and the audit log.

A table runs one game on one layout with its limits, either by itself (an
automatic dealer with a betting countdown) or from the dealer console; its
cards come from the server's shuffled shoe or from a card-reading shoe that
posts them with the table's device token.

>>> config = TableConfig.from_json({"id": "t1", "game": "tiger-baccarat",
...                                 "limits": {"minimum": "10", "maximum": "1000"}})
>>> config.mode, config.limits.minimum, config.to_json()["limits"]["maximum"]
('auto', Decimal('10'), '1000.00')
>>> try:
...     TableConfig.from_json({"id": "t1", "game": "tiger-buffalo"})
... except PuntoError as refused:
...     print(refused.message)
tiger-buffalo has 14 layouts offering different wagers
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection, Engine, RowMapping

from punto.errors import LimitError, PuntoError
from punto.eventlog import EventLog
from punto.protection.edges import EdgeConfirmation, WagerEdge, favoured, table_edges
from punto.rules.game import Game
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.server.tables.card_source import physical
from punto.server.tables.schema import CARD_SOURCES, MODES, server_audit, server_tables
from punto.store import db
from punto.store.db import table_events
from punto.table.bet_limits import check_limit_wagers, check_table_limits
from punto.table.events import Event
from punto.table.limits import TableLimits
from punto.table.live import LiveTable, TableConfigError, check_hlga

if TYPE_CHECKING:
    from punto.server.tables.journal import Journal

_TABLE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
#: The longest countdown, card delay or pause a table may be set to (seconds).
MAX_SECONDS = 3600.0
#: The card sources that are an electronic dealing device (MBS 5.9): the
#: server's own shuffled shoe and a card-reading shoe.  A source of cards keyed
#: from a manual shoe, if one is added, is not.
ELECTRONIC_SOURCES = frozenset({"virtual", "device"})


class ConfigError(PuntoError, ValueError):
    """A table configuration that cannot be used."""


class UnknownTableError(PuntoError, KeyError):
    """No table with that id."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return PuntoError.__str__(self)


def limits_from_json(data: Any) -> TableLimits:
    """:meth:`TableLimits.from_json`, refusing what it refuses as a :class:`ConfigError`."""
    try:
        return TableLimits.from_json(data)
    except LimitError as error:
        raise ConfigError(error.message, clause=error.clause, hint=error.hint) from None


def _seconds(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ConfigError(f"{what} must be a number of seconds")
    try:
        seconds = float(value)
    except ValueError:
        raise ConfigError(f"{what} {value!r} is not a number of seconds") from None
    if not 0 <= seconds <= MAX_SECONDS:  # also refuses NaN
        raise ConfigError(f"{what} must be from 0 to {MAX_SECONDS:g} seconds")
    return seconds


@dataclass(frozen=True)
class TableConfig:
    """How one table is set up."""

    id: str
    game: str
    name: str = ""
    layout: str | None = None
    mode: str = "auto"
    card_source: str = "virtual"
    limits: TableLimits = field(default_factory=lambda: TableLimits(Decimal(10), Decimal(1000)))
    decks: int = 8
    betting_seconds: float = 15.0
    card_delay: float = 0.8
    insurance_seconds: float = 6.0
    result_seconds: float = 4.0
    seed: str | None = None
    active: bool = True
    #: the table is in HLGA: when the cut card comes out as the first card of a
    #: round, the players may withdraw their wagers (MBS 3.22.1)
    hlga: bool = False
    #: Insurance is offered (RWS 4.2.2: at a private table the House may allow a
    #: player's request that it is not; a notice is then displayed to all)
    insurance_offered: bool = True
    #: the cards are dealt face down: a card dealt face up is the irregularity
    #: of RWS 5.10 (set by a pit manager between rounds; logged)
    face_down: bool = False
    #: the pit manager's confirmations of the wagers offered here that favour
    #: the player (:func:`punto.protection.edges.check_confirmed`)
    confirmations: tuple[EdgeConfirmation, ...] = ()
    #: how a Pair is read here, set explicitly (None: the game's default, by
    #: rank); ``literal`` is Tiger Baccarat 1.1.14 as written, an option
    #: flagged wherever it shows (:data:`punto.rules.wagers.LITERAL_PAIR_WARNING`)
    pair_rule: PairRule | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _TABLE_ID.fullmatch(self.id):
            raise ConfigError(
                f"table id {self.id!r} is not allowed",
                hint="use 1 to 64 lower-case letters, digits and -, starting with a letter or digit",
            )
        game = get_game(self.game)
        object.__setattr__(self, "layout", game.check_layout(self.layout))
        if self.mode not in MODES:
            raise ConfigError(f"mode {self.mode!r} is not one of {', '.join(MODES)}")
        if self.card_source not in CARD_SOURCES:
            raise ConfigError(
                f"card_source {self.card_source!r} is not one of {', '.join(CARD_SOURCES)}"
            )
        game.decks.check(self.decks)
        try:
            check_limit_wagers(game, self.limits, self.layout)  # a misspelt wager (3.5.1)
            check_table_limits(game, self.limits)  # e.g. more than MBS 3.7's three per area
        except LimitError as error:
            raise ConfigError(error.message, clause=error.clause, hint=error.hint) from None
        try:
            check_hlga(game, self.hlga)
        except TableConfigError as error:
            raise ConfigError(error.message, clause=error.clause, hint=error.hint) from None
        if not self.insurance_offered and game.clause("no_insurance_notice") is None:
            raise ConfigError(
                f"the {game.title} rules have no table without Insurance",
                hint="insurance_offered false is for a private Tiger Buffalo table (RWS 4.2.2)",
            )
        if not self.name:
            object.__setattr__(self, "name", f"{game.title} {self.id}")
        if len(self.name) > 200:
            raise ConfigError("a table name has at most 200 characters")

    @property
    def electronic_device(self) -> bool:
        """An electronic dealing device is in use (MBS 5.9): the server's own
        shuffled shoe (``virtual``) and a card-reading shoe (``device``) both
        are; docs/interpretations.md, "Table facts"."""
        return self.card_source in ELECTRONIC_SOURCES

    @property
    def game_(self) -> Game:
        return get_game(self.game)

    @property
    def rule(self) -> PairRule:
        """How a Pair is read at this table: the one set, else the game's default."""
        return self.pair_rule or self.game_.pair_rule

    @property
    def edges(self) -> tuple[WagerEdge, ...]:
        """The exact house edge off the top of every wager this table offers."""
        return table_edges(self.game, self.layout, self.decks, self.rule)

    def warnings_json(self) -> list[dict[str, Any]]:
        """The wagers offered here that favour the player, each with its
        edge and who confirmed it (the pit page's standing warning)."""
        confirmed = {c.wager: c for c in self.confirmations}
        out = []
        for edge in favoured(self.edges):
            c = confirmed.get(edge.wager)
            out.append(
                {
                    "table_id": self.id,
                    "table_name": self.name,
                    "game": self.game,
                    "layout": self.layout,
                    "decks": self.decks,
                    "pair_rule": self.rule.value,
                    **edge.to_json(),
                    "confirmation": None if c is None else c.to_json(),
                }
            )
        return out

    def live_table(
        self, log: EventLog[Event], *, limits: TableLimits | None = None, recover: bool = True
    ) -> LiveTable:
        """The table this configuration runs, restored from ``log`` (with
        ``recover``, a round interrupted mid-deal under the power failure
        rules); ``limits`` for new rounds, if not the configuration's."""
        return LiveTable(
            self.id,
            self.game_,
            limits=limits or self.limits,
            log=log,
            layout=self.layout,
            decks=self.decks,
            seed=self.seed,
            hlga=self.hlga,
            insurance_offered=self.insurance_offered,
            electronic_device=self.electronic_device,
            face_down=self.face_down,
            pair_rule=self.rule,
            # a card-reading shoe is a physical shoe: its cards are checked
            # against its decks; the server's own shoe takes no card from outside
            physical_shoe=physical(self.card_source),
            recover=recover,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any], base: TableConfig | None = None) -> TableConfig:
        """A configuration from JSON; with ``base``, the fields given change it."""
        if not isinstance(data, Mapping):
            raise ConfigError("a table configuration is a JSON object")
        known = {
            "id",
            "name",
            "game",
            "layout",
            "mode",
            "card_source",
            "limits",
            "decks",
            "betting_seconds",
            "card_delay",
            "insurance_seconds",
            "result_seconds",
            "seed",
            "active",
            "hlga",
            "insurance_offered",
            "face_down",
            "pair_rule",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown table setting {unknown[0]!r}",
                hint=f"settings: {', '.join(sorted(known))}",
            )
        values: dict[str, Any] = {}
        if base is None and ("id" not in data or "game" not in data):
            raise ConfigError("a new table needs an id and a game")
        for name in ("id", "name", "game", "mode", "card_source"):
            if name in data:
                if not isinstance(data[name], str):
                    raise ConfigError(f"{name} must be a string")
                values[name] = data[name]
        if "layout" in data:
            if data["layout"] is not None and not isinstance(data["layout"], str):
                raise ConfigError("layout must be a string (an Appendix letter)")
            values["layout"] = data["layout"] or None
        if "limits" in data:
            values["limits"] = limits_from_json(data["limits"])
        if "decks" in data:
            if isinstance(data["decks"], bool) or not isinstance(data["decks"], int):
                raise ConfigError("decks must be a whole number")
            values["decks"] = data["decks"]
        for name in ("betting_seconds", "card_delay", "insurance_seconds", "result_seconds"):
            if name in data:
                values[name] = _seconds(data[name], name)
        if "seed" in data:
            if data["seed"] is not None and not isinstance(data["seed"], str | int):
                raise ConfigError("seed must be a string")
            values["seed"] = None if data["seed"] is None else str(data["seed"])[:200]
        for name in ("active", "hlga", "insurance_offered", "face_down"):
            if name in data:
                if not isinstance(data[name], bool):
                    raise ConfigError(f"{name} must be true or false")
                values[name] = data[name]
        if "pair_rule" in data:
            values["pair_rule"] = _pair_rule(data["pair_rule"])
        if base is not None:
            if values.get("id", base.id) != base.id:
                raise ConfigError("a table's id cannot change")
            return replace(base, **values)
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        game = self.game_
        return {
            "id": self.id,
            "name": self.name,
            "game": self.game,
            "game_title": game.title,
            "layout": self.layout,
            "mode": self.mode,
            "card_source": self.card_source,
            "limits": self.limits.to_json(),
            "decks": self.decks,
            "betting_seconds": self.betting_seconds,
            "card_delay": self.card_delay,
            "insurance_seconds": self.insurance_seconds,
            "result_seconds": self.result_seconds,
            "active": self.active,
            "hlga": self.hlga,
            "insurance": game.insurance is not None,
            "insurance_offered": self.insurance_offered and game.insurance is not None,
            "insurance_notice": self.insurance_notice,
            "electronic_device": self.electronic_device,
            "face_down": self.face_down,
            "pair_rule": self.rule.value,
        }

    @property
    def insurance_notice(self) -> dict[str, str] | None:
        """The notice displayed at a table where Insurance is not offered (RWS 4.2.2)."""
        clause = self.game_.clause("no_insurance_notice")
        if self.insurance_offered or clause is None:
            return None
        return {"clause": clause, "text": "No Insurance Plus at this table"}


def _pair_rule(value: Any) -> PairRule | None:
    """A table's ``pair_rule`` setting: null for the game's default, or one
    of the readings by name."""
    if value is None:
        return None
    try:
        return PairRule(value)
    except ValueError:
        raise ConfigError(
            f"pair_rule {str(value)[:32]!r} is not a reading of a Pair",
            hint="rank (the default), or literal for Tiger Baccarat 1.1.14 as written "
            "(a wager that then favours the player needs a pit manager's confirmation)",
        ) from None


def _row_to_config(row: RowMapping) -> TableConfig:
    return TableConfig(
        id=row["id"],
        name=row["name"],
        game=row["game"],
        layout=row["layout"],
        mode=row["mode"],
        card_source=row["card_source"],
        limits=limits_from_json(json.loads(row["limits"])),
        decks=int(row["decks"]),
        betting_seconds=float(row["betting_seconds"]),
        card_delay=float(row["card_delay"]),
        insurance_seconds=float(row["insurance_seconds"]),
        result_seconds=float(row["result_seconds"]),
        seed=row["seed"],
        active=bool(row["active"]),
        hlga=bool(row["hlga"]),
        insurance_offered=bool(row["insurance_offered"]),
        face_down=bool(row["face_down"]),
        pair_rule=None if row["pair_rule"] is None else PairRule(row["pair_rule"]),
        confirmations=tuple(
            EdgeConfirmation.from_json(c) for c in json.loads(row["edge_confirmations"])
        ),
    )


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TableStore:
    """The table configurations in the database."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        #: one-time device tokens of forwarded cards (see :meth:`vouch_device`), by token
        self._vouched: dict[str, str] = {}
        self._vouched_lock = threading.Lock()

    def all(self) -> list[TableConfig]:
        with self._engine.connect() as conn:
            rows = conn.execute(select(server_tables).order_by(server_tables.c.id)).mappings()
            return [_row_to_config(row) for row in rows]

    def get(self, table_id: str) -> TableConfig:
        with self._engine.connect() as conn:
            row = (
                conn.execute(select(server_tables).where(server_tables.c.id == table_id))
                .mappings()
                .first()
            )
        if row is None:
            raise UnknownTableError(f"there is no table {table_id!r}")
        return _row_to_config(row)

    def exists(self, table_id: str) -> bool:
        with self._engine.connect() as conn:
            return (
                conn.execute(
                    select(server_tables.c.id).where(server_tables.c.id == table_id)
                ).first()
                is not None
            )

    def _values(self, config: TableConfig) -> dict[str, Any]:
        return {
            "name": config.name,
            "game": config.game,
            "layout": config.layout,
            "mode": config.mode,
            "card_source": config.card_source,
            "limits": json.dumps(config.limits.to_json(), sort_keys=True),
            "decks": config.decks,
            "betting_seconds": config.betting_seconds,
            "card_delay": config.card_delay,
            "insurance_seconds": config.insurance_seconds,
            "result_seconds": config.result_seconds,
            "seed": config.seed,
            "active": config.active,
            "hlga": config.hlga,
            "insurance_offered": config.insurance_offered,
            "face_down": config.face_down,
            "pair_rule": None if config.pair_rule is None else config.pair_rule.value,
            "edge_confirmations": json.dumps(
                [c.to_json() for c in config.confirmations], sort_keys=True
            ),
            "updated_at": db.utc_now(),
        }

    def create(self, config: TableConfig, *, if_missing: bool = False) -> bool:
        """Store a new table; False (with ``if_missing``) when the id is taken."""

        def work(conn: Any) -> bool:
            found = conn.execute(
                select(server_tables.c.id).where(server_tables.c.id == config.id)
            ).first()
            if found is not None:
                if if_missing:
                    return False
                raise ConfigError(f"there is already a table {config.id!r}")
            conn.execute(
                insert(server_tables).values(
                    id=config.id, created_at=db.utc_now(), **self._values(config)
                )
            )
            return True

        return db.run_transaction(self._engine, work, retry_integrity=True)

    def has_dealt(self, table_id: str) -> bool:
        """Whether the table's event log holds a round (beyond its configuration)."""
        with self._engine.connect() as conn:
            return (
                conn.execute(
                    select(table_events.c.seq)
                    .where(
                        table_events.c.table_id == table_id,
                        table_events.c.type != "table_configured",
                    )
                    .limit(1)
                ).first()
                is not None
            )

    def save(self, config: TableConfig) -> None:
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                update(server_tables)
                .where(server_tables.c.id == config.id)
                .values(**self._values(config))
            )
            if result.rowcount == 0:
                raise UnknownTableError(f"there is no table {config.id!r}")

    def new_device_token(self, table_id: str) -> str:
        """A new device token for the table's card-reading shoe (the old one stops working)."""
        token = secrets.token_urlsafe(32)
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                update(server_tables)
                .where(server_tables.c.id == table_id)
                .values(device_token_hash=token_hash(token), updated_at=db.utc_now())
            )
            if result.rowcount == 0:
                raise UnknownTableError(f"there is no table {table_id!r}")
        return token

    def vouch_device(self, table_id: str) -> str:
        """A one-time device token for ``table_id``, in this process's memory only:
        a card forwarded from another process (:mod:`punto.server.cluster.forwarding`)
        carries no device token -- it would lie in ``table_requests`` -- only
        that the first process checked it; this token stands in for it while
        the request is answered here (:meth:`unvouch` after)."""
        token = secrets.token_urlsafe(32)
        with self._vouched_lock:
            self._vouched[token] = table_id
        return token

    def unvouch(self, token: str) -> None:
        with self._vouched_lock:
            self._vouched.pop(token, None)

    def check_device_token(self, table_id: str, token: str) -> bool:
        with self._vouched_lock:
            vouched = self._vouched.pop(token, None)
        if vouched is not None:
            return vouched == table_id
        with self._engine.connect() as conn:
            stored = conn.execute(
                select(server_tables.c.device_token_hash).where(server_tables.c.id == table_id)
            ).scalar_one_or_none()
        return stored is not None and secrets.compare_digest(stored, token_hash(token))


class AuditLog:
    """Who did what, where (``server_audit``); written through the server's
    journal when it has one (the same single writer as the tables)."""

    def __init__(self, engine: Engine, journal: Journal | None = None) -> None:
        self._engine = engine
        self._journal = journal

    def record(
        self,
        action: str,
        *,
        user: Any = None,
        table_id: str | None = None,
        round_id: str | None = None,
        **detail: Any,
    ) -> None:
        row = {
            "at": db.utc_now(),
            "account_id": getattr(user, "id", None),
            "username": getattr(user, "username", None),
            "role": getattr(getattr(user, "role", None), "value", None),
            "table_id": table_id,
            "round_id": round_id,
            "action": action[:64],
            "detail": json.dumps(detail, sort_keys=True, default=str),
        }

        def work(conn: Connection) -> None:
            conn.execute(insert(server_audit).values(**row))

        if self._journal is not None:
            self._journal.run(work)
            return
        with db.write_transaction(self._engine) as conn:
            work(conn)

    def entries(self, table_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        query = select(server_audit).order_by(server_audit.c.id.desc()).limit(limit)
        if table_id is not None:
            query = query.where(server_audit.c.table_id == table_id)
        with self._engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [
            {
                "id": int(row["id"]),
                "at": row["at"].isoformat(),
                "username": row["username"],
                "role": row["role"],
                "table_id": row["table_id"],
                "round_id": row["round_id"],
                "action": row["action"],
                "detail": json.loads(row["detail"]),
            }
            for row in rows
        ]
