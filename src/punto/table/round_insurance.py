"""Insurance Plus in a round (Tiger Buffalo 4.1.15; RWS 5.14): the offers, the
caps, placing, waiving and offering again (a part of :class:`punto.table.round.Round`).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_DOWN, Decimal

from punto.errors import (
    ActionError,
    InsuranceError,
    PhaseError,
    can,
)
from punto.money import CENT, format_money
from punto.rules.coup import Deal, Side
from punto.rules.insurance import InsuranceOffer, Moment, moment_of
from punto.table.events import (
    InsurancePlaced,
    InsuranceReoffered,
    InsuranceWaived,
)
from punto.table.insurance_rules import check_waiver, no_offer_refusal
from punto.table.roles import Role
from punto.table.round_core import RoundCore
from punto.table.round_state import (
    Phase,
)


class RoundInsurance(RoundCore):
    """The Insurance Plus actions of a round."""

    # -- Insurance Plus --------------------------------------------------------------------

    def insurance_offers(self) -> list[InsuranceOffer]:
        """The Insurance Plus offers open now (RWS 3.12, 4.1.15)."""
        if not self.insurance_offered or self.phase is not Phase.DEALING:
            return []
        moment = moment_of(self.deal)
        if moment is None or (moment is Moment.PLAYER_THIRD_CARD and self._s.insurance_waived):
            return []
        assert self.game.insurance is not None
        return self.game.insurance.offers(self.deal)

    def missed_insurance_offers(self, moment: Moment) -> list[InsuranceOffer]:
        """The offers that were open at ``moment``, if that moment has passed
        (the next card is out): what a Dealer who neglected to offer Insurance
        left out (RWS 5.14)."""
        if not self.insurance_offered or len(self.deal.cards) <= moment.cards:
            return []
        then = Deal(self.deal.cards[: moment.cards])
        if moment_of(then) is not moment:
            return []
        if moment is Moment.PLAYER_THIRD_CARD and self._s.insurance_waived:
            return []
        assert self.game.insurance is not None
        return self.game.insurance.offers(then)

    def original_bet(self, player: str, side: Side) -> Decimal:
        """The player's Original Bet on ``side`` (RWS 1.16), active stakes."""
        return sum(
            (b.stake for b in self.active_bets if b.player == player and b.wager == side.value),
            Decimal(0),
        )

    def insurance_cap(self, player: str, offer: InsuranceOffer) -> Decimal:
        """What ``player`` may still stake on ``offer`` (3.12.2)."""
        assert self.game.insurance is not None
        already = sum(
            (
                b.stake
                for b in self.active_bets
                if b.player == player
                and b.moment is offer.moment
                and b.wager == f"{offer.insures.value}_insurance"
            ),
            Decimal(0),
        )
        return self.game.insurance.max_stake(
            offer, self.original_bet(player, offer.insures), already, self.limits.maximum
        )

    def late_insurance_cap(self, player: str, offer: InsuranceOffer) -> Decimal:
        """What ``player`` may still stake on a neglected offer made again
        (RWS 5.14.1): the total *payout* of the Insurance bets so placed on a
        hand may not exceed the Original Bet on it -- stricter than the stake
        cap of 3.12.2, which applies as well."""
        original = self.original_bet(player, offer.insures)
        paid = Decimal(0)
        for b in self.active_bets:
            if b.player == player and b.late and b.wager == f"{offer.insures.value}_insurance":
                assert b.moment is not None
                late_offer = self._insurance_offer_at(b.wager, b.moment)
                assert late_offer is not None
                paid += _payout(b.stake, late_offer)
        room = max(Decimal(0), original - paid)
        by_payout = (room * offer.odds.denominator / offer.odds.numerator).quantize(
            CENT, rounding=ROUND_DOWN
        )
        return min(by_payout, self.insurance_cap(player, offer))

    def check_place_insurance(
        self, player: str, wager: str, stake: Decimal, moment: Moment | None = None
    ) -> None:
        if not self.insurance_offered:
            raise InsuranceError(
                "no Insurance is offered at this table",
                # a private table's notice (RWS 4.2.2), or a game without Insurance
                clause=self._clause("no_insurance_notice") or self.game.layout_clause,
            )
        chosen = self.game.wager(wager, self.layout)
        if chosen.insures is None:
            raise InsuranceError(
                f"{wager} is not an Insurance Plus bet",
                clause=self._clause("insurance_moments"),
                hint="place it while betting is open; Insurance is player_insurance or "
                "banker_insurance",
            )
        self._check_no_option_open()
        current = moment_of(self.deal) if self.phase is Phase.DEALING else None
        if moment is not None and moment is not current:
            self._check_late_insurance(player, chosen.insures, stake, moment)
            return
        offers = [o for o in self.insurance_offers() if o.insures is chosen.insures]
        if not offers:
            raise InsuranceError(
                f"no {chosen.name} is offered now", **no_offer_refusal(self, chosen.insures)
            )
        cap = self.insurance_cap(player, offers[0])
        if stake <= 0 or stake > cap or stake % CENT:
            raise InsuranceError(
                f"{player} may stake at most {format_money(cap)} on {chosen.name} now",
                clause="3.11, 3.12.2",
                hint="Insurance needs an Original Bet on the hand and may not exceed it "
                "(nor, at 10 to 1, a quarter of the table maximum)",
            )

    def _check_late_insurance(self, player: str, side: Side, stake: Decimal, when: Moment) -> None:
        late = self._s.late_insurance
        if late is None or late.moment is not when or self.phase is not Phase.DEALING:
            raise InsuranceError(
                f"Insurance {when.words} is no longer offered",
                clause=self._clause("insurance_forfeit") or "5.3",
                hint="a player who has not bet before the next card is drawn has forgone it; "
                "an offer the Dealer neglected is made again only by a Pit Manager (5.14.1)",
            )
        if player not in late.players:
            raise InsuranceError(
                f"the neglected offer {when.words} is made again to "
                f"{', '.join(late.players)}, not to {player}",
                clause=late.clause,
            )
        offer = next((o for o in self.missed_insurance_offers(when) if o.insures is side), None)
        if offer is None:
            raise InsuranceError(
                f"no {side.value} insurance was offered {when.words}", clause=late.clause
            )
        cap = self.late_insurance_cap(player, offer)
        if stake <= 0 or stake > cap or stake % CENT:
            raise InsuranceError(
                f"{player} may stake at most {format_money(cap)} on {side.value} insurance "
                f"{when.words} now",
                clause=late.clause,
                hint="the total payout on Insurance bets offered again may not exceed the "
                "Original Bet",
            )

    def can_place_insurance(
        self, player: str, wager: str, stake: Decimal, moment: Moment | None = None
    ) -> bool:
        return can(lambda: self.check_place_insurance(player, wager, stake, moment))

    def place_insurance(
        self,
        player: str,
        wager: str,
        stake: Decimal,
        *,
        moment: Moment | None = None,
        role: Role = Role.PLAYER,
        bet_id: str | None = None,
    ) -> str:
        """An Insurance Plus bet on the open offer; a player who has not
        answered before the next card is drawn has forgone it (RWS 5.3).
        ``moment``: the neglected moment of an offer made again (5.14.1)."""
        self.check_place_insurance(player, wager, stake, moment)
        moment = moment or moment_of(self.deal)
        assert moment is not None
        position, seated = next(
            ((b.position, b.seated) for b in self.active_bets if b.player == player), (1, True)
        )
        bet_id = bet_id or f"b{self._s.orders + 1}"
        if bet_id in self._s.bets:
            raise ActionError(f"bet id {bet_id!r} is taken")
        self._emit(InsurancePlaced(bet_id, player, position, wager, stake, moment, seated, role))
        return bet_id

    def check_waive_insurance(
        self, role: Role = Role.DEALER, *, requester: str | None = None
    ) -> None:
        """Why the House may not consent now to the highest bettor squeezing
        (or having exposed) the Banker's third card first (RWS 3.14); see
        :func:`punto.table.insurance_rules.check_waiver`."""
        check_waiver(self, role, requester)

    def can_waive_insurance(
        self, role: Role = Role.DEALER, *, requester: str | None = None
    ) -> bool:
        return can(lambda: self.check_waive_insurance(role, requester=requester))

    def waive_insurance(
        self, reason: str, role: Role = Role.DEALER, *, requester: str | None = None
    ) -> None:
        """RWS 3.14: the highest bettor squeezes the Banker's third card first,
        or has it exposed first -- Insurance after the Player's third card is
        waived for everyone this round."""
        self.check_waive_insurance(role, requester=requester)
        if requester is not None:
            reason = f"{reason} (requested by {requester})"
        self._emit(InsuranceWaived(reason, role))

    def check_reoffer_insurance(
        self, moment: Moment, players: Sequence[str], role: Role = Role.PIT_MANAGER
    ) -> None:
        clause = self._clause("insurance_forgotten_open")
        if clause is None or self.game.insurance is None:
            raise ActionError(
                f"{self.game.title} has no Insurance",
                clause=self.game.layout_clause,  # the wagers it offers
            )
        self._check_role(role, Role.PIT_MANAGER, "offer a neglected Insurance again", clause)
        if not self.insurance_offered:
            raise InsuranceError(
                "no Insurance is offered at this table",
                clause=self._clause("no_insurance_notice"),
                hint="players at a table with the notice accepted that none is offered",
            )
        if self.phase is not Phase.DEALING:
            raise PhaseError("Insurance is offered again while the coup is dealt", clause=clause)
        self._check_no_option_open()
        if self.insured_outcome_established():
            raise PhaseError(
                "an outcome is established (the Player and Banker hands are decided): "
                "a neglected Insurance is not offered again",
                clause=clause,
                hint="return the Original Bet of players whose Insurance would have won "
                f"({self._clause('insurance_forgotten_established')})",
            )
        offers = self.missed_insurance_offers(moment)
        if not offers:
            raise InsuranceError(
                f"no Insurance offer {moment.words} was missed",
                clause=clause,
                hint="an open offer is taken as it stands; only a moment that has passed "
                "is offered again",
            )
        sides = {o.insures for o in offers}
        affected = [p for p in self.players if any(self.original_bet(p, side) for side in sides)]
        if not players or any(p not in affected for p in players):
            raise InsuranceError(
                f"the players affected by the neglected offer {moment.words} are "
                f"{', '.join(affected) or 'none'}",
                clause=clause,
                hint="Insurance insures an Original Bet on the hand offered",
            )

    def can_reoffer_insurance(
        self, moment: Moment, players: Sequence[str], role: Role = Role.PIT_MANAGER
    ) -> bool:
        return can(lambda: self.check_reoffer_insurance(moment, players, role))

    def reoffer_insurance(
        self, moment: Moment, players: Sequence[str], role: Role = Role.PIT_MANAGER
    ) -> None:
        """RWS 5.14.1: a Pit Manager offers a neglected Insurance to the
        affected players before play continues; they bet with
        ``place_insurance(..., moment=moment)``."""
        self.check_reoffer_insurance(moment, players, role)
        clause = self._clause("insurance_forgotten_open") or ""
        self._emit(InsuranceReoffered(moment, tuple(players), clause, role))


def _payout(stake: Decimal, offer: InsuranceOffer) -> Decimal:
    """What an Insurance bet of ``stake`` on ``offer`` pays if it wins."""
    return stake * offer.odds.numerator / offer.odds.denominator
