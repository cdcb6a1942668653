"""Immutable records with a JSON form that round-trips: the codec behind
table events and tournament events.

A codec keeps a registry of record types by name.  Fields are read back by
their type hints -- ``Decimal`` from a string, ``Card`` from its text, an
enum from its value, tuples and nested records recursively -- and a value of
the wrong kind is refused with the path to it, never coerced.

>>> import dataclasses
>>> class Note:
...     type = "note"
>>> codec = RecordCodec(Note, PuntoError, "note")
>>> @codec.register("stake_noted")
... @dataclasses.dataclass(frozen=True)
... class StakeNoted(Note):
...     stake: Decimal
...     card: Card | None = None
>>> codec.to_json(StakeNoted(Decimal("12.50"), Card.parse("QH")))
{'type': 'stake_noted', 'stake': '12.50', 'card': 'QH'}
>>> codec.from_json({"type": "stake_noted", "stake": 12.5})
Traceback (most recent call last):
...
punto.errors.PuntoError: stake_noted.stake: expected a decimal string, got 12.5
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, Generic, TypeVar, Union

from punto.errors import CardError, PuntoError
from punto.rules.cards import DECK, Card

R = TypeVar("R")
_T = TypeVar("_T")


class RecordCodec(Generic[R]):
    """The registry and JSON codec of one family of records."""

    def __init__(self, base: type[R], error: type[PuntoError], what: str) -> None:
        self.base = base
        self.error = error
        self.what = what
        self.types: dict[str, type[R]] = {}
        self._field_readers: dict[Any, tuple[tuple[str, _Reader], ...]] = {}

    def register(self, name: str) -> Callable[[type[_T]], type[_T]]:
        """Class decorator: the record type known by ``name``."""

        def register(cls: type[_T]) -> type[_T]:
            if name in self.types:
                raise ValueError(f"{self.what} type {name!r} is registered twice")
            cls.type = name  # type: ignore[attr-defined]
            self.types[name] = cls  # type: ignore[assignment]
            return cls

        return register

    def to_json(self, record: R) -> dict[str, Any]:
        out: dict[str, Any] = {"type": getattr(record, "type")}  # noqa: B009
        out.update(_dump(record))
        return out

    def from_json(self, data: Any) -> R:
        try:
            cls = self.types[data["type"]]
        except (KeyError, TypeError):
            raise self.error(
                f"not a {self.what}: {data!r}", hint=f"type is one of {', '.join(self.types)}"
            ) from None
        return self._record(cls, data, data["type"])

    def _record(self, cls: type[_T], data: Any, where: str) -> _T:
        if not isinstance(data, dict):
            raise self.error(f"{where}: expected an object, got {data!r}")
        kwargs = {
            name: None if (value := data[name]) is None else read(value, f"{where}.{name}")
            for name, read in self._fields(cls)
            if name in data
        }
        try:
            return cls(**kwargs)
        except TypeError as missing:
            raise self.error(f"{where}: {missing}") from None

    # Restarting a table reads every event of its log back: how to read each
    # field is worked out once per record type, not once per value.

    def _fields(self, cls: Any) -> tuple[tuple[str, _Reader], ...]:
        fields = self._field_readers.get(cls)
        if fields is None:
            fields = tuple((name, self._reader(hint)) for name, hint in _field_hints(cls))
            self._field_readers[cls] = fields
        return fields

    def _reader(self, hint: Any) -> _Reader:
        """How to read a value of type ``hint`` other than None (None is read as
        None whatever the hint, by the reader's caller)."""
        options = (
            typing.get_args(hint)
            if typing.get_origin(hint) in (Union, types.UnionType)
            else (hint,)
        )
        target = next(t for t in options if t is not type(None))
        error = self.error
        if typing.get_origin(target) is tuple:
            read_item = self._reader(typing.get_args(target)[0])

            def read_tuple(value: Any, where: str) -> Any:
                if not isinstance(value, list | tuple):
                    raise error(f"{where}: expected a list, got {value!r}")
                return tuple(None if v is None else read_item(v, where) for v in value)

            return read_tuple
        if target is Card:

            def read_card(value: Any, where: str) -> Any:
                written = _WRITTEN_CARDS.get(value) if isinstance(value, str) else None
                if written is not None:
                    return written
                try:
                    return Card.parse(str(value))
                except CardError as bad:
                    raise error(f"{where}: {bad}") from None

            return read_card
        if isinstance(target, type) and dataclasses.is_dataclass(target):
            return lambda value, where: self._record(target, value, where)
        if target is Decimal:

            def read_decimal(value: Any, where: str) -> Any:
                if not isinstance(value, str | int) or isinstance(value, bool):
                    raise error(f"{where}: expected a decimal string, got {value!r}")
                try:
                    return Decimal(str(value))
                except InvalidOperation:
                    raise error(f"{where}: cannot read {value!r} as an amount") from None

            return read_decimal
        if isinstance(target, type) and issubclass(target, enum.Enum):
            members = target

            def read_enum(value: Any, where: str) -> Any:
                try:
                    return members(value)
                except ValueError:
                    known = ", ".join(str(m.value) for m in members)
                    raise error(f"{where}: {value!r} is not one of {known}") from None

            return read_enum
        expected = {bool: "true or false", int: "a whole number", str: "a string"}[target]

        def read_plain(value: Any, where: str) -> Any:
            if not isinstance(value, target) or (target is int and isinstance(value, bool)):
                raise error(f"{where}: expected {expected}, got {value!r}")
            return value

        return read_plain


#: Each card as records write it (``"QH"``), read back without parsing.
_WRITTEN_CARDS = {str(card): card for card in DECK}

#: Reads one JSON value as a field's type: (value, its path for errors) -> the value.
_Reader = Callable[[Any, str], Any]


#: Values written as they are (by their exact type: an enum of str or int is not one).
_PLAIN = frozenset({str, int, bool, float, type(None)})


def _dump(value: Any) -> Any:
    # Every event of every bet is written through here: the common cases first,
    # and a record's field names looked up once per type.
    kind: Any = type(value)
    if kind in _PLAIN:
        return value
    if isinstance(value, tuple):
        return [_dump(v) for v in value]
    if isinstance(value, Decimal | Card):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    names = _field_names(kind)
    if names is not None:
        return {name: _dump(getattr(value, name)) for name in names}
    return value


@functools.cache
def _field_names(cls: Any) -> tuple[str, ...] | None:
    """A dataclass's field names, in order; None for any other type."""
    if not dataclasses.is_dataclass(cls):
        return None
    return tuple(f.name for f in dataclasses.fields(cls))


@functools.cache
def _field_hints(cls: Any) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))
