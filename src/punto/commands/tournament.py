"""``punto tournament``: run a Baccarat Tournament, list formats, analyse them.

* ``punto tournament [--format F] [--entrants N] [--tables T] [--seed S]
  [--human NAME ...] [--database FILE] [--csv OUT] [--json OUT]`` plays a
  tournament at the terminal: people named with ``--human`` are asked for
  their bets, the other entrants are automated.  With ``--database`` every
  event is kept in a SQLite file and running the same command again resumes
  the tournament where it stopped.
* ``punto tournament formats`` lists the formats.
* ``punto tournament analyse`` simulates many tournaments of automated
  entrants and shows how the format's choices change who wins.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rich.table import Table

from punto.commands import common
from punto.commands.common import whole_number
from punto.eventlog import EventLog
from punto.store.eventlog import open_event_log
from punto.tournament.errors import TournamentError
from punto.tournament.events import TOURNAMENT_STREAM, TournamentEvent
from punto.tournament.export import write_results
from punto.tournament.format import Format
from punto.tournament.formats import all_formats, get_format
from punto.tournament.runner import DEFAULT_MIX, LateEntry, Runner
from punto.tournament.strategies import STRATEGIES
from punto.tournament.tournament import Stage, Tournament
from punto.ui.playtable import console_input

if TYPE_CHECKING:  # the analysis is imported by the command that runs it
    from punto.tournament.analysis import Report

DEFAULT_FORMAT = "daily"
DEFAULT_ENTRANTS = 24
DEFAULT_ID = "tournament"


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "tournament",
        help="run a Baccarat Tournament, list its formats, or analyse them",
        description="Run a Baccarat Tournament at the terminal: registration, seats drawn "
        "at random and balanced across tables, sessions of a fixed number of hands with "
        "minimum and maximum bets, the last hands announced, the top of each table "
        "advancing, sudden-death hands for ties, a final table and prizes. People named "
        "with --human bet at the prompt; the other entrants are automated "
        f"({'; '.join(f'{s.name}: {s.description}' for s in STRATEGIES.values())}). "
        "Subcommands: 'formats' lists the formats, 'analyse' simulates many tournaments.",
    )
    _run_arguments(parser)
    parser.set_defaults(run=run)
    commands = parser.add_subparsers(dest="tournament_command", metavar="[formats | analyse]")

    formats = commands.add_parser("formats", help="list the tournament formats")
    formats.add_argument("--json", action="store_true", help="the formats as JSON")
    formats.set_defaults(run=run_formats)

    for name in ("analyse", "analyze"):
        a = commands.add_parser(
            name,
            help="simulate many tournaments and show how the format changes who wins"
            if name == "analyse"
            else "same as analyse",
            description="Simulate tournaments of automated entrants under a format and its "
            "variants (comma-separated --hands, --min-bet and --advance values change every "
            "session before the final), and show how often the chip leader at half-way "
            "advances, how often the final's half-way leader wins, which kind of player "
            "wins, and how many ties went to sudden death.",
        )
        a.add_argument(
            "--format",
            dest="a_format",
            metavar="F",
            default=DEFAULT_FORMAT,
            help=f"format id or .toml file (default {DEFAULT_FORMAT})",
        )
        a.add_argument(
            "--entrants",
            dest="a_entrants",
            metavar="N",
            type=whole_number,
            default=DEFAULT_ENTRANTS,
            help=f"entrants (default {DEFAULT_ENTRANTS})",
        )
        a.add_argument(
            "--tables",
            dest="a_tables",
            metavar="T",
            type=whole_number,
            help="tables in the first session (default: as few as needed)",
        )
        a.add_argument(
            "--tournaments",
            metavar="K",
            type=whole_number,
            default=1000,
            help="tournaments per variant (default 1000)",
        )
        a.add_argument(
            "--seed", dest="a_seed", metavar="S", default="0", help="simulation seed (default 0)"
        )
        a.add_argument(
            "--mix",
            dest="a_mix",
            metavar="LIST",
            default=",".join(DEFAULT_MIX),
            help=f"automated entrants, handed out in turn (default {','.join(DEFAULT_MIX)})",
        )
        a.add_argument(
            "--hands", metavar="LIST", help="hands per session to compare, e.g. 20,30,40"
        )
        a.add_argument("--min-bet", metavar="LIST", help="minimum bets to compare, e.g. 1000,5000")
        a.add_argument("--advance", metavar="LIST", help="advancing per table to compare, e.g. 1,2")
        a.add_argument("--json", dest="a_json", action="store_true", help="the report as JSON")
        a.add_argument(
            "--chart",
            dest="a_chart",
            metavar="FILE",
            help="write a chart of the variants (.svg, .png or .pdf; needs "
            "pip install 'punto[report]')",
        )
        a.set_defaults(run=run_analyse)


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        metavar="F",
        default=DEFAULT_FORMAT,
        help=f"format id or .toml file (default {DEFAULT_FORMAT}; see 'punto tournament formats')",
    )
    parser.add_argument(
        "--entrants",
        metavar="N",
        type=whole_number,
        default=DEFAULT_ENTRANTS,
        help=f"entrants in all, people included (default {DEFAULT_ENTRANTS})",
    )
    parser.add_argument(
        "--tables",
        metavar="T",
        type=whole_number,
        help="tables in the first session (default: as few as the seats allow)",
    )
    parser.add_argument(
        "--seed",
        metavar="S",
        help="seats, shoes and lots reproducible from this seed (default: a secure shuffle)",
    )
    parser.add_argument(
        "--human",
        metavar="NAME",
        action="extend",
        nargs="+",
        default=[],
        help="a person who bets at the prompt (repeatable)",
    )
    parser.add_argument(
        "--mix",
        metavar="LIST",
        default=",".join(DEFAULT_MIX),
        help=f"automated entrants, handed out in turn (default {','.join(DEFAULT_MIX)})",
    )
    parser.add_argument(
        "--late",
        metavar="N",
        type=whole_number,
        default=0,
        help="automated entrants who register late, as the first session "
        "reaches the format's last hand for late registration",
    )
    parser.add_argument(
        "--database",
        metavar="FILE",
        help="keep every event in this SQLite file; the same command "
        "resumes an unfinished tournament",
    )
    parser.add_argument(
        "--id",
        metavar="ID",
        default=DEFAULT_ID,
        help=f"the tournament's id in the database (default {DEFAULT_ID})",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show every hand at every table, not only at people's tables",
    )
    parser.add_argument("--csv", metavar="OUT", help="write the results as CSV")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")


def _list(text: str | None, what: str) -> list[int]:
    if not text:
        return []
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise TournamentError(
            f"--{what}: {text!r} is not a list of whole numbers", hint="e.g. 20,30,40"
        ) from None
    if any(v < 1 for v in values):
        raise TournamentError(f"--{what}: values must be at least 1")
    return values


def _mix(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in STRATEGIES:
            raise TournamentError(
                f"--mix: no automated entrant {n!r}", hint=f"choose from {', '.join(STRATEGIES)}"
            )
    if not names:
        raise TournamentError("--mix: name at least one automated entrant")
    return names


def _open_log(path: str | None) -> EventLog[TournamentEvent]:
    return open_event_log(path or "memory:", TOURNAMENT_STREAM)


def run(args: argparse.Namespace) -> int:
    log = _open_log(args.database)
    console = common.console()
    existing = bool(log.read(args.id))
    if existing:
        t = Tournament.open(log, args.id)
        runner = Runner(t, console=console, input_fn=console_input(console), verbose=args.verbose)
        if t.stage is Stage.FINISHED:
            console.print(f"Tournament {args.id!r} has finished.")
            runner.print_results()
        else:
            s = t.session
            where = f", {s.name}" if s is not None else ""
            console.print(
                f"Resuming tournament {args.id!r} ({t.fmt.title}{where}) after event {t.seq}."
            )
    else:
        fmt = get_format(args.format)
        humans = [h.strip() for h in args.human]
        if any(not h for h in humans):
            raise TournamentError("--human: a name cannot be empty")
        mix = _mix(args.mix)
        if humans and args.entrants < len(humans):
            raise TournamentError(
                f"--entrants {args.entrants} is fewer than the {len(humans)} people named"
            )
        reg = fmt.registration
        if not reg.min_entrants <= args.entrants <= reg.max_entrants:
            raise TournamentError(
                f"--entrants {args.entrants}: format {fmt.id} takes {reg.min_entrants} to "
                f"{reg.max_entrants} entrants",
                clause=fmt.rule("registration"),
            )
        if args.late < 0 or (args.late and not reg.late_until_hand):
            raise TournamentError(
                "--late: this format has no late registration", clause=fmt.rule("late")
            )
        if args.entrants + args.late > reg.max_entrants:
            raise TournamentError(
                f"--late {args.late}: {args.entrants + args.late} entrants is more than the "
                f"{reg.max_entrants} the format takes",
                clause=fmt.rule("registration"),
            )
        fmt.plan(args.entrants, args.tables)  # refuse what cannot be seated, before printing
        t = Tournament.create(log, args.id, fmt, seed=args.seed, tables=args.tables)
        late = [
            LateEntry(f"Late {i + 1}", mix[i % len(mix)], reg.late_until_hand)
            for i in range(args.late)
        ]
        runner = Runner(
            t, console=console, input_fn=console_input(console), verbose=args.verbose, late=late
        )
        runner.enter(humans=humans, bots=args.entrants - len(humans), mix=mix)
        console.print(
            f"[bold]{fmt.title}[/] (format {fmt.id}): {args.entrants} entrants"
            + (f", {', '.join(humans)} at the prompt" if humans else "")
            + (f"; events kept in {args.database}" if args.database else "")
        )
    code = runner.run()
    if code == 0 and (args.csv or args.json):
        write_results(t, csv_path=args.csv, json_path=args.json)
        for label, path in (("CSV", args.csv), ("JSON", args.json)):
            if path:
                console.print(f"Results written to {path} ({label}).")
    return code


def run_formats(args: argparse.Namespace) -> int:
    formats = all_formats()
    if args.json:
        common.print_json([f.to_json() for f in formats])
        return 0
    table = Table(title="Tournament formats", title_justify="left")
    for col in ("Format", "Title", "Entrants", "Chips", "Sessions", "Late / re-entry", "Prizes"):
        table.add_column(col)
    for f in formats:
        reg = f.registration
        sessions = "; ".join(_session_words(f, s.number) for s in f.sessions)
        late = (
            (f"until hand {reg.late_until_hand}" if reg.late_until_hand else "no")
            + " / "
            + (f"{reg.reentries} until hand {reg.reentry_until_hand}" if reg.reentries else "no")
        )
        prizes = ", ".join(
            (f"{p.first}" if p.first == p.last else f"{p.first}-{p.last}")
            + f": {f.currency} {p.amount}".replace("  ", " ")
            for p in f.prizes
        )
        table.add_row(
            f.id,
            f.title,
            f"{reg.min_entrants}-{reg.max_entrants}",
            f"{f.starting_chips:,}",
            sessions,
            late,
            prizes,
        )
    common.console().print(table)
    return 0


def _session_words(f: Format, number: int) -> str:
    s = f.session(number)
    limits = f"{s.min_bet:,}-{s.max_bet:,}" if s.max_bet else f"{s.min_bet:,}+"
    text = f"{s.name}: {s.hands} hands, bets {limits}, {s.min_hands} to bet"
    if not s.final:
        text += f", top {s.advance}/table" + (f" + {s.wildcards} wild" if s.wildcards else "")
    if s.chips.value == "carry":
        text += ", chips carried"
    return text


def run_analyse(args: argparse.Namespace) -> int:
    from punto.tournament.analysis import analyse

    if args.a_chart:
        from punto.ui.charts.figure import check_chart_file

        check_chart_file(args.a_chart)  # before simulating
    fmt = get_format(args.a_format)
    report = analyse(
        fmt,
        entrants=args.a_entrants,
        tables=args.a_tables,
        tournaments=args.tournaments,
        seed=args.a_seed,
        mix=_mix(args.a_mix),
        hands=_list(args.hands, "hands"),
        min_bets=_list(args.min_bet, "min-bet"),
        advances=_list(args.advance, "advance"),
    )
    if args.a_chart:
        from punto.ui.charts.figure import write_chart
        from punto.ui.charts.tournament import tournament_chart

        write_chart(tournament_chart(report), args.a_chart)
    if args.a_json:
        common.print_json(report.to_json())
        return 0
    common.console().print(analysis_table(report))
    return 0


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def analysis_table(report: Report) -> Table:
    """The report as a table for people."""
    mix = list(dict.fromkeys(report.mix))
    table = Table(
        title=f"{report.rows[0].tournaments:,} simulated tournaments per row, "
        f"{report.entrants} entrants ({', '.join(mix)})",
        title_justify="left",
        caption="Leader: the sole chip leader at a table half-way through a session before "
        "the final; "
        "final leader: the leader half-way through the final. Wins: share of tournaments "
        "won by each kind of entrant (an even share is "
        + ", ".join(
            f"{m} {report.rows[0].tally.entered[m] / report.rows[0].tournaments / report.entrants:.0%}"
            for m in mix
        )
        + ").",
        caption_justify="left",
    )
    table.add_column("Variant")
    table.add_column("Hands", justify="right")
    table.add_column("Min bet", justify="right")
    table.add_column("Advance", justify="right")
    table.add_column("Leader advances", justify="right")
    table.add_column("Final leader wins", justify="right")
    for m in mix:
        table.add_column(f"Wins: {m}", justify="right")
    table.add_column("Sudden-death hands", justify="right")
    table.add_column("Out of chips", justify="right")
    for row in report.rows:
        data = row.to_json()
        table.add_row(
            row.label,
            str(data["hands"]),
            f"{data['min_bet']:,}",
            str(data["advance"]),
            _pct(row.leader_advances),
            _pct(row.final_leader_wins),
            *(_pct(row.win_share(m)) for m in mix),
            f"{data['sudden_death_hands_per_tournament']:.2f}",
            _pct(data["out_of_chips"]),
        )
    return table
