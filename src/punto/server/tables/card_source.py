"""Where a server table's cards come from, and the shoe as the pit audits it.

Finding 1 of the security review (docs/security.md, "Card-source integrity").  The table's
``card_source`` says it:

* ``virtual``: the server's own shuffled shoe, its order committed to and
  published before the first card; every card is drawn from it, in order.
  A card keyed in or posted by a device is refused by the engine
  (:class:`punto.table.shoe_state.OutsideCardError`, citing the game's
  decks clause, 2.1): a dealer cannot choose the cards, and the commitment
  describes every card dealt.
* ``device``: a physical shoe of the table's declared decks, its cards read
  by the card-reading shoe or keyed in by the dealer.  The engine checks
  each against the composition still in the shoe (no more of a card than
  the decks hold) and keeps that composition, which the table's state
  shows for the audit (``shoe.composition``).

The source changes only between shoes (:meth:`LiveTable.check_set_physical_shoe`),
by a pit manager or higher at the table (MBS 6.2 positions; the admin holds
no table position), and the change is audited.
"""

from __future__ import annotations

from typing import Any

from punto.server.security.auth import table_role
from punto.store.accounts import User
from punto.table.live import LiveTable
from punto.table.roles import Role

__all__ = ["PHYSICAL_SOURCES", "check_change_role", "physical", "shoe_audit_json"]

#: The card sources that are a physical shoe the table does not shuffle.
PHYSICAL_SOURCES = frozenset({"device"})


def physical(card_source: str) -> bool:
    """Whether a table of ``card_source`` deals from a physical shoe."""
    return card_source in PHYSICAL_SOURCES


def check_change_role(user: User) -> Role:
    """Only a pit manager or higher changes where a table's cards come from:
    it decides whose cards the players bet on (403 for anyone else)."""
    return table_role(user, Role.PIT_MANAGER, "change a table's card source")


def shoe_audit_json(table: LiveTable, card_source: str) -> dict[str, Any]:
    """The shoe in use as a table's state shows it: at a virtual table its
    commitment and the cards left; at a physical shoe its declared decks and
    the cards still in it, card by card (what the pit audits)."""
    shoe = table.shoe
    cards = table.cards
    out: dict[str, Any] = {
        "id": table.shoe_id,
        "cards_left": len(shoe) if shoe is not None else 0,
        "cut_card_reached": table.shoe_finished,
        "replacement_due": table.replacement_due,
        "commitment": shoe.commitment if shoe is not None else None,
        "source": card_source,
        "physical": cards.physical,
    }
    if cards.physical:
        left = cards.composition() or {}
        out["decks"] = cards.decks
        out["cards_left"] = sum(left.values())
        out["composition"] = {str(card): n for card, n in left.items()}
    return out
