"""Execute the example notebooks (docs/*.ipynb) on a local kernel, offline,
and fail on the first cell that raises: run by .ci/run so they never go stale.
With ``--write``, save each notebook with the outputs of that run: the docs
show them as committed (after changing a notebook or what it shows, run with
``--write`` and commit the result).

Usage: python scripts/run_notebook.py [--write] [NOTEBOOK ...]   (default: docs/*.ipynb)
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent

#: Seconds a cell may take before the run fails (the whole notebook takes
#: well under a minute on an idle machine; CI's is busy).
CELL_TIMEOUT = 300


def run(path: Path, *, write: bool = False) -> float:
    """Execute one notebook in its own directory (and save it with its outputs
    if ``write``); return the seconds it took."""
    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    if write:
        for cell in notebook.cells:  # the run's own timings and kernel ids: noise in a diff
            cell.get("metadata", {}).pop("execution", None)
        notebook.metadata.pop("widgets", None)
        nbformat.write(notebook, path)  # type: ignore[no-untyped-call]
    return seconds


def main(argv: list[str]) -> int:
    # the kernel runs in the notebook's directory: a relative PYTHONPATH (the
    # worktrees' PYTHONPATH=src) must still name the same code
    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    os.environ["PYTHONPATH"] = os.pathsep.join(str(Path(e).resolve()) for e in entries if e)
    write = "--write" in argv
    paths = [Path(a) for a in argv if a != "--write"] or sorted((ROOT / "docs").glob("*.ipynb"))
    for path in paths:
        try:
            seconds = run(path, write=write)
        except CellExecutionError as error:
            print(f"{path}: a cell failed\n{error}", file=sys.stderr)
            return 1
        print(f"{path}: ran in {seconds:.1f} s" + (", saved with its outputs" if write else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
