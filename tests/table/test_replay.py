"""``punto replay``: a table's recorded actions replayed for audit.

* Golden files (``tests/golden/replay/``): a few rounds each, with
  irregularities -- a void, a power failure with withdrawals, Insurance Plus,
  the differential settled pro rata -- every number worked by hand in the
  file's ``comment`` and checked against the whole output.
* Every example of the replay pages (the worked examples of
  ``docs/replay-examples.md``; any in the reference, ``docs/replay.md``) is
  replayed and its documented output checked; the reference names every
  action.
* The first refused action: exit code 2, one line on standard error naming
  the action's index, the typed error and the clause, nothing on standard
  output.
* ``--events`` prints an event log that folds back, through
  ``Round.replay``, into the same rounds with the same results.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from punto.cli import main
from punto.errors import (
    ActionError,
    BettingClosedError,
    InsuranceError,
    PhaseError,
    PuntoError,
    RoleError,
)
from punto.rules.cards import DECK, parse_cards
from punto.table.events import Event, event_from_json
from punto.table.replay import ACTIONS, ActionInputError, Replay, ReplayError, run_replay
from punto.table.round import Round

ROOT = Path(__file__).parents[2]
GOLDEN = Path(__file__).parents[1] / "golden" / "replay"
DOCS = ROOT / "docs" / "replay.md"  # the reference: every action, its fields, clauses
#: The pages whose ``json replay`` blocks are replayed, the guide of worked examples first.
EXAMPLE_PAGES = (ROOT / "docs" / "replay-examples.md", DOCS)


LIMITS = {"minimum": "10", "maximum": "1000"}


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def inputs() -> list[Path]:
    return sorted(p for p in GOLDEN.glob("*.json") if not p.name.endswith(".out.json"))


def table(actions: list[dict[str, Any]], **header: Any) -> dict[str, Any]:
    return {"game": "tiger-baccarat", "limits": LIMITS, **header, "actions": actions}


OPEN_BET_CLOSE: list[dict[str, Any]] = [
    {"action": "open"},
    {"action": "bet", "player": "ann", "position": 1, "wager": "banker", "stake": "100"},
    {"action": "bet", "player": "bob", "position": 2, "wager": "player", "stake": "50"},
    {"action": "no_more_bets"},
]


# -- golden files ---------------------------------------------------------------------------


def test_golden_files_are_present() -> None:
    names = {p.stem for p in inputs()}
    assert names >= {
        "tiger_baccarat_void_power_failure",
        "tiger_buffalo_insurance",
        "tiger_buffalo_differential",
        "dragon_tiger_simultaneous_limits",
    }
    for path in inputs():
        assert path.with_suffix(".out.json").exists(), path


@pytest.mark.parametrize("path", inputs(), ids=lambda p: p.stem)
def test_golden_replay(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(path.read_text())
    assert data["comment"], "every golden file shows how its numbers were worked out"
    code, out, err = cli(capsys, "replay", str(path))
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(path.with_suffix(".out.json").read_text())


def _totals(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.with_suffix(".out.json").read_text()))


def test_golden_void_and_power_failure_totals() -> None:
    """MBS 5.1 void, 5.17.1 withdrawal: the totals worked by hand."""
    report = _totals(GOLDEN / "tiger_baccarat_void_power_failure.json")
    assert report["players"] == {"ann": "485.00", "bob": "-50.00", "cy": "-10.00"}
    assert report["house_net"] == "-425.00"
    void, failed = report["rounds"][1], report["rounds"][2]
    assert void["void"]["clause"] == "5.1"
    assert [b["outcome"] for b in void["bets"]] == ["void"]
    assert failed["irregularities"][0]["withdrawn"] == ["bob"]
    assert [(b["player"], b["outcome"], b["clause"]) for b in failed["bets"]] == [
        ("ann", "win", None),
        ("bob", "returned", "5.17.1"),
        ("cy", "lose", None),
    ]


def test_golden_differential_pro_rata_rws_5_1_1() -> None:
    report = _totals(GOLDEN / "tiger_buffalo_differential.json")
    first = report["rounds"][0]["bets"]
    assert [(b["player"], b["settled_stake"], b["clause"]) for b in first] == [
        ("ann", "1555.55", "5.1.1"),  # her box held 3000 of 2000: 2000, then pro rata
        ("bob", "500.00", None),
        ("cy", "777.77", "5.1.1"),
        ("dee", "50.00", None),  # 5.1.2: under the minimum, not pro-rated
        ("eve", "116.66", "5.1.1"),
    ]
    # the Player side settles on no more than Banker 500 + differential 2000
    assert sum(Decimal(b["settled_stake"]) for b in first if b["wager"] == "player") <= 2500
    assert report["house_net"] == "-574.98"


def test_golden_insurance_rws_3_12_and_5_14_1() -> None:
    report = _totals(GOLDEN / "tiger_buffalo_insurance.json")
    nets = [(b["wager"], b["moment"], b["net"]) for b in report["rounds"][0]["bets"]]
    assert ("player_insurance", "four_cards", "300.00") in nets
    assert ("player_insurance", "player_third_card", "1000.00") in nets
    late = report["rounds"][1]["bets"][1]
    assert (late["net"], late["clause"]) == ("900.00", "5.14.1")


# -- events -----------------------------------------------------------------------------


def _fold(replay_data: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Round]:
    """The rounds an event log folds into, each through Round.replay, the
    players whose under-minimum wager was settled once (MBS 5.14) carried
    from round to round as a live table carries them."""
    replay = Replay.from_json(replay_data)
    by_round: dict[str, list[Event]] = {}
    for line in lines:
        if line["round"] == "":
            continue  # the table's own events (its shoes), not a round's
        by_round.setdefault(line["round"], []).append(event_from_json(line))
    rounds: dict[str, Round] = {}
    settled: set[str] = set()
    for round_id, events in by_round.items():
        r = Round.replay(
            replay.game,
            events,
            **replay.options,
            under_minimum_settled=settled,
            round_id=round_id,
        )
        settled |= r.newly_under_minimum()
        rounds[round_id] = r
    return rounds


@pytest.mark.parametrize("path", inputs(), ids=lambda p: p.stem)
def test_events_round_trip_through_round_replay(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(path.read_text(), parse_float=Decimal)
    code, out, err = cli(capsys, "replay", "--events", str(path))
    assert (code, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    replayed = run_replay(data)
    assert [(line["round"], event_from_json(line)) for line in lines] == replayed.log
    folded = _fold(data, lines)
    for original in replayed.rounds:
        again = folded[original.round_id]
        assert again.phase is original.phase
        assert again.events == original.events
        assert again.results() == original.results()


def test_events_refold_under_minimum_once_per_table_mbs_5_14() -> None:
    """The under-minimum 'one time only' spans rounds: the second round's
    Round is made with the players already settled once."""
    data = json.loads((GOLDEN / "dragon_tiger_simultaneous_limits.json").read_text())
    replayed = run_replay(data)
    third = replayed.rounds[2]
    assert third.under_minimum_settled == frozenset({"cy"})
    again = Round.replay(replayed.game, third.events, **third.options)
    assert again.results() == third.results()


# -- the replay pages of docs/ --------------------------------------------------------------

_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```$", re.M | re.S)


def doc_examples() -> list[tuple[str, dict[str, str]]]:
    """Each ``json replay`` block of the replay pages with the blocks that
    document its results (``json output``, ``jsonl events``, ``text stderr``)."""
    examples: list[tuple[str, dict[str, str]]] = []
    for page in EXAMPLE_PAGES:
        found = len(examples)
        for match in _FENCE.finditer(page.read_text()):
            info, body = match["info"].strip(), match["body"]
            if info == "json replay":
                examples.append((body, {}))
            elif info in ("json output", "jsonl events", "text stderr"):
                assert len(examples) > found, f"{page.name}: a {info} block before any example"
                examples[-1][1][info] = body
    return examples


def test_docs_have_examples_with_documented_results() -> None:
    examples = doc_examples()
    assert len(examples) >= 15
    assert all(results for _, results in examples)
    kinds = {kind for _, results in examples for kind in results}
    assert kinds == {"json output", "jsonl events", "text stderr"}


@pytest.mark.parametrize("n", range(len(doc_examples())))
def test_docs_example(
    n: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source, results = doc_examples()[n]
    monkeypatch.setattr("sys.stdin", io.StringIO(source))
    code, out, err = cli(capsys, "replay", "-")
    if "text stderr" in results:
        assert (code, out) == (2, "")
        assert err == results["text stderr"]
        assert err.count("\n") == 1
        return
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(results["json output"])
    if "jsonl events" in results:
        monkeypatch.setattr("sys.stdin", io.StringIO(source))
        code, out, err = cli(capsys, "replay", "--events", "-")
        assert (code, err) == (0, "")
        assert [json.loads(x) for x in out.splitlines()] == [
            json.loads(x) for x in results["jsonl events"].splitlines()
        ]


def test_every_replay_example_in_docs_is_run() -> None:
    # An example moved to a page the tests do not read would go unchecked.
    counts = {p.name: p.read_text().count("```json replay") for p in (ROOT / "docs").glob("*.md")}
    on_pages = {name for name, n in counts.items() if n}
    assert on_pages <= {p.name for p in EXAMPLE_PAGES}
    assert sum(counts.values()) == len(doc_examples())


def test_docs_name_every_action() -> None:
    text = DOCS.read_text()
    missing = [name for name in ACTIONS if f"`{name}`" not in text]
    assert missing == []


# -- the format -----------------------------------------------------------------------------


def test_seats_fill_in_position_and_player() -> None:
    data = table(
        [
            {"action": "open"},
            {"action": "bet", "player": "ann", "wager": "banker", "stake": "100"},
            {"action": "bet", "position": 2, "wager": "player", "stake": "50"},
            {"action": "bet", "player": "cy", "position": 2, "wager": "tie", "stake": "10"},
        ],
        seats=[
            {"position": 1, "player": "ann"},
            {"position": 2, "player": "bob"},
            {"position": 2, "player": "cy", "seated": False},
        ],
    )
    r = run_replay(data).rounds[0]
    assert [(b.player, b.position, b.seated) for b in r.bets] == [
        ("ann", 1, True),
        ("bob", 2, True),
        ("cy", 2, False),
    ]


def test_a_players_first_bet_seats_them() -> None:
    data = table(
        [
            {"action": "open"},
            {"action": "bet", "player": "ann", "position": 4, "wager": "banker", "stake": "100"},
            {"action": "bet", "player": "ann", "wager": "tiger", "stake": "10"},
        ]
    )
    assert [b.position for b in run_replay(data).rounds[0].bets] == [4, 4]


def test_several_rounds_and_withdraw_by_player() -> None:
    data = table(
        [
            *OPEN_BET_CLOSE,
            {"action": "card", "cards": "9H 2C KD 3S"},
            {"action": "settle"},
            {"action": "open"},
            {"action": "bet", "player": "ann", "position": 1, "wager": "tie", "stake": "10"},
            {"action": "bet", "player": "ann", "position": 1, "wager": "tie", "stake": "10"},
            {"action": "withdraw", "player": "ann", "wager": "tie"},
            {"action": "no_more_bets"},
            {"action": "card", "cards": "9H 2C KD 3S"},
            {"action": "settle"},
        ]
    )
    report = run_replay(data).report()
    assert [r["round"] for r in report["rounds"]] == ["r1", "r2"]
    assert [b["outcome"] for b in report["rounds"][1]["bets"]] == ["withdrawn", "withdrawn"]
    assert report["players"] == {"ann": "-100.00", "bob": "50.00"}
    assert report["house_net"] == "50.00"


def test_tiger_baccarat_1_1_14_a_replay_reading_pairs_literally_says_so() -> None:
    actions: list[dict[str, Any]] = [
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "tiger_pair", "stake": "10"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "TH 9D JC 9S"},  # Player T-J, Banker 9-9
        {"action": "settle"},
    ]
    by_rank = run_replay(table(actions)).report()
    assert by_rank["pair_rule"] == "rank"
    assert "pair_rule_warning" not in by_rank
    assert by_rank["players"] == {"ann": "40.00"}  # one Pair (9-9): 4 to 1
    literal = run_replay(table(actions, pair_rule="literal")).report()
    assert literal["pair_rule"] == "literal"
    assert "favours the player" in literal["pair_rule_warning"]
    assert literal["players"] == {"ann": "200.00"}  # T-J too: a Double, 20 to 1


def test_a_file_ending_mid_round_lists_it_unsettled() -> None:
    data = table([*OPEN_BET_CLOSE, {"action": "card", "cards": "9H 2C"}])
    report = run_replay(data).report()
    (r,) = report["rounds"]
    assert (r["phase"], r["players"], r["house_net"]) == ("dealing", None, None)
    assert [(b["outcome"], b["net"]) for b in r["bets"]] == [(None, None), (None, None)]
    assert (report["players"], report["house_net"]) == ({}, "0.00")


def test_several_cards_are_all_dealt_or_none() -> None:
    data = table([*OPEN_BET_CLOSE, {"action": "card", "cards": "9H 2C KD 3S 4H"}])
    replay = Replay.from_json(data)
    with pytest.raises(ReplayError) as refused:
        replay.run(data["actions"])
    assert (refused.value.index, type(refused.value.error)) == (4, PhaseError)
    assert replay.rounds[0].deal.cards == ()
    assert [e.type for _, e in replay.log][-1] == "bets_closed"


def test_withdrawing_listed_in_the_action_mbs_5_17_1() -> None:
    data = table(
        [
            *OPEN_BET_CLOSE,
            {"action": "card", "card": "2H"},
            {"action": "power_failure", "role": "dealer", "withdrawing": ["bob"]},
            {"action": "card", "cards": "5C 3D 4S"},
            {"action": "settle"},
        ]
    )
    r = run_replay(data).rounds[0]
    assert [(s.bet.player, s.outcome) for s in r.results()] == [
        ("ann", "win"),
        ("bob", "returned"),
    ]
    types = [e.type for e in r.events]
    assert types[types.index("power_failed") :][:4] == [
        "power_failed",
        "withdrawal_offered",
        "player_withdrew",
        "withdrawal_closed",
    ]


def test_an_open_withdrawal_option_takes_withdraw_player() -> None:
    data = table(
        [
            *OPEN_BET_CLOSE,
            {
                "action": "offer_withdrawal",
                "clause": "6.1",
                "reason": "a decision",
                "role": "shift_manager",
            },
            {"action": "withdraw_player", "player": "ann"},
            {"action": "close_withdrawal", "role": "shift_manager"},
            {"action": "card", "cards": "9H 2C KD 3S"},
            {"action": "settle"},
        ]
    )
    r = run_replay(data).rounds[0]
    assert [(s.bet.player, s.outcome, s.clause) for s in r.results()] == [
        ("ann", "returned", "6.1"),
        ("bob", "win", None),
    ]


# -- refusals ------------------------------------------------------------------------------

REFUSALS: list[tuple[str, dict[str, Any], int | None, type[PuntoError], str | None]] = [
    (
        "late bet 5.4",
        table(
            [
                *OPEN_BET_CLOSE,
                {"action": "bet", "player": "ann", "position": 1, "wager": "tie", "stake": "5"},
            ]
        ),
        4,
        BettingClosedError,
        "5.4",
    ),
    (
        "late withdrawal 5.5",
        table([*OPEN_BET_CLOSE, {"action": "withdraw", "bet_id": "b1"}]),
        4,
        BettingClosedError,
        "5.5",
    ),
    (
        "before any open",
        table([{"action": "no_more_bets"}]),
        0,
        PhaseError,
        None,
    ),
    (
        "open while a round is in play",
        table([*OPEN_BET_CLOSE, {"action": "open"}]),
        4,
        PhaseError,
        None,
    ),
    (
        "over the maximum 3.5.1",
        table(
            [
                {"action": "open"},
                {"action": "bet", "player": "a", "position": 1, "wager": "banker", "stake": "2000"},
            ]
        ),
        1,
        ActionError,
        "3.5.1",
    ),
    (
        "a dealer may not remedy a neglected Insurance 5.14",
        {
            "game": "tiger-buffalo",
            "layout": "A",
            "limits": {"minimum": "100", "maximum": "10000"},
            "actions": [
                {"action": "open"},
                {
                    "action": "bet",
                    "player": "ann",
                    "position": 1,
                    "wager": "player",
                    "stake": "1000",
                },
                {"action": "no_more_bets"},
                {"action": "card", "cards": "3H 4C 2D KS 3S"},
                {"action": "forgotten_insurance", "moment": "four_cards", "role": "dealer"},
            ],
        },
        4,
        RoleError,
        "5.14",
    ),
    (
        "a late Insurance payout over the Original Bet 5.14.1",
        {
            "game": "tiger-buffalo",
            "layout": "A",
            "limits": {"minimum": "100", "maximum": "10000"},
            "actions": [
                {"action": "open"},
                {
                    "action": "bet",
                    "player": "ann",
                    "position": 1,
                    "wager": "player",
                    "stake": "1000",
                },
                {"action": "no_more_bets"},
                {"action": "card", "cards": "3H 4C 2D KS 3S"},
                {"action": "forgotten_insurance", "moment": "four_cards", "role": "pit_manager"},
                {
                    "action": "insurance",
                    "player": "ann",
                    "wager": "player_insurance",
                    "stake": "666.67",
                    "moment": "four_cards",
                },
            ],
        },
        5,
        InsuranceError,
        "5.14.1",
    ),
    (
        "withdrawing where the outcome is established 5.17.2",
        table(
            [
                *OPEN_BET_CLOSE,
                {"action": "card", "cards": "9H 2C KD 3S"},
                {"action": "power_failure", "role": "dealer"},
                {"action": "withdraw_player", "player": "bob"},
            ]
        ),
        6,
        PhaseError,
        "5.17.2",
    ),
    (
        "a refused procedure, not the player after it",
        table(
            [
                *OPEN_BET_CLOSE,
                {"action": "card", "card": "2H"},
                {"action": "power_failure", "role": "player"},
                {"action": "withdraw_player", "player": "bob"},
            ]
        ),
        5,
        RoleError,
        "5.17",
    ),
    (
        "withdrawing listed where no option is given 5.17.2",
        table(
            [
                *OPEN_BET_CLOSE,
                {"action": "card", "cards": "9H 2C KD 3S"},
                {"action": "power_failure", "role": "dealer", "withdrawing": ["bob"]},
            ]
        ),
        5,
        PhaseError,
        "5.17.2",
    ),
    (
        "a player with no wager takes the option 5.17.1",
        table(
            [
                *OPEN_BET_CLOSE,
                {"action": "card", "card": "2H"},
                {"action": "power_failure", "role": "dealer"},
                {"action": "withdraw_player", "player": "bob"},
                {"action": "withdraw_player", "player": "zed"},
            ]
        ),
        7,
        ActionError,
        "5.17.1",
    ),
    (
        "a procedure the rules do not have",
        {
            "game": "baccarat-tournament",
            "limits": LIMITS,
            "actions": [*OPEN_BET_CLOSE, {"action": "absent_player", "role": "dealer"}],
        },
        4,
        ActionError,
        None,
    ),
    (
        "unknown action",
        table([{"action": "open"}, {"action": "shuffle"}]),
        1,
        ActionInputError,
        None,
    ),
    (
        "a parameter missing",
        table([{"action": "open"}, {"action": "bet", "player": "a", "position": 1, "stake": "5"}]),
        1,
        ActionInputError,
        None,
    ),
    (
        "a misspelt parameter",
        table([{"action": "open", "rol": "dealer"}]),
        0,
        ActionInputError,
        None,
    ),
    (
        "an irregularity without its role",
        table([*OPEN_BET_CLOSE, {"action": "foreign_card"}]),
        4,
        ActionInputError,
        None,
    ),
    (
        "money as a float",
        table(
            [
                {"action": "open"},
                {"action": "bet", "player": "a", "position": 1, "wager": "banker", "stake": 12.5},
            ]
        ),
        1,
        ActionInputError,
        None,
    ),
    (
        "a bad card",
        table([*OPEN_BET_CLOSE, {"action": "card", "card": "ZZ"}]),
        4,
        ActionInputError,
        None,
    ),
    ("no limits", {"game": "tiger-baccarat", "actions": []}, None, ActionInputError, None),
    ("unknown game", {"game": "poker", "limits": LIMITS, "actions": []}, None, PuntoError, None),
    (
        "a layout needed",
        {"game": "tiger-buffalo", "limits": LIMITS, "actions": []},
        None,
        PuntoError,
        "2.1.1",
    ),
    ("unknown key", table([], extra=1), None, ActionInputError, None),
    (
        "a shoe of more decks than any game allows",
        table(
            [
                *OPEN_BET_CLOSE,
                {
                    "action": "left_with_cards",
                    "shoe": 10**9,
                    "discards": [],
                    "on_table": [],
                    "set_aside": [],
                    "remaining": [],
                    "role": "shift_manager",
                },
            ]
        ),
        4,
        ActionInputError,
        None,
    ),
]


@pytest.mark.parametrize(
    ("data", "index", "error", "clause"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
def test_refused(
    data: dict[str, Any], index: int | None, error: type[PuntoError], clause: str | None
) -> None:
    with pytest.raises(ReplayError) as refused:
        run_replay(data)
    assert refused.value.index == index
    assert isinstance(refused.value.error, error)
    assert refused.value.clause == clause
    assert str(refused.value).startswith("replay file" if index is None else f"actions[{index}]")


#: Read from the command line, a JSON number with a fraction is exact (a Decimal).
CLI_REFUSALS = [case for case in REFUSALS if case[0] != "money as a float"]


@pytest.mark.parametrize(
    "data", [case[1] for case in CLI_REFUSALS], ids=[c[0] for c in CLI_REFUSALS]
)
def test_refused_on_the_command_line(
    data: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(data)))
    code, out, err = cli(capsys, "replay", "-")
    assert (code, out) == (2, "")
    assert err.startswith("punto: error: ")
    assert err.count("\n") == 1


def test_refusal_line_names_index_error_and_clause(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "late.json"
    path.write_text(json.dumps(REFUSALS[0][1]))
    code, out, err = cli(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert err == (
        "punto: error: actions[4] (bet) refused: no wager may be placed "
        "or increased after 'No more bets' (clause 5.4); wait for 'Place your bets, please'\n"
    )


def test_a_file_that_is_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"game": ')
    code, out, err = cli(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert "is not JSON" in err
    assert err.count("\n") == 1


def test_a_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = cli(capsys, "replay", str(tmp_path / "nowhere.json"))
    assert (code, out) == (2, "")
    assert err.startswith("punto: error: cannot read")
    assert err.count("\n") == 1


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = GOLDEN / "tiger_buffalo_insurance.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(path.read_text()))
    code, out, err = cli(capsys, "replay", "-")
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(path.with_suffix(".out.json").read_text())


def test_tiger_baccarat_3_5_1_json_number_with_a_fraction_is_refused_as_money(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Money in a file is a string or a whole JSON number: ``12.5`` would be a
    float to most JSON readers, so the command line refuses it too (exit 2, one
    line saying what to write) rather than read it differently from them."""
    data = (
        '{"game": "tiger-baccarat", "limits": {"minimum": 10, "maximum": 1000}, "actions": ['
        '{"action": "open"},'
        '{"action": "bet", "player": "a", "position": 1, "wager": "banker", "stake": 12.5},'
        '{"action": "no_more_bets"}, {"action": "card", "cards": "2H 9C 3D KS"},'
        '{"action": "settle"}]}'
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(data))
    code, out, err = cli(capsys, "replay", "-")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "actions[1] (bet) cannot be read" in err
    assert 'write it as a string, e.g. "12.5"' in err
    whole = data.replace('"stake": 12.5', '"stake": "12.50"')
    monkeypatch.setattr("sys.stdin", io.StringIO(whole))
    code, out, _ = cli(capsys, "replay", "-")
    assert code == 0
    report = json.loads(out)
    (bet,) = report["rounds"][0]["bets"]
    assert (bet["stake"], bet["net"]) == ("12.50", "11.87")  # 0.95 x 12.50 = 11.875, down
    assert (report["players"], report["house_net"]) == ({"a": "11.87"}, "-11.87")


def _events(report_lines: str) -> Iterator[dict[str, Any]]:
    for line in report_lines.splitlines():
        yield json.loads(line)


def test_events_carry_round_ids(capsys: pytest.CaptureFixture[str]) -> None:
    path = GOLDEN / "tiger_baccarat_void_power_failure.json"
    _, out, _ = cli(capsys, "replay", "--events", str(path))
    events = list(_events(out))
    assert {e["round"] for e in events} == {"r1", "r2", "r3"}
    assert [e["type"] for e in events if e["round"] == "r2"][-1] == "round_voided"


def test_left_with_cards_takes_a_shoe_of_complete_decks_mbs_5_11() -> None:
    """Player 2H, Banker 3C, then the Player's second card leaves the table
    with a player; the Banker's second is 4D.  Two cards are set aside (5S
    6S); counting the 8 decks against the rest of the device finds the 9D
    missing (5.11.2.1).  P 2 + 9 = 1 draws the set-aside 5S (6); B 3 + 4 = 7
    stands: Banker wins 7 to 6 and 6S is not needed (5.11.4)."""
    set_aside = ["5S", "6S"]
    gone = Counter(parse_cards("2H 3C 9D 4D 5S 6S"))
    remaining = Counter(DECK * 8)
    remaining.subtract(gone)
    data = table(
        [
            *OPEN_BET_CLOSE,
            {"action": "card", "cards": "2H 3C"},
            {
                "action": "left_with_cards",
                "role": "shift_manager",
                "shoe": 8,
                "discards": [],
                "on_table": "2H 3C ? 4D",
                "set_aside": set_aside,
                "remaining": [str(c) for c in remaining.elements()],
            },
            {"action": "settle"},
        ]
    )
    report = run_replay(data).report()
    (r,) = report["rounds"]
    assert r["irregularities"] == [
        {
            "action": 5,
            "irregularity": "left_with_cards",
            "role": "shift_manager",
            "clause": "5.11",
            "consequence": "continue",
            "missing": ["9D"],
            "unused": ["6S"],
        }
    ]
    assert (r["player"]["total"], r["banker"]["total"], r["winner"]) == (6, 7, "banker")
    assert report["players"] == {"ann": "95.00", "bob": "-50.00"}
