"""Game protection for the pit: what each bet was worth when it was
placed, players' theoretical win, and alerts with their evidence.

* :mod:`~punto.protection.valuation` -- the exact value of every bet at
  placement, from the cards seen in the shoe (never the undealt order).
* :mod:`~punto.protection.ratings` -- players' ratings: hands, staked, actual
  and theoretical win, average bet, per player, table or shift.

It uses the mathematics (:mod:`punto.analysis`) and the rules engine, never
the store or the server, which call it.
"""
