"""The actions the irregularity procedures are built from: withdrawal options,
noting an irregularity, returning a bet, voiding the round and a power
failure (a part of :class:`punto.table.round.Round`).
"""

from __future__ import annotations

from punto.errors import (
    ActionError,
    BettingClosedError,
    PhaseError,
    can,
)
from punto.table.events import (
    BetReturned,
    IrregularityNoted,
    PlayerWithdrew,
    PowerFailed,
    RoundVoided,
    WithdrawalClosed,
    WithdrawalOffered,
)
from punto.table.grants import check_grant
from punto.table.roles import Role
from punto.table.round_core import RoundCore
from punto.table.round_state import (
    IN_PLAY,
    Phase,
)


class RoundIrregular(RoundCore):
    """The withdrawal options and the actions that end, interrupt or mark a round."""

    # -- withdrawal options ------------------------------------------------------------------

    def check_offer_withdrawal(self, clause: str, role: Role = Role.DEALER) -> None:
        """Why players may not be given the option to withdraw under
        ``clause`` now: only a clause of this game's ``[grants.withdrawal]``
        gives it, with its conditions met (:mod:`punto.table.grants`)."""
        check_grant(self, "withdrawal", clause, role)
        if self._s.withdrawal is not None:
            raise PhaseError(
                "a withdrawal option is already open", clause=self._s.withdrawal.clause
            )

    def can_offer_withdrawal(self, clause: str, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_offer_withdrawal(clause, role))

    def offer_withdrawal(self, clause: str, reason: str, role: Role = Role.DEALER) -> None:
        """Give every player the option to withdraw their wagers still
        undecided (all of them, where the clause applies only when none is)."""
        self.check_offer_withdrawal(clause, role)
        self._emit(WithdrawalOffered(clause, reason, role))

    def check_withdraw_player(self, player: str) -> None:
        if self._s.withdrawal is None:
            raise BettingClosedError(
                "no withdrawal option is open",
                clause=self._clause("late_withdrawal"),
                hint="after 'No more bets' wagers win or lose on the outcome",
            )
        if not self.undecided_bets(player):
            decided = any(b.player == player for b in self.active_bets)
            raise ActionError(
                f"the cards have decided every wager of {player}: they win or lose on the outcome"
                if decided
                else f"{player} has no wager to withdraw",
                clause=self._option_clause(),
                hint="a withdrawal option returns only wagers still undecided",
            )

    def _option_clause(self) -> str | None:
        """The clause that refuses a withdrawal the open option does not
        give: the option's own, or, for an option the rules do not cover (the
        Shift Manager's, at No Commission and the Tournament), the game's "no
        withdrawal after No more bets" (their 5.7)."""
        assert self._s.withdrawal is not None
        clause = self._s.withdrawal.clause
        return clause if clause[:1].isdigit() else self._clause("late_withdrawal") or clause

    def can_withdraw_player(self, player: str) -> bool:
        return can(lambda: self.check_withdraw_player(player))

    def withdraw_player(self, player: str, role: Role = Role.PLAYER) -> None:
        """The player takes the option: all their wagers still undecided are
        returned; those the cards have decided settle."""
        self.check_withdraw_player(player)
        self._emit(PlayerWithdrew(player, role))

    def check_close_withdrawal(self, role: Role = Role.DEALER) -> None:
        self._check_role(role, Role.DEALER, "close the withdrawal option", None)
        if self._s.withdrawal is None:
            raise PhaseError("no withdrawal option is open")

    def can_close_withdrawal(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_close_withdrawal(role))

    def close_withdrawal(self, role: Role = Role.DEALER) -> None:
        self.check_close_withdrawal(role)
        self._emit(WithdrawalClosed(role))

    # -- irregularities that end, interrupt or mark the round ---------------------------------

    def check_note_irregularity(
        self, clause: str, role: Role = Role.DEALER, *, required: Role = Role.DEALER
    ) -> None:
        self._check_role(role, required, "deal with this irregularity", clause)
        self._check_in_play("record an irregularity", clause)

    def can_note_irregularity(
        self, clause: str, role: Role = Role.DEALER, *, required: Role = Role.DEALER
    ) -> bool:
        return can(lambda: self.check_note_irregularity(clause, role, required=required))

    def note_irregularity(
        self, clause: str, reason: str, role: Role = Role.DEALER, *, required: Role = Role.DEALER
    ) -> None:
        """Record an irregularity and what was done about it."""
        self.check_note_irregularity(clause, role, required=required)
        self._emit(IrregularityNoted(clause, reason, role))

    def check_return_bet(self, bet_id: str, clause: str, role: Role = Role.PIT_MANAGER) -> None:
        """Why bet ``bet_id`` may not be returned under ``clause`` now: only a
        clause of this game's ``[grants.return_bet]`` returns one, with its
        conditions met."""
        bet = self._bet(bet_id)
        check_grant(self, "return_bet", clause, role, bet=bet)
        if bet.status != "active":
            raise ActionError(f"bet {bet_id} is already {bet.status}", clause=clause)
        insured = [
            b.bet_id
            for b in self.active_bets
            if b.player == bet.player and b.wager == f"{bet.wager}_insurance"
        ]
        # Insurance insures an Original Bet (RWS 3.11): returning the Original
        # Bet alone would leave an Insurance bet with nothing to insure.  RWS
        # 5.14.2 says what to return itself; an Insurance bet placed before it
        # then settles on the Original Bet that stands -- none: it comes back
        # (bet_limits.settled_stakes; docs/interpretations.md).
        if insured and clause != self._clause("insurance_forgotten_established"):
            raise ActionError(
                f"{bet.player}'s Insurance {', '.join(insured)} insures bet {bet_id}",
                clause=self._clause("insurance_original") or clause,
                hint="return the Insurance bets on that hand first",
            )

    def can_return_bet(self, bet_id: str, clause: str, role: Role = Role.PIT_MANAGER) -> bool:
        return can(lambda: self.check_return_bet(bet_id, clause, role))

    def return_bet(
        self, bet_id: str, clause: str, reason: str, role: Role = Role.PIT_MANAGER
    ) -> None:
        """Return one bet in play (RWS 5.14.2, or a Shift Manager's decision:
        MBS 6.1, RWS 5.19)."""
        self.check_return_bet(bet_id, clause, role)
        self._emit(BetReturned(bet_id, clause, reason, role))

    def check_void(
        self,
        role: Role,
        clause: str,
        *,
        required: Role = Role.DEALER,
        settled: bool = False,
    ) -> None:
        """Why the round may not be voided under ``clause`` now: only a clause
        of this game's ``[grants.void]`` voids it, with its conditions met;
        ``required`` is a higher position the caller asks for.  ``settled``:
        the caller means to void a round already settled, which only a clause
        granting it in the settled phase does, if it is noticed before the
        next round commences (MBS 5.2 of No Commission and Tournament; RWS
        5.5.3)."""
        if self.phase is Phase.SETTLED and not settled and self.game.grant("void", clause):
            self._check_role(role, required, "void the round", clause)
            raise PhaseError("the round is settled; previous rounds stand", clause=clause)
        check_grant(self, "void", clause, role, required=required)

    def can_void(
        self, role: Role, clause: str, *, required: Role = Role.DEALER, settled: bool = False
    ) -> bool:
        return can(lambda: self.check_void(role, clause, required=required, settled=settled))

    def void_round(
        self,
        reason: str,
        clause: str,
        role: Role = Role.DEALER,
        *,
        required: Role = Role.DEALER,
        settled: bool = False,
    ) -> None:
        """Void the round: every bet is returned; previous rounds stand."""
        self.check_void(role, clause, required=required, settled=settled)
        self._emit(RoundVoided(reason, clause, role))

    def check_power_failure(self, role: Role = Role.DEALER) -> None:
        clause = self._clause("power_failure")
        self._check_role(role, Role.DEALER, "declare a power failure", clause)
        if self.phase not in IN_PLAY:
            raise PhaseError("no round is in play", clause=clause)

    def can_power_failure(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_power_failure(role))

    def power_failure(self, role: Role = Role.DEALER) -> str:
        """A power failure (MBS 5.17; RWS 5.4): ``PowerFailed``, then its
        consequence.  With an outcome established play continues; without
        one, MBS gives each player the option to withdraw all their wagers
        (``WithdrawalOffered``; an option already open serves) and RWS voids
        the round (``RoundVoided``).  Rules with no such clause (Tiger No
        Commission, Baccarat Tournament) change nothing: play continues.
        Returns what followed: ``continue``, ``withdrawal`` or ``void``."""
        self.check_power_failure(role)
        established = self.phase is Phase.RESULT or self.outcome_established()
        self._emit(PowerFailed(role))
        policy = self.game.limit_policy("power_failure")
        if established or policy is None:
            return "continue"
        clause = self._clause("power_failure") or ""
        reason = "power failure with no outcome established"
        if policy == "void-unless-established":
            self._emit(RoundVoided(reason, self._clause("power_failure_void") or clause, role))
            return "void"
        if self._s.withdrawal is None:
            self._emit(
                WithdrawalOffered(self._clause("power_failure_withdraw") or clause, reason, role)
            )
        return "withdrawal"
