"""A finished tournament's results as JSON and CSV.

One row per entrant: place, who, how they played (``human`` or the
automated strategy), the session reached, chips, prize, entries, and the
table and chips of every session played.

>>> from punto.tournament.formats import get_format
>>> from punto.tournament.runner import Runner
>>> from punto.eventlog import MemoryEventLog
>>> from punto.tournament.events import TOURNAMENT_STREAM
>>> from punto.tournament.tournament import Tournament
>>> t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "doc", get_format("turbo"), seed=2)
>>> runner = Runner(t); runner.enter(bots=6); _ = runner.run()
>>> results_csv(t).splitlines()[0]
'place,entrant,name,controller,reached,chips,prize,currency,entries,heat_table,heat_chips,final_table,final_chips'
>>> results_json(t)["results"][0]["place"]
1
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from punto.tournament.errors import TournamentPhaseError
from punto.tournament.tournament import Stage, Tournament


def _check(t: Tournament) -> None:
    if t.stage is not Stage.FINISHED:
        raise TournamentPhaseError(
            f"tournament {t.id!r} has not finished ({t.stage.value})",
            hint="play it to the end first; the leaderboard shows it meanwhile",
        )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def result_rows(t: Tournament) -> list[dict[str, Any]]:
    """One flat row per entrant, in place order."""
    _check(t)
    fmt = t.fmt
    rows = []
    for row in t.result_rows():
        e = t.entrants[row["entrant"]]
        flat: dict[str, Any] = {
            "place": row["place"],
            "entrant": row["entrant"],
            "name": row["name"],
            "controller": row["controller"],
            "reached": row["reached"],
            "chips": row["chips"],
            "prize": row["prize"],
            "currency": fmt.currency,
            "entries": row["entries"],
        }
        for s in fmt.sessions:
            flat[f"{_slug(s.name)}_table"] = e.session_tables.get(s.number)
            flat[f"{_slug(s.name)}_chips"] = e.session_chips.get(s.number)
        rows.append(flat)
    return rows


def results_json(t: Tournament) -> dict[str, Any]:
    """The results with the format they were played under."""
    rows = result_rows(t)
    return {
        "tournament": t.id,
        "format": t.fmt.to_json(),
        "seed": t.seed if t.seeded else None,
        "entrants": len(t.entrants),
        "events": t.seq,
        "results": rows,
    }


def results_csv(t: Tournament) -> str:
    rows = result_rows(t)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue()


def write_results(
    t: Tournament, *, csv_path: str | None = None, json_path: str | None = None
) -> None:
    """Write the CSV and/or JSON files (both are built before either is written)."""
    csv_text = results_csv(t) if csv_path else None
    json_text = (
        json.dumps(results_json(t), indent=2, ensure_ascii=False) + "\n" if json_path else None
    )
    if csv_path and csv_text is not None:
        Path(csv_path).write_text(csv_text, encoding="utf-8")
    if json_path and json_text is not None:
        Path(json_path).write_text(json_text, encoding="utf-8")
