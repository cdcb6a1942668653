"""When Insurance Plus may be bet, waived or is refused, and under which
clause (RWS 3.12, 3.14, 4.1.15, 5.3): the checks a :class:`Round` makes,
kept here so that the round's module does not grow.

>>> from decimal import Decimal
>>> from punto.rules.cards import parse_cards
>>> from punto.rules.games import get_game
>>> from punto.table.limits import TableLimits
>>> from punto.table.round import Round
>>> r = Round(get_game("tiger-buffalo"), limits=TableLimits(Decimal(10), Decimal(10000)), layout="A")
>>> r.open(); r.place_bet("ann", 1, "player", Decimal(300)); r.close_betting()
'b1'
>>> for card in parse_cards("2H 4C 3D KS 5H"):
...     r.deal_card(card)
>>> no_offer_refusal(r, Side.PLAYER)["clause"]  # Player Insurance was open after four cards
'5.3'
"""

from __future__ import annotations

from decimal import Decimal
from typing import Protocol

from punto.errors import ActionError, PhaseError
from punto.rules.coup import Deal, Side
from punto.rules.game import Game
from punto.rules.insurance import InsuranceOffer, Moment, moment_of
from punto.table.roles import Role
from punto.table.round_state import Phase, TableBet


class InsuredRound(Protocol):
    """What the Insurance Plus checks read of a round (typed structurally so
    this module need not import the round's)."""

    @property
    def game(self) -> Game: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def deal(self) -> Deal: ...
    @property
    def active_bets(self) -> list[TableBet]: ...
    @property
    def players(self) -> list[str]: ...
    @property
    def insurance_waived(self) -> bool: ...
    def missed_insurance_offers(self, moment: Moment) -> list[InsuranceOffer]: ...
    def original_bet(self, player: str, side: Side) -> Decimal: ...


__all__ = ["check_waiver", "highest_bettors", "no_offer_refusal"]


def no_offer_refusal(round_: InsuredRound, side: Side) -> dict[str, str | None]:
    """The clause and hint of a refused Insurance bet on ``side`` with no
    offer open: waived (3.14), forgone once the next card is drawn (5.3),
    not yet a moment of Insurance (3.12), or a row the pay table does not
    offer (4.1.15)."""
    game = round_.game
    # the phase by value: this module is imported by punto.table.round
    dealing = round_.phase.value == "dealing"
    now = moment_of(round_.deal) if dealing else None
    if now is Moment.PLAYER_THIRD_CARD and round_.insurance_waived:
        return {
            "clause": game.clause("squeeze_waiver"),
            "hint": "the highest bettor squeezed or exposed the Banker's third card first: "
            "Insurance after the Player's third card is waived for everyone this round",
        }
    for moment in Moment:
        if moment is not now and any(
            o.insures is side for o in round_.missed_insurance_offers(moment)
        ):
            return {
                "clause": game.clause("insurance_forfeit"),
                "hint": f"Insurance {moment.words} was open until the next card was drawn; "
                f"a player who had not bet by then has forgone it",
            }
    if now is None:
        return {
            "clause": game.clause("insurance_moments"),
            "hint": "Insurance is bet after the initial four cards, and after the Player's "
            "third card, before the next card is drawn",
        }
    return {
        "clause": game.clause("insurance_pay_table"),
        "hint": "Insurance is offered on the rows of the pay table only",
    }


def check_waiver(round_: InsuredRound, role: Role, requester: str | None) -> None:
    """Why the House may not consent now to the highest bettor squeezing
    (or having exposed) the Banker's third card before the Player's third
    card is opened (RWS 3.14).  The Player's third card may already be out
    face down -- that is 3.14's own scenario -- so the waiver is possible
    until the Banker's third card is dealt, as long as nobody has bet
    Insurance after the Player's third card (which would show it was
    opened).  ``requester``, if named, must be a player with the highest
    Bet (:func:`highest_bettors`)."""
    game = round_.game
    clause = game.clause("squeeze_waiver")
    if clause is None:
        raise ActionError(
            f"{game.title} has no Insurance to waive",
            clause=game.layout_clause,  # the wagers it offers
        )
    role.check_acts_as(Role.DEALER, "waive Insurance", clause)
    if round_.phase.value != "dealing":
        raise PhaseError("the waiver applies during the deal", clause=clause)
    dealt = len(round_.deal.cards)
    third = moment_of(round_.deal) is Moment.PLAYER_THIRD_CARD
    if (
        dealt < Moment.FOUR_CARDS.cards
        or dealt > Moment.PLAYER_THIRD_CARD.cards
        or (dealt == Moment.PLAYER_THIRD_CARD.cards and not third)
    ):
        raise PhaseError(
            "the waiver is given after the initial four cards and before the Banker's "
            "third card is dealt",
            clause=clause,
            hint="it concerns a Banker third card still to come",
        )
    if third and any(b.moment is Moment.PLAYER_THIRD_CARD for b in round_.active_bets):
        raise PhaseError(
            "Insurance after the Player's third card has been bet: the card was opened",
            clause=clause,
        )
    if requester is not None:
        highest = highest_bettors(round_)
        if requester not in highest:
            raise ActionError(
                f"{requester} does not have the highest Bet",
                clause=clause,
                hint=f"the highest Bet is {', '.join(highest) or 'nobody'}'s",
            )


def highest_bettors(round_: InsuredRound) -> list[str]:
    """The players with the highest Bet (RWS 3.14): the largest total on
    the Player or the Banker hand, all of them if several are equal."""
    best = {
        p: max(round_.original_bet(p, Side.PLAYER), round_.original_bet(p, Side.BANKER))
        for p in round_.players
    }
    top = max(best.values(), default=Decimal(0))
    return [p for p, amount in best.items() if top and amount == top]
