"""The exact analysis (punto.analysis) and the simulation (punto.sim)."""
