"""Replaying a table for audit.

A replay file (JSON, documented in ``docs/replay.md``, with complete files
worked through in ``docs/replay-examples.md``)
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
(:mod:`punto.ui.dealer_console`): a command typed there is the same action.

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
1 actions[1] (settle) refused: the round is settled once the coup is complete
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from punto.errors import PhaseError, PuntoError, WagerError
from punto.inputs import read_text
from punto.money import format_money
from punto.rules.cards import Card
from punto.rules.game import Game
from punto.rules.games import get_game
from punto.rules.wagers import PairRule, pair_rule_warning
from punto.table import claims
from punto.table.bet_limits import check_table_limits
from punto.table.events import Event, ShoeStarted, WithdrawalOffered, event_to_json
from punto.table.irregularities import Ruling
from punto.table.limits import TableLimits
from punto.table.params import (
    KIND_HELP,
    ActionInputError,
    Param,
)
from punto.table.replay_actions import ACTIONS as ACTIONS
from punto.table.replay_actions import CLAIMS as CLAIMS
from punto.table.replay_actions import HANDLING as HANDLING
from punto.table.replay_actions import IRREGULARITIES as IRREGULARITIES
from punto.table.replay_actions import ROUND_ACTIONS as ROUND_ACTIONS
from punto.table.replay_actions import SEAT_KEYS as SEAT_KEYS
from punto.table.replay_actions import SHOE_ACTIONS as SHOE_ACTIONS
from punto.table.replay_actions import ActionSpec as ActionSpec
from punto.table.replay_actions import ReplayError as ReplayError
from punto.table.replay_actions import RunFn as RunFn
from punto.table.replay_actions import Seats as Seats
from punto.table.replay_actions import (
    known_keys,
)
from punto.table.replay_actions import procedure_for as procedure_for
from punto.table.replay_actions import read_action as read_action
from punto.table.replay_actions import read_limits as read_limits
from punto.table.replay_actions import read_seats as read_seats
from punto.table.roles import Role
from punto.table.round import BetSettlement, Phase, Round
from punto.table.shoe_state import ShoeState, shoe_json, shoe_started

__all__ = [
    "ACTIONS",
    "CLAIMS",
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
    "procedure_for",
    "read_action",
    "read_limits",
    "ruling_json",
    "run_replay",
    "trial",
]


# -- parameters --------------------------------------------------------------------------------


# -- seats ------------------------------------------------------------------------------------


# -- reading an action --------------------------------------------------------------------------


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
            known_keys(data, FILE_KEYS, "a replay file")
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
        r.check_claim = self.cards.check_claim
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
            claim = r.pending_claim
            result = spec.run(r, args)
            if spec.name == "confirm" and claim is not None:  # the claimed ruling, applied
                self.rulings[r.round_id].append(
                    ruling_json(index, claim.procedure, args["role"], result)
                )
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
        warning = pair_rule_warning(self.pair_rule)
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
            **({} if warning is None else {"pair_rule_warning": warning}),
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
        if r.events and (records := claims.claim_records(r)):
            out["claims"] = [c.to_json() for c in records]
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
