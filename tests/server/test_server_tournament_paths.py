"""The paths of the tournament API that the other server tests do not walk,
on SQLite and PostgreSQL: a player out of chips re-entering through
``POST /reenter`` (T2.3), paying the entry fee again from their wallet into
the pool, idempotently; the sudden-death side chosen through ``POST /tiebreak``
in a real tie (T7.2); and the refusals around both -- each checked for its
status, error type and clause, and for having written nothing (no ledger
posting, no tournament event, no remembered answer).

The state is reached through the API and the engine's own actions only: hands
are opened, closed and dealt by the staff's ``advance`` one step at a time
(never while a person still has to act, so nobody is played for), and the
coup about to be dealt is read from the table's seeded shoe (never changed)
so that a player can lose all their chips, or a sudden-death hand be
separated, on purpose."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx2
from fastapi.testclient import TestClient

from punto.rules.coup import Coup
from punto.server.tournaments.money import fee_key
from punto.server.tournaments.service import Tournaments
from punto.tournament import Phase, Stage, Tournament
from punto.tournament.events import EntrantReentered, TiebreakDealt
from tests.server import test_server_tournament as base
from tests.server import test_server_tournament_money as money
from tests.server.test_server_support import PIT, PLAYER, login
from tests.tournament.test_tournament_clock import phase
from tests.tournament.test_tournament_core import next_coup

balance = money.balance
clean = money.clean
counts = money.counts
create = money.create
ledger_of = money.ledger_of
new_player = money.new_player

FEE = Decimal("50.00")  # the turbo format's entry fee
CHIPS = 20_000  # its starting chips
MIN_BET = 200  # its minimum bet
REENTRY = "T2.3, format turbo"
SUDDEN_DEATH = "T7.2, format turbo"


def tournament_of(client: TestClient, tid: str) -> Tournament:
    """The server's own tournament object (read here; changed only through the API)."""
    tournaments: Tournaments = client.app.state.tournaments  # type: ignore[attr-defined]
    return tournaments.get(tid).tournament


def step(client: TestClient, tid: str) -> None:
    """One action of the staff's ``advance``."""
    assert base.advance(client, login(client, PIT), tid, 1)["steps"] == 1


def open_hand(client: TestClient, tid: str) -> Coup:
    """'Place your bets, please' at table 1; the coup the shoe will deal."""
    t = tournament_of(client, tid)
    assert phase(t) is Phase.IDLE
    hand = t.tables[1].settled + 1
    step(client, tid)
    assert phase(t) is Phase.BETTING
    assert t.tables[1].hand == hand
    return next_coup(t, 1)


def finish_hand(client: TestClient, tid: str) -> None:
    """'No more bets' once everyone has acted (nobody is played for), and the deal."""
    t = tournament_of(client, tid)
    assert t.awaiting(1) == []
    settled = t.tables[1].settled
    step(client, tid)
    assert phase(t) is Phase.CLOSED
    step(client, tid)
    assert t.tables[1].settled == settled + 1


def bet(client: TestClient, tid: str, headers: dict[str, str], wager: str, stake: int) -> None:
    r = client.post(
        f"/api/tournaments/{tid}/bets",
        headers=headers,
        json={"bets": [{"wager": wager, "stake": stake}]},
    )
    assert r.status_code == 200, r.text


def play_hand(client: TestClient, tid: str, people: dict[str, dict[str, str]]) -> None:
    """A hand on which everyone who can bet bets the minimum on Banker."""
    t = tournament_of(client, tid)
    open_hand(client, tid)
    for name, headers in people.items():
        if not t.out_of_chips(name):
            bet(client, tid, headers, "banker", MIN_BET)
    finish_hand(client, tid)


def bust(
    client: TestClient,
    tid: str,
    losers: dict[str, dict[str, str]],
    others: dict[str, dict[str, str]],
) -> None:
    """Play hands until one that is not a Tie, on which every one of ``losers``
    stakes all their chips on the side the shoe is about to lose: they are
    out of chips (T4.7).  Everyone else who can bet bets the minimum."""
    t = tournament_of(client, tid)
    while True:
        coup = open_hand(client, tid)
        winner = coup.winner.value
        for name, headers in others.items():
            if not t.out_of_chips(name):
                bet(client, tid, headers, "banker", MIN_BET)
        if winner == "tie":  # Banker and Player push: nobody could lose everything
            for _name, headers in losers.items():
                bet(client, tid, headers, "banker", MIN_BET)
            finish_hand(client, tid)
            continue
        losing = "player" if winner == "banker" else "banker"
        for name, headers in losers.items():
            bet(client, tid, headers, losing, t.entrants[name].chips)
        finish_hand(client, tid)
        for name in losers:
            assert t.entrants[name].chips == 0
            assert t.out_of_chips(name)
        return


def keyed(
    client: TestClient, method: str, path: str, headers: dict[str, str], key: str | None
) -> httpx2.Response:
    """A request with an Idempotency-Key (or none)."""
    extra = {} if key is None else {"Idempotency-Key": key}
    r: httpx2.Response = client.request(method, path, headers={**headers, **extra})
    return r


def reenter(
    client: TestClient, tid: str, headers: dict[str, str], key: str | None
) -> httpx2.Response:
    return keyed(client, "POST", f"/api/tournaments/{tid}/reenter", headers, key)


def choose(client: TestClient, tid: str, headers: dict[str, str], side: str) -> httpx2.Response:
    r: httpx2.Response = client.post(
        f"/api/tournaments/{tid}/tiebreak", headers=headers, json={"side": side}
    )
    return r


def refused(
    client: TestClient,
    tid: str,
    response: httpx2.Response,
    before: tuple[int, int, int],
    *,
    status: int,
    kind: str,
    clause: str | None,
    says: str,
) -> dict[str, Any]:
    """The refusal as the API gives it, and nothing written: the tournament's
    events, the ledger's postings and the remembered answers are as before."""
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["type"] == kind, error
    assert error["clause"] == clause, error
    assert says in error["message"], error
    assert counts(client, tid) == before
    return error


def entries(client: TestClient, tid: str) -> dict[str, tuple[int, int]]:
    """Each entrant's (entry, chips) as the API shows them."""
    snapshot = client.get(f"/api/tournaments/{tid}").json()
    return {e["entrant"]: (e["entry"], e["chips"]) for e in snapshot["entrants"]}


def reentry_events(client: TestClient, tid: str) -> list[EntrantReentered]:
    t = tournament_of(client, tid)
    return [x.event for x in t.log.read(tid) if isinstance(x.event, EntrantReentered)]


def pool(client: TestClient, tid: str) -> Decimal:
    return Decimal(ledger_of(client).balance(f"tournament:{tid}")) / 100


# -- T2.3: re-entry ------------------------------------------------------------------------


def test_t2_3_reentry_pays_the_fee_again_once_and_its_refusals_write_nothing(
    client: TestClient,
) -> None:
    create(client, "cup", "turbo", seed=2, tables=1)
    ann = new_player(client, "ann", "1000.00")
    bo = new_player(client, "bo", "1000.00")
    cy = new_player(client, "cy", "1000.00")
    poor = new_player(client, "poor", "60.00")
    people = {"ann": ann, "bo": bo, "cy": cy, "poor": poor}
    for headers in people.values():
        r = client.post("/api/tournaments/cup/register", headers=headers)
        assert r.status_code == 200, r.text
    assert balance(client, poor) == Decimal("10.00")
    assert pool(client, "cup") == 4 * FEE

    # before the first session: nobody has chips to run out of
    before = counts(client, "cup")
    r = reenter(client, "cup", ann, "too-early")
    refused(
        client,
        "cup",
        r,
        before,
        status=422,
        kind="RegistrationError",
        clause=REENTRY,
        says="only during the first session",
    )
    assert client.post("/api/tournaments/cup/start", headers=login(client, PIT)).status_code == 200

    # not out of chips: refused, nothing paid
    before = counts(client, "cup")
    r = reenter(client, "cup", ann, "too-rich")
    refused(
        client,
        "cup",
        r,
        before,
        status=422,
        kind="RegistrationError",
        clause=REENTRY,
        says="still has 20,000 chips: only an entrant out of chips may re-enter",
    )
    # not an entrant at all
    r = reenter(client, "cup", login(client, PLAYER), None)
    refused(
        client,
        "cup",
        r,
        before,
        status=422,
        kind="TournamentError",
        clause=None,
        says="no entrant 'demo'",
    )

    # Ann loses everything; she re-enters, paying the fee again
    bust(client, "cup", {"ann": ann}, {n: h for n, h in people.items() if n != "ann"})
    assert entries(client, "cup")["ann"] == (1, 0)
    events, postings, requests = counts(client, "cup")
    r = reenter(client, "cup", ann, "re-1")
    assert r.status_code == 200, r.text
    first = r.json()
    assert first == {
        "entrant": "ann",
        "name": "ann",
        "controller": "human",
        "entry": 2,
        "fee": "50.00",
        "currency": "SGD",
        "balance": "900.00",
        "chips": CHIPS,
    }
    assert counts(client, "cup") == (events + 1, postings + 1, requests + 1)
    assert balance(client, ann) == Decimal("900.00")
    assert pool(client, "cup") == 5 * FEE
    posting = ledger_of(client).posting(fee_key("cup", "ann", 2))
    assert posting is not None
    assert posting.amount_for("player:ann") == -5000
    assert posting.amount_for("tournament:cup") == 5000
    assert entries(client, "cup")["ann"] == (2, CHIPS)
    assert tournament_of(client, "cup").entrants["ann"].fees == 2 * FEE
    # the log alone says who paid what
    assert reentry_events(client, "cup") == [EntrantReentered("ann", 2, CHIPS, "50.00")]

    # the same request again: the first answer, no second fee, nothing written
    again = reenter(client, "cup", ann, "re-1")
    assert again.status_code == 200, again.text
    assert again.json() == first
    assert counts(client, "cup") == (events + 1, postings + 1, requests + 1)
    assert balance(client, ann) == Decimal("900.00")
    # the same key for another request: refused
    before = counts(client, "cup")
    r = client.post("/api/tournaments/cup/register", headers={**ann, "Idempotency-Key": "re-1"})
    refused(
        client,
        "cup",
        r,
        before,
        status=409,
        kind="IdempotencyKeyError",
        clause=None,
        says="already used for a different request",
    )
    # a new key while she has her new stack: not out of chips
    r = reenter(client, "cup", ann, "re-2")
    refused(
        client,
        "cup",
        r,
        before,
        status=422,
        kind="RegistrationError",
        clause=REENTRY,
        says="still has 20,000 chips",
    )

    # Ann and Poor lose everything; Ann re-enters a second time, the last the format allows
    bust(client, "cup", {"ann": ann, "poor": poor}, {"bo": bo, "cy": cy})
    r = reenter(client, "cup", ann, "re-2")
    assert r.status_code == 200, r.text
    assert (r.json()["entry"], r.json()["balance"]) == (3, "850.00")
    # Poor's wallet is short of the fee: 402, nothing written
    before = counts(client, "cup")
    r = reenter(client, "cup", poor, "poor-1")
    error = refused(
        client,
        "cup",
        r,
        before,
        status=402,
        kind="InsufficientFundsError",
        clause="T2.1, format turbo",
        says="the entry fee of 50.00 SGD is more than the 10.00",
    )
    assert error["hint"]
    assert balance(client, poor) == Decimal("10.00")
    assert entries(client, "cup")["poor"] == (1, 0)
    # with the money there, the same key is free for the retry
    r = client.post(
        "/api/cage/deposit",
        headers=login(client, PIT),
        json={"username": "poor", "amount": "40.00", "key": "poor-top-up"},
    )
    assert r.status_code == 201, r.text
    r = reenter(client, "cup", poor, "poor-1")
    assert r.status_code == 200, r.text
    assert (r.json()["entry"], r.json()["balance"]) == (2, "0.00")
    assert entries(client, "cup")["poor"] == (2, CHIPS)

    # Ann out of chips a third time: beyond the number of re-entries
    bust(client, "cup", {"ann": ann}, {"bo": bo, "cy": cy, "poor": poor})
    before = counts(client, "cup")
    r = reenter(client, "cup", ann, "re-3")
    refused(
        client,
        "cup",
        r,
        before,
        status=422,
        kind="RegistrationError",
        clause=REENTRY,
        says="has re-entered 2 time(s), the most allowed",
    )
    assert balance(client, ann) == Decimal("850.00")

    # after the re-entry deadline (turbo: the first hand one could bet on is past hand 8)
    t = tournament_of(client, "cup")
    while t.tables[1].settled < 7:
        play_hand(client, "cup", people)
    bust(client, "cup", {"bo": bo}, {"cy": cy, "poor": poor})
    assert t.tables[1].settled >= 8
    before = counts(client, "cup")
    r = reenter(client, "cup", bo, "bo-1")
    refused(
        client,
        "cup",
        r,
        before,
        status=422,
        kind="RegistrationError",
        clause=REENTRY,
        says="re-entry closed after hand 8",
    )
    assert balance(client, bo) == Decimal("950.00")

    # exact money: four fees and three re-entries, all in the pool
    assert balance(client, ann) == Decimal("1000.00") - 3 * FEE
    assert balance(client, bo) == Decimal("1000.00") - FEE
    assert balance(client, cy) == Decimal("1000.00") - FEE
    assert balance(client, poor) == Decimal("0.00")
    assert pool(client, "cup") == 7 * FEE
    assert [(e.entrant, e.entry, e.fee) for e in reentry_events(client, "cup")] == [
        ("ann", 2, "50.00"),
        ("ann", 3, "50.00"),
        ("poor", 2, "50.00"),
    ]
    clean(client)


def test_t2_3_the_staff_advance_does_not_reenter_a_player_at_no_cost(client: TestClient) -> None:
    """Re-entry costs a player the entry fee again; only they can ask for it.
    The staff's ``advance`` plays for people who have not acted, but must
    not give one out of chips a new stack -- without the fee, it would be a
    free re-entry that no ledger posting records."""
    create(client, "cup", "turbo", seed=3, tables=1)
    people = {n: new_player(client, n, "1000.00") for n in ("ann", "bo", "cy", "di")}
    for headers in people.values():
        assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
    assert client.post("/api/tournaments/cup/start", headers=login(client, PIT)).status_code == 200
    ann = people["ann"]
    bust(client, "cup", {"ann": ann}, {n: h for n, h in people.items() if n != "ann"})
    t = tournament_of(client, "cup")
    _events, postings, requests = counts(client, "cup")
    step(client, "cup")  # the next action: the next hand, Ann still out of chips
    assert phase(t) is Phase.BETTING
    assert entries(client, "cup")["ann"] == (1, 0)
    assert reentry_events(client, "cup") == []
    assert counts(client, "cup")[1:] == (postings, requests)
    # she may still re-enter herself while the hand is bet (it is hand 2 or so, before 8)
    r = reenter(client, "cup", ann, None)
    assert r.status_code == 200, r.text
    assert (r.json()["entry"], r.json()["balance"]) == (2, "900.00")
    bet(client, "cup", ann, "banker", MIN_BET)
    assert pool(client, "cup") == 5 * FEE
    clean(client)


# -- T7.2: the sudden-death hand -------------------------------------------------------------


def test_t7_2_tied_players_choose_their_sides_and_the_refusals_write_nothing(
    client: TestClient,
) -> None:
    """Ann, Bo and Cy bet alike on every hand of the heat and finish level at
    the top; Di, who sat out one hand Banker won, is behind.  One advances
    (T6.2), so the three play a sudden-death hand (T7.1, T7.2)."""
    create(client, "sd", "turbo", seed=7, tables=1)
    people = {n: new_player(client, n, "1000.00") for n in ("ann", "bo", "cy", "di")}
    for headers in people.values():
        assert client.post("/api/tournaments/sd/register", headers=headers).status_code == 200
    pit = login(client, PIT)
    assert client.post("/api/tournaments/sd/start", headers=pit).status_code == 200
    t = tournament_of(client, "sd")

    di_behind = False
    while phase(t) is not Phase.DONE:
        coup = open_hand(client, "sd")
        for name, headers in people.items():
            if name == "di" and not di_behind and coup.winner.value == "banker":
                r = client.post(
                    "/api/tournaments/sd/bets", headers=headers, json={"pass_hand": True}
                )
                assert r.status_code == 200, r.text
                di_behind = True
            else:
                bet(client, "sd", headers, "banker", MIN_BET)
        finish_hand(client, "sd")
    chips = {n: e.chips for n, e in t.entrants.items()}
    assert chips["ann"] == chips["bo"] == chips["cy"] == chips["di"] + MIN_BET
    assert t.pending_tie() is not None

    ann, di = people["ann"], people["di"]
    # the tie is pending but no sudden-death hand is open yet
    before = counts(client, "sd")
    r = choose(client, "sd", ann, "banker")
    refused(
        client,
        "sd",
        r,
        before,
        status=409,
        kind="TournamentPhaseError",
        clause=None,
        says="no sudden-death hand is open",
    )

    step(client, "sd")  # the staff open it
    tb = t.tiebreak
    assert tb is not None
    assert sorted(tb.entrants) == ["ann", "bo", "cy"]
    board = client.get("/api/tournaments/sd/leaderboard").json()
    assert board["tiebreak"] == {
        "scope": "table:1",
        "table": 1,
        "entrants": list(tb.entrants),
        "attempt": 1,
        "reason": "for the last advancing place at table 1",
        "chosen": [],
    }
    first, second, third = tb.entrants
    coup = next_coup(t, tb.table)
    winning = coup.winner.value
    assert winning != "tie", "choose a seed whose sudden-death coup separates them"
    losing = "player" if winning == "banker" else "banker"

    before = counts(client, "sd")
    # someone not in it: Di (behind), and a player who is no entrant
    r = choose(client, "sd", di, "banker")
    refused(
        client,
        "sd",
        r,
        before,
        status=422,
        kind="TiebreakError",
        clause=SUDDEN_DEATH,
        says="di is not in this sudden-death hand",
    )
    r = choose(client, "sd", login(client, PLAYER), "banker")
    refused(
        client,
        "sd",
        r,
        before,
        status=422,
        kind="TournamentError",
        clause=None,
        says="no entrant 'demo'",
    )
    # a side that is not Banker or Player
    r = choose(client, "sd", people[first], "tie")
    refused(
        client,
        "sd",
        r,
        before,
        status=422,
        kind="TiebreakError",
        clause=SUDDEN_DEATH,
        says="a sudden-death hand is bet on Banker or Player, not 'tie'",
    )
    # staff choose for nobody
    assert choose(client, "sd", pit, "banker").status_code == 403
    assert counts(client, "sd") == before

    # the first chooses freely
    r = choose(client, "sd", people[first], losing.upper())
    assert r.status_code == 200, r.text
    assert r.json() == {
        "entrant": first,
        "side": losing,
        "open_sides": [winning],
        "chosen": [first],
    }
    events = counts(client, "sd")
    assert events == (before[0] + 1, before[1], before[2])
    r = choose(client, "sd", people[first], winning)
    refused(
        client,
        "sd",
        r,
        events,
        status=422,
        kind="TiebreakError",
        clause=SUDDEN_DEATH,
        says=f"{first} has already chosen {losing}",
    )
    # while a side is still open, the next must take it
    r = choose(client, "sd", people[second], losing)
    error = refused(
        client,
        "sd",
        r,
        events,
        status=422,
        kind="TiebreakError",
        clause=SUDDEN_DEATH,
        says=f"{losing} is taken",
    )
    assert error["hint"] == f"choose {winning}"
    r = choose(client, "sd", people[second], winning)
    assert r.status_code == 200, r.text
    assert r.json()["open_sides"] == ["banker", "player"]  # both taken: both open again
    r = choose(client, "sd", people[third], losing)
    assert r.status_code == 200, r.text
    assert r.json()["chosen"] == sorted([first, second, third])
    assert client.get("/api/tournaments/sd/leaderboard").json()["tiebreak"]["chosen"] == sorted(
        [first, second, third]
    )

    # the staff deal it: the only one on the winning side advances; nobody's chips change
    dealt: list[TiebreakDealt] = []
    t.subscribe(lambda _seq, ev: dealt.append(ev) if isinstance(ev, TiebreakDealt) else None)
    _, postings, requests = counts(client, "sd")
    step(client, "sd")
    (event,) = dealt
    assert event.cards == str(coup)
    assert {(r.entrant, r.wager, r.net) for r in event.results} == {
        (first, losing, -MIN_BET),
        (second, winning, MIN_BET),
        (third, losing, -MIN_BET),
    }
    assert {n: e.chips for n, e in t.entrants.items()} == chips
    assert t.pending_tie() is None
    r = choose(client, "sd", people[third], winning)  # it is closed now
    assert r.status_code == 409, r.text
    step(client, "sd")  # the session ends
    assert t.stage is Stage.BETWEEN
    assert t.advanced == (second,)
    assert counts(client, "sd")[1:] == (postings, requests)

    # to the end: the prizes are money, exactly -- 500.00 to the finalist; the
    # two who lost the sudden-death hand were eliminated level, so they share
    # places 2 and 3 (T7.4: 250.00 + 100.00, split); Di, 4th, wins nothing
    house = ledger_of(client).balance("house")
    money.run_to_end(client, "sd")
    results = client.get("/api/tournaments/sd/results").json()
    assert results["entry_fees"] == "200.00"
    rows = {x["entrant"]: (x["place"], x["prize"], x["payment"]) for x in results["results"]}
    assert rows == {
        second: (1, "500.00", "paid"),
        first: (2, "175.00", "paid"),
        third: (2, "175.00", "paid"),
        "di": (4, "0.00", None),
    }
    for name, headers in people.items():
        prize = Decimal(rows[name][1])
        assert balance(client, headers) == Decimal("1000.00") - FEE + prize
    assert pool(client, "sd") == 0
    # the fees (200.00) did not cover the prizes (850.00): the house paid 650.00
    assert ledger_of(client).balance("house") - house == -65_000
    clean(client)
