"""The ``punto`` command's table of commands: each command is found in the
module that registers it, and running one imports that module alone."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from punto import cli


def _registered(parser: argparse.ArgumentParser) -> set[str]:
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


@pytest.mark.parametrize("module", cli.COMMAND_MODULES)
def test_each_module_registers_exactly_the_commands_mapped_to_it(module: str) -> None:
    command = next(c for c, m in cli.COMMANDS.items() if m == module)
    mapped = {c for c, m in cli.COMMANDS.items() if m == module}
    assert _registered(cli.build_parser(command)) == mapped


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert _registered(cli.build_parser()) == set(cli.COMMANDS)
    with pytest.raises(SystemExit) as stop:
        cli.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for command in cli.COMMANDS:
        assert command in out


def test_an_unknown_command_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["dael", "tiger-baccarat"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert "invalid choice: 'dael'" in line
    assert "serve" in line  # every command is offered


def test_running_a_command_imports_its_module_alone() -> None:
    probe = (
        "import sys\n"
        "from punto.cli import main\n"
        "assert main(['games', '--json']) == 0\n"
        "heavy = ('punto.server', 'punto.tournament', 'punto.sim', 'punto.ui.dealer_console')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.splitlines()[-1] == "[]"
