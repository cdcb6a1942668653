"""Irregularity procedures at a table on the server (:class:`Procedures`):
which of :data:`~punto.table.replay.IRREGULARITIES` a table's game covers,
what the server knows of their parameters, and running one with the ledger,
the timers and the watchers following the round."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from punto.errors import PuntoError
from punto.table.irregularities import NotCoveredError, Ruling
from punto.table.replay import (
    IRREGULARITIES,
    ActionInputError,
    ActionSpec,
    check_withdrawing,
    read_action,
    ruling_json,
)
from punto.table.roles import Role
from punto.table.round import Phase, Round

if TYPE_CHECKING:
    from punto.server.runtime import TableRuntime

__all__ = ["DEDICATED_PROCEDURES", "Procedures", "covered_procedures"]

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
    from punto.games import get_game
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


class Procedures:
    """The irregularity procedures of one table."""

    def __init__(self, runtime: TableRuntime) -> None:
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

    def irregularity(self, spec: ActionSpec, args: Mapping[str, Any]) -> dict[str, Any]:
        """Run the irregularity procedure ``spec`` (from
        :data:`punto.table.replay.IRREGULARITIES`) with its parameters read
        (``role`` among them) on the round in play, or on the last round where
        the procedure allows a finished one.  The procedure is tried on a copy
        first (a refusal writes nothing); the players in ``withdrawing`` must
        have wagers in the round and the procedure must give them the option.
        Then the ledger follows the round (voided and withdrawn wagers are
        returned), the automatic dealer's timers are set as after a void, and
        the watchers are told.  A settled round is paid on the ledger: a
        procedure that changes its results (a void after settlement, MBS 5.2;
        RWS 5.5.3) resettles the ledger first (:meth:`_resettle_first`)."""
        assert spec.run is not None
        assert spec.irregularity
        with self.rt.lock:
            self.rt.intake.quiesce()
            r = self.rt.live_round()
            withdrawing = tuple(args.get("withdrawing") or ())
            if withdrawing:
                eligible = [p for p in r.players if any(b.player == p for b in r.active_bets)]
                strangers = [p for p in dict.fromkeys(withdrawing) if p not in eligible]
                if strangers:
                    raise ActionInputError(
                        f"withdrawing: {', '.join(strangers)} "
                        f"{'has' if len(strangers) == 1 else 'have'} no wager in round "
                        f"{r.round_id} to withdraw",
                        hint="players with wagers: " + (", ".join(eligible) or "none"),
                    )
                check_withdrawing(spec, r, args, withdrawing)
            was_settled = r.phase is Phase.SETTLED
            if was_settled:
                self.rt.books.resettle_first(spec, r, args)
            try:
                ruling: Ruling = spec.run(r, args)
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
            role: Role = args["role"]
            return {
                "round_id": r.round_id,
                "phase": r.phase.value,
                "ruling": ruling_json(None, spec.name, role, ruling),
                "void": None
                if r.void is None
                else {"reason": r.void.reason, "clause": r.void.clause},
                "held": [str(c) for c in self.rt.table.held],
            }
