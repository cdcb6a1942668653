"""Card handling at the live table: Methods A, B and C (MBS Tiger Baccarat
and Dragon Tiger 3.9-3.12), as events of the round.

* **The Method** (3.9, 3.9.2): the Pit Manager chooses A or B, an Assistant
  Casino Manager allows C, only in HLGA; a choice is made between rounds.
  A live table logs it and records it again at the start of each round it
  governs (``MethodChosen``); a round with no such event is conducted by
  Method A (docs/interpretations.md).
* **Method A** (3.10): the Dealer passes each hand's cards face down to the
  player with the highest amount wagered on that hand (``CardsPassed``).
  Equal highest: the one who placed it first (3.10.4); a refusal
  (``CardsRefused``) passes them to the next equal highest,
  counter-clockwise (3.10.5), or, when nobody else bet as much, to the next
  highest amount (3.10.3).  Where none of this settles it, the Pit
  Supervisor decides (3.10.4.1); a Pit Manager may let anyone squeeze
  (3.21; Dragon Tiger 3.16).
* **Method B** (3.11): the Dealer keeps the cards; players do not handle them.
* **Method C** (3.12): a player draws from a card-reading device
  (``DeviceTaken``) and keeps control until relinquishing it
  (``DeviceRelinquished``) or until their wager loses (``DeviceLost``);
  an Assistant Casino Manager may let a player draw without a valid wager
  (``DrawAllowed``).  Under A and B the Dealer keeps the device (3.9.1).

Each action is a check / can / act trio, like :class:`Round`'s.  Nothing
here moves money; every event goes to the round's log, so the audit shows
who had which cards (:func:`summary`).

>>> from decimal import Decimal
>>> from punto.rules.games import get_game
>>> from punto.table.limits import TableLimits
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(5000)))
>>> r.open()
>>> for player, pos, stake in [("ann", 1, 300), ("bob", 5, 500), ("cat", 3, 500)]:
...     _ = r.place_bet(player, pos, "banker", Decimal(stake))
>>> squeeze_order(r, Side.BANKER)
['bob', 'cat', 'ann']
>>> r.close_betting()
>>> pass_cards(r, Side.BANKER), refuse_cards(r, Side.BANKER, "bob"), pass_cards(r, Side.BANKER)
('bob', None, 'cat')
>>> summary(r)["squeezers"]
{'player': None, 'banker': 'cat'}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from punto.errors import ActionError, PhaseError, can
from punto.rules.coup import Side
from punto.rules.game import Game
from punto.table.events import (
    CardsPassed,
    CardsRefused,
    DeviceLost,
    DeviceRelinquished,
    DeviceTaken,
    DrawAllowed,
    HandlingEvent,
    Method,
    MethodChosen,
)
from punto.table.roles import Role
from punto.table.round import Phase, Round

__all__ = [
    "DEFAULT_METHOD",
    "Handling",
    "Method",
    "allow_draw",
    "can_allow_draw",
    "can_choose_method",
    "can_choose_squeezer",
    "can_lose_device",
    "can_pass_cards",
    "can_refuse_cards",
    "can_relinquish_device",
    "can_take_device",
    "carry_over",
    "check_allow_draw",
    "check_choice",
    "check_choose_method",
    "check_choose_squeezer",
    "check_lose_device",
    "check_pass_cards",
    "check_refuse_cards",
    "check_relinquish_device",
    "check_take_device",
    "choose_method",
    "choose_squeezer",
    "describe",
    "describe_round",
    "device_holder",
    "end_of_round",
    "hand_named",
    "handling",
    "lose_device",
    "method_named",
    "method_of",
    "pass_cards",
    "refuse_cards",
    "relinquish_device",
    "rule",
    "squeeze_order",
    "squeezer",
    "summary",
    "take_device",
    "wager_lost",
]

#: The Method of a round whose table never chose one (docs/interpretations.md).
DEFAULT_METHOD = Method.A

#: Phases in which a hand's cards are out to be squeezed: after 'No more bets'.
_SQUEEZING = (Phase.DEALING, Phase.RESULT)
#: Phases in which the device changes hands: between deals.
_BETWEEN_DEALS = (Phase.NEW, Phase.BETTING, Phase.SETTLED, Phase.VOID)


@dataclass
class Handling:
    """Who handles the cards in one round, folded from its events."""

    #: None: the game's rules describe no Methods
    method: Method | None
    chosen: MethodChosen | None = None
    #: who has each hand's cards now (None: the Dealer)
    holders: dict[Side, str | None] = field(default_factory=lambda: dict.fromkeys(Side))
    #: who refused each hand's cards, in order
    refused: dict[Side, list[str]] = field(default_factory=lambda: {s: [] for s in Side})
    device: str | None = None
    #: players an Assistant Casino Manager allowed to draw without a wager (3.12.2)
    allowed: set[str] = field(default_factory=set)


def handling(round_: Round) -> Handling:
    """The card handling of ``round_`` so far, from its events."""
    state = Handling(DEFAULT_METHOD if round_.game.clause("methods") else None)
    for event in round_.events:
        if not isinstance(event, HandlingEvent):
            continue
        match event:
            case MethodChosen(method=method):
                state.method, state.chosen = method, event
            case CardsPassed(side=side, player=player):
                state.holders[side] = player
            case CardsRefused(side=side, player=player):
                state.holders[side] = None
                state.refused[side].append(player)
            case DrawAllowed(player=player):
                state.allowed.add(player)
            case DeviceTaken(player=player):
                state.device = player
            case DeviceRelinquished() | DeviceLost():
                state.device = None
    return state


def method_of(round_: Round) -> Method | None:
    """The Method ``round_`` is conducted by; None where the rules have none."""
    return handling(round_).method


def device_holder(round_: Round) -> str | None:
    """Method C: who controls the dealing device in ``round_`` now."""
    return handling(round_).device


def rule(game: Game, key: str) -> str:
    """The clause of ``game`` for a card-handling procedure; refused where
    the game's rules describe no Methods."""
    clause = game.clause(key)
    if clause is None:
        raise ActionError(
            f"the {game.title} rules describe no Methods A, B and C of card handling",
            hint="the Dealer deals; nothing is recorded of who handles the cards",
        )
    return clause


def _clause(round_: Round, key: str) -> str:
    return rule(round_.game, key)


def _check_method(round_: Round, wanted: Method, what: str, clause_key: str) -> Method:
    """Refuse ``what`` unless ``round_`` is conducted by ``wanted``."""
    _clause(round_, "methods")
    method = method_of(round_)
    assert method is not None
    if method is not wanted:
        raise ActionError(
            f"{what} only by Method {wanted.value}; this round is conducted by "
            f"Method {method.value}",
            clause=_clause(round_, clause_key),
            hint=_method_hint(round_, wanted),
        )
    return method


def _method_hint(round_: Round, wanted: Method) -> str:
    choice = _clause(round_, "method_choice")
    if wanted is Method.C:
        return f"an Assistant Casino Manager may allow Method C at an HLGA table ({choice})"
    return f"the Pit Manager chooses Method A or B before the round commences ({choice})"


def hand_named(text: str) -> Side:
    """The hand called ``text`` ("player" or "banker")."""
    try:
        return Side(text.strip().lower())
    except ValueError:
        raise ActionError(f"there is no {text!r} hand", hint="player or banker") from None


def method_named(text: str) -> Method:
    """The Method called ``text`` ("A", "B" or "C")."""
    try:
        return Method(text.strip().upper())
    except ValueError:
        raise ActionError(f"there is no Method {text!r}", hint="A, B or C (3.9)") from None


# -- the Method (3.9.2) -------------------------------------------------------------------


def check_choice(game: Game, method: Method, role: Role, *, hlga: bool) -> str:
    """Who may choose ``method``, and where (3.9.2); its clause."""
    clause = rule(game, "method_choice")
    if method is Method.C:
        if not hlga:
            raise ActionError(
                "Method C is permitted only within HLGA",
                clause=clause,
                hint="use Method A or B, or run the table as an HLGA table",
            )
        role.check_acts_as(Role.ASSISTANT_CASINO_MANAGER, "allow Method C", clause)
    else:
        role.check_acts_as(Role.PIT_MANAGER, f"choose Method {method.value}", clause)
    return clause


def check_choose_method(round_: Round, method: Method, role: Role, *, hlga: bool = False) -> None:
    """The Method of a round is chosen before it commences (3.9.2): recorded
    at 'Place your bets', before any wager or card."""
    clause = check_choice(round_.game, method, role, hlga=hlga)
    if round_.phase is not Phase.BETTING or round_.bets or round_.deal.cards:
        raise PhaseError(
            "the Method may be changed only before a round of play commences",
            clause=clause,
            hint="choose it before the next round (first, before any bet)",
        )
    if handling(round_).device is not None:
        raise PhaseError("the Method is chosen before the device changes hands", clause=clause)


def can_choose_method(round_: Round, method: Method, role: Role, *, hlga: bool = False) -> bool:
    return can(lambda: check_choose_method(round_, method, role, hlga=hlga))


def choose_method(round_: Round, method: Method, role: Role, *, hlga: bool = False) -> None:
    """Record the Method ``round_`` is conducted by and who chose it (3.9.2)."""
    check_choose_method(round_, method, role, hlga=hlga)
    clause = _clause(round_, "method_choice")
    round_.record_handling(MethodChosen(method, role, clause, hlga))


# -- Method A: who squeezes (3.10.2-3.10.5) -------------------------------------------------


def _positions(round_: Round) -> tuple[int, int]:
    """The table's playing positions, lowest and highest (as Round checks them)."""
    game = round_.game
    if round_.layout is None:
        return 1, max(layout.positions[1] for layout in game.layouts.values())
    return game.layouts[round_.layout].positions


def _standing(
    round_: Round, side: Side
) -> tuple[dict[str, Decimal], dict[str, int], dict[str, int]]:
    """Each player's total on ``side``'s wager, when they placed the bet that
    made it that total, and their position."""
    totals: dict[str, Decimal] = defaultdict(Decimal)
    placed: dict[str, int] = {}
    seat: dict[str, int] = {}
    for bet in sorted(round_.active_bets, key=lambda b: b.order):
        if bet.wager == side.value and bet.moment is None:
            totals[bet.player] += bet.stake
            placed[bet.player] = bet.order
            seat.setdefault(bet.player, bet.position)
    return dict(totals), placed, seat


def squeeze_order(round_: Round, side: Side) -> list[str]:
    """The players to offer ``side``'s cards to, in turn (3.10.2-3.10.5).

    Highest total wagered on the hand first; among equal highest, the one who
    placed it first, then counter-clockwise from that player (positions are
    numbered counter-clockwise, the lowest following the highest)."""
    totals, placed, seat = _standing(round_, side)
    low, high = _positions(round_)
    count = high - low + 1
    order: list[str] = []
    for amount in sorted(set(totals.values()), reverse=True):
        tied = [p for p in totals if totals[p] == amount]
        start = seat[min(tied, key=lambda p: placed[p])]
        tied.sort(key=lambda p: ((seat[p] - start) % count, placed[p]))
        order.extend(tied)
    return order


def squeezer(round_: Round, side: Side, *, refused: Collection[str] = ()) -> str | None:
    """Who receives ``side``'s cards now, given who has refused; None when
    nobody is left: the Pit Supervisor decides (3.10.4.1), or the Dealer
    exposes the cards."""
    return next((p for p in squeeze_order(round_, side) if p not in refused), None)


def _passing_clause(round_: Round, side: Side, player: str, state: Handling) -> str:
    """The clause that sends ``side``'s cards to ``player`` now."""
    totals, _, _ = _standing(round_, side)
    refused = state.refused[side]
    if not refused:
        tied = [p for p in totals if totals[p] == totals[player]]
        return _clause(round_, "squeeze_first_placed" if len(tied) > 1 else "squeeze_highest")
    last = refused[-1]
    if last in totals and totals[last] == totals[player]:
        return _clause(round_, "squeeze_counter_clockwise")
    return _clause(round_, "squeeze_next_highest")


def _check_squeezing(round_: Round, side: Side, what: str) -> Handling:
    state = handling(round_)
    if state.method is Method.B:
        raise ActionError(
            f"players do not handle the cards by Method B: {what}",
            clause=_clause(round_, "dealer_keeps_cards"),
            hint="the Dealer keeps the cards for both hands",
        )
    _check_method(round_, Method.A, what, "squeeze_highest")
    if round_.phase not in _SQUEEZING:
        raise PhaseError(
            "the cards are passed to squeeze after 'No more bets' and before settlement",
            clause=_clause(round_, "squeeze_highest"),
        )
    return state


def check_pass_cards(round_: Round, side: Side, role: Role = Role.DEALER) -> str:
    """Who the Dealer passes ``side``'s cards to now (3.10.2-3.10.5)."""
    clause = _clause(round_, "squeeze_highest")
    role.check_acts_as(Role.DEALER, "pass the cards", clause)
    state = _check_squeezing(round_, side, "passing the cards to the highest bettor")
    holder = state.holders[side]
    if holder is not None:
        raise ActionError(
            f"{holder} has the {side.value} hand's cards",
            clause=clause,
            hint="they pass on only if that player refuses them",
        )
    player = squeezer(round_, side, refused=state.refused[side])
    if player is None:
        nobody = "everyone who wagered on it refused" if state.refused[side] else "nobody wagered"
        raise ActionError(
            f"no player is left to take the {side.value} hand's cards: {nobody}",
            clause=_clause(round_, "squeeze_discretion"),
            hint="the Pit Supervisor chooses who handles them (choose_squeezer), "
            "or the Dealer exposes them",
        )
    return player


def can_pass_cards(round_: Round, side: Side, role: Role = Role.DEALER) -> bool:
    return can(lambda: check_pass_cards(round_, side, role))


def pass_cards(round_: Round, side: Side, role: Role = Role.DEALER) -> str:
    """Pass ``side``'s cards face down to the player the rules name; who it is."""
    player = check_pass_cards(round_, side, role)
    clause = _passing_clause(round_, side, player, handling(round_))
    round_.record_handling(CardsPassed(side, player, clause, role))
    return player


def check_refuse_cards(round_: Round, side: Side, player: str) -> None:
    clause = _clause(round_, "squeeze_next_highest")
    state = _check_squeezing(round_, side, "refusing the cards")
    if state.holders[side] != player:
        raise ActionError(
            f"{player} does not have the {side.value} hand's cards",
            clause=clause,
            hint=f"they are with {state.holders[side] or 'the Dealer'}",
        )


def can_refuse_cards(round_: Round, side: Side, player: str) -> bool:
    return can(lambda: check_refuse_cards(round_, side, player))


def refuse_cards(round_: Round, side: Side, player: str, role: Role = Role.PLAYER) -> None:
    """``player`` refuses ``side``'s cards: the Dealer passes them on
    (3.10.3; among equal highest, counter-clockwise, 3.10.5)."""
    check_refuse_cards(round_, side, player)
    totals, _, _ = _standing(round_, side)
    tied = [p for p in totals if p != player and totals.get(player) == totals[p]]
    key = "squeeze_counter_clockwise" if tied else "squeeze_next_highest"
    round_.record_handling(CardsRefused(side, player, _clause(round_, key), role))


def check_choose_squeezer(
    round_: Round, side: Side, player: str, role: Role = Role.PIT_SUPERVISOR
) -> str:
    """The clause under which ``role`` may give ``side``'s cards to ``player``:
    the Pit Supervisor's discretion when the order cannot be met (3.10.4.1),
    otherwise a Pit Manager's (3.21; Dragon Tiger 3.16)."""
    state = _check_squeezing(round_, side, "choosing who squeezes")
    if squeezer(round_, side, refused=state.refused[side]) is None:
        clause = _clause(round_, "squeeze_discretion")
        role.check_acts_as(Role.PIT_SUPERVISOR, "choose who handles the cards", clause)
    else:
        clause = _clause(round_, "squeeze_any")
        role.check_acts_as(
            Role.PIT_MANAGER,
            f"give the cards to {player} while the amounts wagered name who squeezes",
            clause,
        )
    if state.holders[side] == player:
        raise ActionError(f"{player} has the {side.value} hand's cards already", clause=clause)
    return clause


def can_choose_squeezer(
    round_: Round, side: Side, player: str, role: Role = Role.PIT_SUPERVISOR
) -> bool:
    return can(lambda: check_choose_squeezer(round_, side, player, role))


def choose_squeezer(
    round_: Round, side: Side, player: str, role: Role = Role.PIT_SUPERVISOR
) -> None:
    """A Pit Supervisor (3.10.4.1) or Pit Manager (3.21 / 3.16) gives
    ``side``'s cards to ``player``."""
    clause = check_choose_squeezer(round_, side, player, role)
    round_.record_handling(CardsPassed(side, player, clause, role))


# -- Method C: the dealing device (3.12) ----------------------------------------------------


def _check_device(round_: Round, what: str) -> Handling:
    state = handling(round_)
    if state.method in (Method.A, Method.B):
        raise ActionError(
            f"the Dealer keeps control of the dealing device by Method {state.method.value}: "
            f"{what}",
            clause=_clause(round_, "dealer_keeps_device"),
            hint=_method_hint(round_, Method.C),
        )
    _check_method(round_, Method.C, what, "device_draw")
    return state


def _check_between_deals(round_: Round, clause: str) -> None:
    if round_.phase not in _BETWEEN_DEALS:
        raise PhaseError(
            "the dealing device changes hands between rounds, not while the cards are dealt",
            clause=clause,
        )


def check_allow_draw(
    round_: Round, player: str, role: Role = Role.ASSISTANT_CASINO_MANAGER
) -> None:
    clause = _clause(round_, "draw_without_wager")
    role.check_acts_as(
        Role.ASSISTANT_CASINO_MANAGER, "let a player draw without a valid wager", clause
    )
    _check_device(round_, "letting a player draw without a wager")
    if round_.phase is not Phase.BETTING:
        raise PhaseError("a player is allowed to draw before the cards are dealt", clause=clause)


def can_allow_draw(round_: Round, player: str, role: Role = Role.ASSISTANT_CASINO_MANAGER) -> bool:
    return can(lambda: check_allow_draw(round_, player, role))


def allow_draw(round_: Round, player: str, role: Role = Role.ASSISTANT_CASINO_MANAGER) -> None:
    """An Assistant Casino Manager lets ``player`` draw from the device
    without having placed a valid wager (3.12.2)."""
    check_allow_draw(round_, player, role)
    round_.record_handling(DrawAllowed(player, _clause(round_, "draw_without_wager"), role))


def check_take_device(round_: Round, player: str) -> None:
    clause = _clause(round_, "device_control")
    state = _check_device(round_, f"{player} may not take the dealing device")
    if state.device is not None:
        raise ActionError(
            f"{state.device} controls the dealing device",
            clause=clause,
            hint="it passes when they relinquish it or their wager loses",
        )
    if round_.phase is not Phase.BETTING:
        raise PhaseError(
            "the dealing device is accepted before the cards are dealt",
            clause=clause,
            hint="take it in the next round, before 'No more bets'",
        )
    if player not in state.allowed and not any(b.player == player for b in round_.active_bets):
        raise ActionError(
            f"{player} has no wager this round",
            clause=_clause(round_, "draw_without_wager"),
            hint="an Assistant Casino Manager may allow a player to draw without a wager "
            "(allow_draw)",
        )


def can_take_device(round_: Round, player: str) -> bool:
    return can(lambda: check_take_device(round_, player))


def take_device(round_: Round, player: str, role: Role = Role.PLAYER) -> None:
    """``player`` accepts the dealing device and draws the cards (3.12.1)."""
    check_take_device(round_, player)
    round_.record_handling(DeviceTaken(player, _clause(round_, "device_draw"), role))


def check_relinquish_device(round_: Round, player: str) -> None:
    clause = _clause(round_, "device_relinquished")
    state = _check_device(round_, "relinquishing the dealing device")
    if state.device != player:
        raise ActionError(
            f"{player} does not control the dealing device",
            clause=clause,
            hint=f"{state.device} does" if state.device else "nobody does",
        )
    _check_between_deals(round_, clause)


def can_relinquish_device(round_: Round, player: str) -> bool:
    return can(lambda: check_relinquish_device(round_, player))


def relinquish_device(round_: Round, player: str, role: Role = Role.PLAYER) -> None:
    """The holder gives up control of the device (3.12.8.1)."""
    check_relinquish_device(round_, player)
    round_.record_handling(DeviceRelinquished(player, _clause(round_, "device_relinquished"), role))


def wager_lost(round_: Round, player: str) -> bool:
    """Whether ``player``'s wager lost in the settled ``round_`` (3.12.8.2): their
    Player or Banker wager; with neither, any wager of theirs
    (docs/interpretations.md)."""
    if round_.phase is not Phase.SETTLED:
        return False
    results = [s for s in round_.results() if s.bet.player == player]
    hand = [s for s in results if s.bet.wager in ("player", "banker") and s.bet.moment is None]
    return any(s.outcome == "lose" for s in (hand or results))


def check_lose_device(round_: Round) -> str:
    """Who loses control of the device at the end of ``round_`` (3.12.8.2)."""
    clause = _clause(round_, "device_lost")
    state = _check_device(round_, "losing control of the dealing device")
    if state.device is None:
        raise ActionError("nobody controls the dealing device", clause=clause)
    if round_.phase is not Phase.SETTLED:
        raise PhaseError("control is lost when the round is settled", clause=clause)
    if not wager_lost(round_, state.device):
        raise ActionError(
            f"{state.device}'s wager did not lose: they keep control of the device",
            clause=clause,
            hint="they keep it until they relinquish it (relinquish_device) or their wager loses",
        )
    return state.device


def can_lose_device(round_: Round) -> bool:
    return can(lambda: check_lose_device(round_))


def lose_device(round_: Round, role: Role = Role.DEALER) -> str:
    """The holder's wager lost in the settled ``round_``: control of the
    device ends (3.12.8.2).  Returns who lost it."""
    holder = check_lose_device(round_)
    round_.record_handling(DeviceLost(holder, _clause(round_, "device_lost"), role))
    return holder


def end_of_round(round_: Round) -> str | None:
    """What a table does once ``round_`` is over, before the next opens:
    record the holder losing control if their wager lost (3.12.8.2).
    Returns who lost it (None: nobody did, or nothing to lose)."""
    if round_.game.clause("methods") is None or not can_lose_device(round_):
        return None
    return lose_device(round_)


def carry_over(previous: Round | None, round_: Round, chosen: MethodChosen | None) -> None:
    """Open ``round_`` at a table under its Method: record the table's choice
    (``chosen``, if it made one) and, by Method C, the holder of the device
    keeping control from ``previous`` (3.12.8) -- unless their wager lost
    there, which :func:`end_of_round` records in ``previous`` first."""
    if round_.game.clause("methods") is None:
        return
    if chosen is not None:
        round_.record_handling(chosen)
    if previous is None or method_of(round_) is not Method.C:
        return  # by Method A or B the Dealer keeps the device (3.9.1)
    holder = device_holder(previous)
    if holder is not None:
        round_.record_handling(DeviceTaken(holder, _clause(round_, "device_control")))


# -- the audit ---------------------------------------------------------------------------


def summary(round_: Round) -> dict[str, Any]:
    """Who had which cards: the Method, each hand's squeezer (None: the
    Dealer), its cards, and the holder of the device (JSON)."""
    state = handling(round_)
    deal = round_.deal
    cards = {Side.PLAYER: deal.player.cards, Side.BANKER: deal.banker.cards}
    return {
        "method": state.method.value if state.method else None,
        "chosen_by": state.chosen.role.value if state.chosen else None,
        "squeezers": {side.value: state.holders[side] for side in Side},
        "cards": {side.value: [str(c) for c in cards[side]] for side in Side},
        "refused": {side.value: list(state.refused[side]) for side in Side},
        "device": state.device,
    }


def describe(event: HandlingEvent) -> str:
    """One line saying what a card-handling event records."""
    match event:
        case MethodChosen(method=method, role=role, clause=clause):
            return f"Method {method.value}, chosen by the {role.words} ({clause})"
        case CardsPassed(side=side, player=player, clause=clause, role=role):
            by = "" if role is Role.DEALER else f" by the {role.words}"
            return f"the {side.value} hand's cards passed to {player}{by} ({clause})"
        case CardsRefused(side=side, player=player, clause=clause):
            return f"{player} refuses the {side.value} hand's cards ({clause})"
        case DrawAllowed(player=player, clause=clause, role=role):
            return f"{player} may draw without a wager, allowed by the {role.words} ({clause})"
        case DeviceTaken(player=player, clause=clause):
            return f"{player} controls the dealing device ({clause})"
        case DeviceRelinquished(player=player, clause=clause):
            return f"{player} relinquishes the dealing device ({clause})"
        case DeviceLost(player=player, clause=clause):
            return f"{player}'s wager lost: the device returns to the Dealer ({clause})"
    return event.type


def describe_round(round_: Round) -> str | None:
    """Who handles the cards in ``round_``, in a line; None where the rules
    have no Methods."""
    state = handling(round_)
    if state.method is None:
        return None
    parts = [f"Method {state.method.value}"]
    if state.method is Method.A:
        for side in Side:
            holder = state.holders[side]
            if holder is not None:
                parts.append(f"{side.value}: {holder} squeezes")
    if state.method is Method.C:
        parts.append(f"device: {state.device or 'the Dealer'}")
    return " · ".join(parts)
