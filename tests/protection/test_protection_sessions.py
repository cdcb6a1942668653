"""Sessions: a player's detector sees every round of their session at a table."""

from __future__ import annotations

from fractions import Fraction

from punto.protection.detection import Detector
from punto.protection.players import Counter, FlatBettor, big_tiger_counter
from punto.protection.sessions import Sessions
from tests.protection.test_protection_detection import _big_tiger_rounds

RETURN = {"big_tiger": Fraction(-1, 10)}
WATCHED = ["big_tiger"]


def test_rounds_sat_out_in_a_session_are_fed_with_no_stake() -> None:
    s = Sessions(gap=2)
    assert s.round("r1", RETURN, WATCHED, [("ann", "big_tiger", 100)])["ann"][0][0].stake == 100
    s.round("r2", RETURN, WATCHED, [("bob", "banker", 100)])
    fed = s.round("r3", RETURN, WATCHED, [("ann", "big_tiger", 200)])["ann"]
    assert [[(o.round_id, o.stake) for o in r] for r in fed] == [[("r2", 0)], [("r3", 200)]]


def test_a_gap_longer_than_a_session_starts_a_new_one() -> None:
    s = Sessions(gap=2)
    s.round("r1", RETURN, WATCHED, [("ann", "big_tiger", 100)])
    for n in range(2, 5):  # three rounds without ann: longer than the gap
        s.round(f"r{n}", RETURN, WATCHED, [("bob", "banker", 100)])
    fed = s.round("r5", RETURN, WATCHED, [("ann", "big_tiger", 100)])["ann"]
    assert [[o.round_id for o in r] for r in fed] == [["r5"]]


def test_a_side_bet_only_counter_is_flagged_through_the_rounds_it_sat_out() -> None:
    """A Big Tiger counter who bets nothing but Big Tiger, and only at a true
    count of +8 or more, is flagged once the rounds of its session it sat out
    are fed; flat bettors of Big Tiger alone, seen the same way, are not."""
    counter: Counter = big_tiger_counter()
    flats = [
        FlatBettor(f"flat-{k}", ("big_tiger",), rate, k) for k, rate in enumerate((0.05, 0.25))
    ]
    seats: list[Counter | FlatBettor] = [counter, *flats]
    names = ["counter", "flat-0", "flat-1"]
    sessions = Sessions()
    detectors = {name: Detector() for name in names}
    flagged: dict[str, int] = {}
    bets = dict.fromkeys(names, 0)
    for n, (round_id, value, view) in enumerate(_big_tiger_rounds(12, seed=3)):
        # a regular at the table keeps every round in play (somebody bets)
        placed = [("regular", "banker", 1000)]
        for name, seat in zip(names, seats, strict=True):
            stake = seat.bets(view)["big_tiger"]
            if stake:
                placed.append((name, "big_tiger", stake))
                bets[name] += 1
        fed = sessions.round(round_id, {"big_tiger": value}, WATCHED, placed)
        for name in names:
            for observations in fed.get(name, []):
                if detectors[name].observe(observations) is not None:
                    flagged.setdefault(name, n)
    assert "counter" in flagged, f"the counter was not flagged in 12 shoes ({bets})"
    assert "flat-0" not in flagged, f"a flat bettor flagged: {flagged}"
    assert "flat-1" not in flagged, f"a flat bettor flagged: {flagged}"
    assert all(bets.values())
