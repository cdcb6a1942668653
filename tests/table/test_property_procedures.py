"""Property test: no procedure moves money its clause does not allow.

Across all five games (Tiger Buffalo on several layouts), with random bets,
random cards, and at random moments every procedure of
:mod:`punto.table.irregularities` plus ``offer_withdrawal`` /
``withdraw_player`` / ``void_round`` / ``return_bet`` / ``reopen_betting``
-- with random clauses (this game's, another game's, free text) and every
role -- the round keeps three properties:

(a) **Decided wagers stay decided.**  A wager whose outcome the cards had
    established at the moment of a procedure is never returned, withdrawn or
    changed by it -- unless the clause that did it grants exactly that with
    an outcome established: a void under a clause that voids whatever the
    cards say (MBS 5.1, 6.1; RWS 5.5.x, 5.19), or a bet returned under a
    clause granted for an outcome established or either (RWS 5.14.2, 5.19,
    MBS 6.1).  A withdrawal option never takes back a decided wager.  A
    reconstruction puts the cards in the order the Table of Play intended
    (MBS 5.7, 5.8; RWS 5.8, 5.9): what the wrong order showed was never the
    coup, so a step that reconstructs is not compared.  Betting reopened
    (MBS 5.9) sets the cards aside, so it may only happen with nothing decided.
(b) **Every round that ends settled is payable**: ``results()`` works and
    covers every bet, and replaying the events gives the same results.
(c) **Money is conserved**: the players' nets and the house's net sum to
    zero; every returned, withdrawn or void bet nets zero; a refused
    procedure writes no event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from punto.errors import PuntoError
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Side
from punto.rules.games import all_games, get_game
from punto.table import irregularities as irr
from punto.table.events import BettingReopened, CardsReconstructed, Event
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Phase, Round

LIMITS = TableLimits(Decimal(10), Decimal(5000))
TABLES = [
    ("tiger-baccarat", None),
    ("tiger-no-commission", "A"),
    ("tiger-buffalo", "A"),
    ("tiger-buffalo", "D"),
    ("tiger-buffalo", "K"),
    ("tiger-buffalo", "N"),
    ("baccarat-tournament", None),
    ("dragon-tiger", None),
]
PLAYERS = ("ann", "bob", "cat")
#: every clause any game grants, and clauses granting nothing
CLAUSES = sorted(
    {c for g in all_games() for grants in g.grants.values() for c in grants}
    | {"goodwill", "9.9", "5.17", "5.5", "3.14", "5.14.1", ""}
)
#: every role, the higher ones more often (most grants need a Dealer or above)
ROLES = [*Role, Role.DEALER, Role.PIT_MANAGER, Role.SHIFT_MANAGER, Role.SHIFT_MANAGER]
PROCEDURES = (
    "foreign_card",
    "extra_or_missing_cards",
    "unshuffled_cards",
    "order_altered",
    "insufficient_cards",
    "incorrect_number_of_cards",
    "power_failure",
    "device_reset",
    "cut_card",
    "cut_card_first",
    "offer_cut_card_withdrawal",
    "simultaneous_draw",
    "card_face_up_in_device",
    "card_exposed_in_error",
    "cards_in_wrong_order",
    "cards_to_wrong_player",
    "excess_cards",
    "dealing_error_options",
    "absent_player",
    "left_with_cards",
    "squeeze_waiver",
    "forgotten_insurance",
    "unforeseen",
    "offer_withdrawal",
    "withdraw_player",
    "close_withdrawal",
    "void_round",
    "return_bet",
    "reopen_betting",
)

cards_st = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))
deal_st = st.tuples(st.just("deal"), st.integers(1, 3))
procedure_st = st.tuples(
    st.just("procedure"),
    st.sampled_from(PROCEDURES),
    # a clause: this game's own grants (a non-negative pick) or any clause at all
    st.one_of(st.integers(0, 40), st.sampled_from(CLAUSES)),
    st.sampled_from(ROLES),
    st.sampled_from(PLAYERS),
    st.booleans(),
    st.integers(-3, 6),
)
#: the round's own procedures that take a clause, more often than the rest
ROUND_PROCEDURES = ("option", "void_round", "return_bet", "reopen_betting")
round_procedure_st = procedure_st.map(lambda t: (t[0], ROUND_PROCEDURES[t[6] % 4], *t[2:]))
insure_st = st.tuples(st.just("insure"), st.sampled_from(PLAYERS), st.sampled_from([10, 50, 200]))
step_st = st.one_of(deal_st, insure_st, procedure_st, round_procedure_st, round_procedure_st)
#: the grants a procedure of the round is gated by
_GRANTED = {
    "option": "withdrawal",
    "offer_withdrawal": "withdrawal",
    "void_round": "void",
    "return_bet": "return_bet",
    "reopen_betting": "reopen_betting",
}


@dataclass
class Play:
    """One round under test, and the cards still to come out of the device."""

    r: Round
    shoe: list[Card]

    def take(self, n: int) -> list[Card]:
        out, self.shoe[:] = self.shoe[:n], self.shoe[n:]
        return out


def _procedure(play: Play, step: tuple[Any, ...]) -> Callable[[], object]:
    _, name, pick, role, player, flag, number = step
    r = play.r
    own = list(r.game.granting(_GRANTED.get(name, ""))) or [
        c for grants in r.game.grants.values() for c in grants
    ]
    clause = own[pick % len(own)] if isinstance(pick, int) else pick
    withdrawing = [player] if flag else []
    bets = [b.bet_id for b in r.bets]
    calls: dict[str, Callable[[], object]] = {
        "foreign_card": lambda: irr.foreign_card(r, role=role),
        "extra_or_missing_cards": lambda: irr.extra_or_missing_cards(r, role=role),
        "unshuffled_cards": lambda: irr.unshuffled_cards(r, role=role),
        "order_altered": lambda: irr.order_altered(
            r, reconstructable=flag, method_c=number > 3, role=role
        ),
        "insufficient_cards": lambda: irr.insufficient_cards(r, remaining=number, role=role),
        "incorrect_number_of_cards": lambda: irr.incorrect_number_of_cards(
            r,
            (*r.deal.cards, *play.take(max(number, 1))),
            reconstructable=flag,
            next_round_commenced=number < 0,
            withdrawing=withdrawing,
            role=role,
        ),
        "power_failure": lambda: irr.power_failure(r, withdrawing=withdrawing, role=role),
        "device_reset": lambda: irr.device_reset(r, withdrawing=withdrawing, role=role),
        "cut_card": lambda: irr.cut_card(r, role=role),
        "cut_card_first": lambda: irr.cut_card_first(
            r, hlga=flag, withdrawing=withdrawing, role=role
        ),
        "offer_cut_card_withdrawal": lambda: irr.offer_cut_card_withdrawal(r, hlga=flag, role=role),
        "simultaneous_draw": lambda: _simultaneous(play, flag, withdrawing, role),
        "card_face_up_in_device": lambda: irr.card_face_up_in_device(r, role=role),
        "card_exposed_in_error": lambda: irr.card_exposed_in_error(
            r, method_c_device=number > 3, withdrawing=withdrawing, role=role
        ),
        "cards_in_wrong_order": lambda: irr.cards_in_wrong_order(
            r, r.deal.cards[::-1] if flag else None, withdrawing=withdrawing, role=role
        ),
        "cards_to_wrong_player": lambda: irr.cards_to_wrong_player(
            r, None, reconstructable=flag, withdrawing=withdrawing, role=role
        ),
        "excess_cards": lambda: irr.excess_cards(
            r,
            play.take(max(number, 1)),
            reconstructable=flag,
            withdrawing=withdrawing,
            role=role,
        ),
        "dealing_error_options": lambda: irr.dealing_error_options(
            r, "a dealing error", withdrawing=withdrawing, role=role
        ),
        "absent_player": lambda: irr.absent_player(r, role=role),
        "left_with_cards": lambda: irr.left_with_cards(
            r,
            shoe=(),
            discards=(),
            on_table=(*r.deal.cards, None),
            set_aside=(),
            remaining=(),
            role=role,
        ),
        "squeeze_waiver": lambda: irr.squeeze_waiver(
            r, "squeeze", requester=player if flag else None, role=role
        ),
        "forgotten_insurance": lambda: _forgotten(r, player, flag, role),
        "unforeseen": lambda: irr.unforeseen(r, "a decision", void=flag, role=role),
        "offer_withdrawal": lambda: r.offer_withdrawal(clause, "a reason", role),
        "option": lambda: _option(r, clause, role, PLAYERS[: number % 4], flag),
        "withdraw_player": lambda: r.withdraw_player(player),
        "close_withdrawal": lambda: r.close_withdrawal(role),
        "void_round": lambda: r.void_round(
            "a reason", clause, role, required=Role.DEALER, settled=flag
        ),
        "return_bet": lambda: r.return_bet(
            bets[number % len(bets)] if bets else "b0", clause, "a reason", role
        ),
        "reopen_betting": lambda: r.reopen_betting(clause, role),
    }
    return calls[name]


def _option(r: Round, clause: str, role: Role, players: tuple[str, ...], close: bool) -> None:
    """A withdrawal option opened under ``clause``, taken by ``players`` who can."""
    r.offer_withdrawal(clause, "a reason", role)
    for player in players:
        if r.can_withdraw_player(player):
            r.withdraw_player(player)
    if close:
        r.close_withdrawal(role)


def _simultaneous(play: Play, known: bool, withdrawing: list[str], role: Role) -> object:
    cards = play.take(2)
    return irr.simultaneous_draw(
        play.r,
        cards,
        order_known=known,
        order=None if known else cards[::-1],
        withdrawing=withdrawing,
        role=role,
    )


def _forgotten(r: Round, player: str, flag: bool, role: Role) -> object:
    side = Side.PLAYER if flag else Side.BANKER
    return irr.forgotten_insurance(r, intended={player: side}, role=role)


def _insure(r: Round, player: str, most: int) -> None:
    for offer in r.insurance_offers():
        cap = r.insurance_cap(player, offer)
        if cap > 0:
            r.place_insurance(player, f"{offer.insures.value}_insurance", min(cap, Decimal(most)))
            return


#: each decided bet: its event, its status and its stake
Snapshot = dict[str, tuple[str | None, str, Decimal]]


def _snapshot(r: Round) -> Snapshot:
    """Each decided bet: its event, its status and its stake."""
    if r.phase not in (Phase.DEALING, Phase.RESULT):
        return {}
    bets = {b.bet_id: b for b in r.bets}
    return {
        bet_id: (event, bets[bet_id].status, bets[bet_id].stake)
        for bet_id, event in r.decided_bets().items()
    }


def _check_step(r: Round, before: Snapshot, new: list[Event]) -> None:
    """Property (a) for one step that wrote ``new`` events."""
    if not before or not new:
        return
    assert not any(isinstance(e, BettingReopened) for e in new), "betting reopened on decided"
    if any(isinstance(e, CardsReconstructed) for e in new):
        return  # the cards are put right: what they showed before was not the coup
    now = {b.bet_id: b for b in r.bets}
    if r.void is not None:
        grant = r.game.grant("void", r.void.clause)
        assert grant is not None, f"void under {r.void.clause!r}, which grants no void"
        assert grant.outcome != "not-established", f"{grant.clause} voided decided wagers"
        return
    decided_now = r.decided_bets() if r.phase in (Phase.DEALING, Phase.RESULT) else {}
    for bet_id, (event, status, stake) in before.items():
        bet = now[bet_id]
        if bet.status != status:
            grant = r.game.grant("return_bet", bet.clause or "")
            assert bet.status == "returned", (bet_id, bet.status)
            assert grant is not None, f"decided {bet_id} returned under {bet.clause!r}"
            assert grant.outcome != "not-established"
            continue
        assert bet.stake == stake, f"decided {bet_id} changed stake"
        assert decided_now.get(bet_id, event) == event, f"decided {bet_id} changed result"


def _finish(play: Play) -> None:
    r = play.r
    if r.phase is Phase.BETTING:
        r.close_betting()
    while r.phase in (Phase.DEALING, Phase.RESULT):
        if r.withdrawal_open is not None:
            r.close_withdrawal(Role.SHIFT_MANAGER)
        elif r.phase is Phase.RESULT:
            r.settle()
        elif play.shoe:
            r.deal_card(play.take(1)[0])
        else:
            irr.insufficient_cards(r, remaining=0)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    table=st.sampled_from(TABLES),
    bets=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 30), st.sampled_from([10, 25, 100, 500])),
        min_size=1,
        max_size=6,
    ),
    shoe=st.lists(cards_st, min_size=24, max_size=24),
    dealt=st.integers(0, 5),
    steps=st.lists(step_st, min_size=1, max_size=10),
)
def test_all_games_5_procedures_move_no_money_their_clause_does_not_allow(
    table: tuple[str, str | None],
    bets: list[tuple[int, int, int]],
    shoe: list[Card],
    dealt: int,
    steps: list[tuple[Any, ...]],
) -> None:
    game_id, layout = table
    game = get_game(game_id)
    r = Round(game, limits=LIMITS, layout=layout)
    r.open()
    offered = [w.id for w in game.offered(r.layout).values() if w.insures is None]
    low = game.layouts[r.layout].positions[0] if r.layout else 1
    for who, which, stake in bets:
        r.place_bet(PLAYERS[who], low + who, offered[which % len(offered)], Decimal(stake))
    r.close_betting()
    play = Play(r, list(shoe))
    for step in [("deal", dealt), *steps]:
        before, written = _snapshot(r), len(r.events)
        try:
            if step[0] == "deal":
                for card in play.take(step[1]):
                    if not r.can_deal_card():
                        break
                    r.deal_card(card)
            elif step[0] == "insure":
                _insure(r, step[1], step[2])
            else:
                _procedure(play, step)()
        except PuntoError:
            assert len(r.events) == written, f"{step} was refused but wrote events"
            continue
        _check_step(r, before, r.events[written:])
    _finish(play)
    results = r.results()  # (b): payable
    assert sorted(s.bet.bet_id for s in results) == sorted(b.bet_id for b in r.bets)
    for s in results:
        if s.outcome in ("returned", "withdrawn", "void", "push"):
            assert s.net == 0
    assert sum(r.nets().values(), Decimal(0)) + r.house_net() == 0  # (c)
    assert Round.replay(game, r.events, **r.options).results() == results
