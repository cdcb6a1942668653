"""The facts of a table that clauses are conditioned on.

MBS 5.9 (Tiger Baccarat, Dragon Tiger) applies "in the event that an
electronic dealing device is in use"; RWS 5.10 (Tiger Buffalo) "on specific
tables where the cards are dealt face down".  A table records both; the
procedures and the grants they move money under are refused at a table
without the fact, naming the clause -- and money then moves only by the
cards.
"""

from __future__ import annotations

import io
import tomllib
from decimal import Decimal
from importlib import resources
from pathlib import Path

import pytest

from punto.cli import main
from punto.errors import ActionError, GameDataError
from punto.eventlog import EventLog, MemoryEventLog
from punto.rules.cards import parse_cards
from punto.rules.game import load_game
from punto.rules.games import get_game
from punto.store.eventlog import open_event_log
from punto.table import irregularities as irr
from punto.table.events import TABLE_STREAM, BettingReopened, Event, TableConfigured
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.replay import ReplayError, run_replay
from punto.table.roles import Role
from punto.table.round import Phase, Round

D = Decimal
LIMITS = TableLimits(D(10), D(1000))
RWS_LIMITS = TableLimits(D(10), D(10000))
#: Player 9 (9H KD) v Banker 5 (2C 3S): a natural, the coup is complete.
PLAYER_NINE = "9H 2C KD 3S"


def mbs(game_id: str, *, electronic_device: bool = False) -> Round:
    """ann 100 on Banker, bob 200 on Player; betting closed."""
    game = get_game(game_id)
    r = Round(game, limits=LIMITS, layout="A", electronic_device=electronic_device)
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "player", D(200))
    r.close_betting()
    return r


def rws(*, face_down: bool = False) -> Round:
    """ann 300 on Player, bob 200 on Banker, cat 100 on Tie; betting closed."""
    r = Round(get_game("tiger-buffalo"), limits=RWS_LIMITS, layout="A", face_down=face_down)
    r.open()
    r.place_bet("ann", 1, "player", D(300))
    r.place_bet("bob", 2, "banker", D(200))
    r.place_bet("cat", 3, "tie", D(100))
    r.close_betting()
    return r


def deal(r: Round, text: str) -> Round:
    for card in parse_cards(text)[len(r.deal.cards) :]:
        r.deal_card(card)
    return r


def nets(r: Round) -> dict[str, Decimal]:
    if r.can_settle():
        r.settle()
    out = r.nets()
    assert sum(out.values(), D(0)) + r.house_net() == 0
    return out


# -- MBS 5.9: an electronic dealing device in use --------------------------------------------------


def test_tiger_baccarat_5_9_device_reset_refused_without_an_electronic_device() -> None:
    r = deal(mbs("tiger-baccarat"), "9H 2C")
    before = list(r.events)
    with pytest.raises(ActionError) as refused:
        irr.device_reset(r, withdrawing=["bob"])
    assert refused.value.clause == "5.9"
    assert "electronic dealing device" in refused.value.message
    assert r.events == before
    assert r.phase is Phase.DEALING
    # the wagers win or lose on the cards (5.7)
    assert nets(deal(r, PLAYER_NINE)) == {"ann": D(-100), "bob": D(200)}


def test_dragon_tiger_5_9_device_reset_refused_without_an_electronic_device() -> None:
    r = deal(mbs("dragon-tiger"), "9H 2C")
    with pytest.raises(ActionError) as refused:
        irr.device_reset(r, withdrawing=["bob"])
    assert refused.value.clause == "5.9"
    assert r.withdrawal_open is None
    assert nets(deal(r, PLAYER_NINE)) == {"ann": D(-100), "bob": D(200)}


def test_tiger_baccarat_5_9_device_reset_with_an_electronic_device_returns_the_withdrawn() -> None:
    r = deal(mbs("tiger-baccarat", electronic_device=True), "9H 2C")
    ruling = irr.device_reset(r, withdrawing=["bob"])
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.9", "reopened", ("bob",))
    assert isinstance(r.events[-1], BettingReopened)
    r.close_betting()  # 'No more bets' again; bob does not bet again
    assert nets(deal(r, PLAYER_NINE)) == {"ann": D(-100), "bob": D(0)}


def test_tiger_baccarat_5_9_grants_need_the_electronic_device() -> None:
    """The grants themselves refuse, not only the procedure: the withdrawal
    option and betting reopened under 5.9 are not offered at the table."""
    r = deal(mbs("tiger-baccarat"), "9H 2C")
    assert "5.9" not in r.granted("withdrawal", Role.DEALER)
    assert r.granted("reopen_betting", Role.SHIFT_MANAGER) == []
    with pytest.raises(ActionError) as refused:
        r.check_offer_withdrawal("5.9")
    assert refused.value.clause == "5.9"
    assert refused.value.hint
    with pytest.raises(ActionError) as refused:
        r.check_reopen_betting("5.9")
    assert refused.value.clause == "5.9"
    with_device = deal(mbs("tiger-baccarat", electronic_device=True), "9H 2C")
    assert "5.9" in with_device.granted("withdrawal", Role.DEALER)
    assert with_device.granted("reopen_betting", Role.DEALER) == ["5.9"]
    assert nets(deal(r, PLAYER_NINE)) == {"ann": D(-100), "bob": D(200)}
    assert nets(deal(with_device, PLAYER_NINE)) == {"ann": D(-100), "bob": D(200)}


def test_tiger_baccarat_5_9_grant_table_requirement_must_be_a_known_fact() -> None:
    path = resources.files("punto.rules.games") / "tiger_baccarat.toml"
    data = tomllib.loads(path.read_text("utf-8"))
    game = load_game(data, "tiger_baccarat.toml")
    assert game.grant("withdrawal", "5.9").table == "electronic_device"  # type: ignore[union-attr]
    assert game.grant("reopen_betting", "5.9").table == "electronic_device"  # type: ignore[union-attr]
    data["grants"]["withdrawal"]["5.9"]["table"] = "velvet_rope"
    with pytest.raises(GameDataError, match="table is one of electronic_device, face_down"):
        load_game(data, "tiger_baccarat.toml")


def live(game_id: str, log: EventLog[Event], *, electronic_device: bool = True) -> LiveTable:
    layout = "A" if game_id == "tiger-buffalo" else None
    limits = RWS_LIMITS if game_id == "tiger-buffalo" else LIMITS
    return LiveTable(
        "t",
        get_game(game_id),
        limits=limits,
        log=log,
        layout=layout,
        electronic_device=electronic_device,
    )


def test_tiger_baccarat_5_9_live_table_own_shoe_is_an_electronic_device() -> None:
    table = live("tiger-baccarat", MemoryEventLog(TABLE_STREAM))
    r = table.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "player", D(200))
    r.close_betting()
    table.draw()
    assert irr.device_reset(r, withdrawing=["ann"]).withdrawn == ("ann",)
    r.close_betting()
    for card in parse_cards(PLAYER_NINE):  # keyed after the reset
        r.deal_card(card, "keyed")
    assert nets(r) == {"ann": D(0), "bob": D(200)}


def test_tiger_baccarat_5_9_manual_shoe_table_refuses_device_reset() -> None:
    table = live("tiger-baccarat", MemoryEventLog(TABLE_STREAM), electronic_device=False)
    r = table.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "player", D(200))
    r.close_betting()
    r.deal_card(parse_cards("9H")[0], "keyed")
    with pytest.raises(ActionError) as refused:
        irr.device_reset(r, withdrawing=["ann"])
    assert refused.value.clause == "5.9"
    for card in parse_cards(PLAYER_NINE)[1:]:
        r.deal_card(card, "keyed")
    assert nets(r) == {"ann": D(-100), "bob": D(200)}


def test_tiger_baccarat_5_9_device_fact_logged_and_kept_by_each_round() -> None:
    """A change applies from the next round, is logged, and a restart
    restores each round with the facts it was played under."""
    log = MemoryEventLog(TABLE_STREAM)
    table = live("tiger-baccarat", log)
    first = table.new_round()
    first.place_bet("ann", 1, "banker", D(100))
    first.close_betting()
    table.electronic_device = False  # the device is taken away mid-round
    assert "electronic_device" in first.table_facts  # the round in play keeps it
    logged = [s.event for s in log.read("t") if isinstance(s.event, TableConfigured)]
    assert [e.electronic_device for e in logged] == [True, False]
    for card in parse_cards(PLAYER_NINE):
        first.deal_card(card, "keyed")
    first.settle()
    second = table.new_round()
    assert "electronic_device" not in second.table_facts
    again = live("tiger-baccarat", log, electronic_device=False)
    assert ["electronic_device" in r.table_facts for r in again.rounds] == [True, False]
    assert again.rounds[0].nets() == first.nets() == {"ann": D(-100)}


# -- RWS 5.10: cards dealt face down -----------------------------------------------------------------


def test_tiger_buffalo_5_10_card_face_up_only_at_a_face_down_table() -> None:
    face_up = deal(rws(), "9H 2C")
    with pytest.raises(ActionError) as refused:
        irr.card_exposed_in_error(face_up, withdrawing=["cat"])
    assert refused.value.clause == "5.10"
    assert "face down" in refused.value.message
    assert face_up.withdrawal_open is None
    assert face_up.irregularities == []
    assert nets(deal(face_up, PLAYER_NINE)) == {"ann": D(300), "bob": D(-200), "cat": D(-100)}

    face_down = deal(rws(face_down=True), "9H 2C")
    ruling = irr.card_exposed_in_error(face_down, withdrawing=["cat"])
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.10", "options", ("cat",))
    assert nets(deal(face_down, PLAYER_NINE)) == {"ann": D(300), "bob": D(-200), "cat": D(0)}


def test_tiger_buffalo_5_10_face_down_set_between_rounds_applies_from_the_next_round() -> None:
    log = MemoryEventLog(TABLE_STREAM)
    table = live("tiger-buffalo", log)
    r = table.new_round()
    r.place_bet("ann", 1, "player", D(300))
    r.place_bet("cat", 3, "tie", D(100))
    r.close_betting()
    table.face_down = True  # set while the round is in play: from the next round
    r.deal_card(parse_cards("9H")[0], "keyed")
    with pytest.raises(ActionError) as refused:
        irr.card_exposed_in_error(r, withdrawing=["cat"])
    assert refused.value.clause == "5.10"
    for card in parse_cards(PLAYER_NINE)[1:]:
        r.deal_card(card, "keyed")
    assert nets(r) == {"ann": D(300), "cat": D(-100)}
    nxt = table.new_round()
    nxt.place_bet("ann", 1, "player", D(300))
    nxt.place_bet("cat", 3, "tie", D(100))
    nxt.close_betting()
    nxt.deal_card(parse_cards("9H")[0], "keyed")
    assert irr.card_exposed_in_error(nxt, withdrawing=["cat"]).withdrawn == ("cat",)
    for card in parse_cards(PLAYER_NINE)[1:]:
        nxt.deal_card(card, "keyed")
    assert nets(nxt) == {"ann": D(300), "cat": D(0)}
    assert [
        e.face_down for e in (s.event for s in log.read("t")) if isinstance(e, TableConfigured)
    ][-1] is True


# -- the replay file declares the facts --------------------------------------------------------------


def _reset_replay(**header: object) -> dict[str, object]:
    return {
        "game": "tiger-baccarat",
        "limits": {"minimum": "10", "maximum": "1000"},
        **header,
        "actions": [
            {"action": "open"},
            {"action": "bet", "player": "ann", "position": 1, "wager": "banker", "stake": "100"},
            {"action": "bet", "player": "bob", "position": 2, "wager": "player", "stake": "200"},
            {"action": "no_more_bets"},
            {"action": "card", "cards": "9H 2C"},
            {"action": "device_reset", "withdrawing": ["bob"], "role": "dealer"},
            {"action": "no_more_bets"},
            {"action": "card", "cards": PLAYER_NINE},
            {"action": "settle"},
        ],
    }


def test_tiger_baccarat_5_9_replay_declares_the_electronic_device() -> None:
    with pytest.raises(ReplayError) as refused:
        run_replay(_reset_replay())
    assert (refused.value.index, refused.value.clause) == (5, "5.9")
    report = run_replay(_reset_replay(electronic_device=True)).report()
    assert report["players"] == {"ann": "-100.00", "bob": "0.00"}
    assert report["house_net"] == "100.00"
    with pytest.raises(ReplayError, match="electronic_device: true or false"):
        run_replay(_reset_replay(electronic_device="yes"))


def test_tiger_buffalo_5_10_replay_declares_a_face_down_table() -> None:
    def data(**header: object) -> dict[str, object]:
        return {
            "game": "tiger-buffalo",
            "layout": "A",
            "limits": {"minimum": "10", "maximum": "10000"},
            **header,
            "actions": [
                {"action": "open"},
                {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": 300},
                {"action": "bet", "player": "cat", "position": 3, "wager": "tie", "stake": 100},
                {"action": "no_more_bets"},
                {"action": "card", "cards": "9H 2C"},
                {"action": "card_exposed_in_error", "withdrawing": ["cat"], "role": "dealer"},
                {"action": "card", "cards": "KD 3S"},
                {"action": "settle"},
            ],
        }

    with pytest.raises(ReplayError) as refused:
        run_replay(data())
    assert (refused.value.index, refused.value.clause) == (5, "5.10")
    report = run_replay(data(face_down=True)).report()
    assert report["players"] == {"ann": "300.00", "cat": "0.00"}
    assert report["house_net"] == "-300.00"


# -- punto table: the facts as command-line options ----------------------------------------------


def test_tiger_baccarat_5_9_punto_table_manual_shoe_refuses_the_device_reset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "t.db")
    script = "".join(
        f"{line}\n"
        for line in (
            "open",
            "bet ann 1 banker 100",
            "bet bob 2 player 200",
            "close",
            "card 9H 2C",
            "irr device_reset role=dealer withdrawing=bob",
            "card KD 3S",
            "settle",
        )
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code = main(["table", "tiger-baccarat", "--manual-shoe", "--database", path])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "5.9 applies where an electronic dealing device is in use" in " ".join(out.split())
    log = open_event_log(path, TABLE_STREAM)
    configured = [
        s.event for s in log.read("tiger-baccarat") if isinstance(s.event, TableConfigured)
    ]
    assert [(e.electronic_device, e.face_down) for e in configured] == [(False, False)]
    table = LiveTable(
        "tiger-baccarat",
        get_game("tiger-baccarat"),
        limits=TableLimits(D(10), D(10000)),
        log=log,
        electronic_device=False,
    )
    assert [r.nets() for r in table.rounds] == [{"ann": D(-100), "bob": D(200)}]


def test_tiger_buffalo_5_10_punto_table_face_down_option_is_logged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "t.db")
    script = "".join(
        f"{line}\n"
        for line in (
            "open",
            "bet ann 1 player 300",
            "bet cat 3 tie 100",
            "close",
            "card 9H 2C",
            "irr card_exposed_in_error method_c_device=false role=dealer withdrawing=cat",
            "card KD 3S",
            "settle",
        )
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    argv = ["table", "tiger-buffalo", "--layout", "A", "--face-down", "--database", path]
    code = main(argv)
    _, err = capsys.readouterr()
    assert (code, err) == (0, "")
    log = open_event_log(path, TABLE_STREAM)
    configured = [
        s.event for s in log.read("tiger-buffalo/A") if isinstance(s.event, TableConfigured)
    ]
    assert [(e.electronic_device, e.face_down) for e in configured] == [(True, True)]
    table = LiveTable(
        "tiger-buffalo/A",
        get_game("tiger-buffalo"),
        limits=TableLimits(D(10), D(10000)),
        log=log,
        layout="A",
        face_down=True,
    )
    assert [r.nets() for r in table.rounds] == [{"ann": D(300), "cat": D(0)}]
