"""``punto odds``, ``punto insurance`` and ``punto report``: the exact mathematics.

Every figure is computed from the shoe composition asked for, by the exact
enumeration of :mod:`punto.analysis`; all output is built before anything is
printed, so a refused command prints nothing on standard output.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from punto.analysis.composition import (
    Composition,
    CompositionError,
    parse_counts_lines,
)
from punto.commands.common import (
    SubParsers,
    Table,
    add_game_arguments,
    print_json,
    resolve_table,
    whole_number,
)
from punto.errors import DeckCountError, PuntoError
from punto.extras import require_extra
from punto.rules.cards import parse_cards
from punto.rules.game import Game
from punto.rules.games import all_games, get_game
from punto.rules.wagers import PairRule, pair_rule_warning

#: The GAME of ``punto odds`` that means every game.
ALL = "all"

#: Decks in the shoe when none are given.
DEFAULT_DECKS = 8


class AnalysisUsageError(PuntoError):
    """Options of an analysis command that do not go together, or a file
    that cannot be read."""


def register(sub: SubParsers) -> None:
    odds = sub.add_parser(
        "odds",
        help="exact odds, house edge and effect of removal of every wager of a game",
        description="Exact combinations, probabilities, return, house edge, standard "
        "deviation and hit frequency of every wager of a game, from a full shoe or any "
        "composition, counting each round as an ordered six-card sequence.  GAME 'all' "
        "gives every game; --decks takes a range (4-10) for several shoes.",
    )
    add_game_arguments(odds)
    _shoe_arguments(odds, ranges=True)
    odds.add_argument(
        "--counts-file",
        metavar="F",
        help="compositions, one a line (13 counts A..K); output one JSON line each",
    )
    odds.add_argument(
        "--removal",
        action="store_true",
        help="add the effect of removal of one card of each rank on every wager "
        "(pair wagers under both readings of a Pair)",
    )
    odds.add_argument(
        "--fields",
        metavar="F,F,..",
        help="only these figures of each wager, for many compositions: return, "
        "return_exact, house_edge, std_dev, hit_frequency (and total_combinations of the "
        "composition); JSON lines, or with --csv one row per composition and one column "
        "per wager and field.  Doubles are the --jsonl ones, written to read back exactly; "
        "return_exact is the exact fraction",
    )
    formats = odds.add_mutually_exclusive_group()
    formats.add_argument("--json", action="store_true", help="one JSON document")
    formats.add_argument("--jsonl", action="store_true", help="one JSON line per composition")
    formats.add_argument("--csv", action="store_true", help="CSV, one row per event")
    formats.add_argument("--markdown", action="store_true", help="a Markdown page")
    odds.set_defaults(run=run_odds)

    insurance = sub.add_parser(
        "insurance",
        help="exact value of every Insurance Plus offer (Tiger Buffalo)",
        description="For every offer of the Baccarat Insurance Plus Pay Table (4.1.15): the "
        "chance the insured hand loses, ties or wins and the expected value of the bet "
        "(with the Tie exceptions of 4.2.1), averaged over every way of reaching the offer "
        "and over exact cards on the table.  Offers worth more than they cost are flagged.",
    )
    insurance.add_argument(
        "--game", default="tiger-buffalo", help="a game with Insurance Plus (default tiger-buffalo)"
    )
    _shoe_arguments(insurance)
    insurance.add_argument(
        "--cards",
        metavar="CARDS",
        help='the cards on the table, in shoe order (e.g. "3H 4C 2D KS"): value the offers '
        "open on them, dealt from the shoe given",
    )
    insurance.add_argument("--json", action="store_true", help="machine-readable output")
    insurance.set_defaults(run=run_insurance)

    report = sub.add_parser(
        "report",
        help="a game's exact mathematics as one HTML document (and a PDF)",
        description="Write DIR/index.html, one self-contained page with its charts inline "
        "(SVG): pay tables, exact odds with their counts, house edge by deck count, effect "
        "of removal, Insurance Plus values (Tiger Buffalo) and the counting vulnerability "
        "of each side bet, with the rules version and clauses of every figure.  Needs the "
        "report extra, and the sim extra for the counting run: "
        "pip install 'punto[report,sim]' (--counting-shoes 0 leaves the run out).",
    )
    add_game_arguments(report)
    _shoe_arguments(report)
    report.add_argument("--out", required=True, metavar="DIR", help="directory to write")
    report.add_argument(
        "--pdf",
        action="store_true",
        help="also print the page to DIR/report.pdf (with Debian's chromium)",
    )
    report.add_argument(
        "--counting-shoes",
        metavar="N",
        type=whole_number,
        default=2000,
        help="shoes of the counting run of the side bets (default 2000; 0 leaves it out)",
    )
    report.set_defaults(run=run_report)


def _shoe_arguments(parser: argparse.ArgumentParser, *, ranges: bool = False) -> None:
    parser.add_argument(
        "--decks",
        metavar="N",
        help=f"a full shoe of N decks (default {DEFAULT_DECKS})"
        + ("; or several: 4-10, 6,8" if ranges else ""),
    )
    parser.add_argument(
        "--counts",
        metavar="A,2,...,K",
        help="cards left of each rank, Ace to King (13 counts)",
    )


def _deck_counts(text: str | None) -> list[int]:
    """``8``, ``4-10`` or ``6,8`` (or nothing: the default).

    >>> _deck_counts("4-6"), _deck_counts("6,8"), _deck_counts(None)
    ([4, 5, 6], [6, 8], [8])
    """
    if text is None:
        return [DEFAULT_DECKS]
    found: list[int] = []
    try:
        for part in text.split(","):
            low, dash, high = part.strip().partition("-")
            found += range(int(low), int(high) + 1) if dash else [int(low)]
    except ValueError:
        raise AnalysisUsageError(
            f"cannot read --decks {text!r}", hint="give a number of decks, e.g. 8, or 4-10"
        ) from None
    if not found:
        raise AnalysisUsageError(f"--decks {text!r} names no deck count", hint="e.g. 4-10")
    return found


def compositions_of(args: argparse.Namespace, game: Game) -> list[Composition]:
    """The shoes named by ``--decks`` or ``--counts`` (8 decks by default)."""
    if args.decks is not None and args.counts is not None:
        raise AnalysisUsageError(
            "give either --decks or --counts, not both", hint="see 'punto odds --help'"
        )
    if args.counts is not None:
        return [Composition.parse(args.counts)]
    shoes = []
    for decks in _deck_counts(args.decks):
        try:
            game.decks.check(decks)
        except DeckCountError as error:
            raise DeckCountError(
                error.message,
                clause=error.clause,
                hint=f"{error.hint}, or give any other shoe with --counts",
            ) from None
        shoes.append(Composition.of_decks(decks))
    return shoes


def composition_of(args: argparse.Namespace, game: Game) -> Composition:
    """The one shoe named by ``--decks`` or ``--counts``."""
    shoes = compositions_of(args, game)
    if len(shoes) != 1:
        raise AnalysisUsageError("give one deck count", hint="e.g. --decks 8")
    return shoes[0]


def _read_counts_file(path: str) -> list[Composition]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text("utf-8")
    except OSError as error:
        raise AnalysisUsageError(
            f"cannot read {path}: {error.strerror}", hint="give a readable file, or - for stdin"
        ) from None
    return parse_counts_lines(text.splitlines(), path)


# -- punto odds -------------------------------------------------------------------------


def _tables_asked(args: argparse.Namespace) -> list[Table]:
    if args.game != ALL:
        return [resolve_table(args, layout_required=False)]
    if args.layout is not None:
        raise AnalysisUsageError(
            "--layout names a layout of one game", hint="give a game id instead of 'all'"
        )
    rule = PairRule(args.pair_rule) if args.pair_rule else None
    return [Table(g, None, rule or g.pair_rule) for g in all_games()]


def _odds_jobs(args: argparse.Namespace) -> list[tuple[Table, Composition]]:
    """Every (table, composition) asked for, table by table."""
    if args.counts_file is not None:
        if args.decks is not None or args.counts is not None:
            raise AnalysisUsageError("--counts-file takes the place of --decks and --counts")
        if args.json or args.markdown:
            raise AnalysisUsageError(
                "--counts-file writes one line per composition", hint="use --jsonl or --csv"
            )
        tables = _tables_asked(args)
        shoes = _read_counts_file(args.counts_file)
        return [(t, c) for t in tables for c in shoes]
    return [(t, c) for t in _tables_asked(args) for c in compositions_of(args, t.game)]


def run_odds(args: argparse.Namespace) -> int:
    from punto.analysis.removal import effects_of_removal, pair_readings, removal_json
    from punto.analysis.tables import OddsTable, odds_table, to_csv, to_markdown

    if args.fields is not None:
        return _odds_fields(args)
    jobs = _odds_jobs(args)
    if args.csv and args.removal:
        raise AnalysisUsageError("--removal has no CSV form", hint="use --json or --jsonl")

    results: list[OddsTable] = [odds_table(t.game, c, t.layout, t.pair_rule) for t, c in jobs]

    def document(index: int) -> dict[str, Any]:
        data = results[index].to_json()
        if args.removal:
            table, composition = jobs[index]
            game, layout = table.game, table.layout
            readings = pair_readings(game, composition, layout) if args.pair_rule is None else None
            data["removal"] = removal_json(
                effects_of_removal(game, composition, layout, table.pair_rule), readings
            )
        return data

    many = range(len(results))
    if args.csv:
        sys.stdout.write(to_csv(results))
    elif args.jsonl or args.counts_file is not None:
        dumps = json.dumps
        sys.stdout.write("".join(dumps(document(i), ensure_ascii=False) + "\n" for i in many))
    elif args.json:
        print_json(document(0) if len(results) == 1 else [document(i) for i in many])
    elif args.markdown:
        pages = []
        for i in many:
            page = to_markdown(results[i])
            if args.removal:
                page += _removal_markdown(document(i)["removal"])
            pages.append(page)
        sys.stdout.write("\n".join(pages))
    else:
        _show_odds([(results[i], document(i).get("removal")) for i in many])
    return 0


def _odds_fields(args: argparse.Namespace) -> int:
    """``punto odds --fields``: the chosen figures, one line or row per composition."""
    from punto.analysis.bulk import Bulk, parse_fields, write_csv

    fields = parse_fields(args.fields)
    if args.removal:
        raise AnalysisUsageError(
            "--fields gives figures of the wagers, not the effect of removal",
            hint="leave out --fields for --removal",
        )
    if args.json or args.markdown:
        raise AnalysisUsageError(
            "--fields writes one line per composition", hint="use --jsonl (the default) or --csv"
        )
    jobs = _odds_jobs(args)
    bulks = {id(t): Bulk.of(t.game, t.layout, t.pair_rule, fields) for t, _ in jobs}
    if args.csv:
        if len(bulks) > 1:
            raise AnalysisUsageError(
                "a CSV of --fields has the columns of one game's wagers",
                hint="give a game id instead of 'all', or use --jsonl",
            )
        bulk = next(iter(bulks.values()))
        sys.stdout.write(write_csv(bulk, [bulk.row(c) for _, c in jobs]))
        return 0
    lines = []
    for table, composition in jobs:
        bulk = bulks[id(table)]
        lines.append(bulk.json_line(bulk.row(composition)))
    sys.stdout.write("".join(lines))
    return 0


def _removal_markdown(data: dict[str, Any]) -> str:
    ranks = data["ranks"]
    lines = [
        "",
        "## Effect of removal",
        "",
        "Change in return per unit staked when one card of the rank leaves the shoe.",
        "",
        "| wager | " + " | ".join(ranks) + " |",
        "|---|" + "---:|" * len(ranks),
    ]
    rows = [(wid, w) for wid, w in data["wagers"].items()]
    for rule, found in data.get("pair_readings", {}).items():
        rows += [(f"{wid} ({rule} pairs)", w) for wid, w in found.items()]
    for wid, w in rows:
        cells = ["—" if x is None else f"{x:+.6f}" for x in w["effects"]]
        lines.append(f"| {wid} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _show_odds(shown: list[tuple[Any, dict[str, Any] | None]]) -> None:
    from punto.commands.common import console

    out = console()
    for i, (table, removal) in enumerate(shown):
        if i:
            out.print()
        _show_one(out, table, removal)


def _show_one(out: Any, table: Any, removal: dict[str, Any] | None) -> None:
    from rich.table import Table as RichTable

    from punto.analysis.tables import shoe_words

    where = f", layout {table.layout}" if table.layout else ""
    out.print(f"[bold]{table.game.title}[/bold]{where}: exact odds")
    out.print(
        f"{shoe_words(table.composition)}; pairs read by the {table.pair_rule.value} rule; "
        f"{table.total:,} ordered six-card sequences"
    )
    warning = pair_rule_warning(table.pair_rule)
    if warning is not None:
        out.print(f"[bold red]warning:[/] {warning}", highlight=False)
    summary = RichTable(title="wagers")
    for column in ("wager", "house edge", "return (exact)", "std dev", "hit frequency"):
        summary.add_column(column, justify="left" if column == "wager" else "right")
    for wid, w in table.wagers.items():
        summary.add_row(
            wid,
            f"{w.house_edge:.4%}",
            str(w.return_exact),
            f"{w.std_dev:.4f}",
            f"{w.hit_frequency:.4%}",
        )
    events = RichTable(title="events")
    for column in ("wager", "event", "pays", "combinations", "probability"):
        events.add_column(
            column, justify="right" if column in ("combinations", "probability") else "left"
        )
    for wid, w in table.wagers.items():
        for i, e in enumerate(w.events):
            events.add_row(
                wid if i == 0 else "",
                e.event,
                e.pays_text,
                f"{e.combinations:,}",
                f"{e.combinations / e.total:.8f}",
            )
    out.print(summary)
    out.print(events)
    if removal is not None:
        out.print(_removal_text(removal), markup=False)


def _removal_text(data: dict[str, Any]) -> str:
    """The effects of removal as aligned text, in units of 1/10,000 of the stake."""
    rows = list(data["wagers"].items())
    for rule, found in data.get("pair_readings", {}).items():
        rows += [(f"{wid} ({rule} pairs)", w) for wid, w in found.items()]
    label = max(len("wager"), *(len(wid) for wid, _ in rows))
    lines = [
        "effect of removal: change in return when one card of the rank leaves the shoe, "
        "in units of 1/10,000 of the stake",
        "wager".ljust(label) + "".join(f"{rank:>8}" for rank in data["ranks"]),
    ]
    for wid, w in rows:
        cells = "".join("       —" if x is None else f"{x * 1e4:+8.2f}" for x in w["effects"])
        lines.append(wid.ljust(label) + cells)
    return "\n".join(lines)


# -- punto insurance ---------------------------------------------------------------------


def run_insurance(args: argparse.Namespace) -> int:
    from punto.analysis.insurance_values import deal_values, insurance_values

    game = get_game(args.game)
    composition = composition_of(args, game)
    if args.cards is not None:
        cards = parse_cards(args.cards)
        values = deal_values(game, composition, cards)
        if args.json:
            print_json(
                {
                    "game": game.id,
                    "decks": composition.decks,
                    "counts": composition.to_json(),
                    "cards": [str(c) for c in cards],
                    "offers": [v.to_json() for v in values],
                }
            )
        else:
            _show_deal_values(game, composition, args.cards, values)
        return 0
    offers = insurance_values(game, composition)
    if args.json:
        print_json(
            {
                "game": game.id,
                "decks": composition.decks,
                "counts": composition.to_json(),
                "offers": [o.to_json() for o in offers],
            }
        )
        return 0
    _show_insurance(game, composition, offers)
    return 0


def _show_insurance(game: Game, composition: Composition, offers: list[Any]) -> None:
    from rich.table import Table as RichTable

    from punto.analysis.tables import shoe_words
    from punto.commands.common import console

    out = console()
    out.print(f"[bold]{game.title}[/bold]: Insurance Plus values (4.1.15, 4.2.1)")
    out.print(
        f"{shoe_words(composition)}.  Chances are of the insured hand, averaged over every "
        "way of reaching the offer; 'exact cards' is the range of the value over the cards "
        "that can be on the table, and the share of them (by weight) where it is positive."
    )
    table = RichTable()
    columns = (
        "insures",
        "when",
        "P",
        "B",
        "pays",
        "reach",
        "loses",
        "ties",
        "wins",
        "value",
        "exact cards",
        "positive",
        "flag",
    )
    for column in columns:
        table.add_column(
            column, justify="left" if column in ("insures", "when", "pays", "flag") else "right"
        )
    for o in offers:
        flag = "POSITIVE" if o.positive else ("some cards" if o.sometimes_positive else "")
        table.add_row(
            o.offer.insures.value,
            "4 cards" if o.offer.moment.cards == 4 else "P 3rd card",
            str(o.player_points),
            str(o.banker_points),
            str(o.offer.row.pays) + (" *" if o.offer.row.tie_pays else ""),
            f"{float(o.reach):.5f}",
            f"{float(o.loses):.6f}",
            f"{float(o.ties):.6f}",
            f"{float(o.wins):.6f}",
            f"{float(o.value):+.5f}",
            f"{float(o.exact_min):+.4f}..{float(o.exact_max):+.4f}",
            f"{float(o.positive_share):.2%}",
            flag,
        )
    out.print(table)
    positive = [o for o in offers if o.positive or o.sometimes_positive]
    out.print("* a Tie pays too (4.2.1).")
    if positive:
        out.print(f"{len(positive)} offer(s) can favour the bettor: see the flag column.")
    else:
        out.print("No offer favours the bettor, averaged or for any cards on the table.")


def _show_deal_values(game: Game, composition: Composition, cards: str, values: list[Any]) -> None:
    from rich.table import Table as RichTable

    from punto.analysis.tables import shoe_words
    from punto.commands.common import console

    out = console()
    out.print(
        f"[bold]{game.title}[/bold]: Insurance Plus on {cards} from {shoe_words(composition)}"
    )
    if not values:
        out.print("No insurance is offered on these cards.")
        return
    table = RichTable()
    for column in ("offer", "loses", "ties", "wins", "value", "flag"):
        table.add_column(column, justify="left" if column in ("offer", "flag") else "right")
    for v in values:
        table.add_row(
            str(v.offer),
            f"{float(v.loses):.6f}",
            f"{float(v.ties):.6f}",
            f"{float(v.wins):.6f}",
            f"{float(v.value):+.5f}",
            "POSITIVE" if v.value > 0 else "",
        )
    out.print(table)


# -- punto report ------------------------------------------------------------------------


def run_report(args: argparse.Namespace) -> int:
    table = resolve_table(args, layout_required=False)
    composition = composition_of(args, table.game)
    if args.counting_shoes < 0:
        raise AnalysisUsageError(
            f"--counting-shoes {args.counting_shoes} is negative", hint="give 0 or more"
        )
    # What the README says the report needs, checked before anything is written.
    require_extra("report", "report", ("matplotlib",), purpose="for its charts")
    if args.pdf:
        require_extra("report", "report", ("playwright",), purpose="to print --pdf")
    if args.counting_shoes and composition.decks is not None:
        require_extra(
            "report",
            "sim",
            ("numpy", "numba"),
            purpose="for its counting run of the side bets",
            otherwise="--counting-shoes 0 to leave that section out",
        )
    from punto.ui.charts.report import write_report

    try:
        written = write_report(
            table.game,
            composition,
            Path(args.out),
            table.layout,
            table.pair_rule,
            pdf=args.pdf,
            counting_shoes=args.counting_shoes,
        ).paths
    except OSError as error:
        raise AnalysisUsageError(
            f"cannot write the report to {args.out}: {error.strerror}",
            hint="give a directory you can write to",
        ) from None
    sys.stdout.write("".join(f"wrote {path}\n" for path in written))
    return 0


__all__ = ["AnalysisUsageError", "CompositionError", "register"]
