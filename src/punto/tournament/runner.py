"""Running a tournament to the end: people at a terminal and automated entrants.

:class:`Runner` takes one action at a time (:meth:`Runner.step`), chosen
from the tournament's state alone, so a tournament resumed from its log
carries on with exactly the actions an uninterrupted run would have taken.
The tables play in step, hand by hand.  Automated entrants decide with a
random generator seeded from the tournament's seed and the hand, so they too
decide the same way after a restart.

People are asked for their bets through ``input_fn`` (a line at a time,
raising :class:`EOFError` when input ends), as in :mod:`punto.ui.playtable`,
so a session can be scripted:

>>> import io
>>> from rich.console import Console
>>> from punto.tournament.formats import get_format
>>> from punto.eventlog import MemoryEventLog
>>> from punto.tournament.events import TOURNAMENT_STREAM
>>> from punto.ui.playtable import console_input
>>> out = Console(file=io.StringIO(), width=120)
>>> t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "doc", get_format("turbo"), seed=4)
>>> script = io.StringIO("auto\\n")
>>> runner = Runner(t, console=out, input_fn=console_input(out, script))
>>> runner.enter(humans=["Ann"], bots=5)
>>> runner.run(), t.stage.value
(0, 'finished')
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from punto.errors import PuntoError
from punto.inputs import InputFn
from punto.rules.coup import Coup
from punto.tournament.errors import TournamentError
from punto.tournament.events import (
    EntrantReentered,
    HandOpened,
    HandSettled,
    HandVoided,
    SessionEnded,
    SessionStarted,
    TiebreakDealt,
    TiebreakLots,
    TiebreakVoided,
    TournamentEvent,
    TournamentFinished,
)
from punto.tournament.strategies import STRATEGIES, HandView, Strategy
from punto.tournament.tournament import (
    Phase,
    Stage,
    TableState,
    Tournament,
    announcement,
)

#: The mix of automated entrants, in the order they are handed out.
DEFAULT_MIX = ("banker", "flat", "catchup", "pairs")

HELP = """\
[bold]At your turn[/]
  [cyan]WAGER CHIPS[/] ...   bet, e.g. [cyan]banker 5000[/] or [cyan]player 2000 player_pair 500[/]
  [cyan]pass[/]              sit this hand out (while the minimum hands allow it)
  [cyan]standings[/]         the chips at your table
  [cyan]auto[/]              let the catch-up bettor play for you from now on
  [cyan]help[/]              this text"""


def bot_controller(strategy: str) -> str:
    return f"bot:{strategy}"


def hand_view(t: Tournament, entrant: str, rng: random.Random) -> HandView:
    """What ``entrant`` sees at their table now."""
    s = t.session
    e = t.entrants[entrant]
    assert s is not None
    assert e.table is not None
    table = t.tables[e.table]
    rivals = sorted(
        (t.entrants[o].chips for o in table.entrants if o != entrant and not t.out_of_chips(o)),
        reverse=True,
    )
    fmt = t.fmt
    return HandView(
        chips=e.chips,
        hand=max(table.hand, table.settled + 1),
        hands=s.hands,
        min_bet=s.min_bet,
        max_bet=s.max_bet,
        chip_unit=fmt.chip_unit,
        hands_bet=e.hands_bet,
        required=e.required,
        advance=1 if s.final else s.advance,
        rivals=tuple(rivals),
        wagers=fmt.wagers,
        starting_chips=s.starting_chips,
        rng=rng,
    )


@dataclass(frozen=True)
class LateEntry:
    """An automated entrant who registers late, once hand ``at_hand`` is reached."""

    name: str
    strategy: str
    at_hand: int


class Runner:
    """Drive a :class:`Tournament` to its end."""

    def __init__(
        self,
        tournament: Tournament,
        *,
        console: Console | None = None,
        input_fn: InputFn | None = None,
        verbose: bool = False,
        late: Sequence[LateEntry] = (),
    ) -> None:
        self.t = tournament
        self.console = console or Console(quiet=True)
        self._input = input_fn
        self.verbose = verbose
        self.late = list(late)
        #: entrants whose person handed over to an automated strategy
        self.auto: dict[str, Strategy] = {}
        self._declined: set[tuple[str, int]] = set()
        self._shown_session = 0
        self._unsubscribe = tournament.subscribe(self._on_event)

    # -- entrants ----------------------------------------------------------------------

    def enter(
        self, *, humans: Sequence[str] = (), bots: int = 0, mix: Sequence[str] = DEFAULT_MIX
    ) -> None:
        """Register people and ``bots`` automated entrants (strategies in turn from ``mix``)."""
        for name in humans:
            self.t.register(name, "human")
        for i in range(bots):
            strategy = mix[i % len(mix)]
            if strategy not in STRATEGIES:
                raise TournamentError(
                    f"no automated entrant {strategy!r}",
                    hint=f"choose from {', '.join(STRATEGIES)}",
                )
            self.t.register(f"{strategy.title()} {i + 1}", bot_controller(strategy))

    def _strategy(self, entrant: str) -> Strategy | None:
        if entrant in self.auto:
            return self.auto[entrant]
        controller = self.t.entrants[entrant].controller
        if controller.startswith("bot:"):
            return STRATEGIES.get(controller.removeprefix("bot:"), STRATEGIES["banker"])
        if self._input is None:  # nobody to ask: play it safe
            return STRATEGIES["catchup"]
        return None

    def _rng(self, *parts: object) -> random.Random:
        return random.Random(":".join(["punto-tournament", self.t.seed, *map(str, parts)]))

    # -- the loop ------------------------------------------------------------------------

    def run(self) -> int:
        """Play to the end; 0 when finished, 1 if input ended first (the log keeps it)."""
        try:
            while self.step():
                pass
        except EOFError:
            self.console.print(
                "[yellow]Input ended: the tournament stops here; its log resumes it.[/]"
            )
            return 1
        return 0

    def step(self) -> bool:
        """Take the next action; False once the tournament is finished (or cancelled)."""
        t = self.t
        if t.stage.over:
            return False
        if t.stage in (Stage.REGISTRATION, Stage.BETWEEN):
            t.start_session()
            return True
        if self._late_due():
            return True
        if not t.all_tables_done:
            table = min(
                (x for x in t.tables.values() if x.phase is not Phase.DONE),
                key=lambda x: (x.settled, x.number),
            )
            self._table_step(table)
            return True
        if t.tiebreak is not None:
            missing = [e for e in t.tiebreak.entrants if e not in t.tiebreak.choices]
            if missing:
                self._choose_side(missing[0])
            else:
                t.deal_tiebreak()
            return True
        if t.pending_tie() is not None:
            t.open_tiebreak()
            return True
        t.end_session()
        return True

    def _late_due(self) -> bool:
        t = self.t
        if t.session_number != 1 or not self.late:
            return False
        progress = min(x.settled for x in t.tables.values()) + 1
        names = {e.name for e in t.entrants.values()}
        for entry in self.late:
            if entry.name not in names and progress >= entry.at_hand and t.can_register(entry.name):
                t.register(entry.name, bot_controller(entry.strategy))
                return True
        return False

    def _table_step(self, table: TableState) -> None:
        t = self.t
        if table.phase is Phase.IDLE:
            for eid in table.entrants:
                key = (eid, table.settled)
                if t.can_reenter(eid) and key not in self._declined:
                    if self._wants_reentry(eid):
                        t.reenter(eid)
                        return
                    self._declined.add(key)
            t.open_hand(table.number)
            return
        if table.phase is Phase.BETTING:
            waiting = t.awaiting(table.number)
            if waiting:
                self.act(waiting[0])
            else:
                t.close_betting(table.number)
            return
        t.deal_hand(table.number)

    def act(self, entrant: str) -> None:
        """Make ``entrant``'s decision on the hand being bet: an automated
        entrant's strategy, or a person asked at the terminal."""
        t = self.t
        e = t.entrants[entrant]
        assert e.table is not None
        table = t.tables[e.table]
        strategy = self._strategy(entrant)
        if strategy is None:
            self._ask_person(entrant)
            return
        view = hand_view(t, entrant, self._rng("bet", t.session_number, entrant, table.hand))
        bets = strategy.bets(view)
        try:
            if bets is None:
                t.pass_hand(entrant)
            else:
                t.place_bets(entrant, bets)
        except TournamentError:
            # a strategy's bet the rules refuse: the minimum on Banker, or sit out
            if t.can_place_bets(entrant, [("banker", view.min_bet)]):
                t.place_bets(entrant, [("banker", view.min_bet)])
            else:
                t.pass_hand(entrant)

    def automated(self, entrant: str) -> bool:
        """Whether an automated strategy decides for ``entrant`` (never a
        person's own decision, whatever ``input_fn`` is)."""
        return entrant in self.auto or self.t.entrants[entrant].controller.startswith("bot:")

    def reenter_automated(self, table: int) -> bool:
        """Re-enter one automated entrant out of chips at ``table`` while the
        format lets them (they always do); whether one did."""
        t = self.t
        for eid in t.tables[table].entrants:
            if self.automated(eid) and t.can_reenter(eid):
                t.reenter(eid)
                return True
        return False

    def choose_side(self, entrant: str) -> None:
        """``entrant``'s side in the open sudden-death hand: their strategy's,
        or for a person without ``input_fn`` the catch-up bettor's (the default)."""
        self._choose_side(entrant)

    def _wants_reentry(self, entrant: str) -> bool:
        e = self.t.entrants[entrant]
        if e.wallet is not None:
            # a person with a wallet (on the server) re-enters only by their own
            # request, paying the entry fee again (POST /reenter); a step played
            # for them must not give them a new stack, and never one for nothing
            return False
        if self._strategy(entrant) is not None:
            return True
        answer = self._ask(f"{e.name}, you are out of chips. Re-enter for a new stack? [y/n] ")
        return answer.strip().lower() in ("y", "yes")

    def _choose_side(self, entrant: str) -> None:
        t = self.t
        strategy = self._strategy(entrant)
        sides = t.tiebreak_sides()
        if strategy is not None:
            side = strategy.tiebreak(self._rng("tiebreak", t.seq, entrant))
            t.choose_tiebreak(entrant, side if side in sides else sides[0])
            return
        e = t.entrants[entrant]
        tb = t.tiebreak
        assert tb is not None
        while True:
            choices = " or ".join(x.title() for x in sides)
            answer = (
                self._ask(f"{e.name}: sudden-death hand {tb.reason}. {choices}? ").strip().lower()
            )
            side = {"b": "banker", "p": "player"}.get(answer, answer)
            if side in sides:
                t.choose_tiebreak(entrant, side)
                return
            self.console.print(f"[red]Choose {escape(choices)}.[/]")

    # -- a person at the terminal ------------------------------------------------------

    def _ask(self, prompt: str) -> str:
        assert self._input is not None
        return self._input(prompt)

    def _ask_person(self, entrant: str) -> None:
        t = self.t
        e = t.entrants[entrant]
        s = t.session
        assert s is not None
        assert e.table is not None
        table = t.tables[e.table]
        said = announcement(table.remaining, s.announce_last)
        limits = (
            f"bets {s.min_bet:,}–{s.max_bet:,}"
            if s.max_bet
            else f"minimum bet {s.min_bet:,}, no maximum"
        )
        line = (
            f"[bold]{escape(e.name)}[/] — {s.name}, table {table.number}, hand {table.hand} "
            f"of {s.hands}"
            + (f" — [bold yellow]{said}[/]" if said else "")
            + f"\n  chips {e.chips:,}  hands bet {e.hands_bet} of at least {e.required}  {limits}"
        )
        if t.must_bet(entrant):
            line += "  [bold red]must bet[/]"
        self.console.print(line)
        while True:
            text = self._ask("Your bet: ").strip().lower()
            words = text.replace(",", " ").split()
            if not words:
                continue
            if words[0] in ("help", "?"):
                self.console.print(HELP)
                continue
            if words[0] in ("standings", "s"):
                self._print_table_standings(table.number)
                continue
            if words[0] == "auto":
                self.auto[entrant] = STRATEGIES["catchup"]
                self.console.print("The catch-up bettor plays for you from now on.")
                self.act(entrant)
                return
            try:
                if words[0] in ("pass", "p"):
                    t.pass_hand(entrant)
                    return
                t.place_bets(entrant, self._parse_bets(words))
                return
            except PuntoError as error:
                self.console.print(f"[red]{escape(str(error))}[/]")

    def _parse_bets(self, words: list[str]) -> list[tuple[str, int]]:
        if len(words) % 2:
            raise TournamentError("bets come in pairs of wager and chips", hint="e.g. banker 5000")
        aliases = {w: w for w in self.t.fmt.wagers}
        aliases.update(
            {"b": "banker", "p": "player", "t": "tie", "pp": "player_pair", "bp": "banker_pair"}
        )
        out = []
        for wager, amount in zip(words[::2], words[1::2], strict=True):
            name = aliases.get(wager.replace("-", "_"), wager)
            digits = amount.replace("_", "")  # 5_000 chips, as people group them
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 15):
                # int() alone would take digits of other scripts ("٥٠٠٠") too
                raise TournamentError(
                    f"{amount!r} is not a number of chips", hint="e.g. banker 5000"
                )
            stake = int(digits)
            out.append((name, stake))
        return out

    # -- what is shown -------------------------------------------------------------------

    def _humans_at(self, table: int) -> bool:
        t = self.t
        return any(
            t.entrants[e].controller == "human" and e not in self.auto
            for e in t.tables[table].entrants
        )

    def _on_event(self, seq: int, event: TournamentEvent) -> None:
        t = self.t
        if isinstance(event, HandSettled):
            if self.verbose or self._humans_at(event.table):
                self._print_hand(event)
        elif isinstance(event, TiebreakDealt):
            coup = Coup.parse(event.cards)
            names = ", ".join(
                f"{t.entrants[r.entrant].name} ({r.wager}, {'+' if r.net > 0 else ''}{r.net:,})"
                for r in event.results
            )
            self.console.print(f"Sudden death at table {event.table}: {_coup_text(coup)} — {names}")
        elif isinstance(event, HandOpened) and self.verbose:
            s = t.session
            said = announcement(event.remaining, s.announce_last) if s else None
            if said:
                self.console.print(f"T{event.table}: [bold yellow]{said}[/]")
        elif isinstance(event, SessionStarted):
            self._print_seating()
        elif isinstance(event, SessionEnded | TournamentFinished):
            self._print_session_end()
            if isinstance(event, TournamentFinished):
                self.print_results()
        elif isinstance(event, TiebreakVoided):
            self.console.print(
                f"Sudden death at table {event.table}: [bold red]void[/] ({event.clause}: "
                f"{escape(event.reason)}); it is dealt again"
            )
        elif isinstance(event, TiebreakLots):
            self.console.print("Still tied after the sudden-death hands: lots drawn.")
        elif isinstance(event, EntrantReentered):
            self.console.print(f"{escape(t.entrants[event.entrant].name)} re-enters.")
        elif isinstance(event, HandVoided) and (self.verbose or self._humans_at(event.table)):
            self.console.print(
                f"T{event.table} hand {event.hand}: [bold red]void[/] ({event.clause}: "
                f"{escape(event.reason)}); every bet returned, the hand is dealt again"
            )

    def _print_hand(self, event: HandSettled) -> None:
        t = self.t
        coup = Coup.parse(event.cards)
        nets = "  ".join(
            f"{t.entrants[r.entrant].name} {'+' if r.net > 0 else ''}{r.net:,}"
            for r in event.results
            if r.staked
        )
        self.console.print(
            f"T{event.table} hand {event.hand}: {_coup_text(coup)}"
            + (f"  |  {escape(nets)}" if nets else "")
        )

    def _print_seating(self) -> None:
        t = self.t
        s = t.session
        assert s is not None
        limits = f"{s.min_bet:,}–{s.max_bet:,}" if s.max_bet else f"{s.min_bet:,}, no maximum"
        self.console.print(
            f"\n[bold]{t.fmt.title}: {s.name}[/] — {len(t.tables)} table(s), {s.hands} hands, "
            f"bets {limits}, at least {s.min_hands} hands"
            + (f", top {s.advance} per table advance" if not s.final else "")
            + (f" plus {s.wildcards} wild cards" if s.wildcards else "")
        )
        for n, table in sorted(t.tables.items()):
            names = ", ".join(
                f"{seat}:{t.entrants[e].name}" for seat, e in sorted(table.seats.items())
            )
            self.console.print(f"  Table {n}: {escape(names)}")

    def _print_table_standings(self, table: int) -> None:
        board = self.t.leaderboard()
        for row in board["tables"]:
            if row["table"] == table:
                self.console.print(_standings_table(f"Table {table}", row["standings"]))

    def _print_session_end(self) -> None:
        board = self.t.leaderboard()
        s = self.t.session
        assert s is not None
        for row in board["tables"]:
            title = f"{s.name}, table {row['table']}: final standings"
            self.console.print(_standings_table(title, row["standings"], final=s.final))

    def print_results(self) -> None:
        t = self.t
        cur = t.fmt.currency
        table = Table(title=f"{t.fmt.title}: results", title_justify="left")
        for col in ("Place", "Entrant", "Plays", "Reached", "Chips", "Prize"):
            table.add_column(col, justify="right" if col in ("Place", "Chips", "Prize") else "left")
        for row in t.result_rows():
            if row["place"] > 12 and row["prize"] == "0.00":
                continue
            table.add_row(
                str(row["place"]),
                escape(row["name"]),
                row["controller"].removeprefix("bot:"),
                row["reached"],
                f"{row['chips']:,}",
                f"{cur} {row['prize']}".strip() if row["prize"] != "0.00" else "",
            )
        self.console.print(table)


def _coup_text(coup: Coup) -> str:
    return (
        f"Player {' '.join(map(str, coup.player.cards))} ({coup.player.total}) "
        f"Banker {' '.join(map(str, coup.banker.cards))} ({coup.banker.total}) — "
        + ("Tie" if coup.winner.value == "tie" else f"{coup.winner.value.title()} wins")
    )


def _standings_table(title: str, rows: list[dict[str, object]], *, final: bool = False) -> Table:
    table = Table(title=title, title_justify="left")
    for col in ("Rank", "Entrant", "Plays", "Chips", "Hands bet", ""):
        table.add_column(col, justify="right" if col in ("Rank", "Chips", "Hands bet") else "left")
    for row in rows:
        status = row["status"]
        if status == "finished":
            mark = f"place {row['place']}"
        elif status == "advanced":
            mark = "advances"
        elif status == "eliminated":
            mark = "out"
        elif status == "out_of_chips":
            mark = "out of chips"
        elif row["advancing"]:
            mark = "leads" if final else "advancing"
        else:
            mark = ""
        if row["tied"] and status in ("playing", "out_of_chips"):
            mark = (mark + " (tied)").strip()
        table.add_row(
            str(row["rank"]),
            escape(str(row["name"])),
            str(row["controller"]).removeprefix("bot:"),
            f"{row['chips']:,}",
            f"{row['hands_bet']}/{row['hands_required']}",
            mark,
        )
    return table
