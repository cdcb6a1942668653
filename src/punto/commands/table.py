"""``punto replay FILE`` (a table replayed for audit), ``punto roads`` (a
shoe's roads as SVG) and ``punto table GAME`` (the dealer's console).

``replay`` reads the whole file, plays every action and builds its output
before printing anything: a refused action is one line on standard error
(the action's index, the typed error and its clause) with exit code 2 and
nothing on standard output.  The file format is in ``docs/replay.md``.

``table`` runs :class:`punto.ui.dealer_console.DealerConsole` on standard input
and output, its events in a SQLite file (``--database``) or in memory.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from punto.commands import common
from punto.errors import PuntoError
from punto.inputs import InputError, read_json, read_name

# The replay engine and the console are imported by the command that runs
# them: ``punto --help`` and the other commands do not load them.


class ReplayInputError(PuntoError):
    """A replay file that cannot be read as JSON."""


def register(sub: common.SubParsers) -> None:
    replay = sub.add_parser(
        "replay",
        help="replay a table's recorded actions for audit (JSON)",
        description="Play the actions of a replay file (JSON; see docs/replay.md) on the "
        "engine and print every bet's final result and net, each player's total and the "
        "house's net. The first refused action is one line on standard error naming the "
        "action's index, the error and its clause, with exit code 2.",
    )
    replay.add_argument("file", metavar="FILE", help="the replay file, or - for standard input")
    replay.add_argument(
        "--events",
        action="store_true",
        help="print the event log the replay produced instead, one JSON object a line",
    )
    replay.set_defaults(run=run_replay_command)

    roads = sub.add_parser(
        "roads",
        help="draw the five roads of a shoe as SVG, from a replay or an event log",
        description="Write the bead plate, big road and derived roads of one shoe as an SVG "
        "file: the drawing of the scoreboard page, for audit files and reports.  The shoe's "
        "coups come from a replay file (FILE) or a table's event log (--log with "
        "--table-id: the database of 'punto table --database' or of the server).",
    )
    roads.add_argument("file", metavar="FILE", nargs="?", help="a replay file, or - for stdin")
    roads.add_argument("--log", metavar="URL", help="an event log: a SQLite file or database URL")
    roads.add_argument("--table-id", dest="roads_table", metavar="ID", help="the table in --log")
    roads.add_argument(
        "--shoe",
        metavar="N",
        type=common.whole_number,
        help="which shoe, counting from 1 (default: the last)",
    )
    roads.add_argument("--out", required=True, metavar="FILE.svg", help="the SVG file to write")
    roads.set_defaults(run=run_roads)

    table = sub.add_parser(
        "table",
        help="a dealer's console for a real table",
        description="Run a table: open and close betting, record bets for players at "
        "positions, draw from the shoe or key cards in, take Insurance Plus bets in their "
        "window (Tiger Buffalo), run irregularity procedures (each asks for the acting role), "
        "settle, with the scoreboard beside the round. Every action is logged first; started "
        "again on the same --database the console resumes. Type 'help' at the console.",
    )
    common.add_game_arguments(table)
    table.add_argument(
        "--seed", metavar="S", help="shuffle reproducibly from this seed (default: secure shuffle)"
    )
    table.add_argument(
        "--decks", metavar="N", type=common.whole_number, default=8, help="decks (default 8)"
    )
    table.add_argument(
        "--cut-card",
        metavar="N",
        type=common.whole_number,
        default=14,
        help="cards left behind the cut card (default 14)",
    )
    table.add_argument(
        "--database",
        metavar="FILE",
        help="SQLite file of the table's event log (default: in memory, lost on exit)",
    )
    table.add_argument(
        "--table-id", metavar="ID", help="the table's id in the log (default: GAME or GAME/LAYOUT)"
    )
    common.add_limit_arguments(table)
    table.add_argument(
        "--no-insurance",
        action="store_true",
        help="a table displaying the notice that no Insurance is offered (RWS 4.2.2)",
    )
    table.add_argument(
        "--hlga",
        action="store_true",
        help="a table in HLGA: Method C may be allowed (MBS 3.9.2) and a cutting card that "
        "comes out first opens a withdrawal option (3.22.1)",
    )
    table.add_argument(
        "--manual-shoe",
        action="store_true",
        help="the cards are keyed from a manual shoe: no electronic dealing device is in use, "
        "so a device reset (MBS 5.9) is refused (default: the table's own shuffled shoe, "
        "an electronic device)",
    )
    table.add_argument(
        "--face-down",
        action="store_true",
        help="a table where the cards are dealt face down: a card dealt face up is an "
        "irregularity (RWS 5.10)",
    )
    table.set_defaults(run=run_table)


# -- replay ---------------------------------------------------------------------------------


def run_replay_command(args: argparse.Namespace) -> int:
    from punto.table.replay import run_replay

    data = _read_json(args.file)
    replay = run_replay(data)
    if args.events:
        text = "".join(json.dumps(line) + "\n" for line in replay.event_lines())
    else:
        text = json.dumps(replay.report(), indent=2) + "\n"
    sys.stdout.write(text)
    return 0


def run_roads(args: argparse.Namespace) -> int:
    from punto.store.eventlog import open_event_log
    from punto.table.events import TABLE_STREAM
    from punto.table.replay import run_replay
    from punto.table.shoe_boards import logged_boards, shoe_boards
    from punto.ui.roads_svg import roads_svg

    if (args.file is None) == (args.log is None):
        raise ReplayInputError(
            "give a replay file or --log, one of them", hint="see 'punto roads --help'"
        )
    if args.log is not None:
        if args.roads_table is None:
            raise ReplayInputError("--log needs --table-id: the table whose roads to draw")
        local = args.log.removeprefix("sqlite:///")
        if "://" not in local and not Path(local).is_file():
            # opening a SQLite log creates it: reading roads must never write a file
            raise ReplayInputError(
                f"there is no event log {args.log}", hint="give the database the table wrote"
            )
        table, boards = logged_boards(open_event_log(args.log, TABLE_STREAM), args.roads_table)
        title = f"{table.game.title}, table {args.roads_table}"
    else:
        replay = run_replay(_read_json(args.file))
        boards = shoe_boards(replay.rounds, replay.log, replay.pair_rule)
        title = f"{replay.game.title}, replay {Path(args.file).name}"
    shoe = len(boards) if args.shoe is None else args.shoe
    if not 1 <= shoe <= len(boards):
        raise ReplayInputError(
            f"there is no shoe {shoe}: the table dealt {len(boards)}",
            hint=f"give --shoe from 1 to {len(boards)}",
        )
    svg = roads_svg(boards[shoe - 1], f"{title}: shoe {shoe} of {len(boards)}")
    try:
        Path(args.out).write_text(svg, "utf-8")
    except OSError as error:
        raise ReplayInputError(
            f"cannot write {args.out}: {error.strerror}", hint="give a file you can write"
        ) from None
    sys.stdout.write(f"wrote {args.out}\n")
    return 0


def _read_json(name: str) -> Any:
    where = "standard input" if name == "-" else name
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ReplayInputError(f"cannot read {where}: {reason}") from None
    try:
        return read_json(text, where)
    except InputError as error:
        raise ReplayInputError(error.message, hint=error.hint) from None


# -- table ----------------------------------------------------------------------------------


def run_table(args: argparse.Namespace) -> int:
    from punto.store.eventlog import open_event_log
    from punto.table.events import TABLE_STREAM
    from punto.ui.dealer_console import DealerConsole
    from punto.ui.playtable import console_input

    table = common.resolve_table(args)
    limits = common.table_limits(args, table.game)
    log = open_event_log(args.database or "memory:", TABLE_STREAM)
    console = common.console()
    desk = DealerConsole(
        table.game,
        limits=limits,
        log=log,
        console=console,
        input_fn=console_input(console),
        table_id=None if args.table_id is None else read_name(args.table_id, "--table-id"),
        layout=table.layout,
        pair_rule=table.pair_rule,
        decks=args.decks,
        cut_card=args.cut_card,
        seed=args.seed,
        insurance_offered=not args.no_insurance,
        where=args.database,
        hlga=args.hlga,
        electronic_device=not args.manual_shoe,
        face_down=args.face_down,
    )
    return desk.run()
