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
>>> from punto.games import get_game
>>> from punto.playtable import console_input
>>> from punto.store import MemoryEventLog
>>> from punto.table.limits import TableLimits
>>> out = Console(file=io.StringIO(), width=120)
>>> script = io.StringIO("open\\nbet ann 1 banker 100\\nfoo\\nclose\\ndeal\\nsettle\\n")
>>> desk = DealerConsole(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)),
...                      log=MemoryEventLog(), seed=1, console=out,
...                      input_fn=console_input(out, script))
>>> desk.run(), desk.table.round.phase.value
(0, 'settled')
>>> "unknown command 'foo'" in out.file.getvalue()
True
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from punto.cards import DECK, Card, format_cards
from punto.errors import PhaseError, PuntoError, ShoeError
from punto.game import Game
from punto.inputs import quoted
from punto.money import format_money
from punto.roads import Scoreboard
from punto.table import handling
from punto.table.events import HandlingEvent, RoundOpened, ShoeStarted
from punto.table.irregularities import Ruling
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.log import EventLog
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
from punto.table.round import Phase, Round
from punto.wagers import PairRule

__all__ = ["DealerConsole", "InputFn"]

#: Reads one line after showing a prompt; raises EOFError when input ends.
InputFn = Callable[[str], str]

#: Short names for actions at the console.
ALIASES = {
    "close": "no_more_bets",
    "nmb": "no_more_bets",
    "key": "card",
    "cards": "card",
    "insure": "insurance",
    "take": "withdraw_player",
    "reject": "reject_excess",
}

_TRUE = {"y", "yes", "true", "1", "on"}
_FALSE = {"n", "no", "false", "0", "off"}
_NONE = {"none", "null", "-"}

HELP = """\
[bold]Betting[/]
  [cyan]open[/]                              'Place your bets, please': a new round (a new shoe when due)
  [cyan]bet PLAYER [POSITION] WAGER STAKE[/] a bet at a position ([cyan]standing[/] for a standing player;
                                    the position may be left out once the player has one)
  [cyan]withdraw BET_ID[/]                   a bet taken back before 'No more bets'
  [cyan]reduce BET_ID STAKE[/]               a bet decreased to meet the differential (role=pit_manager, 0: removed)
  [cyan]reject[/]                            the excess over the differential rejected (RWS 5.1)
  [cyan]close[/]                             'No more bets' ([cyan]differential_noticed=no[/]: an excess nobody noticed)
[bold]Cards[/]
  [cyan]draw[/]                              the next card from the table's shoe
  [cyan]deal[/]                              draw until the coup is complete or an Insurance window opens
  [cyan]card QH [9C ...][/]                  cards keyed in from a physical shoe
  [cyan]insure PLAYER WAGER STAKE[/]         Insurance Plus while its window is open (Tiger Buffalo)
[bold]Card handling[/] (Tiger Baccarat, Dragon Tiger 3.9-3.12)
  [cyan]method A|B|C role=ROLE[/]            the Method from the next round (Pit Manager; C: Assistant Casino Manager, HLGA)
  [cyan]pass_cards HAND[/] · [cyan]refuse_cards PLAYER HAND[/]  Method A: a hand's cards to the highest bettor / refused
  [cyan]choose_squeezer HAND PLAYER role=ROLE[/]     Method A: a Pit Supervisor's (3.10.4.1) or Pit Manager's choice
  [cyan]take_device PLAYER[/] · [cyan]relinquish_device PLAYER[/] · [cyan]allow_draw PLAYER role=ROLE[/]  Method C
[bold]Irregularities[/]
  [cyan]irregularities[/]                    the procedures of sections 5 and 6
  [cyan]irr NAME [key=value ...][/]          run one: asks for the acting role and each parameter
  [cyan]take PLAYER[/] / [cyan]close_withdrawal[/]      a player takes an open withdrawal option / it closes
  [cyan]replace_shoe CLAUSE[/]               the cards replaced where the rules allow (e.g. 5.11.5, RWS 5.11.2)
  [cyan]new_shoe[/]                          a new shoe, once the cut card has ended the one in use
[bold]Settling and showing[/]
  [cyan]settle[/]                            announce the outcome; collect and pay
  [cyan]status[/] · [cyan]board[/] · [cyan]shoe[/] · [cyan]help[/] · [cyan]quit[/] (end of input does the same)
Any command takes [cyan]role=ROLE[/] for the person acting, and [cyan]key=value[/] for any parameter."""


class DealerConsole:
    """One table, run by a person at a terminal until they quit."""

    def __init__(
        self,
        game: Game,
        *,
        limits: TableLimits,
        log: EventLog,
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
        game.decks.check(decks)
        total = len(DECK) * decks
        if not 0 <= cut_card <= total:
            # refused before the session starts: the first 'open' would find it
            raise ShoeError(
                f"the cut card cannot go {cut_card} cards from the end of a shoe of {total} cards",
                hint=f"choose from 0 to {total} cards behind the cut card",
            )
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
        self._unicode = console.encoding.lower().startswith("utf")

    # -- the session -----------------------------------------------------------------

    def run(self) -> int:
        """Take commands until ``quit`` or the end of input; 0 when it ends normally."""
        self._welcome()
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
            command = _name(words[0])
            if command in ("quit", "exit", "q"):
                break
            try:
                self.command(command, words[1:])
            except PuntoError as error:
                self._refuse(str(error))
        self._goodbye()
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
            command, words = _name(words[0]), words[1:]
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
        mark = "✗ " if self._unicode else "x "
        self.console.print(Text.assemble((mark, "bold red"), message))

    def _arguments(self, spec: ActionSpec, words: list[str]) -> dict[str, Any]:
        """The action's JSON form from the words typed after its name."""
        data: dict[str, Any] = {"action": spec.name}
        loose: list[str] = []
        for word in words:
            key, eq, text = word.partition("=")
            if eq and key:
                param = spec.param(_name(key))
                if param is None:
                    raise ActionInputError(
                        f"{spec.name} takes no {key}",
                        hint=f"{spec.name} takes {', '.join(p.name for p in spec.params)}",
                    )
                data[param.name] = _from_text(param, text)
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
            data[name] = _from_text(param, text)
        return data

    def _prompt_parameters(self, spec: ActionSpec, data: dict[str, Any]) -> None:
        """Ask for the acting role and each parameter not given on the command line."""
        self.console.print(f"[bold]{escape(spec.name)}[/]: {escape(spec.summary)}")
        ordered = sorted(spec.params, key=lambda p: p.name != "role")  # who acts, first
        for param in ordered:
            if param.name in data or param.name == "withdrawing":
                continue
            default = self._default(param)
            shown = _shown(default)
            question = _question(param) + (f" [{shown}]" if shown is not None else "") + ": "
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
                    value = _from_text(param, text)
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
            self._show_settlement(r)
        elif isinstance(result, Ruling):
            self._show_ruling(result)
        elif spec.name in HANDLING and isinstance(r.events[-1], HandlingEvent):
            self.console.print(f"  {escape(handling.describe(r.events[-1]))}.")
        elif spec.name != "card":  # the cards are shown below
            self.console.print(f"  {spec.name.replace('_', ' ').capitalize()}: done.")
        if len(r.deal.cards) != before or spec.name == "card":
            self._show_cards(r, before)

    def _draw(self) -> None:
        r = self._round()
        before = len(r.deal.cards)
        self.table.draw()
        self._show_cards(r, before)

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
        self._show_cards(r, before)

    def _remember_seat(self, player: str, position: int, seated: bool) -> None:
        if player not in self.seats.positions:
            self.seats.add(player, position, seated)

    # -- showing -------------------------------------------------------------------------

    def _welcome(self) -> None:
        game, table = self.game, self.table
        self.console.rule(f"[bold]{escape(game.title)}[/] · dealer console")
        limits = table.limits
        text = (
            f"Table {escape(table.table_id)}"
            + (f" · layout {table.layout}" if table.layout else "")
            + f" · limits {format_money(limits.minimum)} to {format_money(limits.maximum)}"
            + (
                f", differential {format_money(limits.differential)}"
                if limits.differential is not None
                else ""
            )
            + f" · {table.decks} decks"
        )
        self.console.print(text)
        self.console.print(
            f"Event log: {escape(self.where)}" if self.where else "Event log: in memory"
        )
        if table.rounds:
            r = table.rounds[-1]
            self.console.print(
                f"[bold]Resumed[/]: {len(table.rounds)} rounds on the log; round {r.round_id} "
                f"is {r.phase.value}."
            )
            if table.recovered is not None:
                self._show_recovery(r, table.recovered)
            self.show_status()
        self.console.print("Type [cyan]help[/] for the commands.")

    def _show_recovery(self, r: Round, recovered: str) -> None:
        clause = self.game.clause("power_failure") or "-"
        if r.withdrawal_open is not None:
            clause = r.withdrawal_open.clause
        elif r.void is not None:
            clause = r.void.clause
        if recovered == "withdrawal":
            self.console.print(
                f"  The round was being dealt when the console stopped: handled as a power "
                f"failure with no outcome established (clause {clause}). Players may withdraw "
                f"all their wagers: [cyan]take PLAYER[/], then [cyan]close_withdrawal[/]."
            )
        elif recovered == "void":
            self.console.print(
                f"  The round was being dealt when the console stopped: handled as a power "
                f"failure with no outcome established; the round is void (clause {clause})."
            )
        else:
            self.console.print(
                "  The round was being dealt when the console stopped: handled as a power "
                "failure; play continues and the round is concluded."
            )

    def _goodbye(self) -> None:
        r = self.table.round
        self.console.print()
        in_play = r is not None and r.phase not in (Phase.SETTLED, Phase.VOID)
        if r is None or not in_play:
            pass
        elif not self.where:
            self.console.print(f"Round {r.round_id} is {r.phase.value}; it is not kept.")
        elif r.phase is Phase.DEALING:
            clause = self.game.clause("power_failure") or "no clause"
            self.console.print(
                f"Round {r.round_id} is being dealt: started again on this log, the console "
                f"handles it as a power failure ({clause})."
            )
        else:
            self.console.print(f"Round {r.round_id} is {r.phase.value}; the log keeps it.")
        self.console.print(
            "The console closes." + ("" if self.where else " (The log was in memory.)")
        )

    def _show_cards(self, r: Round, before: int) -> None:
        deal = r.deal
        new = deal.cards[before:]
        if new:
            self.console.print(
                f"  Cards: {self._cards(new)}  ·  Player {self._cards(deal.player.cards)} = "
                f"{deal.player.total} · Banker {self._cards(deal.banker.cards)} = {deal.banker.total}"
            )
        if self.table.cut_card_out:
            self.console.print(
                "  [yellow]The cut card has come out[/]: this round is completed and is the last "
                "of the shoe."
            )
        if not deal.cards and r.withdrawal_open is not None:
            self.console.print(
                f"  The cut card came out first (clause {r.withdrawal_open.clause}): players may "
                "withdraw all their wagers: [cyan]take PLAYER[/], then [cyan]close_withdrawal[/]."
            )
        if deal.is_complete:
            coup = deal.to_coup()
            won = coup.winner.value
            verdict = "Tie" if won == "tie" else f"{won.title()} wins"
            self.console.print(
                f"  [bold]{verdict}[/] (Player {coup.player.total}, Banker {coup.banker.total}); "
                f"type [cyan]settle[/]."
            )
        self._show_insurance(r)

    def _show_insurance(self, r: Round) -> None:
        offers = r.insurance_offers()
        if not offers:
            return
        self.console.print(
            "  [bold magenta]Insurance Plus window open[/] (the next card closes it):"
        )
        for offer in offers:
            players = [p for p in r.players if r.original_bet(p, offer.insures) > 0]
            caps = ", ".join(
                f"{escape(p)} up to {format_money(r.insurance_cap(p, offer))}" for p in players
            )
            self.console.print(
                f"    {escape(str(offer))} (clause {escape(offer.row.clause)}): "
                f"{caps or 'nobody has an Original Bet on that hand'}"
            )
        wager = f"{offers[0].insures.value}_insurance"
        self.console.print(f"    Record with [cyan]insure PLAYER {wager} STAKE[/].")

    def _show_ruling(self, ruling: Ruling) -> None:
        text = f"  Ruling (clause {ruling.clause}): [bold]{ruling.consequence}[/]"
        if ruling.withdrawn:
            text += f"; withdrawn: {escape(', '.join(ruling.withdrawn))}"
        if ruling.returned:
            text += f"; returned: {', '.join(ruling.returned)}"
        self.console.print(text)
        for label, cards in (
            ("held for the next round (dealt first)", ruling.next_round),
            ("missing, replaced", ruling.missing),
            ("set aside, unused", ruling.unused),
        ):
            if cards:
                self.console.print(f"  Cards {label}: {format_cards(cards)}")
        r = self.table.round
        if r is not None and r.phase is Phase.VOID and r.void is not None:
            self.console.print(f"  Round {r.round_id} is void: every bet is returned.")
        self._show_replacement()

    def _show_replacement(self) -> None:
        due = self.table.replacement_due
        if due is not None:
            self.console.print(
                f"  [yellow]The cards must be replaced before the next round[/] (clause {due}): "
                f"[cyan]replace_shoe {due}[/]."
            )

    def _show_settlement(self, r: Round) -> None:
        grid = Table(title=f"Round {r.round_id} settled", title_justify="left", show_edge=False)
        for column in ("bet", "player", "wager", "stake", "outcome", "event", "settled on", "net"):
            grid.add_column(column, justify="right" if column in ("stake", "net") else "left")
        for s in r.results():
            grid.add_row(
                s.bet.bet_id,
                s.bet.player,
                s.bet.wager,
                format_money(s.bet.stake),
                s.outcome + (f" ({s.clause})" if s.clause else ""),
                s.event or "-",
                format_money(s.settled_stake),
                _signed(s.net),
            )
        self.console.print(grid)
        nets = ", ".join(f"{escape(p)} {_signed(n)}" for p, n in r.nets().items())
        self.console.print(f"  Players: {nets or 'no bets'} · house {_signed(r.house_net())}")
        if self.table.shoe_finished:
            self.console.print(
                "  The shoe has ended (the cut card came out): [cyan]open[/] starts a new shoe."
            )
        self.show_status()

    def show_status(self) -> None:
        """The round beside the scoreboard."""
        grid = Table.grid(padding=(0, 2))
        grid.add_column()
        grid.add_column()
        grid.add_row(
            Panel(self._round_view(), title="Round", title_align="left"),
            Panel(Text(self.board().render(width=12)), title="Scoreboard", title_align="left"),
        )
        self.console.print(grid)

    def _round_view(self) -> Group:
        r = self.table.round
        if r is None:
            return Group(Text("No round yet: type open."))
        lines: list[Text | Table] = [Text(f"{r.round_id} · {r.phase.value}", style="bold")]
        if r.bets:
            bets = Table(show_edge=False, box=None, padding=(0, 1))
            for column in ("bet", "player", "pos", "wager", "stake", "status"):
                bets.add_column(column, justify="right" if column == "stake" else "left")
            ended = (
                {s.bet.bet_id: s for s in r.results()}
                if r.phase in (Phase.SETTLED, Phase.VOID)
                else {}
            )
            for b in r.bets:
                status = b.status + (f" ({b.clause})" if b.clause else "")
                if b.bet_id in ended:
                    end = ended[b.bet_id]
                    status = f"{end.outcome} {_signed(end.net)}" + (
                        f" ({end.clause})" if end.clause else ""
                    )
                bets.add_row(
                    b.bet_id,
                    b.player,
                    str(b.position) + ("" if b.seated else " st"),
                    b.wager + (f" @{b.moment.value}" if b.moment else ""),
                    format_money(b.stake),
                    status,
                )
            lines.append(bets)
        else:
            lines.append(Text("No bets."))
        deal = r.deal
        if deal.cards:
            lines.append(
                Text(
                    f"Player {self._cards(deal.player.cards)} = {deal.player.total}\n"
                    f"Banker {self._cards(deal.banker.cards)} = {deal.banker.total}"
                )
            )
        if r.withdrawal_open is not None:
            lines.append(
                Text(
                    f"Withdrawal option open (clause {r.withdrawal_open.clause}): take PLAYER, "
                    "then close_withdrawal",
                    style="yellow",
                )
            )
        if (handled := handling.describe_round(r)) is not None:
            lines.append(Text(handled))
        for note in r.irregularities:
            lines.append(Text(f"{note.clause}: {note.reason}", style="dim"))
        if r.void is not None:
            lines.append(Text(f"Void ({r.void.clause}): {r.void.reason}", style="red"))
        return Group(*lines)

    def board(self) -> Scoreboard:
        """The scoreboard of the current shoe: its settled rounds, in order."""
        board = Scoreboard(pair_rule=self.table.pair_rule)
        by_id = {r.round_id: r for r in self.table.rounds}
        for round_id in self._shoe_rounds():
            r = by_id.get(round_id)
            if r is not None and r.phase is Phase.SETTLED:
                board.add(r.deal.to_coup())
        return board

    def _shoe_rounds(self) -> list[str]:
        ids: list[str] = []
        for stored in self.table.log.read(self.table.table_id):
            if isinstance(stored.event, ShoeStarted):
                ids = []
            elif isinstance(stored.event, RoundOpened):
                ids.append(stored.round_id)
        return ids

    def show_board(self) -> None:
        self.console.print(Text(self.board().render()))

    def show_shoe(self) -> None:
        shoe = self.table.shoe
        if shoe is None:
            self.console.print("No shoe yet: the first open shuffles one.")
            return
        cut = "" if shoe.cut_card is None else f", cut card after {shoe.cut_card} cards"
        self.console.print(
            f"Shoe {self.table.shoe_id}: {len(shoe)} cards left of {len(shoe.order)}{cut}"
            + (" (the cut card has come out)" if self.table.cut_card_out else "")
        )
        self.console.print(f"  SHA-256 commitment: {shoe.commitment}")
        if self.table.held:
            self.console.print(
                f"  Held for the next round, dealt first: {format_cards(self.table.held)}"
            )
        if self.table.replacement_due is not None:
            self.console.print(
                "  The cards are replaced before the next round: "
                f"[cyan]replace_shoe {self.table.replacement_due}[/]"
            )

    def show_irregularities(self) -> None:
        grid = Table(title="Irregularities", title_justify="left", show_edge=False)
        grid.add_column("name")
        grid.add_column("parameters")
        grid.add_column("what it is", overflow="fold")
        for spec in IRREGULARITIES.values():
            params = " ".join(
                p.name if p.required else f"[{p.name}]" for p in spec.params if p.name != "role"
            )
            grid.add_row(spec.name, escape(params), escape(spec.summary))
        self.console.print(grid)

    def _cards(self, cards: Iterable[Card]) -> str:
        return " ".join(c.pretty() if self._unicode else str(c) for c in cards) or "-"


def default_table_id(game: Game, layout: str | None) -> str:
    """The id a table's events are logged under: its game and layout."""
    return game.id + (f"/{layout}" if layout else "")


def _name(word: str) -> str:
    return word.strip().lower().replace("-", "_")


def _signed(amount: Decimal) -> str:
    return f"+{format_money(amount)}" if amount > 0 else format_money(amount)


def _read_role(text: str) -> Role:
    try:
        return Role(_name(text).replace(" ", "_"))
    except ValueError:
        raise ActionInputError(
            f"no role {text!r}", hint=", ".join(r.value for r in Role if r is not Role.PLAYER)
        ) from None


def _question(param: Param) -> str:
    if param.name == "role":
        return "acting role (dealer, pit_supervisor, pit_manager, shift_manager)"
    return f"{param.name} ({KIND_HELP[param.kind]})"


def _shown(default: Any) -> str | None:
    if default is None:
        return None
    if isinstance(default, bool):
        return "yes" if default else "no"
    if isinstance(default, list):
        if len(default) > 12:
            return f"{len(default)} cards of the table's shoe"
        return " ".join(str(v) for v in default) or "none"
    return str(default)


def _from_text(param: Param, text: str) -> Any:
    """What a typed answer means, in the JSON form the action reads."""
    text = text.strip()
    kind = param.kind
    if text.lower() in _NONE and (kind.endswith("?") or kind == "players"):
        return [] if kind == "players" else None
    if kind == "flag":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ActionInputError(f"{param.name}: answer yes or no, not {text!r}")
    if kind in ("int", "position"):
        return text  # the action reads it: ASCII digits, in range
    if kind == "shoe" and text.isascii() and text.isdigit():
        return int(text) if len(text) <= 9 else text  # a number of decks; the action checks it
    if kind in ("players", "players?"):
        return text.replace(",", " ").split()
    if kind == "role":
        return _name(text).replace(" ", "_")
    if kind == "sides?":
        sides: dict[str, str] = {}
        for item in text.replace(",", " ").split():
            player, colon, side = item.partition(":")
            if not colon:
                raise ActionInputError(
                    f"{param.name}: {item!r} is not PLAYER:HAND", hint="e.g. ann:player bob:banker"
                )
            sides[player] = side.lower()
        return sides
    return text
