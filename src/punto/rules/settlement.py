"""Settling bets against a finished coup, in exact money.

Each bet gets an outcome (win, lose or push), the event that decided it
(``"three_cards"`` for a Tiger won on three cards) and a signed net amount:
the winnings for a win, minus the stake for a loss, zero for a push.

>>> from punto.rules.games import get_game
>>> game = get_game("tiger-baccarat")
>>> coup = Coup.parse("QH 2C 2D KS 3H 4D")      # Banker 6 on three cards v Player 5
>>> result = settle(game, coup, [Bet("banker", Decimal(100)), Bet("tiger", Decimal(10))])
>>> [(r.bet.wager, r.outcome.value, r.event, str(r.net)) for r in result.results]
[('banker', 'win', 'win', '95.00'), ('tiger', 'win', 'three_cards', '200.00')]
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from punto.errors import InsuranceError
from punto.money import CENT, Rounding, format_money, winnings
from punto.rules.coup import Coup, Deal, Side
from punto.rules.game import Game, Wager
from punto.rules.insurance import INSURANCE_EVENTS, InsuranceOffer, Moment, insurance_event
from punto.rules.wagers import PairRule


class Outcome(enum.Enum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


@dataclass(frozen=True, slots=True)
class Bet:
    """A stake on one wager.  An Insurance Plus bet also says when it was
    placed; its odds come from the cards on the table at that moment."""

    wager: str
    stake: Decimal
    moment: Moment | None = None


@dataclass(frozen=True, slots=True)
class BetResult:
    bet: Bet
    outcome: Outcome
    event: str | None
    pays: str | None
    net: Decimal

    def to_json(self, minor_unit: Decimal = CENT) -> dict[str, Any]:
        out: dict[str, Any] = {
            "wager": self.bet.wager,
            "stake": format_money(self.bet.stake, minor_unit),
            "outcome": self.outcome.value,
            "event": self.event,
            "net": format_money(self.net, minor_unit),
        }
        if self.bet.moment is not None:
            out["moment"] = self.bet.moment.value
            out["pays"] = self.pays
        return out


@dataclass(frozen=True)
class Settlement:
    game: Game
    layout: str | None
    coup: Coup
    results: tuple[BetResult, ...]
    minor_unit: Decimal = CENT

    @property
    def net(self) -> Decimal:
        """What the bettor gained (positive) or lost (negative) in all."""
        return sum((r.net for r in self.results), Decimal(0))

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``punto deal --json``."""
        return {
            "game": self.game.id,
            "layout": self.layout,
            "player": _hand_json(self.coup, Side.PLAYER),
            "banker": _hand_json(self.coup, Side.BANKER),
            "winner": self.coup.winner.value,
            "bets": [r.to_json(self.minor_unit) for r in self.results],
        }


def _hand_json(coup: Coup, side: Side) -> dict[str, Any]:
    hand = coup.hand(side)
    return {"cards": [str(c) for c in hand.cards], "total": hand.total}


def check_bets(
    game: Game,
    bets: Sequence[Bet],
    *,
    layout: str | None = None,
    cards: Sequence[Any] | None = None,
    table_maximum: Decimal | None = None,
    insurance_placed: bool = False,
) -> None:
    """Refuse, with the clause, any bet the game or layout does not take.

    Insurance Plus bets need the cards (to find the offer) and are held to
    the caps of 3.12.2: per hand and moment, no more than the Original Bet
    on that hand, and at 10 to 1 no more than a quarter of the table maximum.
    ``insurance_placed`` says a table held each Insurance bet to 3.11 and
    3.12.2 against the Original Bet as it lay when the bet was placed; a
    later change to that Original Bet (RWS 5.1.1 pro rata, 5.14.2 return)
    does not undo an Insurance bet placed within them, so they are not
    checked again here.
    """
    insured: dict[tuple[Side, Moment], list[Bet]] = defaultdict(list)
    for bet in bets:
        wager = game.wager(bet.wager, layout)
        if wager.insures is None:
            if bet.moment is not None:
                raise InsuranceError(
                    f"{bet.wager} is not an Insurance Plus bet and takes no moment",
                    hint="give a moment only to player_insurance or banker_insurance",
                )
            continue
        if bet.moment is None:
            raise InsuranceError(
                f"{bet.wager} needs the moment it was placed",
                clause="4.1.15",
                hint="say four_cards or player_third_card",
            )
        insured[(wager.insures, bet.moment)].append(bet)
    if not insured or insurance_placed:
        return
    assert game.insurance is not None
    for (side, moment), group in insured.items():
        original = sum((b.stake for b in bets if b.wager == side.value), Decimal(0))
        if original == 0:
            raise InsuranceError(
                f"{side.value} insurance insures an Original Bet on the {side.value.title()} "
                f"hand, and there is none",
                clause="3.11",
                hint=f"bet on {side.value} to insure it",
            )
        if cards is None:
            continue
        offer = _offer_for(game, cards, side, moment)
        total = sum((b.stake for b in group), Decimal(0))
        cap = game.insurance.max_stake(offer, original, table_maximum=table_maximum)
        if total > cap:
            raise InsuranceError(
                f"{side.value} insurance {moment.words} totals {format_money(total)}, over its "
                f"cap of {format_money(cap)}",
                clause=game.insurance.cap_clause,
                hint="insurance may not exceed the Original Bet (and, at 10 to 1, a quarter "
                "of the table maximum)",
            )


def _offer_for(game: Game, cards: Sequence[Any], side: Side, moment: Moment) -> InsuranceOffer:
    assert game.insurance is not None
    if len(cards) < moment.cards:
        raise InsuranceError(
            f"{side.value} insurance {moment.words} was never offered: the coup ended first",
            clause="4.1.15",
        )
    return game.insurance.offer(Deal(tuple(cards[: moment.cards])), side)


def settle(
    game: Game,
    coup: Coup,
    bets: Iterable[Bet],
    *,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
    minor_unit: Decimal = CENT,
    rounding: Rounding = Rounding.DOWN,
    table_maximum: Decimal | None = None,
    insurance_placed: bool = False,
) -> Settlement:
    """Settle every bet on ``coup``; all are checked before any is settled
    (``insurance_placed``: see :func:`check_bets`)."""
    bets = tuple(bets)
    layout = game.check_layout(layout)  # Tiger Buffalo's layouts differ: one must be named
    check_bets(
        game,
        bets,
        layout=layout,
        cards=coup.cards,
        table_maximum=table_maximum,
        insurance_placed=insurance_placed,
    )
    rule = pair_rule or game.pair_rule
    results = []
    for bet in bets:
        wager = game.wager(bet.wager, layout)
        results.append(_settle_one(game, wager, coup, bet, rule, minor_unit, rounding))
    return Settlement(game, layout, coup, tuple(results), minor_unit)


def _settle_one(
    game: Game,
    wager: Wager,
    coup: Coup,
    bet: Bet,
    rule: PairRule,
    minor_unit: Decimal,
    rounding: Rounding,
) -> BetResult:
    if wager.insures is not None:
        assert bet.moment is not None
        offer = _offer_for(game, coup.cards, wager.insures, bet.moment)
        event = insurance_event(coup, offer)
        pays = offer.row.pays
        paid = event is not None and INSURANCE_EVENTS[event]
        if event is None:
            return BetResult(bet, Outcome.LOSE, None, str(pays), -bet.stake)
        if not paid:
            return BetResult(bet, Outcome.PUSH, event, "push", Decimal(0))
        net = winnings(bet.stake, offer.odds, minor_unit=minor_unit, rounding=rounding)
        return BetResult(bet, Outcome.WIN, event, str(pays), net)
    assert wager.kind is not None
    event = wager.kind(coup, rule)
    if event is None:
        return BetResult(bet, Outcome.LOSE, None, None, -bet.stake)
    pays = wager.pays[event]
    if pays.odds is None:
        return BetResult(bet, Outcome.PUSH, event, str(pays), Decimal(0))
    net = winnings(bet.stake, pays.odds, minor_unit=minor_unit, rounding=rounding)
    return BetResult(bet, Outcome.WIN, event, str(pays), net)
