"""Fuzzing the command line: whatever a replay file or a dealer types, ``punto``
answers exit 0, or exit 2 with one line on standard error (the refusal, its
clause where one applies, what to write instead) -- never a traceback, never
half an output.

Replay files and console sessions are generated with hypothesis and run
through the real entry point in process (``punto.cli.main``), so hundreds of
them take seconds; a few of the worst inputs are also run through the
installed ``punto`` command, to show the real process behaves the same.
Every crash the fuzzer found is an example test of its own in
``test_input_refusals.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from punto import cli
from punto.rules.games import all_games
from punto.table.replay import ACTIONS, KIND_HELP

# Deterministic in CI (the same examples each run); a developer widens the search
# with PUNTO_FUZZ_EXAMPLES=5000 and a random seed (PUNTO_FUZZ_RANDOM=1).
FUZZ = settings(
    max_examples=int(os.environ.get("PUNTO_FUZZ_EXAMPLES", "120")),
    deadline=None,
    derandomize=not os.environ.get("PUNTO_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

GAMES = [game.id for game in all_games()]


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``punto ARGV`` in this process: exit code, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as leaving:  # argparse's --help
                code = leaving.code if isinstance(leaving.code, int) else 2
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def assert_answered(code: int, out: str, err: str, *, quiet_on_error: bool = True) -> None:
    """Exit 0; or exit 2, exactly one line on standard error and (for commands that
    build their output first) nothing on standard output."""
    assert "Traceback" not in err, err
    assert code in (0, 2), (code, err)
    if code == 2:
        assert err.endswith("\n"), err
        assert err.count("\n") == 1, err
        assert err.startswith("punto: "), err
        if quiet_on_error:
            assert out == "", out


# -- values -----------------------------------------------------------------------------------

ODD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\t",
        "\x00",
        "a\x07b",
        "\u200b",
        "\ud800",
        "ann\n",
        "١٠٠",
        "１００",
        "1_000",
        "1e2",
        "NaN",
        "-5",
        "0",
        "12.345",
        "12.50",
        "100",
        "ann",
        "bob",
        "banker",
        "player",
        "tie",
        "tiger",
        "QH",
        "10S",
        "QH 9C 2D 6S",
        "?",
        "moon",
        "shoe",
        "keyed",
        "dealer",
        "pit_manager",
        "shift_manager",
        "b1",
        "four_cards",
        "x" * 2000,
        "🐅",
        "e\u0301",
    ]
)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6),
    st.sampled_from([0, 1, 2, 8, 520, 521, 10**15, 10**40, -(10**30)]),
    st.floats(),  # with a fraction, NaN, Infinity: JSON numbers no money is
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, ODD_TEXT, st.text(max_size=12))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD_TEXT, inner, max_size=4),
    max_leaves=12,
)

#: Plausible values of each kind of parameter, mixed below with anything at all.
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "text": st.sampled_from(["5.1", "3.7", "power cut", ""]),
    "text?": st.sampled_from(["ann", None, "", "bob"]),
    "name": st.sampled_from(["ann", "bob", "", " ann"]),
    "int": st.integers(min_value=-3, max_value=600),
    "flag": st.booleans(),
    "role": st.sampled_from(["player", "dealer", "pit_supervisor", "pit_manager", "boss"]),
    "stake": st.sampled_from(["100", "12.50", "0", "1_000", "١٠٠", 100, True]),
    "amount": st.sampled_from(["0", "50", "0.00", "-1"]),
    "position": st.integers(min_value=-1, max_value=20),
    "card": st.sampled_from(["QH", "9C", "ZZ", "10S"]),
    "card?": st.sampled_from(["QH", None, "1X"]),
    "cards": st.sampled_from(["QH 2C 2D KS 3H 4D", ["QH", "9C"], "QH", []]),
    "cards?": st.sampled_from(["QH 2C 2D KS", None, ["9C"]]),
    "cards_with_gaps": st.sampled_from(["QH ? 2D", [None, "QH"], None]),
    "shoe": st.sampled_from([8, 0, 11, "QH 9C", 10**9]),
    "players": st.sampled_from([["ann"], "ann", [], ["ann", "bob"]]),
    "players?": st.sampled_from([["ann"], None]),
    "moment?": st.sampled_from(["four_cards", "player_third_card", "never", None]),
    "sides?": st.sampled_from([{"ann": "player"}, {"ann": "dragon"}, None]),
    "bet_id": st.sampled_from(["b1", "b2", ""]),
    "source": st.sampled_from(["shoe", "keyed", "moon", "held"]),
    "parameters": st.sampled_from([{"card": "QH"}, {}, {"void": True, "reason": "x"}, [1]]),
}
assert set(PLAUSIBLE) >= set(KIND_HELP), "every kind of parameter is fuzzed"


@st.composite
def actions(draw: st.DrawFn) -> Any:
    """An action of the vocabulary with some of its parameters (plausible or
    not), now and then a key it does not take; or any JSON at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    spec = ACTIONS[draw(st.sampled_from(sorted(ACTIONS)))]
    data: dict[str, Any] = {"action": spec.name}
    for param in spec.params:
        if draw(st.booleans()):
            data[param.name] = draw(st.one_of(PLAUSIBLE[param.kind], PLAUSIBLE[param.kind], JSON))
    if draw(st.integers(0, 5)) == 0:
        data[draw(ODD_TEXT)] = draw(JSON)
    return data


LIMITS = st.one_of(
    st.just({"minimum": "10", "maximum": "1000"}),
    st.fixed_dictionaries(
        {"minimum": PLAUSIBLE["stake"], "maximum": PLAUSIBLE["stake"]},
        optional={
            "differential": st.sampled_from(["2000", None, "", "x"]),
            "wagers": st.sampled_from([{"tiger": {"maximum": "100"}}, {"bankr": {}}, [], None]),
            "wagers_per_area": st.sampled_from([1, 0, True, "3"]),
            "wager": JSON,
        },
    ),
    JSON,
)
OPENING = [
    {"action": "open"},
    {"action": "bet", "player": "ann", "position": 1, "wager": "banker", "stake": "100"},
]


@st.composite
def replay_files(draw: st.DrawFn) -> Any:
    """A replay file: a plausible header (now and then a broken one) and actions."""
    if draw(st.integers(0, 14)) == 0:
        return draw(JSON)
    data: dict[str, Any] = {
        "game": draw(st.sampled_from([*GAMES, *GAMES, "poker", 7])),
        "limits": draw(LIMITS),
        "actions": [*draw(st.sampled_from([[], OPENING])), *draw(st.lists(actions(), max_size=8))],
    }
    optional = {
        "layout": st.sampled_from(["A", "K", "Z", "", 3]),
        "pair_rule": st.sampled_from(["literal", "rank", "suits", None]),
        "insurance_offered": st.sampled_from([True, False, "no"]),
        "seats": st.sampled_from(
            [
                [{"position": 1, "player": "ann"}],
                [{"position": "١", "player": "ann"}],
                [{"position": 1, "player": "", "seated": False}],
                [{"position": 1, "player": "ann", "chair": 2}],
                "ann",
            ]
        ),
        "comment": JSON,
        "limit": JSON,
    }
    for key, values in optional.items():
        if draw(st.integers(0, 3)) == 0:
            data[key] = draw(values)
    return data


# -- replay -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "replay.json"


def _replay_text(path: Path, text: str | bytes, *flags: str) -> tuple[int, str, str]:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return run(["replay", *flags, str(path)])


@pytest.mark.slow
@FUZZ
@given(data=replay_files(), events=st.booleans(), escaped=st.booleans())
def test_replay_files_are_answered_never_crash(
    scratch: Path, data: Any, events: bool, escaped: bool
) -> None:
    text = json.dumps(data, ensure_ascii=escaped)
    flags = ["--events"] if events else []
    assert_answered(*_replay_text(scratch, text, *flags))


DEEP = st.integers(min_value=1, max_value=3000)


@FUZZ
@given(
    depth=DEEP,
    opener=st.sampled_from(["[", '{"a":', '{"game": "tiger-baccarat", "limits": ']),
    digits=st.integers(min_value=1, max_value=6000),
    junk=st.binary(max_size=40),
)
def test_deep_huge_and_broken_files_are_answered(
    scratch: Path, depth: int, opener: str, digits: int, junk: bytes
) -> None:
    closer = {"[": "]", '{"a":': "}"}.get(opener, "}")
    nested = opener * depth + "1" + closer * depth
    assert_answered(*_replay_text(scratch, nested))
    huge = '{"game": "tiger-baccarat", "limits": {"minimum": ' + "7" * digits + "}}"
    assert_answered(*_replay_text(scratch, huge))
    assert_answered(*_replay_text(scratch, junk))


# -- the dealer console -----------------------------------------------------------------------

CONSOLE_WORDS = st.sampled_from(
    [
        *ACTIONS,
        "close",
        "nmb",
        "key",
        "insure",
        "take",
        "reject",
        "draw",
        "deal",
        "status",
        "board",
        "shoe",
        "help",
        "irregularities",
        "irr",
        "replace_shoe",
        "standing",
        "ann",
        "bob",
        "1",
        "99",
        "-5",
        "٣",
        "banker",
        "100",
        "1_000",
        "12.345",
        "QH",
        "QH 9C",
        "role=pit_manager",
        "role=boss",
        "source=moon",
        "source=keyed",
        "remaining=-5",
        "remaining=١٠",
        "shoe=²",
        "shoe=99999999999",
        "seated=maybe",
        "player=",
        "reason=\x07",
        "'unclosed",
        "\x00",
        "🐅",
    ]
)
LINES = st.lists(CONSOLE_WORDS, min_size=0, max_size=5).map(" ".join)


@pytest.mark.slow
@FUZZ
@given(
    game=st.sampled_from(GAMES),
    lines=st.lists(st.one_of(LINES, LINES, st.text(max_size=20)), max_size=10),
)
def test_console_sessions_are_answered_never_crash(game: str, lines: list[str]) -> None:
    layout = ["--layout", "A"] if game == "tiger-buffalo" else []
    stdin = "\n".join(["open", "bet ann 1 banker 100", *lines, "quit"]) + "\n"
    code, out, err = run(["table", game, *layout, "--seed", "1"], stdin)
    assert_answered(code, out, err, quiet_on_error=False)
    assert (code, err) == (0, ""), "a session ends normally whatever was typed"


@FUZZ
@given(
    argv=st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "table",
                    "replay",
                    "settle",
                    "deal",
                    *GAMES,
                    "--decks",
                    "--cut-card",
                    "--minimum",
                    "--maximum",
                    "--differential",
                    "--layout",
                    "--seed",
                    "--bet",
                    "--cards",
                    "--table-max",
                    "banker=100",
                    "banker=1_000",
                    "banker=١٠٠",
                    "8",
                    "٨",
                    "-1",
                    "0",
                    "99999999999999999999",
                    "QH 9C 2D 6S",
                    "A",
                ]
            ),
            st.text(max_size=8),
        ),
        max_size=6,
    )
)
def test_command_lines_are_answered_never_crash(argv: list[str]) -> None:
    if "--help" in argv or "-h" in argv:
        return
    code, out, err = run(argv, "quit\n")
    assert_answered(code, out, err, quiet_on_error=False)


SETTLE_LINES = st.one_of(
    st.fixed_dictionaries(
        {"cards": PLAUSIBLE["cards"]},
        optional={
            "bets": st.one_of(
                st.lists(
                    st.fixed_dictionaries(
                        {"wager": st.sampled_from(["banker", "tiger", 3]), "stake": JSON},
                        optional={"moment": JSON, "colour": JSON},
                    ),
                    max_size=3,
                ),
                JSON,
            ),
            "round": JSON,
        },
    ),
    JSON,
)


@FUZZ
@given(records=st.lists(SETTLE_LINES, max_size=4))
def test_settle_lines_are_answered_never_crash(records: list[Any]) -> None:
    stdin = "".join(json.dumps(r) + "\n" for r in records)
    assert_answered(*run(["settle", "tiger-baccarat"], stdin))


# -- the real process ---------------------------------------------------------------------------


def _punto() -> list[str]:
    installed = shutil.which("punto") or str(Path(sys.executable).with_name("punto"))
    return [installed] if Path(installed).exists() else [sys.executable, "-m", "punto.cli"]


@contextlib.contextmanager
def _env() -> Iterator[dict[str, str]]:
    env = dict(os.environ)
    src = str(Path(cli.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PUNTO_TRACEBACK", None)
    yield env


WORST = {
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "a number of 5,000 digits": '{"game": "tiger-baccarat", "limits": {"minimum": '
    + "9" * 5000
    + "}}",
    "not UTF-8": "\udcff",
}


@pytest.mark.parametrize("name", list(WORST))
def test_the_installed_command_answers_the_worst_files_in_one_line(
    name: str, tmp_path: Path
) -> None:
    path = tmp_path / "worst.json"
    text = WORST[name]
    if text == "\udcff":
        path.write_bytes(b'{"game": "\xff"}')
    else:
        path.write_text(text)
    with _env() as env:
        done = subprocess.run(
            [*_punto(), "replay", str(path)], capture_output=True, text=True, env=env, timeout=60
        )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("punto: error: ")


def test_the_installed_console_answers_bad_bytes_in_one_line() -> None:
    with _env() as env:
        done = subprocess.run(
            [*_punto(), "table", "tiger-baccarat", "--seed", "1"],
            input=b"open\nbet ann 1 banker \xff\xfe\n",
            capture_output=True,
            env=env,
            timeout=60,
        )
    # Strict UTF-8 ends the session with one line (exit 2); in Python's UTF-8 mode
    # the bytes arrive escaped and the line is refused like any other (exit 0).
    assert_answered(done.returncode, "", done.stderr.decode(errors="replace"))
