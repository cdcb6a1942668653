"""The rules engine: cards and shoes, the coup and the Table of Play, the
wagers and what they pay, the games as data (``games/*.toml``, a clause on
every entry), settlement, and the scoreboard's roads.  Everything above it
(the live table, the mathematics, the tournament, the server) asks it."""
