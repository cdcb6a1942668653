"""Bad input is refused where it is read: exit 2 and one line naming what was
wrong (and the clause where one governs it), never a traceback, never read as
something else.  Each test is a finding of the input audit or a crash the
fuzzer (``test_fuzz_cli.py``) found, run through the real entry point."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import punto.commands.games as games
from punto.cli import main
from punto.eventlog import MemoryEventLog
from punto.rules.cards import DECK
from punto.rules.games import get_game
from punto.table.events import TABLE_STREAM
from punto.table.limits import TableLimits
from punto.table.replay import ACTIONS, ActionInputError, ReplayError, run_replay
from punto.ui.dealer_console import DealerConsole
from punto.ui.playtable import console_input

LIMITS = {"minimum": "10", "maximum": "1000"}
#: Player QH 2D + 3H = 5; Banker 2C KS + 4D = 6: Banker wins (0.95 to 1).
BANKER_SIX = "QH 2C 2D KS 3H 4D"


def table(actions: list[dict[str, Any]], **header: Any) -> dict[str, Any]:
    return {"game": "tiger-baccarat", "limits": LIMITS, **header, "actions": actions}


def bet(stake: Any = "100", **more: Any) -> dict[str, Any]:
    return {
        "action": "bet",
        "player": "ann",
        "position": 1,
        "wager": "banker",
        "stake": stake,
        **more,
    }


def one_round(*middle: dict[str, Any], stake: Any = "100") -> list[dict[str, Any]]:
    return [
        {"action": "open"},
        bet(stake),
        {"action": "no_more_bets"},
        *middle,
        {"action": "card", "cards": BANKER_SIX},
        {"action": "settle"},
    ]


def replay(data: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "replay.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False))
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def refused(data: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a refused replay file gets (exit 2, nothing on standard output)."""
    code, out, err = replay(data, tmp_path, capsys)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1, err
    assert err.startswith("punto: error: "), err
    assert "Traceback" not in err
    return err


def nets(data: dict[str, Any]) -> tuple[dict[str, str], str]:
    report = run_replay(data).report()
    return report["players"], report["house_net"]


# -- limits ------------------------------------------------------------------------------------


def test_tiger_baccarat_3_5_1_limits_for_a_misspelt_wager_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt wager in limits.wagers left Banker at the table's 20,000
    maximum: a 15,000 Banker nobody noticed was paid in full, 14,250."""
    limits = {"minimum": "10", "maximum": "20000"}
    over = one_round(stake="15000")
    over[1]["enforce_limits"] = False
    misspelt = table(over, limits={**limits, "wagers": {"bankr": {"maximum": "10000"}}})
    err = refused(misspelt, tmp_path, capsys)
    assert "limits.wagers: tiger-baccarat offers no 'bankr' (clause 3.5.1)" in err
    assert "wagers: player, banker, tie" in err
    with pytest.raises(ReplayError, match="offers no 'bankr'"):
        run_replay(misspelt)
    spelt = table(over, limits={**limits, "wagers": {"banker": {"maximum": "10000"}}})
    # 5.15: paid to the maximum only, 0.95 x 10,000
    assert nets(spelt) == ({"ann": "9500.00"}, "-9500.00")


def test_tiger_buffalo_2_1_1_limits_for_a_wager_the_layout_does_not_offer_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {
        "game": "tiger-buffalo",
        "layout": "A",
        "limits": {**LIMITS, "wagers": {"tiger": {"maximum": "100"}}},
        "actions": [],
    }
    err = refused(data, tmp_path, capsys)
    assert "tiger-buffalo offers no 'tiger' on layout A" in err


@pytest.mark.parametrize(
    ("where", "data", "message"),
    [
        ("the file", table([], limit=LIMITS), "a replay file takes no limit"),
        (
            "limits",
            table([], limits={**LIMITS, "maximun": "500"}),
            "limits take no maximun",
        ),
        (
            "a wager's limits",
            table([], limits={**LIMITS, "wagers": {"banker": {"max": "500"}}}),
            "limits.wagers.banker takes a minimum and a maximum",
        ),
        (
            "a seat",
            table([], seats=[{"position": 1, "player": "ann", "chair": 2}]),
            "seats[0] takes no chair; seats[0] takes player, position, seated",
        ),
        (
            "a key that is no word",
            table([], **{"comment\u0007": "x"}),
            "a replay file takes no 'comment\\x07'",
        ),
        (
            "an action",
            table([{"action": "open"}, bet(wagr="tie")]),
            "bet takes no wagr",
        ),
    ],
)
def test_tiger_baccarat_3_5_1_unknown_keys_are_refused_everywhere(
    where: str,
    data: dict[str, Any],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert message in refused(data, tmp_path, capsys), where


def test_a_header_that_cannot_be_read_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused({**table([]), "game": {}}, tmp_path, capsys)
    assert err == (
        "punto: error: replay file cannot be read: game {} is not text; give it as a string\n"
    )


def test_a_key_given_twice_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = '{"game": "tiger-baccarat", "limits": {"minimum": "10", "maximum": "1000", '
    text += '"maximum": "9000"}, "actions": []}'
    err = refused(text, tmp_path, capsys)
    assert "the key 'maximum' is given twice in one object; keep one" in err


# -- cards -------------------------------------------------------------------------------------


def test_tiger_baccarat_3_9_card_from_an_unknown_source_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cards come from the dealing device (3.9), a physical shoe keyed in, or the
    irregularity procedures: a source no table writes is a mistake."""
    rounds = one_round()
    rounds[3] = {"action": "card", "cards": BANKER_SIX, "source": "moon"}
    err = refused(table(rounds), tmp_path, capsys)
    assert "actions[3] (card) cannot be read" in err
    assert "there is no card source 'moon'; give one of device, held, keyed" in err
    rounds[3]["source"] = "keyed"
    assert nets(table(rounds)) == ({"ann": "95.00"}, "-95.00")


# -- players -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "player: '' is empty"),
        ("  \t", "player: '  \\t' is empty"),
        ("a\x07b", "has the control character U+0007"),
        ("ann\n", "has the control character U+000A"),
        ("ann\u200b", "has the control character U+200B"),
        (" ann", "begins or ends with a space; write it as 'ann'"),
        ("x" * 65, "is 65 characters long; at most 64"),
        (7, "player: 7 is not a name"),
    ],
)
def test_tiger_baccarat_3_5_1_a_player_without_a_name_is_refused(
    name: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rounds = one_round()
    rounds[1]["player"] = name
    err = refused(table(rounds), tmp_path, capsys)
    assert "actions[1] (bet) cannot be read" in err
    assert message in err


# -- money -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stake", "message"),
    [
        ("1_000", "stake '1_000' is not an amount of money"),
        ("١٠٠", "stake '١٠٠' is not an amount of money"),
        ("1e2", "stake '1e2' is not an amount of money"),
        (True, "money True is not a string or a whole number"),
        (
            12.5,
            "money Decimal('12.5') is not a string or a whole number; write it as a string, e.g. \"12.5\"",
        ),
        ("12.500", "has more than 2 decimals; write it as 12.50"),
        ("1" + "0" * 16, "is more than 15 digits of money"),
    ],
)
def test_tiger_baccarat_3_5_1_stake_not_written_as_money_is_refused(
    stake: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(table(one_round(stake=stake)), tmp_path, capsys)
    assert "actions[1] (bet) cannot be read" in err
    assert message in err
    assert "ASCII digits" in err or "string" in err or "write it as" in err or "digits" in err


def test_tiger_baccarat_3_5_1_stake_as_a_whole_json_number_is_money() -> None:
    assert nets(table(one_round(stake=100))) == ({"ann": "95.00"}, "-95.00")
    assert nets(table(one_round(stake="12.50"))) == ({"ann": "11.87"}, "-11.87")


def test_tiger_baccarat_3_5_1_limits_written_other_than_money_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(table([], limits={"minimum": "1_0", "maximum": "1000"}), tmp_path, capsys)
    assert "limits: the minimum: stake '1_0' is not an amount of money" in err


# -- counts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("remaining", "message"),
    [
        (-5, "remaining: -5 is out of range; give 0 to 520"),
        (521, "remaining: 521 is out of range"),
        (10**40, "is out of range"),
        ("١٠", "is not a whole number; write ASCII digits"),
        (True, "remaining: True is not a whole number"),
        (1.5, "is not a whole number"),
    ],
)
def test_tiger_baccarat_5_3_insufficient_cards_remaining_must_be_a_count_of_cards(
    remaining: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    irregular = [
        {"action": "open"},
        bet(),
        {"action": "no_more_bets"},
        {"action": "card", "cards": "QH 2C"},
        {"action": "insufficient_cards", "remaining": remaining, "role": "dealer"},
    ]
    err = refused(table(irregular), tmp_path, capsys)
    assert "actions[4] (insufficient_cards) cannot be read" in err
    assert message in err
    irregular[4]["remaining"] = 1  # two more cards needed, one left: void (5.3)
    report = run_replay(table(irregular)).report()
    assert report["rounds"][0]["void"]["clause"] == "5.3"
    assert (report["players"], report["house_net"]) == ({"ann": "0.00"}, "0.00")


# -- files no reader should choke on ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "is nested too deep to read"),
        ("[" * 40 + "]" * 40, "is nested more than 32 levels deep"),
        (
            '{"game": "tiger-baccarat", "limits": {"minimum": ' + "9" * 5000 + "}}",
            "a number too long",
        ),
        ("{'game': 1}", "is not JSON: Expecting property name"),
    ],
    ids=["100,000 deep", "40 deep", "5,000 digits", "not JSON"],
)
def test_a_file_no_reader_could_read_is_one_line(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert message in refused(text, tmp_path, capsys)


def test_a_file_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"game": "tiger-baccarat", "comment": "caf\xe9"}')
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "cannot read" in err


# -- the other readers ---------------------------------------------------------------------------


def cli(
    argv: list[str], stdin: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"cards": "QH 2C 2D KS 3H 4D", "bets": [{"wager": "banker", "stake": true}]}',
            "stake True is not a string",
        ),
        (
            '{"cards": "QH 2C 2D KS 3H 4D", "bets": [{"wager": "banker", "stake": 12.5}]}',
            "stake Decimal('12.5')",
        ),
        (
            '{"cards": "QH 2C 2D KS 3H 4D", "bets": [{"wager": "banker", "stake": "1_000"}]}',
            "'1_000' is not an amount",
        ),
        ('{"cards": "QH 2C 2D KS 3H 4D", "bets": 5}', '"bets" is a list'),
        ('{"cards": 7, "bets": []}', '"cards" is a string or a list'),
        ('{"cards": [7], "bets": []}', "card 7 is not text"),
        (
            '{"cards": "QH 2C 2D KS 3H 4D", "bets": [{"wager": "banker", "stake": "1", "moment": 3}]}',
            "moment 3 is not text",
        ),
        ('{"cards": "QH 2C 2D KS 3H 4D", "bets": [], "bet": []}', "a line takes no 'bet'"),
        ("[" * 5000 + "]" * 5000, "nested"),
    ],
)
def test_tiger_baccarat_3_5_1_settle_lines_not_written_as_money_are_refused(
    line: str, message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = '{"cards": "QH 2C 2D KS 3H 4D", "bets": [{"wager": "banker", "stake": "100"}]}\n'
    code, out, err = cli(["settle", "tiger-baccarat"], good + line + "\n", capsys, monkeypatch)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1, err
    assert err.startswith("punto: error: line 2: "), err
    assert message in err
    code, out, _ = cli(["settle", "tiger-baccarat"], good, capsys, monkeypatch)
    assert (code, json.loads(out)["bets"][0]["net"]) == (0, "95.00")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["deal", "tiger-baccarat", "--cards", BANKER_SIX, "--bet", "banker=1_000"],
            "'1_000' is not an amount",
        ),
        (
            ["deal", "tiger-baccarat", "--cards", BANKER_SIX, "--bet", "banker=١٠٠"],
            "is not an amount",
        ),
        (
            ["table", "tiger-baccarat", "--decks", "٨"],
            "argument --decks: '٨' is not a whole number",
        ),
        (["table", "tiger-baccarat", "--cut-card", "-1"], "the cut card cannot go -1 cards"),
        (["table", "tiger-baccarat", "--cut-card", "99999"], "shoe of 416 cards"),
        (["table", "tiger-baccarat", "--cut-card", "1_4"], "argument --cut-card: '1_4'"),
        (["play", "tiger-baccarat", "--decks", "1_0"], "argument --decks: '1_0'"),
        (["serve", "--port", "٨٠"], "argument --port: '٨٠' is not a whole number"),
        (["table", "tiger-baccarat", "--table-id", "t\x07"], "--table-id 't\\x07' has the control"),
        (["simulate", "tiger-baccarat", "--shoes", "٣"], "not a whole number in ASCII digits"),
    ],
)
def test_tiger_baccarat_3_5_1_command_line_money_and_counts_are_ascii_digits(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = cli(argv, "", capsys, monkeypatch)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1, err
    assert message in err, err


def test_a_bug_is_one_line_with_exit_70_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(args: Any) -> int:
        raise RuntimeError("a bug\non two lines")

    real = games.register

    def register(sub: Any) -> None:
        real(sub)
        sub.choices["games"].set_defaults(run=broken)

    monkeypatch.setattr(games, "register", register)
    monkeypatch.delenv("PUNTO_TRACEBACK", raising=False)
    code = main(["games"])
    out, err = capsys.readouterr()
    assert (code, out) == (70, "")
    assert (
        err
        == "punto: internal error: RuntimeError: a bug on two lines; please report it (PUNTO_TRACEBACK=1 shows where)\n"
    )


# -- the dealer console -------------------------------------------------------------------------


def console(*commands: str) -> tuple[DealerConsole, str]:
    buffer = io.StringIO()
    out = Console(file=buffer, width=160, soft_wrap=True)
    desk = DealerConsole(
        get_game("tiger-baccarat"),
        limits=TableLimits(Decimal(10), Decimal(1000)),
        log=MemoryEventLog(TABLE_STREAM),
        seed="input-test",
        console=out,
        input_fn=console_input(out, io.StringIO("".join(f"{c}\n" for c in commands))),
    )
    assert desk.run() == 0
    return desk, buffer.getvalue()


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("bet ann 1 banker 1_000", "stake '1_000' is not an amount of money"),
        ("bet ann 1 banker ١٠٠", "is not an amount of money"),
        ("bet '' 1 banker 100", "player: '' is empty"),
        ("bet ann ٣ banker 100", "position: '٣' is not a whole number"),
        ("card QH source=moon", "there is no card source 'moon'"),
    ],
)
def test_tiger_baccarat_3_5_1_console_refuses_what_a_file_refuses(
    command: str, message: str
) -> None:
    desk, text = console(
        "open", command, "bet ann 1 banker 100", "close", f"card {BANKER_SIX}", "settle"
    )
    assert message in text
    r = desk.table.round
    assert r is not None
    assert (r.nets(), r.house_net()) == ({"ann": Decimal("95.00")}, Decimal("-95.00"))


def test_tiger_baccarat_5_3_console_refuses_a_negative_count_of_cards() -> None:
    desk, text = console(
        "open",
        "bet ann 1 banker 100",
        "close",
        "card QH 2C",
        "irr insufficient_cards remaining=-5 role=dealer",
        "irr insufficient_cards remaining=1 role=dealer",
    )
    assert "remaining: '-5' is not a whole number" in text
    # the console's table knows its shoe: its own count decides, not the word given
    assert "and round r1 needs 2 more: there are cards enough" in text
    r = desk.table.round
    assert r is not None
    assert r.void is None


def test_tiger_baccarat_5_11_console_refuses_a_shoe_of_superscript_decks() -> None:
    """'²'.isdigit() is true but int('²') raises: the console crashed reading it."""
    desk, text = console(
        "open",
        "bet ann 1 banker 100",
        "close",
        "card QH",
        "irr left_with_cards shoe=² discards=- on_table=? set_aside=2C remaining=3C "
        "order=- role=shift_manager",
    )
    assert "shoe: cannot read card '²': too short" in text
    r = desk.table.round
    assert r is not None
    assert r.void is None
    assert [str(c) for c in r.deal.cards] == ["QH"]
    assert [b.stake for b in r.active_bets] == [Decimal(100)]


def test_tiger_baccarat_5_11_a_shoe_written_out_card_by_card_is_read_whole() -> None:
    """5.11.2 sorts every card of the decks in use: a shoe of the most decks any
    game allows (10) written as text is read, one card more is refused."""
    shoe = ACTIONS["left_with_cards"].param("shoe")
    assert shoe is not None
    text = ", ".join(str(card).replace("T", "10") for card in DECK * 10)
    assert len(text) > 2000
    assert shoe.read(text) == DECK * 10
    with pytest.raises(ActionInputError, match="521 cards are more than any shoe holds"):
        shoe.read(text + ", QH")


def test_tiger_baccarat_6_2_console_files_a_claim_and_another_person_confirms_it() -> None:
    """The console expresses the two steps: ``claim`` files a ruling that
    moves money, the round waits, the person who filed it cannot confirm it,
    a dealer cannot either, a pit supervisor can."""
    desk, text = console(
        "open",
        "bet ann 1 banker 100",
        "close",
        "card QH 2C",
        "claim foreign_card card=9S by=dan",
        "card 3D",
        "confirm dan role=pit_supervisor",
        "confirm pat role=dealer",
        "confirm pat role=pit_supervisor",
    )
    assert "Claim c1 filed by dan: foreign card (clause 5.1) waits" in text
    assert "a ruling is pending: claim c1 (foreign card, filed by dan)" in text
    assert "claim c1 was filed by dan: another person confirms it (clause 5.1)" in text
    assert "a dealer may not confirm claim c1 (clause 5.1)" in text
    r = desk.table.round
    assert r is not None
    assert r.void is not None
    assert r.void.clause == "5.1"
    assert r.nets() == {"ann": Decimal("0")}


def test_tiger_baccarat_6_2_console_rejected_claim_moves_nothing() -> None:
    desk, text = console(
        "open",
        "bet ann 1 banker 100",
        "close",
        "card QH 2C",
        "claim foreign_card card=9S by=dan",
        "reject_claim pat 'the card is ours' role=pit_supervisor",
        "card 3D",
        "claim foreign_card colour=red by=dan",
    )
    assert "Claim c1 rejected by pat: nothing moved" in text
    assert "foreign_card takes no colour" in text
    r = desk.table.round
    assert r is not None
    assert r.void is None
    assert [str(c) for c in r.deal.cards] == ["QH", "2C", "3D"]
