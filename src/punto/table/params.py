"""The parameters of table actions: their kinds, and how each kind is read.

A replay file, the dealer console and the table server's irregularity
requests give an action's parameters as JSON values (the console turns what is
typed into them first); :class:`Param` reads each by its kind with the readers
here, which refuse what cannot be read exactly -- money not written as money, a
name that is no name, a count out of range, a card source no table writes --
as an :class:`ActionInputError` naming the parameter and what to give instead.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from punto.errors import PuntoError, WagerError
from punto.inputs import InputError, quoted, read_count, read_name, read_text
from punto.money import parse_amount, parse_stake
from punto.rules.cards import DECK, Card, parse_cards
from punto.rules.coup import Side
from punto.rules.games import all_games
from punto.rules.insurance import Moment
from punto.table.events import CARD_SOURCES
from punto.table.roles import Role

__all__ = [
    "KIND_HELP",
    "ActionInputError",
    "Param",
    "read_flag",
    "read_position",
]


class ActionInputError(InputError):
    """An action that cannot be read: unknown, a field missing or of the wrong kind."""


# -- parameters --------------------------------------------------------------------------------

#: The most decks any game's rules allow in a shoe, and the cards they hold.
_MOST_DECKS = max(game.decks.maximum for game in all_games())
_MOST_CARDS = len(DECK) * _MOST_DECKS
#: The longest a string of cards may be: the largest shoe, each card "10S, ".
_CARDS_TEXT = _MOST_CARDS * 5
#: A number no playing position comes near: one above it is refused as input; the
#: table's own range (its layout's positions) is the round's to check, and to name.
_ABSURD_POSITION = 9999

#: Kinds of parameter, what each accepts in JSON, and how it reads as text at the console.
KIND_HELP: dict[str, str] = {
    "text": "text on one line",
    "text?": "text on one line, or null",
    "name": 'a name, e.g. "ann" (at most 64 characters, no control characters)',
    "int": "a whole number",
    "flag": "true or false",
    "role": "player, dealer, pit_supervisor, pit_manager or shift_manager",
    "stake": 'an amount of money: ASCII digits, at most one decimal point, e.g. "100" or "12.50"',
    "amount": 'an amount of money, 0 or more, e.g. "50"',
    "position": "a playing position: a whole number from 1 (the layout gives the range)",
    "card": 'a card, e.g. "QH", "10S", "TS"',
    "card?": "a card, or null",
    "cards": 'cards in order: "QH 9C" or ["QH", "9C"]',
    "cards?": "cards in order, or null",
    "cards_with_gaps": 'cards in order, null (or "?" in a string) for a card that left the table',
    "shoe": "every card of the decks in use: cards, or a number of complete decks "
    f"(1 to {_MOST_DECKS})",
    "players": 'players: ["ann", "bob"]',
    "players?": "players, or null",
    "moment?": "four_cards or player_third_card, or null",
    "sides?": 'player -> hand: {"ann": "player"}, or null',
    "bet_id": 'a bet id, e.g. "b2"',
    "source": f"where the card came from: {', '.join(sorted(CARD_SOURCES))}",
    "parameters": 'a procedure\'s parameters as an object, e.g. {"card": "QH"}',
}


@dataclass(frozen=True)
class Param:
    """One parameter of an action."""

    name: str
    kind: str
    required: bool = False
    #: the value when it is not given (already converted)
    default: Any = None

    def read(self, value: Any) -> Any:
        """The JSON ``value`` as the Python value the action takes."""
        if value is None and (self.kind.endswith("?") or self.kind == "cards_with_gaps"):
            return None
        try:
            return _READERS[self.kind](value)
        except PuntoError as error:
            raise ActionInputError(
                f"{self.name}: {error.message}", clause=error.clause, hint=error.hint
            ) from None
        except (TypeError, ValueError, AttributeError, InvalidOperation):
            raise ActionInputError(
                f"{self.name}: cannot read {quoted(value)}", hint=f"give {KIND_HELP[self.kind]}"
            ) from None


def _int(value: Any) -> int:
    # the one count an action takes is of cards (insufficient_cards' remaining):
    # none is below 0, nor above the cards of the largest shoe
    return read_count(value, most=_MOST_CARDS)


def read_position(value: Any) -> int:
    return read_count(value, least=1, most=_ABSURD_POSITION)


def read_flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(value)
    return value


def _money(value: Any) -> Decimal:
    # A JSON number with a fraction arrives as a Decimal (or a float from Python):
    # money in a file is a string or a whole number, so that no reader anywhere
    # can take it for a binary float.
    if isinstance(value, bool) or not isinstance(value, int | str):
        shown = format(value, "f") if isinstance(value, Decimal) and value.is_finite() else None
        raise WagerError(
            f"money {quoted(value)} is not a string or a whole number",
            hint=f'write it as a string, e.g. "{shown}"' if shown else 'write it like "12.50"',
        )
    return parse_stake(value)


def _amount(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return _money(value)  # which refuses it, saying how money is written
    return parse_amount(value)


def _card(value: Any) -> Card:
    return Card.parse(read_text(value))


def _cards(value: Any) -> tuple[Card, ...]:
    if isinstance(value, str):
        cards = parse_cards(read_text(value, longest=_CARDS_TEXT))
    elif isinstance(value, list | tuple):
        cards = tuple(_card(v) for v in value[: _MOST_CARDS + 1])
    else:
        raise TypeError(value)
    _few_enough(len(value) if isinstance(value, list | tuple) else len(cards))
    return cards


def _few_enough(count: int) -> None:
    if count > _MOST_CARDS:
        raise ActionInputError(
            f"{count} cards are more than any shoe holds",
            hint=f"no game deals from more than {_MOST_CARDS} cards ({_MOST_DECKS} decks)",
        )


def _cards_with_gaps(value: Any) -> tuple[Card | None, ...]:
    text = read_text(value, longest=_CARDS_TEXT) if isinstance(value, str) else None
    items = text.replace(",", " ").split() if text is not None else value
    if not isinstance(items, list | tuple):
        raise TypeError(value)
    _few_enough(len(items))
    return tuple(None if v is None or v == "?" else _card(v) for v in items)


def _shoe(value: Any) -> tuple[Card, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        # No game deals from more decks than this (2.1; RWS 2.2.1): a larger number is a
        # mistake, and building it would take memory without bound.
        if not 1 <= value <= _MOST_DECKS:
            raise ValueError(value)
        return DECK * value
    return _cards(value)


def _players(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (read_name(value),)
    if not isinstance(value, list | tuple):
        raise TypeError(value)
    if len(value) > _ABSURD_POSITION:
        raise ActionInputError(f"{len(value)} players are more than a table seats")
    return tuple(read_name(v) for v in value)


def _sides(value: Any) -> dict[str, Side]:
    if not isinstance(value, Mapping):
        raise TypeError(value)
    return {read_name(player): Side(read_text(side)) for player, side in value.items()}


def _parameters(value: Any) -> dict[str, Any]:
    """A procedure's parameters, as a claim files them: an object of at most
    a few dozen named values (read by the procedure's own parameters later)."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ActionInputError(
            f"{quoted(value)} is not an object of parameters", hint='give {"card": "QH"}'
        )
    if len(value) > 32:
        raise ActionInputError(f"{len(value)} parameters: a procedure takes a few")
    return dict(value)


def _source(value: Any) -> str:
    if value not in CARD_SOURCES:
        raise ActionInputError(
            f"there is no card source {quoted(value)}",
            hint=f"give one of {', '.join(sorted(CARD_SOURCES))}",
        )
    return typing.cast(str, value)


_READERS: dict[str, Callable[[Any], Any]] = {
    "text": read_text,
    "text?": read_text,
    "name": read_name,
    "int": _int,
    "flag": read_flag,
    "role": lambda v: Role(read_text(v)),
    "stake": _money,
    "amount": _amount,
    "position": read_position,
    "card": _card,
    "card?": _card,
    "cards": _cards,
    "cards?": _cards,
    "cards_with_gaps": _cards_with_gaps,
    "shoe": _shoe,
    "players": _players,
    "players?": _players,
    "moment?": lambda v: Moment(read_text(v)),
    "sides?": _sides,
    "bet_id": read_name,
    "source": _source,
    "parameters": _parameters,
}
