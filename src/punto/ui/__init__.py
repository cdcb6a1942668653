"""The people's interfaces outside the browser: the dealer's console and the
terminal table (``punto table``, ``punto play``), the roads drawn as SVG, and
the charts of the mathematics and the simulations."""
