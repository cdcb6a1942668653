"""Baccarat Tournament 5.1-5.5 in the tournament engine.

Every card of a tournament hand comes out of the shoe the engine shuffled,
one at a time by the Table of Play: that shoe is the hand's record.  A claim
it disproves -- a foreign card (5.1), a hand dealt an incorrect number of
cards (5.2), cards drawn together whose order cannot be ascertained (5.3:
the shoe's order is theirs), the shoe's order altered (5.4) -- is refused
naming the shoe, whoever makes it, and nothing is written.  What can happen
is put right by the table engine's own procedures: cards drawn together in
a known order (5.3) and a shoe that really runs out (5.5, the only void).
A void returns every bet and any penalty, the hand is dealt again under the
same number, standings count only the hands that stand, and a replay of the
log gives the same tournament.

Expected chips are worked out independently of the engine: the coup is
dealt from the table's shoe with :func:`punto.rules.coup.deal` and each bet
settled with :func:`punto.rules.settlement.settle`.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from punto.eventlog import MemoryEventLog
from punto.rules.coup import Coup, deal
from punto.rules.games import get_game
from punto.rules.settlement import Bet, settle
from punto.rules.shoe import Shoe
from punto.store.eventlog import open_event_log
from punto.table.roles import Role
from punto.tournament import Tournament
from punto.tournament.clock import Clock, Window
from punto.tournament.errors import (
    IrregularityError,
    IrregularityRecordError,
    IrregularityRoleError,
)
from punto.tournament.events import (
    TOURNAMENT_STREAM,
    HandIrregularityNoted,
    HandSettled,
    HandVoided,
    ShoeStarted,
    TiebreakDealt,
    TiebreakVoided,
)
from punto.tournament.runner import Runner
from punto.tournament.tournament import Phase
from tests.tournament.test_tournament_clock import (
    FakeTime,
    live_turbo,
    phase,
    run_until_waiting,
)
from tests.tournament.test_tournament_core import next_coup, small, tournament

GAME = get_game("baccarat-tournament")
START = 10000  # the small format's starting chips
#: Who may claim an irregularity at a table (a Dealer or above, MBS 6.2).
STAFF = (Role.DEALER, Role.PIT_SUPERVISOR, Role.PIT_MANAGER)


def net(coup: Coup, lines: list[tuple[str, int]]) -> int:
    """What ``lines`` net on ``coup``, by the settlement engine."""
    bets = [Bet(w, Decimal(s)) for w, s in lines]
    return int(settle(GAME, coup, bets, minor_unit=Decimal(1)).net) if bets else 0


def chips(t: Tournament) -> dict[str, int]:
    return {e: t.entrants[e].chips for e in sorted(t.entrants)}


def bet_hand(t: Tournament, bets: dict[str, list[tuple[str, int]]]) -> None:
    """Open the next hand at table 1, place ``bets``, pass everyone else, close."""
    t.open_hand(1)
    for e in t.tables[1].entrants:
        if e in bets:
            t.place_bets(e, bets[e])
        elif t.can_pass_hand(e):
            t.pass_hand(e)
    t.close_betting(1)


def settled(t: Tournament) -> HandSettled:
    event = t.deal_hand(1)
    assert isinstance(event, HandSettled)
    return event


def three() -> Tournament:
    t = tournament(small(), 3, seed="irregular")
    t.start_session()
    return t


BETS: dict[str, list[tuple[str, int]]] = {
    "e1": [("banker", 1000)],
    "e2": [("player", 500), ("player_pair", 100)],
    "e3": [("tie", 500)],
}


def replayed(t: Tournament) -> Tournament:
    again = Tournament.open(t.log, t.id)
    assert chips(again) == chips(t)
    assert again.leaderboard() == t.leaderboard()
    return again


def as_it_stands(t: Tournament) -> tuple[Any, ...]:
    """Everything a claim could change: the log, every entrant's chips and
    hands bet, and table 1's hand, bets, shoe and notes."""
    table = t.tables[1]
    return (
        t.seq,
        len(list(t.log.read(t.id))),
        chips(t),
        {e: (x.hands_bet, x.penalties) for e, x in t.entrants.items()},
        (table.phase, table.hand, table.settled, table.shoes),
        None if table.shoe is None else table.shoe.position,
        {e: list(lines) for e, lines in table.bets.items()},
        (table.last, table.voided, table.noted),
    )


def refused_by_the_record(
    t: Tournament, claim: Callable[[], object], clause: str, cards: str
) -> IrregularityRecordError:
    """``claim`` refused under ``clause`` naming the engine's shoe and the
    hand's ``cards`` out of it, and nothing written."""
    before = as_it_stands(t)
    with pytest.raises(IrregularityRecordError) as refused:
        claim()
    error = refused.value
    assert error.clause == clause
    table = t.tables[1]
    assert (
        f"round {table.hand} of session 1 at table 1 was dealt by the table from shoe "
        f"{table.shoes} of table 1, {cards}: a shoe the table shuffled itself holds the "
        "cards of its decks and no other"
    ) in error.message
    assert as_it_stands(t) == before
    return error


def refused_unascertained(t: Tournament, claim: Callable[[], object], out: int) -> None:
    """``claim`` (a void under 5.3) refused: the record holds the order of
    every card out of the engine's shoe, ``out`` of them in this hand so far
    (the cards drawn together with the ones before them); nothing written."""
    before = as_it_stands(t)
    with pytest.raises(IrregularityRecordError) as refused:
        claim()
    error = refused.value
    assert error.clause == "5.3"
    table = t.tables[1]
    shoe = table.shoe
    assert shoe is not None
    cards = f"cards {shoe.position + 1}-{shoe.position + out}"
    assert error.message.startswith(
        f"round {table.hand} of session 1 at table 1 was dealt by the table from shoe "
        f"{table.shoes} of table 1, {cards}: cards drawn together from the table's own shoe "
        "came out in the shoe's order"
    ), error.message
    assert "the order known" in (error.hint or "")
    assert as_it_stands(t) == before


def short_shoe(t: Tournament, coups: int, *, table: int = 1) -> Tournament:
    """``t`` reopened with the first shoe at ``table`` cut short: the cards
    of ``coups`` coups of a shuffled shoe, then three cards, too few for a
    coup (a log written elsewhere: the tournament itself never deals such a
    shoe).  Its session started, no hand opened at ``table`` yet."""
    rest = iter(Shoe.shuffled(8, seed="short").order)
    cards = [card for _ in range(coups) for card in deal(rest).cards]
    cards += [next(rest) for _ in range(3)]
    shoe = Shoe(cards)
    nonce, order = shoe.reveal()
    started = ShoeStarted(t.session_number, table, 1, order, len(cards), shoe.commitment, nonce)
    t.log.append(t.id, started, expected=t.seq + 1)
    return Tournament.open(t.log, t.id)


# -- 5.1 a foreign card: the engine's shoe holds none ----------------------------------------


def test_baccarat_tournament_5_1_a_foreign_card_in_a_hand_in_play_is_refused_by_the_shoe() -> None:
    t = three()
    bet_hand(t, BETS)
    coup = next_coup(t, 1)
    for role in STAFF:
        refused_by_the_record(t, partial(t.foreign_card, 1, dealt=3, role=role), "5.1", "cards 1-3")
        assert not t.can_foreign_card(1, dealt=3, role=role)
    # the hand settles on the shoe's own cards
    result = settled(t)
    assert result.cards == str(coup)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}
    assert [t.entrants[e].hands_bet for e in ("e1", "e2", "e3")] == [1, 1, 1]
    replayed(t)


def test_baccarat_tournament_5_1_a_foreign_card_while_bets_are_open_is_refused_by_the_shoe() -> (
    None
):
    t = three()
    t.open_hand(1)
    t.place_bets("e1", [("banker", 2000)])
    refused_by_the_record(
        t, lambda: t.foreign_card(1, role=Role.PIT_MANAGER), "5.1", "no card out yet"
    )
    assert t.tables[1].bets["e1"][0].stake == 2000
    assert t.snapshot()["tables"][0]["voided"] is None
    t.close_betting(1)
    coup = next_coup(t, 1)
    settled(t)
    assert chips(t)["e1"] == START + net(coup, [("banker", 2000)])


def test_baccarat_tournament_5_1_2_previous_hands_stand() -> None:
    t = three()
    bet_hand(t, BETS)
    first = next_coup(t, 1)
    settled(t)
    after_first = {e: START + net(first, BETS[e]) for e in ("e1", "e2", "e3")}
    assert chips(t) == after_first
    seq = t.seq
    with pytest.raises(IrregularityError) as refused:
        t.foreign_card(1)
    assert refused.value.clause == "5.1.2"  # the rules refuse it before the shoe need
    assert not isinstance(refused.value, IrregularityRecordError)
    assert not t.can_foreign_card(1)
    assert t.seq == seq
    bet_hand(t, BETS)
    refused_unascertained(t, lambda: t.simultaneous_draw(1, 2, order_known=False, dealt=2), 4)
    assert chips(t) == after_first  # hand 1 stands; hand 2 is in play
    assert (t.tables[1].settled, t.tables[1].hand) == (1, 2)
    replayed(t)


def test_baccarat_tournament_5_1_a_player_may_not_claim_a_foreign_card() -> None:
    t = three()
    bet_hand(t, BETS)
    seq = t.seq
    with pytest.raises(IrregularityRoleError) as refused:
        t.foreign_card(1, role=Role.PLAYER)
    assert refused.value.clause == "5.1"
    assert not t.can_foreign_card(1, role=Role.PLAYER)
    assert t.seq == seq
    assert t.tables[1].phase is Phase.CLOSED
    coup = next_coup(t, 1)
    settled(t)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}


# -- 5.2 an incorrect number of cards: the engine deals by the Table of Play ----------------


def test_baccarat_tournament_5_2_incorrect_number_on_a_settled_hand_is_refused_by_the_shoe() -> (
    None
):
    t = three()
    bet_hand(t, BETS)
    first = next_coup(t, 1)
    settled(t)
    bet_hand(t, BETS)
    second = next_coup(t, 1)
    settled(t)
    after = {e: START + net(first, BETS[e]) + net(second, BETS[e]) for e in BETS}
    assert chips(t) == after
    cards = f"cards {len(first.cards) + 1}-{len(first.cards) + len(second.cards)}"
    for role in (Role.PIT_MANAGER, Role.DEALER):
        refused_by_the_record(
            t,
            partial(t.incorrect_number_of_cards, 1, reconstructable=False, role=role),
            "5.2",
            cards,
        )
    # hand 2's results stand; the next hand is hand 3
    assert chips(t) == after
    assert [t.entrants[e].hands_bet for e in ("e1", "e2", "e3")] == [2, 2, 2]
    bet_hand(t, BETS)
    assert (t.tables[1].hand, t.tables[1].settled) == (3, 2)
    replayed(t)


@pytest.mark.parametrize("reconstructable", [False, True])
def test_baccarat_tournament_5_2_incorrect_number_in_play_is_refused_by_the_shoe(
    reconstructable: bool,
) -> None:
    t = three()
    bet_hand(t, BETS)
    coup = next_coup(t, 1)
    refused_by_the_record(
        t,
        lambda: t.incorrect_number_of_cards(1, reconstructable=reconstructable, dealt=5),
        "5.2",
        "cards 1-5",
    )
    assert not t.can_incorrect_number_of_cards(1, reconstructable=reconstructable, dealt=5)
    result = settled(t)
    assert result.cards == str(coup)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}
    replayed(t)


def test_baccarat_tournament_5_2_refused_once_a_sudden_death_hand_has_commenced() -> None:
    t = tournament(small(), 2, seed="tie")
    t.start_session()
    same: dict[str, list[tuple[str, int]]] = {"e1": [("banker", 500)], "e2": [("banker", 500)]}
    for _ in range(6):
        bet_hand(t, same)
        settled(t)
    assert t.entrants["e1"].chips == t.entrants["e2"].chips
    tb = t.open_tiebreak()
    assert tb is not None
    seq = t.seq
    with pytest.raises(IrregularityError) as refused:
        t.incorrect_number_of_cards(1, reconstructable=False, role=Role.PIT_MANAGER)
    assert refused.value.clause == "5.2"  # the clause that governs it, not 5.1.2
    assert "the next round has commenced" in refused.value.message
    assert t.seq == seq
    assert t.entrants["e1"].chips == t.entrants["e2"].chips


# -- 5.3 cards drawn simultaneously: their order is the engine's shoe's ---------------------


@pytest.mark.parametrize("dealt", [0, 1, 2, 3])
def test_baccarat_tournament_5_3_unknown_order_in_the_initial_deal_is_refused_by_the_shoe(
    dealt: int,
) -> None:
    t = three()
    bet_hand(t, BETS)
    coup = next_coup(t, 1)
    for role in STAFF:
        refused_unascertained(
            t,
            partial(t.simultaneous_draw, 1, 2, order_known=False, dealt=dealt, role=role),
            dealt + 2,
        )
        assert not t.can_simultaneous_draw(1, 2, order_known=False, dealt=dealt, role=role)
    assert t.snapshot()["tables"][0]["voided"] is None
    # the hand settles on the shoe's own cards, in the shoe's order
    result = settled(t)
    assert result.cards == str(coup)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}
    assert [t.entrants[e].hands_bet for e in ("e1", "e2", "e3")] == [1, 1, 1]
    replayed(t)


def test_baccarat_tournament_5_3_known_order_the_cards_are_dealt_in_it() -> None:
    t = three()
    bet_hand(t, BETS)
    coup = next_coup(t, 1)
    noted = t.simultaneous_draw(1, 2, order_known=True, dealt=1)
    assert isinstance(noted, HandIrregularityNoted)
    assert noted.clause == "5.3"
    settled(t)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}


def test_baccarat_tournament_5_3_unknown_order_after_the_initial_deal_is_not_covered() -> None:
    t = three()
    bet_hand(t, BETS)
    seq = t.seq
    with pytest.raises(IrregularityError) as refused:
        t.simultaneous_draw(1, 2, order_known=False, dealt=4)
    assert refused.value.clause == "5.3"
    assert t.seq == seq
    assert chips(t) == {"e1": START, "e2": START, "e3": START}


def test_baccarat_tournament_5_3_no_card_is_out_while_bets_are_open() -> None:
    t = three()
    t.open_hand(1)
    t.place_bets("e1", [("banker", 1000)])
    seq = t.seq
    with pytest.raises(IrregularityError, match="bets are still open"):
        t.simultaneous_draw(1, 2, order_known=False)
    with pytest.raises(IrregularityError, match="no card of hand 1 is out yet"):
        t.foreign_card(1, dealt=2)
    assert t.seq == seq
    assert t.tables[1].bets["e1"][0].stake == 1000
    assert chips(t) == {"e1": START, "e2": START, "e3": START}


# -- a void (5.5, the only one left): what it does ------------------------------------------


def test_baccarat_tournament_5_5_a_void_returns_the_penalty_for_the_hand() -> None:
    t = tournament(small(heat_min_hands=6), 3, seed="penalty")
    t.start_session()
    t = short_shoe(t, 0)
    t.open_hand(1)
    t.place_bets("e1", [("banker", 1000)])
    t.place_bets("e2", [("player", 1000)])
    penalties = t.close_betting(1)  # e3 had to bet every hand and did not (T5.3)
    assert [(p.entrant, p.chips) for p in penalties] == [("e3", 500)]
    assert chips(t) == {"e1": START, "e2": START, "e3": START - 500}
    assert t.entrants["e3"].penalties == 1
    voided = t.deal_hand(1)
    assert isinstance(voided, HandVoided)
    assert voided.clause == "5.5"
    assert chips(t) == {"e1": START, "e2": START, "e3": START}
    assert t.entrants["e3"].penalties == 0
    replayed(t)


def test_baccarat_tournament_5_5_standings_and_advancing_count_only_the_hands_that_stand() -> None:
    t = three()
    t = short_shoe(t, 5)
    expected = {"e1": START, "e2": START, "e3": START}
    for hand in range(1, 7):
        bet_hand(t, BETS)
        if hand == 6:  # the shoe cannot complete the last hand: void, dealt again
            voided = t.deal_hand(1)
            assert isinstance(voided, HandVoided)
            assert voided.clause == "5.5"
            assert chips(t) == expected
            assert (t.tables[1].phase, t.tables[1].hand) == (Phase.IDLE, 6)
            bet_hand(t, BETS)
        coup = next_coup(t, 1)
        settled(t)
        expected = {e: expected[e] + net(coup, BETS[e]) for e in expected}
        assert chips(t) == expected
    assert t.tables[1].phase is Phase.DONE
    assert [t.entrants[e].hands_bet for e in ("e1", "e2", "e3")] == [6, 6, 6]
    while t.pending_tie():
        tb = t.open_tiebreak()
        if tb:
            for e in tb.entrants:
                t.choose_tiebreak(e, t.tiebreak_sides()[0])
            t.deal_tiebreak()
    t.end_session()
    again = replayed(t)
    best = max(expected.values())
    leaders = [e for e, c in expected.items() if c == best]
    assert t.advanced == again.advanced
    assert len(t.advanced) == 1
    assert t.advanced[0] in leaders
    assert {e: t.entrants[e].session_chips[1] for e in expected} == expected


def test_baccarat_tournament_5_5_a_live_hand_voided_opens_again_with_a_full_window() -> None:
    t = live_turbo(("ann", "bo"), 2)
    t.start_session()
    t = short_shoe(t, 0)
    time = FakeTime()
    opened: list[Window] = []
    clock = Clock(t, Runner(t), on_window=opened.append, now=time)
    run_until_waiting(clock)
    assert t.tables[1].phase is Phase.BETTING
    first = time.now
    t.place_bets("ann", [("banker", 1000)])
    time.now += 1.0
    t.close_betting(1)  # "No more bets" before the window ends
    pause = run_until_waiting(clock)  # the hand dealt: void, then the pause after a hand
    assert pause is not None
    assert pause == pytest.approx(0.5)
    voided = t.tables[1].voided
    assert voided is not None
    assert (voided.clause, voided.hand) == ("5.5", 1)
    turbo = 20000  # the turbo format's starting chips
    assert set(chips(t).values()) == {turbo}
    assert phase(t) is Phase.IDLE
    time.now += pause
    wait = run_until_waiting(clock)  # hand 1 again, with a full window of its own
    assert t.tables[1].phase is Phase.BETTING
    assert t.tables[1].hand == 1
    assert t.tables[1].shoes == 2
    assert wait == pytest.approx(2.0)
    assert [(w.hand, w.deadline) for w in opened] == [
        (1, first + 2.0),
        (1, time.now + 2.0),
    ]
    assert [(w.hand, w.deadline) for w in clock.windows()] == [(1, time.now + 2.0)]
    assert sorted(t.awaiting(1)) == ["ann", "bo"]
    assert set(chips(t).values()) == {turbo}


def test_baccarat_tournament_a_void_and_a_note_survive_a_restart_from_the_database(
    tmp_path: Path,
) -> None:
    log = open_event_log(str(tmp_path / "cup.db"), TOURNAMENT_STREAM)
    t = Tournament.create(log, "cup", small(), seed="irregular")
    for name in ("P1", "P2", "P3"):
        t.register(name)
    t.start_session()
    t = short_shoe(t, 1)
    bet_hand(t, BETS)
    first = next_coup(t, 1)
    settled(t)
    bet_hand(t, BETS)
    assert isinstance(t.deal_hand(1), HandVoided)  # hand 2 void: three cards left (5.5)
    bet_hand(t, BETS)  # hand 2 again, from a new shoe: an irregularity noted, not yet dealt
    t.simultaneous_draw(1, 2, order_known=True, dealt=1)
    again = Tournament.open(open_event_log(str(tmp_path / "cup.db"), TOURNAMENT_STREAM), "cup")
    assert chips(again) == chips(t) == {e: START + net(first, BETS[e]) for e in BETS}
    assert again.snapshot() == t.snapshot()
    assert again.tables[1].voided == t.tables[1].voided
    assert again.tables[1].noted == t.tables[1].noted
    voided, noted = t.tables[1].voided, t.tables[1].noted
    assert voided is not None
    assert noted is not None
    assert (voided.clause, noted.clause) == ("5.5", "5.3")


# -- 5.4 the shoe's order altered: the engine's shoe is never touched -----------------------


@pytest.mark.parametrize(("reconstructable", "dealt"), [(False, 0), (False, 3), (True, 2)])
def test_baccarat_tournament_5_4_order_altered_is_refused_by_the_shoe(
    reconstructable: bool, dealt: int
) -> None:
    t = three()
    bet_hand(t, BETS)
    coup = next_coup(t, 1)
    for role in STAFF:
        refused_by_the_record(
            t,
            partial(t.order_altered, 1, reconstructable=reconstructable, dealt=dealt, role=role),
            "5.4",
            f"cards 1-{dealt}" if dealt else "no card out yet",
        )
    assert not t.can_order_altered(1, reconstructable=reconstructable, dealt=dealt)
    assert (t.tables[1].shoe is not None, t.tables[1].shoes) == (True, 1)  # the shoe goes on
    result = settled(t)
    assert result.cards == str(coup)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}
    replayed(t)


# -- 5.5 insufficient cards ---------------------------------------------------------------


def test_baccarat_tournament_5_5_too_few_cards_in_the_shoe_void_the_hand_not_a_crash() -> None:
    t = short_shoe_tournament()
    bet_hand(t, BETS)
    voided = t.deal_hand(1)
    assert isinstance(voided, HandVoided)
    assert (voided.clause, voided.cards, voided.new_shoe) == ("5.5", "9H 9C 2D", True)
    assert chips(t) == {"e1": START, "e2": START, "e3": START}
    bet_hand(t, BETS)
    assert (t.tables[1].hand, t.tables[1].shoes) == (1, 2)
    coup = next_coup(t, 1)
    settled(t)
    assert chips(t) == {e: START + net(coup, BETS[e]) for e in ("e1", "e2", "e3")}
    replayed(t)


def short_shoe_tournament() -> Tournament:
    """Three entrants at one table whose shoe holds three cards (a log
    written elsewhere: the tournament itself never deals such a shoe)."""
    log = MemoryEventLog(TOURNAMENT_STREAM)
    t = Tournament.create(log, "short", small(), seed="short")
    for name in ("Ann", "Bo", "Cy"):
        t.register(name)
    t.start_session()
    three_cards = Shoe.parse("9H 9C 2D", cut_card=None)
    nonce, order = three_cards.reveal()
    short = ShoeStarted(1, 1, 1, order, 3, three_cards.commitment, nonce)
    log.append("short", short, expected=t.seq + 1)
    return Tournament.open(log, "short")


def test_baccarat_tournament_5_5_the_terminal_shows_the_void_and_plays_on() -> None:
    t = short_shoe_tournament()
    out = io.StringIO()
    runner = Runner(t, console=Console(file=out, width=200), verbose=True)
    while t.tables[1].voided is None:
        assert runner.step()
    assert chips(t) == {"e1": START, "e2": START, "e3": START}
    assert "T1 hand 1: void (5.5: insufficient cards: 0 left" in out.getvalue()
    while t.tables[1].settled < 1:
        assert runner.step()
    last = t.tables[1].last
    assert last is not None
    assert last.hand == 1
    assert t.tables[1].shoes == 2
    assert chips(t) == {r.entrant: START + r.net for r in last.results}


def test_baccarat_tournament_5_5_a_sudden_death_hand_the_shoe_cannot_complete_is_void() -> None:
    log = MemoryEventLog(TOURNAMENT_STREAM)
    t = Tournament.create(log, "tied", small(), seed="tie")
    for name in ("Ann", "Bo"):
        t.register(name)
    t.start_session()
    same: dict[str, list[tuple[str, int]]] = {"e1": [("banker", 500)], "e2": [("banker", 500)]}
    for _ in range(6):
        bet_hand(t, same)
        settled(t)
    level = chips(t)
    assert level["e1"] == level["e2"]
    # the table's next shoe holds three cards (a log written elsewhere)
    three_cards = Shoe.parse("9H 9C 2D", cut_card=None)
    nonce, order = three_cards.reveal()
    shoe = t.tables[1].shoes + 1
    log.append(
        "tied",
        ShoeStarted(1, 1, shoe, order, 3, three_cards.commitment, nonce),
        expected=t.seq + 1,
    )
    t = Tournament.open(log, "tied")
    tb = t.open_tiebreak()
    assert tb is not None
    t.choose_tiebreak("e1", "banker")
    t.choose_tiebreak("e2", "player")
    voided = t.deal_tiebreak()
    assert isinstance(voided, TiebreakVoided)
    assert (voided.clause, voided.cards) == ("5.5", "9H 9C 2D")
    assert t.tiebreak is None
    assert chips(t) == level  # T7.2: sudden death never moves chips
    again = t.open_tiebreak()  # the same sudden-death hand, from a new shoe
    assert again is not None
    assert again.attempt == 1
    assert t.tables[1].shoes == shoe + 1
    t.choose_tiebreak("e1", "banker")
    t.choose_tiebreak("e2", "player")
    coup = next_coup(t, 1)
    dealt = t.deal_tiebreak()
    assert isinstance(dealt, TiebreakDealt)
    assert {r.entrant: r.net for r in dealt.results} == {
        "e1": net(coup, [("banker", 500)]),
        "e2": net(coup, [("player", 500)]),
    }
    assert chips(t) == level
    replayed(t)
