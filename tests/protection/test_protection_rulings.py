"""Who a ruling saved: :mod:`punto.protection.rulings`
through the event logs of :mod:`punto.protection.anomalies`.

The cards: "8S 6H 9D 3S" is Player 7, Banker 9 (Banker wins, naturals);
"6H 8S 3S 9D" is Player 9, Banker 7 (Player wins).  At Tiger No Commission
a winning Banker 9 that is not a Tiger pays 1 to 1.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import pytest

from punto.eventlog import Stored
from punto.protection.anomalies import report, report_json, round_facts
from punto.protection.rulings import PlayerRound, RulingTest
from punto.protection.tails import binomial_upper_tail
from punto.protection.valuation import unseen, wager_returns
from punto.rules.cards import parse_cards
from punto.table.events import (
    BetPlaced,
    BetReturned,
    BetsClosed,
    CardDealt,
    CardsReconstructed,
    Event,
    PlayerWithdrew,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    WithdrawalOffered,
)
from tests.protection.test_protection_anomalies import GAME, log_of

D = Decimal
BANKER_WINS = "8S 6H 9D 3S"
PLAYER_WINS = "6H 8S 3S 9D"
BETS = (("ann", "banker"), ("bob", "player"))


def a_round(
    rid: str,
    cards: str = BANKER_WINS,
    *,
    dealt: int = 4,
    before_cards: Sequence[Event] = (),
    after_cards: Sequence[Event] = (),
    end: Event | None = None,
    bets: Sequence[tuple[str, str]] = BETS,
) -> list[Event]:
    events: list[Event] = [RoundOpened(rid)]
    events += [BetPlaced(f"{rid}-{p}", p, i + 1, w, D(100)) for i, (p, w) in enumerate(bets)]
    events.append(BetsClosed())
    events += before_cards
    events += [CardDealt(c) for c in parse_cards(cards)[:dealt]]
    events += after_cards
    events.append(end if end is not None else RoundSettled())
    return events


def ruled_of(events: list[Event]) -> dict[str, tuple[str, D | None, D, D | None]]:
    (facts,) = round_facts("t", log_of(("r1", events)))
    return {s.player: (s.ruling, s.as_dealt, s.net, s.saved) for s in facts.ruled}


def test_a_void_after_the_coup_saved_the_loser_and_cost_the_winner() -> None:
    ruled = ruled_of(a_round("r1", end=RoundVoided("a card exposed", "5.1")))
    assert ruled == {
        "ann": ("void", D(100), D(0), D(-100)),
        "bob": ("void", D(-100), D(0), D(100)),
    }


def test_a_void_before_the_coup_is_complete_saved_nobody_known() -> None:
    ruled = ruled_of(a_round("r1", dealt=3, end=RoundVoided("a card exposed", "5.1")))
    assert {p: (r, a, s) for p, (r, a, _, s) in ruled.items()} == {
        "ann": ("void", None, None),
        "bob": ("void", None, None),
    }


def test_a_ruled_stake_carries_its_value_at_placement_on_the_cards_shown() -> None:
    log = log_of(
        ("r0", a_round("r0")),
        ("r1", a_round("r1", end=RoundVoided("a card exposed", "5.1"))),
    )
    facts = round_facts("t", log)
    from punto.rules.games import get_game

    game = get_game(GAME)
    expected = wager_returns(game, None, game.pair_rule, unseen(8, parse_cards(BANKER_WINS)))
    values = {s.player: s.value for s in facts[1].ruled}
    assert values == {"ann": expected["banker"], "bob": expected["player"]}
    assert facts[1].ruled[0].value_at_placement == 100 * expected["banker"]


def test_a_bet_returned_is_weighed_against_the_coup_the_round_settled_on() -> None:
    ruled = ruled_of(
        a_round("r1", before_cards=[BetReturned("r1-bob", "5.14.2", "meant to insure")])
    )
    assert ruled == {"bob": ("bet returned", D(-100), D(0), D(100))}


def test_a_withdrawal_returns_the_undecided_wagers_and_is_weighed_on_the_final_coup() -> None:
    ruled = ruled_of(
        a_round(
            "r1",
            before_cards=[WithdrawalOffered("3.22.1", "cut card first"), PlayerWithdrew("bob")],
        )
    )
    assert ruled == {"bob": ("withdrawal", D(-100), D(0), D(100))}


def test_a_reconstruction_that_turned_the_coup_is_weighed_against_the_deal_it_replaced() -> None:
    ruled = ruled_of(
        a_round("r1", after_cards=[CardsReconstructed(tuple(parse_cards(PLAYER_WINS)), "5.7")])
    )
    assert ruled == {
        "ann": ("reconstruction", D(100), D(-100), D(-200)),
        "bob": ("reconstruction", D(-100), D(100), D(200)),
    }
    same = a_round("r1", after_cards=[CardsReconstructed(tuple(parse_cards(BANKER_WINS)), "5.7")])
    assert ruled_of(same) == {}  # nobody's money moved


def test_a_round_without_a_ruling_has_no_ruled_stakes() -> None:
    assert ruled_of(a_round("r1")) == {}


# -- the tests per dealer and per (dealer, player) ----------------------------------------------


def pit(colluder_voids: int, rounds: int = 400, seed: int = 35) -> list[Stored[Event]]:
    """Three dealers of ``rounds`` rounds each: two void every 50th round
    whatever the cards, ``gus`` voids ``colluder_voids`` rounds, each one
    that ann's Banker bet lost.  ann bets Banker, bob Player, every round."""
    rng = random.Random(seed)
    out: list[tuple[str, list[Event]]] = []
    dealers: dict[str, str] = {}
    void = RoundVoided("a card exposed", "5.1")
    for d, dealer in enumerate(("dana", "eli", "gus")):
        spent = 0
        for i in range(rounds):
            rid = f"{dealer}-{i}"
            dealers[rid] = dealer
            cards = BANKER_WINS if rng.random() < 0.5 else PLAYER_WINS
            if dealer == "gus":
                voided = cards == PLAYER_WINS and spent < colluder_voids
                spent += voided
            else:
                voided = i % 50 == d
            out.append((rid, a_round(rid, cards, end=void if voided else None)))
    pit.dealers = dealers  # type: ignore[attr-defined]
    return log_of(*out)


def test_a_dealer_spending_voids_on_one_players_losses_is_flagged_with_the_evidence() -> None:
    log = pit(colluder_voids=12)
    r = report(round_facts("t", log, pit.dealers))  # type: ignore[attr-defined]
    by = {d.name: d for d in r.dealers}
    assert all(by[d].rulings is not None for d in by)
    gus = by["gus"].rulings
    assert gus is not None
    # per dealer, ann's 12 saved rounds are bob's 12 costly ones: the share
    # test at the dealer's level sees half saved, like the pit's
    assert [t.alert for t in gus.tests] == [False, False]
    pairs = {(p.dealer, p.player): p for p in r.players}
    ann = pairs[("gus", "ann")].rulings
    assert ann.alert
    saved = next(t for t in ann.tests if t.statistic == "saved, of the rulings")
    assert (saved.count, saved.out_of) == (12, 12)
    assert ann.saved == D(1200)
    assert len(ann.ruled) == 12
    assert all(s.ruling == "void" and s.saved == D(100) for s in ann.ruled)
    assert not pairs[("gus", "bob")].rulings.alert
    assert not any(p.rulings.alert for (d, _), p in pairs.items() if d != "gus")
    words = report_json(r)["players"]
    (flagged,) = [p for p in words if p["alerts"]]
    assert (flagged["dealer"], flagged["player"]) == ("gus", "ann")
    assert flagged["saved"] == "1200"
    assert "saved, of the rulings: 12 of 12" in flagged["alerts"][0]


def test_a_ruling_test_alerts_below_alpha_and_not_at_it() -> None:
    facts = round_facts("t", pit(colluder_voids=12), pit.dealers)  # type: ignore[attr-defined]

    def share(alpha: float) -> RulingTest:
        pairs = {(p.dealer, p.player): p for p in report(facts, alpha=alpha).players}
        tests = pairs[("gus", "ann")].rulings.tests
        return next(t for t in tests if t.statistic == "saved, of the rulings")

    found = share(0.001)
    assert (found.count, found.out_of, found.pit_rate) == (12, 12, Fraction(1, 2))
    assert found.p_value == binomial_upper_tail(12, 12, Fraction(1, 2))
    assert found.p_value == pytest.approx(2**-12, rel=1e-12)
    assert not share(found.p_value).alert  # p < alpha: at alpha, no alert
    assert share(found.p_value * 1.000001).alert


@pytest.mark.parametrize("voids", [0, 2])
def test_a_dealer_voiding_like_the_pit_is_not_flagged(voids: int) -> None:
    r = report(round_facts("t", pit(colluder_voids=voids), pit.dealers))  # type: ignore[attr-defined]
    assert not any(p.rulings.alert for p in r.players)
    assert not any(d.rulings is not None and d.rulings.alert for d in r.dealers)


def test_the_pit_rates_pool_every_player_round() -> None:
    r = report(round_facts("t", pit(colluder_voids=12), pit.dealers))  # type: ignore[attr-defined]
    (test,) = [t for t in r.dealers[0].rulings.tests if t.statistic == "rulings that saved"]  # type: ignore[union-attr]
    # 2 x 8 honest voids and gus's 12 each save one of the two players: 28 of 2,400 player-rounds
    assert test.pit_rate == Fraction(28, 2400)


def test_the_pit_reads_a_flagged_dealer_and_player_whole() -> None:
    """What the anomalies view shows of gus and ann: both tests with their
    counts, the pit's rate as an exact fraction and the p-value, the money
    the rulings saved, the stakes ruled, each ruled bet with the net the
    cards gave it and the net after the ruling, and the alert in words."""
    r = report(round_facts("t", pit(colluder_voids=12), pit.dealers))  # type: ignore[attr-defined]
    (flagged,) = [p for p in report_json(r)["players"] if p["alerts"]]
    share = binomial_upper_tail(12, 12, Fraction(1, 2))
    assert {k: v for k, v in flagged.items() if k != "ruled"} == {
        "dealer": "gus",
        "player": "ann",
        "rounds": 400,
        "tests": [
            {
                "statistic": "rulings that saved",
                "count": 12,
                "out_of": 400,
                "pit_rate": "7/600",
                "p_value": binomial_upper_tail(12, 400, Fraction(7, 600)),
                "alert": False,
            },
            {
                "statistic": "saved, of the rulings",
                "count": 12,
                "out_of": 12,
                "pit_rate": "1/2",
                "p_value": share,
                "alert": True,
            },
        ],
        "saved": "1200",
        "value_at_placement": "0",
        "stakes_ruled": 12,
        "alerts": [
            f"saved, of the rulings: 12 of 12 (pit 50.00%), p = {share:.2g} < 0.001; "
            "rulings saved 1200 against the cards"
        ],
    }
    assert len(flagged["ruled"]) == 12
    assert flagged["ruled"][0] == {
        "round_id": "gus-1",
        "bet_id": "gus-1-ann",
        "player": "ann",
        "wager": "banker",
        "stake": "100",
        "ruling": "void",
        "clause": "5.1",
        "as_dealt": "-100",
        "net": "0",
        "saved": "100",
        "value": None,
    }


def test_a_ruled_stake_shows_its_value_at_placement_and_nothing_saved_when_undecided() -> None:
    from punto.protection.rulings import RuledStake

    valued = RuledStake("r1", "b1", "ann", "banker", D(100), "void", "5.1", D(-100), D(0),
                        Fraction(-1, 100))  # fmt: skip
    assert valued.value_at_placement == -1
    assert valued.to_json()["value"] == "-1/100"
    assert valued.to_json()["saved"] == "100"
    undecided = RuledStake("r1", "b1", "ann", "banker", D(100), "void", None, None, D(0), None)
    assert undecided.saved is None
    assert (undecided.to_json()["as_dealt"], undecided.to_json()["saved"]) == (None, None)
    assert undecided.to_json()["clause"] is None


def _player_round(rid: str, saved: Decimal | None) -> PlayerRound:
    """One round of ann's with gus whose one ruled bet the ruling left
    ``saved`` beyond what the cards gave (None: the coup was not complete)."""
    from punto.protection.rulings import RuledStake

    as_dealt = None if saved is None else -saved
    stake = RuledStake(rid, f"{rid}-ann", "ann", "banker", D(100), "void", "5.1", as_dealt,
                       D(0), None)  # fmt: skip
    return PlayerRound(rid, "gus", "ann", (stake,))


def test_the_pit_rates_count_a_single_unit_saved_and_not_a_ruling_that_moved_nothing() -> None:
    """Of four player-rounds: one a ruling saved 1, one it cost 1, one it
    left as the cards did (moved nothing), one not decided; the pit's rate
    of saved rounds is 1 in 4, its share of the rulings that moved money 1
    in 2.  A pit with no round, or no ruling that moved money, has rates 0."""
    from punto.protection.rulings import pit_rates

    rounds = [
        _player_round("r1", D(1)),
        _player_round("r2", D(-1)),
        _player_round("r3", D(0)),
        _player_round("r4", None),
    ]
    assert pit_rates(rounds) == (Fraction(1, 4), Fraction(1, 2))
    assert pit_rates([]) == (Fraction(0), Fraction(0))
    assert pit_rates(rounds[2:]) == (Fraction(0), Fraction(0))


def test_one_round_saved_against_a_pit_that_almost_never_saves_is_an_alert() -> None:
    from punto.protection.rulings import rulings_of

    found = rulings_of([_player_round("r1", D(100))], (Fraction(1, 1000), Fraction(1, 1000)), 0.01)
    assert [(t.count, t.out_of, t.alert) for t in found.tests] == [(1, 1, True), (1, 1, True)]
    assert found.alert
    assert (found.saved, found.stakes) == (D(100), 1)


def test_the_binomial_tail_at_its_edges() -> None:
    """The tests' p-values at the edges: nothing seen is certain (1), a rate
    of 0 never gives a count, a rate of 1 always does, and a tail never
    exceeds 1."""
    assert binomial_upper_tail(0, 10, Fraction(1, 2)) == 1.0
    assert binomial_upper_tail(3, 10, Fraction(0)) == 0.0
    assert binomial_upper_tail(3, 10, Fraction(1)) == 1.0
    assert binomial_upper_tail(1, 1, Fraction(999, 1000)) == pytest.approx(0.999, rel=1e-12)
    assert binomial_upper_tail(1, 400, Fraction(1, 2)) <= 1.0
