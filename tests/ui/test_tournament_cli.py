"""``punto tournament`` at the terminal, the CSV and JSON exports, and a golden run.

The command is fed scripted input the way ``tests/ui/test_play.py`` feeds
``punto play``: standard input is a script of typed lines.  The golden file
``tests/golden/tournament/sit_and_go.json`` holds a small tournament played
through the API with fixed bets: every coup (from the seeded shoe) and every
entrant's net and chips after each hand, which can be checked by hand from
the pays of rules 4.1 (Banker and Player 1 to 1, Tie 8 to 1, Pairs 11 to 1;
Banker and Player push on a Tie).  Set ``PUNTO_REGENERATE_GOLDEN=1`` to
rewrite it after a deliberate change, and check the diff by hand.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from punto.cli import main
from punto.eventlog import MemoryEventLog
from punto.rules.coup import Coup
from punto.tournament import Tournament, load_format
from punto.tournament.events import TOURNAMENT_STREAM, HandSettled, TiebreakDealt
from punto.tournament.export import results_csv, results_json, write_results
from punto.tournament.tournament import Stage

GOLDEN = Path(__file__).parents[1] / "golden" / "tournament"
REGENERATE = os.environ.get("PUNTO_REGENERATE_GOLDEN") == "1"


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *argv: str,
    script: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    code = main(["tournament", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- the terminal --------------------------------------------------------------------------

#: Ann's bets at the prompt: refusals first, then hands 1-25, then the catch-up bettor.
ANN = "\n".join(
    [
        "help",
        "banker 500",
        "banker 1250",
        "banker 1000 player 1000",
        "dragon 1000",
        "standings",
        "pass",
        *["banker 1000"] * 24,
        "auto",
    ]
)


def test_people_and_automated_entrants(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    csv_path, json_path = tmp_path / "r.csv", tmp_path / "r.json"
    code, out, err = run(
        capsys,
        monkeypatch,
        "--entrants", "20", "--tables", "3", "--seed", "11", "--human", "Ann",
        "--csv", str(csv_path), "--json", str(json_path),
        script=ANN + "\n",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert "Daily Baccarat Tournament (format daily): 20 entrants, Ann at the prompt" in out
    assert "Table 1:" in out
    assert "Table 3:" in out
    assert "Table 4:" not in out
    assert "WAGER CHIPS" in out  # help
    assert "bets of 500 are under the minimum bet of 1,000 (T4.2, format daily)" in out
    assert "1,250 is not a whole number of 500 chips (T1.2, format daily)" in out
    assert "Banker and Player may not both be bet in one hand (T4.5, format daily)" in out
    assert "'dragon' is not a wager of this tournament (T4.1, format daily)" in out
    assert "hand 26 of 30 — Last 5 hands" in out
    assert "The catch-up bettor plays for you from now on." in out
    assert "Daily Baccarat Tournament: results" in out
    rows = list(csv.DictReader(csv_path.read_text("utf-8").splitlines()))
    assert len(rows) == 20
    assert [r["place"] for r in rows][:1] == ["1"]
    ann = next(r for r in rows if r["name"] == "Ann")
    assert ann["controller"] == "human"
    assert ann["qualifying_table"]
    data = json.loads(json_path.read_text("utf-8"))
    assert data["seed"] == "11"
    assert data["format"]["id"] == "daily"
    assert [r["entrant"] for r in data["results"]] == [r["entrant"] for r in rows]


def test_late_entrants(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    json_path = tmp_path / "r.json"
    code, _out, _ = run(
        capsys, monkeypatch, "--format", "turbo", "--entrants", "8", "--late", "2", "--seed", "3",
        "--json", str(json_path),
    )  # fmt: skip
    assert code == 0
    names = {r["name"] for r in json.loads(json_path.read_text("utf-8"))["results"]}
    assert {"Late 1", "Late 2"} <= names
    assert len(names) == 10


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["--entrants", "3"],
            r"--entrants 3: format daily takes 6 to 32 entrants (T2.1, format daily)",
        ),
        (["--entrants", "20", "--tables", "5"], "use at most 4 tables"),
        (["--format", "weekly"], "no tournament format 'weekly'"),
        (["--mix", "banker,martingale"], "no automated entrant 'martingale'"),
        (["--entrants", "2", "--human", "A", "B", "C"], "fewer than the 3 people named"),
        (["--format", "championship", "--late", "2", "--entrants", "16"], "no late registration"),
    ],
)
def test_refusals_print_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], words: str
) -> None:
    code, out, err = run(capsys, monkeypatch, *argv)
    assert code == 2
    assert out == ""
    assert words in err


def test_formats_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "formats", "--json")
    assert code == 0
    assert [f["id"] for f in json.loads(out)] == ["championship", "daily", "turbo"]
    code, out, _ = run(capsys, monkeypatch, "formats")
    assert code == 0
    assert all(word in out for word in ("championship", "daily", "turbo", "Qualifying"))


def test_resume_from_the_database(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Input ends mid-session: the command stops (exit 1); the same command
    resumes from the database and ends as an uninterrupted run does."""
    argv = ["--format", "turbo", "--entrants", "6", "--seed", "9", "--human", "Ann"]
    lines = ["banker 200", "player 300", "pass", "banker 1000", "tie 200", "banker 200"] * 5
    whole = tmp_path / "whole.csv"
    code, _, _ = run(
        capsys, monkeypatch, *argv, "--csv", str(whole), script="\n".join(lines) + "\n"
    )
    assert code == 0
    db = str(tmp_path / "t.db")
    code, out, _ = run(
        capsys, monkeypatch, *argv, "--database", db, script="\n".join(lines[:7]) + "\n"
    )
    assert code == 1
    assert "Input ended" in out
    resumed = tmp_path / "resumed.csv"
    code, out, _ = run(
        capsys, monkeypatch, *argv, "--database", db, "--csv", str(resumed),
        script="\n".join(lines[7:]) + "\n",
    )  # fmt: skip
    assert code == 0
    assert "Resuming tournament 'tournament' (Turbo Baccarat, Heat)" in out
    assert resumed.read_text("utf-8") == whole.read_text("utf-8")
    code, out, _ = run(capsys, monkeypatch, *argv, "--database", db)
    assert code == 0
    assert "has finished" in out


def _events(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM tournament_events").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_killed_process_resumes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """SIGKILL while a person is being asked for a bet; the next run resumes."""
    argv = ["--format", "turbo", "--entrants", "6", "--seed", "21", "--human", "Ann"]
    lines = ["banker 500", "player 200"] * 20
    whole = tmp_path / "whole.csv"
    assert (
        run(capsys, monkeypatch, *argv, "--csv", str(whole), script="\n".join(lines) + "\n")[0] == 0
    )
    db = tmp_path / "t.db"
    given = 5
    proc = subprocess.Popen(
        [sys.executable, "-m", "punto.cli", "tournament", *argv, "--database", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(("\n".join(lines[:given]) + "\n").encode())
    proc.stdin.flush()
    seen, still = -1, 0
    deadline = time.monotonic() + 60
    while still < 4 and time.monotonic() < deadline:  # wait until it waits for Ann
        time.sleep(0.1)
        count = _events(db)
        still = still + 1 if count == seen and count > 0 else 0
        seen = count
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdin.close()
    assert seen > 20
    resumed = tmp_path / "resumed.csv"
    code, out, _ = run(
        capsys, monkeypatch, *argv, "--database", str(db), "--csv", str(resumed),
        script="\n".join(lines[given:]) + "\n",
    )  # fmt: skip
    assert code == 0
    assert "Resuming" in out
    assert resumed.read_text("utf-8") == whole.read_text("utf-8")


# -- exports and the golden run ----------------------------------------------------------------

SIT_AND_GO: dict[str, Any] = {
    "id": "sit-and-go",
    "title": "Sit and go",
    "currency": "SGD",
    "starting_chips": 10000,
    "chip_unit": 100,
    "seats": 6,
    "registration": {"min_entrants": 2, "max_entrants": 6},
    "tiebreak": {"sudden_death_hands": 2},
    "sessions": [
        {"name": "Heat", "hands": 6, "min_bet": 500, "max_bet": 5000, "min_hands": 4, "advance": 2},
        {"name": "Final", "hands": 4, "min_bet": 500, "max_bet": 5000, "min_hands": 2},
    ],
    "prizes": [{"place": 1, "amount": "100.00"}, {"place": 2, "amount": "40.00"}],
}

#: Fixed bets by entrant name, hand after hand (None: sit out).
BETS: dict[str, list[list[tuple[str, int]] | None]] = {
    "Ann": [[("banker", 1000)]] * 6,
    "Bo": [[("player", 1000)]] * 6,
    "Cy": [[("tie", 500), ("player_pair", 500)]] * 4 + [None, None],
    "Di": [[("banker", 5000)]] * 6,
}
FINAL_BETS: list[list[tuple[str, int]]] = [[("player", 2000)], [("banker", 2000)]]


def play_sit_and_go() -> tuple[Tournament, list[Any]]:
    fmt = load_format(SIT_AND_GO, "sit-and-go")
    t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "sng", fmt, seed="golden")
    names = {}
    for name in BETS:
        names[t.register(name)] = name
    log: list[Any] = []
    t.subscribe(
        lambda seq, ev: log.append(ev) if isinstance(ev, HandSettled | TiebreakDealt) else None
    )
    t.start_session()
    for hand in range(6):
        t.open_hand(1)
        for e in t.tables[1].entrants:
            bets = BETS[names[e]][hand]
            if bets is None:
                t.pass_hand(e)
            else:
                t.place_bets(e, bets)
        t.close_betting(1)
        t.deal_hand(1)
    while t.pending_tie():
        tb = t.open_tiebreak()
        if tb:
            for e in tb.entrants:
                t.choose_tiebreak(e, t.tiebreak_sides()[0])
            t.deal_tiebreak()
    t.end_session()
    t.start_session()
    finalists = t.tables[1].entrants
    for _ in range(4):
        t.open_hand(1)
        for e, bets in zip(finalists, FINAL_BETS, strict=True):
            t.place_bets(e, bets)
        t.close_betting(1)
        t.deal_hand(1)
    while t.pending_tie():
        tb = t.open_tiebreak()
        if tb:
            for e in tb.entrants:
                t.choose_tiebreak(e, t.tiebreak_sides()[0])
            t.deal_tiebreak()
    t.end_session()
    return t, log


def _hand_json(t: Tournament, ev: HandSettled | TiebreakDealt) -> dict[str, Any]:
    coup = Coup.parse(ev.cards)
    out: dict[str, Any] = {
        "session": ev.session,
        "player": f"{' '.join(map(str, coup.player.cards))} = {coup.player.total}",
        "banker": f"{' '.join(map(str, coup.banker.cards))} = {coup.banker.total}",
        "winner": ev.winner,
        "pairs": [side for side, hand in (("player", coup.player), ("banker", coup.banker))
                  if hand.cards[0].rank == hand.cards[1].rank],
    }  # fmt: skip
    if isinstance(ev, HandSettled):
        out["hand"] = ev.hand
        out["entrants"] = {
            t.entrants[r.entrant].name: {"staked": r.staked, "net": r.net, "chips": r.chips}
            for r in ev.results
        }
    else:
        out["sudden_death"] = {
            t.entrants[r.entrant].name: {"side": r.wager, "net": r.net} for r in ev.results
        }
    return out


def _golden_text(data: dict[str, Any]) -> str:
    """One line per key, and per item of a list: easy to read and to diff."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        end = "," if i + 1 < len(items) else ""
        if isinstance(value, list):
            lines.append(f"  {json.dumps(key)}: [")
            lines.extend(
                f"    {json.dumps(v, ensure_ascii=False)}{',' if j + 1 < len(value) else ''}"
                for j, v in enumerate(value)
            )
            lines.append(f"  ]{end}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{end}")
    return "\n".join([*lines, "}"]) + "\n"


def test_golden_sit_and_go() -> None:
    t, log = play_sit_and_go()
    got = {
        "comment": "A 4-entrant sit and go (seed 'golden') with fixed bets; every net follows "
        "from the winner and pairs of its coup by rules 4.1 (1:1, Tie 8:1, Pairs 11:1, "
        "Banker/Player push on a Tie), chips carry hand to hand from 10,000 (T1.1), the "
        "final starts level (T6.4).",
        "format": SIT_AND_GO,
        "bets": dict(BETS.items()),
        "final_bets": FINAL_BETS,
        "hands": [_hand_json(t, ev) for ev in log],
        "results": results_json(t)["results"],
    }
    got = json.loads(json.dumps(got))
    path = GOLDEN / "sit_and_go.json"
    csv_path = GOLDEN / "sit_and_go.csv"
    if REGENERATE:
        path.write_text(_golden_text(got), "utf-8")
        csv_path.write_text(results_csv(t), "utf-8")
    golden = json.loads(path.read_text("utf-8"))
    assert got == golden
    assert results_csv(t) == csv_path.read_text("utf-8")
    # the golden nets obey the pay table, hand by hand
    pays = {"banker": 1, "player": 1, "tie": 8, "player_pair": 11, "banker_pair": 11}
    for hand in golden["hands"]:
        if "hand" not in hand:
            continue
        for name, r in hand["entrants"].items():
            lines = (BETS[name][hand["hand"] - 1] or []) if hand["session"] == 1 else None
            if lines is None:
                continue
            expected = 0
            for wager, stake in lines:
                won = hand["winner"] == wager or (
                    wager.endswith("_pair") and wager.removesuffix("_pair") in hand["pairs"]
                )
                push = hand["winner"] == "tie" and wager in ("banker", "player")
                expected += 0 if push else stake * pays[wager] if won else -stake
            assert r["net"] == expected, (hand, name)


def test_exports_need_a_finished_tournament(tmp_path: Path) -> None:
    fmt = load_format(SIT_AND_GO, "sit-and-go")
    t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "sng", fmt, seed="golden")
    with pytest.raises(Exception, match=r"has not finished \(registration\)"):
        results_csv(t)
    done, _ = play_sit_and_go()
    assert done.stage is Stage.FINISHED
    write_results(done, csv_path=str(tmp_path / "a.csv"), json_path=str(tmp_path / "a.json"))
    rows = list(csv.DictReader((tmp_path / "a.csv").read_text("utf-8").splitlines()))
    data = json.loads((tmp_path / "a.json").read_text("utf-8"))
    assert [r["entrant"] for r in rows] == [r["entrant"] for r in data["results"]]
    assert rows[0]["prize"] == "100.00"
    assert rows[0]["currency"] == "SGD"
    assert set(rows[0]) >= {"heat_table", "heat_chips", "final_table", "final_chips", "entries"}
