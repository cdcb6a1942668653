"""The actions a replay file, the dealer console and the server's pit may take,
by name: each with its parameters, its acting role and what it does to a
round or a shoe; and reading one from JSON (:mod:`punto.table.replay`
exports every public name here).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from punto.errors import ActionError, LimitError, PhaseError, PuntoError
from punto.inputs import InputError, quoted, read_name
from punto.rules.cards import Card
from punto.rules.coup import Side
from punto.rules.game import Game
from punto.rules.insurance import Moment
from punto.table import claims, handling, irregularities
from punto.table.bet_limits import check_limit_wagers
from punto.table.events import RulingClaimed
from punto.table.irregularities import Ruling
from punto.table.limits import TableLimits
from punto.table.params import (
    KIND_HELP,
    ActionInputError,
    Param,
    read_flag,
    read_position,
)
from punto.table.roles import Role
from punto.table.round import Round


class ReplayError(PuntoError):
    """The first action of a replay that could not be read or was refused.

    ``index`` is the action's place in ``actions`` (from 0; None for the
    file's header), ``action`` its name and ``error`` the typed error (for
    programs: the message, for people, says what was wrong in words alone).
    """

    def __init__(self, index: int | None, action: str | None, error: PuntoError) -> None:
        self.index = index
        self.action = action
        self.error = error
        where = "replay file" if index is None else f"actions[{index}]"
        if action:
            where += f" ({action})"
        verb = "cannot be read" if isinstance(error, InputError) else "refused"
        super().__init__(
            f"{where} {verb}: {error.message}",
            clause=error.clause,
            hint=error.hint,
        )


#: What an action does to a round, given its parameters read.
RunFn = Callable[[Round, Mapping[str, Any]], Any]


@dataclass(frozen=True)
class ActionSpec:
    """One action a replay file (or the dealer console) may take."""

    name: str
    summary: str
    params: tuple[Param, ...]
    run: RunFn | None = None  # None: taken by the table, not a round (``open``)
    irregularity: bool = False
    #: the parameters a console command takes without ``name=``, in order
    positional: tuple[str, ...] = ()

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def role(self) -> Role:
        """Who takes the action unless the file says otherwise."""
        param = self.param("role")
        assert param is not None
        return typing.cast(Role, param.default)


def _role(default: Role, *, required: bool = False) -> Param:
    return Param("role", "role", required=required, default=default)


def _run_bet(r: Round, a: Mapping[str, Any]) -> str:
    return r.place_bet(
        a["player"],
        a["position"],
        a["wager"],
        a["stake"],
        seated=a["seated"],
        enforce_limits=a["enforce_limits"],
        role=a["role"],
        bet_id=a["bet_id"],
    )


def _run_withdraw(r: Round, a: Mapping[str, Any]) -> list[str]:
    if a["bet_id"] is not None:
        ids = [a["bet_id"]]
    else:
        if a["player"] is None:
            raise ActionInputError("say which bet: bet_id, or player (and wager)")
        ids = [
            b.bet_id
            for b in r.active_bets
            if b.player == a["player"] and a["wager"] in (None, b.wager)
        ]
        if not ids:
            what = f" on {a['wager']}" if a["wager"] else ""
            raise ActionError(f"{a['player']} has no bet{what} to withdraw")

    def withdraw(target: Round) -> None:
        for bet_id in ids:
            target.withdraw_bet(bet_id, a["role"])

    _atomically(r, withdraw)
    return ids


def _run_cards(r: Round, a: Mapping[str, Any]) -> None:
    cards: tuple[Card, ...] = a["cards"] or ()
    if a["card"] is not None:
        cards = (a["card"], *cards)
    if not cards:
        raise ActionInputError("which card?", hint='give "card": "QH" or "cards": "QH 9C"')

    def deal(target: Round) -> None:
        for card in cards:
            target.deal_card(card, a["source"])

    _atomically(r, deal)


def _atomically(r: Round, steps: Callable[[Round], None]) -> None:
    """Several events, all or none: tried on a copy first."""
    steps(r.fork())
    steps(r)


_P = Param


#: The actions on a round, other than irregularities.
ROUND_ACTIONS: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "open",
            "'Place your bets, please': a new round opens",
            (_role(Role.DEALER),),
        ),
        ActionSpec(
            "bet",
            "a bet placed by a player at a playing position (or on their behalf: role)",
            (
                _P("player", "name"),
                _P("position", "position"),
                _P("wager", "text", required=True),
                _P("stake", "stake", required=True),
                _P("seated", "flag"),
                _P("enforce_limits", "flag", default=True),
                _role(Role.PLAYER),
                _P("bet_id", "bet_id"),
            ),
            _run_bet,
            positional=("player", "position", "wager", "stake"),
        ),
        ActionSpec(
            "withdraw",
            "a bet taken back before 'No more bets' (by bet_id, or all of a player's on a wager)",
            (
                _P("bet_id", "bet_id"),
                _P("player", "name"),
                _P("wager", "text"),
                _role(Role.PLAYER),
            ),
            _run_withdraw,
            positional=("bet_id",),
        ),
        ActionSpec(
            "reduce",
            "a bet decreased to meet the differential, or removed (stake 0) by a Pit Manager",
            (
                _P("bet_id", "bet_id", required=True),
                _P("stake", "amount", required=True),
                _role(Role.PLAYER),
            ),
            lambda r, a: r.reduce_bet(a["bet_id"], a["stake"], a["role"]),
            positional=("bet_id", "stake"),
        ),
        ActionSpec(
            "reject_excess",
            "the excess over the differential rejected, standing players first (RWS 5.1)",
            (_role(Role.DEALER),),
            lambda r, a: r.reject_excess(a["role"]),
        ),
        ActionSpec(
            "no_more_bets",
            "'No more bets' (differential_noticed false: an excess nobody noticed)",
            (_P("differential_noticed", "flag", default=True), _role(Role.DEALER)),
            lambda r, a: r.close_betting(a["role"], differential_noticed=a["differential_noticed"]),
        ),
        ActionSpec(
            "card",
            "the next card(s), each to the hand the Table of Play gives it",
            (_P("card", "card?"), _P("cards", "cards?"), _P("source", "source", default="shoe")),
            _run_cards,
            positional=("cards",),
        ),
        ActionSpec(
            "insurance",
            "an Insurance Plus bet on the open offer (moment: a neglected offer made again)",
            (
                _P("player", "name", required=True),
                _P("wager", "text", required=True),
                _P("stake", "stake", required=True),
                _P("moment", "moment?"),
                _role(Role.PLAYER),
                _P("bet_id", "bet_id"),
            ),
            lambda r, a: r.place_insurance(
                a["player"],
                a["wager"],
                a["stake"],
                moment=a["moment"],
                role=a["role"],
                bet_id=a["bet_id"],
            ),
            positional=("player", "wager", "stake"),
        ),
        ActionSpec(
            "offer_withdrawal",
            "every player given the option to withdraw their wagers still undecided, under a "
            "clause of the game's [grants]",
            (
                _P("clause", "text", required=True),
                _P("reason", "text", required=True),
                _role(Role.DEALER),
            ),
            lambda r, a: r.offer_withdrawal(a["clause"], a["reason"], a["role"]),
        ),
        ActionSpec(
            "withdraw_player",
            "a player takes the withdrawal option open: their wagers still undecided are returned",
            (_P("player", "name", required=True), _role(Role.PLAYER)),
            lambda r, a: r.withdraw_player(a["player"], a["role"]),
            positional=("player",),
        ),
        ActionSpec(
            "close_withdrawal",
            "the withdrawal option is over; the others play on",
            (_role(Role.DEALER),),
            lambda r, a: r.close_withdrawal(a["role"]),
        ),
        ActionSpec(
            "settle",
            "the outcome announced; every bet collected or paid",
            (_role(Role.DEALER),),
            lambda r, a: r.settle(a["role"]),
        ),
    )
}


#: Parameter kinds of the irregularity procedures, by type hint.
_HINT_KINDS: dict[object, str] = {
    str: "text",
    str | None: "text?",
    int: "int",
    bool: "flag",
    Role: "role",
    Card | None: "card?",
    Sequence[Card]: "cards",
    Sequence[Card] | None: "cards?",
    Sequence[Card | None]: "cards_with_gaps",
    Iterable[str]: "players",
    Sequence[str] | None: "players?",
    Moment | None: "moment?",
    Mapping[str, Side] | None: "sides?",
}


def _irregularity(name: str) -> ActionSpec:
    procedure = getattr(irregularities, name)
    hints = typing.get_type_hints(procedure)
    params = []
    for p in list(inspect.signature(procedure).parameters.values())[1:]:
        kind = "shoe" if p.name == "shoe" else _HINT_KINDS[hints[p.name]]
        if p.name == "role":
            # an audit says who acted: the role is always given
            params.append(_role(p.default, required=True))
            continue
        required = p.default is inspect.Parameter.empty
        default = None if required else p.default
        params.append(Param(p.name, kind, required=required, default=default))

    def run(r: Round, a: Mapping[str, Any]) -> Ruling:
        ruling: Ruling = procedure(r, **a)
        return ruling

    doc = inspect.getdoc(procedure) or name
    summary = " ".join(doc.split("\n\n")[0].replace("``", "").split())
    return ActionSpec(name, summary, tuple(params), run, irregularity=True)


#: Every irregularity procedure of :mod:`punto.table.irregularities`, by name.
IRREGULARITIES: dict[str, ActionSpec] = {
    name: _irregularity(name)
    for name in irregularities.__all__
    if name not in ("NotCoveredError", "Ruling", "missing_cards")
}


def procedure_for(name: str, parameters: Mapping[str, Any]) -> claims.Procedure:
    """The irregularity procedure ``name`` with ``parameters`` (JSON values,
    as a claim was filed), to be run on a round in a position
    (:mod:`punto.table.claims`); its parameters are read now, so a claim that
    cannot be read is refused when it is filed."""
    spec = IRREGULARITIES.get(name)
    if spec is None:
        raise ActionInputError(
            f"no irregularity procedure {quoted(name)}",
            hint=f"procedures: {', '.join(IRREGULARITIES)}",
        )
    for key in ("action", "role"):
        if key in parameters:
            raise ActionInputError(
                f"a claim's parameters take no {key}",
                hint="the procedure is named in procedure, the position is the confirming person's",
            )
    _, args = read_action({**parameters, "action": name, "role": Role.DEALER.value})
    run = spec.run
    assert run is not None

    def ruled(r: Round, role: Role) -> Ruling:
        ruling: Ruling = run(r, {**args, "role": role})
        return ruling

    return ruled


def _run_claim(r: Round, a: Mapping[str, Any]) -> RulingClaimed:
    run = procedure_for(a["procedure"], a["parameters"])
    return claims.file_claim(r, a["procedure"], a["parameters"], run, by=a["by"], role=a["role"])


def run_confirm(r: Round, a: Mapping[str, Any]) -> Ruling:
    """Confirm the claim pending in ``r`` (``by``, ``role``): its procedure
    with its parameters as filed."""
    claim = r.pending_claim
    if claim is None:
        raise PhaseError(f"no ruling is pending in round {r.round_id or 'in play'}")
    run = procedure_for(claim.procedure, claims.parameters_of(claim))
    return claims.confirm_claim(r, run, by=a["by"], role=a["role"])


#: A ruling that moves money after "No more bets", filed by one person and
#: confirmed or rejected by another (MBS 6.2; :mod:`punto.table.claims`).
CLAIMS: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "claim",
            "a ruling that moves money filed by one person (by) for another to confirm: "
            "procedure and its parameters as an irregularity takes them (MBS 6.2)",
            (
                _P("procedure", "name", required=True),
                _P("parameters", "parameters", default={}),
                _P("by", "name", required=True),
                _role(Role.DEALER),
            ),
            _run_claim,
            positional=("procedure",),
        ),
        ActionSpec(
            "confirm",
            "the pending claim confirmed by a second person (by), a Pit Supervisor or the "
            "position its clause names, or above: its procedure is applied",
            (_P("by", "name", required=True), _role(Role.PIT_SUPERVISOR, required=True)),
            run_confirm,
            positional=("by",),
        ),
        ActionSpec(
            "reject_claim",
            "the pending claim rejected by a person who may confirm it, or withdrawn by the "
            "person who filed it: nothing moves",
            (
                _P("by", "name", required=True),
                _P("reason", "text", required=True),
                _role(Role.PIT_SUPERVISOR, required=True),
            ),
            lambda r, a: claims.reject_claim(r, by=a["by"], role=a["role"], reason=a["reason"]),
            positional=("by", "reason"),
        ),
    )
}


#: Card handling, MBS 3.9-3.12 (:mod:`punto.table.handling`): the Method,
#: who squeezes which hand, who holds the dealing device.
HANDLING: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "method",
            "the Method the round is conducted by, first in the round (3.9.2: A or B by a Pit "
            "Manager; C by an Assistant Casino Manager, hlga true)",
            (
                _P("method", "text", required=True),
                _P("hlga", "flag", default=False),
                _role(Role.PIT_MANAGER, required=True),
            ),
            lambda r, a: handling.choose_method(
                r, handling.method_named(a["method"]), a["role"], hlga=a["hlga"]
            ),
            positional=("method",),
        ),
        ActionSpec(
            "pass_cards",
            "Method A: a hand's cards passed to the player the amounts wagered name (3.10.2-3.10.5)",
            (_P("hand", "text", required=True), _role(Role.DEALER)),
            lambda r, a: handling.pass_cards(r, handling.hand_named(a["hand"]), a["role"]),
            positional=("hand",),
        ),
        ActionSpec(
            "refuse_cards",
            "Method A: the player passed a hand's cards refuses them (3.10.3, 3.10.5)",
            (
                _P("player", "text", required=True),
                _P("hand", "text", required=True),
                _role(Role.PLAYER),
            ),
            lambda r, a: handling.refuse_cards(
                r, handling.hand_named(a["hand"]), a["player"], a["role"]
            ),
            positional=("player", "hand"),
        ),
        ActionSpec(
            "choose_squeezer",
            "Method A: a Pit Supervisor (3.10.4.1) or Pit Manager (3.21; Dragon Tiger 3.16) "
            "gives a hand's cards to a player",
            (
                _P("hand", "text", required=True),
                _P("player", "text", required=True),
                _role(Role.PIT_SUPERVISOR, required=True),
            ),
            lambda r, a: handling.choose_squeezer(
                r, handling.hand_named(a["hand"]), a["player"], a["role"]
            ),
            positional=("hand", "player"),
        ),
        ActionSpec(
            "allow_draw",
            "Method C: an Assistant Casino Manager lets a player draw without a valid wager (3.12.2)",
            (
                _P("player", "text", required=True),
                _role(Role.ASSISTANT_CASINO_MANAGER, required=True),
            ),
            lambda r, a: handling.allow_draw(r, a["player"], a["role"]),
            positional=("player",),
        ),
        ActionSpec(
            "take_device",
            "Method C: a player accepts the dealing device (3.12.1, 3.12.8)",
            (_P("player", "text", required=True), _role(Role.PLAYER)),
            lambda r, a: handling.take_device(r, a["player"], a["role"]),
            positional=("player",),
        ),
        ActionSpec(
            "relinquish_device",
            "Method C: the holder gives up control of the dealing device (3.12.8.1)",
            (_P("player", "text", required=True), _role(Role.PLAYER)),
            lambda r, a: handling.relinquish_device(r, a["player"], a["role"]),
            positional=("player",),
        ),
        ActionSpec(
            "device_lost",
            "Method C: the holder's wager lost; control of the device ends (3.12.8.2)",
            (_role(Role.DEALER),),
            lambda r, a: handling.lose_device(r, a["role"]),
        ),
    )
}


def _shoe_params() -> tuple[Param, ...]:
    return (
        _P("decks", "int"),
        _P("cards", "cards?"),
        _P("seed", "text"),
        _P("cut_card", "int"),
    )


#: The actions on the table's shoe (taken by the table, not a round): a replay
#: that declares its shoes is checked card by card against them, as a live
#: table checks its own (:class:`punto.table.shoe_state.ShoeState`).
SHOE_ACTIONS: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "new_shoe",
            "a new shoe of decks (cards: its order, if recorded; seed: shuffled from it); "
            "cut_card: the cards in front of the cutting card",
            (*_shoe_params(), _role(Role.DEALER)),
            positional=("decks",),
        ),
        ActionSpec(
            "replace_shoe",
            "the cards replaced mid-shoe under the clause that allows it "
            "(MBS 5.11.5, 5.12.2, 5.13; RWS 5.11.2, mid-round)",
            (_P("clause", "text", required=True), *_shoe_params(), _role(Role.DEALER)),
            positional=("clause",),
        ),
    )
}


#: Every action a replay file may take.
ACTIONS: dict[str, ActionSpec] = {
    **ROUND_ACTIONS,
    **SHOE_ACTIONS,
    **IRREGULARITIES,
    **CLAIMS,
    **HANDLING,
}


#: Keys every action may carry besides its parameters.
_COMMON_KEYS = frozenset({"action", "comment"})


@dataclass
class Seats:
    """Who sits (or stands) where: fills in a bet's position or player."""

    positions: dict[str, int] = field(default_factory=dict)
    seated: dict[str, bool] = field(default_factory=dict)

    def add(self, player: str, position: int, seated: bool = True) -> None:
        self.positions[player] = position
        self.seated[player] = seated

    def player_at(self, position: int) -> str | None:
        found = [p for p, at in self.positions.items() if at == position and self.seated[p]]
        return found[0] if len(found) == 1 else None


#: The keys of a seat in a replay file's ``seats``.
SEAT_KEYS = frozenset({"position", "player", "seated"})


def read_seats(value: Any) -> Seats:
    seats = Seats()
    if value is None:
        return seats
    example = 'a seat is {"position": 1, "player": "ann", "seated": true}'
    if not isinstance(value, list):
        raise ActionInputError("seats: a list of {position, player, seated}", hint=example)
    for n, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise ActionInputError(f"seats[{n}]: {quoted(entry)} is not a seat", hint=example)
        known_keys(entry, SEAT_KEYS, f"seats[{n}]")
        for key in ("player", "position"):
            if key not in entry:
                raise ActionInputError(f"seats[{n}] needs {key}", hint=example)
        try:
            player = read_name(entry["player"], "player")
            position = read_position(entry["position"])
            seated = read_flag(entry.get("seated", True))
        except PuntoError as error:
            raise ActionInputError(f"seats[{n}]: {error.message}", hint=error.hint) from None
        except TypeError:
            raise ActionInputError(f"seats[{n}]: seated is true or false", hint=example) from None
        seats.add(player, position, seated)
    return seats


def _key(key: str) -> str:
    """A key as a refusal names it: as it is, or quoted when it is not a plain word."""
    return key if key.isascii() and key.isidentifier() else quoted(key)


def known_keys(data: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """Refuse a key that is not one of ``allowed``: a misspelt key would be ignored."""
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ActionInputError(
            f"{where} takes no {', '.join(_key(key) for key in unknown[:5])}",
            hint=f"{where} takes {', '.join(sorted(allowed)) or 'nothing'}",
        )


def read_action(data: Any, seats: Seats | None = None) -> tuple[ActionSpec, dict[str, Any]]:
    """The action ``data`` names and its parameters, read and checked:
    every required parameter given, no unknown one."""
    if not isinstance(data, Mapping):
        raise ActionInputError(
            f"{quoted(data)} is not an action", hint='an action is an object: {"action": "open"}'
        )
    name = data.get("action")
    spec = ACTIONS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ActionInputError(
            f"unknown action {quoted(name)}", hint=f"actions: {', '.join(ACTIONS)}"
        )
    known_keys(data, {p.name for p in spec.params} | _COMMON_KEYS, spec.name)
    args: dict[str, Any] = {}
    for param in spec.params:
        if param.name in data:
            args[param.name] = param.read(data[param.name])
        elif param.required:
            raise ActionInputError(
                f"{name} needs {param.name}", hint=f"{param.name}: {KIND_HELP[param.kind]}"
            )
        else:
            args[param.name] = param.default
    if spec.name == "bet":
        _seat_bet(args, seats or Seats())
    return spec, args


def _seat_bet(args: dict[str, Any], seats: Seats) -> None:
    player, position = args["player"], args["position"]
    if player is None and position is not None:
        player = seats.player_at(position)
    if player is None:
        raise ActionInputError(
            "bet needs player", hint="give player, or a position with one seated player (seats)"
        )
    if position is None:
        position = seats.positions.get(player)
    if position is None:
        raise ActionInputError(
            f"bet needs position: {player} has no seat", hint="give position, or seat them"
        )
    if args["seated"] is None:
        args["seated"] = (
            seats.seated.get(player, True) if seats.positions.get(player) == position else True
        )
    args["player"], args["position"] = player, position


def read_limits(value: Any, game: Game | None = None, layout: str | None = None) -> TableLimits:
    """The table limits of a replay file's ``limits`` object.  Given the game
    (and layout), a wager with limits of its own must be one it offers: a
    misspelt wager would leave the real one at the table's limits (MBS 3.5.1)."""
    try:
        limits = TableLimits.from_json(value)
    except LimitError as bad:
        raise ActionInputError(f"limits: {bad.message}", clause=bad.clause, hint=bad.hint) from None
    if game is not None:
        try:
            check_limit_wagers(game, limits, layout)
        except LimitError as bad:
            raise ActionInputError(bad.message, clause=bad.clause, hint=bad.hint) from None
    return limits
