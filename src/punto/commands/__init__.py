"""Subcommands of ``punto``: one module each, with ``register(subparsers)``.

Shared argument helpers live in :mod:`punto.commands.common`.
"""
