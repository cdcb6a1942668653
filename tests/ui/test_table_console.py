"""``punto table``: the dealer's console, driven by scripted sessions.

Nothing needs a terminal: input is a script (``console_input`` on a
StringIO, as when standard input is piped), output a rich Console on a
StringIO.  Sessions check a round with two players, cards drawn from the
shoe and keyed in, the Insurance Plus window, irregularities with their
prompts (acting role, players withdrawing), bad input answered with the
typed error's message, end of input quitting cleanly, and a console started
again on the same SQLite log resuming where the last one stopped.
"""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path

import pytest
from rich.console import Console

from punto.cli import main
from punto.eventlog import EventLog, MemoryEventLog
from punto.money import format_money
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.store.eventlog import open_event_log
from punto.table.events import TABLE_STREAM, Event
from punto.table.limits import TableLimits
from punto.table.round import Phase
from punto.ui.dealer_console import DealerConsole
from punto.ui.playtable import console_input

LIMITS = TableLimits(Decimal(10), Decimal(1000))
RWS_LIMITS = TableLimits(Decimal(100), Decimal(10000))


def session(
    script: str,
    *,
    game: str = "tiger-baccarat",
    log: EventLog[Event] | None = None,
    limits: TableLimits = LIMITS,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
) -> tuple[DealerConsole, int, str]:
    """Run the console on ``script``; the console, its exit code and its output."""
    buffer = io.StringIO()
    out = Console(file=buffer, width=140, soft_wrap=True)
    desk = DealerConsole(
        get_game(game),
        limits=limits,
        log=log if log is not None else MemoryEventLog(TABLE_STREAM),
        layout=layout,
        pair_rule=pair_rule,
        seed="console-test",
        console=out,
        input_fn=console_input(out, io.StringIO(script)),
        where="test.db" if log is not None else None,
    )
    code = desk.run()
    return desk, code, buffer.getvalue()


def lines(*commands: str) -> str:
    return "".join(f"{c}\n" for c in commands)


# -- a round -------------------------------------------------------------------------------


def test_a_round_with_two_players_keyed_cards() -> None:
    desk, code, text = session(
        lines(
            "open",
            "bet ann 1 banker 100",
            "bet ann tiger 10",  # ann's position is known
            "bet bob 2 player 50",
            "close",
            "card QH 2C 2D KS 3H 4D",
            "settle",
        )
    )
    assert code == 0
    r = desk.table.round
    assert r is not None
    assert r.phase is Phase.SETTLED
    assert [
        (s.bet.player, s.bet.position, s.bet.wager, format_money(s.net)) for s in r.results()
    ] == [
        ("ann", 1, "banker", "95.00"),
        ("ann", 1, "tiger", "200.00"),
        ("bob", 2, "player", "-50.00"),
    ]
    assert {e.source for e in r.events if e.type == "card_dealt"} == {"keyed"}  # type: ignore[attr-defined]
    assert "Banker wins (Player 5, Banker 6)" in text
    assert "Round r1 settled" in text
    assert "ann +295.00, bob -50.00 · house -245.00" in text
    assert "Scoreboard" in text  # the roads beside the round
    assert "1 coup: Banker 1" in text


def test_cards_drawn_from_the_table_shoe() -> None:
    desk, code, _ = session(lines("open", "bet ann 1 player 100", "close", "draw", "deal"))
    assert code == 0
    shoe, r = desk.table.shoe, desk.table.round
    assert shoe is not None
    assert r is not None
    assert r.deal.is_complete
    assert r.deal.cards == shoe.order[: shoe.position]


def test_settled_rounds_go_on_the_scoreboard() -> None:
    script = lines(
        "open", "bet ann 1 banker 100", "close", "card 2H 9C 3D KS", "settle",
        "open", "bet ann 1 player 100", "close", "card 9H 2C KD 3S", "settle",
        "board",
    )  # fmt: skip
    desk, _, text = session(script)
    board = desk.board()
    assert [r.letter for r in board.results] == ["B", "P"]
    assert "2 coups: Banker 1, Player 1" in text


def test_insurance_plus_window_tiger_buffalo() -> None:
    desk, code, text = session(
        lines(
            "open",
            "bet ann 1 player 1000",
            "close",
            "card 3H 4C 2D KS",
            "insure ann player_insurance 2000",  # over the Original Bet: refused
            "insure ann player_insurance 200",
            "card 3S",
            "insure ann player_insurance 100",
            "card 5D",
            "settle",
        ),
        game="tiger-buffalo",
        layout="A",
        limits=RWS_LIMITS,
    )
    assert code == 0
    assert "Insurance Plus window open" in text
    assert "Player 5 v Banker 4, 3 to 2 (clause 4.1.15): ann up to 1000.00" in text
    assert "Player 8 v Banker 4, 10 to 1 (clause 4.1.15): ann up to 1000.00" in text
    assert "ann may stake at most 1000.00 on Player Insurance now" in text
    r = desk.table.round
    assert r is not None
    assert [format_money(s.net) for s in r.results()] == ["-1000.00", "300.00", "1000.00"]


# -- irregularities ------------------------------------------------------------------------


def test_power_failure_asks_role_and_who_withdraws_mbs_5_17_1() -> None:
    desk, code, text = session(
        lines(
            "open",
            "bet ann 1 banker 100",
            "bet bob 2 player 50",
            "close",
            "card 2H",
            "irr power_failure",
            "croupier",  # not a role: asked again
            "pit_manager",
            "zed",  # has no wager: asked again
            "bob",
            "card 5C 3D 4S",
            "settle",
        )
    )
    assert code == 0
    assert "acting role (dealer, pit_supervisor, pit_manager, shift_manager) [dealer]" in text
    assert "role: cannot read 'croupier'" in text
    assert "zed has no wager to withdraw; players with wagers: ann, bob" in text
    assert "Ruling (clause 5.17.1): withdrawal; withdrawn: bob" in text
    r = desk.table.round
    assert r is not None
    assert [(s.bet.player, s.outcome, s.clause) for s in r.results()] == [
        ("ann", "win", None),
        ("bob", "returned", "5.17.1"),
    ]
    assert [e.role.value for e in r.events if e.type == "power_failed"] == ["pit_manager"]  # type: ignore[attr-defined]


def test_no_withdrawal_question_when_an_outcome_is_established_mbs_5_17_2() -> None:
    desk, _, text = session(
        lines(
            "open",
            "bet ann 1 banker 100",
            "close",
            "card 9H 2C KD 3S",
            "power_failure",  # an irregularity's own name works too
            "dealer",
            "settle",
        )
    )
    assert "players who take the withdrawal option" not in text
    assert "Ruling (clause 5.17.2): continue" in text
    assert desk.table.round is not None
    assert desk.table.round.phase is Phase.SETTLED


def test_withdrawing_given_where_no_option_is_refused_mbs_5_17_2() -> None:
    desk, code, text = session(
        lines(
            "open",
            "bet ann 1 banker 100",
            "close",
            "card 9H 2C KD 3S",
            "irr power_failure role=dealer withdrawing=ann",
        )
    )
    assert code == 0
    assert "no withdrawal option is given: the ruling is 'continue' (clause 5.17.2)" in text
    r = desk.table.round
    assert r is not None
    assert not r.power_failed  # nothing was written


def test_a_void_with_parameters_on_the_command_line() -> None:
    desk, _, text = session(
        lines(
            "open",
            "bet ann 1 player 100",
            "close",
            "card 9H 2C",
            "irr foreign_card card=AS role=dealer",
            "open",
        )
    )
    assert "Ruling (clause 5.1): void" in text
    assert [r.phase for r in desk.table.rounds] == [Phase.VOID, Phase.BETTING]


def test_an_irregularity_refused_for_the_role_keeps_the_console_going() -> None:
    desk, code, text = session(
        lines(
            "open",
            "bet ann 1 player 1000",
            "close",
            "card 3H 4C 2D KS 3S",
            "irr forgotten_insurance moment=four_cards",
            "dealer",
            "",  # players: the default
            "",  # intended: none
            "irr forgotten_insurance moment=four_cards role=pit_manager players=ann intended=none",
            "insure ann player_insurance 600 moment=four_cards",
            "card 5D",
            "settle",
        ),
        game="tiger-buffalo",
        layout="A",
        limits=RWS_LIMITS,
    )
    assert code == 0
    assert "a dealer may not remedy a neglected Insurance offer (clause 5.14)" in text
    r = desk.table.round
    assert r is not None
    assert [(format_money(s.net), s.clause) for s in r.results()] == [
        ("-1000.00", None),
        ("900.00", "5.14.1"),
    ]


# -- bad input and the end of input -----------------------------------------------------------


def test_bad_input_is_answered_never_crashes() -> None:
    desk, code, text = session(
        lines(
            "bet ann 1 banker 100",  # no round yet
            "frobnicate",
            "open",
            'bet "ann',  # unbalanced quote
            "bet ann 1 banker lots",
            "bet ann 99 banker 100",
            "bet ann 1 baccarat 100",
            "bet ann 1 banker 5000",
            "bet ann banker 100",  # ann has no position yet
            "bet ann 1 banker 100 colour=red",
            "draw now",
            "irr",
            "irr earthquake",
            "settle",
            "close",
            "close",
        )
    )
    assert code == 0
    for message in (
        "no round has been opened at this table",
        "unknown command 'frobnicate'",
        "cannot read",
        "stake: stake 'lots' is not an amount of money",
        "there is no playing position 99 at this table",
        "has no wager 'baccarat'",
        "banker 5000.00 would take the banker area of position 1 to 5000.00, over its maximum "
        "of 1000.00 (clause 3.5.1)",
        "bet needs position: ann has no seat",
        "bet takes no colour",
        "draw takes nothing after it",
        "which irregularity?",
        "there is no irregularity 'earthquake'",
        "the round is settled once the coup is complete",
        "betting is not open (clause 3.2)",
    ):
        assert message in text, message
    assert desk.table.round is not None
    assert desk.table.round.bets == []


def test_end_of_input_in_a_prompt_quits_cleanly() -> None:
    desk, code, text = session(
        lines("open", "bet ann 1 banker 100", "close", "card 2H", "irr power_failure")
    )
    assert code == 0
    assert "power_failure abandoned: the input ended" in text
    assert "Round r1 is dealing; it is not kept." in text  # the log was in memory
    assert desk.table.round is not None
    assert not desk.table.round.power_failed


def test_quit_and_help() -> None:
    _, code, text = session(lines("help", "irregularities", "shoe", "status", "quit", "open"))
    assert code == 0
    assert "Irregularities" in text
    assert "simultaneous_draw" in text
    assert "SHA-256 commitment" not in text  # no shoe before the first open
    assert "Round r1" not in text  # nothing after quit


# -- resuming ---------------------------------------------------------------------------------


def test_restart_on_the_same_database_resumes(tmp_path: Path) -> None:
    path = str(tmp_path / "table.db")
    first, _, said = session(
        lines(
            "open", "bet ann 1 banker 100", "close", "draw", "deal", "settle",
            "open", "bet ann 1 banker 100", "bet bob 2 player 50", "close", "card 2H",
        ),
        log=open_event_log(path, TABLE_STREAM),
    )  # fmt: skip
    assert (
        "Round r2 is being dealt: started again on this log, the console handles it as a power failure (5.17)."
        in said
    )
    shoe = first.table.shoe
    assert shoe is not None
    position = shoe.position

    # The console stopped while r2 was being dealt: started again, it is a
    # power failure with no outcome established (MBS 5.17.1).
    again, code, text = session(
        lines("status", "take bob", "close_withdrawal", "card 5C 3D 4S", "settle", "open"),
        log=open_event_log(path, TABLE_STREAM),
    )
    assert code == 0
    assert "Resumed: 2 rounds on the log; round r2 is dealing." in text
    assert "Players may withdraw all their wagers" in text
    assert again.table.recovered == "withdrawal"
    assert again.table.shoe is not None
    assert again.table.shoe.order == shoe.order
    assert again.table.shoe.position == position
    r2 = again.table.rounds[1]
    assert [(s.bet.player, s.outcome) for s in r2.results()] == [
        ("ann", "win"),
        ("bob", "returned"),
    ]
    assert [r.round_id for r in again.table.rounds] == ["r1", "r2", "r3"]
    assert len(again.board()) == 2  # the settled rounds of the shoe

    third, _, text = session(lines("status"), log=open_event_log(path, TABLE_STREAM))
    assert "Resumed: 3 rounds on the log; round r3 is betting." in text
    assert len(third.board()) == 2
    assert third.seats.positions == {"ann": 1, "bob": 2}


# -- the command line ---------------------------------------------------------------------------


def test_punto_table_reads_piped_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "t.db")
    script = lines("open", "bet ann 1 banker 100", "close", "deal", "settle")
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code = main(["table", "dragon-tiger", "--layout", "A", "--seed", "7", "--database", path])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "r1 betting> bet ann 1 banker 100" in out
    assert "Round r1 settled" in out
    assert [e.event.type for e in open_event_log(path, TABLE_STREAM).read("dragon-tiger/A")][
        -1
    ] == ("round_settled")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["table", "tiger-buffalo"], "14 layouts offering different wagers"),
        (["table", "tiger-baccarat", "--minimum", "ten"], "--minimum: stake 'ten'"),
        (["table", "tiger-baccarat", "--decks", "2"], "a shoe of 2 decks is not allowed"),
        (["table", "poker"], "poker"),
    ],
)
def test_punto_table_refuses_a_bad_command_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1


def test_tiger_baccarat_1_1_14_the_literal_reading_is_flagged_at_the_console() -> None:
    _, code, by_rank = session("open\nquit\n")
    assert code == 0
    assert "literal" not in by_rank
    _, code, literal = session("open\nstatus\nquit\n", pair_rule=PairRule.LITERAL)
    assert code == 0
    assert "Warning: pairs read by the literal reading of Tiger Baccarat 1.1.14" in literal
    assert "Pairs read literally (1.1.14): Tiger Pair favours the player" in literal
