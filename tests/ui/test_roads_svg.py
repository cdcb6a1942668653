"""The five roads of a shoe as SVG: the picture read back
cell by cell equals the roads' data, and ``punto roads`` draws the shoes of a
replay file and of a table's event log."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import pytest

from punto.cli import main
from punto.rules.games import get_game
from punto.rules.roads import Scoreboard
from punto.store.eventlog import open_event_log
from punto.table.events import TABLE_STREAM
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.ui.roads_svg import ROADS, roads_svg

GOLDEN = Path(__file__).parents[1] / "golden"
SVG = "{http://www.w3.org/2000/svg}"

#: (x, y, what the cell shows) of every drawn cell, by road
Cells = dict[str, list[tuple[int, int, str]]]


def drawn(svg: str) -> tuple[Cells, list[str]]:
    """The cells of every road read off the SVG, and its text."""
    root = ET.fromstring(svg)
    cells: Cells = {}
    for road in root.iter(f"{SVG}g"):
        name = road.get("data-road")
        if name is None:
            continue
        cells[name] = [
            (
                int(cell.attrib["data-x"]),
                int(cell.attrib["data-y"]),
                cell.get("data-winner") or cell.get("data-side") or cell.attrib["data-colour"],
            )
            for cell in road.iter(f"{SVG}g")
            if cell.get("class") == "cell"
        ]
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    return cells, texts


def expected(board: Scoreboard) -> Cells:
    data = board.to_dict()
    shows = {"bead_plate": "winner", "big_road": "side"}
    return {
        name: [(c["x"], c["y"], c[shows.get(name, "colour")]) for c in data[name]["cells"]]
        for name, _ in ROADS
    }


def test_roads_svg_cells_are_the_roads_data() -> None:
    board = Scoreboard.from_results("TBBPPPBPPBBBBPBBTBpPbPPPPPPPPBn")
    cells, texts = drawn(roads_svg(board, "a known shoe"))
    assert cells == expected(board)
    assert len(cells["bead_plate"]) == len(board.results) == board.stats.coups
    assert "".join(w[0].upper() for _, _, w in cells["bead_plate"]) == "".join(
        r.letter for r in board.results
    )
    # the derived roads' colours, in order, are their entries
    for road in board.derived_roads:
        colours = [c for _, _, c in cells[road.name]]
        assert sorted(colours) == sorted(c.value for c in road.entries)
    titles = {t for t in texts if "(" in t}
    assert f"Big road ({len(board.big_road.entries)})" in titles
    assert any(
        t.startswith(f"{board.stats.coups} coups: Banker {board.stats.banker}") for t in texts
    )
    assert "a known shoe" in texts


def test_roads_svg_big_road_is_the_worked_grid() -> None:
    """The big road drawn for a hand-worked golden sequence (dragon tails
    blocked by tails) is the grid worked by hand."""
    golden = json.loads((GOLDEN / "roads" / "staircase.json").read_text("utf-8"))
    board = Scoreboard.from_results(golden["input"].replace(" ", ""))
    cells, _ = drawn(roads_svg(board))
    rows = len(golden["big_road_grid"])
    width = len(golden["big_road_grid"][0].split())
    grid = [["."] * width for _ in range(rows)]
    for x, y, side in cells["big_road"]:
        grid[y][x] = side[0].upper()
    assert [" ".join(row) for row in grid] == golden["big_road_grid"]


def test_roads_command_draws_a_shoe_of_a_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    replay = GOLDEN / "replay" / "dragon_tiger_shoe_cut_card_first.json"
    assert main(["replay", str(replay)]) == 0
    report = json.loads(capsys.readouterr().out)
    winners = {r["round"]: r["winner"] for r in report["rounds"] if r["phase"] == "settled"}
    for shoe, listed in enumerate(report["shoes"], 1):
        out = tmp_path / f"shoe{shoe}.svg"
        assert main(["roads", str(replay), "--shoe", str(shoe), "--out", str(out)]) == 0
        assert capsys.readouterr().out == f"wrote {out}\n"
        cells, texts = drawn(out.read_text("utf-8"))
        # the bead plate holds the shoe's settled rounds in order, a void round none
        assert [w for _, _, w in cells["bead_plate"]] == [
            winners[r] for r in listed["rounds"] if r in winners
        ]
        assert any(f"shoe {shoe} of 3" in t for t in texts)


def test_roads_command_reads_an_event_log_without_writing_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "table.db"
    log = open_event_log(str(path), TABLE_STREAM)
    limits = TableLimits(Decimal(10), Decimal(500))
    table = LiveTable("t1", get_game("tiger-baccarat"), limits=limits, log=log, seed="roads")
    coups = []
    for _ in range(9):
        r = table.new_round()
        r.close_betting()
        table.deal_to_completion()
        r.settle()
        coups.append(r.deal.to_coup())
    before = len(log.read("t1"))
    out = tmp_path / "roads.svg"
    assert main(["roads", "--log", str(path), "--table-id", "t1", "--out", str(out)]) == 0
    assert len(open_event_log(str(path), TABLE_STREAM).read("t1")) == before
    cells, _ = drawn(out.read_text("utf-8"))
    board = Scoreboard(pair_rule=table.pair_rule)
    board.extend(coups)
    assert cells == expected(board)
    assert [w for _, _, w in cells["bead_plate"]] == [c.winner.value for c in coups]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--shoe", "4"], "there is no shoe 4: the table dealt 3"),
        (["--log", "x.db"], "give a replay file or --log, one of them"),
    ],
    ids=["no such shoe", "both sources"],
)
def test_roads_command_refusals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    replay = GOLDEN / "replay" / "dragon_tiger_shoe_cut_card_first.json"
    out = tmp_path / "roads.svg"
    assert main(["roads", str(replay), "--out", str(out), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert not out.exists()


def test_roads_command_never_creates_a_missing_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "none.db"
    argv = ["roads", "--log", str(missing), "--table-id", "t1", "--out", str(tmp_path / "r.svg")]
    assert main(argv) == 2
    assert f"there is no event log {missing}" in capsys.readouterr().err
    assert not missing.exists()
