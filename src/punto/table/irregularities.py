"""Irregularities: the procedures of sections 5 and 6 of each rules file,
played on a :class:`~punto.table.round.Round` through its public actions.

Each procedure is one function.  It checks that the person acting holds the
position the clause names (or a higher one, MBS 6.2; RWS 1.17), finds the
clause in the game's data, and carries out the consequence as round
actions, each of which appends one event: a void (``RoundVoided``), a
withdrawal option (``WithdrawalOffered`` / ``PlayerWithdrew`` /
``WithdrawalClosed``), a reconstruction (``CardsReconstructed``), cards dealt
(``CardDealt``), cards out of the device that the coup does not use, held
for the next round (``CardsHeld``), a record of what was done
(``IrregularityNoted``).
"Outcome established" is always computed from the cards
(:meth:`Round.outcome_established`), never given by hand.

A procedure is atomic: it is first tried on a copy of the round
(:meth:`Round.fork`), so one that is refused leaves no event behind.  Where
players have an option (withdraw, or have their bet returned) their choices
are collected while the game is paused and passed as ``withdrawing``; the
option is opened, taken by each of them, and closed, all in the log.

Where a rules file has no procedure for an irregularity,
:class:`NotCoveredError` says so; the Gaming Shift Manager then decides it
with :func:`unforeseen` (MBS 6.1; RWS 5.19).

>>> from decimal import Decimal
>>> from punto.rules.cards import parse_cards
>>> from punto.rules.games import get_game
>>> from punto.table.limits import TableLimits
>>> from punto.table.round import Round
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)))
>>> r.open(); r.place_bet("ann", 1, "banker", Decimal(100)); r.close_betting()
'b1'
>>> r.deal_card(parse_cards("9H")[0])
>>> foreign_card(r)
Ruling(clause='5.1', consequence='void')
>>> [(s.bet.player, s.outcome, s.net) for s in r.results()]
[('ann', 'void', Decimal('0'))]
"""

from __future__ import annotations

from punto.table.irregularities_dealing import card_exposed_in_error as card_exposed_in_error
from punto.table.irregularities_dealing import card_face_up_in_device as card_face_up_in_device
from punto.table.irregularities_dealing import cards_in_wrong_order as cards_in_wrong_order
from punto.table.irregularities_dealing import cards_to_wrong_player as cards_to_wrong_player
from punto.table.irregularities_dealing import dealing_error_options as dealing_error_options
from punto.table.irregularities_dealing import excess_cards as excess_cards
from punto.table.irregularities_dealing import simultaneous_draw as simultaneous_draw
from punto.table.irregularities_players import absent_player as absent_player
from punto.table.irregularities_players import forgotten_insurance as forgotten_insurance
from punto.table.irregularities_players import left_with_cards as left_with_cards
from punto.table.irregularities_players import missing_cards as missing_cards
from punto.table.irregularities_players import squeeze_waiver as squeeze_waiver
from punto.table.irregularities_players import unforeseen as unforeseen
from punto.table.irregularities_shoe import cut_card as cut_card
from punto.table.irregularities_shoe import cut_card_first as cut_card_first
from punto.table.irregularities_shoe import device_reset as device_reset
from punto.table.irregularities_shoe import extra_or_missing_cards as extra_or_missing_cards
from punto.table.irregularities_shoe import foreign_card as foreign_card
from punto.table.irregularities_shoe import incorrect_number_of_cards as incorrect_number_of_cards
from punto.table.irregularities_shoe import insufficient_cards as insufficient_cards
from punto.table.irregularities_shoe import offer_cut_card_withdrawal as offer_cut_card_withdrawal
from punto.table.irregularities_shoe import order_altered as order_altered
from punto.table.irregularities_shoe import power_failure as power_failure
from punto.table.irregularities_shoe import unshuffled_cards as unshuffled_cards
from punto.table.irregularity_rules import NotCoveredError as NotCoveredError
from punto.table.irregularity_rules import Ruling as Ruling
from punto.table.irregularity_rules import atomic as atomic
from punto.table.irregularity_rules import by_method_c as by_method_c
from punto.table.irregularity_rules import check_dealing as check_dealing
from punto.table.irregularity_rules import check_in_play as check_in_play
from punto.table.irregularity_rules import check_role as check_role
from punto.table.irregularity_rules import deal_as_needed as deal_as_needed
from punto.table.irregularity_rules import established_options as established_options
from punto.table.irregularity_rules import game_clause as game_clause
from punto.table.irregularity_rules import give_options as give_options
from punto.table.irregularity_rules import hold_for_next as hold_for_next
from punto.table.irregularity_rules import is_rws as is_rws
from punto.table.irregularity_rules import options_clause as options_clause
from punto.table.irregularity_rules import ruling_with_options as ruling_with_options
from punto.table.irregularity_rules import stands_clause as stands_clause
from punto.table.irregularity_rules import unforeseen_clause as unforeseen_clause
from punto.table.irregularity_rules import void_round as void_round

__all__ = [
    "NotCoveredError",
    "Ruling",
    "absent_player",
    "card_exposed_in_error",
    "card_face_up_in_device",
    "cards_in_wrong_order",
    "cards_to_wrong_player",
    "cut_card",
    "cut_card_first",
    "dealing_error_options",
    "device_reset",
    "excess_cards",
    "extra_or_missing_cards",
    "foreign_card",
    "forgotten_insurance",
    "incorrect_number_of_cards",
    "insufficient_cards",
    "left_with_cards",
    "missing_cards",
    "order_altered",
    "power_failure",
    "simultaneous_draw",
    "squeeze_waiver",
    "unforeseen",
    "unshuffled_cards",
]


# -- the round is void --------------------------------------------------------------


# -- interruptions -------------------------------------------------------------------------


# -- dealing errors ---------------------------------------------------------------------------


# -- Insurance Plus (RWS) ---------------------------------------------------------------------


# -- not covered --------------------------------------------------------------------------------
