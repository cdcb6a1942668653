"""Replaying a table for audit.

A replay file (JSON, documented with complete examples in ``docs/replay.md``)
names the game, its layout and limits, and the actions taken at the table in
order: ``open``, bets, ``no_more_bets``, cards, Insurance Plus bets, the
irregularity procedures of :mod:`punto.table.irregularities` (by name, with
their parameters and the acting role), withdrawals and ``settle``.  Each
``open`` begins a new round; a round ends settled or void.  The actions are
played on :class:`~punto.table.round.Round` exactly as a live table plays
them, so the replay either gives every bet's final result and net -- or
stops at the first action the engine refuses, with the typed error, its
clause and the index of the action.

The action vocabulary (:data:`ACTIONS`) is shared with the dealer console
(:mod:`punto.dealer_console`): a command typed there is the same action.

>>> from decimal import Decimal
>>> replay = run_replay({
...     "game": "tiger-baccarat",
...     "limits": {"minimum": "10", "maximum": "1000"},
...     "actions": [
...         {"action": "open"},
...         {"action": "bet", "player": "ann", "position": 1, "wager": "banker", "stake": "100"},
...         {"action": "no_more_bets"},
...         {"action": "card", "cards": "QH 2C 2D KS 3H 4D"},
...         {"action": "settle"},
...     ],
... })
>>> report = replay.report()
>>> report["players"], report["house_net"]
({'ann': '95.00'}, '-95.00')
>>> try:
...     run_replay({"game": "tiger-baccarat", "limits": {"minimum": "10", "maximum": "1000"},
...                 "actions": [{"action": "open"}, {"action": "settle"}]})
... except ReplayError as refused:
...     print(refused.index, refused)
1 actions[1] (settle) refused: PhaseError: the round is settled once the coup is complete
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from punto.cards import Card
from punto.coup import Side
from punto.errors import ActionError, LimitError, PhaseError, PuntoError, WagerError
from punto.game import Game
from punto.games import get_game
from punto.inputs import InputError, quoted, read_name, read_text
from punto.insurance import Moment
from punto.money import format_money
from punto.table import handling, irregularities
from punto.table.bet_limits import check_limit_wagers, check_table_limits
from punto.table.events import Event, ShoeStarted, WithdrawalOffered, event_to_json
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
from punto.table.round import BetSettlement, Phase, Round
from punto.table.shoe_state import ShoeState, shoe_json, shoe_started
from punto.wagers import PairRule

__all__ = [
    "ACTIONS",
    "HANDLING",
    "IRREGULARITIES",
    "KIND_HELP",
    "SHOE_ACTIONS",
    "ActionInputError",
    "ActionSpec",
    "Param",
    "Replay",
    "ReplayError",
    "Seats",
    "check_withdrawing",
    "read_action",
    "read_limits",
    "ruling_json",
    "run_replay",
    "trial",
]


class ReplayError(PuntoError):
    """The first action of a replay that could not be read or was refused.

    ``index`` is the action's place in ``actions`` (from 0; None for the
    file's header), ``action`` its name and ``error`` the typed error.
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
            f"{where} {verb}: {type(error).__name__}: {error.message}",
            clause=error.clause,
            hint=error.hint,
        )


# -- parameters --------------------------------------------------------------------------------

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
    **HANDLING,
}

#: Keys every action may carry besides its parameters.
_COMMON_KEYS = frozenset({"action", "comment"})


# -- seats ------------------------------------------------------------------------------------


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
        _known_keys(entry, SEAT_KEYS, f"seats[{n}]")
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


def _known_keys(data: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """Refuse a key that is not one of ``allowed``: a misspelt key would be ignored."""
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ActionInputError(
            f"{where} takes no {', '.join(_key(key) for key in unknown[:5])}",
            hint=f"{where} takes {', '.join(sorted(allowed)) or 'nothing'}",
        )


# -- reading an action --------------------------------------------------------------------------


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
    _known_keys(data, {p.name for p in spec.params} | _COMMON_KEYS, spec.name)
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


# -- the replay ---------------------------------------------------------------------------------

#: Top-level keys of a replay file.
FILE_KEYS = frozenset(
    {
        "game",
        "layout",
        "pair_rule",
        "limits",
        "insurance_offered",
        "electronic_device",
        "face_down",
        "seats",
        "actions",
        "comment",
    }
)


class Replay:
    """A table played from recorded actions: its rounds, its event log and
    the rulings of its irregularities."""

    def __init__(
        self,
        game: Game,
        *,
        limits: TableLimits,
        layout: str | None = None,
        pair_rule: PairRule | None = None,
        insurance_offered: bool = True,
        electronic_device: bool = False,
        face_down: bool = False,
        seats: Seats | None = None,
    ) -> None:
        self.game = game
        self.layout = game.check_layout(layout)
        check_table_limits(game, limits)  # e.g. more than MBS 3.7's three per area
        self.limits = limits
        self.pair_rule = pair_rule or game.pair_rule
        self.insurance_offered = insurance_offered
        #: the table facts the file declares (:mod:`punto.table.facts`): a
        #: replay does not know how its cards were dealt unless it says so
        self.electronic_device = electronic_device
        self.face_down = face_down
        self.seats = seats or Seats()
        self.rounds: list[Round] = []
        #: (round id, event), every event of every round in order
        self.log: list[tuple[str, Event]] = []
        #: round id -> what each irregularity procedure ruled
        self.rulings: dict[str, list[dict[str, Any]]] = {}
        self._under_minimum_settled: set[str] = set()
        #: the shoes the file declares and the cards out of them (none declared:
        #: only held cards and the cutting card are followed)
        self.cards = ShoeState(game)
        #: shoe id -> (the ShoeStarted, the rounds dealt from it)
        self._shoes: dict[str, tuple[ShoeStarted, list[str]]] = {}

    @classmethod
    def from_json(cls, data: Any) -> Replay:
        """The table a replay file describes (its header, not yet its actions)."""
        try:
            if not isinstance(data, Mapping):
                raise ActionInputError("a replay file is a JSON object")
            _known_keys(data, FILE_KEYS, "a replay file")
            for key in ("game", "limits", "actions"):
                if key not in data:
                    raise ActionInputError(f"{key} is missing", hint="see docs/replay.md")
            game = get_game(_text_field(data, "game"))
            layout = data.get("layout")
            rule = data.get("pair_rule")
            offered = data.get("insurance_offered", True)
            if not isinstance(offered, bool):
                raise ActionInputError("insurance_offered: true or false")
            facts = {key: data.get(key, False) for key in ("electronic_device", "face_down")}
            for key, value in facts.items():
                if not isinstance(value, bool):
                    raise ActionInputError(f"{key}: true or false", hint="see docs/replay.md")
            try:
                pair_rule = PairRule(rule) if rule is not None else None
            except ValueError:
                raise ActionInputError(
                    f"pair_rule: no pair rule {rule!r}",
                    hint=f"one of {', '.join(r.value for r in PairRule)}",
                ) from None
            if layout is not None and not isinstance(layout, str):
                raise ActionInputError('layout: a string, e.g. "A"')
            try:
                game.check_layout(layout)
            except WagerError as error:
                raise WagerError(
                    error.message,
                    clause=error.clause,
                    hint=f'give "layout": one of {", ".join(game.layouts)}',
                ) from None
            return cls(
                game,
                limits=read_limits(data["limits"], game, game.check_layout(layout)),
                layout=layout,
                pair_rule=pair_rule,
                insurance_offered=offered,
                **facts,
                seats=read_seats(data.get("seats")),
            )
        except PuntoError as error:
            raise ReplayError(None, None, error) from None

    # -- rounds -------------------------------------------------------------------------

    @property
    def round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def options(self) -> dict[str, Any]:
        """The options every round of this table is made with (see :meth:`Round.replay`)."""
        return {
            "limits": self.limits,
            "layout": self.layout,
            "pair_rule": self.pair_rule,
            "insurance_offered": self.insurance_offered,
            "electronic_device": self.electronic_device,
            "face_down": self.face_down,
        }

    def open(self, role: Role = Role.DEALER) -> Round:
        """A new round, as :meth:`punto.table.live.LiveTable.new_round` opens it."""
        current = self.round
        if current is not None and current.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {current.round_id} is still {current.phase.value}",
                hint="settle or void it first",
            )
        self.cards.check_new_round()  # 3.22: not after the cutting card; 5.11.5, 5.12.2
        if current is not None and current.phase is Phase.SETTLED:
            self._under_minimum_settled |= current.newly_under_minimum()
        round_id = f"r{len(self.rounds) + 1}"

        def write(event: Event) -> None:
            self.log.append((round_id, event))
            self.cards.track(r, event)

        r = Round(
            self.game,
            **self.options,
            under_minimum_settled=self._under_minimum_settled,
            on_event=write,
            check_events=self.cards.check,
            round_id=round_id,
        )
        if self.cards.started:
            self._shoes[self.cards.shoe_id][1].append(round_id)
        r.open(role)
        self.rounds.append(r)
        self.rulings[round_id] = []
        return r

    def new_shoe(self, args: Mapping[str, Any]) -> None:
        """A new shoe, once the shoe in use has ended (its cutting card out,
        3.22; or spent, MBS 5.3) and no round is in play."""
        self.cards.check_new_shoe(self.round)
        self._start_shoe(args, "")

    def replace_shoe(self, args: Mapping[str, Any]) -> None:
        """The cards replaced under ``clause``, where the rules allow it
        (:meth:`ShoeState.check_replace`); the new set holds as many decks as
        the old unless the action says otherwise."""
        self.cards.check_replace(args["role"], args["clause"], self.round)
        if args["decks"] is None and args["cards"] is None and self.cards.decks:
            args = {**args, "decks": self.cards.decks}
        self._start_shoe(args, args["clause"])

    def _start_shoe(self, args: Mapping[str, Any], clause: str) -> None:
        shoe_id = f"s{self.cards.shoes + 1}"
        if args["decks"] is None and args["cards"] is None and args["seed"] is None and clause:
            # the file never said what the shoe holds: a set of cards whose
            # composition is not known either
            event = ShoeStarted(shoe_id, (), args["cut_card"], "", "", clause, args["role"])
        else:
            event = shoe_started(
                self.game,
                shoe_id,
                decks=args["decks"],
                cards=args["cards"],
                seed=args["seed"],
                cut_card=args["cut_card"],
                clause=clause,
                role=args["role"],
            )
        self.log.append(("", event))
        self.cards.load(event)
        current = self.round
        in_play = current is not None and current.phase not in (Phase.SETTLED, Phase.VOID)
        rounds = [current.round_id] if in_play and current is not None else []
        self._shoes[shoe_id] = (event, rounds)

    def _current(self) -> Round:
        if self.round is None:
            raise PhaseError("no round is open", hint='begin with {"action": "open"}')
        return self.round

    # -- actions ------------------------------------------------------------------------

    def run(self, actions: Any) -> None:
        """Play ``actions`` in order; :class:`ReplayError` for the first one
        that cannot be read or is refused."""
        if not isinstance(actions, list):
            raise ReplayError(None, None, ActionInputError("actions: a list of actions"))
        index = 0
        while index < len(actions):
            index = self._step(actions, index)

    def _read(self, actions: Sequence[Any], index: int) -> tuple[ActionSpec, dict[str, Any]]:
        data = self._shoe_defaults(actions[index])
        try:
            return read_action(data, self.seats)
        except PuntoError as error:
            name = data.get("action") if isinstance(data, Mapping) else None
            raise ReplayError(index, name if isinstance(name, str) else None, error) from None

    def _shoe_defaults(self, data: Any) -> Any:
        """A procedure's ``shoe`` (the decks in use) and ``discards`` (the
        cards out before this round) default to the declared shoe's, as a
        live table fills them in from its own (MBS 5.11.2.1)."""
        if not isinstance(data, Mapping) or not self.cards.decks:
            return data
        name = data.get("action")
        spec = IRREGULARITIES.get(name) if isinstance(name, str) else None
        if spec is None:
            return data
        out = dict(data)
        if spec.param("shoe") is not None:
            out.setdefault("shoe", self.cards.decks)
        if spec.param("discards") is not None:
            out.setdefault("discards", [str(c) for c in self.cards.discards()])
        return out

    def _step(self, actions: Sequence[Any], index: int) -> int:
        """Take the action at ``index``; the index of the next one."""
        spec, args = self._read(actions, index)
        try:
            if spec.name in SHOE_ACTIONS:
                getattr(self, spec.name)(args)
                return index + 1
            if spec.run is None:
                self.open(args["role"])
                return index + 1
            r = self._current()
            if spec.irregularity:
                return self._irregularity(actions, index, spec, args, r)
            spec.run(r, args)
        except ReplayError:
            raise
        except PuntoError as error:
            raise ReplayError(index, spec.name, error) from None
        if spec.name == "bet":
            self.seats.positions.setdefault(args["player"], args["position"])
            self.seats.seated.setdefault(args["player"], args["seated"])
        return index + 1

    def _irregularity(
        self,
        actions: Sequence[Any],
        index: int,
        spec: ActionSpec,
        args: dict[str, Any],
        r: Round,
    ) -> int:
        """An irregularity procedure.  Where it gives players an option to
        withdraw and the file lists no ``withdrawing``, the ``withdraw_player``
        actions right after it are the players taking that option."""
        followers: list[int] = []
        if spec.param("withdrawing") is not None and "withdrawing" not in actions[index]:
            nxt = index + 1
            while nxt < len(actions) and _is_taking_option(actions[nxt]):
                followers.append(nxt)
                nxt += 1
        takers = tuple(self._read(actions, n)[1]["player"] for n in followers)
        explicit = tuple(args.get("withdrawing") or ())

        def attempt(target: Round, withdrawing: tuple[str, ...]) -> Ruling:
            assert spec.run is not None
            given = {**args, "withdrawing": withdrawing} if "withdrawing" in args else args
            ruling: Ruling = spec.run(target, given)
            return ruling

        result, offered = trial(spec, r, args)  # a refused procedure stops here
        if (explicit or takers) and offered is None:
            if followers and not explicit:
                raise ReplayError(followers[0], "withdraw_player", _no_option(result))
            raise _no_option(result)
        if explicit:
            attempt(r.fork(), explicit)
        for n, at in enumerate(followers):
            try:
                attempt(r.fork(), explicit + takers[: n + 1])
            except PuntoError as error:
                raise ReplayError(at, "withdraw_player", error) from None
        ruling = attempt(r, explicit + takers)
        self.rulings[r.round_id].append(ruling_json(index, spec.name, args["role"], ruling))
        return (followers[-1] if followers else index) + 1

    # -- what it came to ------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """Every round's bets with their final result and net, each player's
        total and the house's net (rounds still in play are listed with
        their bets unsettled and count in no total)."""
        totals: dict[str, Decimal] = {}
        house = Decimal(0)
        rounds = []
        for r in self.rounds:
            rounds.append(self._round_json(r))
            if r.phase in (Phase.SETTLED, Phase.VOID):
                for player, net in r.nets().items():
                    totals[player] = totals.get(player, Decimal(0)) + net
                house += r.house_net()
        out = {
            "game": self.game.id,
            "layout": self.layout,
            "pair_rule": self.pair_rule.value,
            "rounds": rounds,
            "players": {p: format_money(n) for p, n in totals.items()},
            "house_net": format_money(house),
        }
        if self._shoes:
            out["shoes"] = [
                shoe_json(event, ids, self.cards) for event, ids in self._shoes.values()
            ]
        return out

    def _round_json(self, r: Round) -> dict[str, Any]:
        deal = r.deal
        coup = deal.to_coup() if deal.is_complete else None
        finished = r.phase in (Phase.SETTLED, Phase.VOID)
        void = r.void
        out: dict[str, Any] = {
            "round": r.round_id,
            "phase": r.phase.value,
            "player": {"cards": [str(c) for c in deal.player.cards], "total": deal.player.total},
            "banker": {"cards": [str(c) for c in deal.banker.cards], "total": deal.banker.total},
            "winner": coup.winner.value if coup is not None and void is None else None,
            "void": None if void is None else {"clause": void.clause, "reason": void.reason},
            "irregularities": self.rulings.get(r.round_id, []),
        }
        if finished:
            out["bets"] = [_settlement_json(s) for s in r.results()]
            out["players"] = {p: format_money(n) for p, n in r.nets().items()}
            out["house_net"] = format_money(r.house_net())
        else:
            out["bets"] = [_unsettled_json(r, b.bet_id) for b in r.bets]
            out["players"] = None
            out["house_net"] = None
        return out

    def event_lines(self) -> list[dict[str, Any]]:
        """The event log the replay wrote: one JSON object per event, its
        round id under ``round`` (read back with :func:`event_from_json`)."""
        return [{"round": round_id, **event_to_json(event)} for round_id, event in self.log]


def trial(
    spec: ActionSpec, r: Round, args: Mapping[str, Any]
) -> tuple[Any, WithdrawalOffered | None]:
    """Run ``spec`` on a copy of ``r`` with nobody withdrawing: what it
    returns (a procedure's :class:`Ruling`) and the withdrawal option it
    gives, if it gives one.  A refusal raises, leaving ``r`` untouched."""
    assert spec.run is not None
    copy = r.fork()
    given = {**args, "withdrawing": ()} if "withdrawing" in args else args
    result = spec.run(copy, given)
    offered = [e for e in copy.events[len(r.events) :] if isinstance(e, WithdrawalOffered)]
    return result, (offered[0] if offered else None)


def check_withdrawing(
    spec: ActionSpec, r: Round, args: Mapping[str, Any], players: Sequence[str]
) -> None:
    """Refuse ``players`` withdrawing where the procedure gives no option to
    (an outcome established, or no option in the clause)."""
    if not players:
        return
    result, offered = trial(spec, r, args)
    if offered is None:
        raise _no_option(result)


def _no_option(result: Any) -> PhaseError:
    ruling = result if isinstance(result, Ruling) else None
    return PhaseError(
        "no withdrawal option is given"
        + (f": the ruling is '{ruling.consequence}'" if ruling else ""),
        clause=ruling.clause if ruling else None,
        hint="a player withdraws only when the procedure gives the option",
    )


def _is_taking_option(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and data.get("action") == "withdraw_player"
        and data.get("role", Role.PLAYER.value) == Role.PLAYER.value
    )


def _text_field(data: Mapping[str, Any], key: str) -> str:
    return read_text(data[key], key)


def ruling_json(index: int | None, name: str, role: Role, ruling: Ruling) -> dict[str, Any]:
    """What an irregularity procedure ruled, as JSON: the procedure, who acted,
    the clause and consequence, and (when there are any) the players who
    withdrew, the bets returned and the cards held, found missing or unused.
    ``index`` is the action's place in a replay file (``action``; left out
    when None, as for a procedure run at a live table)."""
    out: dict[str, Any] = {} if index is None else {"action": index}
    out |= {
        "irregularity": name,
        "role": role.value,
        "clause": ruling.clause,
        "consequence": ruling.consequence,
    }
    for key in ("withdrawn", "returned"):
        value: tuple[str, ...] = getattr(ruling, key)
        if value:
            out[key] = list(value)
    for key in ("next_round", "missing", "unused"):
        cards: tuple[Card, ...] = getattr(ruling, key)
        if cards:
            out[key] = [str(c) for c in cards]
    return out


def _settlement_json(s: BetSettlement) -> dict[str, Any]:
    b = s.bet
    return {
        "bet_id": b.bet_id,
        "player": b.player,
        "position": b.position,
        "seated": b.seated,
        "wager": b.wager,
        "moment": b.moment.value if b.moment is not None else None,
        "stake": format_money(b.stake),
        "outcome": s.outcome,
        "event": s.event,
        "settled_stake": format_money(s.settled_stake),
        "net": format_money(s.net),
        "clause": s.clause,
    }


def _unsettled_json(r: Round, bet_id: str) -> dict[str, Any]:
    b = next(bet for bet in r.bets if bet.bet_id == bet_id)
    return {
        "bet_id": b.bet_id,
        "player": b.player,
        "position": b.position,
        "seated": b.seated,
        "wager": b.wager,
        "moment": b.moment.value if b.moment is not None else None,
        "stake": format_money(b.stake),
        "outcome": None if b.status == "active" else b.status,
        "event": None,
        "settled_stake": None,
        "net": None,
        "clause": b.clause,
    }


def run_replay(data: Any) -> Replay:
    """Read a replay file's JSON and play every action of it."""
    replay = Replay.from_json(data)
    replay.run(data["actions"])
    return replay
