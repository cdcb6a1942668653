"""What every irregularity procedure shares: the ruling it gives, the game's
clause for it (or :class:`NotCoveredError`), the checks of the round's phase,
the withdrawal options, and running a procedure atomically (tried on a copy of
the round first).  The procedures are in :mod:`punto.table.irregularities`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Concatenate, ParamSpec, TypeVar

from punto.errors import ActionError, PhaseError
from punto.rules.cards import Card
from punto.table import handling
from punto.table.roles import Role
from punto.table.round import Phase, Round
from punto.table.round_state import IN_PLAY


class NotCoveredError(ActionError):
    """The rules of this game have no procedure for the irregularity: it is
    referred to the Gaming Shift Manager (MBS 6.1; RWS 5.19)."""


@dataclass(frozen=True)
class Ruling:
    """What a procedure did, under which clause."""

    clause: str
    #: void / continue / withdrawal / options / reopened / offered / returned / stand
    consequence: str
    #: players who took a withdrawal option (all their wagers returned)
    withdrawn: tuple[str, ...] = field(default=(), repr=False)
    #: bets returned one by one (RWS 5.14.2)
    returned: tuple[str, ...] = field(default=(), repr=False)
    #: cards out of the device that this coup does not use: they go to the next
    #: round (recorded as ``CardsHeld``; a live table deals them first)
    next_round: tuple[Card, ...] = field(default=(), repr=False)
    #: cards determined missing and replaced (MBS 5.11)
    missing: tuple[Card, ...] = field(default=(), repr=False)
    #: set-aside cards the coup did not need (MBS 5.11.4); not held for the next
    #: round: every card is replaced before it commences (5.11.5)
    unused: tuple[Card, ...] = field(default=(), repr=False)


_P = ParamSpec("_P")


_R = TypeVar("_R")


def atomic(
    procedure: Callable[Concatenate[Round, _P], _R],
) -> Callable[Concatenate[Round, _P], _R]:
    """Run ``procedure`` on a copy of the round first: if any step is refused
    nothing is written; otherwise run it on the round itself."""

    @functools.wraps(procedure)
    def run(round_: Round, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if "withdrawing" in kwargs:  # an iterator would be spent by the trial run
            kwargs["withdrawing"] = tuple(kwargs["withdrawing"])  # type: ignore[arg-type]
        copy = round_.fork()
        trial = procedure(copy, *args, **kwargs)
        # The table checks the procedure's events as a whole (the cards it
        # says came out of the device, in order) before any is written.
        round_.vet(copy.events[len(round_.events) :])
        wanted: tuple[str, ...] = tuple(kwargs.get("withdrawing") or ())  # type: ignore[arg-type]
        if wanted and isinstance(trial, Ruling):
            refused = [p for p in wanted if p not in trial.withdrawn]
            if refused:
                # The procedure's clause refuses when it is one (RWS 5.8.1: no
                # option with an outcome established); where the rules have none
                # ("not covered"), the game's "no withdrawal after No more bets"
                # does (No Commission and Tournament 5.7).
                covered = trial.clause[:1].isdigit()
                raise ActionError(
                    f"{', '.join(refused)} cannot withdraw: "
                    f"{f'{trial.clause} gives' if covered else 'the rules give'} no "
                    f"withdrawal option here ({trial.consequence})",
                    clause=trial.clause
                    if covered
                    else round_.game.clause("late_withdrawal") or trial.clause,
                    hint="after 'No more bets' wagers win or lose on the outcome",
                )
        with round_.checked():
            return procedure(round_, *args, **kwargs)

    return run


def game_clause(round_: Round, key: str, what: str, *, literal: str | None = None) -> str:
    """The clause of this game for ``key``, or :class:`NotCoveredError`."""
    game = round_.game
    clause = game.clause(key) or (game.clause(literal) if literal else None)
    if clause is None:
        raise NotCoveredError(
            f"the {game.title} rules have no procedure for {what}",
            clause=game.clause("unforeseen"),
            hint="refer it to the Gaming Shift Manager: unforeseen(round, reason, void=...)",
        )
    return clause


def by_method_c(round_: Round, said: bool, key: str) -> bool:
    """Whether the Method C procedure (MBS 5.12) applies to ``round_``: by
    the Method the round is conducted by, never by the caller's word alone
    (``said``: the caller reports a Method C irregularity)."""
    method = handling.method_of(round_)
    if method is None:
        return said  # rules without Methods: game_clause says 5.12 is not covered
    if said and method is not handling.Method.C:
        raise ActionError(
            f"this round is conducted by Method {method.value}: the Method C procedure "
            "applies only when operating the game by Method C",
            clause=game_clause(round_, key, "Method C dealing"),
            hint="report it without the Method C flag (the Method A/B procedure applies)",
        )
    return method is handling.Method.C


def unforeseen_clause(round_: Round) -> str:
    return round_.game.clause("unforeseen") or "not covered by the rules"


def check_role(role: Role, required: Role, action: str, clause: str) -> None:
    role.check_acts_as(required, action, clause)


def stands_clause(round_: Round, clause: str) -> str:
    """Where the rules say previous rounds stand."""
    return round_.game.clause("previous_rounds_stand") or clause


def check_in_play(round_: Round, clause: str) -> None:
    if round_.phase is Phase.NEW:
        raise PhaseError("the round has not opened yet", clause=clause)
    if round_.phase not in IN_PLAY:
        raise PhaseError(
            f"the round is {round_.phase.value}: previous rounds stand",
            clause=stands_clause(round_, clause),
        )


def check_dealing(round_: Round, clause: str) -> None:
    check_in_play(round_, clause)
    if round_.phase is Phase.BETTING:
        raise PhaseError("no card is out yet: bets are still open", clause=clause)


def give_options(
    round_: Round, clause: str, reason: str, withdrawing: Iterable[str], role: Role
) -> tuple[str, ...]:
    """Give every player the option to withdraw all their wagers; the
    players in ``withdrawing`` take it; then the option closes."""
    round_.offer_withdrawal(clause, reason, role)
    taken = tuple(dict.fromkeys(withdrawing))
    for player in taken:
        round_.withdraw_player(player)
    round_.close_withdrawal(role)
    return taken


def deal_as_needed(round_: Round, cards: Sequence[Card], source: str) -> tuple[Card, ...]:
    """Deal ``cards`` where the Table of Play gives them, as far as the coup
    needs them; returns the cards it did not need."""
    taken = 0
    for card in cards:
        if round_.phase is not Phase.DEALING:
            break
        round_.deal_card(card, source)
        taken += 1
    return tuple(cards[taken:])


def hold_for_next(
    round_: Round, cards: tuple[Card, ...], clause: str, role: Role
) -> tuple[Card, ...]:
    """Hold ``cards`` (out of the device, not used by this coup) for the next
    round; returns them.  RWS 5.8 says so; MBS is silent and punto reads it
    the same way (docs/interpretations.md)."""
    if cards:
        round_.hold_for_next_round(cards, round_.game.clause("excess_cards") or clause, role)
    return cards


def established_options(
    round_: Round, clause: str, reason: str, withdrawing: Iterable[str], role: Role
) -> tuple[str, ...] | None:
    """RWS 5.13 options, "provided no outcome has been established"; None
    when an outcome is established and no option is given."""
    if round_.outcome_established():
        return None
    return give_options(round_, options_clause(round_), f"{clause}: {reason}", withdrawing, role)


def ruling_with_options(
    clause: str, taken: tuple[str, ...] | None, next_round: tuple[Card, ...] = ()
) -> Ruling:
    if taken is None:
        return Ruling(clause, "continue", next_round=next_round)
    return Ruling(clause, "options", withdrawn=taken, next_round=next_round)


def options_clause(round_: Round) -> str:
    return game_clause(round_, "dealing_error_options", "dealing-error options")


def is_rws(round_: Round) -> bool:
    """Rules with the dealing-error options of RWS 5.13."""
    return round_.game.clause("dealing_error_options") is not None


def void_round(
    round_: Round, clause: str, reason: str, role: Role, *, settled: bool = False
) -> Ruling:
    if not (settled and round_.phase is Phase.SETTLED):
        check_in_play(round_, clause)
    round_.void_round(reason, clause, role, settled=settled)
    return Ruling(clause, "void")
