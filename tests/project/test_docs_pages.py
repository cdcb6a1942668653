"""The docs a newcomer reads first: the getting-started and
command-line pages are in the site, the command-line page names every command,
and the example notebook is committed with the outputs the site shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from punto import cli

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_guides_open_with_getting_started_the_command_line_and_the_notebook() -> None:
    index = (DOCS / "index.rst").read_text("utf-8")
    guides = index.split(":caption: Guides", 1)[1].split(".. toctree::", 1)[0].split()
    assert guides[:3] == ["getting-started", "command-line", "notebook"]
    for page in ("getting-started.md", "command-line.md", "notebook.ipynb"):
        assert (DOCS / page).is_file()


def test_the_command_line_page_has_a_row_for_every_command() -> None:
    page = (DOCS / "command-line.md").read_text("utf-8")
    rows = set(re.findall(r"^\| `([a-z]+)", page, re.MULTILINE))
    assert rows == set(cli.COMMANDS)


def test_the_notebook_is_committed_with_every_cells_outputs_in_order() -> None:
    notebook = json.loads((DOCS / "notebook.ipynb").read_text("utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code
    # run top to bottom in one kernel (scripts/run_notebook.py --write)
    assert [cell["execution_count"] for cell in code] == list(range(1, len(code) + 1))
    for cell in code:
        assert cell["outputs"], "".join(cell["source"])[:80]
        assert not any(o["output_type"] == "error" for o in cell["outputs"])
    shown = [kind for cell in code for o in cell["outputs"] for kind in o.get("data", {})]
    assert "image/svg+xml" in shown  # the charts and the roads, as the site shows them
