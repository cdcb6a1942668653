"""The ``punto`` command.

Each subcommand lives in a module of :mod:`punto.commands` that registers
itself; this module only builds the parser and turns errors into one line on
standard error with exit code 2 -- never a traceback (a bug is one line too,
with exit code 70).  Output is built in full before anything is
printed, so a refused command prints nothing on standard output.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from punto.errors import PuntoError
from punto.extras import CommandNeedsExtraError, missing_extra, require_command

#: Each command and the module of :mod:`punto.commands` that registers it
#: (with ``register(subparsers)``).  Running a command imports its module
#: alone -- the others' imports (the server, the simulation, the tournament)
#: would cost more than most commands take; ``punto --help`` imports them all.
COMMANDS = {
    "games": "punto.commands.games",
    "rules": "punto.commands.games",
    "deal": "punto.commands.deal",
    "settle": "punto.commands.deal",
    "play": "punto.commands.play",
    "odds": "punto.commands.analysis",
    "insurance": "punto.commands.analysis",
    "report": "punto.commands.analysis",
    "replay": "punto.commands.table",
    "roads": "punto.commands.table",
    "table": "punto.commands.table",
    "serve": "punto.commands.serve",
    "simulate": "punto.commands.sim",
    "counting": "punto.commands.sim",
    "tournament": "punto.commands.tournament",
}
#: The modules, in the order ``punto --help`` lists their commands.
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


class UsageError(PuntoError):
    """The command line itself is wrong."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}", hint=f"see '{self.prog} --help'")


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked
    (``importlib.metadata`` is not free, and every command builds this parser)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print punto's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("punto")
        except PackageNotFoundError:
            raise UsageError(
                "punto is not installed, so it has no version", hint="pip install -e ."
            ) from None
        print(f"punto {number}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: for ``command`` alone when it names one, else for every command
    (none for ``"--version"``, which needs no command's module)."""
    parser = _Parser(
        prog="punto",
        description="The approved baccarat games, dealt and settled exactly as written.",
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    if command in COMMANDS:
        modules: tuple[str, ...] = (COMMANDS[command],)
    else:
        modules = () if command == "--version" else COMMAND_MODULES
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command the arguments name (the first that is not an option), if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = _command(arguments)
    if command is None and "--version" in arguments:
        command = "--version"
    try:
        parser = build_parser(command)
        args = parser.parse_args(arguments)
        require_command(args.command)
        code: int = args.run(args)
        return code
    except CommandNeedsExtraError as error:  # its own line: which extra to install
        _say(str(error))
        return 2
    except PuntoError as error:
        _say(f"punto: error: {error}")
        return 2
    except UnicodeError as error:  # standard input that is not text in its encoding
        _say(
            f"punto: error: cannot read the input: {getattr(error, 'reason', error)}; give UTF-8 text"
        )
        return 2
    except (RecursionError, MemoryError) as error:
        why = "nested too deeply" if isinstance(error, RecursionError) else "out of memory"
        _say(f"punto: error: the input is too large to read ({why}); give a smaller one")
        return 2
    except KeyboardInterrupt:
        _say("punto: interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        refusal = (
            missing_extra(command or "", error) if isinstance(error, ModuleNotFoundError) else None
        )
        if refusal is not None:
            _say(str(refusal))
            return 2
        # A bug, not bad input: still one line (a traceback is for developers, who
        # get it with PUNTO_TRACEBACK=1), and not exit 2, which means "refused".
        if os.environ.get("PUNTO_TRACEBACK"):
            raise
        _say(
            f"punto: internal error: {type(error).__name__}: {str(error)[:200]}; "
            "please report it (PUNTO_TRACEBACK=1 shows where)"
        )
        return 70


def _say(line: str) -> None:
    """One line on standard error, whatever characters it holds."""
    print(" ".join(line.splitlines()), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
