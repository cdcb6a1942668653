"""Entries taken back (T2.4) and tournaments cancelled (T8.4) through the
HTTP API, on SQLite and PostgreSQL: the entry fees come back from the pool
to the wallets they came from, exactly and once -- with the withdrawal in the
same transaction as its event, and a cancellation's refunds, cut short by a
crash, finished at the next start -- and the refusals write nothing."""

from __future__ import annotations

from decimal import Decimal

import httpx2
from fastapi.testclient import TestClient

from punto.server.tournaments.money import fee_key, refund_key, withdrawal_key
from punto.store.ledger import PostingKind
from punto.tournament import Stage
from punto.tournament.events import EntrantWithdrawn, TournamentCancelled
from tests.server import test_server_tournament_paths as paths
from tests.server.test_server_support import DEALER, PIT, PLAYER, login, make_app

balance = paths.balance
bust = paths.bust
clean = paths.clean
counts = paths.counts
create = paths.create
ledger_of = paths.ledger_of
new_player = paths.new_player
play_hand = paths.play_hand
pool = paths.pool
refused = paths.refused
tournament_of = paths.tournament_of

FEE = paths.FEE
WITHDRAW_ENTRY = "T2.4, format turbo"
CANCEL = "T8.4, format turbo"


def withdraw(
    client: TestClient, tid: str, headers: dict[str, str], key: str | None
) -> httpx2.Response:
    return paths.keyed(client, "DELETE", f"/api/tournaments/{tid}/register", headers, key)


def cancel(client: TestClient, tid: str, headers: dict[str, str], reason: str) -> httpx2.Response:
    r: httpx2.Response = client.post(
        f"/api/tournaments/{tid}/cancel", headers=headers, json={"reason": reason}
    )
    return r


def test_t2_4_a_player_takes_the_entry_back_with_the_fee_and_may_enter_again(
    client: TestClient,
) -> None:
    create(client, "cup", "turbo", seed=2, tables=1)
    ann = new_player(client, "ann", "1000.00")
    bo = new_player(client, "bo", "1000.00")
    for headers in (ann, bo):
        assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
    assert pool(client, "cup") == 2 * FEE
    events, postings, requests = counts(client, "cup")
    r = withdraw(client, "cup", ann, "out-1")
    assert r.status_code == 200, r.text
    first = r.json()
    assert first == {"entrant": "ann", "refund": "50.00", "currency": "SGD", "balance": "1000.00"}
    assert counts(client, "cup") == (events + 1, postings + 1, requests + 1)
    assert balance(client, ann) == Decimal("1000.00")
    assert pool(client, "cup") == FEE
    posting = ledger_of(client).posting(withdrawal_key("cup", "ann", 1))
    assert posting is not None
    assert posting.kind is PostingKind.REFUND
    assert posting.amount_for("player:ann") == 5000
    assert posting.amount_for("tournament:cup") == -5000
    t = tournament_of(client, "cup")
    assert "ann" not in t.entrants
    assert [x.event for x in t.log.read("cup") if isinstance(x.event, EntrantWithdrawn)] == [
        EntrantWithdrawn("ann", "50.00")
    ]
    # the same request again: the first answer, nothing more written
    again = withdraw(client, "cup", ann, "out-1")
    assert again.status_code == 200
    assert again.json() == first
    assert counts(client, "cup") == (events + 1, postings + 1, requests + 1)
    # a new key, no entry left to take back
    before = counts(client, "cup")
    r = withdraw(client, "cup", ann, "out-2")
    refused(
        client, "cup", r, before, status=422, kind="TournamentError", clause=None,
        says="no entrant 'ann'",
    )  # fmt: skip
    # staff take back no entry of their own
    assert withdraw(client, "cup", login(client, DEALER), None).status_code == 403
    # she enters again, and pays again (a fee of its own on the ledger)
    r = client.post("/api/tournaments/cup/register", headers=ann)
    assert r.status_code == 200, r.text
    assert balance(client, ann) == Decimal("950.00")
    assert ledger_of(client).posting(fee_key("cup", "ann", 1, 2)) is not None
    assert t.registrations["ann"] == 2
    # and takes it back again: its own refund
    assert withdraw(client, "cup", ann, None).status_code == 200
    assert ledger_of(client).posting(withdrawal_key("cup", "ann", 2)) is not None
    assert balance(client, ann) == Decimal("1000.00")
    assert pool(client, "cup") == FEE
    clean(client)


def test_t2_4_no_entry_is_taken_back_once_the_first_session_starts(client: TestClient) -> None:
    create(client, "cup", "turbo", seed=2, tables=1)
    people = {n: new_player(client, n, "1000.00") for n in ("ann", "bo", "cy", "di")}
    for headers in people.values():
        assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
    r = client.post("/api/tournaments/cup/start", headers=login(client, PIT))
    assert r.status_code == 200, r.text
    before = counts(client, "cup")
    r = withdraw(client, "cup", people["ann"], "late")
    refused(
        client, "cup", r, before, status=422, kind="RegistrationError", clause=WITHDRAW_ENTRY,
        says="only before the first session starts; the tournament is playing",
    )  # fmt: skip
    assert balance(client, people["ann"]) == Decimal("950.00")
    clean(client)


def test_t8_4_a_cancelled_tournament_gives_every_fee_back_and_plays_no_more(
    client: TestClient,
) -> None:
    """Cancelled in the middle of the first session, after a re-entry: every
    fee paid (ann's two, the others' one) goes back to its wallet, the pool is
    empty, and the tournament takes no more actions."""
    create(client, "cup", "turbo", seed=2, tables=1)
    people = {n: new_player(client, n, "1000.00") for n in ("ann", "bo", "cy", "di")}
    for headers in people.values():
        assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
    pit = login(client, PIT)
    assert client.post("/api/tournaments/cup/start", headers=pit).status_code == 200
    others = {n: h for n, h in people.items() if n != "ann"}
    bust(client, "cup", {"ann": people["ann"]}, others)
    assert paths.reenter(client, "cup", people["ann"], None).status_code == 200
    play_hand(client, "cup", people)
    assert balance(client, people["ann"]) == Decimal("900.00")
    assert pool(client, "cup") == 5 * FEE
    # only a pit manager (or the admin) calls it off, and with a reason
    assert cancel(client, "cup", login(client, DEALER), "no").status_code == 403
    before = counts(client, "cup")
    r = cancel(client, "cup", pit, "   ")
    refused(
        client, "cup", r, before, status=422, kind="TournamentError", clause=None,
        says="a cancellation needs a reason",
    )  # fmt: skip
    r = cancel(client, "cup", pit, "the room is needed")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["stage"] == "cancelled"
    assert body["cancelled"] == {
        "reason": "the room is needed",
        "refunds": [
            {"entrant": "ann", "amount": "100.00", "paid": "100.00", "payment": "paid"},
            {"entrant": "bo", "amount": "50.00", "paid": "50.00", "payment": "paid"},
            {"entrant": "cy", "amount": "50.00", "paid": "50.00", "payment": "paid"},
            {"entrant": "di", "amount": "50.00", "paid": "50.00", "payment": "paid"},
        ],
    }
    for headers in people.values():
        assert balance(client, headers) == Decimal("1000.00")
    assert pool(client, "cup") == 0
    posting = ledger_of(client).posting(refund_key("cup", "ann"))
    assert posting is not None
    assert posting.kind is PostingKind.REFUND
    assert posting.memo == "tournament cup cancelled: the room is needed"
    results = client.get("/api/tournaments/cup/results").json()
    assert results["results"] == []
    assert results["cancelled"] == body["cancelled"]
    snapshot = client.get("/api/tournaments/cup").json()
    assert snapshot["cancelled"]["reason"] == "the room is needed"
    assert {e["status"] for e in snapshot["entrants"]} == {"cancelled"}
    # nothing more happens: no step, no bet, no second cancellation
    before = counts(client, "cup")
    r = client.post("/api/tournaments/cup/advance", headers=pit, json={"steps": 5})
    assert r.status_code == 200, r.text
    assert r.json()["steps"] == 0
    r = client.post(
        "/api/tournaments/cup/bets",
        headers=people["bo"],
        json={"bets": [{"wager": "banker", "stake": 200}]},
    )
    refused(
        client, "cup", r, before, status=409, kind="TournamentPhaseError", clause=None,
        says="the tournament was cancelled: the room is needed",
    )  # fmt: skip
    r = cancel(client, "cup", pit, "again")
    refused(
        client, "cup", r, before, status=409, kind="TournamentPhaseError", clause=CANCEL,
        says="already cancelled",
    )  # fmt: skip
    clean(client)


def test_t8_4_refunds_cut_short_by_a_crash_are_paid_at_the_next_start(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        create(client, "cup", "turbo", seed=2, tables=1)
        people = {n: new_player(client, n, "1000.00") for n in ("ann", "bo")}
        for headers in people.values():
            assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
        # an entrant the staff entered pays nothing and is given nothing back
        guest = {"name": "Guest"}
        r = client.post("/api/tournaments/cup/register", headers=login(client, PIT), json=guest)
        assert r.status_code == 200, r.text
        # the cancellation written, the server gone before a refund was paid
        tournament_of(client, "cup").cancel("a power cut")
        assert [r.entrant for r in tournament_of(client, "cup").refunds] == ["ann", "bo"]
        assert pool(client, "cup") == 2 * FEE
    with TestClient(make_app(db_url)) as client:
        t = tournament_of(client, "cup")
        assert t.stage is Stage.CANCELLED
        assert [x.event for x in t.log.read("cup") if isinstance(x.event, TournamentCancelled)]
        assert pool(client, "cup") == 0
        for name in ("ann", "bo"):
            headers = login(client, (name, f"{name}-password"))
            assert balance(client, headers) == Decimal("1000.00")
            history = ledger_of(client).history(f"player:{name}")
            assert [p.kind for p in history].count(PostingKind.REFUND) == 1
        clean(client)
    # and a third start pays nothing twice
    with TestClient(make_app(db_url)) as client:
        assert balance(client, login(client, ("ann", "ann-password"))) == Decimal("1000.00")
        clean(client)


def test_t8_4_a_finished_tournament_is_not_cancelled(client: TestClient) -> None:
    create(client, "cup", "turbo", seed=2, tables=1)
    pit = login(client, PIT)
    for name in ("A", "B", "C", "D"):
        r = client.post(
            "/api/tournaments/cup/register", headers=pit, json={"name": name, "strategy": "flat"}
        )
        assert r.status_code == 200, r.text
    while True:
        r = client.post("/api/tournaments/cup/advance", headers=pit, json={"steps": 5000})
        assert r.status_code == 200, r.text
        if r.json()["finished"]:
            break
    before = counts(client, "cup")
    r = cancel(client, "cup", pit, "too late")
    refused(
        client, "cup", r, before, status=409, kind="TournamentPhaseError", clause=CANCEL,
        says="has finished: its places and prizes stand",
    )  # fmt: skip
    assert login(client, PLAYER)  # the demo player is untouched by all this


def test_the_staff_enter_a_player_free_and_the_prize_goes_to_their_wallet(
    client: TestClient,
) -> None:
    """A comped entry: the staff enter a player account (``player``); no fee
    is taken, the player is the entrant, and the prize is paid to their wallet
    like any other (T8.3).  Only a player account can be entered so, and it
    plays for itself."""
    create(client, "cup", "turbo", seed=3, tables=1)
    pit = login(client, PIT)
    ann = new_player(client, "ann", "10.00")
    for wrong, says in (
        ({"player": "dealer"}, "'dealer' is not a player account"),
        ({"player": "nobody"}, "'nobody' is not a player account"),
        ({"player": "ann", "strategy": "flat"}, "plays for themselves"),
    ):
        before = counts(client, "cup")
        r = client.post("/api/tournaments/cup/register", headers=pit, json=wrong)
        refused(
            client, "cup", r, before, status=422, kind="RegistrationError",
            clause="T2.1, format turbo" if "account" in says else None, says=says,
        )  # fmt: skip
    r = client.post("/api/tournaments/cup/register", headers=ann, json={"player": "ann"})
    assert r.status_code == 403  # a player enters only themselves, and pays
    r = client.post("/api/tournaments/cup/register", headers=pit, json={"player": "ann"})
    assert r.status_code == 200, r.text
    assert r.json() == {
        "entrant": "ann",
        "name": "ann",
        "controller": "human",
        "entry": 1,
        "fee": None,
        "currency": "SGD",
        "wallet": "player:ann",
    }
    assert balance(client, ann) == Decimal("10.00")
    assert [p.kind for p in ledger_of(client).history("player:ann")] == [PostingKind.DEPOSIT]
    for name in "BCD":
        r = client.post(
            "/api/tournaments/cup/register", headers=pit, json={"name": name, "strategy": "flat"}
        )
        assert r.status_code == 200, r.text
    while not client.post("/api/tournaments/cup/advance", headers=pit, json={"steps": 5000}).json()[
        "finished"
    ]:
        pass
    results = client.get("/api/tournaments/cup/results").json()
    [row] = [x for x in results["results"] if x["entrant"] == "ann"]
    assert (row["place"], row["prize"], row["payment"], row["paid"]) == (
        1,
        "500.00",
        "paid",
        "500.00",
    )
    assert balance(client, ann) == Decimal("510.00")
    clean(client)
