"""Irregularity procedures at a table on the server (:class:`Procedures`):
which of :data:`~punto.table.replay.IRREGULARITIES` a table's game covers,
what the server knows of their parameters, and running one with the ledger,
the timers and the watchers following the round."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from punto.errors import PhaseError, PuntoError
from punto.server.tables.books import Books
from punto.server.tables.forms import money
from punto.server.tables.host import TableHost
from punto.server.tables.intake import BetIntake
from punto.server.tables.publishing import Publisher
from punto.table import claims
from punto.table.events import RulingClaimed
from punto.table.irregularities import NotCoveredError, Ruling
from punto.table.replay import (
    IRREGULARITIES,
    ActionInputError,
    ActionSpec,
    check_withdrawing,
    procedure_for,
    read_action,
    ruling_json,
)
from punto.table.replay_actions import known_keys
from punto.table.roles import Role
from punto.table.round import Phase, Round

__all__ = ["DEDICATED_PROCEDURES", "Person", "Procedures", "covered_procedures"]

#: Irregularity procedures the server runs through an endpoint of their own
#: (name -> path under the table): a power failure leaves the withdrawal option
#: open for the players to take themselves (``/withdrawal``), then the dealer
#: closes it.
DEDICATED_PROCEDURES: dict[str, str] = {"power_failure": "/round/power-failure"}

#: JSON values that let a procedure be tried on a fresh round far enough to
#: look its clause up (see :func:`covered_procedures`), by parameter kind.
_PROBE: dict[str, Any] = {
    "text": "-",
    "int": 0,
    "flag": False,
    "cards": [],
    "cards?": None,
    "cards_with_gaps": [],
    "shoe": [],
    "players": [],
}


@functools.cache
def covered_procedures(
    game_id: str, layout: str | None, insurance_offered: bool
) -> tuple[str, ...]:
    """The procedures of :data:`~punto.table.replay.IRREGULARITIES` that a
    game's rules cover (the power failure, with its own endpoint, left out).

    The engine is the judge: each procedure is tried on a fresh round of the
    game; every procedure looks its clause up in the game's data before
    anything else, and one the rules lack raises :class:`NotCoveredError`.
    Any other refusal (no card out yet, and so on) means it is covered."""
    from punto.rules.games import get_game
    from punto.table.limits import TableLimits

    game = get_game(game_id)
    names = []
    for spec in IRREGULARITIES.values():
        if spec.name in DEDICATED_PROCEDURES or spec.run is None:
            continue
        r = Round(
            game,
            limits=TableLimits(Decimal(10), Decimal(1000)),
            layout=layout,
            insurance_offered=insurance_offered,
        )
        r.open()
        data: dict[str, Any] = {"action": spec.name, "role": Role.SHIFT_MANAGER.value}
        for param in spec.params:
            if param.required and param.name != "role":
                data[param.name] = _PROBE.get(param.kind)
        try:
            _, args = read_action(data)
            spec.run(r, args)
        except NotCoveredError:
            continue
        except PuntoError:
            pass
        names.append(spec.name)
    return tuple(names)


class ProceduresHost(TableHost, Protocol):
    """The host of :class:`Procedures`."""

    books: Books
    intake: BetIntake
    publisher: Publisher


class Procedures:
    """The irregularity procedures of one table."""

    def __init__(self, runtime: ProceduresHost) -> None:
        self.rt = runtime

    def procedures(self) -> tuple[str, ...]:
        """The irregularity procedures this table's game covers (:func:`covered_procedures`)."""
        t = self.rt.table
        return covered_procedures(self.rt.game.id, t.layout, t.insurance_offered)

    def server_defaults(self, spec: ActionSpec) -> dict[str, Any]:
        """What the server knows of a procedure's parameters (JSON form, as the
        dealer console offers them): the shoe in use and the cards out of it
        before this round (MBS 5.11), and whether the table is in HLGA."""
        t = self.rt.table
        known: dict[str, Any] = {"hlga": t.hlga}
        if t.shoe is not None:
            known["shoe"] = [str(c) for c in t.shoe.order]
            known["discards"] = [str(c) for c in t.discards()]
        return {p.name: known[p.name] for p in spec.params if p.name in known}

    def runner(self, name: str, parameters: Mapping[str, Any]) -> claims.Procedure:
        """The procedure ``name`` with ``parameters`` (JSON values) as the
        server runs it: replay's (:func:`punto.table.replay.procedure_for`),
        but a power failure leaves its withdrawal option open for the players
        to take themselves (``/withdrawal``) until the dealer closes it."""
        if name == "power_failure":
            known_keys(parameters, (), "power_failure")
            return _power_failure
        return procedure_for(name, parameters)

    def rule(self, name: str, parameters: Mapping[str, Any], person: Person) -> dict[str, Any]:
        """Apply the irregularity procedure ``name`` with ``parameters`` (JSON
        values, the server's defaults filled in) for ``person``, to the round
        in play or the last round where the procedure allows a finished one.

        The table's record checks the claim first: one it contradicts is
        refused (:class:`punto.table.record.RecordError`).  A ruling that would
        move money after "No more bets" is filed as a claim that another
        person confirms from their own session (:meth:`confirm`); the round
        waits meanwhile.  Any other is applied at once.  The players in
        ``withdrawing`` must have wagers in the round and the procedure must
        give them the option."""
        with self.rt.lock:
            self.rt.intake.quiesce()
            r = self.rt.live_round()
            r.check_no_claim_pending()
            run = self.runner(name, parameters)
            self._check_strangers(r, parameters)
            tried = claims.confirming_role(r, run)  # the record's refusal, if any
            confirming, _, events = tried
            self._check_withdrawing(name, r, parameters, confirming)
            if not claims.moves_money(r, events):
                return self._apply(r, name, lambda target: run(target, person.role), person.role)
            claim = claims.file_claim(
                r, name, parameters, run, by=person.name, role=person.role, tried=tried
            )
            self.rt.publisher.changed(r.players)
            return {
                "round_id": r.round_id,
                "phase": r.phase.value,
                "pending": True,
                "claim": claims.ClaimRecord(claim).to_json(),
            }

    def confirm(self, claim_id: str, person: Person) -> dict[str, Any]:
        """``person``, not the one who filed it, of the position it needs,
        confirms the pending claim ``claim_id``: its procedure is applied
        with the parameters as filed, the ledger following the round."""
        with self.rt.lock:
            self.rt.intake.quiesce()
            r = self.rt.live_round()
            claim = self._pending(r, claim_id)
            run = self.runner(claim.procedure, claims.parameters_of(claim))
            return self._apply(
                r,
                claim.procedure,
                lambda target: claims.confirm_claim(target, run, by=person.name, role=person.role),
                person.role,
            )

    def reject(self, claim_id: str, person: Person, reason: str) -> dict[str, Any]:
        """The pending claim ``claim_id`` rejected (or withdrawn by the person
        who filed it): nothing moves, and the round goes on."""
        with self.rt.lock:
            self.rt.intake.quiesce()
            r = self.rt.live_round()
            self._pending(r, claim_id)
            claims.reject_claim(r, by=person.name, role=person.role, reason=reason)
            now = self.rt.clock()
            self.rt.next_card_at = now + self.rt.config.card_delay
            if r.phase in (Phase.VOID, Phase.SETTLED):
                self.rt.next_round_at = now + self.rt.config.result_seconds
            self.rt.publisher.changed(r.players)
            record = claims.claim_records(r)[-1]
            return {"round_id": r.round_id, "phase": r.phase.value, "claim": record.to_json()}

    def claims(self) -> dict[str, Any]:
        """The claims of the round in play (or the last round), with what
        became of each; for a pending one the wagers its ruling would return
        or change, with their stakes."""
        with self.rt.lock:
            r = self.rt.round
            if r is None:
                return {"round_id": None, "cards": [], "claims": [], "affected": []}
            pending = r.pending_claim
            changed = (
                claims.affected(r, self.runner(pending.procedure, claims.parameters_of(pending)))
                if pending is not None
                else []
            )
            round_id, cards = r.round_id, [str(c) for c in r.deal.cards]
            records = [c.to_json() for c in claims.claim_records(r)]
        return {
            "round_id": round_id,
            "cards": cards,
            "claims": records,
            "affected": [
                {
                    "bet_id": a.bet.bet_id,
                    "player": a.bet.player,
                    "wager": a.bet.wager,
                    "stake": money(a.bet.stake),
                    "now": a.now,
                    "then": a.then,
                }
                for a in changed
            ],
        }

    @staticmethod
    def _pending(r: Round, claim_id: str) -> RulingClaimed:
        claim = r.pending_claim
        if claim is None or claim.claim_id != claim_id:
            raise PhaseError(
                f"claim {claim_id[:16]} is not pending in round {r.round_id}",
                hint=f"the pending claim is {claim.claim_id}" if claim else "no claim is pending",
            )
        return claim

    def _check_withdrawing(
        self, name: str, r: Round, parameters: Mapping[str, Any], role: Role
    ) -> None:
        """The procedure, made in ``role``, gives the players in
        ``withdrawing`` the option they take."""
        withdrawing = parameters.get("withdrawing")
        if not withdrawing:
            return
        spec = IRREGULARITIES[name]
        _, args = read_action({**parameters, "action": name, "role": role.value})
        check_withdrawing(spec, r, args, tuple(args["withdrawing"]))

    @staticmethod
    def _check_strangers(r: Round, parameters: Mapping[str, Any]) -> None:
        """The players in ``withdrawing`` have wagers in the round."""
        withdrawing = parameters.get("withdrawing")
        if not withdrawing or not isinstance(withdrawing, list | tuple):
            return
        players = [str(p) for p in withdrawing]
        eligible = [p for p in r.players if any(b.player == p for b in r.active_bets)]
        strangers = [p for p in dict.fromkeys(players) if p not in eligible]
        if strangers:
            raise ActionInputError(
                f"withdrawing: {', '.join(strangers)} "
                f"{'has' if len(strangers) == 1 else 'have'} no wager in round "
                f"{r.round_id} to withdraw",
                hint="players with wagers: " + (", ".join(eligible) or "none"),
            )

    def _apply(
        self, r: Round, name: str, ruling_of: Callable[[Round], Ruling], role: Role
    ) -> dict[str, Any]:
        """Lock held: make the ruling on the round with the ledger, the timers
        and the watchers following.  A settled round is paid on the ledger: a
        ruling that changes its results (a void after settlement, MBS 5.2;
        RWS 5.5.3) resettles the ledger first (:meth:`Books.resettle_first`)."""
        was_settled = r.phase is Phase.SETTLED
        if was_settled:
            self.rt.books.resettle_first(name, r, ruling_of, role)
        try:
            ruling = ruling_of(r)
        finally:
            self.rt.forget_results(r.round_id)
            if was_settled:  # the ledger follows whatever the round now says
                self.rt.books.reconcile_finished(r)
        if was_settled and r.phase is not Phase.SETTLED:  # its coup leaves the roads
            self.rt.scoreboard = self.rt.rebuild_scoreboard()
            self.rt.publish({"type": "scoreboard", "scoreboard": self.rt.scoreboard.to_dict()})
        self.rt.reconcile()
        now = self.rt.clock()
        if r.phase in (Phase.VOID, Phase.SETTLED):
            self.rt.next_round_at = now + self.rt.config.result_seconds
        elif r.phase is Phase.BETTING:  # betting opened again (MBS 5.9)
            self.rt.deadline = (
                now + self.rt.config.betting_seconds if self.rt.config.mode == "auto" else None
            )
        self.rt.window = None
        self.rt.next_card_at = now + self.rt.config.card_delay
        self.rt.publisher.changed(r.players)
        return {
            "round_id": r.round_id,
            "phase": r.phase.value,
            "pending": False,
            "ruling": ruling_json(None, name, role, ruling),
            "void": None if r.void is None else {"reason": r.void.reason, "clause": r.void.clause},
            "held": [str(c) for c in self.rt.table.held],
        }


@dataclass(frozen=True)
class Person:
    """Who acts at the table: the account's name and the position they hold."""

    name: str
    role: Role


def _power_failure(r: Round, role: Role) -> Ruling:
    """A power failure (MBS 5.17; RWS 5.4) as the server applies it: an
    option to withdraw stays open for the players to take themselves."""
    then = r.power_failure(role)
    game = r.game
    if then == "withdrawal" and r.withdrawal_open is not None:
        return Ruling(r.withdrawal_open.clause, "withdrawal")
    if then == "void" and r.void is not None:
        return Ruling(r.void.clause, "void")
    clause = game.clause("power_failure_established") or game.clause("power_failure") or ""
    return Ruling(clause or game.clause("unforeseen") or "not covered by the rules", then)
