"""Who may do what at a table: :class:`punto.rules.roles.Role`, kept importable here.

The positions moved down to the rules engine (:mod:`punto.rules.roles`) because a
game's grants name them (:mod:`punto.rules.game`) and the engine must not import
the table layer.
"""

from punto.rules.roles import Role

__all__ = ["Role"]
