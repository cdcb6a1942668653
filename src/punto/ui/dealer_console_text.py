"""The dealer console's words: short names for actions, the help, and reading
a role or a parameter's value from what is typed (:mod:`punto.ui.dealer_console`).
"""

from __future__ import annotations

from typing import Any

from punto.rules.game import Game
from punto.table.replay import (
    KIND_HELP,
    ActionInputError,
    Param,
)
from punto.table.roles import Role

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


TRUE_WORDS = {"y", "yes", "true", "1", "on"}


FALSE_WORDS = {"n", "no", "false", "0", "off"}


NONE_WORDS = {"none", "null", "-"}


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
  [cyan]claim NAME by=WHO [key=value ...][/]  file a ruling that moves money for a second person (MBS 6.2)
  [cyan]confirm WHO role=ROLE[/] · [cyan]reject_claim WHO REASON role=ROLE[/]  another person decides it
  [cyan]take PLAYER[/] / [cyan]close_withdrawal[/]      a player takes an open withdrawal option / it closes
  [cyan]replace_shoe CLAUSE[/]               the cards replaced where the rules allow (e.g. 5.11.5, RWS 5.11.2)
  [cyan]new_shoe[/]                          a new shoe, once the cut card has ended the one in use
[bold]Settling and showing[/]
  [cyan]settle[/]                            announce the outcome; collect and pay
  [cyan]status[/] · [cyan]board[/] · [cyan]shoe[/] · [cyan]help[/] · [cyan]quit[/] (end of input does the same)
Any command takes [cyan]role=ROLE[/] for the person acting, and [cyan]key=value[/] for any parameter."""


def default_table_id(game: Game, layout: str | None) -> str:
    """The id a table's events are logged under: its game and layout."""
    return game.id + (f"/{layout}" if layout else "")


def command_name(word: str) -> str:
    return word.strip().lower().replace("-", "_")


def read_role(text: str) -> Role:
    try:
        return Role(command_name(text).replace(" ", "_"))
    except ValueError:
        raise ActionInputError(
            f"no role {text!r}", hint=", ".join(r.value for r in Role if r is not Role.PLAYER)
        ) from None


def param_question(param: Param) -> str:
    if param.name == "role":
        return "acting role (dealer, pit_supervisor, pit_manager, shift_manager)"
    return f"{param.name} ({KIND_HELP[param.kind]})"


def shown_default(default: Any) -> str | None:
    if default is None:
        return None
    if isinstance(default, bool):
        return "yes" if default else "no"
    if isinstance(default, list):
        if len(default) > 12:
            return f"{len(default)} cards of the table's shoe"
        return " ".join(str(v) for v in default) or "none"
    return str(default)


def value_from_text(param: Param, text: str) -> Any:
    """What a typed answer means, in the JSON form the action reads."""
    text = text.strip()
    kind = param.kind
    if text.lower() in NONE_WORDS and (kind.endswith("?") or kind == "players"):
        return [] if kind == "players" else None
    if kind == "flag":
        if text.lower() in TRUE_WORDS:
            return True
        if text.lower() in FALSE_WORDS:
            return False
        raise ActionInputError(f"{param.name}: answer yes or no, not {text!r}")
    if kind in ("int", "position"):
        return text  # the action reads it: ASCII digits, in range
    if kind == "shoe" and text.isascii() and text.isdigit():
        return int(text) if len(text) <= 9 else text  # a number of decks; the action checks it
    if kind in ("players", "players?"):
        return text.replace(",", " ").split()
    if kind == "role":
        return command_name(text).replace(" ", "_")
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
