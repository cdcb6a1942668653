"""Pictures of punto's figures: charts drawn by matplotlib, the report as a
document, and the roads of a shoe as SVG.

* :mod:`~punto.ui.charts.figure` -- matplotlib, headless, and its output (SVG,
  PNG, PDF); a clear error naming the ``report`` extra when it is missing.
* :mod:`~punto.ui.charts.exact` -- the charts of the exact mathematics.
* :mod:`~punto.ui.charts.sim` -- edge against true count, a simulation's
  running estimates.
* :mod:`~punto.ui.charts.tournament` -- ``punto tournament analyse``.
* :mod:`~punto.ui.charts.report` -- ``punto report``: one HTML file, and a PDF.

The roads of a shoe as SVG need no plotting library: :mod:`punto.ui.roads_svg`.
matplotlib and pandas are optional extras: nothing here imports them until
a chart is drawn, so the core install imports every module.
"""
