"""The JSON forms of a table's money, cards, bets and settlements (one each)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from punto.money import CENT, format_money
from punto.rules.coup import Deal
from punto.rules.insurance import InsuranceOffer
from punto.table.round import BetSettlement, Round, TableBet

__all__ = [
    "SETTLED_OUTCOMES",
    "bet_json",
    "cents",
    "find_bet",
    "hands",
    "money",
    "offer_json",
    "settlement_json",
]

#: Settlement outcomes that move money by the coup; the others return the stake.
SETTLED_OUTCOMES = frozenset({"win", "lose", "push"})


def cents(amount: Decimal) -> int:
    """Whole minor units of an amount the engine accepted (whole cents)."""
    units = amount / CENT
    if units != units.to_integral_value():
        raise ValueError(f"{amount} is not a whole number of cents")
    return int(units)


def money(amount: Decimal | int) -> str:
    """Minor units (int) or an amount (Decimal) as a decimal string."""
    value = Decimal(amount) * CENT if isinstance(amount, int) else amount
    return format_money(value)


def hands(deal: Deal) -> list[dict[str, Any]]:
    """Each card with the hand the Table of Play gave it."""
    out = []
    for i, card in enumerate(deal.cards):
        side = Deal(deal.cards[:i]).next_side
        out.append({"index": i, "card": str(card), "hand": side.value if side else "?"})
    return out


def offer_json(offer: InsuranceOffer) -> dict[str, Any]:
    player, banker = (
        (offer.hand_points, offer.other_points)
        if offer.insures.value == "player"
        else (offer.other_points, offer.hand_points)
    )
    return {
        "wager": f"{offer.insures.value}_insurance",
        "insures": offer.insures.value,
        "moment": offer.moment.value,
        "odds": str(offer.row.pays),
        "player_points": player,
        "banker_points": banker,
        "clause": offer.row.clause,
        "text": str(offer),
    }


def bet_json(bet: TableBet, *, player: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "bet_id": bet.bet_id,
        "wager": bet.wager,
        "stake": money(bet.stake),
        "position": bet.position,
        "status": bet.status,
        "moment": bet.moment.value if bet.moment else None,
        "clause": bet.clause,
    }
    if player:
        data["player"] = bet.player
    return data


def find_bet(r: Round, bet_id: str) -> TableBet | None:
    return next((b for b in r.bets if b.bet_id == bet_id), None)


def settlement_json(s: BetSettlement, held: int | None = None) -> dict[str, Any]:
    data = {
        **bet_json(s.bet),
        "outcome": s.outcome,
        "event": s.event,
        "settled_stake": money(s.settled_stake),
        "net": money(s.net),
        "settlement_clause": s.clause,
    }
    stake = cents(s.bet.stake) if held is None else held
    data["payout"] = money(stake + cents(s.net) if s.outcome in SETTLED_OUTCOMES else stake)
    return data
