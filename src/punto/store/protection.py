"""Game protection's rows: each bet's value at placement, the pit's alerts, and
the bets a rating counts (revision 0013, :mod:`punto.store.protection_schema`).

The server writes the values and alerts through its journal (one write path,
in the group's transaction: :func:`write_values`, :func:`write_alert`); the
reads here answer the pit.  Fractions are kept as exact text (``num/den``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection, Engine, RowMapping

from punto.store import ledger_sql
from punto.store.db import (
    bet_values,
    ledger_bets,
    ledger_entries,
    ledger_transactions,
    protection_alerts,
    protection_thresholds,
    read_transaction,
)

__all__ = [
    "RatedBet",
    "StoredAlert",
    "StoredValue",
    "rated_bets",
    "read_alerts",
    "read_presets",
    "round_values",
    "table_values",
    "values_of_bets",
    "write_alert",
    "write_preset",
    "write_values",
]


@dataclass(frozen=True, slots=True)
class StoredValue:
    """One bet's value when it was placed, as stored (see the schema)."""

    table_id: str
    bet_id: str
    round_id: str
    shoe_id: str
    player: str
    wager: str
    moment: str | None
    stake: int
    return_exact: Fraction
    expected_value: Fraction
    cards_seen: int
    composition: tuple[int, ...]
    computed_at: datetime

    def row(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "bet_id": self.bet_id,
            "round_id": self.round_id,
            "shoe_id": self.shoe_id,
            "player": self.player,
            "wager": self.wager,
            "moment": self.moment,
            "stake": self.stake,
            "return_exact": _text(self.return_exact),
            "expected_value": str(self.expected_value),
            "cards_seen": self.cards_seen,
            "composition": _composition_text(self.composition),
            "computed_at": self.computed_at,
        }

    @classmethod
    def of(cls, row: RowMapping) -> StoredValue:
        return cls(
            row["table_id"],
            row["bet_id"],
            row["round_id"],
            row["shoe_id"],
            row["player"],
            row["wager"],
            row["moment"],
            int(row["stake"]),
            Fraction(row["return_exact"]),
            Fraction(row["expected_value"]),
            int(row["cards_seen"]),
            tuple(int(c) for c in row["composition"].split(",")),
            row["computed_at"],
        )


@dataclass(frozen=True, slots=True)
class StoredAlert:
    """An advantage-play alert as stored; ``evidence`` its observations (JSON)."""

    id: int | None
    table_id: str
    player: str
    raised_at: datetime
    statistic: str
    threshold: str
    false_alarm_rate: str
    evidence: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class RatedBet:
    """A settled bet with its value: what a rating counts.  ``player_net`` is
    what the ledger moved into the player's wallet for it, all postings of
    the bet (stake, settlement, any resettlement) summed."""

    table_id: str
    bet_id: str
    round_id: str
    player: str
    stake: int
    expected_value: Fraction
    player_net: int
    placed_at: datetime


# A round's bets share its composition and, wager by wager, its returns: each
# written once, not once a bet (a round of 300 bets, 10 tables).
@functools.lru_cache(maxsize=256)
def _text(value: Fraction) -> str:
    return str(value)


@functools.lru_cache(maxsize=64)
def _composition_text(counts: tuple[int, ...]) -> str:
    return ",".join(map(str, counts))


def write_values(conn: Connection, values: Sequence[StoredValue]) -> None:
    """Store ``values`` (one statement); a bet already valued (revalued after a
    restart) keeps its first value."""
    if values:
        ledger_sql.write_rows(
            conn, [ledger_sql.Rows(bet_values, [v.row() for v in values], skip_taken=True)]
        )


def round_values(engine: Engine, table_id: str, round_id: str) -> dict[str, StoredValue]:
    """The values of a round's bets, by bet id."""
    query = select(bet_values).where(
        bet_values.c.table_id == table_id, bet_values.c.round_id == round_id
    )
    with read_transaction(engine) as conn:
        return {v.bet_id: v for v in map(StoredValue.of, conn.execute(query).mappings())}


def values_of_bets(
    engine: Engine, refs: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], StoredValue]:
    """The values of the bets ``refs`` (table id, bet id) that have one."""
    wanted = sorted(set(refs))
    found: dict[tuple[str, str], StoredValue] = {}
    with read_transaction(engine) as conn:
        for table_id in {t for t, _ in wanted}:
            bets = [b for t, b in wanted if t == table_id]
            query = select(bet_values).where(
                bet_values.c.table_id == table_id, bet_values.c.bet_id.in_(bets)
            )
            for row in conn.execute(query).mappings():
                value = StoredValue.of(row)
                found[(value.table_id, value.bet_id)] = value
    return found


def table_values(engine: Engine, table_id: str) -> list[StoredValue]:
    """Every value of a table's bets, in the order they were computed."""
    query = (
        select(bet_values)
        .where(bet_values.c.table_id == table_id)
        .order_by(bet_values.c.computed_at, bet_values.c.bet_id)
    )
    with read_transaction(engine) as conn:
        return [StoredValue.of(row) for row in conn.execute(query).mappings()]


def rated_bets(
    engine: Engine, *, since: datetime | None = None, until: datetime | None = None
) -> list[RatedBet]:
    """The settled bets that have a value, placed in [``since``, ``until``),
    each with what the ledger moved into its player's wallet for it."""
    tx = ledger_transactions
    nets = (
        select(
            tx.c.table_id,
            tx.c.bet_id,
            ledger_entries.c.wallet_id,
            func.sum(ledger_entries.c.amount).label("net"),
        )
        .join(ledger_entries, ledger_entries.c.transaction_id == tx.c.id)
        .where(tx.c.bet_id.is_not(None))
        .group_by(tx.c.table_id, tx.c.bet_id, ledger_entries.c.wallet_id)
        .subquery()
    )
    placed = tx.alias("placed")
    query = (
        select(
            bet_values.c.table_id,
            bet_values.c.bet_id,
            bet_values.c.round_id,
            bet_values.c.player,
            bet_values.c.stake,
            bet_values.c.expected_value,
            nets.c.net,
            placed.c.created_at,
        )
        .join(
            ledger_bets,
            and_(
                ledger_bets.c.table_id == bet_values.c.table_id,
                ledger_bets.c.bet_id == bet_values.c.bet_id,
            ),
        )
        .join(placed, placed.c.id == ledger_bets.c.placed_by)
        .join(
            nets,
            and_(
                nets.c.table_id == bet_values.c.table_id,
                nets.c.bet_id == bet_values.c.bet_id,
                nets.c.wallet_id == ledger_bets.c.wallet_id,
            ),
        )
        .where(ledger_bets.c.status == "settled")
        .order_by(placed.c.created_at, bet_values.c.table_id, bet_values.c.bet_id)
    )
    if since is not None:
        query = query.where(placed.c.created_at >= since)
    if until is not None:
        query = query.where(placed.c.created_at < until)
    with read_transaction(engine) as conn:
        return [
            RatedBet(
                r.table_id,
                r.bet_id,
                r.round_id,
                r.player,
                int(r.stake),
                Fraction(r.expected_value),
                int(r.net),
                r.created_at,
            )
            for r in conn.execute(query)
        ]


def write_alert(conn: Connection, alert: StoredAlert) -> int:
    """Store an alert; its id."""
    result = conn.execute(
        protection_alerts.insert().values(
            table_id=alert.table_id,
            player=alert.player,
            raised_at=alert.raised_at,
            statistic=alert.statistic,
            threshold=alert.threshold,
            false_alarm_rate=alert.false_alarm_rate,
            evidence=json.dumps(list(alert.evidence)),
        )
    )
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def read_alerts(engine: Engine, *, limit: int = 100) -> list[StoredAlert]:
    """The latest alerts first."""
    query = (
        select(protection_alerts)
        .order_by(protection_alerts.c.raised_at.desc(), protection_alerts.c.id.desc())
        .limit(limit)
    )
    with read_transaction(engine) as conn:
        return [
            StoredAlert(
                int(r.id),
                r.table_id,
                r.player,
                r.raised_at,
                r.statistic,
                r.threshold,
                r.false_alarm_rate,
                tuple(json.loads(r.evidence)),
            )
            for r in conn.execute(query)
        ]


def read_presets(engine: Engine) -> dict[str, str]:
    """Each table's detection thresholds preset that was set."""
    with read_transaction(engine) as conn:
        return {r.table_id: r.preset for r in conn.execute(select(protection_thresholds))}


def write_preset(conn: Connection, table_id: str, preset: str) -> None:
    """Set a table's detection thresholds preset."""
    conn.execute(protection_thresholds.delete().where(protection_thresholds.c.table_id == table_id))
    conn.execute(protection_thresholds.insert().values(table_id=table_id, preset=preset))
