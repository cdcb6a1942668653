"""The ``punto`` command.

Each subcommand lives in a module of :mod:`punto.commands` that registers
itself; this module only builds the parser and turns errors into one line on
standard error with exit code 2.  Output is built in full before anything is
printed, so a refused command prints nothing on standard output.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from punto.errors import PuntoError

#: Subcommand modules, each with ``register(subparsers)``.
COMMAND_MODULES = (
    "punto.commands.games",
    "punto.commands.deal",
    "punto.commands.play",
    "punto.commands.analysis",
    "punto.commands.table",
    "punto.commands.serve",
    "punto.commands.sim",
    "punto.commands.tournament",
)


class UsageError(PuntoError):
    """The command line itself is wrong."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}", hint=f"see '{self.prog} --help'")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="punto",
        description="The approved baccarat games, dealt and settled exactly as written.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name == name:
                continue  # a command module not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code: int = args.run(args)
        return code
    except PuntoError as error:
        print(f"punto: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("punto: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
