"""Security review, finding 6a: reads took the table's lock, so a flood of anonymous
reads (``GET /api/tables/{id}``, the scoreboard) slowed the bets 50-75x.
Every read of a table is now answered from the snapshot the table publishes
after its changes (:mod:`punto.server.tables.views`): a read while another
thread holds the table's lock answers at once, and what it shows is one
moment of the table (a bet with the balance it left)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal

from fastapi.testclient import TestClient

from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    deal_cards,
    login,
    physical_shoe,
    server_of,
)

#: How long the lock is held at most: a read that waited for it fails the test, not hangs it.
HOLD_SECONDS = 30.0


@contextmanager
def table_lock_held(
    client: TestClient, table_id: str, change: Callable[[], object] | None = None
) -> Iterator[threading.Event]:
    """Hold the table's lock in another thread for the block (making ``change``
    first, under it); yields an event set if the lock had to be let go before
    the block ended (a read waited for it)."""
    runtime = server_of(client).table(table_id)
    acquired, done, timed_out = threading.Event(), threading.Event(), threading.Event()

    def hold() -> None:
        with runtime.lock:
            try:
                if change is not None:
                    change()
            finally:
                acquired.set()
            if not done.wait(HOLD_SECONDS):
                timed_out.set()

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert acquired.wait(HOLD_SECONDS)
    try:
        yield timed_out
    finally:
        done.set()
        holder.join(HOLD_SECONDS)


def test_security_reads_answer_while_the_table_lock_is_held(client: TestClient) -> None:
    physical_shoe(client, "dragon")
    player, dealer, pit = login(client, PLAYER), login(client, DEALER), login(client, PIT)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    placed = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert placed.status_code == 201, placed.text
    round_id = placed.json()["round_id"]
    # The readers have looked since (each read after a change builds the snapshot).
    assert client.get("/api/tables/dragon", headers=dealer).status_code == 200
    reads = [
        ("/api/tables/dragon", {}),
        ("/api/tables/dragon", player),
        ("/api/tables/dragon", dealer),
        ("/api/tables/dragon/scoreboard", {}),
        ("/api/tables/dragon/rounds", dealer),
        (f"/api/tables/dragon/rounds/{round_id}", dealer),
        ("/api/tables", {}),
        ("/api/pit", pit),
    ]
    with table_lock_held(client, "dragon") as waited:
        answers = {}
        for path, headers in reads:
            response = client.get(path, headers=headers)
            assert response.status_code == 200, (path, response.text)
            answers[path, tuple(headers.items())] = response.json()
        assert not waited.is_set(), "a read waited for the table's lock"
    mine = answers["/api/tables/dragon", tuple(player.items())]["me"]
    assert [(b["wager"], b["stake"]) for b in mine["bets"]] == [("banker", "100.00")]
    assert mine["balance"] == "9900.00"
    staff = answers["/api/tables/dragon", tuple(dealer.items())]["staff"]
    assert [(b["player"], b["stake"]) for b in staff["bets"]] == [("demo", "100.00")]
    detail = answers[f"/api/tables/dragon/rounds/{round_id}", tuple(dealer.items())]
    assert [e["type"] for e in detail["events"]][-1] == "bet_placed"


def test_security_reads_a_change_in_progress_does_not_hold_a_read_up(
    client: TestClient,
) -> None:
    """While a change holds the table (a bet, here made under the lock), the
    table as it was is answered at once to everyone else; once the lock is
    free, the next read shows the change."""
    physical_shoe(client, "dragon")
    player, player2, dealer = login(client, PLAYER), login(client, PLAYER2), login(client, DEALER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    assert client.get("/api/tables/dragon", headers=player).json()["me"]["bets"] == []
    user_id = client.get("/api/session", headers=player).json()["user"]["id"]
    runtime = server_of(client).table("dragon")

    def bet() -> object:
        return runtime.place_bet(user_id, PLAYER[0], "banker", Decimal(100))

    with table_lock_held(client, "dragon", bet) as waited:
        during = [client.get("/api/tables/dragon", headers=h).json() for h in ({}, player2)]
        assert not waited.is_set(), "a read waited for the table's lock"
    assert [d["round"]["totals"] for d in during] == [{}, {}]  # the snapshot before the bet
    assert during[1]["me"]["bets"] == []
    after = client.get("/api/tables/dragon", headers=player).json()
    assert after["round"]["totals"] == {"banker": "100.00"}
    assert [b["stake"] for b in after["me"]["bets"]] == ["100.00"]
    assert after["me"]["balance"] == "9900.00"


def test_security_reads_a_players_read_waits_for_their_own_bet_only(
    client: TestClient,
) -> None:
    """A player's own bet is theirs to see at once: their read waits for the
    table's lock (a moment) rather than answer a snapshot without the bet and a
    balance with it -- as a forwarded read may come while the process that runs
    the table still holds it after the bet's commit."""
    physical_shoe(client, "dragon")
    player, dealer = login(client, PLAYER), login(client, DEALER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    assert client.get("/api/tables/dragon", headers=player).json()["me"]["bets"] == []
    user_id = client.get("/api/session", headers=player).json()["user"]["id"]
    runtime = server_of(client).table("dragon")
    read: dict[str, object] = {}

    def bet() -> object:
        return runtime.place_bet(user_id, PLAYER[0], "banker", Decimal(100))

    def own_read() -> None:
        read["state"] = client.get("/api/tables/dragon", headers=player).json()

    reader = threading.Thread(target=own_read, daemon=True)
    with table_lock_held(client, "dragon", bet):
        reader.start()
        reader.join(0.5)
        assert "state" not in read, "the player's read did not wait for their own bet"
    reader.join(HOLD_SECONDS)
    state = read["state"]
    assert isinstance(state, dict)
    assert [b["stake"] for b in state["me"]["bets"]] == ["100.00"]
    assert state["me"]["balance"] == "9900.00"


def test_security_reads_a_read_after_a_bet_shows_the_bet_and_the_balance_together(
    client: TestClient,
) -> None:
    physical_shoe(client, "dragon")
    player, dealer = login(client, PLAYER), login(client, DEALER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    for stake, left in (("100", "9900.00"), ("40", "9860.00")):
        placed = client.post(
            "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": stake}
        )
        assert placed.status_code == 201, placed.text
        assert placed.json()["balance"] == left
        state = client.get("/api/tables/dragon", headers=player).json()
        assert state["me"]["balance"] == left
        staked = sum(Decimal(b["stake"]) for b in state["me"]["bets"])
        assert staked == Decimal("10000.00") - Decimal(left)
        assert state["round"]["totals"] == {"banker": str(staked)}
    staff = client.get("/api/tables/dragon", headers=dealer).json()["staff"]
    assert [b["stake"] for b in staff["bets"]] == ["100.00", "40.00"]
    # Settled: the result, the payout and the balance in one read; the roads with it.
    assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
    deal_cards(client, dealer, "dragon", "QH 2C 2D KS 3H 4D")  # Banker 6 beats Player 5
    assert client.post("/api/tables/dragon/round/settle", headers=dealer).status_code == 200
    state = client.get("/api/tables/dragon", headers=player).json()
    assert [r["payout"] for r in state["me"]["results"]] == ["195.00", "78.00"]
    assert state["me"]["balance"] == "10133.00"  # 9,860.00 + 195.00 + 78.00
    board = client.get("/api/tables/dragon/scoreboard").json()
    assert board["stats"]["coups"] == 1
