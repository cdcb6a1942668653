"""Bad arguments to every subcommand: whatever is given,
``punto`` answers exit 2 and one line on standard error in words -- no
traceback, no Python class or type name -- and nothing on standard output.

Each subcommand's options are read off its own parser, so a new option is
fuzzed without a line here: a value that is not a number to every number, one
outside the choices to every choice, odd text to every other option and
positional; then hypothesis mixes them.  Commands that would start something
long (the server, a simulation) are only given arguments that must be refused
before they start.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from punto import cli
from tests.ui.test_fuzz_cli import FUZZ, run

#: An exception class or a Python type in a sentence meant for people.
PYTHON_WORDS = re.compile(
    r"\b[A-Z][A-Za-z]*(Error|Exception|Interrupt)\b|Traceback|"
    r"invalid [a-z_]+ value|<class |NoneType"
)

#: Text no option of any command takes.
ODD = ["x", "", "nan", "-1e999", "٨", "1_000", "\x00", "é" * 300, "--", "-"]


def assert_refused(argv: list[str]) -> None:
    code, out, err = run(argv)
    assert code == 2, (argv, code, err)
    assert err.endswith("\n"), err
    assert err.count("\n") == 1, err
    assert err.startswith("punto"), err
    assert PYTHON_WORDS.search(err) is None, err
    assert out == "", out


def _parsers(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every (sub)command's words and its parser, ``tournament``'s own included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _parsers(sub, (*prefix, name))


COMMANDS = sorted(_parsers(cli.build_parser()), key=lambda item: item[0])


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options taking a value (not --help, not the flags)."""
    return [a for a in parser._actions if a.option_strings and a.nargs != 0]


def _bad_values() -> Iterator[tuple[list[str], str]]:
    """(argv, why) for each option of each command given a value it must refuse."""
    for words, parser in COMMANDS:
        for action in _options(parser):
            flag = action.option_strings[-1]
            if action.type is not None and action.type is not str:
                yield [*words, flag, "x"], f"{flag} not a number"
                yield [*words, flag, "nan"], f"{flag} nan"
            if action.choices:
                yield [*words, flag, "no-such-choice"], f"{flag} not a choice"
            yield [*words, flag], f"{flag} without its value"
        yield [*words, "--no-such-option"], "unknown option"


@pytest.mark.parametrize(
    "argv",
    [argv for argv, _ in _bad_values()],
    ids=[f"{' '.join(a[:1])}: {why}" for a, why in _bad_values()],
)
def test_every_option_of_every_command_refuses_a_bad_value_in_words(argv: list[str]) -> None:
    assert_refused(argv)


#: Arguments each command must refuse once it runs (past argparse), one or more a
#: command: an unknown game, a file that is not there, a number out of range.
REFUSED_WHEN_RUN = [
    ["rules", "no-such-game"],
    ["deal", "tiger-baccarat", "--cards", "QH 2C ZZ"],
    ["deal", "tiger-baccarat", "--cards", "QH 2C 2D KS", "--bet", "tiger=1_000"],
    ["settle", "no-such-game"],
    ["play", "tiger-baccarat", "--decks", "3"],
    ["odds", "dragon-tiger", "--decks", "0"],
    ["odds", "tiger-baccarat", "--counts", "1,2,3"],
    ["insurance", "--game", "no-such-game"],
    ["insurance", "--decks", "3"],
    ["report", "tiger-baccarat", "--out", "/dev/null/x", "--counting-shoes", "-1"],
    ["replay", "/no/such/replay.json"],
    ["roads", "/no/such/replay.json", "--out", "/dev/null/x.svg"],
    ["roads", "--out", "x.svg"],
    ["table", "tiger-buffalo"],
    ["table", "tiger-baccarat", "--minimum", "-5"],
    ["serve", "--port", "0"],
    ["serve", "--port", "70000"],
    ["serve", "--keep-alive", "0"],
    ["serve", "--database", "mysql://x/y"],
    ["serve", "--max-balance", "1e3"],
    ["serve", "--lease-seconds", "1", "--lease-renew-seconds", "2"],
    ["simulate", "tiger-baccarat", "--decks", "3"],
    ["simulate", "no-such-game"],
    ["counting", "no-such-game"],
    ["tournament", "--format", "weekly"],
    ["tournament", "--entrants", "-3"],
    ["tournament", "analyse", "--entrants", "0"],
]


@pytest.mark.parametrize("argv", REFUSED_WHEN_RUN, ids=[" ".join(a) for a in REFUSED_WHEN_RUN])
def test_each_command_refuses_what_it_cannot_do_in_words(argv: list[str]) -> None:
    assert_refused(argv)
    err = run(argv)[2]
    # refused by the command itself, not by argparse before it ran
    assert not err.startswith("punto: error: argument "), err
    assert "unrecognized arguments" not in err, err


def test_every_command_is_refused_by_one_of_the_tests_above() -> None:
    tried = {argv[0] for argv in REFUSED_WHEN_RUN}
    assert tried >= set(cli.COMMANDS) - {"games"}  # games takes no argument that can be wrong


#: Words any command might be given: the options of every command, odd text.
WORDS = sorted(
    {flag for _, parser in COMMANDS for a in _options(parser) for flag in a.option_strings}
    | set(ODD)
)


@FUZZ
@given(
    command=st.sampled_from([words for words, _ in COMMANDS if words[0] not in ("serve", "play")]),
    rest=st.lists(st.sampled_from(WORDS) | st.text(max_size=6), min_size=1, max_size=5),
)
def test_mixed_bad_arguments_are_answered_in_words(
    command: tuple[str, ...], rest: list[str]
) -> None:
    """Any mix of options and odd text ends in exit 0 or a refusal in words.
    (serve and play, which would start a server or a game, are left out: the
    tests above give them only arguments that must be refused.)"""
    if "--help" in rest or "-h" in rest:
        return
    # a run that would deal or simulate for long, or write a file, is refused first
    argv = [*command, *rest, "--no-such-option"]
    assert_refused(argv)
