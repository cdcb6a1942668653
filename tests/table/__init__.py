"""The live table: rounds, the table's cards and shoe, irregularities, card handling, limits and replay."""
