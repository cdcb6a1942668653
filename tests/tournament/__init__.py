"""The tournament engine: formats, hands, the clock, irregularities, recovery and the simulation of tournaments."""
