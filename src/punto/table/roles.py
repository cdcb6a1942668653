"""Who may do what at a table: :class:`punto.roles.Role`, kept importable here.

The positions moved down to the rules engine (:mod:`punto.roles`) because a
game's grants name them (:mod:`punto.game`) and the engine must not import
the table layer.
"""

from punto.roles import Role

__all__ = ["Role"]
