"""The live tournament through its public API: seats, bets, hands, ties, entries.

Each test names the competition rule it checks (T1-T8, docs/tournament.md).
Coups are checked against the engine: the table's shoe is rebuilt from the
same seed with :meth:`punto.rules.game.Game.new_shoe` and dealt with
:func:`punto.rules.coup.deal`, and every entrant's chips against
:func:`punto.rules.settlement.settle`.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest

from punto.eventlog import MemoryEventLog
from punto.rules.coup import Coup, deal
from punto.rules.games import get_game
from punto.rules.settlement import Bet, settle
from punto.tournament import (
    BetLimitError,
    MinHandsError,
    RegistrationError,
    Stage,
    TiebreakError,
    Tournament,
    TournamentError,
    TournamentPhaseError,
    get_format,
    load_format,
)
from punto.tournament.events import (
    TOURNAMENT_STREAM,
    HandSettled,
    Refund,
    SessionEnded,
    SessionStarted,
    TiebreakDealt,
    TiebreakLots,
    TournamentEvent,
)
from punto.tournament.format import Format
from punto.tournament.runner import Runner
from punto.tournament.tournament import Phase

#: A small format for scenarios worked by hand: one table of up to six,
#: six hands, the winner of the heat to a four-hand final.
SMALL: dict[str, Any] = {
    "id": "small",
    "title": "Small test tournament",
    "game": "baccarat-tournament",
    "decks": 8,
    "starting_chips": 10000,
    "chip_unit": 100,
    "seats": 6,
    "registration": {
        "min_entrants": 2,
        "max_entrants": 12,
        "late_until_hand": 3,
        "reentries": 1,
        "reentry_until_hand": 4,
    },
    "tiebreak": {"sudden_death_hands": 2},
    "sessions": [
        {
            "name": "Heat",
            "hands": 6,
            "min_bet": 500,
            "max_bet": 5000,
            "min_hands": 4,
            "announce_last": 3,
            "advance": 1,
        },
        {
            "name": "Final",
            "hands": 4,
            "min_bet": 500,
            "max_bet": 5000,
            "min_hands": 2,
            "announce_last": 2,
        },
    ],
    "prizes": [{"place": 1, "amount": "100.00"}, {"place": 2, "amount": "50.00"}],
}


def small(**changes: Any) -> Format:
    data = copy.deepcopy(SMALL)
    for key, value in changes.items():
        if key in ("registration", "tiebreak"):
            data[key].update(value)
        elif key.startswith("heat_") and value is None:
            del data["sessions"][0][key.removeprefix("heat_")]
        elif key.startswith("heat_"):
            data["sessions"][0][key.removeprefix("heat_")] = value
        else:
            data[key] = value
    return load_format(data, "small")


def tournament(
    fmt: Format, entrants: int, *, seed: str = "core", tables: int | None = None
) -> Tournament:
    t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "t", fmt, seed=seed, tables=tables)
    for i in range(entrants):
        t.register(f"P{i + 1}")
    return t


def next_coup(t: Tournament, table: int) -> Coup:
    """The coup the table's shoe will deal next (read, not drawn)."""
    shoe = t.tables[table].shoe
    assert shoe is not None
    return deal(iter(shoe.order[shoe.position :]))


def play_hand(
    t: Tournament, table: int, bets: dict[str, list[tuple[str, int]] | None]
) -> HandSettled:
    t.open_hand(table)
    for entrant, lines in bets.items():
        if lines is None:
            t.pass_hand(entrant)
        else:
            t.place_bets(entrant, lines)
    t.close_betting(table)
    settled = t.deal_hand(table)
    assert isinstance(settled, HandSettled)  # a full shoe never runs short (rules 5.5)
    return settled


# -- T3: seating -------------------------------------------------------------------------


def test_t3_1_seats_balanced_random_and_reproducible() -> None:
    fmt = get_format("daily")
    t = tournament(fmt, 20, tables=3, seed="seats")
    t.start_session()
    sizes = sorted(len(table.seats) for table in t.tables.values())
    assert sizes == [6, 7, 7]
    seated = [e for table in t.tables.values() for e in table.entrants]
    assert sorted(seated) == sorted(t.entrants)
    for table in t.tables.values():
        assert all(1 <= seat <= fmt.sessions[0].seats for seat in table.seats)
    again = tournament(fmt, 20, tables=3, seed="seats")
    again.start_session()
    assert {n: x.seats for n, x in again.tables.items()} == {
        n: x.seats for n, x in t.tables.items()
    }
    other = tournament(fmt, 20, tables=3, seed="other")
    other.start_session()
    assert {n: x.seats for n, x in other.tables.items()} != {
        n: x.seats for n, x in t.tables.items()
    }


@pytest.mark.parametrize(("entrants", "tables"), [(9, None), (20, 3), (25, 4), (32, None)])
def test_t3_1_table_sizes_differ_by_at_most_one(entrants: int, tables: int | None) -> None:
    t = tournament(get_format("daily"), entrants, tables=tables)
    t.start_session()
    sizes = [len(x.seats) for x in t.tables.values()]
    assert max(sizes) - min(sizes) <= 1
    assert sum(sizes) == entrants


def test_t3_1_seating_is_spread_over_many_seeds() -> None:
    """The draw is random: over many seeds every entrant sits at every table."""
    where: Counter[tuple[str, int]] = Counter()
    for seed in range(60):
        t = tournament(get_format("daily"), 12, tables=2, seed=str(seed))
        t.start_session()
        for n, table in t.tables.items():
            for e in table.entrants:
                where[(e, n)] += 1
    assert all(where[(f"e{i}", n)] > 10 for i in range(1, 13) for n in (1, 2))


def test_t2_1_registration_refusals() -> None:
    fmt = small()
    t = tournament(fmt, 1)
    with pytest.raises(RegistrationError, match=r"1 entrants registered.*T2\.1"):
        t.start_session()
    assert not t.can_start_session()
    with pytest.raises(RegistrationError, match="already registered"):
        t.register("Again", entrant="e1")
    for i in range(11):
        t.register(f"Q{i}")
    with pytest.raises(RegistrationError, match=r"full: 12 entrants \(T2\.1, format small\)"):
        t.register("One too many")


# -- T4: bets ---------------------------------------------------------------------------


@pytest.fixture
def heat() -> Tournament:
    t = tournament(small(), 4, seed="bets")
    t.start_session()
    t.open_hand(1)
    return t


@pytest.mark.parametrize(
    ("bets", "rule", "words"),
    [
        ([("banker", 400)], "T4.2", "under the minimum bet of 500"),
        ([("banker", 300), ("tie", 100)], "T4.2", "bets of 400 are under"),
        ([("banker", 5100)], "T4.3", "over the maximum bet of 5,000"),
        ([("banker", 550)], "T1.2", "not a whole number of 100 chips"),
        ([("banker", 1000), ("player", 1000)], "T4.5", "may not both be bet"),
        ([("dragon", 1000)], "T4.1", "not a wager of this tournament"),
    ],
)
def test_t4_bets_outside_the_format(
    heat: Tournament, bets: list[tuple[str, int]], rule: str, words: str
) -> None:
    with pytest.raises(BetLimitError, match=rf"{words}.*\({rule}, format small\)"):
        heat.place_bets("e1", bets)
    assert not heat.can_place_bets("e1", bets)
    assert heat.tables[1].bets == {}


def test_t4_4_bets_within_the_chips_held() -> None:
    t = tournament(small(heat_max_bet=None), 2, seed="all-in")
    t.start_session()
    t.open_hand(1)
    with pytest.raises(BetLimitError, match=r"more than the 10,000 chips P1 has \(T4.4"):
        t.place_bets("e1", [("banker", 10100)])
    t.place_bets("e1", [("banker", 10000)])  # no maximum: all in


def test_t4_several_wagers_in_one_hand(heat: Tournament) -> None:
    heat.place_bets("e1", [("banker", 1000), ("banker_pair", 200), ("tie", 300)])
    assert [(x.wager, x.stake) for x in heat.tables[1].bets["e1"]] == [
        ("banker", 1000),
        ("banker_pair", 200),
        ("tie", 300),
    ]
    with pytest.raises(TournamentPhaseError, match="already bet"):
        heat.place_bets("e1", [("player", 500)])


def test_t4_6_withdraw_before_no_more_bets(heat: Tournament) -> None:
    heat.place_bets("e1", [("banker", 1000)])
    heat.withdraw_bets("e1")
    heat.place_bets("e1", [("player", 700)])
    heat.pass_hand("e2")
    heat.close_betting(1)
    with pytest.raises(
        TournamentPhaseError, match=r"betting is not open at table 1 \(clause 5\.6\)"
    ):
        heat.place_bets("e3", [("player", 700)])
    with pytest.raises(TournamentPhaseError):
        heat.withdraw_bets("e1")


def test_hands_are_dealt_from_the_seeded_shoe_and_settled_by_the_engine() -> None:
    """Each table's coups are its own seeded shoe dealt in order (rules 3.7,
    Table of Play), and every bet is settled by punto.rules.settlement (4.1)."""
    fmt = small()
    t = tournament(fmt, 4, seed="engine")
    t.start_session()
    shoe = get_game("baccarat-tournament").new_shoe(8, seed="engine:session1:table1:shoe1")
    chips = dict.fromkeys(t.entrants, 10000)
    for hand in range(1, 7):
        bets: dict[str, list[tuple[str, int]] | None] = {
            "e1": [("banker", 1000)],
            "e2": [("player", 2000), ("player_pair", 500)],
            "e3": [("tie", 500), ("banker_pair", 500)],
            "e4": None if hand < 3 else [("banker", 500)],
        }
        settled = play_hand(t, 1, bets)
        assert t.tables[1].commitment == shoe.commitment
        coup = deal(shoe)
        assert settled.cards == str(coup)
        assert settled.winner == coup.winner.value
        for r in settled.results:
            lines = bets[r.entrant] or []
            expected = 0
            if lines:
                game_bets = [Bet(w, Decimal(st)) for w, st in lines]
                expected = int(settle(fmt.game, coup, game_bets).net)
            assert r.net == expected
            chips[r.entrant] += expected
            assert r.chips == chips[r.entrant] == t.entrants[r.entrant].chips
    assert t.tables[1].phase is Phase.DONE


# -- T5: hands per session, minimum hands, last hands -------------------------------------


def test_t5_2_sitting_out_refused_when_the_minimum_would_be_missed() -> None:
    t = tournament(small(), 2, seed="min-hands")  # 6 hands, at least 4 to bet
    t.start_session()
    for _ in range(2):  # e1 sits out hands 1 and 2: allowed (4 of 4 left)
        assert not t.must_bet("e1")
        play_hand(t, 1, {"e1": None, "e2": [("banker", 500)]})
    t.open_hand(1)
    assert t.must_bet("e1")
    assert not t.can_pass_hand("e1")
    with pytest.raises(
        MinHandsError, match=r"must bet: 4 more hand\(s\).*4 left.*\(T5\.2, format small\)"
    ):
        t.pass_hand("e1")
    rows = {r["entrant"]: r for r in t.leaderboard()["tables"][0]["standings"]}
    assert rows["e1"]["must_bet"]
    assert not rows["e2"]["must_bet"]


def test_t5_2_nobody_must_bet_once_the_sessions_hands_are_dealt() -> None:
    """An entrant who fell short of the minimum is not told to bet when no
    hand is left (the sudden death or the session's end comes next)."""
    t = tournament(small(), 2, seed="min-hands")
    t.start_session()
    for _ in range(6):
        t.open_hand(1)
        t.place_bets("e2", [("banker", 500)])
        t.close_betting(1)  # e1 never acts
        t.deal_hand(1)
    assert t.tables[1].phase is Phase.DONE
    assert t.entrants["e1"].hands_bet == 0
    assert not t.must_bet("e1")
    assert not any(e["must_bet"] for e in t.snapshot()["entrants"])


def test_t5_3_missed_mandatory_hand_costs_the_minimum_bet() -> None:
    t = tournament(small(), 2, seed="penalty")
    t.start_session()
    for _ in range(2):
        play_hand(t, 1, {"e1": None, "e2": [("banker", 500)]})
    t.open_hand(1)
    t.place_bets("e2", [("banker", 500)])
    before = t.entrants["e1"].chips
    penalties = t.close_betting(1)  # e1 never acted and had to bet
    assert [(p.entrant, p.chips) for p in penalties] == [("e1", 500)]
    assert t.entrants["e1"].chips == before - 500
    settled = t.deal_hand(1)
    assert isinstance(settled, HandSettled)
    assert next(r for r in settled.results if r.entrant == "e1").chips == before - 500
    assert t.entrants["e1"].hands_bet == 0
    assert t.entrants["e1"].penalties == 1


def test_t5_4_last_hands_announced() -> None:
    t = tournament(small(), 2, seed="last")
    t.start_session()
    said = []
    for _ in range(6):
        t.open_hand(1)
        said.append(t.leaderboard()["tables"][0]["announcement"])
        t.place_bets("e1", [("banker", 500)])
        t.place_bets("e2", [("banker", 500)])
        t.close_betting(1)
        t.deal_hand(1)
    assert said == [None, None, None, "Last 3 hands", "Last 2 hands", "Last hand"]
    with pytest.raises(TournamentPhaseError, match=r"all 6 hands of Heat \(T5\.1"):
        t.open_hand(1)


# -- T2.2, T2.3: late registration and re-entry -------------------------------------------


def test_t2_2_late_registration() -> None:
    t = tournament(get_format("turbo"), 10, seed="late")  # late until hand 5; seats 6
    t.start_session()
    assert sorted(len(x.seats) for x in t.tables.values()) == [5, 5]
    for _ in range(2):
        for n in t.tables:
            play_hand(t, n, {e: [("banker", 200)] for e in t.tables[n].entrants})
    late = t.register("Late Lou", "human")
    e = t.entrants[late]
    assert e.late
    assert e.table in (1, 2)
    assert e.chips == 20000
    assert e.required == min(10, 15 - 2)
    assert t.tables[e.table].seats[e.seat or 0] == late
    second = t.register("Late Liz")  # balanced: the other table, now smaller
    assert t.entrants[second].table != e.table
    for _ in range(3):
        for n in t.tables:
            play_hand(t, n, {x: [("banker", 200)] for x in t.tables[n].entrants})
    with pytest.raises(RegistrationError, match=r"past hand 5 or full \(T2\.2, format turbo\)"):
        t.register("Too late")


def test_t2_2_late_registration_joins_the_hand_being_bet() -> None:
    t = tournament(get_format("turbo"), 4, seed="late2")
    t.start_session()
    t.open_hand(1)
    late = t.register("Lou")
    assert t.entrants[late].required == 10
    assert late in t.awaiting(1)
    t.place_bets(late, [("player", 200)])


def test_t2_2_no_late_registration_in_formats_without_it() -> None:
    t = tournament(get_format("championship"), 16, seed="x")
    t.start_session()
    with pytest.raises(RegistrationError, match="no late registration"):
        t.register("Late")


def _bust(t: Tournament, entrant: str) -> None:
    """Bet all of ``entrant``'s chips on whichever side the next coup loses."""
    table = t.entrants[entrant].table
    assert table is not None
    coup = next_coup(t, table) if t.tables[table].shoe else None
    t.open_hand(table)
    coup = next_coup(t, table)
    losing = "player" if coup.winner.value != "player" else "banker"
    t.place_bets(entrant, [(losing, t.entrants[entrant].chips)])
    for other in t.awaiting(table):
        t.place_bets(other, [("banker", t.session.min_bet if t.session else 0)])
    t.close_betting(table)
    t.deal_hand(table)


def test_t2_3_reentry() -> None:
    t = tournament(get_format("turbo"), 4, seed="reentry")  # 2 re-entries until hand 8
    t.start_session()
    with pytest.raises(RegistrationError, match=r"still has 20,000 chips.*\(T2\.3"):
        t.reenter("e1")
    assert not t.snapshot()["entrants"][0]["may_reenter"]
    _bust(t, "e1")
    assert t.out_of_chips("e1")
    assert t.entrants["e1"].chips == 0
    assert t.snapshot()["entrants"][0]["may_reenter"]  # what a page shows the button on
    assert t.leaderboard()["tables"][0]["standings"][-1]["status"] == "out_of_chips"
    t.open_hand(1)
    with pytest.raises(BetLimitError, match=r"out of chips \(T4\.7"):
        t.place_bets("e1", [("banker", 200)])
    assert "e1" not in t.awaiting(1)
    t.close_betting(1)  # no penalty for an entrant out of chips
    t.deal_hand(1)
    t.reenter("e1")
    assert (t.entrants["e1"].chips, t.entrants["e1"].entry) == (20000, 2)
    _bust(t, "e1")
    t.reenter("e1")
    _bust(t, "e1")
    with pytest.raises(RegistrationError, match=r"re-entered 2 time\(s\), the most allowed"):
        t.reenter("e1")


def test_t2_4_an_entry_taken_back_before_the_first_session() -> None:
    t = tournament(small(), 3)
    t.entrants["e2"].fees = Decimal("25.00")  # as if paid: the refund is what was paid
    assert t.can_withdraw_entry("e2")
    assert all(e["may_take_back"] for e in t.snapshot()["entrants"])
    event = t.entry_withdrawal("e2")
    assert event.refund == "25.00"
    assert "e2" in t.entrants  # the event is only built, not written
    t.withdraw_entry("e2")
    assert list(t.entrants) == ["e1", "e3"]
    assert t.entry_withdrawal("e1").refund is None  # no fee, nothing to give back
    t.register("Again", entrant="e2")
    assert t.registrations == {"e1": 1, "e2": 2, "e3": 1}
    replayed = Tournament.open(t.log, "t")
    assert list(replayed.entrants) == ["e1", "e3", "e2"]
    assert replayed.registrations == t.registrations
    t.start_session()
    assert not t.can_withdraw_entry("e1")
    assert not any(e["may_take_back"] for e in t.snapshot()["entrants"])
    with pytest.raises(RegistrationError, match=r"only before the first session.*\(T2\.4"):
        t.withdraw_entry("e1")


def test_t8_4_a_cancelled_tournament_refunds_the_fees_and_takes_no_more_actions() -> None:
    t = tournament(small(), 3)
    t.entrants["e1"].fees = Decimal("40.00")
    t.start_session()
    t.open_hand(1)
    with pytest.raises(TournamentError, match="a cancellation needs a reason"):
        t.cancel("  ")
    assert t.can_cancel("the dealer fell ill")
    t.cancel("the dealer fell ill")
    assert t.stage is Stage.CANCELLED
    assert t.refunds == (Refund("e1", "40.00"),)
    assert t.leaderboard()["cancelled"] == {
        "reason": "the dealer fell ill",
        "refunds": [{"entrant": "e1", "amount": "40.00"}],
    }
    assert {e["status"] for e in t.snapshot()["entrants"]} == {"cancelled"}
    assert not t.can_place_bets("e1", [("banker", 500)])
    assert not t.can_close_betting(1)
    assert not t.can_start_session()
    assert not t.can_register("Late")
    with pytest.raises(TournamentPhaseError, match="was cancelled: the dealer fell ill"):
        t.close_betting(1)
    with pytest.raises(TournamentPhaseError, match=r"already cancelled.*\(T8\.4"):
        t.cancel("again")
    replayed = Tournament.open(t.log, "t")
    assert (replayed.stage, replayed.cancelled, replayed.refunds) == (
        Stage.CANCELLED,
        "the dealer fell ill",
        t.refunds,
    )


def test_t8_4_a_finished_tournament_stands() -> None:
    t = tournament(small(), 2, seed="finish")
    runner = Runner(t)
    while runner.step():
        pass
    assert t.stage is Stage.FINISHED
    with pytest.raises(TournamentPhaseError, match=r"places and prizes stand.*\(T8\.4"):
        t.cancel("too late")
    assert not t.can_cancel("too late")


def test_t2_3_reentry_closes_after_its_hand() -> None:
    t = tournament(get_format("turbo"), 4, seed="reentry-late")
    t.start_session()
    for _ in range(8):
        play_hand(t, 1, {e: [("banker", 200)] for e in t.tables[1].entrants})
    _bust(t, "e2")
    with pytest.raises(RegistrationError, match=r"re-entry closed after hand 8"):
        t.reenter("e2")


# -- T6, T7: advancing and tie-breaks ------------------------------------------------------


def _play_level(t: Tournament, table: int = 1) -> None:
    """Every entrant bets the same on every hand: they stay level on chips."""
    s = t.session
    assert s is not None
    while t.tables[table].phase is not Phase.DONE:
        play_hand(t, table, {e: [("banker", s.min_bet)] for e in t.tables[table].entrants})


def test_t7_1_tie_at_the_cut_goes_to_sudden_death() -> None:
    t = tournament(small(), 4, seed="sudden")
    t.start_session()
    _play_level(t)
    assert len({t.entrants[e].chips for e in t.entrants}) == 1
    with pytest.raises(TiebreakError, match=r"tied on chips for the last advancing place.*T7\.1"):
        t.end_session()
    chips = {e: x.chips for e, x in t.entrants.items()}
    dealt: list[TiebreakDealt] = []
    t.subscribe(lambda seq, ev: dealt.append(ev) if isinstance(ev, TiebreakDealt) else None)
    while t.pending_tie() is not None:
        tb = t.open_tiebreak()
        if tb is None:
            break  # lots
        with pytest.raises(TiebreakError, match="still to choose"):
            t.deal_tiebreak()
        first, second, *rest = tb.entrants
        t.choose_tiebreak(first, "banker")
        with pytest.raises(TiebreakError, match=r"banker is taken.*\(T7\.2"):
            t.choose_tiebreak(second, "banker")
        t.choose_tiebreak(second, "player")
        for e in rest:
            t.choose_tiebreak(e, "banker")
        event = t.deal_tiebreak()
        assert isinstance(event, TiebreakDealt)
        coup = Coup.parse(event.cards)
        for r in event.results:
            assert r.net == int(settle(t.fmt.game, coup, [Bet(r.wager, Decimal(500))]).net)
    assert {e: x.chips for e, x in t.entrants.items()} == chips  # T7.2: chips unchanged
    assert dealt
    t.end_session()
    (winner,) = t.advanced
    board = t.leaderboard()
    assert board["tables"][0]["standings"][0]["entrant"] == winner
    assert sorted(r["entrant"] for r in board["eliminated"]) == sorted(set(t.entrants) - {winner})


def test_t7_3_lots_when_sudden_death_is_spent() -> None:
    t = tournament(small(tiebreak={"sudden_death_hands": 0}), 3, seed="lots")
    t.start_session()
    _play_level(t)
    lots: list[TournamentEvent] = []
    t.subscribe(lambda seq, ev: lots.append(ev) if isinstance(ev, TiebreakLots) else None)
    assert t.open_tiebreak() is None
    assert len(lots) == 1
    assert isinstance(lots[0], TiebreakLots)
    t.end_session()
    assert t.advanced == (lots[0].order[0],)


def test_t6_busted_entrants_do_not_advance() -> None:
    t = tournament(small(heat_max_bet=None), 3, seed="busted")
    t.start_session()
    _bust(t, "e1")
    while t.tables[1].phase is not Phase.DONE:
        t.open_hand(1)
        for e in t.awaiting(1):
            t.place_bets(e, [("banker", 500)] if e == "e2" else [("player", 500)])
        t.close_betting(1)
        t.deal_hand(1)
    while t.pending_tie():
        tb = t.open_tiebreak()
        if tb:
            for e in tb.entrants:
                t.choose_tiebreak(e, t.tiebreak_sides()[0])
            t.deal_tiebreak()
    t.end_session()
    assert "e1" not in t.advanced


def test_t6_2_wildcards_and_t8_final_places() -> None:
    """Championship: top 2 per table, then the top 1 per table and two wild
    cards on chips; the final's places and prizes."""
    from punto.tournament.runner import Runner

    t = Tournament.create(
        MemoryEventLog(TOURNAMENT_STREAM), "c", get_format("championship"), seed="wild"
    )
    runner = Runner(t)
    runner.enter(bots=48)
    sessions: list[SessionStarted] = []
    ended: list[SessionEnded] = []
    t.subscribe(lambda seq, ev: sessions.append(ev) if isinstance(ev, SessionStarted) else None)
    t.subscribe(lambda seq, ev: ended.append(ev) if isinstance(ev, SessionEnded) else None)
    assert runner.run() == 0
    # 6 tables x 2 to the semi-final; its 2 tables x 1 and 2 wild cards to the final
    assert [(s.tables, len(s.seats)) for s in sessions] == [(6, 48), (2, 12), (1, 4)]
    semi = ended[1]
    by_table = {d.entrant: d.table for d in sessions[1].seats}
    chips = {e: t.entrants[e].session_chips[2] for e in by_table}
    first, second, *wild = semi.advancing  # each table's winner, then the wild cards
    for table, winner in ((1, first), (2, second)):
        assert by_table[winner] == table
        assert chips[winner] == max(chips[e] for e in by_table if by_table[e] == table)
    assert len(wild) == 2
    others = set(by_table) - set(semi.advancing)
    assert min(chips[e] for e in wild) >= max(chips[e] for e in others)
    # T8: places in order, prizes from the prize table, finalists first
    places = [p.place for p in t.results]
    assert sorted(places) == places
    assert places[0] == 1
    assert len(places) == 48
    assert [p.prize for p in t.results[:4]] == ["25000.00", "10000.00", "5000.00", "2000.00"]
    # places 5 and 6 pay too: the best semi-finalists out; tied entrants share (T7.4)
    paid = sum(Decimal(p.prize) for p in t.results)
    assert Decimal("45999.97") <= paid <= Decimal("46000.00")
    assert {p.prize for p in t.results if p.place > 6} == {"0.00"}
    assert {p.entrant for p in t.results[:4]} == {d.entrant for d in sessions[2].seats}


# -- the leaderboard and its events ------------------------------------------------------------


def test_leaderboard_updates_as_hands_settle() -> None:
    t = tournament(get_format("daily"), 20, tables=3, seed="board")
    pushed: list[dict[str, Any]] = []

    def on_event(seq: int, event: TournamentEvent) -> None:
        if isinstance(event, HandSettled):
            pushed.append(t.leaderboard())

    t.subscribe(on_event)
    t.start_session()
    settled = play_hand(t, 2, {e: [("player", 5000)] for e in t.tables[2].entrants})
    assert len(pushed) == 1
    board = pushed[0]
    json.dumps(board)  # JSON as it stands
    row = next(x for x in board["tables"] if x["table"] == 2)
    assert [r["rank"] for r in row["standings"]] == [1] * len(row["standings"])
    assert row["settled"] == 1
    assert row["hands"] == 30
    assert {r["chips"] for r in row["standings"]} == {100000 + settled.results[0].net}
    assert {r["hands_bet"] for r in row["standings"]} == {1}
    assert all(r["advancing"] for r in row["standings"])  # all tied for the lead
    assert len(board["overall"]) == 20
    assert board["eliminated"] == []
    assert board["session"]["name"] == "Qualifying"
    assert board["stage"] == "playing"


def test_snapshot_keeps_the_shoe_and_seed_secret() -> None:
    t = tournament(get_format("daily"), 20, tables=3, seed="secret-seed")
    t.start_session()
    t.open_hand(1)
    t.place_bets(t.tables[1].entrants[0], [("banker", 1000)])
    snap = t.snapshot()
    text = json.dumps(snap)
    shoe = t.tables[1].shoe
    assert shoe is not None
    assert "secret-seed" not in text
    assert " ".join(map(str, shoe.order[:20])) not in text
    table = snap["tables"][0]
    assert table["shoe"]["commitment"] == shoe.commitment
    assert table["bets"] == {t.tables[1].entrants[0]: [{"wager": "banker", "stake": 1000}]}
    assert len(table["awaiting"]) == len(t.tables[1].entrants) - 1
    assert snap["format_rules"]["id"] == "daily"


def test_actions_out_of_order_are_refused() -> None:
    t = tournament(small(), 3)
    with pytest.raises(TournamentPhaseError, match="no session is being played"):
        t.open_hand(1)
    t.start_session()
    with pytest.raises(TournamentPhaseError, match="no table 2"):
        t.open_hand(2)
    with pytest.raises(TournamentPhaseError, match="betting is not open"):
        t.close_betting(1)
    t.open_hand(1)
    with pytest.raises(TournamentPhaseError, match="still betting"):
        t.open_hand(1)
    with pytest.raises(TournamentPhaseError, match="deal once betting is closed"):
        t.deal_hand(1)
    with pytest.raises(TournamentPhaseError, match=r"tables 1 have hands of Heat"):
        t.end_session()
    with pytest.raises(TournamentPhaseError):
        t.start_session()
    assert t.stage is Stage.PLAYING
