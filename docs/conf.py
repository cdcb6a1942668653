"""Sphinx configuration of punto's documentation: the pages of ``docs/`` and
an API reference built from the docstrings (``scripts/docs.sh`` builds it,
warnings as errors, into ``build/docs/html``)."""

from __future__ import annotations

import sys
from pathlib import Path

from pygments.lexers.data import JsonLexer
from sphinx.application import Sphinx

# The source tree's punto (with its extras installed, as scripts/setup.sh does),
# so that autodoc documents this checkout, not an installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

project = "punto"
author = "the punto project"
copyright = "2026, the punto project"

extensions = [
    "myst_nb",  # MyST Markdown (myst_parser) and the example notebook
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
# docs/notebook.ipynb is shown with the outputs committed with it (written by
# scripts/run_notebook.py --write); the build does not run it again: .ci/run
# executes it on its own step (scripts/run_notebook.py), which fails on any error.
nb_execution_mode = "off"
root_doc = "index"
exclude_patterns = ["_build", "README.md"]

# The API pages are generated from the modules at every build (docs/api is
# not kept in git), so a new module or docstring appears without editing here.
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {
    "members": True,
    "undoc-members": False,
    "show-inheritance": True,
    # A package's __all__ re-exports names documented in their own modules
    # (punto.Game is punto.rules.game.Game): document each once, where it is defined.
    "ignore-module-all": True,
}
# A class without a docstring of its own would show its base's (SQLAlchemy's,
# argon2's), whose references point into those projects' documentation.
autodoc_inherit_docstrings = False
autodoc_typehints = "description"
autodoc_member_order = "bysource"
# Docstrings write ``code`` and :mod:`punto.x`; a single-backquoted name is a reference.
default_role = "py:obj"

# docs/*.md link to source files and to ../shared/rules, which are not pages.
# ref.python: an annotation ``type[...]`` (the builtin) also matches, by suffix,
# every attribute named ``type`` (Event.type, ...); Sphinx links the builtin
# name nowhere and warns of the ambiguity, which is not an error in the docs.
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing", "ref.python"]

html_theme = "alabaster"
html_title = "punto"


def setup(app: Sphinx) -> None:
    # docs/replay-examples.md shows event logs as ```jsonl: one JSON document a line.
    app.add_lexer("jsonl", JsonLexer)
