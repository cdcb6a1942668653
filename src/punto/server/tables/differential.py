"""The table differential on the server (MBS 5.18; RWS 5.1).

At the MBS games (Tiger Baccarat, Dragon Tiger) an exceeded differential
keeps betting open: the Dealer asks the players on the hand with the highest
total to decrease their wagers (5.18.1), the players on the other hand may
increase theirs (5.18.2), and if that is not enough the Pit Manager
determines the wagers that are removed (5.18.3).  The Dealer's request is
logged in the round as an ``IrregularityNoted`` under 5.18.1 (the section is
"Irregularities"), so that whether it was made -- the condition of 5.18.3 --
is in the log, not in a process's memory.

At RWS (Tiger Buffalo) the House rejects the excess itself when the bets
close (5.1, :meth:`Round.reject_excess`); none of the actions here apply.

The functions here read and check; the table's runtime acts
(:class:`punto.server.tables.runtime.TableRuntime`).  Every refusal names the
clause whose condition is not met.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from punto.errors import ActionError, LimitError, PhaseError, RoleError
from punto.money import CENT, format_money
from punto.rules.game import Game
from punto.table.events import BetPlaced, BetReduced
from punto.table.limits import DIFFERENTIAL_WAGERS
from punto.table.roles import Role
from punto.table.round import Phase, Round, TableBet

__all__ = [
    "ASK_POLICY",
    "asked",
    "check_decrease",
    "check_remove",
    "differential_json",
    "heavier_hand",
    "request_text",
    "stake_before",
]

#: The differential policy of the games whose Dealer asks (MBS 5.18).
ASK_POLICY = "ask-decrease-increase-remove"


def _clauses(game: Game) -> tuple[str | None, str | None, str | None, str | None]:
    """(5.18, 5.18.1, 5.18.2, 5.18.3) of this game: the differential, the
    request to decrease, the increase, the removal."""
    base = game.clause("differential")
    return (
        base,
        game.clause("differential_decrease") or base,
        game.clause("differential_increase") or base,
        game.clause("differential_remove") or base,
    )


def heavier_hand(r: Round) -> tuple[str, str] | None:
    """(the hand with the highest total of wagers, the other), or None when
    they are level."""
    totals = r.totals()
    player, banker = (totals.get(w, Decimal(0)) for w in DIFFERENTIAL_WAGERS)
    if player == banker:
        return None
    return ("player", "banker") if player > banker else ("banker", "player")


def asked(game: Game, r: Round) -> bool:
    """Whether the Dealer has asked the heavier hand to decrease this round
    (logged under 5.18.1)."""
    clause = _clauses(game)[1]
    return clause is not None and any(n.clause == clause for n in r.irregularities)


def request_text(game: Game, r: Round) -> str:
    """The Dealer's request (5.18.1, 5.18.2), as logged and as shown to the players."""
    _, decrease, increase, _ = _clauses(game)
    hands = heavier_hand(r)
    assert hands is not None
    assert r.limits.differential is not None
    heavy, light = hands
    return (
        f"the table differential of {format_money(r.limits.differential)} is exceeded "
        f"({format_money(r.differential())}): the Dealer asks the players on {heavy.title()} "
        f"to decrease their wagers ({decrease}); the players on {light.title()} may increase "
        f"theirs ({increase})"
    )


def differential_json(game: Game, r: Round) -> dict[str, Any] | None:
    """What a page shows of the differential of the round (None: no differential)."""
    limit = r.limits.differential
    if limit is None:
        return None
    base, decrease, increase, remove = _clauses(game)
    hands = heavier_hand(r)
    exceeded = r.differential_exceeded()
    ask = game.limit_policy("differential") == ASK_POLICY
    data: dict[str, Any] = {
        "limit": format_money(limit),
        "now": format_money(r.differential()),
        "exceeded": exceeded,
        "clause": base,
        "policy": game.limit_policy("differential"),
        "heavier": hands[0] if hands else None,
        "lighter": hands[1] if hands else None,
        "asked": ask and asked(game, r),
        "request": None,
    }
    if exceeded and ask and r.phase is Phase.BETTING:
        data["request"] = {
            "decrease": hands[0] if hands else None,
            "increase": hands[1] if hands else None,
            "clauses": {"decrease": decrease, "increase": increase, "remove": remove},
            "text": request_text(game, r),
        }
    return data


def _check_asking_game(game: Game, action: str) -> None:
    if game.limit_policy("differential") != ASK_POLICY:
        raise ActionError(
            f"at {game.title} nobody is asked to {action}: the House rejects the excess "
            "over the differential when the bets close",
            clause=game.clause("differential"),
            hint="place, withdraw or re-place wagers while betting is open",
        )


def _check_exceeded(game: Game, r: Round, clause: str | None, action: str) -> tuple[str, str]:
    """The heavier and lighter hands, if the differential is exceeded while betting."""
    if r.phase is not Phase.BETTING:
        raise PhaseError(
            f"wagers {action} to meet the differential before 'No more bets' only",
            clause=clause,
            hint="after 'No more bets' wagers win or lose on the outcome",
        )
    hands = heavier_hand(r)
    if not r.differential_exceeded() or hands is None:
        limit = r.limits.differential
        raise ActionError(
            "the table differential is not exceeded"
            + (f" ({format_money(r.differential())} of {format_money(limit)})" if limit else "")
            + f": no wager is {action} under it",
            clause=clause,
            hint="withdraw a bet and place it again to change it",
        )
    return hands


def _check_on_heavier(bet: TableBet, heavy: str, clause: str | None, who: str) -> None:
    if bet.wager != heavy:
        raise ActionError(
            f"{who} the wagers on {heavy.title()}, the hand with the highest total: "
            f"bet {bet.bet_id} is on {bet.wager}",
            clause=clause,
            hint=f"a wager on {heavy.title()} brings the differential down",
        )


def check_decrease(game: Game, r: Round, bet: TableBet, stake: Decimal) -> None:
    """Why the player may not decrease ``bet`` to ``stake`` now under 5.18.1,
    if they may not: the differential is exceeded while betting is open, the
    bet is active and on the heavier hand, and the new stake is less than the
    old and not under the wager's minimum (a wager taken off altogether is
    withdrawn)."""
    _, decrease, _, _ = _clauses(game)
    _check_asking_game(game, "decrease a wager")
    heavy, _ = _check_exceeded(game, r, decrease, "decreased")
    if bet.status != "active":
        raise ActionError(f"bet {bet.bet_id} is {bet.status}", clause=decrease)
    _check_on_heavier(bet, heavy, decrease, "the Dealer asks for decreases of")
    if stake % CENT or not 0 < stake < bet.stake:
        raise LimitError(
            f"bet {bet.bet_id} of {format_money(bet.stake)} cannot be decreased to "
            f"{format_money(stake) if not stake % CENT else stake}",
            clause=decrease,
            hint="a decrease is to a smaller amount of whole cents; to take the wager off, "
            "withdraw it",
        )
    minimum = r.limits.for_wager(bet.wager).minimum
    if stake < minimum:
        raise LimitError(
            f"{bet.wager} {format_money(stake)} would be under the table minimum of "
            f"{format_money(minimum)}",
            clause=game.clause("bet_limits") or decrease,
            hint=f"decrease to {format_money(minimum)} or more, or withdraw the wager",
        )


def check_remove(game: Game, r: Round, bet: TableBet, role: Role) -> None:
    """Why ``role`` may not remove ``bet`` now under 5.18.3, if it may not:
    a Pit Manager or above; the differential is still exceeded while betting
    is open after the Dealer asked (5.18.1); the bet is active and on the
    heavier hand."""
    _, decrease, _, remove = _clauses(game)
    _check_asking_game(game, "remove a wager")
    if not role.may_act_as(Role.PIT_MANAGER):
        raise RoleError(
            f"a {role.words} may not remove a wager to meet the differential",
            clause=remove,
            hint="the Pit Manager determines the wagers that are removed",
        )
    heavy, _ = _check_exceeded(game, r, remove, "removed")
    if not asked(game, r):
        raise PhaseError(
            "the Pit Manager removes wagers when the decreases and increases the Dealer "
            f"asked for ({decrease}) are not enough: the Dealer has not asked yet",
            clause=remove,
            hint="call 'No more bets' (the Dealer then asks), or wait for the betting time to end",
        )
    if bet.status != "active":
        raise ActionError(f"bet {bet.bet_id} is {bet.status}", clause=remove)
    _check_on_heavier(bet, heavy, remove, "the Pit Manager removes")


def stake_before(r: Round, bet_id: str, stake: Decimal) -> Decimal:
    """The stake of ``bet_id`` before it was reduced to ``stake`` (from the
    round's log: an answer rebuilt for a retried request)."""
    now = Decimal(0)
    for event in r.events:
        if isinstance(event, BetPlaced) and event.bet_id == bet_id:
            now = event.stake
        elif isinstance(event, BetReduced) and event.bet_id == bet_id:
            if event.stake == stake:
                return now
            now = event.stake
    return now
