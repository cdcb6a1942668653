"""Exact game mathematics by shoe composition (see docs/analysis.md).

* :mod:`~punto.analysis.composition` -- shoe compositions (13 rank counts).
* :mod:`~punto.analysis.classes` -- coup classes and pair patterns, each with a
  coup dealt by the engine, and the wager kinds' event for each.
* :mod:`~punto.analysis.plan` -- a game's wagers compiled into event slots;
  :func:`~punto.analysis.plan.kind_counts` for a single wager kind.
* :mod:`~punto.analysis.kernel` -- the compiled kernel (``_kernel.c``) or the
  pure-Python :mod:`~punto.analysis.enumeration`, which gives identical integers.
* :mod:`~punto.analysis.tables` -- every wager's odds: :func:`~punto.analysis.tables.odds_table`.
* :mod:`~punto.analysis.removal` -- effects of removal.
* :mod:`~punto.analysis.insurance_values` -- Insurance Plus values (Tiger Buffalo).

Their charts and ``punto report`` are drawn by :mod:`punto.ui.charts`.

The modules are imported on demand, so that the command line starts quickly.
"""
