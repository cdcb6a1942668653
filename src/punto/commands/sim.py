"""``punto simulate`` and ``punto counting``: simulation at scale and card counting.

Both deal seeded shoes in chunks with the compiled kernels of
:mod:`punto.sim`, in this process with one worker or on a Dask cluster (a
local one by default), and settle
every wager through the class -> event tables of the exact analysis.  All
output is built before anything is printed; the progress bar goes to
standard error, and only when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from punto.commands import common
from punto.commands.common import (
    SubParsers,
    number,
    whole_number,
)
from punto.errors import PuntoError

#: Decks in the shoe when none are given.
DEFAULT_DECKS = 8
#: Cards behind the cut card when none are given (as ``punto play``).
DEFAULT_CUT_CARD = 14
DEFAULT_COUPS = 10_000_000
DEFAULT_COUNT_SHOES = 100_000
DEFAULT_SAMPLES = 64


class SimUsageError(PuntoError):
    """Options of a simulation command that do not go together."""


def register(sub: SubParsers) -> None:
    simulate = sub.add_parser(
        "simulate",
        help="simulate shoes with the compiled kernels and compare every wager with the exact figures",
        description="Deal seeded shoes (cut card, optional burn) and settle every wager of "
        "the game on every coup.  Per wager: the observed return with a 95% confidence "
        "interval (from batches of shoes, which are independent; coups within a shoe are "
        "not), the hit frequency, and the z-score against the exact full-shoe figures.  "
        "With a cut card, the expectation per coup over a shoe differs from the full-shoe "
        "figure by the cut-card effect; --exact-states measures it.  The same seed gives "
        "the same counts whatever the number of workers.",
    )
    common.add_game_arguments(simulate)
    _shoe_arguments(simulate)
    size = simulate.add_mutually_exclusive_group()
    size.add_argument("--shoes", type=_positive, metavar="K", help="shoes to deal")
    size.add_argument(
        "--coups",
        type=_positive,
        metavar="K",
        help=f"about this many coups, as whole shoes (default {DEFAULT_COUPS:,})",
    )
    simulate.add_argument(
        "--exact-states",
        type=_non_negative,
        default=0,
        metavar="K",
        help="also evaluate K coups picked uniformly from the run by the exact engine on "
        "the cards left in the shoe: the exact expectation under this cut-card procedure",
    )
    simulate.add_argument(
        "--chart",
        metavar="FILE",
        help="write a chart of each wager's running estimate converging on its exact "
        "return (.svg, .png or .pdf; the shoes are dealt again in this process, prefix by "
        "prefix; needs pip install 'punto[report]')",
    )
    _run_arguments(simulate)
    simulate.set_defaults(run=run_simulate)

    counting = sub.add_parser(
        "counting",
        help="card counting: which wagers can be beaten, with tags, thresholds and edges",
        description="For every wager (or --wager W): a balanced point count derived from the "
        "exact effects of removal (or --tags), the true count before each coup "
        "(52 x running count / cards left), and betting one unit when it is at least the "
        "threshold.  Per wager: best threshold, bet frequency, edge when betting, win per "
        "shoe and per 100 coups, simulated with standard errors, and the exact edge of "
        "the shoe states the simulation passed through.  Vulnerable wagers first.",
    )
    common.add_game_arguments(counting)
    _shoe_arguments(counting, penetration=True)
    counting.add_argument(
        "--wager",
        action="append",
        metavar="W",
        help="count only this wager (repeat for several); default every wager",
    )
    counting.add_argument(
        "--tags",
        metavar="A,2,..,9,T",
        help="the count's tags: 10 (A..9, T for every ten-value card) or 13 (A..K); "
        "needs exactly one --wager",
    )
    counting.add_argument(
        "--threshold",
        type=whole_number,
        metavar="TC",
        help="also report betting at this true count",
    )
    counting.add_argument(
        "--exceeds",
        action="store_true",
        help="bet when the true count is above the threshold (default: at least)",
    )
    counting.add_argument(
        "--shoes",
        type=_positive,
        default=DEFAULT_COUNT_SHOES,
        metavar="K",
        help=f"shoes to deal (default {DEFAULT_COUNT_SHOES:,})",
    )
    counting.add_argument(
        "--samples",
        type=_non_negative,
        default=DEFAULT_SAMPLES,
        metavar="K",
        help=f"coups per true count evaluated exactly (default {DEFAULT_SAMPLES}; 0: none)",
    )
    counting.add_argument(
        "--chart",
        metavar="FILE",
        help="write a chart of edge against true count (.svg, .png or .pdf; needs "
        "pip install 'punto[report]')",
    )
    _run_arguments(counting)
    counting.set_defaults(run=run_counting)


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {text}")
    return value


def _integer(text: str) -> int:
    """A whole number: ``1000000``, ``1_000_000``, ``1,000,000`` or ``1e6``."""
    cleaned = text.replace("_", "").replace(",", "")
    if not cleaned.isascii():  # int() would read digits of other scripts ("٣") too
        raise argparse.ArgumentTypeError(f"not a whole number in ASCII digits: {text!r}")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        value = float(cleaned)
    except ValueError:
        value = math.nan
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(value)


def _shoe_arguments(parser: argparse.ArgumentParser, *, penetration: bool = False) -> None:
    parser.add_argument(
        "--decks",
        type=_positive,
        default=DEFAULT_DECKS,
        metavar="N",
        help=f"decks in the shoe (default {DEFAULT_DECKS})",
    )
    cut = parser.add_mutually_exclusive_group()
    cut.add_argument(
        "--cut-card",
        type=_positive,
        metavar="CARDS",
        help=f"cards behind the cut card (default {DEFAULT_CUT_CARD}); the round in which it "
        "comes out is the last of the shoe (3.22)",
    )
    if penetration:
        cut.add_argument(
            "--penetration",
            type=number,
            metavar="F",
            help="the share of the shoe in front of the cut card, e.g. 0.9",
        )
    else:
        cut.add_argument(
            "--fresh-shoe",
            action="store_true",
            help="deal every coup from a freshly shuffled shoe: exactly the full-shoe figures",
        )
    parser.add_argument(
        "--burn",
        action="store_true",
        help="burn at the start of each shoe (not in the approved rules): the first card is "
        "shown and as many cards as its point value (ten for a zero) burned face down",
    )
    parser.add_argument(
        "--seed", type=_non_negative, metavar="S", help="master seed (default: random, printed)"
    )


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=_non_negative,
        metavar="W",
        help="workers: 0 or 1 run in this process, more a local Dask cluster on 127.0.0.1 "
        "(default: one per CPU)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786 (workers need punto)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document")


# -- shared ---------------------------------------------------------------------------------


def _rules(args: argparse.Namespace, decks_range: Any) -> Any:
    from punto.sim.run import ShoeRules

    decks_range.check(args.decks)
    cards = args.decks * 52
    behind = args.cut_card if args.cut_card is not None else DEFAULT_CUT_CARD
    if getattr(args, "fresh_shoe", False):
        if args.burn:
            raise SimUsageError("--fresh-shoe deals one coup per shoe: there is nothing to burn")
        behind = cards - 1
    penetration = getattr(args, "penetration", None)
    if penetration is not None:
        if not 0 < penetration < 1:
            raise SimUsageError(
                f"--penetration is a share of the shoe between 0 and 1, not {penetration}",
                hint="e.g. --penetration 0.9",
            )
        behind = cards - max(1, round(penetration * cards))
    return ShoeRules(args.decks, behind, bool(args.burn))


def _workers(args: argparse.Namespace) -> int:
    from punto.sim.cluster import default_workers

    if args.scheduler is not None:
        return 0
    return default_workers() if args.workers is None else int(args.workers)


def _seed(args: argparse.Namespace) -> int:
    return int(args.seed) if args.seed is not None else secrets.randbits(62)


@contextmanager
def _progress(enabled: bool, total: int, what: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on standard error (a terminal only); yields an update
    function taking (units done in this step, coups so far)."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda done, coups: None
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + what),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    with progress:
        task = progress.add_task("dealing", total=total, rate="")

        def update(done: int, coups: int) -> None:
            elapsed = progress.tasks[0].elapsed or 0.0
            rate = f"{coups / elapsed / 1e6:,.1f}M coups/s" if elapsed > 0 and coups else ""
            progress.update(task, advance=done, rate=rate)

        yield update


def _fmt(x: float | None, digits: int = 4, *, percent: bool = True, sign: bool = True) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if percent:
        return f"{100 * x:{'+' if sign else ''}.{digits}f}%"
    return f"{x:{'+' if sign else ''}.{digits}f}"


# -- punto simulate ---------------------------------------------------------------------------


def run_simulate(args: argparse.Namespace) -> int:
    from punto.sim.run import SimJob, simulate

    if args.chart:
        from punto.ui.charts.figure import check_chart_file

        check_chart_file(args.chart)  # before dealing a shoe
    table = common.resolve_table(args, layout_required=False)
    rules = _rules(args, table.game.decks)
    if args.shoes is not None:
        shoes = args.shoes
    else:
        coups = args.coups or DEFAULT_COUPS
        shoes = max(1, math.ceil(coups / rules.expected_coups()))
    seed = _seed(args)
    job = SimJob(table.game.id, table.layout, table.pair_rule.value, rules, seed, shoes)
    workers = _workers(args)
    with _progress(not args.json, shoes, "shoes") as update:
        report = simulate(job, workers=workers, scheduler=args.scheduler, on_done=update)
    extra: dict[str, Any] = {}
    if args.exact_states:
        extra = _procedure_expectation(job, args.exact_states, workers, args.scheduler)
    if args.chart:
        from punto.ui.charts.sim import write_running_chart

        write_running_chart(job, args.chart)
    if args.json:
        data = report.to_json()
        if extra:
            data["exact_states"] = extra
        common.print_json(data)
        return 0
    _print_simulation(report, extra)
    return 0


def _procedure_expectation(
    job: Any, samples: int, workers: int, scheduler: str | None
) -> dict[str, Any]:
    """The exact expectation per coup under the run's cut-card procedure,
    from ``samples`` coups picked uniformly (smallest random keys) and
    evaluated exactly on the cards left."""
    from punto.sim.counting import BIN_LOW, CountJob, Tags, counting

    if job.rules.fresh:
        raise SimUsageError(
            "--exact-states has nothing to add with --fresh-shoe: every coup is dealt from a "
            "full shoe, whose exact figures are the comparison"
        )
    wager = job.tables().wager_ids[0]
    zero = Tags((0,) * 13, "given")
    cjob = CountJob(
        job.game_id,
        job.layout,
        job.pair_rule,
        job.rules,
        job.seed,
        job.shoes,
        (wager,),
        (zero.values,),
        samples=samples,
    )
    report = counting(cjob, [zero], workers=workers, scheduler=scheduler, keep_exact=True)
    exact = report.extra["exact"]
    states = report.extra["states_by_bin"][0][-BIN_LOW]
    out: dict[str, Any] = {"samples": len(states), "wagers": {}}
    full = {w.id: float(w.exact_return) for w in _figures_of(job)}
    for wid in job.tables().wager_ids:
        xs = [exact.value(s, wid) for s in states]
        mean = sum(xs) / len(xs)
        var = sum((x - mean) ** 2 for x in xs) / max(len(xs) - 1, 1)
        se = math.sqrt(var / len(xs))
        out["wagers"][wid] = {
            "expectation": mean,
            "expectation_se": se,
            "cut_card_effect": mean - full[wid],
        }
    return out


def _figures_of(job: Any) -> Any:
    from punto.sim.run import SimCounts, figures

    tables = job.tables()
    return figures(job, SimCounts.empty(tables.nkeys, len(tables.wager_ids)))


def _print_simulation(report: Any, extra: dict[str, Any]) -> None:
    from punto.sim.run import comparison_note

    job = report.job
    console = common.console()
    where = f", layout {job.layout}" if job.layout else ""
    console.print(
        f"[bold]{job.game_id}{where}[/]: {job.rules.describe()}; pairs read by the {job.pair_rule} rule"
    )
    workers = "in this process" if report.workers <= 1 else f"on {report.workers} workers"
    console.print(
        f"seed {job.seed}: {report.counts.shoes:,} shoes, {report.counts.coups:,} coups in "
        f"{report.wall_seconds:.2f} s {workers} ({report.coups_per_second / 1e6:,.1f}M coups/s; "
        f"kernels {report.counts.coups / max(report.counts.seconds, 1e-9) / 1e6:,.1f}M coups/s a core)"
    )
    zcrit = report.simultaneous_z()
    t = Table(show_edge=False, pad_edge=False)
    for heading in ("wager", "return", "95% CI", "exact", "z", "hit freq.", "exact", "z"):
        t.add_column(heading, justify="left" if heading == "wager" else "right")
    if extra:
        t.add_column("cut-card effect", justify="right")
    for w in report.wagers:
        low, high = w.returns.interval()
        ok = abs(w.z_return) <= zcrit and abs(w.z_hit) <= zcrit
        row = [
            f"{w.name} ({w.id})",
            _fmt(w.returns.mean),
            f"{100 * low:+.3f}% … {100 * high:+.3f}%",
            _fmt(float(w.exact_return)),
            f"[{'green' if ok else 'red'}]{w.z_return:+.2f}[/]",
            _fmt(w.hits.mean, sign=False),
            _fmt(float(w.exact_hit), sign=False),
            f"{w.z_hit:+.2f}",
        ]
        if extra:
            e = extra["wagers"][w.id]
            row.append(f"{100 * e['cut_card_effect']:+.4f}% ± {100 * e['expectation_se']:.4f}")
        t.add_row(*row)
    console.print(t)
    console.print(
        f"Compared with the {comparison_note(job.rules)}.  Every |z| within {zcrit:.2f} is "
        f"inside the simultaneous 95% intervals of all {2 * len(report.wagers)} figures."
    )
    if extra:
        console.print(
            f"Cut-card effect: the exact return of the cards left, averaged over "
            f"{extra['samples']:,} coups picked uniformly from the run, less the full-shoe return."
        )


# -- punto counting ---------------------------------------------------------------------------


def run_counting(args: argparse.Namespace) -> int:
    from punto.sim.counting import (
        MAIN_KINDS,
        CountingError,
        CountJob,
        Tags,
        counting,
        derive_tags,
        effects_floats,
        parse_tags,
    )
    from punto.sim.tables import sim_tables

    if args.chart:
        from punto.ui.charts.figure import check_chart_file

        check_chart_file(args.chart)  # before dealing a shoe
    table = common.resolve_table(args, layout_required=False)
    rules = _rules(args, table.game.decks)
    tables = sim_tables(table.game, table.layout, table.pair_rule)
    wanted = args.wager or [w for w in tables.wager_ids if table.game.wagers[w].kind is not None]
    for w in wanted:
        if w not in tables.wager_ids:
            table.game.wager(w, table.layout)  # the game's own refusal
            raise CountingError(f"{w} is not settled on the coup alone (Insurance Plus)")
    if args.tags is not None and len(wanted) != 1:
        raise SimUsageError("--tags is the count of one wager: give exactly one --wager")
    effects = effects_floats(table.game.id, table.layout, table.pair_rule, rules.decks)
    tags: list[Tags] = []
    for w in wanted:
        if args.tags is not None:
            values = parse_tags(args.tags)
            from punto.sim.counting import correlation

            tags.append(Tags(values, "given", None, correlation(values, effects[w])))
        else:
            tags.append(derive_tags(effects[w]))
    counted = [(w, t) for w, t in zip(wanted, tags, strict=True) if not t.zero]
    uncountable = tuple(w for w, t in zip(wanted, tags, strict=True) if t.zero)
    seed = _seed(args)
    if not counted:
        raise CountingError(
            f"no balanced point count moves the edge of {', '.join(uncountable)}: every rank's "
            "effect of removal is the same",
            hint="pair wagers read by rank cannot be counted with one linear count",
        )
    job = CountJob(
        table.game.id,
        table.layout,
        table.pair_rule.value,
        rules,
        seed,
        args.shoes,
        tuple(w for w, _ in counted),
        tuple(t.values for _, t in counted),
        samples=args.samples,
        exceeds=args.exceeds,
    )
    workers = _workers(args)
    with _progress(not args.json, args.shoes, "shoes") as update:
        report = counting(
            job,
            [t for _, t in counted],
            exact=args.samples > 0,
            threshold=args.threshold,
            workers=workers,
            scheduler=args.scheduler,
            on_done=update,
        )
    report = report.with_uncountable(uncountable)
    if args.chart:
        from punto.ui.charts.sim import write_edge_chart

        write_edge_chart(table.game, rules, report.wagers, args.chart)
    if args.json:
        common.print_json(report.to_json())
        return 0
    _print_counting(report, args.threshold, main_kinds=MAIN_KINDS, chart=args.chart)
    return 0


def _wide_console() -> Console:
    """A console for people; off a terminal, wide enough for the counting table."""
    width = None if sys.stdout.isatty() else 200
    return Console(highlight=False, soft_wrap=True, width=width)


def _print_counting(
    report: Any, threshold: int | None, *, main_kinds: frozenset[str], chart: str | None
) -> None:
    from punto.sim.counting import VULNERABLE_WIN

    job = report.job
    console = _wide_console()
    where = f", layout {job.layout}" if job.layout else ""
    console.print(f"[bold]{job.game_id}{where}[/]: {job.rules.describe()}")
    rule = "above" if job.exceeds else "at least"
    console.print(
        f"seed {job.seed}: {report.counts.shoe[0]:,} shoes, {report.counts.coups:,} coups in "
        f"{report.seconds:.1f} s; bet one unit when the true count (52 x running count / cards "
        f"left) is {rule} the threshold"
    )
    t = Table(show_edge=False, pad_edge=False)
    headings = (
        "wager",
        "tags A..9,T",
        "corr.",
        "edge off the top",
        "best TC",
        "bet freq.",
        "edge when betting",
        "exact edge",
        "per shoe",
        "per 100 coups",
    )
    for heading in headings:
        left = heading in ("wager", "tags A..9,T")
        t.add_column(heading, justify="left" if left else "right", no_wrap=left)
    rows = sorted(report.wagers, key=lambda w: -w.sort_key())
    for w in rows:
        b = w.chosen if threshold is not None and w.chosen is not None else w.best
        name = f"{w.name} ({w.id})"
        if w.vulnerable:
            name = f"[bold red]{name}[/]"
        corr = "—" if w.tags.correlation is None else f"{w.tags.correlation:.3f}"
        if b is None:
            t.add_row(name, w.tags.text(), corr, _fmt(w.base_return, 3), "never", *["—"] * 5)
            continue
        t.add_row(
            name,
            w.tags.text(),
            corr,
            _fmt(w.base_return, 3),
            f"{'>' if job.exceeds else '≥'}{b.count:+d}",
            f"{100 * b.bet_frequency:.3f}%",
            f"{100 * b.edge:+.2f}% ± {100 * b.edge_se:.2f}",
            "—"
            if b.exact_edge is None
            else f"{100 * b.exact_edge:+.2f}% ± {100 * (b.exact_edge_se or 0):.2f}",
            f"{b.per_shoe:+.4f}",
            f"{b.per_100:+.4f} ± {b.per_100_se:.4f}",
        )
    console.print(t)
    which = (
        f"at true count {threshold:+d}"
        if threshold is not None
        else "at the best threshold (most exact win per 100 coups)"
    )
    exact = (
        f"Exact edge: the exact engine on the cards left in the shoe, averaged over "
        f"{job.samples} sampled coups per true count."
        if job.samples
        else "Exact edge: not computed (--samples 0)."
    )
    console.print(f"Figures {which}; ± one standard error.  {exact}")
    if report.uncountable:
        console.print(
            "Not countable with a balanced linear count (every rank has the same effect of "
            f"removal): {', '.join(report.uncountable)}."
        )
    vulnerable = [w.id for w in rows if w.vulnerable and w.id not in main_kinds]
    console.print(
        f"Vulnerable (a counter wins at least {VULNERABLE_WIN} units per 100 coups): "
        + (", ".join(vulnerable) if vulnerable else "none")
        + "."
    )
    if chart:
        console.print(f"Chart of edge against true count: {chart}")
