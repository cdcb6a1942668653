"""The live table: rounds of play as folds over events, limits, roles,
irregularities, the event-logged table and its replay."""
