"""The JSON a tournament is shown as: a line of the list, the snapshot with
the windows open now, the results with their payments, and the entrant's bets
after a bet (the service takes these under the tournament's lock)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from punto.money import format_money
from punto.server.tournaments.entry import Entry, windows
from punto.tournament import Stage, Tournament


def summary(t: Tournament) -> dict[str, Any]:
    """A line of the list of tournaments."""
    s = t.session
    fee = t.fmt.registration.entry_fee
    return {
        "id": t.id,
        "format": t.fmt.id,
        "title": t.fmt.title,
        "stage": t.stage.value,
        "session": None if s is None else {"number": s.number, "name": s.name},
        "entrants": len(t.entrants),
        "tables": len(t.tables),
        "seq": t.seq,
        "live": t.live,
        "entry_fee": None if fee is None else format_money(fee),
        "currency": t.fmt.currency,
        # what a lobby shows of the format: the prizes all told, the places
        "prize_pool": format_money(
            sum((band.amount * (band.last - band.first + 1) for band in t.fmt.prizes), Decimal(0))
        ),
        "seats": t.fmt.registration.max_entrants,
        "min_entrants": t.fmt.registration.min_entrants,
        "starting_chips": t.fmt.starting_chips,
    }


def results(t: Tournament, paid: dict[str, str]) -> dict[str, Any]:
    """The places and prizes, or the refunds of a cancelled tournament, with
    what of each is ``paid`` on the ledger (money, by entrant)."""
    rows = []
    for row in t.result_rows():
        e = t.entrants[row["entrant"]]
        has_prize = Decimal(row["prize"]) > 0
        row["paid"] = paid.get(e.id)
        row["payment"] = (
            None
            if not has_prize
            else "paid"
            if e.id in paid
            else "due"
            if e.wallet is not None
            else "off_ledger"
        )
        rows.append(row)
    return {
        "tournament": t.id,
        "finished": t.stage is Stage.FINISHED,
        "currency": t.fmt.currency,
        "entry_fees": format_money(sum((e.fees for e in t.entrants.values()), Decimal(0))),
        "results": rows,
        "cancelled": None
        if t.cancelled is None
        else {
            "reason": t.cancelled,
            "refunds": [
                {
                    "entrant": r.entrant,
                    "amount": r.amount,
                    "paid": paid.get(r.entrant),
                    "payment": "paid"
                    if r.entrant in paid
                    else "due"
                    if t.entrants[r.entrant].wallet is not None
                    else "off_ledger",
                }
                for r in t.refunds
            ],
        },
    }


def snapshot(entry: Entry) -> dict[str, Any]:
    """The snapshot, with the betting windows open now and the server's clock."""
    data = entry.tournament.snapshot()
    data["windows"] = windows(entry)
    data["server_time"] = time.time()
    return data


@dataclass(frozen=True)
class BetLine:
    wager: str
    stake: int


@dataclass(frozen=True)
class EntrantBets:
    """An entrant's bets on the hand being bet at their table (after a bet,
    a pass or a withdrawal)."""

    entrant: str
    chips: int
    #: the hand being bet at their table (None: not seated)
    hand: int | None
    bets: tuple[BetLine, ...]
    passed: bool

    @classmethod
    def of(cls, t: Tournament, entrant: str) -> EntrantBets:
        e = t.entrants[entrant]
        table = t.tables[e.table] if e.table is not None and e.table in t.tables else None
        return cls(
            entrant=e.id,
            chips=e.chips,
            hand=None if table is None else table.hand,
            bets=()
            if table is None
            else tuple(BetLine(x.wager, x.stake) for x in table.bets.get(e.id, ())),
            passed=table is not None and e.id in table.passed,
        )


@dataclass(frozen=True)
class TiebreakChoice:
    """A tied player's side taken in a sudden-death hand, and the hand's sides."""

    entrant: str
    side: str
    open_sides: tuple[str, ...]
    chosen: tuple[str, ...]


@dataclass(frozen=True)
class StaffEntry:
    """An entrant the staff registered (for free)."""

    entrant: str
    name: str
    controller: str
