"""Facts about the table that some clauses are conditioned on.

A few procedures apply only at some tables: MBS 5.9 (Tiger Baccarat,
Dragon Tiger) "in the event that an electronic dealing device is in use",
RWS 5.10 (Tiger Buffalo) "on specific tables where the cards are dealt face
down".  A table records these facts as options (like HLGA): the live table
from its card source and its settings, a replay file in its header, the
server in the table's configuration.  A round carries the facts of the
table it is played at (:attr:`punto.table.round.Round.table_facts`), and a
procedure conditioned on one is refused at a table without it, naming the
clause (docs/interpretations.md, "Table facts").

>>> from decimal import Decimal
>>> from punto.rules.games import get_game
>>> from punto.table.limits import TableLimits
>>> from punto.table.round import Round
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(1000)))
>>> check_table_fact(r, "electronic_device", "5.9")
Traceback (most recent call last):
...
punto.errors.ActionError: 5.9 applies where an electronic dealing device is in use, and this table records none (clause 5.9); a table dealing from its own shuffled shoe or a card-reading device has one; a replay file declares it with "electronic_device": true
>>> Round(r.game, limits=r.limits, electronic_device=True).table_facts
frozenset({'electronic_device'})
"""

from __future__ import annotations

from typing import Protocol

from punto.errors import ActionError
from punto.rules.table_facts import TABLE_FACTS, facts_of


class AtTable(Protocol):
    """What a fact is checked on: a round, which carries its table's facts
    (typed structurally so this module need not import the round's)."""

    @property
    def table_facts(self) -> frozenset[str]: ...


__all__ = ["TABLE_FACTS", "check_table_fact", "facts_of"]


def check_table_fact(round_: AtTable, fact: str, clause: str) -> None:
    """Refuse a procedure of ``clause`` at a table where ``fact`` does not hold."""
    where, lacking, hint = TABLE_FACTS[fact]
    if fact not in round_.table_facts:
        raise ActionError(f"{clause} applies {where}, and {lacking}", clause=clause, hint=hint)
