"""Live tournaments through the HTTP API, on SQLite and PostgreSQL: the
server's clock opens a betting window for every hand; a person bets, changes
and withdraws within it, a person who does not bet sits the hand out (nobody
plays for them); the clock stops with the app and carries on after a restart
from the log.  Every wait is bounded."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from punto.store.db import connect, tournament_events
from tests.server.test_server_support import DEALER, PIT, PLAYER, PLAYER2, login, make_app, wait_for


def create_live(
    client: TestClient, tid: str, *, betting: float, pause: float, people: tuple[Any, ...]
) -> dict[str, str]:
    pit = login(client, PIT)
    r = client.post(
        "/api/tournaments",
        headers=pit,
        json={
            "id": tid,
            "format": "turbo",
            "seed": 4,
            "tables": 1,
            "live": True,
            "betting_seconds": betting,
            "pause_seconds": pause,
        },
    )
    assert r.status_code == 200, r.text
    assert r.json()["live"] is True
    for who in people:
        r = client.post(f"/api/tournaments/{tid}/register", headers=login(client, who))
        assert r.status_code == 200, r.text
    for i in range(4 - len(people)):
        r = client.post(
            f"/api/tournaments/{tid}/register",
            headers=pit,
            json={"name": f"Bot {i}", "strategy": "flat"},
        )
        assert r.status_code == 200, r.text
    return pit


def snapshot(client: TestClient, tid: str) -> dict[str, Any]:
    r = client.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_a_person_bets_in_the_window_and_one_who_does_not_sits_out(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        # a window a loaded machine still makes its eight requests in
        pit = create_live(client, "live", betting=3.0, pause=0.05, people=(PLAYER, PLAYER2))
        ann = login(client, PLAYER)
        dealer = login(client, DEALER)  # logging in is slow on purpose: not inside the window
        # nothing happens before the staff start the first session
        time.sleep(0.2)
        assert snapshot(client, "live")["stage"] == "registration"
        assert client.post("/api/tournaments/live/start", headers=pit).status_code == 200

        def betting() -> dict[str, Any] | None:
            s = snapshot(client, "live")
            table = s["tables"][0]
            return s if table["phase"] == "betting" and s["windows"] else None

        opened = wait_for(betting, timeout=10)
        window = opened["windows"][0]
        assert window["table"] == 1
        assert window["hand"] == 1
        assert window["seconds"] == 3.0
        assert opened["server_time"] < window["deadline"] <= opened["server_time"] + 3.0
        assert opened["live"] == {"betting_seconds": 3.0, "pause_seconds": 0.05}
        # bet, change, withdraw, bet again: all within the window (T4.6)
        url = "/api/tournaments/live/bets"
        r = client.post(url, headers=ann, json={"bets": [{"wager": "banker", "stake": 200}]})
        assert r.status_code == 200, r.text
        r = client.post(
            url, headers=ann, json={"bets": [{"wager": "player", "stake": 300}], "replace": True}
        )
        assert r.status_code == 200, r.text
        assert r.json()["bets"] == [{"wager": "player", "stake": 300}]
        r = client.delete(url, headers=ann)
        assert r.status_code == 200, r.text
        assert r.json()["bets"] == []
        r = client.post(url, headers=ann, json={"bets": [{"wager": "banker", "stake": 400}]})
        assert r.status_code == 200, r.text
        # a sudden-death side with none open, and staff: refused
        r = client.post("/api/tournaments/live/tiebreak", headers=ann, json={"side": "banker"})
        assert r.status_code == 409
        r = client.post("/api/tournaments/live/tiebreak", headers=dealer, json={"side": "banker"})
        assert r.status_code == 403
        # nobody is played for: advance is refused
        r = client.post("/api/tournaments/live/advance", headers=pit, json={"steps": 1})
        assert r.status_code == 409
        assert "live" in r.json()["error"]["message"]

        settled = wait_for(
            lambda: (s := snapshot(client, "live"))["tables"][0]["settled"] >= 1 and s, timeout=10
        )
        hand = settled["tables"][0]["last_hand"]
        assert hand["hand"] == 1
        results = {r["entrant"]: r for r in hand["results"]}
        assert results[PLAYER[0]]["staked"] == 400
        assert results[PLAYER2[0]]["staked"] == 0  # sat out
        bo = next(e for e in settled["entrants"] if e["entrant"] == PLAYER2[0])
        assert bo["hands_bet"] == 0
        assert bo["chips"] == 20000  # the minimum is still reachable: no penalty (T5.3)
        ann_row = next(e for e in settled["entrants"] if e["entrant"] == PLAYER[0])
        assert ann_row["hands_bet"] == 1
        assert ann_row["chips"] == 20000 + results[PLAYER[0]]["net"]
        # automated entrants bet as before
        bots = [r for e, r in results.items() if e not in (PLAYER[0], PLAYER2[0])]
        assert all(r["staked"] > 0 for r in bots)


def events(database: str, tid: str) -> int:
    engine = connect(database)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(tournament_events)
                    .where(tournament_events.c.tournament_id == tid)
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_the_clock_stops_with_the_app_and_resumes_after_a_restart(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        pit = create_live(client, "cup", betting=0.3, pause=0.02, people=(PLAYER,))
        assert client.post("/api/tournaments/cup/start", headers=pit).status_code == 200
        wait_for(lambda: snapshot(client, "cup")["tables"][0]["settled"] >= 2, timeout=15)
    stopped = events(db_url, "cup")
    time.sleep(0.5)
    assert events(db_url, "cup") == stopped  # the clock stopped with the app

    with TestClient(make_app(db_url)) as client:
        restarted = time.time()
        before = snapshot(client, "cup")
        assert before["seq"] >= stopped
        settled = before["tables"][0]["settled"]

        def fresh_window() -> bool:
            s = snapshot(client, "cup")
            return any(w["deadline"] > restarted for w in s["windows"])

        wait_for(fresh_window, timeout=10)
        wait_for(lambda: snapshot(client, "cup")["tables"][0]["settled"] >= settled + 2, timeout=15)


def test_t8_4_a_live_tournament_cancelled_mid_window_stops_its_clock(db_url: str) -> None:
    """Cancelled while a betting window is open: the window closes, the clock
    deals nothing more, and every fee paid comes back."""
    with TestClient(make_app(db_url)) as client:
        pit = create_live(client, "live", betting=5.0, pause=0.05, people=(PLAYER, PLAYER2))
        ann = login(client, PLAYER)
        paid = client.get("/api/me", headers=ann).json()["balance"]
        assert client.post("/api/tournaments/live/start", headers=pit).status_code == 200
        wait_for(lambda: snapshot(client, "live")["windows"], timeout=10)
        r = client.post("/api/tournaments/live/cancel", headers=pit, json={"reason": "fire drill"})
        assert r.status_code == 200, r.text
        after = snapshot(client, "live")
        assert after["stage"] == "cancelled"
        assert after["windows"] == []
        assert after["tables"][0]["settled"] == 0
        logged = events(db_url, "live")
        time.sleep(0.5)  # longer than a pause between hands: nothing more is dealt
        assert events(db_url, "live") == logged
        timers = client.app.state.tournaments._timers  # type: ignore[attr-defined]
        wait_for(lambda: timers["live"]._task is None or timers["live"]._task.done(), timeout=10)
        back = client.get("/api/me", headers=ann).json()["balance"]
        assert Decimal(back) == Decimal(paid) + Decimal("50.00")  # turbo's fee, refunded
