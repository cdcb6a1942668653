"""Property tests (hypothesis) for the invariants every game must keep.

* Settlement never creates money: each bet's net lies between minus its stake
  and its stake times the best odds of its wager, a loss costs exactly the
  stake, nets are whole minor units and bettor + house money is conserved.
* A push returns exactly the stake, and only on a Tie (Player / Banker
  3.16.1 and the Insurance ties of 4.2).
* A decided wager (5.17 "outcome established") never changes its result as
  more cards arrive.
* Cards, coups and shoes round-trip through their text; a seeded shoe is
  reproducible and its commitment verifies; ``deal`` takes exactly the cards
  the Table of Play calls for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from punto.money import CENT, Rounding
from punto.rules.cards import Card, Rank, Suit, format_cards, parse_cards
from punto.rules.coup import Coup, Deal, Side, Winner, cards_needed, deal
from punto.rules.established import decided
from punto.rules.game import Game, Wager
from punto.rules.games import all_games, get_game
from punto.rules.insurance import Moment
from punto.rules.odds import Pays
from punto.rules.settlement import Bet, Outcome, settle
from punto.rules.shoe import Shoe, verify_commitment
from punto.rules.tableau import banker_draws, is_natural, player_draws, point_total
from punto.rules.wagers import KINDS, Basis, PairRule

GAMES = all_games()
FAST = settings(max_examples=150, deadline=None)
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- strategies ----------------------------------------------------------------------

cards_st = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))


@st.composite
def coups(draw: st.DrawFn) -> Coup:
    """Six cards off a shoe, cut to the prefix that makes one complete coup."""
    six = draw(st.lists(cards_st, min_size=6, max_size=6))
    state = Deal()
    for card in six:
        if state.is_complete:
            break
        state = state.add(card)
    return state.to_coup()


tie_coups = coups().filter(lambda coup: coup.winner is Winner.TIE)

#: Stakes in whole cents, including ones that do not divide by the odds.
stakes = st.integers(min_value=1, max_value=1_000_000).map(lambda n: Decimal(n).scaleb(-2))


@st.composite
def game_and_layout(draw: st.DrawFn) -> tuple[Game, str | None]:
    game = draw(st.sampled_from(GAMES))
    layouts = sorted(game.layouts)
    if game.layouts_differ:
        return game, draw(st.sampled_from(layouts))
    return game, draw(st.sampled_from([None, *layouts]))


@dataclass(frozen=True)
class Scenario:
    game: Game
    layout: str | None
    coup: Coup
    bets: tuple[Bet, ...]
    rounding: Rounding


@st.composite
def scenarios(draw: st.DrawFn, coup_strategy: st.SearchStrategy[Coup] | None = None) -> Scenario:
    """A game, a layout, a coup and legal bets on it, Insurance Plus included."""
    game, layout = draw(game_and_layout())
    coup = draw(coup_strategy if coup_strategy is not None else coups())
    offered = [w.id for w in game.offered(layout).values() if w.kind is not None]
    bets = draw(st.lists(st.builds(Bet, st.sampled_from(offered), stakes), min_size=1, max_size=8))
    if game.insurance is not None:
        for moment in Moment:
            if len(coup.cards) <= moment.cards:
                continue  # the coup ended before (or at) this moment: no offer
            for offer in game.insurance.offers(Deal(coup.cards[: moment.cards])):
                if not draw(st.booleans()):
                    continue
                side = offer.insures.value
                original = sum((b.stake for b in bets if b.wager == side), Decimal(0))
                if original == 0:
                    original = draw(stakes)
                    bets.append(Bet(side, original))
                cents = int(original / CENT)
                stake = Decimal(draw(st.integers(1, cents))).scaleb(-2)
                bets.append(Bet(f"{side}_insurance", stake, moment))
    rounding = draw(st.sampled_from(list(Rounding)))
    return Scenario(game, layout, coup, tuple(bets), rounding)


def best_odds(game: Game, wager: Wager) -> Fraction:
    """The most any event of ``wager`` pays, as a fraction of the stake."""
    if wager.insures is not None:
        assert game.insurance is not None
        return max(
            row.pays.odds
            for row in game.insurance.rows
            if row.insures is wager.insures and row.pays.odds is not None
        )
    return max(p.odds for p in wager.pays.values() if p.odds is not None)


# --- settlement never creates money --------------------------------------------------


@SLOW
@given(scenarios())
def test_settlement_never_creates_money(scenario: Scenario) -> None:
    game, layout, coup = scenario.game, scenario.layout, scenario.coup
    result = settle(game, coup, scenario.bets, layout=layout, rounding=scenario.rounding)
    assert [r.bet for r in result.results] == list(scenario.bets)
    for r in result.results:
        stake, net = r.bet.stake, r.net
        wager = game.wager(r.bet.wager, layout)
        assert net % CENT == 0, "nets are whole minor units"
        most = Fraction(stake) * best_odds(game, wager)
        if scenario.rounding is not Rounding.DOWN:
            # a policy that rounds up may pay the fraction of a minor unit, no more
            most = Fraction(math.ceil(most / Fraction(CENT))) * Fraction(CENT)
        assert -stake <= net <= most
        if r.outcome is Outcome.LOSE:
            assert net == -stake
            assert r.event is None
        elif r.outcome is Outcome.PUSH:
            assert net == 0
        else:
            assert r.pays is not None
            odds = Pays.parse(r.pays).odds
            assert odds is not None
            exact = Fraction(stake) * odds
            assert abs(Fraction(net) - exact) < Fraction(CENT)
            if scenario.rounding is Rounding.DOWN:
                assert Fraction(net) <= exact
            if scenario.rounding is Rounding.UP:
                assert Fraction(net) >= exact

    # Money changes hands only between the bettor and the house.
    bettor = start_bettor = Decimal(10**9)
    house = start_house = Decimal(10**10)
    staked = sum((b.stake for b in scenario.bets), Decimal(0))
    bettor, house = bettor - staked, house + staked
    for r in result.results:
        returned = Decimal(0) if r.outcome is Outcome.LOSE else r.bet.stake + r.net
        assert returned >= 0
        bettor, house = bettor + returned, house - returned
    assert bettor + house == start_bettor + start_house
    assert bettor - start_bettor == result.net


# --- pushes ----------------------------------------------------------------------------

_PUSHING_KINDS = {"player", "banker", "banker_on_six"}


@SLOW
@given(st.one_of(scenarios(), scenarios(tie_coups)))
def test_push_returns_exactly_the_stake_and_only_on_a_tie(scenario: Scenario) -> None:
    game, layout, coup = scenario.game, scenario.layout, scenario.coup
    result = settle(game, coup, scenario.bets, layout=layout, rounding=scenario.rounding)
    for r in result.results:
        wager = game.wager(r.bet.wager, layout)
        if r.outcome is Outcome.PUSH:
            assert r.net == 0
            assert coup.winner is Winner.TIE
            assert r.event == "tie"
        if wager.kind is not None:
            # 3.16.1: on a Tie the Player and Banker wagers neither win nor lose.
            pushes = coup.winner is Winner.TIE and wager.kind.name in _PUSHING_KINDS
            assert (r.outcome is Outcome.PUSH) == pushes, (r.bet.wager, str(coup))
        else:
            # Insurance (4.2): a Tie returns the bet, except the 4.2.1 rows that pay it.
            assert game.insurance is not None
            assert wager.insures is not None
            assert r.bet.moment is not None
            offer = game.insurance.offer(Deal(coup.cards[: r.bet.moment.cards]), wager.insures)
            if coup.winner is Winner.TIE:
                expected = Outcome.WIN if offer.row.tie_pays else Outcome.PUSH
                assert r.outcome is expected
            else:
                assert r.outcome is not Outcome.PUSH
                insured_lost = coup.winner.value != wager.insures.value
                assert (r.outcome is Outcome.WIN) == insured_lost


# --- a decided wager stays decided ----------------------------------------------------


@cache
def _decided_cached(
    game_id: str, layout: str | None, pair_rule: PairRule | None, cards: tuple[Card, ...]
) -> dict[str, str | None]:
    """``decided`` for the short prefixes that many examples share (it is slow there)."""
    game = next(g for g in GAMES if g.id == game_id)
    return decided(game, Deal(cards), layout=layout, pair_rule=pair_rule)


def _decided(
    game: Game, layout: str | None, pair_rule: PairRule | None, cards: tuple[Card, ...]
) -> dict[str, str | None]:
    if len(cards) <= 1:
        return _decided_cached(game.id, layout, pair_rule, cards)
    return decided(game, Deal(cards), layout=layout, pair_rule=pair_rule)


def _check_decided_prefixes(
    game: Game, layout: str | None, coup: Coup, pair_rule: PairRule | None, basis: Basis | None
) -> None:
    """At every prefix of ``coup``, each decided wager (of ``basis``, or all)
    has the event it finally settles with, and stays decided."""
    rule = pair_rule or game.pair_rule
    wagers = {
        wid: w
        for wid, w in game.offered(layout).items()
        if w.kind is not None and (basis is None or w.kind.basis is basis)
    }
    final = {wid: w.kind(coup, rule) for wid, w in wagers.items() if w.kind is not None}
    # the same, through settlement of a bet on each wager
    settled = settle(
        game, coup, [Bet(wid, Decimal(1)) for wid in wagers], layout=layout, pair_rule=pair_rule
    )
    assert {r.bet.wager: r.event for r in settled.results} == final
    previous: dict[str, str | None] = {}
    for n in range(len(coup.cards) + 1):
        prefix = coup.cards[:n]
        now = {
            wid: event
            for wid, event in _decided(game, layout, pair_rule, prefix).items()
            if wid in wagers
        }
        for wid, event in now.items():
            assert event == final[wid], (wid, format_cards(prefix), str(coup))
        assert previous.keys() <= now.keys(), "once decided, a wager stays decided"
        previous = now
    assert previous == final, "the finished coup decides every wager on offer"


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_and_layout(), coups(), st.sampled_from([None, *PairRule]))
@example((get_game("tiger-baccarat"), None), Coup.parse("AS 2H AS 2C 6D 5D"), None)
def test_decided_wager_never_changes_as_more_cards_arrive(
    game_layout: tuple[Game, str | None], coup: Coup, pair_rule: PairRule | None
) -> None:
    game, layout = game_layout
    _check_decided_prefixes(game, layout, coup, pair_rule, None)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_and_layout(), coups(), st.sampled_from([None, *PairRule]))
def test_decided_pair_wager_never_changes_as_more_cards_arrive(
    game_layout: tuple[Game, str | None], coup: Coup, pair_rule: PairRule | None
) -> None:
    """Pair wagers (decided from the first four ranks) on their own."""
    game, layout = game_layout
    _check_decided_prefixes(game, layout, coup, pair_rule, Basis.PAIRS)


@pytest.mark.parametrize(
    ("cards", "open_wager", "banker_third_that_changes_it"),
    [
        # Player 8 v Banker 4, Banker draws on a Player third 6: 5D makes Banker 9.
        ("AS 2H AS 2C 6D", "player", "5D"),
        # Player 3 v Banker 2, Banker draws: AS ties (3 v 3), TS loses (3 v 2).
        ("AS AS AS AS AS", "player", "AS"),
    ],
)
def test_5_17_outcome_established_ignores_no_banker_third_card(
    cards: str, open_wager: str, banker_third_that_changes_it: str
) -> None:
    game = get_game("tiger-baccarat")
    state = Deal(parse_cards(cards))
    endings = {
        KINDS[open_wager](state.add(Card.parse(third)).to_coup())
        for third in ("TS", banker_third_that_changes_it)
    }
    assert len(endings) == 2, "the wager is still open"
    assert open_wager not in decided(game, state)


# --- text round-trips -----------------------------------------------------------------


@FAST
@given(cards_st)
def test_card_text_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(card.pretty()) == card
    assert Card.parse(str(card).lower()) == card
    assert Card.parse(card.pretty().lower()) == card
    assert eval(repr(card), {"Card": Card}) == card
    assert card.value == (card.rank.value if card.rank.value < 10 else 0)


@FAST
@given(st.lists(cards_st, max_size=12))
def test_card_list_text_round_trips(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == tuple(cards)
    assert parse_cards(", ".join(c.pretty() for c in cards)) == tuple(cards)


@FAST
@given(coups())
def test_coup_text_round_trips(coup: Coup) -> None:
    assert Coup.parse(str(coup)) == coup
    assert Coup.parse(" ".join(c.pretty() for c in coup.cards)) == coup
    assert eval(repr(coup), {"Coup": Coup}) == coup
    assert hash(Coup.parse(str(coup))) == hash(coup)
    again = Coup.parse(str(coup))
    assert again.player == coup.player
    assert again.banker == coup.banker
    assert again.winner is coup.winner


# --- the shoe ---------------------------------------------------------------------------

seeds = st.one_of(st.integers(), st.text(max_size=16))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GAMES), st.integers(4, 10), seeds, st.data())
def test_seeded_shoe_is_reproducible_and_commitment_verifies(
    game: Game, decks: int, seed: int | str, data: st.DataObject
) -> None:
    first = game.new_shoe(decks, seed=seed)
    second = game.new_shoe(decks, seed=seed)
    assert str(first) == str(second)
    assert first.commitment == second.commitment
    assert len(first) == 52 * decks
    assert first.remaining_counts() == (4 * decks,) * 13
    nonce, order = first.reveal()
    assert order == str(first)
    assert verify_commitment(first.commitment, nonce, order)
    # the same order written differently is the same order
    assert verify_commitment(first.commitment, nonce, order.lower())
    # any change of order fails
    cards = list(parse_cards(order))
    i = data.draw(st.integers(0, len(cards) - 1), label="i")
    j = data.draw(st.integers(0, len(cards) - 1).filter(lambda k: cards[k] != cards[i]), label="j")
    cards[i], cards[j] = cards[j], cards[i]
    assert not verify_commitment(first.commitment, nonce, format_cards(cards))
    # a dropped card, or another nonce, fails too
    assert not verify_commitment(first.commitment, nonce, format_cards(cards[1:]))
    assert not verify_commitment(first.commitment, nonce + "0", order)


def _table_of_play_count(cards: tuple[Card, ...]) -> int:
    """Cards one coup takes from the front of ``cards``, by the Table of Play."""
    p = point_total(cards[0].value + cards[2].value)
    b = point_total(cards[1].value + cards[3].value)
    if is_natural(p, b):
        return 4
    if player_draws(p, b):
        return 6 if banker_draws(p, b, cards[4].value) else 5
    return 5 if banker_draws(p, b, None) else 4


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(4, 10))
def test_deal_from_shoe_takes_exactly_the_table_of_play_cards(seed: int | str, decks: int) -> None:
    shoe = Shoe.shuffled(decks, seed=seed)
    order = parse_cards(str(shoe))
    for _ in range(30):
        start = shoe.position
        coup = deal(shoe)
        taken = _table_of_play_count(order[start : start + 6])
        assert coup.cards == order[start : start + taken]
        assert shoe.position == start + taken
        assert cards_needed(coup.cards) == taken
        # the hands are the cards handed out one at a time by Deal.next_side
        state = Deal()
        hands: dict[Side, list[Card]] = {Side.PLAYER: [], Side.BANKER: []}
        for card in coup.cards:
            side = state.next_side
            assert side is not None
            hands[side].append(card)
            state = state.add(card)
        assert state.is_complete
        assert tuple(hands[Side.PLAYER]) == coup.player.cards
        assert tuple(hands[Side.BANKER]) == coup.banker.cards


@FAST
@given(st.lists(cards_st, min_size=6, max_size=9))
def test_deal_leaves_the_rest_of_the_source(cards: list[Card]) -> None:
    source = iter(cards)
    coup = deal(source)
    taken = _table_of_play_count(tuple(cards))
    assert coup.cards == tuple(cards[:taken])
    assert list(source) == cards[taken:]
