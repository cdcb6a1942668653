"""Simulation at scale and advantage-play analysis (see docs in each module).

* :mod:`~punto.sim.tables` -- what the kernels read: the Table of Play as an
  outcome table built from :mod:`punto.rules.tableau`, the pair patterns and the
  class/pattern -> event tables of the exact analysis (:mod:`punto.analysis`).
* :mod:`~punto.sim.kernel` -- compiled (numba) kernels: shuffle, burn, cut
  card, coups; they emit each coup's class and pair pattern, nothing else.
* ``punto.sim._kernel`` -- the dealing kernel in C, built at install when a
  compiler exists: the same shoes without numba's start-up.
* :mod:`~punto.sim.plain` -- the same dealing in plain Python, for runs too
  small for loading numba to pay (the same integers).
* :mod:`~punto.sim.dealing` -- which of the three deals a run: C when built,
  otherwise plain Python for a small run and numba for the rest.
* :mod:`~punto.sim.run` -- seeded chunks, exact merging, statistics.
* :mod:`~punto.sim.cluster` -- running the chunks in this process (one
  worker) or on Dask distributed.
* :mod:`~punto.sim.counting` -- counting strategies: tags from the effect of
  removal, true count, bet thresholds, the exact true-count-to-edge curve.
* :mod:`~punto.sim.reference` -- a plain-Python simulator (the engine's
  ``Deal`` and the wager kinds), the baseline and cross-check of the kernels.
* :mod:`~punto.sim.running` -- a run's running estimates (its prefixes).
* :mod:`~punto.sim.vulnerability` -- the counting section of ``punto report``.

Their charts are drawn by :mod:`punto.ui.charts.sim`.

Modules are imported on demand: importing numba takes a moment.
"""
