"""A dealer's console: the terminal a person running a real table types into.

:class:`DealerConsole` runs one :class:`~punto.table.live.LiveTable`: it
opens and closes betting, records bets for players at positions, draws from
the table's shoe or takes cards keyed in from a physical shoe, shows the
Insurance Plus window on Tiger Buffalo with each player's cap, runs every
irregularity procedure (asking for the acting role and each parameter),
settles, and shows the scoreboard (roads) beside the round.  Every action goes
to the table's event log before it is acknowledged, so a console started
again on the same log resumes where the last one stopped (a round that was
being dealt is then handled as a power failure, as the rules say).

Commands are the actions of a replay file (:mod:`punto.table.replay`), typed
as ``NAME ARG... key=value...``: ``bet ann 1 banker 100`` is
``{"action": "bet", "player": "ann", "position": 1, "wager": "banker",
"stake": "100"}``.

Nothing here needs a terminal: input comes from ``input_fn`` (raising
:class:`EOFError` at the end) and output goes to a rich :class:`Console`, so
a session can be scripted.

>>> import io
>>> from decimal import Decimal
>>> from rich.console import Console
>>> from punto.rules.games import get_game
>>> from punto.ui.playtable import console_input
>>> from punto.eventlog import MemoryEventLog
>>> from punto.table.events import TABLE_STREAM
>>> from punto.table.limits import TableLimits
>>> out = Console(file=io.StringIO(), width=120)
>>> script = io.StringIO("open\\nbet ann 1 banker 100\\nfoo\\nclose\\ndeal\\nsettle\\n")
>>> desk = DealerConsole(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)),
...                      log=MemoryEventLog(TABLE_STREAM), seed=1, console=out,
...                      input_fn=console_input(out, script))
>>> desk.run(), desk.table.round.phase.value
(0, 'settled')
>>> "unknown command 'foo'" in out.file.getvalue()
True
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from punto.errors import PhaseError, PuntoError
from punto.eventlog import EventLog
from punto.inputs import InputFn, quoted
from punto.money import format_money
from punto.rules.game import Game
from punto.rules.roads import Scoreboard
from punto.rules.wagers import PairRule
from punto.table import handling
from punto.table.events import ClaimRejected, Event, HandlingEvent, RulingClaimed
from punto.table.irregularities import Ruling
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.replay import (
    ACTIONS,
    HANDLING,
    IRREGULARITIES,
    KIND_HELP,
    SHOE_ACTIONS,
    ActionInputError,
    ActionSpec,
    Param,
    Seats,
    check_withdrawing,
    read_action,
    trial,
)
from punto.table.roles import Role
from punto.table.round import Round
from punto.ui.dealer_console_text import (
    ALIASES,
    HELP,
    command_name,
    default_table_id,
    param_question,
    shown_default,
    value_from_text,
)
from punto.ui.dealer_console_view import ConsoleView

__all__ = ["DealerConsole", "InputFn"]


class DealerConsole:
    """One table, run by a person at a terminal until they quit."""

    def __init__(
        self,
        game: Game,
        *,
        limits: TableLimits,
        log: EventLog[Event],
        console: Console,
        input_fn: InputFn,
        table_id: str | None = None,
        layout: str | None = None,
        pair_rule: PairRule | None = None,
        decks: int = 8,
        cut_card: int = 14,
        seed: int | str | None = None,
        insurance_offered: bool = True,
        where: str | None = None,
        hlga: bool = False,
        electronic_device: bool = True,
        face_down: bool = False,
    ) -> None:
        layout = game.check_layout(layout)
        game.decks.check(decks)  # refused before the session starts, not at the first 'open'
        self.console = console
        self._input = input_fn
        self.where = where
        self.table = LiveTable(
            table_id or default_table_id(game, layout),
            game,
            limits=limits,
            log=log,
            layout=layout,
            decks=decks,
            cut_card_from_end=cut_card,
            seed=seed,
            pair_rule=pair_rule,
            insurance_offered=insurance_offered,
            hlga=hlga,
            electronic_device=electronic_device,
            face_down=face_down,
        )
        self.game = game
        self.seats = Seats()
        for r in self.table.rounds:
            for bet in r.bets:
                self._remember_seat(bet.player, bet.position, bet.seated)
        self._ended = False
        self.view = ConsoleView(console, self.table, game, where)

    # -- the session -----------------------------------------------------------------

    def run(self) -> int:
        """Take commands until ``quit`` or the end of input; 0 when it ends normally."""
        self.view.welcome()
        while True:
            line = self._ask(self._prompt())
            if line is None:
                break
            try:
                words = shlex.split(line)
            except ValueError as bad:
                self._refuse(f"cannot read {line!r}: {bad}")
                continue
            if not words:
                continue
            command = command_name(words[0])
            if command in ("quit", "exit", "q"):
                break
            try:
                self.command(command, words[1:])
            except PuntoError as error:
                self._refuse(str(error))
        self.view.goodbye()
        return 0

    def command(self, command: str, words: list[str]) -> None:
        """Carry out one command (``words`` after its name)."""
        command = ALIASES.get(command, command)
        simple: dict[str, Callable[[], None]] = {
            "help": lambda: self.console.print(HELP),
            "status": self.show_status,
            "board": self.show_board,
            "shoe": self.show_shoe,
            "irregularities": self.show_irregularities,
            "draw": self._draw,
            "deal": self._deal,
        }
        if command in simple:
            if words:
                raise ActionInputError(f"{command} takes nothing after it")
            simple[command]()
            return
        if command in SHOE_ACTIONS:
            self.shoe_action(SHOE_ACTIONS[command], words)
            return
        if command in ("irr", "irregularity"):
            if not words:
                raise ActionInputError(
                    "which irregularity?", hint="type 'irregularities' to list them"
                )
            command, words = command_name(words[0]), words[1:]
            if command not in IRREGULARITIES:
                raise ActionInputError(
                    f"there is no irregularity {quoted(command)}",
                    hint="type 'irregularities' to list them",
                )
        spec = ACTIONS.get(command)
        if spec is None:
            raise ActionInputError(
                f"unknown command {quoted(command)}", hint="type help for the commands"
            )
        data = self._arguments(spec, words)
        if spec.irregularity:
            self._prompt_parameters(spec, data)
            if spec.param("withdrawing") is not None and "withdrawing" not in data:
                data["withdrawing"] = self._ask_withdrawing(spec, data)
        _, args = read_action(data, self.seats)
        if spec.irregularity and args.get("withdrawing"):
            check_withdrawing(spec, self._round(), args, args["withdrawing"])
        self._perform(spec, args)

    # -- input -------------------------------------------------------------------------

    def _ask(self, prompt: str) -> str | None:
        """A line of input, or None when input has ended."""
        if self._ended:
            return None
        try:
            return self._input(prompt)
        except EOFError:
            self._ended = True
            return None

    def _prompt(self) -> str:
        r = self.table.round
        if r is None:
            return "table> "
        return f"{r.round_id} {r.phase.value}> "

    def _refuse(self, message: str) -> None:
        mark = "✗ " if self.view.unicode else "x "
        self.console.print(Text.assemble((mark, "bold red"), message))

    def _arguments(self, spec: ActionSpec, words: list[str]) -> dict[str, Any]:
        """The action's JSON form from the words typed after its name."""
        data: dict[str, Any] = {"action": spec.name}
        loose: list[str] = []
        claimed: dict[str, str] = {}  # a claim's procedure's own parameters, as typed
        for word in words:
            key, eq, text = word.partition("=")
            if eq and key:
                param = spec.param(command_name(key))
                if param is None and spec.name == "claim":
                    claimed[command_name(key)] = text
                    continue
                if param is None:
                    raise ActionInputError(
                        f"{spec.name} takes no {key}",
                        hint=f"{spec.name} takes {', '.join(p.name for p in spec.params)}",
                    )
                data[param.name] = value_from_text(param, text)
            elif spec.name == "bet" and word.lower() == "standing":
                data["seated"] = False
            else:
                loose.append(word)
        if spec.name == "card":
            if loose:
                data["cards"] = " ".join(loose)
            data.setdefault("source", "keyed")
            return data
        positional = list(spec.positional)
        if spec.name == "bet" and len(loose) == 3:
            positional = ["player", "wager", "stake"]  # the player's position is known
        if len(loose) > len(positional):
            usage = " ".join(p.upper() for p in positional) or "no arguments"
            raise ActionInputError(f"{spec.name} takes {usage}", hint=f"got {' '.join(loose)}")
        for name, text in zip(positional, loose, strict=False):
            param = spec.param(name)
            assert param is not None
            data[name] = value_from_text(param, text)
        if claimed:
            data["parameters"] = self._claimed(data.get("procedure"), claimed)
        return data

    @staticmethod
    def _claimed(procedure: Any, typed: dict[str, str]) -> dict[str, Any]:
        """``claim foreign_card card=9S by=dan``: the procedure's parameters
        typed after its name, read by the procedure's own kinds."""
        spec = IRREGULARITIES.get(procedure) if isinstance(procedure, str) else None
        if spec is None:
            raise ActionInputError(
                "claim PROCEDURE first, then its parameters",
                hint=f"procedures: {', '.join(IRREGULARITIES)}",
            )
        out: dict[str, Any] = {}
        for key, text in typed.items():
            param = spec.param(key)
            if param is None or param.name == "role":
                raise ActionInputError(
                    f"{spec.name} takes no {key}",
                    hint=f"{spec.name} takes "
                    f"{', '.join(p.name for p in spec.params if p.name != 'role') or 'nothing'}",
                )
            out[param.name] = value_from_text(param, text)
        return out

    def _prompt_parameters(self, spec: ActionSpec, data: dict[str, Any]) -> None:
        """Ask for the acting role and each parameter not given on the command line."""
        self.console.print(f"[bold]{escape(spec.name)}[/]: {escape(spec.summary)}")
        ordered = sorted(spec.params, key=lambda p: p.name != "role")  # who acts, first
        for param in ordered:
            if param.name in data or param.name == "withdrawing":
                continue
            default = self._default(param)
            shown = shown_default(default)
            question = param_question(param) + (f" [{shown}]" if shown is not None else "") + ": "
            while True:
                line = self._ask(question)
                if line is None:
                    raise ActionInputError(f"{spec.name} abandoned: the input ended")
                text = line.strip()
                if not text and (default is not None or not param.required):
                    if default is not None:
                        data[param.name] = default
                    break
                if not text:
                    self._refuse(f"{param.name} is needed: {KIND_HELP[param.kind]}")
                    continue
                try:
                    value = value_from_text(param, text)
                    param.read(value)
                except PuntoError as error:
                    self._refuse(str(error))
                    continue
                data[param.name] = value
                break

    def _ask_withdrawing(self, spec: ActionSpec, data: dict[str, Any]) -> list[str]:
        """The players who take the withdrawal option the procedure gives, if it
        gives one: it is tried first on a copy of the round (a refusal ends
        the command there), and the question is asked only if an option opens."""
        r = self._round()
        _, args = read_action({**data, "withdrawing": []}, self.seats)
        _, offered = trial(spec, r, args)
        if offered is None:
            return []
        eligible = [p for p in r.players if any(b.player == p for b in r.active_bets)]
        self.console.print(
            f"  Every player may withdraw all their wagers (clause {offered.clause}): "
            f"{escape(', '.join(eligible)) or 'nobody has a wager'}."
        )
        while True:
            line = self._ask(
                "players who take the withdrawal option (space-separated, empty for none): "
            )
            if line is None:
                raise ActionInputError(f"{spec.name} abandoned: the input ended")
            players = line.replace(",", " ").split()
            unknown = [p for p in players if p not in eligible]
            if not unknown:
                return players
            self._refuse(
                f"{', '.join(unknown)} {'has' if len(unknown) == 1 else 'have'} no wager to "
                f"withdraw; players with wagers: {', '.join(eligible) or 'none'}"
            )

    def _default(self, param: Param) -> Any:
        """What an empty answer gives (JSON form), if anything."""
        shoe = self.table.shoe
        if param.name == "shoe" and shoe is not None:
            return [str(c) for c in shoe.order]
        if param.name == "discards" and shoe is not None:
            return [str(c) for c in self.table.discards()]
        if param.name == "role" or not param.required:
            default = param.default
            if isinstance(default, Role):
                return default.value
            if isinstance(default, tuple):
                return list(default)
            return default
        return None

    # -- actions -------------------------------------------------------------------------

    def _round(self) -> Round:
        r = self.table.round
        if r is None:
            raise PhaseError("no round has been opened at this table", hint="type open")
        return r

    def _perform(self, spec: ActionSpec, args: Mapping[str, Any]) -> None:
        if spec.name == "method":  # the table's Method, chosen between rounds (3.9.2)
            method = handling.method_named(args["method"])
            self.table.choose_method(method, args["role"])
            self.console.print(f"  Method {method.value} from the next round.")
            return
        if spec.run is None:  # open
            shoes = self.table.shoes
            r = self.table.new_round(args["role"])
            if self.table.shoes != shoes:
                self.console.print(
                    f"[bold]New shoe {self.table.shoe_id}[/]: SHA-256 commitment "
                    f"{self.table.shoe.commitment if self.table.shoe else '-'}"
                )
            self.console.print(f"[bold]Round {r.round_id}[/]: place your bets, please.")
            return
        r = self._round()
        before = len(r.deal.cards)
        result = spec.run(r, args)
        if spec.name == "bet":
            bet = next(b for b in r.bets if b.bet_id == result)
            self._remember_seat(bet.player, bet.position, bet.seated)
            where = "seated" if bet.seated else "standing"
            self.console.print(
                f"  {bet.bet_id}: {escape(bet.player)} ({where}, position {bet.position}) "
                f"{bet.wager} {format_money(bet.stake)}"
            )
        elif spec.name == "insurance":
            bet = next(b for b in r.bets if b.bet_id == result)
            self.console.print(
                f"  {bet.bet_id}: {escape(bet.player)} {bet.wager} {format_money(bet.stake)}"
            )
        elif spec.name == "withdraw":
            self.console.print(f"  Withdrawn: {', '.join(result)}.")
        elif spec.name == "reject_excess":
            cut = ", ".join(result) or "none: the differential is met"
            self.console.print(f"  Excess rejected: {cut}.")
        elif spec.name == "no_more_bets":
            self.console.print("  No more bets.")
        elif spec.name == "withdraw_player":
            self.console.print(
                f"  {escape(args['player'])} takes the option: all their wagers still "
                "undecided are returned."
            )
        elif spec.name == "offer_withdrawal":
            self.console.print(
                "  Every player may withdraw all their wagers still undecided: "
                "[cyan]take PLAYER[/], then "
                "[cyan]close_withdrawal[/]."
            )
        elif spec.name == "close_withdrawal":
            self.console.print("  The withdrawal option is closed; play continues.")
        elif spec.name == "settle":
            self.view.show_settlement(r)
        elif isinstance(result, RulingClaimed):
            self.console.print(
                f"  Claim {escape(result.claim_id)} filed by {escape(result.by)}: "
                f"{escape(result.procedure.replace('_', ' '))} (clause {escape(result.clause)}) "
                f"waits for a {result.confirming.words}'s [cyan]confirm BY role=…[/] "
                "or [cyan]reject_claim BY REASON role=…[/]; the round waits."
            )
        elif isinstance(result, ClaimRejected):
            self.console.print(
                f"  Claim {escape(result.claim_id)} rejected by {escape(result.by)}: nothing "
                "moved; the round goes on."
            )
        elif isinstance(result, Ruling):
            self.view.show_ruling(result)
        elif spec.name in HANDLING and isinstance(r.events[-1], HandlingEvent):
            self.console.print(f"  {escape(handling.describe(r.events[-1]))}.")
        elif spec.name != "card":  # the cards are shown below
            self.console.print(f"  {spec.name.replace('_', ' ').capitalize()}: done.")
        if len(r.deal.cards) != before or spec.name == "card":
            self.view.show_cards(r, before)

    def _draw(self) -> None:
        r = self._round()
        before = len(r.deal.cards)
        self.table.draw()
        self.view.show_cards(r, before)

    def shoe_action(self, spec: ActionSpec, words: list[str]) -> None:
        """``new_shoe`` (once the shoe in use has ended) or ``replace_shoe
        CLAUSE [role=ROLE]`` (where the rules allow it: MBS 5.11.5, 5.12.2,
        5.13; RWS 5.11.2): the replay's actions, on the table's own shoe,
        which it shuffles itself."""
        _, args = read_action(self._arguments(spec, words), self.seats)
        given = [name for name in ("decks", "cards", "seed", "cut_card") if args[name] is not None]
        if given:
            raise ActionInputError(
                f"{spec.name} takes no {', '.join(given)} here: the table shuffles its own "
                f"shoe of {self.table.decks} decks",
                hint="the decks and the cut card are set when the table starts",
            )
        if spec.name == "new_shoe":
            shoe = self.table.new_shoe(args["role"])
            what = f"[bold]New shoe {self.table.shoe_id}[/]"
        else:
            shoe = self.table.replace_shoe(args["role"], args["clause"])
            what = (
                f"[bold]Cards replaced (clause {escape(args['clause'])})[/]: "
                f"new shoe {self.table.shoe_id}"
            )
        # a physical shoe has no order of the table's, so no commitment
        committed = f", SHA-256 commitment {shoe.commitment}" if shoe is not None else ""
        self.console.print(f"{what}{committed}")

    def _deal(self) -> None:
        r = self._round()
        before = len(r.deal.cards)
        self.table.deal_to_completion()
        if len(r.deal.cards) == before:
            r.check_deal_card()
        self.view.show_cards(r, before)

    def _remember_seat(self, player: str, position: int, seated: bool) -> None:
        if player not in self.seats.positions:
            self.seats.add(player, position, seated)

    # -- showing: punto.ui.dealer_console_view ----------------------------------------------

    def show_status(self) -> None:
        """The round beside the scoreboard."""
        self.view.show_status()

    def board(self) -> Scoreboard:
        """The scoreboard of the shoe in play."""
        return self.view.board()

    def show_board(self) -> None:
        self.view.show_board()

    def show_shoe(self) -> None:
        self.view.show_shoe()

    def show_irregularities(self) -> None:
        self.view.show_irregularities()
